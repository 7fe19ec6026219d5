/* libFuzzer target for the kernel-language front end: any bytes go through the loader (lexer,
 * parser, type checker, analysis). A success must print and sign without trouble; a failure
 * must carry a positioned "fuzz.rr:LINE:COL: error: " message. Anything else traps. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rowreduce.h"

static FILE *null_output(void)
{
	static FILE *null;
	if (!null)
		null = fopen("/dev/null", "w");
	return null;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rr_kernel *kernel = NULL;
	rr_status status = rr_kernel_load_string((const char *)data, size, "fuzz.rr", &kernel);
	if (status == RR_OK) {
		char signature[1024];
		rr_analysis_info info;
		FILE *null = null_output();
		if (null && rr_kernel_print(kernel, null) != RR_OK)
			__builtin_trap();
		if (rr_kernel_analysis(kernel, &info) != RR_OK || info.rounds < 0)
			__builtin_trap();
		rr_kernel_signature(kernel, signature, sizeof signature);
		if (rr_kernel_num_outputs(kernel) < 1)
			__builtin_trap();
	} else if (status == RR_ERR_PARSE || status == RR_ERR_TYPE) {
		const char *message = rr_last_error();
		if (kernel || strncmp(message, "fuzz.rr:", 8) != 0 ||
		    !strstr(message, ": error: ") || !strstr(message, "; expected "))
			__builtin_trap();
	} else if (status != RR_ERR_NOMEM) {
		__builtin_trap();
	}
	rr_kernel_free(kernel);
	return 0;
}
