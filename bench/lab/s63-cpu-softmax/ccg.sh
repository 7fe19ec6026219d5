#!/bin/sh
# ccg.sh NAME: as cc.sh, with -g (same code; perf's source lines), to so/NAME-g.so
mkdir -p so
exec gcc -g -O3 -march=native -ffp-contract=off -fno-math-errno -fPIC -shared -std=c11 -o so/$1-g.so src/$1.c
