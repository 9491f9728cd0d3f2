#!/usr/bin/env python3
"""Regenerates Tests/Fixtures/example.plist (XML) and example-binary.plist (bplist00)
from Tests/Fixtures/example.json with Python's standard plistlib, so all three hold the
same content. Run from anywhere: python3 scripts/make-plist-fixtures.py"""

import json
import os
import plistlib

here = os.path.dirname(os.path.abspath(__file__))
fixtures = os.path.join(here, os.pardir, "Tests", "Fixtures")

with open(os.path.join(fixtures, "example.json"), "rb") as f:
    value = json.load(f)

with open(os.path.join(fixtures, "example.plist"), "wb") as f:
    plistlib.dump(value, f, fmt=plistlib.FMT_XML, sort_keys=False)

with open(os.path.join(fixtures, "example-binary.plist"), "wb") as f:
    plistlib.dump(value, f, fmt=plistlib.FMT_BINARY, sort_keys=False)
