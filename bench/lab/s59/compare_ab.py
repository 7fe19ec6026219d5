#!/usr/bin/env python3
"""Session 59 lab: two builds of rowreduce side by side in compare_torch.py's own replay, so an
A/B of generated code is measured position-balanced in one process beside the peers. "base" is
a second copy of the Python package bound to RR_BASE_LIBRARY (the reference build's
librowreduce.so); "rowreduce" is the one RR_LIBRARY names (the candidate). Arguments: those of
compare_torch.py, e.g. --impls rowreduce,base,compile."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
PKG = os.path.join(ROOT, "python", "rowreduce")
COMPARE = os.path.join(ROOT, "bench", "compare_torch.py")

candidate = os.environ["RR_LIBRARY"]
os.environ["RR_LIBRARY"] = os.environ["RR_BASE_LIBRARY"]
spec = importlib.util.spec_from_file_location("rowreduce_base", os.path.join(PKG, "__init__.py"),
                                              submodule_search_locations=[PKG])
base = importlib.util.module_from_spec(spec)
sys.modules["rowreduce_base"] = base
spec.loader.exec_module(base)
print("base library:", base.library_path(), file=sys.stderr)
os.environ["RR_LIBRARY"] = candidate

spec = importlib.util.spec_from_file_location("compare_torch", COMPARE)
ct = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ct)
print("candidate library:", ct.rowreduce.library_path(), file=sys.stderr)


def impl_base(op, n):
    kernel = base.load(op)
    eps = ct.EPS.get(op)
    params = {"eps": eps} if eps is not None else {}
    return lambda a: kernel(check_index=False, **a, **params)


ct.PEERS["base"] = impl_base
sys.argv[0] = COMPARE
sys.exit(ct.main())
