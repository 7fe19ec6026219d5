/* The public kernel API: loading (text, file, built-in), freeing, the inputs and outputs a
 * caller binds, the analysis summary and the human-readable report of `rowreduce check`. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/analysis.h"
#include "lang/builtins.h"
#include "lang/parser.h"
#include "util/util.h"

/* Bigger texts are refused before parsing: no real kernel comes near. */
#define RR_MAX_KERNEL_TEXT (16u << 20)
#define RR_MAX_BUILTINS 64

const char *rr_kind_name(rr_kind kind)
{
	switch (kind) {
	case RR_KIND_ROW:
		return "row";
	case RR_KIND_COL:
		return "col";
	case RR_KIND_ROWSCALAR:
		return "rowscalar";
	case RR_KIND_INDEX:
		return "index";
	case RR_KIND_PARAM:
		return "param";
	}
	return "?";
}

static const char *builtin_names[RR_MAX_BUILTINS + 1];
static pthread_once_t builtin_names_once = PTHREAD_ONCE_INIT;

static void collect_builtin_names(void)
{
	int n = 0;
	for (const rr__builtin *b = rr__builtins; b->name && n < RR_MAX_BUILTINS; b++)
		builtin_names[n++] = b->name;
	builtin_names[n] = NULL;
}

const char *const *rr_builtin_names(void)
{
	pthread_once(&builtin_names_once, collect_builtin_names);
	return builtin_names;
}

/* "sum, softmax, ..." for messages. */
static void builtin_list(char *buf, size_t size)
{
	size_t used = 0;
	buf[0] = 0;
	for (const char *const *name = rr_builtin_names(); *name && used < size; name++) {
		int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", *name);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

void rr_kernel_free(rr_kernel *kernel)
{
	if (!kernel)
		return;
	rr__analysis_free(&kernel->analysis);
	free(kernel->text);
	free(kernel->nodes);
	free(kernel->bindings);
	free(kernel);
}

rr_status rr_kernel_load_string(const char *text, size_t length, const char *name_for_errors,
                                rr_kernel **out)
{
	const char *file = name_for_errors ? name_for_errors : "<string>";
	if (!out)
		return rr__fail(RR_ERR_INVALID_ARG, "rr_kernel_load_string: out is NULL");
	*out = NULL;
	if (!text && length > 0)
		return rr__fail(RR_ERR_INVALID_ARG, "rr_kernel_load_string: text is NULL");
	if (length > RR_MAX_KERNEL_TEXT)
		return rr__spec_error(RR_ERR_PARSE, file, 1, 1,
		                      "kernel text of %zu bytes; expected at most %u bytes", length,
		                      RR_MAX_KERNEL_TEXT);
	rr_kernel *kernel = rr__kernel_new("");
	char *copy = malloc(length + 1);
	if (!kernel || !copy) {
		free(copy);
		rr_kernel_free(kernel);
		return rr__fail(RR_ERR_NOMEM, "out of memory loading kernel '%s'", file);
	}
	if (length)
		memcpy(copy, text, length);
	copy[length] = 0;
	kernel->text = copy;
	kernel->text_length = length;
	snprintf(kernel->path, sizeof kernel->path, "%s", file);
	rr__sha256_hex(copy, length, kernel->source_hash);
	rr_status status = rr__parse_kernel(kernel, file);
	if (status == RR_OK) {
		status = rr__analyze(kernel);
		if (status != RR_OK)
			rr__fail_context(status, "%s: analysis of kernel '%s' failed", file,
			                 kernel->name);
	}
	if (status != RR_OK) {
		rr_kernel_free(kernel);
		return status;
	}
	rr__clear_error();
	*out = kernel;
	return RR_OK;
}

rr_status rr_kernel_load_file(const char *path, rr_kernel **out)
{
	if (!out || !path)
		return rr__fail(RR_ERR_INVALID_ARG, "rr_kernel_load_file: path or out is NULL");
	*out = NULL;
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return rr__fail(RR_ERR_IO, "'%s' is a folder; expected a kernel file (.rr)", path);
	/* Bounded and regular only: `check /dev/zero` must not read forever. */
	char *text = NULL;
	size_t size = 0;
	rr_status status =
	    rr__read_regular_file(path, RR_KERNEL_FILE_MAX_BYTES, "kernel file", &text, &size);
	if (status != RR_OK)
		return status;
	status = rr_kernel_load_string(text, size, path, out);
	free(text);
	return status;
}

static const rr__builtin *find_builtin(const char *name)
{
	for (const rr__builtin *b = rr__builtins; name && b->name; b++)
		if (strcmp(b->name, name) == 0)
			return b;
	return NULL;
}

rr_status rr_kernel_load_builtin(const char *name, rr_kernel **out)
{
	if (!out)
		return rr__fail(RR_ERR_INVALID_ARG, "rr_kernel_load_builtin: out is NULL");
	*out = NULL;
	const rr__builtin *builtin = find_builtin(name);
	if (!builtin) {
		char list[512];
		builtin_list(list, sizeof list);
		return rr__fail(RR_ERR_INVALID_ARG,
		                "unknown built-in kernel '%s'; expected one of %s",
		                name ? name : "(null)", list);
	}
	char file[RR_MAX_NAME + 16];
	snprintf(file, sizeof file, "builtin:%s.rr", builtin->name);
	return rr_kernel_load_string(builtin->text, strlen(builtin->text), file, out);
}

rr_status rr_kernel_load(const char *name_or_path, rr_kernel **out)
{
	if (!name_or_path || !out)
		return rr__fail(RR_ERR_INVALID_ARG, "rr_kernel_load: name or out is NULL");
	if (find_builtin(name_or_path))
		return rr_kernel_load_builtin(name_or_path, out);
	struct stat st;
	if (stat(name_or_path, &st) == 0)
		return rr_kernel_load_file(name_or_path, out);
	*out = NULL;
	char list[512];
	builtin_list(list, sizeof list);
	return rr__fail(RR_ERR_IO,
	                "'%s' is neither a built-in kernel nor an existing file; expected one of "
	                "%s, or the path of a kernel file (.rr)",
	                name_or_path, list);
}

const char *rr_kernel_name(const rr_kernel *kernel)
{
	return kernel ? kernel->name : "";
}

const char *rr_kernel_source_hash(const rr_kernel *kernel)
{
	return kernel ? kernel->source_hash : "";
}

int rr_kernel_num_inputs(const rr_kernel *kernel)
{
	return kernel ? kernel->n_inputs : 0;
}

int rr_kernel_num_outputs(const rr_kernel *kernel)
{
	return kernel ? kernel->n_outputs : 0;
}

static rr_status io_info(const rr_kernel *kernel, int i, int output, rr_io_info *out)
{
	const char *what = output ? "output" : "input";
	int count = output ? rr_kernel_num_outputs(kernel) : rr_kernel_num_inputs(kernel);
	if (!kernel || !out)
		return rr__fail(RR_ERR_INVALID_ARG, "rr_kernel_%s: kernel or out is NULL", what);
	if (i < 0 || i >= count)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "%s %d of kernel '%s' does not exist; expected 0 to %d", what, i,
		                kernel->name, count - 1);
	const rr__io *io = output ? &kernel->outputs[i] : &kernel->inputs[i];
	out->name = io->name;
	out->kind = io->kind;
	out->default_value = io->default_value;
	return RR_OK;
}

rr_status rr_kernel_input(const rr_kernel *kernel, int i, rr_io_info *out)
{
	return io_info(kernel, i, 0, out);
}

rr_status rr_kernel_output(const rr_kernel *kernel, int i, rr_io_info *out)
{
	return io_info(kernel, i, 1, out);
}

int rr_kernel_find_input(const rr_kernel *kernel, const char *name)
{
	for (int i = 0; kernel && name && i < kernel->n_inputs; i++)
		if (strcmp(kernel->inputs[i].name, name) == 0)
			return i;
	return -1;
}

rr_status rr_kernel_analysis(const rr_kernel *kernel, rr_analysis_info *out)
{
	if (!kernel || !out)
		return rr__fail(RR_ERR_INVALID_ARG, "rr_kernel_analysis: kernel or out is NULL");
	memset(out, 0, sizeof *out);
	out->rounds = kernel->analysis.rounds;
	out->reductions = kernel->analysis.reductions;
	out->online_rewrites = kernel->analysis.online_rewrites;
	out->exact_reductions = kernel->analysis.exact_reductions;
	for (int i = 0; i < kernel->n_outputs; i++) {
		if (kernel->outputs[i].kind == RR_KIND_ROW)
			out->row_outputs++;
		else
			out->rowscalar_outputs++;
	}
	return RR_OK;
}

static void signature(const rr_kernel *kernel, rr__buf *buf)
{
	char number[32];
	rr__buf_printf(buf, "%s(", kernel->name);
	for (int i = 0; i < kernel->n_inputs; i++) {
		const rr__io *io = &kernel->inputs[i];
		rr__buf_printf(buf, "%s%s", i ? ", " : "", io->name);
		if (io->kind == RR_KIND_PARAM) {
			rr__ir_format_number(io->default_value, number);
			rr__buf_printf(buf, " = %s", number);
		} else {
			rr__buf_printf(buf, ": %s", rr_kind_name(io->kind));
		}
	}
	rr__buf_printf(buf, ") -> (");
	for (int i = 0; i < kernel->n_outputs; i++)
		rr__buf_printf(buf, "%s%s: %s", i ? ", " : "", kernel->outputs[i].name,
		               rr_kind_name(kernel->outputs[i].kind));
	rr__buf_printf(buf, ")");
}

rr_status rr_kernel_signature(const rr_kernel *kernel, char *buf, size_t size)
{
	if (!kernel || !buf || size == 0)
		return rr__fail(RR_ERR_INVALID_ARG, "rr_kernel_signature: kernel or buf is NULL");
	rr__buf text = {0};
	signature(kernel, &text);
	if (text.failed) {
		rr__buf_free(&text);
		buf[0] = 0;
		return rr__fail(RR_ERR_NOMEM, "out of memory formatting a signature");
	}
	snprintf(buf, size, "%s", text.data ? text.data : "");
	size_t needed = text.length + 1;
	rr__buf_free(&text);
	if (needed > size)
		return rr__fail(RR_ERR_INVALID_ARG,
		                "signature of kernel '%s' needs %zu bytes; the buffer has %zu",
		                kernel->name, needed, size);
	return RR_OK;
}

static const char *binding_of(const rr_kernel *kernel, int id)
{
	for (int i = 0; i < kernel->n_bindings; i++)
		if (kernel->bindings[i].node == id)
			return kernel->bindings[i].name;
	return NULL;
}

static int is_output_name(const rr_kernel *kernel, const char *name)
{
	for (int i = 0; i < kernel->n_outputs; i++)
		if (strcmp(kernel->outputs[i].name, name) == 0)
			return 1;
	return 0;
}

/* "name = expr" when the node is bound to a name, else "expr". */
static void print_named(const rr_kernel *kernel, int id, FILE *out)
{
	const char *name = binding_of(kernel, id);
	if (name)
		fprintf(out, "%s = ", name);
	rr__ir_print_expr_tidy(kernel, id, out);
}

static void print_declarations(const rr_kernel *kernel, FILE *out)
{
	char number[32];
	fprintf(out, "inputs\n");
	for (int i = 0; i < kernel->n_inputs; i++)
		if (kernel->inputs[i].kind != RR_KIND_PARAM)
			fprintf(out, "  %s : %s\n", kernel->inputs[i].name,
			        rr_kind_name(kernel->inputs[i].kind));
	for (int i = 0; i < kernel->n_inputs; i++) {
		if (kernel->inputs[i].kind != RR_KIND_PARAM)
			continue;
		rr__ir_format_number(kernel->inputs[i].default_value, number);
		fprintf(out, "  param %s = %s\n", kernel->inputs[i].name, number);
	}
	fprintf(out, "outputs\n");
	for (int i = 0; i < kernel->n_outputs; i++) {
		fprintf(out, "  %s : %s = ", kernel->outputs[i].name,
		        rr_kind_name(kernel->outputs[i].kind));
		rr__ir_print_expr_tidy(kernel, kernel->outputs[i].node, out);
		fputc('\n', out);
	}
	int intermediates = 0;
	for (int i = 0; i < kernel->n_bindings; i++) {
		const rr__binding *binding = &kernel->bindings[i];
		if (is_output_name(kernel, binding->name))
			continue;
		if (!intermediates++)
			fprintf(out, "assignments\n");
		fprintf(out, "  %s = ", binding->name);
		rr__ir_print_expr_tidy(kernel, binding->node, out);
		fputc('\n', out);
	}
}

static void print_reductions(const rr_kernel *kernel, FILE *out)
{
	const rr__analysis *analysis = &kernel->analysis;
	fprintf(out, "reductions\n");
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (kernel->nodes[id].op != RR_OP_REDUCE)
			continue;
		if (analysis->level)
			fprintf(out, "  round %d: ", analysis->level[id]);
		else
			fprintf(out, "  round ?: ");
		print_named(kernel, id, out);
		int partner = analysis->online_partner ? analysis->online_partner[id] : -1;
		if (partner >= 0)
			fprintf(out, "   (online pair with %s)",
			        binding_of(kernel, partner) ? binding_of(kernel, partner)
			                                    : "a max");
		fputs(kernel->nodes[id].exact ? "   (exact: one accumulator, index order)\n" : "\n",
		      out);
	}
	for (int id = 0; analysis->online_partner && id < kernel->n_nodes; id++) {
		int sum = analysis->online_partner[id];
		if (sum < 0 || kernel->nodes[id].reduce != RR_REDUCE_MAX)
			continue;
		fprintf(out, "online rewrite: ");
		print_named(kernel, id, out);
		fprintf(out, "; ");
		print_named(kernel, sum, out);
		fprintf(out, " -> one online (max, sum) pass\n");
	}
}

/* Which row inputs are read in more than one pass (a round, or the output phase). */
static void print_storage(const rr_kernel *kernel, FILE *out)
{
	if (!kernel->analysis.level || !rr__analysis_needs_storage(kernel)) {
		fprintf(out, "row storage between rounds: not needed (every row input is read in "
		             "one pass)\n");
		return;
	}
	int passes = kernel->analysis.rounds + 1;
	unsigned char read[RR_MAX_IO];
	fprintf(out, "row storage between rounds: needed (");
	int listed = 0;
	for (int i = 0; i < kernel->n_inputs; i++) {
		if (kernel->inputs[i].kind != RR_KIND_ROW)
			continue;
		int reads = 0;
		for (int pass = 1; pass <= passes; pass++) {
			rr__analysis_inputs_read(kernel, pass, read);
			reads += read[i] != 0;
		}
		if (reads < 2)
			continue;
		fprintf(out, "%s%s is read in ", listed++ ? "; " : "", kernel->inputs[i].name);
		int shown = 0;
		for (int pass = 1; pass <= passes; pass++) {
			rr__analysis_inputs_read(kernel, pass, read);
			if (!read[i])
				continue;
			shown++;
			fprintf(out, "%s", shown == 1 ? "" : shown == reads ? " and " : ", ");
			if (pass < passes)
				fprintf(out, "round %d", pass);
			else
				fprintf(out, "the output phase");
		}
	}
	fprintf(out, "): keep the row in registers or shared memory, or read it again\n");
}

rr_status rr_kernel_print(const rr_kernel *kernel, FILE *out)
{
	if (!kernel || !out)
		return rr__fail(RR_ERR_INVALID_ARG, "rr_kernel_print: kernel or out is NULL");
	rr__buf sig = {0};
	signature(kernel, &sig);
	fprintf(out, "kernel %s   (%s, sha256 %.16s)\n", kernel->name, kernel->path,
	        kernel->source_hash);
	fprintf(out, "signature: %s\n", sig.data ? sig.data : kernel->name);
	rr__buf_free(&sig);
	print_declarations(kernel, out);
	print_reductions(kernel, out);
	const rr__analysis *analysis = &kernel->analysis;
	fprintf(out, "rounds: %d\n", analysis->rounds);
	fprintf(out, "reductions after rewrites: %d (online rewrites: %d)\n", analysis->reductions,
	        analysis->online_rewrites);
	fprintf(out, "exact reductions: %d\n", analysis->exact_reductions);
	print_storage(kernel, out);
	if (ferror(out))
		return rr__fail(RR_ERR_IO, "cannot write the analysis of kernel '%s'",
		                kernel->name);
	return RR_OK;
}
