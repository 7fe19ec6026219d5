/* Pieces the C and the CUDA C emitters share: the request they take, lines at a depth, and the
 * parts of the header comment that read the same in both (reductions, kernel text). */
#ifndef RR_CODEGEN_COMMON_H
#define RR_CODEGEN_COMMON_H

#include <stdarg.h>
#include <stddef.h>

#include "lang/ir.h"
#include "layout/realise.h"
#include "util/util.h"

/* What an emitter is asked for: one plan, realised. The source is appended to a buffer; an
 * emitter reads the realisation for every decision the plan implies and makes none itself. */
typedef struct rr__emit_request {
	const rr_kernel *kernel; /* analysed */
	rr_dtype dtype;          /* f32, bf16 or f16 */
	int64_t cols;            /* N */
	const rr_layout *layout; /* complete and legal */
	const rr__target *target;
	const rr__realisation *realisation; /* rr__realise of the fields above */
} rr__emit_request;

/* Appends `depth` tabs. */
void rr__emit_indent(rr__buf *out, int depth);
/* Appends one line at `depth` tabs: the formatted text and a newline. */
void rr__emit_vline(rr__buf *out, int depth, const char *fmt, va_list args);
/* Declares at `depth` the accumulators of the reductions of `round` at their identities: acc<id>,
 * or m<id> and z<sum> for an online (max, sum) pair. */
void rr__emit_accumulators(rr__buf *out, const rr_kernel *kernel, int round, int depth);
/* For each reduction accumulated in `round`, one line at `depth` that assigns its accumulator
 * to <lhs><id><lhs_end>: acc<id>, or m<id> and z<sum> for an online (max, sum) pair (the
 * sum's line with the sum's id). Both emitters name the accumulators so. */
void rr__emit_from_accumulators(rr__buf *out, const rr_kernel *kernel, int round, int depth,
                                const char *lhs, const char *lhs_end);

/* Appends text inside a block comment, one " * <prefix>" per line, never closing it early. */
void rr__emit_comment_text(rr__buf *out, const char *prefix, const char *text, size_t length);
/* Appends node `id`'s expression (as the IR prints it) inside a block comment. */
void rr__emit_comment_expr(rr__buf *out, const rr_kernel *kernel, const char *prefix, int id);
/* Appends one comment line per reduction: its round, its name and its expression. */
void rr__emit_comment_reductions(rr__buf *out, const rr_kernel *kernel);
/* Appends the kernel's source text and closes the header comment. */
void rr__emit_comment_kernel_text(rr__buf *out, const rr_kernel *kernel);

#endif
