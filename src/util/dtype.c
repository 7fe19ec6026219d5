/* Element types: names, sizes, and the bf16/f16 conversions every backend and the reference
 * share (round to nearest even, as the GPU's conversion instructions do; the code is in
 * codegen/device/convert16.h, shared with the generated C). */
#include <math.h>
#include <string.h>

#include "codegen/device/convert16.h"
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

rr_status rr_dtype_check_element(rr_dtype dtype)
{
	if (dtype == RR_F32 || dtype == RR_BF16 || dtype == RR_F16)
		return RR_OK;
	return rr__fail(RR_ERR_INVALID_ARG,
	                "dtype %s is not an element type kernels run in: allowed are f32, bf16, "
	                "f16",
	                rr_dtype_name(dtype));
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

uint16_t rr__f32_to_bf16(float value)
{
	return rr__bf16_from_float(value);
}

float rr__bf16_to_f32(uint16_t bits)
{
	return rr__bf16_to_float(bits);
}

uint16_t rr__f32_to_f16(float value)
{
	return rr__f16_from_float(value);
}

float rr__f16_to_f32(uint16_t bits)
{
	return rr__f16_to_float(bits);
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
