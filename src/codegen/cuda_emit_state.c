/* The CUDA C emitter's shared helpers (cuda_emit_state.h): printing a line, and walking a
 * round's partial values (the block tree's stages in cuda_emit_row.c, S=grid's workspace in
 * cuda_emit_grid.c). */
#include <stdarg.h>
#include <stdio.h>

#include "analysis/analysis.h"
#include "codegen/cuda_emit_state.h"

void rr__cu_line(rr__cu_emitter *em, int depth, const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	rr__emit_vline(em->out, depth, fmt, args);
	va_end(args);
}

/* Calls `fn` on every partial variable of a round with its scratch slot (the block tree's
 * stages in cuda_emit_row.c, S=grid's workspace in cuda_emit_grid.c). */
void rr__cu_for_each_partial(rr__cu_emitter *em, int round, int depth,
                             void (*fn)(rr__cu_emitter *, int, const char *, int))
{
	const rr_kernel *kernel = em->kernel;
	char name[32];
	for (int id = 0; id < kernel->n_nodes; id++) {
		if (!rr__reduced_in(kernel, id, round))
			continue;
		int partner = kernel->analysis.online_partner[id];
		snprintf(name, sizeof name, partner >= 0 ? "m%d" : "acc%d", id);
		fn(em, depth, name, em->red_slot[id]);
		if (partner >= 0) {
			snprintf(name, sizeof name, "z%d", partner);
			fn(em, depth, name, em->red_slot[id] + 1);
		}
		if (id == em->shift.sq)
			fn(em, depth, "rr_t", em->t_slot); /* T_b (rr__realisation.grid_shift) */
	}
}

int rr__cu_mailbox(const rr__cu_emitter *em)
{
	return rr__cluster_mailbox(em->geo);
}
