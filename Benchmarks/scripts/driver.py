#!/usr/bin/env python3
"""Runs every benchmark, prints the table and writes results.json. Called by scripts/bench.sh.

usage: driver.py --c-bench PATH --swift-bench PATH --out DIR [--quick]

Every benchmark binary prints `RESULT {json}` lines (name, unit, samples, extras). This script
runs them all in one go, adds Python's json.loads on the same JSON bytes, computes median and
spread of each case, the ratio of each case to its comparisons from the same run, and checks the
targets of issue 6. It prints only; a missed target does not fail the command.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, env=None):
    e = dict(os.environ)
    if env:
        e.update(env)
    print("  $ " + " ".join(cmd), file=sys.stderr, flush=True)
    out = subprocess.run(cmd, env=e, check=True, stdout=subprocess.PIPE, text=True).stdout
    results = []
    for line in out.splitlines():
        if line.startswith("RESULT "):
            results.append(json.loads(line[len("RESULT "):]))
        elif line.startswith("SKIP "):
            print("  " + line, file=sys.stderr)
    return results


def stats(samples):
    med = statistics.median(samples)
    lo, hi = min(samples), max(samples)
    return {"median": med, "min": lo, "max": hi,
            "spread_pct": 0.0 if med == 0 else 100.0 * (hi - lo) / 2.0 / med}


def python_json(name, path, reps):
    data = open(path, "rb").read()
    json.loads(data)
    samples = []
    for _ in range(reps):
        t0 = time.thread_time()  # CPU time, like the C benchmark
        json.loads(data)
        samples.append((time.thread_time() - t0) * 1e3)
    return {"name": name, "unit": "ms", "samples": samples, "bytes": len(data)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--c-bench", required=True)
    ap.add_argument("--swift-bench", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true", help="fewer runs and iterations, a 1M soak (smoke test)")
    a = ap.parse_args()

    reps = 3 if a.quick else 9
    load_reps = 3 if a.quick else 11
    big_reps = 2 if a.quick else 5
    env = {"BENCH_REPS": str(reps), "BENCH_ITERS": "20000" if a.quick else "200000"}
    soak = 1_000_000 if a.quick else 10_000_000
    data = os.path.join(a.out, "data")
    os.makedirs(data, exist_ok=True)

    sizes = [1000, 10000, 100000]
    for n in sizes:
        if not os.path.exists(os.path.join(data, "entries-%d.bin.plist" % n)):
            subprocess.run([sys.executable, os.path.join(HERE, "genconfig.py"), str(n), data], check=True)

    results = []
    print("creates (C)...", file=sys.stderr)
    results += run([a.c_bench, "create"], env)
    print("creates (Swift, Swinject)...", file=sys.stderr)
    results += run([a.swift_bench], dict(env, SWINJECT_SOAK="200000" if a.quick else "1000000"))
    print("threads...", file=sys.stderr)
    results += run([a.c_bench, "threads"], env)
    print("soak...", file=sys.stderr)
    results += run([a.c_bench, "soak", str(soak)], env)
    print("loads...", file=sys.stderr)
    formats = [("yaml", "yaml", "yaml"), ("json", "json", "json"), ("xml", "xml.plist", "plist"), ("bin", "bin.plist", "plist")]
    for n in sizes:
        r = load_reps if n <= 10000 else big_reps
        le = dict(env, BENCH_REPS=str(r))
        for tag, ext, fmt in formats:
            path = os.path.join(data, "entries-%d.%s" % (n, ext))
            results += run([a.c_bench, "load", "load.%s.%d" % (tag, n), path, fmt], le)
            if n == 1000:
                continue
            results += run([a.c_bench, "loadmem", "mem.%s.%d" % (tag, n), path, fmt, str(n)], le)
            if tag == "yaml":
                results += run([a.c_bench, "libyaml", "libyaml.%d" % n, path], le)
            elif tag == "json":
                results.append(python_json("python.json.%d" % n, path, r))
            else:
                results += run([a.c_bench, "libplist", "libplist.%s.%d" % (tag, n), path], le)

    by = {}
    for res in results:
        res.update(stats(res["samples"]))
        if "bytes" in res and res["unit"] == "ms":
            res["mb_per_s"] = res["bytes"] / 1e6 / (res["median"] / 1e3)
        by[res["name"]] = res

    def med(name):
        return by[name]["median"] if name in by else None

    def ratio(x, y):
        return None if med(x) is None or med(y) is None or med(y) == 0 else med(x) / med(y)

    # Comparisons per row: (label, numerator, denominator) -> "label: value x"
    comparisons = {}
    for lang in ("c", "swift"):
        for case in ("leaf", "node5", "chain10", "singleton", "diamond", "props_merged"):
            mine = "%s.cr.%s" % (lang, case)
            comps = [("/hand-%s" % lang, mine, "%s.hand.%s" % (lang, case)),
                     ("Swinject/this", "swinject.%s" % case, mine)]
            if case == "leaf":
                comps.insert(0, ("/C lookup+call", mine, "c.baseline.lookup_call"))
            comparisons[mine] = comps
    for n in (10000, 100000):
        comparisons["load.yaml.%d" % n] = [("/libyaml scan", "load.yaml.%d" % n, "libyaml.%d" % n)]
        comparisons["load.json.%d" % n] = [("/Python json.loads", "load.json.%d" % n, "python.json.%d" % n)]
        comparisons["load.xml.%d" % n] = [("/libplist", "load.xml.%d" % n, "libplist.xml.%d" % n)]
        comparisons["load.bin.%d" % n] = [("/libplist", "load.bin.%d" % n, "libplist.bin.%d" % n)]
    comparisons["c.threads.2"] = [("/1 thread", "c.threads.2", "c.threads.1")]
    comparisons["c.threads_cpu.2"] = [("/1 thread", "c.threads_cpu.2", "c.threads_cpu.1")]
    for tag, _, _ in formats:
        comparisons["load.%s.100000" % tag] = comparisons.get("load.%s.100000" % tag, []) + [
            ("100k/10k", "load.%s.100000" % tag, "load.%s.10000" % tag)]

    soak_res = by.get("c.soak.rss")
    soak_growth = soak_res["growth_bytes"] if soak_res else None
    targets = [
        ("leaf create <= 3x C lookup+call", ratio("c.cr.leaf", "c.baseline.lookup_call"), "<=", 3),
        ("leaf create >= 20x faster than Swinject", ratio("swinject.leaf", "c.cr.leaf"), ">=", 20),
        ("5-dependency entry <= 8x hand-wired C", ratio("c.cr.node5", "c.hand.node5"), "<=", 8),
        ("5-dependency entry >= 20x faster than Swinject's node", ratio("swinject.node5", "c.cr.node5"), ">=", 20),
        ("singleton hit >= 30x faster than Swinject's", ratio("swinject.singleton", "c.cr.singleton"), ">=", 30),
        ("YAML 10k load+validation <= 1.5x libyaml scan", ratio("load.yaml.10000", "libyaml.10000"), "<=", 1.5),
        ("YAML 100k load+validation <= 1.5x libyaml scan", ratio("load.yaml.100000", "libyaml.100000"), "<=", 1.5),
        ("JSON 10k load+validation faster than json.loads", ratio("python.json.10000", "load.json.10000"), ">", 1),
        ("JSON 100k load+validation faster than json.loads", ratio("python.json.100000", "load.json.100000"), ">", 1),
        ("XML plist 10k load faster than libplist", ratio("libplist.xml.10000", "load.xml.10000"), ">", 1),
        ("XML plist 100k load faster than libplist", ratio("libplist.xml.100000", "load.xml.100000"), ">", 1),
        ("binary plist 10k load faster than libplist", ratio("libplist.bin.10000", "load.bin.10000"), ">", 1),
        ("binary plist 100k load faster than libplist", ratio("libplist.bin.100000", "load.bin.100000"), ">", 1),
        ("2 threads >= 1.8x one thread (wall clock)", ratio("c.threads.2", "c.threads.1"), ">=", 1.8),
        ("2 threads >= 1.8x one thread (per-thread CPU time)", ratio("c.threads_cpu.2", "c.threads_cpu.1"), ">=", 1.8),
        ("validation linear: YAML 100k/10k <= 12x", ratio("load.yaml.100000", "load.yaml.10000"), "<=", 12),
        ("validation linear: JSON 100k/10k <= 12x", ratio("load.json.100000", "load.json.10000"), "<=", 12),
        ("soak: RSS growth over %d creates <= 1 MiB" % soak, soak_growth, "<=", 1 << 20),
    ]

    lines = []
    lines.append("| case | median | spread | unit | MB/s | ratios (same run) |")
    lines.append("|---|---:|---:|---|---:|---|")
    for res in results:
        name = res["name"]
        comps = []
        for label, x, y in comparisons.get(name, []):
            r = ratio(x, y)
            if r is not None:
                comps.append("%s %.2fx" % (label, r) if not label.startswith("/") else "%.2fx %s" % (r, label))
        extra = ""
        if name == "c.soak.rss":
            extra = "growth %+d B over %d creates" % (res["growth_bytes"], res["creates"])
        mbs = "%.1f" % res["mb_per_s"] if "mb_per_s" in res else ""
        lines.append("| %s | %.4g | ±%.1f%% | %s | %s | %s |" % (
            name, res["median"], res["spread_pct"], res["unit"], mbs, "; ".join(comps) or extra))
    lines.append("")
    lines.append("| target | measured | holds |")
    lines.append("|---|---:|---|")
    verdicts = []
    for label, value, op, limit in targets:
        if value is None:
            holds = None
        else:
            holds = {"<=": value <= limit, ">=": value >= limit, ">": value > limit}[op]
        verdicts.append({"target": label, "value": value, "op": op, "limit": limit, "holds": holds})
        shown = "n/a" if value is None else ("%d B" % value if "soak" in label else "%.2fx" % value)
        lines.append("| %s | %s | %s |" % (label, shown, {True: "yes", False: "NO", None: "not measured"}[holds]))
    table = "\n".join(lines)
    print(table)

    machine = {
        "uname": " ".join(platform.uname()),
        "cpus": os.cpu_count(),
        "cpu_model": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?"),
        "loadavg_at_end": open("/proc/loadavg").read().strip(),
        "python": platform.python_version(),
    }
    out = {"machine": machine, "quick": a.quick, "results": results, "targets": verdicts,
           "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(out, f, indent=1)
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(table + "\n")
    print("\nwrote %s and table.md (load average at end: %s)" % (os.path.join(a.out, "results.json"), machine["loadavg_at_end"]))


if __name__ == "__main__":
    main()
