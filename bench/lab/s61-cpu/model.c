/* Lab tool (session 61): the cpu cost model's prediction for a few layouts of one workload.
 * Usage: model KERNEL DTYPE M N LAYOUT... (built against the library's internals). */
#include <stdio.h>
#include <stdlib.h>

#include "backend/backend.h"
#include "plan/cost.h"
#include "rowreduce.h"

int main(int argc, char **argv)
{
	if (argc < 6)
		return 2;
	rr_device *device = NULL;
	rr_kernel *kernel = NULL;
	if (rr_device_open("cpu", &device) != RR_OK || rr_kernel_load(argv[1], &kernel) != RR_OK)
		return 1;
	rr_dtype dtype = argv[2][0] == 'f' && argv[2][1] == '3' ? RR_F32 : RR_BF16;
	rr__plan_request req = {.kernel = kernel,
	                        .dtype = dtype,
	                        .rows = atoll(argv[3]),
	                        .cols = atoll(argv[4]),
	                        .target = &device->target};
	for (int a = 5; a < argc; a++) {
		rr_layout layout;
		if (rr_layout_parse(argv[a], &layout) != RR_OK)
			return 2;
		printf("%s %s %sx%s %-24s %.1f us\n", argv[1], argv[2], argv[3], argv[4], argv[a],
		       rr__cost_default(&req, &layout, NULL));
	}
	return 0;
}
