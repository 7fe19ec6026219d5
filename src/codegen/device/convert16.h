/* The bf16 and f16 conversions, one copy: src/util/dtype.c includes this header for the host
 * (the reference, validation), and src/codegen/c_emit.c prints its sections (the bits, then
 * bf16 or f16) into the cpu backend's generated C, so both round alike: to nearest even, NaN
 * stays NaN, as the GPU's conversion instructions do (sections: codegen/device_files.h). */
#ifndef RR_CODEGEN_DEVICE_CONVERT16_H
#define RR_CODEGEN_DEVICE_CONVERT16_H

#include <math.h>
#include <stdint.h>
#include <string.h>

//@ bits
/* 16-bit floats are uint16_t bits in memory; the conversions work on the bits of an f32. */
static inline uint32_t rr__float_bits(float value)
{
	uint32_t bits;
	memcpy(&bits, &value, sizeof bits);
	return bits;
}

static inline float rr__bits_float(uint32_t bits)
{
	float value;
	memcpy(&value, &bits, sizeof value);
	return value;
}

//@ bf16
static inline uint16_t rr__bf16_from_float(float value)
{
	const uint32_t bits = rr__float_bits(value);
	if (isnan(value))
		return (uint16_t)((bits >> 16) | 0x40u);
	return (uint16_t)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

static inline float rr__bf16_to_float(uint16_t bits)
{
	return rr__bits_float((uint32_t)bits << 16);
}

//@ f16
static inline uint16_t rr__f16_from_float(float value)
{
	const uint32_t bits = rr__float_bits(value);
	const uint32_t sign = (bits >> 16) & 0x8000u, exponent = (bits >> 23) & 0xffu;
	uint32_t mantissa = bits & 0x7fffffu;
	if (exponent == 0xff)
		return (uint16_t)(sign | 0x7c00u | (mantissa ? 0x200u : 0u));
	const int e = (int)exponent - 127 + 15;
	if (e >= 31)
		return (uint16_t)(sign | 0x7c00u);
	if (e <= 0) {
		if (e < -10)
			return (uint16_t)sign;
		mantissa |= 0x800000u;
		const int shift = 14 - e;
		uint32_t half = mantissa >> shift;
		const uint32_t rest = mantissa & ((1u << shift) - 1), midpoint = 1u << (shift - 1);
		if (rest > midpoint || (rest == midpoint && (half & 1u)))
			half++;
		return (uint16_t)(sign | half);
	}
	uint32_t half = sign | ((uint32_t)e << 10) | (mantissa >> 13);
	const uint32_t rest = mantissa & 0x1fffu;
	if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
		half++; /* a carry into the exponent rounds up, to infinity at most */
	return (uint16_t)half;
}

static inline float rr__f16_to_float(uint16_t h)
{
	const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exponent = (h >> 10) & 0x1fu,
	               mantissa = h & 0x3ffu;
	if (exponent == 0) { /* zero and subnormals: mantissa * 2^-24 */
		const float sub = ldexpf((float)mantissa, -24);
		return sign ? -sub : sub;
	}
	if (exponent == 31) /* a NaN quiet, as the conversion instructions make it (cpu_vec.h) */
		return rr__bits_float(sign | 0x7f800000u | (mantissa << 13) |
		                      (mantissa ? 0x400000u : 0u));
	return rr__bits_float(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

//@ end
#endif
