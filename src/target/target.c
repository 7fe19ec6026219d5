/* The targets: the CPU backend's, and the per-architecture table of CUDA parts. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "target/target.h"
#include "util/util.h"

void rr__target_cpu(rr__target *target)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	memset(target, 0, sizeof *target);
	target->backend = "cpu";
	target->kind = RR_TARGET_CPU;
	target->max_workers = 1024;
	target->warp_size = 32;
	/* The same budget as a GPU thread, so one plan means the same on both backends. */
	target->register_slots = 64;
	target->smem_per_group = 0;
	target->has_clusters = 0;
	target->max_cluster = 1;
	target->multiprocessors = online > 0 ? (int)online : 1;
}

void rr__target_cuda_arch_name(const rr__target *target, char *out, size_t size)
{
	snprintf(out, size, "sm_%d%d", target->cc_major, target->cc_minor);
}

rr_status rr__target_for_cuda_arch(const char *arch, rr__target *out)
{
	int major = 0, minor = 0;
	char tail = 0;
	const char *digits = arch && strncmp(arch, "sm_", 3) == 0 ? arch + 3 : NULL;
	size_t length = digits ? strlen(digits) : 0;
	if (!digits || length < 2 || length > 3 || sscanf(digits, "%d%c", &major, &tail) != 1)
		return rr__fail(
		    RR_ERR_INVALID_ARG,
		    "'%s' is not a CUDA architecture: write sm_XY, e.g. sm_90 for H100/H200 "
		    "or sm_80 for A100",
		    arch ? arch : "(null)");
	minor = major % 10;
	major /= 10;
	memset(out, 0, sizeof *out);
	out->backend = "cuda";
	out->kind = RR_TARGET_GPU;
	out->keeps_derived_values = 1;
	out->max_workers = 1024;
	out->warp_size = 32;
	out->register_slots = 64;
	out->cc_major = major;
	out->cc_minor = minor;
	/* The usual part of each architecture; a live device reports its own numbers. */
	if (major >= 9 && !(major == 12)) {
		out->smem_per_group = 227 * 1024;
		out->multiprocessors = major == 9 ? 132 : 148;
		out->l2_bytes = (int64_t)(major == 9 ? 60 : 126) * 1024 * 1024;
	} else if (major == 8 && minor == 0) {
		out->smem_per_group = 163 * 1024;
		out->multiprocessors = 108;
		out->l2_bytes = (int64_t)40 * 1024 * 1024;
	} else {
		out->smem_per_group = 99 * 1024;
		out->multiprocessors = major >= 12 ? 170 : 84;
		out->l2_bytes = (int64_t)(major >= 12 ? 96 : 6) * 1024 * 1024;
	}
	if (major < 7)
		out->smem_per_group = 48 * 1024;
	out->has_clusters = major >= 9;
	/* sm_90 (H100/H200) runs clusters of 16 with the non-portable opt-in the launcher sets;
	 * whether a kernel's cluster of 16 fits is the driver's answer at load time. */
	out->max_cluster = major == 9 ? 16 : major > 9 ? 8 : 1;
	return RR_OK;
}
