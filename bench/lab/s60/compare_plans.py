#!/usr/bin/env python3
"""Session 60 lab: fixed plans of rowreduce as peers in compare_torch.py's own replay, so that a
sweep of plans is timed beside the pick and the peers in one process, position-balanced.
RR_LAB_PLANS lists them, ';'-separated, each a layout (W=..,V=..,...); they become the peers
plan0, plan1, ... (a plan the planner rejects for a configuration is reported as that peer's
error there). Arguments: those of compare_torch.py, e.g. --impls rowreduce,plan0,plan1,compile."""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
COMPARE = os.path.join(HERE, "..", "..", "compare_torch.py")
spec = importlib.util.spec_from_file_location("compare_torch", COMPARE)
ct = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ct)
plans = [p.strip() for p in os.environ.get("RR_LAB_PLANS", "").split(";") if p.strip()]


def impl_of(plan):
    def impl(op, n):
        kernel = ct.rowreduce.load(op, plan=plan)
        eps = ct.EPS.get(op)
        params = {"eps": eps} if eps is not None else {}
        return lambda a: kernel(check_index=False, **a, **params)
    return impl


for i, plan in enumerate(plans):
    ct.PEERS["plan%d" % i] = impl_of(plan)
    print("plan%d: %s" % (i, plan), file=sys.stderr)
sys.argv[0] = COMPARE
sys.exit(ct.main())
