#!/usr/bin/env python3
"""Generates benchmark configs of N entries in YAML, JSON, XML plist and binary plist.

usage: genconfig.py N OUTDIR   -> OUTDIR/entries-N.{yaml,json,xml.plist,bin.plist}

The same entries in every format. Every 8th entry is a leaf (no references); the others refer to
the two nearest earlier leaves, so reference chains stay short (depth <= 2) whatever N is. Each
entry has a description, a tag, three literals and (mostly) two references: about 200 bytes of
YAML per entry. Never commit the output.
"""

import json
import os
import plistlib
import sys


def entries(n):
    out = {}
    for i in range(n):
        name = "Entry%06d" % i
        deps = {
            "title": "@Screen number %d" % i,
            "count": i,
            "ratio": (i % 100) / 8.0,
            "enabled": i % 2 == 0,
        }
        if i % 8 != 0:
            leaf = i - (i % 8)
            deps["primary"] = "Entry%06d" % leaf
            deps["secondary"] = "Entry%06d" % max(0, leaf - 8)
        out[name] = {
            "ClassName": "Leaf" if i % 8 == 0 else "Node",
            "Description": "Generated entry %d for the load benchmark" % i,
            "Tag": i,
            "Dependencies": deps,
        }
    return out


def yaml_scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return json.dumps(v)  # a double-quoted YAML scalar


def write_yaml(path, data):
    lines = []
    for name, e in data.items():
        lines.append("%s:" % name)
        lines.append("  ClassName: %s" % e["ClassName"])
        lines.append("  Description: %s" % yaml_scalar(e["Description"]))
        lines.append("  Tag: %d" % e["Tag"])
        lines.append("  Dependencies:")
        for k, v in e["Dependencies"].items():
            lines.append("    %s: %s" % (k, yaml_scalar(v)))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    n = int(sys.argv[1])
    outdir = sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    data = entries(n)
    base = os.path.join(outdir, "entries-%d" % n)
    write_yaml(base + ".yaml", data)
    with open(base + ".json", "w") as f:
        json.dump(data, f, indent=1)
    with open(base + ".xml.plist", "wb") as f:
        plistlib.dump(data, f, fmt=plistlib.FMT_XML, sort_keys=False)
    with open(base + ".bin.plist", "wb") as f:
        plistlib.dump(data, f, fmt=plistlib.FMT_BINARY, sort_keys=False)


if __name__ == "__main__":
    main()
