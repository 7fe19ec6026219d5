#!/bin/bash
# cc.sh K.c: the backend's flags (src/backend/cpu.c), K.so beside it
cc -O3 -march=native -ffp-contract=off -fno-math-errno -fPIC -shared -std=c11 -o "${1%.c}.so" "$1" -lm
