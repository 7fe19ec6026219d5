#!/usr/bin/env python3
"""Probe helper (session 32): text edits of an emitted kernel.
usage: probe.py IN.c OUT.c 'OLD=>NEW' ... (\\n and \\t in the pairs are a newline and a tab;
every OLD must occur at least once, each occurrence is replaced)"""
import sys
src=open(sys.argv[1]).read()
for pair in sys.argv[3:]:
    old,new=pair.split('=>')
    old=old.replace('\\n','\n').replace('\\t','\t'); new=new.replace('\\n','\n').replace('\\t','\t')
    n=src.count(old); assert n>0, old
    src=src.replace(old,new)
open(sys.argv[2],'w').write(src)
