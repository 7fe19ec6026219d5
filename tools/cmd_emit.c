/* rowreduce emit: prints the generated source of one plan (C for cpu, CUDA C for cuda) without
 * compiling it; for cuda a target architecture (--arch sm_90) stands in for an absent GPU. */
#include <stdio.h>
#include <string.h>

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
	rr_tool_problem_text text; /* first: rr_tool_main reads it */
	const char *arch;
} emit_options;

static int parse_options(int argc, char **argv, void *options)
{
	emit_options *o = options;
	static const char *const names[] = {"--kernel", "--shape",   "--dtype",
	                                    "--layout", "--backend", "--arch"};
	const char **slots[] = {&o->text.kernel, &o->text.shape,   &o->text.dtype,
	                        &o->text.layout, &o->text.backend, &o->arch};
	o->text.dtype = "f32";
	o->text.backend = "cpu";
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
	if (!o->text.kernel || !o->text.shape)
		return rr_tool_fail(2,
		                    "emit needs --kernel and --shape (see rowreduce emit --help)");
	return 0;
}

/* Prints the source; returns the exit code. */
static int emit(const void *options, const rr_tool_problem *p)
{
	const emit_options *o = options;
	char *source = NULL;
	int code = 2;
	rr_status status = rr_source_emit(o->text.backend, o->arch, p->kernel, p->dtype, p->rows,
	                                  p->cols, p->fixed, &source, NULL);
	if (status == RR_ERR_NO_DEVICE && !o->arch)
		rr_tool_fail(2, "no GPU answers (%s); give the architecture, e.g. --arch sm_90",
		             rr_last_error());
	else if (status != RR_OK)
		rr_tool_fail(2, "%s", rr_last_error());
	else {
		fputs(source, stdout);
		code =
		    fflush(stdout) == 0 ? 0 : rr_tool_fail(2, "cannot write the source to stdout");
	}
	rr_free(source);
	return code;
}

int rr_cmd_emit(int argc, char **argv)
{
	static const rr_tool_command command = {usage, parse_options, emit};
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--check-all") == 0)
			return rr_cmd_emit_check_all(argc, argv);
	emit_options o = {0};
	return rr_tool_main(argc, argv, &command, &o);
}
