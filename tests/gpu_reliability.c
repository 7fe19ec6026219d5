/* The inputs users hit (reliability_cases.h) on the cuda backend: the same checks as
 * test_reliability.c runs on the cpu. Skipped (77) when no GPU answers. */
#include "reliability_cases.h"

int main(void)
{
	return run_reliability_cases("cuda", "gpu_reliability");
}
