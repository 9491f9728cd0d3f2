"""Test setup: the tests run against the real libcontrollerreg.so.

The library is found as the package finds it ($CONTROLLERREG_LIBRARY, else the build tree
walking up from the package and from the current directory). When the package is not
installed, the source tree's src/ is put on sys.path.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]  # the repository: bindings/python/tests -> ../../..
FIXTURES = ROOT / "Tests" / "Fixtures"

try:
    import controllerreg  # noqa: F401
except ImportError:  # running from a checkout without installing
    sys.path.insert(0, str(HERE.parent / "src"))
    import controllerreg  # noqa: F401


@pytest.fixture(scope="session", autouse=True)
def _library() -> None:
    import os

    if not os.environ.get("CONTROLLERREG_LIBRARY"):
        # Let the build-tree lookup start from the repository even if pytest runs elsewhere.
        for candidate in (ROOT / "build" / "libcontrollerreg.so", ROOT / ".build" / "release" / "libcontrollerreg.so"):
            if candidate.is_file():
                controllerreg.load_library(candidate)
                break
    controllerreg.load_library()


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def reg():
    r = controllerreg.Registry()
    yield r
    r.close()


class Test2ViewController:
    __test__ = False  # not a pytest test class


class Test1ViewController:
    __test__ = False

    def __init__(self, args):
        self.color = args.get("color")
        self.number = args.get("number")
        self.dependentString = args["dependentString"]
        self.dependentInt = args["dependentInt"]
        self.dependentBool = args["dependentBool"]
        self.test2ViewController = args["test2ViewController"]


@pytest.fixture
def example(reg, fixtures):
    reg.register_class("Test2ViewController", lambda args: Test2ViewController())
    reg.register_class("Test1ViewController", Test1ViewController)
    reg.load_file(fixtures / "example.yaml")
    return reg
