#!/usr/bin/env python3
"""Python's json.loads against controllerreg's JSON load of the same bytes, in one process.

usage: bench_pyjson.py pair LIBCONTROLLERREG FILE TAG     -> PAIR load.json.TAG / python.json.TAG
       bench_pyjson.py cg LIBCONTROLLERREG FILE python|cr N   (N untimed loads, for callgrind)

controllerreg is called through ctypes on the real libcontrollerreg.so (cr_registry_new +
cr_load_string of bytes already in memory; freeing the registry is not timed), so both sides are
interleaved in the same process (pairbench.py). json.loads builds dicts from the same bytes.
"""

import ctypes
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pairbench  # noqa: E402

CR_FORMAT_JSON = 1


def open_lib(path):
    lib = ctypes.CDLL(path)
    lib.cr_registry_new.restype = ctypes.c_void_p
    lib.cr_registry_free.argtypes = [ctypes.c_void_p]
    lib.cr_load_string.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
    lib.cr_load_string.restype = ctypes.c_int
    lib.cr_last_error_message.restype = ctypes.c_char_p
    return lib


def ops(lib, data):
    def cr_load():
        reg = lib.cr_registry_new()
        if lib.cr_load_string(reg, data, len(data), CR_FORMAT_JSON) != 0:
            sys.exit("bench_pyjson: load failed: %s" % lib.cr_last_error_message().decode())
        return reg

    def py_load():
        return json.loads(data)

    return cr_load, lib.cr_registry_free, py_load


def main():
    if len(sys.argv) < 5 or sys.argv[1] not in ("pair", "cg"):
        sys.exit(__doc__)
    lib = open_lib(sys.argv[2])
    data = open(sys.argv[3], "rb").read()
    cr_load, cr_free, py_load = ops(lib, data)
    if sys.argv[1] == "pair":
        tag = sys.argv[4]
        cr_free(cr_load())  # warm-up
        py_load()
        pairbench.pair(
            "load.json.%s" % tag,
            cr_load,
            "python.json.%s" % tag,
            py_load,
            n_a=1,
            n_b=1,
            unit="ms",
            a_teardown=cr_free,
            extra={"a_bytes": len(data), "b_bytes": len(data)},
            prime=True,
        )
    else:
        which, n = sys.argv[4], int(sys.argv[5])
        if which == "cr":
            pairbench.count(cr_load, n, cr_free)
        else:
            pairbench.count(py_load, n)


if __name__ == "__main__":
    main()
