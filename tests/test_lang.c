/* Tests of the kernel-language front end: the six built-ins parse to the declared inputs and
 * outputs, nodes are hash-consed and typed, errors name the right line:column, and random or
 * mutated text never crashes the parser (this program runs under ASan and UBSan). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "rowreduce.h"
#include "lang/ir.h"
#include "util/util.h"

static rr_kernel *load(const char *text)
{
	rr_kernel *kernel = NULL;
	rr_status status = rr_kernel_load_string(text, strlen(text), "t.rr", &kernel);
	CHECKF(status == RR_OK, "%s\n%s", rr_last_error(), text);
	return kernel;
}

static int output_node(const rr_kernel *kernel, const char *name)
{
	for (int i = 0; i < kernel->n_outputs; i++)
		if (strcmp(kernel->outputs[i].name, name) == 0)
			return kernel->outputs[i].node;
	return -1;
}

static int binding_node(const rr_kernel *kernel, const char *name)
{
	for (int i = 0; i < kernel->n_bindings; i++)
		if (strcmp(kernel->bindings[i].name, name) == 0)
			return kernel->bindings[i].node;
	return -1;
}

static void check_io(const rr_kernel *kernel, int output, int i, const char *name, rr_kind kind)
{
	rr_io_info info;
	rr_status status =
	    output ? rr_kernel_output(kernel, i, &info) : rr_kernel_input(kernel, i, &info);
	CHECK(status == RR_OK);
	if (status != RR_OK)
		return;
	CHECKF(strcmp(info.name, name) == 0, "%s %d is '%s', expected '%s'",
	       output ? "output" : "input", i, info.name, name);
	CHECKF(info.kind == kind, "'%s' has kind %s", name, rr_kind_name(info.kind));
}

/* Every operand precedes its user, every node's shape follows from its operands. */
static void check_well_formed(const rr_kernel *kernel)
{
	for (int id = 0; id < kernel->n_nodes; id++) {
		const rr__node *node = &kernel->nodes[id];
		CHECK(node->a < id && node->b < id);
		if (node->op == RR_OP_REDUCE) {
			CHECK(node->shape == RR_SHAPE_SCALAR);
			CHECK(kernel->nodes[node->a].shape == RR_SHAPE_ELEM);
		} else if (node->op >= RR_OP_ADD && node->op <= RR_OP_MIN) {
			int elem = kernel->nodes[node->a].shape == RR_SHAPE_ELEM ||
			           kernel->nodes[node->b].shape == RR_SHAPE_ELEM;
			CHECK(node->shape == (elem ? RR_SHAPE_ELEM : RR_SHAPE_SCALAR));
			CHECK(kernel->nodes[node->a].shape != RR_SHAPE_INDEX);
			CHECK(kernel->nodes[node->b].shape != RR_SHAPE_INDEX);
		} else if (node->op >= RR_OP_NEG && node->op <= RR_OP_TANH) {
			CHECK(node->shape == kernel->nodes[node->a].shape);
			CHECK(node->shape != RR_SHAPE_INDEX);
		}
		CHECK(node->line > 0 && node->column > 0);
	}
	for (int i = 0; i < kernel->n_inputs; i++) {
		int node = kernel->inputs[i].node;
		CHECK(node >= 0 && node < kernel->n_nodes);
		if (node >= 0 && node < kernel->n_nodes)
			CHECK(kernel->nodes[node].op == RR_OP_INPUT &&
			      kernel->nodes[node].input == i);
	}
	for (int j = 0; j < kernel->n_outputs; j++) {
		int node = kernel->outputs[j].node;
		CHECK(node >= 0 && node < kernel->n_nodes);
		if (node >= 0 && node < kernel->n_nodes)
			CHECK(kernel->nodes[node].shape == (kernel->outputs[j].kind == RR_KIND_ROW
			                                        ? RR_SHAPE_ELEM
			                                        : RR_SHAPE_SCALAR));
	}
}

static void test_builtins(void)
{
	const char *expected[] = {"sum",       "softmax",       "rmsnorm",
	                          "layernorm", "add_layernorm", "cross_entropy"};
	const char *const *names = rr_builtin_names();
	int count = 0;
	while (names[count])
		count++;
	CHECKF(count == 6, "%d built-ins", count);
	for (size_t e = 0; e < sizeof expected / sizeof expected[0]; e++) {
		int found = 0;
		for (int i = 0; i < count; i++)
			found |= strcmp(names[i], expected[e]) == 0;
		CHECKF(found, "built-in '%s' missing", expected[e]);
	}
	for (int i = 0; i < count; i++) {
		rr_kernel *kernel = NULL;
		CHECKF(rr_kernel_load_builtin(names[i], &kernel) == RR_OK, "%s: %s", names[i],
		       rr_last_error());
		if (!kernel)
			continue;
		CHECK(strcmp(rr_kernel_name(kernel), names[i]) == 0);
		CHECK(strlen(rr_kernel_source_hash(kernel)) == 64);
		check_well_formed(kernel);
		rr_kernel *again = NULL;
		CHECK(rr_kernel_load(names[i], &again) == RR_OK);
		if (again)
			CHECK(strcmp(rr_kernel_source_hash(again), rr_kernel_source_hash(kernel)) ==
			      0);
		rr_kernel_free(again);
		rr_kernel_free(kernel);
	}
}

static void test_rmsnorm(void)
{
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load_builtin("rmsnorm", &kernel) == RR_OK);
	if (!kernel)
		return;
	CHECK(rr_kernel_num_inputs(kernel) == 3 && rr_kernel_num_outputs(kernel) == 1);
	check_io(kernel, 0, 0, "x", RR_KIND_ROW);
	check_io(kernel, 0, 1, "w", RR_KIND_COL);
	check_io(kernel, 0, 2, "eps", RR_KIND_PARAM);
	check_io(kernel, 1, 0, "y", RR_KIND_ROW);
	rr_io_info info;
	CHECK(rr_kernel_input(kernel, 2, &info) == RR_OK && info.default_value == 1e-6);
	CHECK(rr_kernel_input(kernel, 3, &info) == RR_ERR_INVALID_ARG);
	CHECK(rr_kernel_output(kernel, -1, &info) == RR_ERR_INVALID_ARG);
	CHECK(rr_kernel_find_input(kernel, "w") == 1);
	CHECK(rr_kernel_find_input(kernel, "nope") == -1);
	int ss = binding_node(kernel, "ss"), inv = binding_node(kernel, "inv");
	CHECK(ss >= 0 && kernel->nodes[ss].op == RR_OP_REDUCE &&
	      kernel->nodes[ss].reduce == RR_REDUCE_SUM && !kernel->nodes[ss].exact);
	CHECK(inv >= 0 && kernel->nodes[inv].op == RR_OP_RSQRT &&
	      kernel->nodes[inv].shape == RR_SHAPE_SCALAR);
	int y = output_node(kernel, "y");
	CHECK(y >= 0 && kernel->nodes[y].op == RR_OP_MUL &&
	      kernel->nodes[y].shape == RR_SHAPE_ELEM);
	/* ss is written at line 7 (after the comment line), column 9 for sum(. */
	CHECK(kernel->nodes[ss].line == 7 && kernel->nodes[ss].column == 9);
	char sig[256];
	CHECK(rr_kernel_signature(kernel, sig, sizeof sig) == RR_OK);
	CHECKF(strcmp(sig, "rmsnorm(x: row, w: col, eps = 1e-6) -> (y: row)") == 0, "%s", sig);
	CHECK(rr_kernel_signature(kernel, sig, 8) == RR_ERR_INVALID_ARG && strlen(sig) == 7);
	rr_kernel_free(kernel);
}

static void test_cross_entropy_and_softmax(void)
{
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load_builtin("cross_entropy", &kernel) == RR_OK);
	if (kernel) {
		check_io(kernel, 0, 1, "t", RR_KIND_INDEX);
		check_io(kernel, 1, 0, "loss", RR_KIND_ROWSCALAR);
		CHECK(kernel->nodes[kernel->inputs[1].node].shape == RR_SHAPE_INDEX);
		int gathers = 0;
		for (int id = 0; id < kernel->n_nodes; id++)
			if (kernel->nodes[id].op == RR_OP_GATHER) {
				gathers++;
				CHECK(kernel->nodes[id].input == 0 && kernel->nodes[id].index == 1);
				CHECK(kernel->nodes[id].shape == RR_SHAPE_SCALAR);
			}
		CHECK(gathers == 1);
		rr_analysis_info info;
		CHECK(rr_kernel_analysis(kernel, &info) == RR_OK);
		CHECK(info.online_rewrites == 1 && info.rowscalar_outputs == 1 &&
		      info.row_outputs == 0);
		rr_kernel_free(kernel);
	}
	CHECK(rr_kernel_load_builtin("softmax", &kernel) == RR_OK);
	if (!kernel)
		return;
	/* exp(x - m) is written twice and must be one node. */
	int s = binding_node(kernel, "s"), y = output_node(kernel, "y");
	CHECK(s >= 0 && y >= 0);
	if (s >= 0 && y >= 0) {
		CHECK(kernel->nodes[y].op == RR_OP_DIV && kernel->nodes[y].b == s);
		CHECK(kernel->nodes[y].a == kernel->nodes[s].a);
		CHECK(kernel->nodes[kernel->nodes[s].a].op == RR_OP_EXP);
	}
	int exps = 0;
	for (int id = 0; id < kernel->n_nodes; id++)
		exps += kernel->nodes[id].op == RR_OP_EXP;
	CHECK(exps == 1);
	FILE *out = tmpfile();
	CHECK(out && rr_kernel_print(kernel, out) == RR_OK);
	if (out) {
		char text[8192] = {0};
		rewind(out);
		size_t n = fread(text, 1, sizeof text - 1, out);
		text[n] = 0;
		fclose(out);
		CHECKF(strstr(text, "online rewrite: m = max(x); s = sum(exp(x - m)) -> one online "
		                    "(max, sum) pass"),
		       "%s", text);
		CHECKF(strstr(text, "rounds: 1"), "%s", text);
		CHECKF(strstr(text, "y : row = exp(x - m) / s"), "%s", text);
	}
	rr_kernel_free(kernel);
}

static void test_layernorm_defaults(void)
{
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load_builtin("add_layernorm", &kernel) == RR_OK);
	if (!kernel)
		return;
	CHECK(rr_kernel_num_inputs(kernel) == 5 && rr_kernel_num_outputs(kernel) == 2);
	check_io(kernel, 0, 1, "r", RR_KIND_ROW);
	check_io(kernel, 0, 3, "b", RR_KIND_COL);
	check_io(kernel, 1, 1, "h", RR_KIND_ROW);
	CHECK(kernel->inputs[4].kind == RR_KIND_PARAM && kernel->inputs[4].default_value == 1e-5);
	/* h is an output and is used afterwards: sum(h) reduces the very node h names. */
	int h = output_node(kernel, "h"), mean = binding_node(kernel, "mean");
	CHECK(h >= 0 && mean >= 0 && kernel->nodes[mean].op == RR_OP_DIV);
	if (h >= 0 && mean >= 0)
		CHECK(kernel->nodes[kernel->nodes[mean].a].a == h);
	rr_analysis_info info;
	CHECK(rr_kernel_analysis(kernel, &info) == RR_OK && info.rounds == 2 &&
	      info.row_outputs == 2);
	rr_kernel_free(kernel);
}

static void test_expressions(void)
{
	rr_kernel *kernel = load("kernel k\n"
	                         "  in x : row\n"
	                         "  param a = -2\n"
	                         "  param b = 0.5\n"
	                         "  param c = 3\n"
	                         "  out y : row\n"
	                         "  out s : rowscalar\n"
	                         "  p = x + 2 * x - -x / 3\n"
	                         "  q = x + 2 * x - -x / 3   # the same expression\n"
	                         "  mx = max(x)\n"
	                         "  e2 = max(x, a)\n"
	                         "  y = p * q + e2 + mx\n"
	                         "  s = sum(x, exact) + min(x, exact) + max(a, b) * c + N\n");
	if (!kernel)
		return;
	check_well_formed(kernel);
	CHECK(kernel->inputs[1].default_value == -2 && kernel->inputs[2].default_value == 0.5 &&
	      kernel->inputs[3].default_value == 3);
	int p = binding_node(kernel, "p"), q = binding_node(kernel, "q");
	CHECK(p >= 0 && p == q);
	/* p = (x + (2 * x)) - ((-x) / 3) */
	const rr__node *n = &kernel->nodes[p];
	CHECK(n->op == RR_OP_SUB);
	CHECK(kernel->nodes[n->a].op == RR_OP_ADD && kernel->nodes[n->b].op == RR_OP_DIV);
	CHECK(kernel->nodes[kernel->nodes[n->a].b].op == RR_OP_MUL);
	CHECK(kernel->nodes[kernel->nodes[n->b].a].op == RR_OP_NEG);
	int mx = binding_node(kernel, "mx"), e2 = binding_node(kernel, "e2");
	CHECK(kernel->nodes[mx].op == RR_OP_REDUCE && kernel->nodes[mx].reduce == RR_REDUCE_MAX);
	CHECK(kernel->nodes[e2].op == RR_OP_MAX && kernel->nodes[e2].shape == RR_SHAPE_ELEM);
	int exact = 0, n_consts = 0;
	for (int id = 0; id < kernel->n_nodes; id++) {
		exact += kernel->nodes[id].op == RR_OP_REDUCE && kernel->nodes[id].exact;
		n_consts += kernel->nodes[id].op == RR_OP_CONST;
	}
	CHECK(exact == 2);
	CHECK(n_consts == 2); /* 2 and 3, each once */
	rr_analysis_info info;
	CHECK(rr_kernel_analysis(kernel, &info) == RR_OK && info.exact_reductions == 2);
	rr_kernel_free(kernel);

	kernel = load("kernel k\n in x : row\n out y : row\n y = x * -2.5e-1\n");
	if (kernel) {
		int y = output_node(kernel, "y");
		const rr__node *c = &kernel->nodes[kernel->nodes[y].b];
		CHECK(c->op == RR_OP_CONST && c->value == -0.25); /* a negated literal folds */
		rr_kernel_free(kernel);
	}
}

struct bad_case {
	const char *text;
	rr_status status;
	const char *where; /* "LINE:COL" */
	const char *words; /* a substring of the message */
};

static const struct bad_case bad_cases[] = {
    {"kernel k\n  in x : row\n  out y : row\n  y = xx * 2\n", RR_ERR_TYPE, "4:7",
     "unknown name 'xx'; expected an input, a param, N or an earlier assignment"},
    {"kernel k\n in x : row\n out y : row\n a = x * 2\n a = x\n y = a\n", RR_ERR_TYPE, "5:2",
     "assigned twice"},
    {"kernel k\n in x : row\n out s : rowscalar\n s = x * 2\n", RR_ERR_TYPE, "4:6",
     "row used where a scalar is needed"},
    {"kernel k\n in x : row\n out y : row\n y = sum(x)\n", RR_ERR_TYPE, "4:6",
     "scalar assigned to row output 'y'; expected a row expression"},
    {"kernel k\n in x : row\n out s : rowscalar\n inv = sum(x)\n s = sum(inv)\n", RR_ERR_TYPE,
     "5:6", "sum(...) of a per-row scalar"},
    {"kernel k\n in x : row\n out y : row\n y = (x * 2\n", RR_ERR_PARSE, "4:12",
     "expected ')' to close the '(' at 4:6"},
    {"kernel k\n in x : row\n out y : row\n y = x * 1e\n", RR_ERR_PARSE, "4:10", "bad number '1e'"},
    {"kernel k\n in x : row\n out y : row\n y = x * 1.2.3\n", RR_ERR_PARSE, "4:10",
     "bad number '1.2.3'"},
    {"", RR_ERR_PARSE, "1:1", "expected 'kernel NAME'"},
    {"# only a comment\n\n", RR_ERR_PARSE, "3:1", "expected 'kernel NAME'"},
    {"in x : row\n", RR_ERR_PARSE, "1:1", "found 'in'; expected 'kernel NAME'"},
    {"kernel k\n in x : matrix\n out y : row\n y = x\n", RR_ERR_PARSE, "2:9",
     "found 'matrix'; expected an input kind"},
    {"kernel k\n in x : row\n in x : col\n out y : row\n y = x\n", RR_ERR_TYPE, "3:5",
     "declared twice (first at 2:5)"},
    {"kernel k\n in x : row\n out y : row\n out z : row\n y = x\n", RR_ERR_TYPE, "4:6",
     "output 'z' is never assigned"},
    {"kernel k\n in x : row\n", RR_ERR_TYPE, "1:1", "declares no outputs"},
    {"kernel k\n in x : row\n in w : col\n out s : rowscalar\n s = x[w]\n", RR_ERR_TYPE, "5:8",
     "expected the name of an index input"},
    {"kernel k\n in w : col\n in t : index\n out s : rowscalar\n s = w[t]\n", RR_ERR_TYPE, "5:6",
     "expected a row input before '['"},
    {"kernel k\n in x : row\n in t : index\n out y : row\n y = x + t\n", RR_ERR_TYPE, "5:10",
     "index input 't' used as a value"},
    {"kernel k\n in x : row\n out y : row\n y = exp(x, x)\n", RR_ERR_TYPE, "4:6",
     "exp(...) with 2 arguments; expected exactly 1"},
    {"kernel k\n in x : row\n out y : row\n y = x @ 2\n", RR_ERR_PARSE, "4:8",
     "unexpected character '@'"},
    {"kernel k\n in x : row\n out y : row\n x = x * 2\n y = x\n", RR_ERR_TYPE, "4:2",
     "assignment to input 'x'"},
    {"kernel k\n in x : row\n out y : row\n y = x\n in w : col\n", RR_ERR_PARSE, "5:2",
     "declarations in, param and out come before"},
    {"kernel k\n in x : row\n out y : row\n y = exp(x, exact)\n", RR_ERR_TYPE, "4:6",
     "'exact' in exp(...)"},
    {"kernel k\n in x : row\n out y : row\n y = x y\n", RR_ERR_PARSE, "4:8",
     "expected end of line"},
    {"kernel k\n in x : row\n param e = x\n out y : row\n y = x\n", RR_ERR_PARSE, "3:12",
     "expected a number"},
    {"kernel k\n in x : row\n out y : col\n y = x\n", RR_ERR_PARSE, "3:10",
     "expected an output kind: row or rowscalar"},
    {"kernel k\n in x : row\n out y : row\n y = x\n kernel j\n", RR_ERR_PARSE, "5:2",
     "a second 'kernel' line"},
    {"kernel k\n in x : row\n out y : row\n y = foo(x)\n", RR_ERR_TYPE, "4:6",
     "which is not a function"},
    {"kernel k\n in sum : row\n out y : row\n y = x\n", RR_ERR_PARSE, "2:5", "not a reserved word"},
    {"kernel k\n in x : row\n out y : row\n y = x * \x01\n", RR_ERR_PARSE, "4:10", "byte 0x01"},
    {"kernel k\n in x : row\n in t : index\n out y : row\n out s : rowscalar\n y = x\n"
     " s = y[t]\n",
     RR_ERR_TYPE, "7:6", "gather from 'y', an output"},
};

static void test_errors(void)
{
	for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
		const struct bad_case *c = &bad_cases[i];
		rr_kernel *kernel = (rr_kernel *)1;
		rr_status status =
		    rr_kernel_load_string(c->text, strlen(c->text), "bad.rr", &kernel);
		const char *message = rr_last_error();
		char prefix[64];
		snprintf(prefix, sizeof prefix, "bad.rr:%s: error: ", c->where);
		CHECKF(status == c->status, "case %zu: status %s: %s", i, rr_status_string(status),
		       message);
		CHECK(kernel == NULL);
		CHECKF(strncmp(message, prefix, strlen(prefix)) == 0, "case %zu: '%s' lacks '%s'",
		       i, message, prefix);
		CHECKF(strstr(message, c->words) != NULL, "case %zu: '%s' lacks '%s'", i, message,
		       c->words);
		CHECKF(strstr(message, "; expected ") != NULL, "case %zu: '%s'", i, message);
	}
	/* NUL bytes are bad characters, not the end of the text. */
	static const char with_nul[] = "kernel k\n in x : row\0\n out y : row\n y = x\n";
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load_string(with_nul, sizeof with_nul - 1, "nul.rr", &kernel) ==
	      RR_ERR_PARSE);
	CHECKF(strncmp(rr_last_error(), "nul.rr:2:12: error: unexpected byte 0x00", 40) == 0, "%s",
	       rr_last_error());
	CHECK(rr_kernel_load_string(NULL, 0, NULL, &kernel) == RR_ERR_PARSE);
	CHECK(strncmp(rr_last_error(), "<string>:1:1: error:", 20) == 0);
	CHECK(rr_kernel_load_string("x", 1, "a", NULL) == RR_ERR_INVALID_ARG);
}

static void test_loading(void)
{
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load("no_such_kernel_xyz", &kernel) == RR_ERR_IO && !kernel);
	CHECKF(strstr(rr_last_error(), "softmax") && strstr(rr_last_error(), "cross_entropy"), "%s",
	       rr_last_error());
	CHECK(rr_kernel_load_builtin("nope", &kernel) == RR_ERR_INVALID_ARG);
	CHECK(strstr(rr_last_error(), "rmsnorm") != NULL);
	CHECK(rr_kernel_load_file("/nonexistent/dir/k.rr", &kernel) == RR_ERR_IO);
	CHECK(rr_kernel_load("/", &kernel) == RR_ERR_IO);
	const char *source_dir = getenv("RR_SOURCE_DIR");
	if (source_dir) {
		char path[1024];
		snprintf(path, sizeof path, "%s/specs/layernorm.rr", source_dir);
		CHECKF(rr_kernel_load(path, &kernel) == RR_OK, "%s", rr_last_error());
		rr_kernel *builtin = NULL;
		CHECK(rr_kernel_load_builtin("layernorm", &builtin) == RR_OK);
		if (kernel && builtin)
			CHECK(strcmp(rr_kernel_source_hash(kernel),
			             rr_kernel_source_hash(builtin)) == 0);
		rr_kernel_free(builtin);
		rr_kernel_free(kernel);
	}
	const char *text = "kernel k\n in x : row\n out y : row\n y = x\n";
	kernel = load(text);
	char hash[65];
	rr__sha256_hex(text, strlen(text), hash);
	if (kernel)
		CHECK(strcmp(hash, rr_kernel_source_hash(kernel)) == 0);
	rr_kernel_free(kernel);
	rr_kernel_free(NULL);
	/* Windows line ends and tabs parse like the plain text, to the same nodes. */
	kernel = load("kernel k\r\n\tin x : row\r\n\tout y : row\r\n\ty = x * 2\r\n");
	rr_kernel *plain = load("kernel k\n in x : row\n out y : row\n y = x * 2\n");
	if (kernel && plain) {
		CHECK(kernel->n_nodes == plain->n_nodes);
		CHECK(kernel->nodes[output_node(kernel, "y")].op == RR_OP_MUL);
		CHECK(kernel->nodes[output_node(kernel, "y")].column == 8);
	}
	rr_kernel_free(plain);
	rr_kernel_free(kernel);
}

/* Deep nesting: 256 levels parse, 257 are refused with a clear message, never a crash. */
static void test_limits(void)
{
	rr__buf buf = {0};
	for (int depth = 255; depth <= 257; depth++) {
		buf.length = 0;
		rr__buf_printf(&buf, "kernel k\n in x : row\n out y : row\n y = ");
		for (int i = 0; i < depth; i++)
			rr__buf_append(&buf,
			               i % 3 == 2 ? "-"
			               : i % 3    ? "exp("
			                          : "(",
			               i % 3 == 2 ? 1
			               : i % 3    ? 4
			                          : 1);
		rr__buf_append(&buf, "x", 1);
		for (int i = depth - 1; i >= 0; i--)
			if (i % 3 != 2)
				rr__buf_append(&buf, ")", 1);
		rr__buf_append(&buf, "\n", 1);
		rr_kernel *kernel = NULL;
		rr_status status = rr_kernel_load_string(buf.data, buf.length, "deep.rr", &kernel);
		if (depth <= 256)
			CHECKF(status == RR_OK, "depth %d: %s", depth, rr_last_error());
		else
			CHECKF(status == RR_ERR_PARSE &&
			           strstr(rr_last_error(), "nested deeper than 256 levels"),
			       "depth %d: %s", depth, rr_last_error());
		rr_kernel_free(kernel);
	}
	/* A megabyte line: x + x + ... grows distinct nodes until the node limit stops it. */
	buf.length = 0;
	rr__buf_printf(&buf, "kernel k\n in x : row\n out y : row\n y = x");
	while (buf.length < (1u << 20))
		rr__buf_append(&buf, " + x", 4);
	rr_kernel *kernel = NULL;
	CHECK(rr_kernel_load_string(buf.data, buf.length, "long.rr", &kernel) == RR_ERR_PARSE);
	CHECKF(strstr(rr_last_error(), "more than 4096 distinct sub-expressions"), "%s",
	       rr_last_error());
	/* A megabyte of assignments that share nodes: linear, and the binding limit holds. */
	buf.length = 0;
	rr__buf_printf(&buf, "kernel k\n in x : row\n out y : row\n");
	for (int i = 0; buf.length < (1u << 20); i++)
		rr__buf_printf(&buf, " v%d = exp(x) * (x + 1) - sum(x)\n", i);
	CHECK(rr_kernel_load_string(buf.data, buf.length, "many.rr", &kernel) == RR_ERR_PARSE);
	CHECKF(strstr(rr_last_error(), "many.rr:4100:2: error: more than 4096 assignments"), "%s",
	       rr_last_error());
	/* More than RR_MAX_IO inputs. */
	buf.length = 0;
	rr__buf_printf(&buf, "kernel k\n");
	for (int i = 0; i <= RR_MAX_IO; i++)
		rr__buf_printf(&buf, " in x%d : row\n", i);
	CHECK(rr_kernel_load_string(buf.data, buf.length, "io.rr", &kernel) == RR_ERR_TYPE);
	CHECKF(strstr(rr_last_error(), "io.rr:18:2: error: more than 16 inputs"), "%s",
	       rr_last_error());
	rr__buf_free(&buf);
}

static const char *const fragments[] = {
    "kernel", "k",         "in",    "out", "param", "x",    "t",    "y", ":",    "row",
    "col",    "rowscalar", "index", "=",   "+",     "-",    "*",    "/", "(",    ")",
    "[",      "]",         ",",     "sum", "max",   "min",  "exp",  "N", "1e-6", "2",
    "exact",  "\n",        " ",     "#",   "1e",    "\x00", "\xff", "s", "log"};

/* Random token soups and byte flips of the built-ins: any status but a crash is fine, and a
 * failure always carries a positioned message. */
static void test_random_text(void)
{
	unsigned long long seed = (unsigned long long)time(NULL) * 2654435761ull + 1;
	printf("test_spec: random seed %llu\n", seed);
	unsigned long long state = seed;
	rr__buf buf = {0};
	const char *const *names = rr_builtin_names();
	for (int round = 0; round < 3000; round++) {
		buf.length = 0;
		if (round % 2) {
			int pieces = (int)rr_test_uniform(&state, 1, 60);
			for (int i = 0; i < pieces; i++) {
				const char *f = fragments[(int)rr_test_uniform(
				    &state, 0, sizeof fragments / sizeof fragments[0])];
				rr__buf_append(&buf, f, f[0] ? strlen(f) : 1);
			}
		} else {
			rr_kernel *base = NULL;
			rr_kernel_load_builtin(names[round / 2 % 6], &base);
			if (!base)
				continue;
			rr__buf_append(&buf, base->text, base->text_length);
			rr_kernel_free(base);
			int flips = (int)rr_test_uniform(&state, 1, 4);
			for (int i = 0; i < flips; i++) {
				size_t at = (size_t)rr_test_uniform(&state, 0, (double)buf.length);
				buf.data[at] = (char)(int)rr_test_uniform(&state, 0, 256);
			}
		}
		rr_kernel *kernel = NULL;
		rr_status status = rr_kernel_load_string(buf.data, buf.length, "r.rr", &kernel);
		CHECK(status == RR_OK || status == RR_ERR_PARSE || status == RR_ERR_TYPE);
		if (status != RR_OK)
			CHECKF(strncmp(rr_last_error(), "r.rr:", 5) == 0 &&
			           strstr(rr_last_error(), ": error: "),
			       "%s", rr_last_error());
		else
			check_well_formed(kernel);
		rr_kernel_free(kernel);
	}
	rr__buf_free(&buf);
}

/* The inputs the fuzzer once crashed on stay as regression files in fuzz/corpus. */
static void test_fuzz_regressions(void)
{
	const char *source_dir = getenv("RR_SOURCE_DIR");
	if (!source_dir)
		return;
	char list[1024];
	snprintf(list, sizeof list, "ls %s/fuzz/corpus 2>/dev/null", source_dir);
	FILE *ls = popen(list, "r");
	if (!ls)
		return;
	char name[512];
	while (fgets(name, sizeof name, ls)) {
		name[strcspn(name, "\n")] = 0;
		char path[1600];
		snprintf(path, sizeof path, "%s/fuzz/corpus/%s", source_dir, name);
		rr_kernel *kernel = NULL;
		rr_status status = rr_kernel_load_file(path, &kernel);
		CHECKF(status == RR_OK || status == RR_ERR_PARSE || status == RR_ERR_TYPE, "%s: %s",
		       name, rr_last_error());
		if (kernel) {
			FILE *null = fopen("/dev/null", "w");
			if (null) {
				CHECK(rr_kernel_print(kernel, null) == RR_OK);
				fclose(null);
			}
		}
		rr_kernel_free(kernel);
	}
	pclose(ls);
}

int main(void)
{
	test_builtins();
	test_rmsnorm();
	test_cross_entropy_and_softmax();
	test_layernorm_defaults();
	test_expressions();
	test_errors();
	test_loading();
	test_limits();
	test_random_text();
	test_fuzz_regressions();
	return rr_test_finish("test_spec");
}
