#!/bin/sh
# cc.sh NAME: src/NAME.c -> so/NAME.so with the cpu backend's flags (src/backend/cpu.c)
mkdir -p so
exec gcc -O3 -march=native -ffp-contract=off -fno-math-errno -fPIC -shared -std=c11 -o so/$1.so src/$1.c
