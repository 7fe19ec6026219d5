#!/usr/bin/env python3
"""Session 57 lab: bench/compare_torch.py with rowreduce on one fixed plan (RR_LAB_PLAN, a layout
such as W=1,V=1,U=1,R=128) for every configuration, so that a plan is timed in the compare's
graph replay beside the peers (`rowreduce bench`'s graph phase put every R of 100000x1 at
2.36-2.39 µs where the compare had the pick at 1.89). Arguments: those of compare_torch.py."""
import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
COMPARE = os.path.join(HERE, "..", "..", "compare_torch.py")
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))
import rowreduce  # noqa: E402

plan = os.environ.get("RR_LAB_PLAN")
if plan:
    rowreduce.set_plan_source(lambda kernel, dtype, rows, cols, backend: plan)
sys.argv[0] = COMPARE
runpy.run_path(COMPARE, run_name="__main__")
