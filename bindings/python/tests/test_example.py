"""The README's Python example is examples/python/example.py, and it runs from any directory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import ROOT

EXAMPLE = ROOT / "examples" / "python" / "example.py"


def test_readme_shows_the_example_script() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "```python\n" + EXAMPLE.read_text(encoding="utf-8") + "```\n" in readme


def test_example_runs_from_another_directory(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, str(EXAMPLE)], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[:2] == ["Test1ViewController", "Yes,"]
    assert out.stdout.rstrip().endswith("1 Test2ViewController")
