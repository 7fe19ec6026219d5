/* Element types: names, sizes, and the bf16/f16 conversions every backend and the reference
 * share (round to nearest even, as the GPU's conversion instructions do). */
#include <math.h>
#include <string.h>

#include "util/util.h"

const char *rr_dtype_name(rr_dtype dtype)
{
	switch (dtype) {
	case RR_F32:
		return "f32";
	case RR_BF16:
		return "bf16";
	case RR_F16:
		return "f16";
	case RR_F64:
		return "f64";
	case RR_I64:
		return "i64";
	}
	return "?";
}

rr_status rr_dtype_parse(const char *name, rr_dtype *out)
{
	static const rr_dtype all[] = {RR_F32, RR_BF16, RR_F16, RR_F64, RR_I64};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		if (name && strcmp(name, rr_dtype_name(all[i])) == 0) {
			*out = all[i];
			return RR_OK;
		}
	}
	return rr__fail(RR_ERR_INVALID_ARG,
	                "unknown dtype '%s': allowed are f32, bf16, f16, f64, i64",
	                name ? name : "(null)");
}

size_t rr_dtype_size(rr_dtype dtype)
{
	switch (dtype) {
	case RR_F32:
		return 4;
	case RR_BF16:
		return 2;
	case RR_F16:
		return 2;
	case RR_F64:
		return 8;
	case RR_I64:
		return 8;
	}
	return 0;
}

static uint32_t float_bits(float value)
{
	uint32_t bits;
	memcpy(&bits, &value, sizeof bits);
	return bits;
}

static float bits_float(uint32_t bits)
{
	float value;
	memcpy(&value, &bits, sizeof value);
	return value;
}

uint16_t rr__f32_to_bf16(float value)
{
	uint32_t bits = float_bits(value);
	if (isnan(value))
		return (uint16_t)((bits >> 16) | 0x40);
	uint32_t rounding = 0x7fff + ((bits >> 16) & 1);
	return (uint16_t)((bits + rounding) >> 16);
}

float rr__bf16_to_f32(uint16_t bits)
{
	return bits_float((uint32_t)bits << 16);
}

uint16_t rr__f32_to_f16(float value)
{
	uint32_t bits = float_bits(value);
	uint32_t sign = (bits >> 16) & 0x8000;
	uint32_t exponent = (bits >> 23) & 0xff;
	uint32_t mantissa = bits & 0x7fffff;
	if (exponent == 0xff)
		return (uint16_t)(sign | 0x7c00 | (mantissa ? 0x200 : 0));
	int e = (int)exponent - 127 + 15;
	if (e >= 31)
		return (uint16_t)(sign | 0x7c00);
	if (e <= 0) {
		if (e < -10)
			return (uint16_t)sign;
		mantissa |= 0x800000;
		int shift = 14 - e;
		uint32_t half = mantissa >> shift;
		uint32_t rest = mantissa & ((1u << shift) - 1);
		uint32_t midpoint = 1u << (shift - 1);
		if (rest > midpoint || (rest == midpoint && (half & 1)))
			half++;
		return (uint16_t)(sign | half);
	}
	uint32_t half = sign | ((uint32_t)e << 10) | (mantissa >> 13);
	uint32_t rest = mantissa & 0x1fff;
	if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
		half++; /* a carry into the exponent is the right rounding, up to infinity */
	return (uint16_t)half;
}

float rr__f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16;
	uint32_t exponent = (h >> 10) & 0x1f;
	uint32_t mantissa = h & 0x3ff;
	if (exponent == 0) {
		if (mantissa == 0)
			return bits_float(sign);
		float value = ldexpf((float)mantissa, -24);
		return sign ? -value : value;
	}
	if (exponent == 31)
		return bits_float(sign | 0x7f800000 | (mantissa << 13));
	return bits_float(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

double rr__load_as_double(const void *data, rr_dtype dtype, size_t i)
{
	switch (dtype) {
	case RR_F32:
		return ((const float *)data)[i];
	case RR_BF16:
		return rr__bf16_to_f32(((const uint16_t *)data)[i]);
	case RR_F16:
		return rr__f16_to_f32(((const uint16_t *)data)[i]);
	case RR_F64:
		return ((const double *)data)[i];
	case RR_I64:
		return (double)((const int64_t *)data)[i];
	}
	return NAN;
}

void rr__store_from_double(void *data, rr_dtype dtype, size_t i, double value)
{
	switch (dtype) {
	case RR_F32:
		((float *)data)[i] = (float)value;
		break;
	case RR_BF16:
		((uint16_t *)data)[i] = rr__f32_to_bf16((float)value);
		break;
	case RR_F16:
		((uint16_t *)data)[i] = rr__f32_to_f16((float)value);
		break;
	case RR_F64:
		((double *)data)[i] = value;
		break;
	case RR_I64:
		((int64_t *)data)[i] = (int64_t)value;
		break;
	}
}
