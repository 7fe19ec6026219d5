/* Analysis of a type-checked kernel (DESIGN.md §3): rounds, the online max/sum rewrite and
 * numerical permissions. Fills kernel->analysis. */
#ifndef RR_ANALYSIS_H
#define RR_ANALYSIS_H

#include "lang/ir.h"

/* Computes kernel->analysis (allocating its per-node arrays). Called by the loader after the
 * type check; safe to call again (it recomputes). */
rr_status rr__analyze(rr_kernel *kernel);
/* Frees the analysis arrays (rr_kernel_free calls it). */
void rr__analysis_free(rr__analysis *analysis);

/* Which node ids are needed, as elem values, during round `round` (1-based) to feed that round's
 * reductions, or during the output phase when round == rounds + 1. needed[] has n_nodes
 * entries and is set to 1 for every elem node that must be evaluated there (operands included,
 * but not the exp(e - m) operand of an online pair's sum). Returns the count. */
int rr__analysis_elem_needs(const rr_kernel *kernel, int round, unsigned char *needed);

/* Which inputs (of kind row or col) are read in `round` (same numbering as above). */
int rr__analysis_inputs_read(const rr_kernel *kernel, int round, unsigned char *read);

/* Which scalar nodes (not inputs, not reductions) become computable right after round `round`
 * finishes, i.e. whose level == round; round 0 = before any reduction (constants, N, params
 * arithmetic, gathers). ready[] has n_nodes entries; emitters compute the marked nodes in id
 * order after each round. Returns the count. */
int rr__analysis_scalars_after(const rr_kernel *kernel, int round, unsigned char *ready);

/* 1 when some row-kind input read in one round is read again in a later round or in the output
 * phase (the row must be kept in storage or read again), else 0. */
int rr__analysis_needs_storage(const rr_kernel *kernel);

#endif
