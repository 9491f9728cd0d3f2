#!/usr/bin/env python3
"""Generates hostile configs of N entries (JSON): the benchmark's entries (genconfig.py) with one
kind of mistake made throughout, to measure error paths against the successful load of the same
size ("error paths cost no more than the success path").

usage: genhostile.py N OUTDIR [SHAPE...]  -> OUTDIR/hostile-SHAPE-N.json (every shape by default)

Shapes (each file but the last six fails to load; most hold one problem per entry):
  missing      every `primary` reference names no entry (Entri000000 for Entry000000)
  wrongtype    every Description is an integer
  unknownkey   every entry's Description key misspelt (Descripton: did-you-mean)
  badform      every `primary` a misspelt form ({provider: Entry000000})
  badtarget    every `primary` a provider of a literal ({Provider: "@Entry000000"}: the flawed-record path)
  cycle        one cycle through every entry (each refers to the next, the last to the first)
  cycles       a two-entry cycle per pair of entries (100 listed, the rest counted)
  duplicate    N/2 entries, each written twice (a duplicate key of the top-level map: N written)
  lifetime     every leaf a `graph` entry, every other entry a singleton that reaches one
  env          every entry's `count` an environment value whose variable is not set
  template     every entry's `title` a literal with an unset ${VARIABLE}
  syntax       the valid file with a syntax error at its end
  longnames    `missing` with 40-byte entry names
Six shapes load successfully: the success paths `env`, `template`, `longnames`, `badform`,
`badtarget`, `cycle`, `cycles` and `lifetime` are compared with.
  envdefault   `env` with a Default for every variable
  templatedefault  `template` with a default (${VARIABLE:-text})
  longnamesok  the entries with 40-byte names
  providerok   every `primary` a provider of its entry ({Provider: Entry000000}): the successful
               load of badform's and badtarget's size and shape
  chainok      every entry but the first refers to the one before it (`primary`): as `cycle` and
               `cycles`, every entry a `primary` naming a distinct entry (9,999 of 10,000), no cycle
  lifetimeok   `lifetime` with `transient` for `singleton` (same bytes, no singleton to break the rule)
Never commit the output.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from genconfig import entries  # noqa: E402


def rename(data, fmt):
    """The same entries with names written by `fmt` (references renamed too)."""
    names = {k: fmt % i for i, k in enumerate(data)}
    out = {}
    for k, e in data.items():
        deps = dict(e["Dependencies"])
        for d in ("primary", "secondary"):
            if d in deps:
                deps[d] = names[deps[d]]
        out[names[k]] = dict(e, Dependencies=deps)
    return out


def shape(name, n):
    data = entries(n // 2 if name == "duplicate" else n)
    keys = list(data)
    if name == "longnamesok":
        data = rename(data, "com.example.screens.generated.Entry%06d")
    elif name in ("missing", "longnames"):
        if name == "longnames":
            data = rename(data, "com.example.screens.generated.Entry%06d")
            keys = list(data)
        for e in data.values():
            if "primary" in e["Dependencies"]:
                e["Dependencies"]["primary"] = e["Dependencies"]["primary"].replace("Entry", "Entri")
    elif name == "wrongtype":
        for i, e in enumerate(data.values()):
            e["Description"] = i
    elif name == "unknownkey":
        data = {k: {("Descripton" if f == "Description" else f): v for f, v in e.items()} for k, e in data.items()}
    elif name == "badform":
        for e in data.values():
            if "primary" in e["Dependencies"]:
                e["Dependencies"]["primary"] = {"provider": e["Dependencies"]["primary"]}
    elif name in ("badtarget", "providerok"):
        mark = "@" if name == "badtarget" else ""
        for e in data.values():
            if "primary" in e["Dependencies"]:
                e["Dependencies"]["primary"] = {"Provider": mark + e["Dependencies"]["primary"]}
    elif name == "cycle":
        for i, e in enumerate(data.values()):
            e["Dependencies"]["primary"] = keys[(i + 1) % n]
    elif name == "cycles":
        for i, e in enumerate(data.values()):
            e["Dependencies"]["primary"] = keys[i ^ 1] if (i ^ 1) < n else keys[i]
    elif name == "chainok":
        for i, e in enumerate(data.values()):
            if i > 0:
                e["Dependencies"]["primary"] = keys[i - 1]
    elif name in ("lifetime", "lifetimeok"):
        other = "singleton" if name == "lifetime" else "transient"
        for i, e in enumerate(data.values()):
            e["Lifestyle"] = "graph" if i % 8 == 0 else other
    elif name in ("env", "envdefault"):
        for i, e in enumerate(data.values()):
            e["Dependencies"]["count"] = {"Env": "CR_HOSTILE_UNSET_%d" % i, "Type": "int"}
            if name == "envdefault":
                e["Dependencies"]["count"]["Default"] = i
    elif name in ("template", "templatedefault"):
        for i, e in enumerate(data.values()):
            default = ":-%d" % i if name == "templatedefault" else ""
            e["Dependencies"]["title"] = "@Screen ${CR_HOSTILE_UNSET_%d%s}" % (i, default)
    text = json.dumps(data, indent=1)
    if name == "duplicate":
        body = text[2:-2]  # the top-level map's pairs, written twice
        text = "{\n" + body + ",\n" + body + "\n}"
    elif name == "syntax":
        text = text[:-1] + ",\n}"
    return text


SHAPES = [
    "missing",
    "wrongtype",
    "unknownkey",
    "badform",
    "badtarget",
    "cycle",
    "cycles",
    "duplicate",
    "lifetime",
    "env",
    "template",
    "syntax",
    "longnames",
    "envdefault",
    "templatedefault",
    "longnamesok",
    "providerok",
    "chainok",
    "lifetimeok",
]


def main():
    n = int(sys.argv[1])
    outdir = sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    for s in sys.argv[3:] or SHAPES:
        with open(os.path.join(outdir, "hostile-%s-%d.json" % (s, n)), "w") as f:
            f.write(shape(s, n))


if __name__ == "__main__":
    main()
