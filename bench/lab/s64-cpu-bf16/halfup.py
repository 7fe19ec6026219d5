#!/usr/bin/env python3
"""halfup.py IN.c OUT.c [nonan]: rr_store_bf16_run's AVX2 path in the generated source with a
fast path first: where no lane of the run is NaN and no 16-bit word is 0x8000 (a tie's low
half; or a high half 0x8000, -0 to a negative subnormal), round half up, (bits + 0x8000) >> 16,
which is round to nearest even everywhere else. `nonan`: without the NaN test (wrong for
NaN rows: the lab's measure of that test alone)."""
import sys

src = open(sys.argv[1]).read()
nonan = len(sys.argv) > 3 and sys.argv[3] == "nonan"
anchor = '''	__m256 nan = _mm256_setzero_ps();
	for (int k = 0; k + 1 < count; k += 2)
		nan =
		    _mm256_or_ps(nan, _mm256_cmp_ps((__m256)v[k], (__m256)v[k + 1], _CMP_UNORD_Q));
	if (__builtin_expect(_mm256_movemask_ps(nan) == 0, 1)) {
		const int aligned ='''
assert src.count(anchor) == 1
fast = '''	{
		const __m256i tie = _mm256_set1_epi16((short)0x8000);
		__m256i special = _mm256_setzero_si256();
		for (int k = 0; k + 1 < count; k += 2) {
			NANTEST
			special = _mm256_or_si256(
			    special, _mm256_or_si256(_mm256_cmpeq_epi16((__m256i)v[k], tie),
			                             _mm256_cmpeq_epi16((__m256i)v[k + 1], tie)));
		}
		if (__builtin_expect(_mm256_testz_si256(special, special), 1)) {
			const int aligned =
			    stream ? (int)((uintptr_t)p % 32 == 0) + (int)((uintptr_t)p % 16 == 0) : 0;
			int k = 0;
			for (; k + 1 < count; k += 2) {
				const __m256i half = _mm256_set1_epi32(0x8000);
				const __m256i packed = _mm256_permute4x64_epi64(
				    _mm256_packus_epi32(
				        _mm256_srli_epi32(_mm256_add_epi32((__m256i)v[k], half), 16),
				        _mm256_srli_epi32(_mm256_add_epi32((__m256i)v[k + 1], half), 16)),
				    0xd8);
				uint16_t *q = p + k * L;
				if (aligned == 2)
					_mm256_stream_si256((__m256i *)(void *)q, packed);
				else if (aligned == 1) {
					_mm_stream_si128((__m128i *)(void *)q, _mm256_castsi256_si128(packed));
					_mm_stream_si128((__m128i *)(void *)(q + 8),
					                 _mm256_extracti128_si256(packed, 1));
				} else
					_mm256_storeu_si256((__m256i *)(void *)q, packed);
			}
			if (k < count) {
				if (stream)
					rr_stream_bf16(p + k * L, v[k]);
				else
					rr_store_bf16(p + k * L, v[k]);
			}
			return;
		}
	}
'''
nt = ("" if nonan else
      "special = _mm256_or_si256(special, (__m256i)_mm256_cmp_ps((__m256)v[k], "
      "(__m256)v[k + 1], _CMP_UNORD_Q));")
src = src.replace(anchor, fast.replace("NANTEST", nt) + anchor)
open(sys.argv[2], "w").write(src)
