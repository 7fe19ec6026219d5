#!/usr/bin/env python3
"""Probe (session 32): rr_bf16_rounded8 with the tie's bit from a compare instead of a shift.
bits + 0x7fff + ((bits >> 16) & 1) == bits + 0x8000 + ((bits & 0x10000) == 0 ? -1 : 0):
one vector shift a vector fewer (shifts and shuffles share two of Zen 3's four vector pipes).
usage: round_cmp.py IN.c OUT.c"""
import sys
src = open(sys.argv[1]).read()
old = """	const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
	return _mm256_srli_epi32(
	    _mm256_add_epi32(_mm256_add_epi32(bits, _mm256_set1_epi32(0x7fff)), odd), 16);"""
new = """	const __m256i even = _mm256_cmpeq_epi32(
	    _mm256_and_si256(bits, _mm256_set1_epi32(0x10000)), _mm256_setzero_si256());
	return _mm256_srli_epi32(
	    _mm256_add_epi32(_mm256_add_epi32(bits, _mm256_set1_epi32(0x8000)), even), 16);"""
assert src.count(old) == 1
open(sys.argv[2], 'w').write(src.replace(old, new))
