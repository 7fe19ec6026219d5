#!/usr/bin/env bash
# Session 53: session 52's records script under this session's names (s53, s53b).
#   bash bench/lab/s53/gpu/records.sh bf16|f32      (carry .deps .whl .rr-commit)
TAG=s53 exec bash bench/lab/s52/gpu/records.sh "$@"
