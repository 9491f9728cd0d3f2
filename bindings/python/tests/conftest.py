"""Test setup: the tests run against the INSTALLED controllerreg package (scripts/test.sh builds
the wheel and installs it into a fresh venv) and the library inside it. Config fixtures come
from the checkout (Tests/Fixtures)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Iterator

import pytest

import controllerreg

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]  # the repository: bindings/python/tests -> ../../..
FIXTURES = ROOT / "Tests" / "Fixtures"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def reg() -> Iterator[controllerreg.Registry]:
    r = controllerreg.Registry()
    yield r
    r.close()


class Test2ViewController:
    __test__ = False  # not a pytest test class


class Test1ViewController:
    __test__ = False

    def __init__(self, args: Dict[str, Any]) -> None:
        self.color = args.get("color")
        self.number = args.get("number")
        self.dependentString: str = args["dependentString"]
        self.dependentInt: int = args["dependentInt"]
        self.dependentBool: bool = args["dependentBool"]
        self.test2ViewController: Test2ViewController = args["test2ViewController"]


@pytest.fixture
def example(reg: controllerreg.Registry, fixtures: Path) -> controllerreg.Registry:
    reg.register_class("Test2ViewController", lambda args: Test2ViewController())
    reg.register_class("Test1ViewController", Test1ViewController)
    reg.load_file(fixtures / "example.yaml")
    return reg
