#!/usr/bin/env python3
"""Session 60 lab: up to three builds of rowreduce side by side in compare_torch.py's own
replay (session 59's compare_ab.py with a second reference). "rowreduce" is the build RR_LIBRARY
names; "base" the one RR_BASE_LIBRARY names and "varb" RR_VARB_LIBRARY (each a second copy of
the Python package bound to that librowreduce.so). Arguments: those of compare_torch.py, e.g.
--impls rowreduce,base,varb,compile."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
PKG = os.path.join(ROOT, "python", "rowreduce")
COMPARE = os.path.join(ROOT, "bench", "compare_torch.py")

candidate = os.environ["RR_LIBRARY"]
copies = {}
for label, env in (("base", "RR_BASE_LIBRARY"), ("varb", "RR_VARB_LIBRARY")):
    if not os.environ.get(env):
        continue
    os.environ["RR_LIBRARY"] = os.environ[env]
    spec = importlib.util.spec_from_file_location("rowreduce_" + label,
                                                  os.path.join(PKG, "__init__.py"),
                                                  submodule_search_locations=[PKG])
    mod = importlib.util.module_from_spec(spec)
    sys.modules["rowreduce_" + label] = mod
    spec.loader.exec_module(mod)
    print(label, "library:", mod.library_path(), file=sys.stderr)
    copies[label] = mod
os.environ["RR_LIBRARY"] = candidate

spec = importlib.util.spec_from_file_location("compare_torch", COMPARE)
ct = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ct)
print("candidate library:", ct.rowreduce.library_path(), file=sys.stderr)


def impl_of(mod):
    def impl(op, n):
        kernel = mod.load(op)
        eps = ct.EPS.get(op)
        params = {"eps": eps} if eps is not None else {}
        return lambda a: kernel(check_index=False, **a, **params)
    return impl


for label, mod in copies.items():
    ct.PEERS[label] = impl_of(mod)
sys.argv[0] = COMPARE
sys.exit(ct.main())
