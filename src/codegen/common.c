/* What the C and the CUDA C emitters write alike (see common.h): one place, so the header
 * comments of both backends and their reading of the analysis cannot drift apart. */
#include <stdio.h>
#include <stdlib.h>

#include "codegen/common.h"
#include "codegen/expr.h"

void rr__emit_indent(rr__buf *out, int depth)
{
	for (int i = 0; i < depth; i++)
		rr__buf_append(out, "\t", 1);
}

void rr__emit_vline(rr__buf *out, int depth, const char *fmt, va_list args)
{
	rr__emit_indent(out, depth);
	rr__buf_vprintf(out, fmt, args);
	rr__buf_append(out, "\n", 1);
}

void rr__emit_accumulators(rr__buf *out, const rr_kernel *kernel, int round, int depth)
{
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, round))
			continue;
		int partner = kernel->analysis.online_partner[id];
		rr__emit_indent(out, depth);
		if (partner >= 0)
			rr__buf_printf(
			    out,
			    "float m%d = -INFINITY, z%d = 0.0f; /* online max s%d, sum s%d */\n",
			    id, partner, id, partner);
		else
			rr__buf_printf(out, "float acc%d = %s; /* %s */\n", id,
			               rr__reduce_identity(kernel->nodes[id].reduce),
			               rr__reduce_name(kernel->nodes[id].reduce));
	}
}

void rr__emit_from_accumulators(rr__buf *out, const rr_kernel *kernel, int round, int depth,
                                const char *lhs, const char *lhs_end)
{
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, round))
			continue;
		int partner = kernel->analysis.online_partner[id];
		rr__emit_indent(out, depth);
		rr__buf_printf(out, "%s%d%s = %s%d;\n", lhs, id, lhs_end,
		               partner >= 0 ? "m" : "acc", id);
		if (partner < 0)
			continue;
		rr__emit_indent(out, depth);
		rr__buf_printf(out, "%s%d%s = z%d;\n", lhs, partner, lhs_end, partner);
	}
}

void rr__emit_comment_text(rr__buf *out, const char *prefix, const char *text, size_t length)
{
	size_t start = 0;
	while (start < length) {
		size_t end = start;
		while (end < length && text[end] != '\n')
			end++;
		rr__buf_printf(out, " * %s", prefix);
		for (size_t i = start; i < end; i++) {
			char ch = text[i];
			if (ch == '\r' || ch == 0)
				continue;
			rr__buf_append(out, &ch, 1);
			if (ch == '*' && i + 1 < end && text[i + 1] == '/')
				rr__buf_append(out, " ", 1);
		}
		rr__buf_append(out, "\n", 1);
		start = end + 1;
	}
}

void rr__emit_comment_expr(rr__buf *out, const rr_kernel *kernel, const char *prefix, int id)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	if (!f) {
		out->failed = 1;
		return;
	}
	rr__ir_print_expr(kernel, id, f);
	fclose(f);
	rr__emit_comment_text(out, prefix, text, size);
	free(text);
}

void rr__emit_comment_reductions(rr__buf *out, const rr_kernel *kernel)
{
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (kernel->nodes[id].op != RR_OP_REDUCE)
			continue;
		char prefix[96];
		snprintf(prefix, sizeof prefix, "  round %d: s%d = %s", kernel->analysis.level[id],
		         id, kernel->analysis.online_partner[id] >= 0 ? "(online pair) " : "");
		rr__emit_comment_expr(out, kernel, prefix, id);
	}
}

void rr__emit_comment_kernel_text(rr__buf *out, const rr_kernel *kernel)
{
	rr__buf_printf(out, " *\n * kernel text:\n");
	rr__emit_comment_text(out, "  ", kernel->text ? kernel->text : "",
	                      kernel->text ? kernel->text_length : 0);
	rr__buf_printf(out, " */\n");
}
