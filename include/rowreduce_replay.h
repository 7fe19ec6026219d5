/* rowreduce replay and audit: position-balanced A/B measurement of frozen plans and the audit
 * that recomputes every claim of a results folder from its raw samples (DESIGN.md §7).
 *
 * Same conventions as rowreduce.h: rr_status results, the reason in rr_last_error(), no exit().
 * The results format, replay additions included, is docs/results-schema.md.
 */
#ifndef ROWREDUCE_REPLAY_H
#define ROWREDUCE_REPLAY_H

#include <stdint.h>
#include <stdio.h>

#include "rowreduce.h" /* rr_status, and RR_API: the names the shared library exports */

#ifdef __cplusplus
extern "C" {
#endif

/* What to replay and how. Zero or NULL fields take the default given beside them. */
typedef struct rr_replay_options {
	const char
	    *reference; /* side A: a results.json written by rowreduce bench (or its folder) */
	const char *candidate; /* side B: the same */
	const char *out_dir; /* created if needed; results.json and results.md are written there */
	const char *backend; /* NULL: the backend both files recorded */
	int rounds;          /* 4; each round runs every workload's sides as ABBA or BAAB */
	int samples;         /* 9 samples per phase at each of a side's two positions */
	double sample_ms;    /* 30 */
	double warmup_ms;    /* 200 */
	const char *l2;      /* "hot" or "cold"; NULL: the mode both files recorded */
	int capture_sources; /* write each side's generated source under out_dir/sources/ */
	int allow_rebuild;   /* replay even when a hash differs from the recorded one (recorded) */
	const char *kernels; /* comma-separated kernel names to replay; NULL: every one */
	const char *dtypes;  /* comma-separated dtypes to replay; NULL: every one */
	int skip_identical;  /* workloads whose two sides recorded the same plan and generated
	                      * source are listed as not replayed instead of measured */
	int bootstrap;       /* resamples of a bootstrap interval of each median ratio; 0 = none */
	uint64_t bootstrap_seed; /* 0: 1 */
	double time_limit_s;     /* 0: none; else no block of workloads starts that would end past
	                          * it (estimated from the blocks run so far): the workloads left
	                          * are listed as not replayed and the rest is written as usual */
	int argc;                /* the command line recorded in results.json */
	char **argv;
	FILE *progress; /* one line per workload and round; NULL for silence */
} rr_replay_options;

/* Replays the plans of two results files against each other. Workloads (kernel, dtype, M, N)
 * present and measured in both are rebuilt with their frozen plans; a plan that does not rebuild
 * to the same layout, or (without allow_rebuild) a kernel text, generated source or library
 * whose SHA-256 differs from the recorded one, refuses the whole replay with RR_ERR_INVALID_ARG
 * naming what differs. Each side is validated in full against the float64 reference before it
 * is timed. Then `rounds` rounds of ABBA or BAAB (alternating), each round running every workload
 * of a block (workloads whose buffers fit in memory together) before the next, and per
 * phase: the median of per-round medians of each side, the median of paired per-round ratios
 * (reference time / candidate time) with their min and max, and a verdict that is "not
 * demonstrated" whenever that range reaches 1.0. Writes out_dir/results.json, results.md and
 * copies of the two inputs (reference.json, candidate.json), each atomically.
 * RR_OK when every side was validated and timed; RR_ERR_VALIDATION when one failed validation
 * (recorded, never timed); other codes for bad input, refusals and device errors. */
RR_API rr_status rr_replay_run(const rr_replay_options *options);

/* Audits a results folder (rowreduce bench, rowreduce replay, or bench/peers/torch_peers.py):
 * recomputes every statistic of results.json and every number of results.md from the raw
 * samples, checks validated-output counts, phase labels, the SHA-256 of captured sources and
 * recorded inputs, and for a replay that the replayed plans equal the frozen ones. Writes one
 * line per check to `report` ("OK ..." or "MISMATCH ..." naming the JSON path, or the
 * results.md table, row and column). RR_OK when every check passed, RR_ERR_VALIDATION when one
 * did not, another code (with the reason in rr_last_error) when the folder cannot be read:
 * a missing file, truncated JSON, a value of the wrong type. */
RR_API rr_status rr_verify_dir(const char *dir, FILE *report);

#ifdef __cplusplus
}
#endif
#endif
