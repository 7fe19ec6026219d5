#!/usr/bin/env python3
"""swapcase.py IN.c OUT.c: probe, rr_vswap by a switch on the offset, each case a shuffle by a
constant index (the tree's loop left as it is)."""
import sys
s = open(sys.argv[1]).read()
old = s[s.index("static inline vf rr_vswap(vf v, int o)"):]
old = old[:old.index("\n}\n") + 3]
new = '''static inline vf rr_vswap(vf v, int o)
{
	vi index = {0};
	switch (o) {
#define RR_SWAP_CASE(k) \\
	case k: \\
		for (int l = 0; l < L; l++) \\
			index[l] = (l ^ k) & (L - 1); \\
		return __builtin_shuffle(v, index);
	RR_SWAP_CASE(1)
	RR_SWAP_CASE(2)
	RR_SWAP_CASE(4)
	RR_SWAP_CASE(8)
	}
	return v;
}
'''
open(sys.argv[2], "w").write(s.replace(old, new))
