# The README's Python example (example.yaml next to it). After `pip install .` at the repository
# root, run it from any directory: python examples/python/example.py
from pathlib import Path
from typing import Any, Dict

import controllerreg


class Test2ViewController:
    pass


class Test1ViewController:
    def __init__(self, args: Dict[str, Any]) -> None:
        self.text, self.number = args["dependentString"], args["number"]
        self.test2: Test2ViewController = args["test2ViewController"]  # the object Test2's factory returned


with controllerreg.Registry() as reg:
    reg.register_class("Test2ViewController", lambda args: Test2ViewController())
    reg.register_class("Test1ViewController", Test1ViewController)
    reg.load_file(Path(__file__).with_name("example.yaml"))
    test1 = reg.create("Test1", color="red", number=1)  # errors raise controllerreg.Error subclasses
    print(type(test1).__name__, test1.text, test1.number, type(test1.test2).__name__)
