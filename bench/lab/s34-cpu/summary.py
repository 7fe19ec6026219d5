#!/usr/bin/env python3
"""summary.py RUNS...: one line per lab run of ab.sh (kernel, dtype, shape, stream, the median
B/A, quartiles, pairs with B faster, outputs differing)."""
import re, sys
for path in sys.argv[1:]:
    head = None
    for line in open(path):
        m = re.match(r"(\S+) load (\S+) (\S+) vs (\S+) (\S+) (\S+) (\S+) stream (\d)", line)
        if m:
            head = "%s %s %s s%s load %s" % (m.group(5), m.group(6), m.group(7), m.group(8), m.group(2))
        m = re.search(r"over (\d+) pairs: median ([\d.]+), quartiles ([\d.-]+), B faster in (\d+)", line)
        if m and head:
            ratio = "%s (%s, %s of %s)" % (m.group(2), m.group(3), m.group(4), m.group(1))
        m = re.search(r"outputs differing: (\d+) \(and (\d+) NaN", line)
        if m and head:
            print("%-45s %-32s diff %s nan %s" % (head, ratio, m.group(1), m.group(2)))
            head = None
