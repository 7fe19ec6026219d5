/* rowreduce emit: prints the generated source of one plan (C for cpu, CUDA C for cuda) without
 * compiling it; for cuda a target architecture (--arch sm_90) stands in for an absent GPU. */
#include <stdio.h>
#include <string.h>

#include "program/program.h"
#include "codegen/cuda_emit.h"
#include "commands.h"
#include "rowreduce.h"

/* Provided by tools/emit_check_all.c; this fallback keeps the tool linking without it. */
__attribute__((weak)) int rr_cmd_emit_check_all(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return rr_tool_fail(2, "'emit --check-all' is not built in this version");
}

static void usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: rowreduce emit --kernel NAME|FILE --shape MxN [--dtype f32|bf16|f16]\n"
	    "                      [--backend cpu|cuda] [--layout W=32,V=4,U=1,R=1]\n"
	    "                      [--arch sm_90]\n"
	    "       rowreduce emit --check-all [options]\n"
	    "                      (see rowreduce emit --check-all --help)\n"
	    "\n"
	    "Plans the kernel for the shape and prints the generated source to stdout: readable "
	    "C11\n"
	    "for cpu, CUDA C for cuda, with the plan and the kernel text in a comment on top.\n"
	    "Nothing is compiled or run.\n"
	    "\n"
	    "  --kernel NAME|FILE   a built-in (see `rowreduce ops`) or a kernel file\n"
	    "  --shape MxN          M rows of N elements, both at least 1; N guides the planner\n"
	    "  --dtype T            element type in memory: f32 (default), bf16 or f16\n"
	    "  --backend B          cpu (default) or cuda\n"
	    "  --layout TEXT        the plan, fields W=,V=,U=,R= and optionally C=,S=,G=; fields\n"
	    "                       left out are chosen by the planner\n"
	    "  --arch sm_XY         cuda only: emit for this architecture instead of asking the "
	    "GPU\n"
	    "                       (needed where no GPU answers)\n"
	    "  --check-all          emit and check every built-in plan (a separate mode)\n"
	    "  -h, --help           this text\n"
	    "\n"
	    "exit status: 0 source printed, 2 bad usage, bad input or a rejected layout\n");
}

typedef struct emit_options {
	const char *kernel, *shape, *dtype, *layout, *backend, *arch;
} emit_options;

static int parse_options(int argc, char **argv, emit_options *o)
{
	static const char *const names[] = {"--kernel", "--shape",   "--dtype",
	                                    "--layout", "--backend", "--arch"};
	const char **slots[] = {&o->kernel, &o->shape,   &o->dtype,
	                        &o->layout, &o->backend, &o->arch};
	o->dtype = "f32";
	o->backend = "cpu";
	for (int i = 1; i < argc; i++) {
		int matched = 0;
		for (size_t k = 0; k < sizeof names / sizeof names[0] && !matched; k++) {
			int missing = 0;
			const char *v = rr_tool_option_value(argc, argv, &i, names[k], &missing);
			if (missing)
				return rr_tool_fail(
				    2, "%s needs a value (see rowreduce emit --help)", names[k]);
			if (v) {
				*slots[k] = v;
				matched = 1;
			}
		}
		if (!matched)
			return rr_tool_fail(2, "unknown option '%s' (see rowreduce emit --help)",
			                    argv[i]);
	}
	if (!o->kernel || !o->shape)
		return rr_tool_fail(2,
		                    "emit needs --kernel and --shape (see rowreduce emit --help)");
	return 0;
}

/* A device for emitting: the cpu target, or a cuda target from --arch or from the GPU. */
static int emit_device(const emit_options *o, rr_device *scratch, rr_device **device)
{
	*device = NULL;
	if (o->arch && strcmp(o->backend, "cuda") != 0)
		return rr_tool_fail(2, "--arch applies to --backend cuda only");
	if (strcmp(o->backend, "cpu") != 0 && strcmp(o->backend, "cuda") != 0)
		return rr_tool_fail(2, "--backend '%s' is not allowed: use cpu or cuda",
		                    o->backend);
	const rr__backend_ops *ops = rr__backend_find(o->backend);
	if (!ops)
		return rr_tool_fail(2, "this build of rowreduce has no %s backend", o->backend);
	if (strcmp(o->backend, "cpu") == 0) {
		memset(scratch, 0, sizeof *scratch);
		scratch->ops = ops;
		rr__target_cpu(&scratch->target);
		*device = scratch;
		return 0;
	}
	if (o->arch) {
		memset(scratch, 0, sizeof *scratch);
		scratch->ops = ops;
		if (rr__target_for_cuda_arch(o->arch, &scratch->target) != RR_OK)
			return rr_tool_fail(2, "--arch '%s': %s", o->arch, rr_last_error());
		*device = scratch;
		return 0;
	}
	if (rr_device_open("cuda", device) != RR_OK)
		return rr_tool_fail(2,
		                    "no GPU answers (%s); give the architecture, e.g. --arch sm_90",
		                    rr_last_error());
	return 0;
}

int rr_cmd_emit(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--check-all") == 0)
			return rr_cmd_emit_check_all(argc, argv);
	if (rr_tool_wants_help(argc, argv)) {
		usage(stdout);
		return 0;
	}
	emit_options o = {0};
	if (parse_options(argc, argv, &o) != 0)
		return 2;
	long long rows, cols;
	rr_dtype dtype;
	rr_layout layout = {0};
	if (rr_tool_parse_problem(o.shape, o.dtype, o.layout, &rows, &cols, &dtype, &layout) != 0)
		return 2;
	rr_device scratch, *device = NULL;
	if (emit_device(&o, &scratch, &device) != 0)
		return 2;
	rr_kernel *kernel = NULL;
	rr_program *program = NULL;
	int code = 2;
	if (rr_kernel_load(o.kernel, &kernel) != RR_OK)
		rr_tool_fail(2, "cannot load kernel '%s': %s", o.kernel, rr_last_error());
	else if (rr__program_emit_only(device, kernel, dtype, rows, cols, o.layout ? &layout : NULL,
	                               &program) != RR_OK)
		rr_tool_fail(2, "%s", rr_last_error());
	else {
		fputs(rr_program_source(program), stdout);
		code =
		    fflush(stdout) == 0 ? 0 : rr_tool_fail(2, "cannot write the source to stdout");
	}
	rr_program_free(program);
	rr_kernel_free(kernel);
	if (device != &scratch)
		rr_device_close(device);
	return code;
}
