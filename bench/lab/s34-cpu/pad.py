#!/usr/bin/env python3
"""pad.py IN.c OUT.c BYTES: the same kernel with BYTES bytes of nops jumped over at the start of
one_row's body, so every later instruction of one_row moves by that many bytes and nothing else
changes but one jump a row (the lab's measure of how much the code's placement alone moves a
kernel's time)."""
import sys
s = open(sys.argv[1]).read()
pad = '\t__asm__ volatile("jmp 1f\\n.skip %d, 0x90\\n1:");\n' % int(sys.argv[3])
k = s.index("static void one_row(")
k = s.index("{\n", k) + 2
open(sys.argv[2], "w").write(s[:k] + pad + s[k:])
