/* The default cost model: predicts a layout's time in microseconds from features (bytes, waves,
 * live lanes, access width, rounds, barriers, serial work, launch). One branch per backend: the
 * GPU is bandwidth- and latency-bound; the CPU runs the W workers one after another. */
#include <math.h>
#include <string.h>

#include "plan/cost.h"
#include "plan/plan.h"

/* A named coefficient of the request's device class (plan/coeffs.h). */
#define K(name) (k->value[RR__COEFF_##name])

/* Facts of the GPU branch (an H100/H200-class device); what a measurement could move is a
 * coefficient (plan/coeffs.h). */
#define ASSUMED_ROWS 4096.0 /* M when the request does not say */
#define GPU_THREADS_PER_SM 2048.0
#define GPU_GROUPS_PER_SM 32.0
#define GPU_REGISTERS_PER_SM 65536.0
#define GPU_CYCLES_PER_US 1800.0
/* Per doubling of a block of several rows past 256 threads (gpu_measured_factor). */
#define GPU_ROW_BLOCK_FACTOR 0.04
/* A dependent load step of a single-wave launch past its first (features_of). */
#define GPU_SINGLE_WAVE_STEP_US 0.7
#define SINGLE_WAVE_STEP_COLS 128 /* the step's rows, at most (features_of) */
#define ROW_BLOCK_COLS 128        /* the row-block factor's rows, at most (gpu_measured_factor) */
/* 16-bit rows of two inputs kept in registers by one block an SM (gpu_measured_factor). */
#define GPU_LONE_PAIR_BLOCK_FACTOR 1.05

/* What the kernel reads and writes, independent of the layout. */
typedef struct io_facts {
	int kept, max_passes;
	int row_inputs, col_inputs, index_inputs, rowscalar_inputs, gathers;
	int row_outputs, rowscalar_outputs;
} io_facts;

static void io_facts_of(const rr_kernel *kernel, const rr__realisation *r, io_facts *io)
{
	const int *phases = r->phases_read;
	memset(io, 0, sizeof *io);
	io->kept = r->kept_inputs;
	io->max_passes = 1;
	for (int i = 0; i < kernel->n_inputs; i++) {
		switch (kernel->inputs[i].kind) {
		case RR_KIND_ROW:
			io->row_inputs++;
			io->max_passes = phases[i] > io->max_passes ? phases[i] : io->max_passes;
			break;
		case RR_KIND_COL:
			io->col_inputs++;
			break;
		case RR_KIND_INDEX:
			io->index_inputs++;
			break;
		case RR_KIND_ROWSCALAR:
			io->rowscalar_inputs++;
			break;
		case RR_KIND_PARAM:
			break;
		}
	}
	for (int id = 0; id < kernel->n_nodes; id++)
		io->gathers += kernel->nodes[id].op == RR_OP_GATHER;
	for (int j = 0; j < kernel->n_outputs; j++) {
		io->row_outputs += kernel->outputs[j].kind == RR_KIND_ROW;
		io->rowscalar_outputs += kernel->outputs[j].kind == RR_KIND_ROWSCALAR;
	}
}

static double ceil_div(double a, double b)
{
	return ceil(a / b);
}

/* Fields every branch shares: the shape of the ownership map and the minimal bytes. */
static void common_features(const rr__plan_request *req, const rr__realisation *r,
                            const io_facts *io, rr__plan_features *f)
{
	const rr_layout *l = &r->layout;
	double elem = (double)r->elem_bytes;
	double M = req->rows > 0 ? (double)req->rows : ASSUMED_ROWS;
	double N = (double)req->cols;
	double WV = (double)l->workers_per_row * l->vec;
	f->rows = M;
	f->row_share = (double)r->segment;
	f->chunks_per_worker = (double)r->chunks;
	f->live_lanes = f->row_share / (f->chunks_per_worker * WV);
	f->slots = (double)r->slots;
	f->access_bytes = r->pack_bytes;
	f->threads_per_group = (double)r->threads;
	f->groups = ceil_div(M, l->rows_per_group) * l->blocks_per_row;
	f->rounds = req->kernel->analysis.rounds > 0 ? req->kernel->analysis.rounds : 1;
	f->kept_inputs = io->kept;
	f->kept_values = r->kept_values > 0 ? r->kept_values : io->kept;
	f->passes = io->kept > 0 && r->keep == RR_KEEP_NONE ? io->max_passes : 1;
	f->minimal_bytes = (io->row_inputs + io->row_outputs) * M * N * elem +
	                   io->col_inputs * N * elem + io->index_inputs * M * 8.0 +
	                   (io->rowscalar_inputs + io->gathers + io->rowscalar_outputs) * M * elem;
	f->dram_bytes = f->minimal_bytes;
}

/* ---------------------------------------------------------------- GPU */

/* Blocks of several rows of a plain reduction are offered U = 8 on rows of at most this many
 * elements (rr__plain_flat). */
#define PLAIN_FLAT_ROWS_COLS 512
/* f32 rows kept in registers by one block a row, up to this many elements, have U packs a worker
 * in flight, not all of them, as have 16-bit ones in launches of fewer blocks than SMs
 * (gpu_features). */
#define KEPT_IN_FLIGHT_COLS 4096
/* Rows outside these lengths are never "odd" to the model: tiny rows have their own terms, and
 * past a warp's 12 one-element chunks the V = 1 plans need block-wide trees (W = 64-128 at
 * 383-1023 elements measured up to 1.24x slower than the headed plans, session 11). */
#define ODD_ROW_MIN_ELEMENTS 96
#define ODD_ROW_MAX_ELEMENTS 384

static double log2_of(double x)
{
	return x > 1 ? log2(x) : 0;
}

/* An S=grid launch of one block an SM, each of at most 32 KiB of a row wider than
 * RR__GRID_WIDE_COLS: it waits on its blocks' own work too (on one row of 131073, 64 blocks of
 * 2056 elements, the H200 measured W = 256, U = 1 1.65x faster than W = 64, U = 4;
 * bench/NOTES.md 2026-12-01 session 10). */
static int grid_one_wave(const rr__plan_request *req, const rr_layout *l,
                         const rr__plan_features *f)
{
	double sms = req->target->multiprocessors > 0 ? req->target->multiprocessors : 1;
	return l->storage == RR_STORAGE_GRID && f->groups <= sms &&
	       req->cols > RR__GRID_WIDE_COLS && f->row_share * rr_dtype_size(req->dtype) <= 32768;
}

/* Whether each group of a launch moves under 16 KiB (few_groups, small_groups). */
static int few_bytes_a_group(const rr__plan_features *f)
{
	return (f->dram_bytes + f->cache_bytes) / fmax(1, f->groups) < 16384;
}

/* A launch that waits on its groups' own work: fewer groups than SMs (each alone on its SM),
 * each moving under 16 KiB, one block per row; counted for kernels with row outputs only. The
 * H200 (bench/NOTES.md, session 7) measured the terms on groups under 4 KiB; at 16 KiB they
 * misled (64x4096 bf16: W = 512, V = 1 1.03-1.26x slower than W = 128, V = 8), and for sum and
 * cross-entropy they gained nothing and lost up to 8 %. An S=grid launch counts where
 * grid_one_wave says. */
static int few_groups(const rr__plan_request *req, const rr_layout *l, const rr__plan_features *f)
{
	double sms = req->target->multiprocessors > 0 ? req->target->multiprocessors : 1;
	if (l->storage == RR_STORAGE_GRID)
		return grid_one_wave(req, l, f);
	return l->blocks_per_row == 1 && f->groups < sms && few_bytes_a_group(f);
}

/* Groups of one block moving under 16 KiB each, whatever their number (few_groups without the
 * count), of rows of a few elements, one element a pack: a row is one worker's few packs. */
static int small_groups(const rr__plan_request *req, const rr_layout *l,
                        const rr__plan_features *f)
{
	return l->storage != RR_STORAGE_GRID && l->blocks_per_row == 1 &&
	       l->workers_per_row == 1 && l->vec == 1 && req->cols <= 8 && few_bytes_a_group(f);
}

/* Raw shared-memory keeps (rr__realisation.keep_raw) copy every complete pack of a block's
 * segment asynchronously before the first is read back: all in flight at once, as rows kept
 * in registers are. Priced so where the H200 measured them, blocks of one row holding 48 KB or
 * more (64-128 KB measured; rmsnorm bf16 512x131072 at C = 8, 32 KB a block, ran 1.20x the
 * re-read's time): W = 512-1024 alone (rows of 32768-65536 bf16 and 32768 f32, 0.83-0.95x the time
 * of the planner's pick before), W = 256-512 in 16-bit clusters (bf16 at 131072-262144, 0.82-0.95x;
 * f32 clusters kept raw ran 1.08-1.33x the time of those kept in registers; bench/NOTES.md session
 * 16). Elsewhere (S=grid, blocks of many rows, narrower blocks, f32 clusters, U > 2, clusters of W
 * = 1024) a raw keep is priced as the shared-memory keep it replaced, U packs in flight: the A/B of
 * the first pricing measured bf16 clusters of W = 1024 at U = 1 1.41-1.52x the re-read's time
 * (rmsnorm at 65536-262144), and layernorm's clusters at U = 4 1.10-1.13x (105.3 µs at U = 2 where
 * 130.6 at U = 4, 512x131072). */
static int staged_whole(const rr__realisation *r, const io_facts *io)
{
	const rr_layout *l = &r->layout;
	return io->kept > 0 && r->keep_raw && l->storage != RR_STORAGE_GRID &&
	       l->rows_per_group == 1 && l->unroll <= 2 &&
	       (l->blocks_per_row > 1
	            ? r->elem_bytes < 4 && l->workers_per_row >= 256 && l->workers_per_row <= 512
	            : l->workers_per_row >= 512) &&
	       r->segment * r->elem_bytes >=
	           (rr__cluster_mailbox(r) && l->workers_per_row == 256 ? 32768 : 49152);
}

/* A raw keep that streams but whose SM is poorly fed. One whose block has an SM to itself:
 * nothing covers its output phase (U packs a thread in flight) but its own threads, nor a
 * cluster's barriers. On the H200, W = 512 against W = 1024 on rows of 128 KB: rmsnorm bf16
 * 1024x65536 80.5 against 71.6 µs, rmsnorm and layernorm f32 4096x32768 1.10-1.13x, softmax
 * 1.01-1.02x; bf16 clusters of 128 KB a block against 64 KB (C = 2 against 4 at 131072, 4
 * against 8 at 262144) 1.02-1.49x. And W = 1024 on a row of 64 KB or less, which 512 threads
 * keep as well: two such blocks fill an SM's threads and leave 32 registers a thread; on
 * 4096x32768 bf16 W = 1024 ran 1.11-1.29x the time of W = 512 (rmsnorm, softmax, layernorm;
 * bench/NOTES.md session 16). */
static int raw_stream_starved(const rr__realisation *r, const rr__plan_features *f)
{
	const rr_layout *l = &r->layout;
	if (f->groups_per_sm <= 1 && (l->blocks_per_row > 1 || l->workers_per_row < 1024))
		return 1;
	return l->workers_per_row >= 1024 && r->segment * r->elem_bytes <= 65536;
}

/* Raw keeps priced as streaming, at their own size, with every pack in flight: staged_whole's
 * blocks, and one-round 16-bit S=grid launches of W >= 256, U <= 2, which copy their segment
 * asynchronously before the first read-back (emit_stage), where the rows hold three segments of
 * 32768 elements (64 KB of bf16, three blocks an SM) for every SM, the residency that price
 * assumes. Measured on the H200 (bench/NOTES.md, session 31, A/B of the 31 picks it moved
 * without the bound): the seven of 2^24 elements or more ran 0.82-0.94x the time (softmax bf16
 * 64x524288 52.7 -> 43.8 us); of the rest, eight ran 1.05-1.34x (rmsnorm bf16 2x4000037 17.2
 * -> 23.0), where fewer, wider blocks with more packs in flight held. A bound on the plan's
 * own grid (rows x C) would draw picks to more blocks than were measured. */
static int raw_streams(const rr__plan_request *req, const rr__realisation *r, const io_facts *io)
{
	const rr_layout *l = &r->layout;
	int rounds = req->kernel->analysis.rounds > 0 ? req->kernel->analysis.rounds : 1;
	double sms = req->target->multiprocessors > 0 ? req->target->multiprocessors : 1;
	return staged_whole(r, io) ||
	       (l->storage == RR_STORAGE_GRID && r->keep_raw && rounds == 1 && io->kept > 0 &&
	        r->elem_bytes < 4 && l->workers_per_row >= 256 && l->unroll <= 2 &&
	        (double)req->rows * req->cols >= 3 * sms * 32768);
}

/* An S=grid launch of a kernel of two rounds or more: priced by the registers its entries take
 * (gpu_occupancy), its raw keeps at their size and its waves of row groups (features_of). */
static int grid_rounds(const rr_layout *l, const rr__plan_features *f)
{
	return l->storage == RR_STORAGE_GRID && f->rounds >= 2;
}

static void gpu_occupancy(const rr__plan_request *req, const rr__realisation *r, const io_facts *io,
                          rr__plan_features *f)
{
	const rr__target *t = req->target;
	const rr_layout *l = &r->layout;
	double elem = (double)r->elem_bytes;
	double warp = t->warp_size > 0 ? t->warp_size : 32;
	/* Where the kept rows live (registers, or shared memory for a cluster whose segment does
	 * not fit them) and the shared memory legality checked come from the realisation. */
	int in_regs = r->keep == RR_KEEP_REGS;
	double in_flight = fmin(l->unroll, f->chunks_per_worker);
	/* A kernel of two rounds keeps a value derived from each kept one as well (LayerNorm's
	 * x - mean, computed in round 2 and used again in the output phase): ptxas gave layernorm
	 * bf16 65536x128 105 registers at 32 kept slots a thread and 167 at 64, where one a slot
	 * counts 64 and 104; rmsnorm and softmax (one round) 64 and 84-118 (bench/NOTES.md,
	 * session 23). The values kept are the realisation's (add_layernorm keeps h = x + r, one
	 * value where legality budgets two inputs). */
	double per_slot =
	    (f->rounds >= 2 ? 2 : 1) * (r->kept_values > 0 ? r->kept_values : io->kept);
	double regs = 24 + in_flight * fmax(1, l->vec * elem / 4) * fmax(1, io->row_inputs) +
	              (l->workers_per_row > warp ? 4 : 0) + (in_regs ? per_slot * f->slots : 0);
	/* S=grid's residency decides whether a few rows run at once or one after another (a row
	 * group of C blocks at a time: layernorm bf16 4x2097152 at W = 512, C = 128 ran 36.9 µs
	 * where ptxas gave 72 registers and one block an SM, against 17.3-19.2 µs for plans that
	 * hold all four rows). Its entries convert every loaded pack to f32 and keep U packs of
	 * each row and col input in flight: ptxas gave 36-87 registers to W = 256-1024, U = 1-4
	 * (six built-ins, bf16 and f32, C = 32 and 128), about 32 + U·V·inputs times 1/2 in
	 * 16-bit and 3/4 in f32 (bench/NOTES.md session 27). One round as well as two: the four
	 * picks it moved on the H200 now hold all their rows at once and ran 0.79-0.98x the time
	 * (softmax f32 3x2097152 26.0 -> 20.5 µs, rmsnorm bf16 4x2097152 15.1 -> 14.2; session
	 * 29). */
	if (l->storage == RR_STORAGE_GRID) {
		/* a segment of at most four packs a worker has them all in flight: add_layernorm
		 * bf16 at W = 512, U = 2, C = 128 (four packs) took 100 registers, at C = 64
		 * (eight) 56 */
		double packs = f->chunks_per_worker <= 4 ? f->chunks_per_worker : in_flight;
		double inputs = io->row_inputs + io->col_inputs;
		regs = fmax(regs, 32 + packs * l->vec * inputs * (elem >= 4 ? 0.75 : 0.5));
	}
	f->registers_per_thread = fmin(255, fmax(32, 8 * ceil(regs / 8)));
	f->smem_per_group = (double)r->smem_bytes;
	/* A raw keep the model does not price as streaming (raw_streams) is priced as the f32
	 * keep it replaced, shared memory included, until the H200 has measured it: S=grid's
	 * segments of two rounds were (above; 64 KB blocks of bf16 two an SM). One round (rmsnorm,
	 * softmax) priced at its size without streaming moved eight few-row picks, four
	 * 0.83-0.93x, four 1.01-1.44x (session 29). */
	f->raw_streams = raw_streams(req, r, io);
	if (r->keep_raw && !f->raw_streams && !grid_rounds(l, f))
		f->smem_per_group += (double)r->dynamic_smem * (4.0 / r->elem_bytes - 1);
	double T = f->threads_per_group;
	double fit = fmin(floor(GPU_THREADS_PER_SM / T), GPU_GROUPS_PER_SM);
	fit = fmin(fit, floor(GPU_REGISTERS_PER_SM / (f->registers_per_thread * T)));
	if (f->smem_per_group > 0 && t->smem_per_group > 0)
		fit = fmin(fit,
		           floor((double)(t->smem_per_group + 1024) / (f->smem_per_group + 1024)));
	f->groups_per_sm = fmax(1, fit);
}

static double access_efficiency(const rr__cost_coeffs *k, double bytes)
{
	if (bytes >= 16) /* wider than 16 B: two accesses per pack and twice the registers */
		return 1.0 - 0.25 * log2(bytes / 16);
	return bytes >= 8   ? K(gpu_access_eff_8b)
	       : bytes >= 4 ? K(gpu_access_eff_4b)
	       : bytes >= 2 ? K(gpu_access_eff_2b)
	                    : K(gpu_access_eff_1b);
}

/* A plain reduction: one round without an online pair, no row output and no col input (sum):
 * every pass is a load and an add. */
static int plain_kernel(const rr__plan_request *req)
{
	const rr_kernel *kernel = req->kernel;
	if (!kernel || !kernel->analysis.level || kernel->analysis.rounds != 1 ||
	    kernel->analysis.online_rewrites > 0)
		return 0;
	for (int j = 0; j < kernel->n_outputs; j++)
		if (kernel->outputs[j].kind == RR_KIND_ROW)
			return 0;
	for (int k = 0; k < kernel->n_inputs; k++)
		if (kernel->inputs[k].kind == RR_KIND_COL)
			return 0;
	return 1;
}

/* Whether rows of `req` are "odd" for packs of `vec` elements: every row after the first has a
 * head (its length is not a multiple of the pack), the row is long enough for a head to matter
 * (the H200 sweeps below measured 127-1023 elements), and the kernel writes rows (sum and
 * cross_entropy kept their vector plans' lead on odd rows, bench/NOTES.md session 7). */
static int odd_length(const rr__plan_request *req, int vec)
{
	return req->cols >= ODD_ROW_MIN_ELEMENTS && req->cols <= ODD_ROW_MAX_ELEMENTS &&
	       req->cols % vec != 0;
}

static int odd_rows(const rr__plan_request *req, const io_facts *io, int vec)
{
	return io->row_outputs > 0 && odd_length(req, vec);
}

/* The access width the bandwidth efficiency is priced at. On odd rows (above) every plan of
 * wider packs runs a head, and there packs of one element lost nothing to the 16-byte packs'
 * bandwidth when a warp's lanes read a contiguous stretch: on 65535x127, 32767x255 and
 * 12345x321 the norms' and softmax's plans of 16-32 workers, V = 1, ran 0.68-0.97x the time of
 * the best headed plan (bench/NOTES.md 2026-12-01 session 11), where the 4- and 2-byte
 * efficiencies fitted on aligned rows priced them at 1.5-2.5x. So there a one-element pack of
 * a 16- or 32-worker row counts as its warp's stretch: 128 bytes as one 16-byte access, 64 as
 * an 8-byte one. Over 16-bit rows, in blocks of at most 256 threads, the stretch of 32-64 bytes
 * counts as a 16-byte access too: W = 32, V = 1 ran 0.73-0.98x the time of the headed picks on
 * bf16 32767x255 and 12345x321, W = 16, V = 1 was the fastest plan swept on 65535x127
 * (bench/NOTES.md 2026-12-03 session 22). Other widths, aligned rows and split rows keep the
 * fitted widths. Such a plan's packs are single elements, so more than 8 of them a worker are
 * not doubted (features_of; f32 12345x321 at W = 32, V = 1, 11 packs a worker: 0.81-0.93x the
 * time of the V = 4 picks). */
static int odd_scalar_stretch(const rr__plan_request *req, const io_facts *io, const rr_layout *l,
                              const rr__plan_features *f)
{
	double elem = (double)rr_dtype_size(req->dtype);
	return l->vec == 1 && l->workers_per_row >= 16 && l->workers_per_row <= 32 &&
	       l->blocks_per_row == 1 && f->chunks_per_worker <= 12 &&
	       odd_rows(req, io, (int)(16 / elem));
}

static double odd_scalar_access_bytes(const rr__plan_request *req, const io_facts *io,
                                      const rr_layout *l, const rr__plan_features *f)
{
	if (!odd_scalar_stretch(req, io, l, f))
		return f->access_bytes;
	double elem = (double)rr_dtype_size(req->dtype);
	return elem < 4 && l->workers_per_row * l->rows_per_group <= 256
	           ? 16
	           : fmin(16, fmax(f->access_bytes, l->workers_per_row * elem / 8));
}

/* The time one group takes from its first load to its last store, without contention. */
static double gpu_group_us(const rr__cost_coeffs *k, const rr_layout *l, const io_facts *io,
                           const rr__plan_features *f, double cached_share, double warp)
{
	double W = l->workers_per_row;
	double chunks = f->chunks_per_worker, U = fmin(l->unroll, chunks);
	double reduce_cycles = log2_of(fmin(W, warp)) * K(gpu_warp_level_cycles);
	if (W > warp) /* barrier and a shared-memory stage */
		reduce_cycles +=
		    K(gpu_block_stage_cycles) + log2_of(W / warp) * K(gpu_warp_level_cycles);
	double across = l->storage == RR_STORAGE_GRID ? K(gpu_grid_round_us)
	                : l->blocks_per_row > 1       ? K(gpu_cluster_round_us)
	                                              : 0;
	double per_round = reduce_cycles / GPU_CYCLES_PER_US + across;
	double later = 0;
	if (io->kept > 0) {
		switch (f->passes > 1 ? RR_STORAGE_REREAD : l->storage) {
		case RR_STORAGE_REGS:
			later = chunks * K(gpu_regs_chunk_us);
			break;
		case RR_STORAGE_SMEM:
		case RR_STORAGE_CLUSTER:
		case RR_STORAGE_GRID:
			later = ceil(chunks / U) * K(gpu_smem_chunk_us) + K(gpu_smem_phase_us);
			break;
		default:
			later = ceil(chunks / U) * (cached_share * K(gpu_cache_latency_us) +
			                            (1 - cached_share) * K(gpu_memory_latency_us));
		}
		later *= io->max_passes - 1;
	}
	double output = io->row_outputs > 0 ? ceil(chunks / U) * K(gpu_output_chunk_us) : 0;
	return K(gpu_block_us) + f->serial_steps * K(gpu_memory_latency_us) + later +
	       f->rounds * per_round + output;
}

/* Every worker takes part in every level of the cross-worker tree (the cross-warp stage is
 * done by every warp), so wide groups spend issue slots that a narrower layout spends on
 * loads: about 3 instructions per level for a sum, max or min, 14 for an online (max, sum)
 * pair (two shuffles, two exponentials, rescaling), and a shared-memory stage per round when
 * W exceeds a warp. Calibrated on the H200
 * sweeps of bench/NOTES.md (cross_entropy bf16 32768x1024: W = 128 took 50 µs, W = 32 22 µs). */
static double gpu_tree_us(const rr__cost_coeffs *k, const rr__plan_request *req, const rr_layout *l,
                          const rr__plan_features *f, double warp)
{
	const rr__analysis *a = &req->kernel->analysis;
	double W = l->workers_per_row;
	double levels = log2_of(W);
	int pairs = a->online_rewrites, plain = a->reductions - a->online_rewrites;
	double per_thread =
	    levels * (K(gpu_tree_plain_instr) * plain + K(gpu_tree_online_instr) * pairs) +
	    (W > warp ? K(gpu_tree_block_instr) * f->rounds : 0);
	double lanes_per_us =
	    (req->target->multiprocessors > 0 ? req->target->multiprocessors : 1) * 128.0 *
	    GPU_CYCLES_PER_US;
	return f->rows * l->blocks_per_row * W * per_thread / lanes_per_us;
}

/* A worker's complete chunks of its segment; *partial: whether a partial chunk follows. */
static double complete_chunks(const rr__realisation *r, int *partial)
{
	int64_t WV = (int64_t)r->layout.workers_per_row * r->layout.vec;
	*partial = r->segment % WV != 0;
	return (double)(r->segment / WV);
}

/* Whether every row runs the headed entry: a vector entry without the aligned one (N·size not
 * a multiple of the access). */
static int every_row_headed(const rr__realisation *r)
{
	return r->has_vec_entry && !r->has_aligned_entry;
}

/* A worker's steps through its segment of an S=grid launch of few blocks (grid_one_wave) in one
 * pass (elsewhere the model keeps chunks / U, which its fits were made with): U complete chunks
 * a step, then the partial chunk. Rows with a head (N·size not a multiple of the access) run the
 * headed entry: chunks 0 .. FULL - 2 at U / 2 a step, then chunk FULL - 1 and chunk FULL, each
 * guarded, one step each (cuda_emit_row.c, emit_body). On one row of 131073 over 64 blocks the H200
 * measured the time following these steps: 4 steps (W = 64, U = 4) 7.8 µs, 3 (W = 128, U = 2) 5.3,
 * 2 (W = 256, U = 1) 4.8 (rmsnorm bf16; bench/NOTES.md 2026-12-01 session 10). */
static double load_trips(const rr__realisation *r)
{
	const rr_layout *l = &r->layout;
	int partial;
	double full = complete_chunks(r, &partial);
	if (every_row_headed(r)) {
		double u_head = l->unroll > 1 ? floor(l->unroll / 2.0) : 1;
		return (full > 1 ? ceil((full - 1) / u_head) : 0) + (full > 0) + partial;
	}
	return ceil(full / l->unroll) + partial;
}

/* Trips to memory, one after another, of a launch of few groups (few_groups): a flat row
 * (rr__realisation.flat) issues every load of the launch at once, col inputs of later phases
 * with round 1's; otherwise each phase that loads waits on one trip per U complete chunks, one for
 * the partial pack and one for the head. Flat rows made one-row launches 0.74-0.96x as long on the
 * H200 (1x129: two trips instead of five; bench/NOTES.md 2026-12-01 session 6); with this term
 * the planner's picks on 1x129, 17x257, 64x257 and 1x1000 ran 0.77-0.98x as long (session 12). */
static double few_group_trips(const rr__realisation *r, const io_facts *io,
                              const rr__plan_features *f)
{
	const rr_layout *l = &r->layout;
	/* S=grid's steps are load_trips'; blocks of many rows were measured no faster for it
	 * (50000x3, R = 512: U = 3 against 2, 0.99-1.01) */
	if (l->storage == RR_STORAGE_GRID || l->rows_per_group > 1)
		return 1;
	if (r->flat)
		return 1;
	int partial;
	double full = complete_chunks(r, &partial);
	double per_phase = ceil(full / l->unroll) + partial + (r->head_slots > 0);
	double phases = fmax(f->passes, 1 + (io->col_inputs > 0 && io->row_outputs > 0));
	return per_phase * phases;
}

/* Whether one block keeps `elements` of each of `kept` rows in shared memory (as f32). */
static int block_keeps(const rr__plan_request *req, int kept, double elements)
{
	return fmax(1, kept) * elements * 4 <= (double)req->target->smem_per_group;
}

/* A cluster whose blocks keep their segment in registers, up to 16 packs a worker at W >= 512,
 * on a row one block could not keep in shared memory: its loads are all issued at once, so the
 * many-packs doubt (features_of) does not hold there. The H200 measured W = 512 holding 64 f32
 * values a thread (a block's 128 KB of the row) the fastest plan of 17-23 on rmsnorm, softmax
 * and layernorm f32 at 1024x65536, 512x131072 and 256x262144, 0.71-0.87x the time of the
 * planner's pick before; on rows of 50257-50265 f32, which one block keeps in shared memory,
 * layernorm's cluster ran 1.12-1.15x the time of the block's (bench/NOTES.md session 13). */
static int cluster_kept_in_registers(const rr__plan_request *req, const rr__realisation *r,
                                     const rr__plan_features *f)
{
	const rr_layout *l = &r->layout;
	/* A kernel of two rounds keeps more live at the cluster's combine: layernorm f32 at C = 8
	 * (256x262144) and U = 4 reached ptxas's 128 registers and spilled in its head entry (emit
	 * --check-all); C = 2-4 did not, nor U = 2 at C = 8, which ran 190.4 us there against
	 * the C = 8, W = 1024 shared-memory plan's 292.8 (bench/NOTES.md session 14). */
	return l->storage == RR_STORAGE_CLUSTER &&
	       (f->rounds < 2 || l->blocks_per_row <= 4 || l->unroll <= 2) &&
	       r->keep == RR_KEEP_REGS && l->workers_per_row >= 512 && f->chunks_per_worker <= 16 &&
	       req->target->smem_per_group > 0 &&
	       !block_keeps(req, f->kept_inputs, (double)req->cols);
}

/* The cache lines one warp access of a group of several rows touches: warp / W rows, each run of
 * W·V elements in its own lines. In kernels that write rows, an access of 16 lines (W = 2 of
 * 16-byte packs) ran 1.2-1.3x the time of W = 4-8 on the H200 (softmax, layernorm and rmsnorm
 * bf16 at 65536x128 and 131072x64, softmax and layernorm f32 131072x64), 8 lines (W = 4) level
 * with W = 8 to 1.09x; cross_entropy, which only reads, 1.02-1.03x at 16 lines (bench/NOTES.md
 * 2026-12-03 session 22): gpu_scattered_access_eff per doubling past 8 lines. sum, which reads
 * one row and writes a scalar, is priced the same: at 16 lines it ran 1.14-1.26x the time of
 * W = 4-8 (f32 and bf16 131072x64, session 25). */
static double warp_access_lines(const rr__plan_request *req, const io_facts *io, const rr_layout *l,
                                const rr__plan_features *f, double warp)
{
	double W = l->workers_per_row;
	if ((io->row_outputs == 0 && !plain_kernel(req)) || W >= warp || l->rows_per_group == 1 ||
	    f->chunks_per_worker <= 1)
		return 1;
	double run = W * l->vec * (double)rr_dtype_size(req->dtype);
	return fmin(warp, W * l->rows_per_group) / W * ceil(run / 128);
}

/* 16-bit rows of two inputs or more (add_layernorm: h = x + r kept as f32) of 16384 elements
 * and more, kept in one block's shared memory with three blocks or more an SM: as on the
 * clusters below, the other blocks' loads hide the kept row's traffic. The H100 ran
 * add_layernorm bf16 W = 512 with h in shared memory (three blocks an SM) in 0.94x the time of
 * the W = 512 pick keeping h in registers (one block an SM) at 2048x16384 and 4096x16384
 * (95.95 against 102.09 µs, 184.57 against 196.93; session 61, bench/results/
 * 2026-12-07-h100-lab-plans-rows1-s61), where the staged term had priced it 1.3x. */
/* 16-bit rows of two row inputs or more (add_layernorm: x and r). */
static int pair_rows_16bit(const rr__plan_request *req, const io_facts *io)
{
	return rr_dtype_size(req->dtype) < 4 && io->row_inputs >= 2;
}

static int smem_pair_overlaps(const rr__plan_request *req, const rr_layout *l, const io_facts *io,
                              const rr__plan_features *f)
{
	return l->storage == RR_STORAGE_SMEM && l->blocks_per_row == 1 && f->groups_per_sm >= 3 &&
	       req->cols >= 16384 && pair_rows_16bit(req, io);
}

/* f32 rows of a one-round kernel over S=grid, of more data than half the L2 holds, whose
 * segments stay in registers: their loads are issued at once, as a row kept in registers by
 * one block is (gpu_features), and a block's next row group loads while the others meet, so
 * their waves pay no round's wait (features_of). Plans that re-read their segments there
 * find them in DRAM again. The H100 ran the picks this moves (rmsnorm and softmax f32
 * 4x2097152, 16x1048576, 64x524288: from W = 1024, C = 8-32 re-reading to W = 256-512, C =
 * 32-128 in registers) in 0.74-0.90x the time, and on five shapes not tuned on 0.75-0.99x
 * but for rmsnorm f32 10x2000000 (1.12x) and 12x1500000 (1.02x) and softmax f32 12x1500000
 * (1.07x); moved on shapes of less data (7x777777, 1x128256), bf16 or two-round kernels,
 * the same pricing ran up to 1.17x (session 61, bench/results/2026-12-07-h100-ab-grid-regs-s61). */
static int grid_regs_beyond_l2(const rr__plan_request *req, const rr__realisation *r,
                               const io_facts *io, const rr__plan_features *f)
{
	return r->layout.storage == RR_STORAGE_GRID && r->keep == RR_KEEP_REGS && io->kept > 0 &&
	       rr_dtype_size(req->dtype) >= 4 && f->rounds <= 1 &&
	       f->rows * (double)req->cols * rr_dtype_size(req->dtype) >
	           (double)req->target->l2_bytes / 2;
}

static void gpu_features(const rr__cost_coeffs *k, const rr__plan_request *req,
                         const rr__realisation *r, const io_facts *io, rr__plan_features *f)
{
	const rr__target *t = req->target;
	const rr_layout *l = &r->layout;
	double elem = (double)rr_dtype_size(req->dtype);
	double sms = t->multiprocessors > 0 ? t->multiprocessors : 1;
	double warp = t->warp_size > 0 ? t->warp_size : 32;
	gpu_occupancy(req, r, io, f);
	double resident = sms * f->groups_per_sm;
	f->waves = f->groups / resident;
	/* Only a partial last wave idles SMs; a single partial wave is counted by `active` and
	 * the bytes in flight instead. */
	f->tail_efficiency = f->waves > 1 ? f->waves / ceil(f->waves) : 1;
	double active = fmin(1, f->groups / sms);
	double threads_per_sm = fmin(f->groups_per_sm, f->groups / sms) * f->threads_per_group;
	f->cluster_in_registers = cluster_kept_in_registers(req, r, f);
	int regs_kept = io->kept > 0 &&
	                (l->storage == RR_STORAGE_REGS || (f->cluster_in_registers && elem >= 4));
	/* Rows kept in registers are loaded at once: nothing uses a load before the last is
	 * issued. So are the f32 segments of the clusters below that keep theirs in registers
	 * (layernorm f32 256x262144, W = 512, C = 8: U = 2 190.4 us, U = 4 196.5; bench/NOTES.md
	 * session 14); in bf16 the H200 measured those clusters behind the re-read at every
	 * shape swept (session 13), which pricing U chunks in flight for them keeps. Otherwise U
	 * chunks are in flight. */
	regs_kept |= f->raw_streams;
	/* So are the segments of grid_regs_beyond_l2's plans. */
	if (grid_regs_beyond_l2(req, r, io, f))
		regs_kept = 1;
	/* Except f32 rows kept in registers by one block a row, of up to 4096 elements, and such
	 * 16-bit rows in launches of fewer blocks than SMs: there U counts. softmax f32 4095x2047
	 * W = 64 ran U = 8 in 0.89x the time of U = 1, rmsnorm f32 8191x1023 W = 64, U = 4 (all 4
	 * packs at once) 0.86x the W = 32, U = 1 pick, the f32 norms and softmax from U = 1-2 to 4
	 * 0.94-1.01x, bf16 64x4096 0.79-1.00x; 16-bit rows of many blocks ran U = 4 1.03-1.12x the
	 * time of U = 1-2 (bench/NOTES.md session 25). */
	if (l->storage == RR_STORAGE_REGS && !f->raw_streams && l->blocks_per_row == 1 &&
	    l->rows_per_group == 1 && req->cols <= KEPT_IN_FLIGHT_COLS &&
	    (elem >= 4 || f->groups <= sms))
		regs_kept = 0;
	/* Rows that all run the headed entry (no aligned one) issue its U a step
	 * (rr__realisation_head_unroll), counted for kernels without row outputs: sum f32
	 * 2047x6143 at W = 64, U = 8 ran 4 packs at a time, 1.07x the time of W = 128, U = 4 (all
	 * 4) on an H100. The 13 picks of the suites this moved ran 0.88-1.03x their old time there
	 * (cross_entropy bf16 1x131073 0.88, sum f32 2047x6143 0.93; cross_entropy bf16 16x128257
	 * 1.03, sum f32 8191x1023 1.02; bench/NOTES.md session 50). */
	int headed = every_row_headed(r) && io->row_outputs == 0;
	double unroll = headed ? rr__realisation_head_unroll(r) : l->unroll;
	double depth = regs_kept ? f->chunks_per_worker : fmin(unroll, f->chunks_per_worker);
	f->serial_steps = !regs_kept && grid_one_wave(req, l, f)
	                      ? load_trips(r)
	                      : ceil(f->chunks_per_worker / depth);
	f->inflight_per_sm =
	    threads_per_sm * f->live_lanes * f->access_bytes * depth * fmax(1, io->row_inputs);
	/* One access of a group covers W·V elements of a row, or R whole rows when a chunk holds
	 * the row: short contiguous pieces from many groups spread over more DRAM pages. */
	double contiguous = (f->chunks_per_worker == 1 ? l->rows_per_group * f->row_share
	                                               : (double)l->workers_per_row * l->vec) *
	                    elem;
	f->bandwidth_efficiency =
	    access_efficiency(k, odd_scalar_access_bytes(req, io, l, f)) *
	    (0.85 + 0.15 * fmin(1, contiguous / K(gpu_contiguous_needed))) *
	    (0.5 + 0.5 * f->live_lanes) * fmin(1, f->inflight_per_sm / K(gpu_inflight_needed)) *
	    (0.95 + 0.05 * fmin(1, threads_per_sm / GPU_THREADS_PER_SM)) *
	    (0.5 + 0.5 * f->tail_efficiency) * active *
	    pow(K(gpu_scattered_access_eff),
	        fmax(0, log2_of(warp_access_lines(req, io, l, f, warp) / 8))) *
	    /* clusters constrain placement; S=grid's blocks go to any SM */
	    (l->storage == RR_STORAGE_GRID ? 1 : 1 - 0.02 * log2_of(l->blocks_per_row));

	/* Col inputs come from L2 once per group (once per resident group when persistent). */
	double col_groups = l->grid == RR_GRID_PERSISTENT ? fmin(f->groups, resident) : f->groups;
	f->cache_bytes = io->col_inputs * col_groups * f->row_share * elem;
	double cached_share = 0; /* of the re-read bytes, the part still in L2 */
	if (f->passes > 1) {
		double working =
		    fmin(f->groups, resident) * l->rows_per_group * f->row_share * elem * io->kept;
		double extra = (f->passes - 1) * io->kept * f->rows * (double)req->cols * elem;
		cached_share = fmin(1, (double)t->l2_bytes / 2 / working);
		f->cache_bytes += extra * cached_share;
		f->dram_bytes += extra * (1 - cached_share);
	}
	f->barriers =
	    f->rounds * (l->workers_per_row > warp) + (l->blocks_per_row > 1 ? f->rounds : 0) +
	    (io->kept > 0 && (l->storage == RR_STORAGE_SMEM || l->storage == RR_STORAGE_CLUSTER ||
	                      l->storage == RR_STORAGE_GRID));
	/* Rows kept in shared memory are written once and read back in every later phase (as
	 * f32; a raw keep the model does not price as streaming is priced as the f32 keep it
	 * replaced). Not where a raw keep streams whole segments (staged_whole): there the
	 * read-backs overlap the copies in flight, as reads of kept registers do (rmsnorm bf16
	 * 1024x65536: 71.6 µs kept raw at W = 1024 against 81.3 re-read; bench/NOTES.md
	 * session 16). */
	double staged = 0;
	if (io->kept > 0 && r->keep == RR_KEEP_SMEM && !f->raw_streams)
		staged = io->max_passes * io->kept * f->rows * (double)req->cols * 4;
	f->memory_us = f->dram_bytes / (K(gpu_bandwidth) * f->bandwidth_efficiency) * 1e6 +
	               f->cache_bytes / (K(gpu_cache_bandwidth) * fmax(active, 0.05)) * 1e6;
	/* A cluster of three blocks or more an SM on rows of 65536 elements and more hides that
	 * traffic behind the other blocks' loads: add_layernorm (h = x + r kept as f32) on
	 * 4-8-block clusters of W = 256, 64 KB a block, three an SM, ran 0.76-0.84x the time of W =
	 * 512 keeping the same segments in registers, one block an SM (bf16 1024x65536 201.4 ->
	 * 157.3 µs, 512x131072 206.8 -> 160.1, 1024x131072 407.4 -> 310.5, f16 1024x65536 0.84),
	 * where the staged term had priced them 1.2x. On 1000x50265 (C = 4 against 2, four blocks
	 * an SM) bf16 ran 1.07x and f16 0.82x (bench/NOTES.md session 30): not there. */
	double staged_us = staged / (K(gpu_smem_bandwidth) * fmax(active, 0.05)) * 1e6;
	if ((l->storage == RR_STORAGE_CLUSTER && f->groups_per_sm >= 3 && req->cols >= 65536) ||
	    smem_pair_overlaps(req, l, io, f))
		f->memory_us = fmax(f->memory_us, staged_us);
	else
		f->memory_us += staged_us;
	/* Few bytes over few SMs: the efficiency product above collapses towards zero, but such
	 * a launch is bounded by one SM's share of the bandwidth (each of its SMs' when it has
	 * fewer groups than SMs, one group on each) plus a memory latency per serial step,
	 * whatever the occupancy. Kernels without row outputs too, on rows of 3 to 1024
	 * elements: sum and cross_entropy on 1x127 ... 1x1000 ran the V = 1 plans of one flat pass
	 * these terms pick in 0.60-0.97x the time of the V = 4-8 plans picked without them (sum
	 * f32 17x257 1.007); rows of one element moved to R = 1024 and ran 1.016x; longer rows
	 * not measured (bench/NOTES.md session 23). */
	f->few_groups =
	    (io->row_outputs > 0 || (req->cols >= 3 && req->cols <= 1024)) && few_groups(req, l, f);
	double sms_used = f->few_groups ? fmax(1, f->groups) : 1;
	/* ... and so is a launch of as many groups as SMs or more, each as small, on all its SMs:
	 * without this the bound fell from 132 SMs' share to one SM's where the groups passed the
	 * SMs (rmsnorm bf16 100000x1: R <= 512 priced at 2.2x R = 1024). In the compare's graph
	 * replay the H100 ran R = 128-256 in 0.97-0.98x R = 1024's time, and 50000x3 R = 256 in
	 * 0.96x R = 512's (bench/NOTES.md, session 58). Up to four groups an SM: past them the
	 * blocks' own cost shows (50000x3 f32 R = 64 1.03x R = 256, bf16 R = 32 1.25x), which the
	 * one-SM bound keeps out. */
	if (!f->few_groups && f->groups >= sms && f->groups <= 4 * sms && small_groups(req, l, f))
		sms_used = sms;
	/* (S=grid's blocks stream whole segments: their access width counts, as in the
	 * efficiency above.) */
	double width = l->storage == RR_STORAGE_GRID ? access_efficiency(k, f->access_bytes) : 1;
	double one_sm_us =
	    f->serial_steps * K(gpu_memory_latency_us) +
	    (f->dram_bytes + f->cache_bytes) / (K(gpu_bandwidth) * width * sms_used / sms) * 1e6;
	f->memory_us = fmin(f->memory_us, one_sm_us);
	double group_us = gpu_group_us(k, l, io, f, cached_share, warp);
	if (l->grid == RR_GRID_PERSISTENT) /* groups loop over rows: one prologue each */
		f->latency_us = K(gpu_block_us) +
		                ceil(f->waves) * (group_us - K(gpu_block_us) + 0.02) +
		                ceil(fmin(f->groups, resident) / sms) * K(gpu_dispatch_us);
	else
		f->latency_us =
		    ceil(f->waves) * group_us + ceil(f->groups / sms) * K(gpu_dispatch_us);
	/* A launch of fewer groups than SMs waits on its groups' own work: each worker evaluates
	 * its elements phase after phase, and a row with a head runs the head's guarded code in
	 * every phase. For kernels with row outputs the H200 measured that work (bench/NOTES.md,
	 * session 7: on 1x129 ... 64x257 W = 128, V = 1 beat the planner's V = 4 and 8
	 * by 1.1-1.9x). */
	if (f->few_groups) {
		double phases = f->rounds + 1;
		/* An SM issues for 4 warps at a time: past 128 workers a group's elements are not
		 * spread any thinner (W = 32, 64 and 128 at V = 1 measured within 3 % on 257
		 * elements). */
		double per_worker =
		    fmax(f->chunks_per_worker * l->vec, f->row_share * l->rows_per_group / 128);
		f->latency_us += phases * (per_worker * K(gpu_element_phase_us) +
		                           (r->head_slots > 0 ? K(gpu_head_phase_us) : 0));
		/* ... and on each level of its in-warp tree, in every round: a shuffle, its
		 * partner's value and the combination, one after another (the H200 ran 3x3 at W =
		 * 1, U = 3 in 0.83-0.89x the time of W = 4, V = 1, one element a worker: rmsnorm,
		 * softmax, layernorm, f32 and bf16; W = 2 between them; bench/NOTES.md session 26).
		 */
		f->latency_us +=
		    f->rounds * log2_of(fmin(l->workers_per_row, warp)) * K(gpu_wave_level_us);
		/* Outside the memory/latency overlap: a launch this small waits on each trip. */
		f->trips_us = (few_group_trips(r, io, f) - 1) * K(gpu_trip_us);
	}
	/* Past one wave a row's head (rows not a multiple of 16 bytes, packs wider than one
	 * element) costs issue slots in every phase that no memory term sees: the guarded head
	 * and partial-pack code, divergent between the rows of a warp whose heads differ (odd rows
	 * only: on aligned rows the head entry runs only for a misaligned view). The
	 * H200 measured W <= 32, V = 1 plans 0.68-0.97x the best headed ones on rows of 127-321
	 * elements and f32 norms of 1023, headed ones ahead on softmax f32 and bf16 at 1023
	 * (bench/NOTES.md 2026-12-01 session 11). */
	/* The same head in a plain reduction's f32 rows (sum): W = 16-32, V = 1, U = 8 ran 0.77x
	 * (65535x127) and 0.87x (32767x255) the time of the V = 4 picks on the H200. Not the
	 * one-element packs' access width (odd_scalar_stretch): with it 12345x321 moved to V = 1
	 * and ran 1.08x; nor 16-bit rows, whose V = 1 plans ran 1.02-1.16x (bench/NOTES.md
	 * session 25). */
	int plain_head = plain_kernel(req) && elem >= 4 && odd_length(req, l->vec);
	if (!f->few_groups && r->head_slots > 0 && (odd_rows(req, io, l->vec) || plain_head))
		f->head_us =
		    f->rows * (f->rounds + 1) * K(gpu_head_row_cycles) / (sms * GPU_CYCLES_PER_US);
	f->launch_us = K(gpu_launch_us) + (l->storage == RR_STORAGE_GRID ? K(gpu_grid_launch_us)
	                                   : l->blocks_per_row > 1       ? K(gpu_cluster_launch_us)
	                                                                 : 0);
	f->tree_us = gpu_tree_us(k, req, l, f, warp);
}

/* ---------------------------------------------------------------- CPU */

#define CPU_CHAINS_USEFUL 2.0    /* accumulator vectors a reduction's pass gains from (below) */
#define CPU_CHAIN_HIDDEN 64.0    /* adds of a chain the model does not charge (below) */
#define CPU_CHAIN_HIDDEN_16 32.0 /* the same for 16-bit rows (below) */

/* Rounds whose pass is a chain of dependent vector adds (or max/min) rather than arithmetic: no
 * online pair (the emitter's split already runs its max pass on four chains, and the exp of its
 * sum pass keeps the pipes busy) and no exp, log, tanh, division or square root before the
 * reduction. layernorm and add_layernorm count two, rmsnorm and sum one, softmax and
 * cross_entropy none. */
static int chained_rounds(const rr_kernel *kernel)
{
	unsigned char mark[RR_MAX_NODES];
	int chained = 0;
	for (int round = 1; round <= kernel->analysis.rounds; round++) {
		int light = 1;
		for (int id = 0; id < kernel->n_nodes; id++)
			if (rr__reduced_in(kernel, id, round) &&
			    kernel->analysis.online_partner[id] >= 0)
				light = 0;
		rr__phase_roots(kernel, round, mark);
		rr__mark_operands(kernel, mark, NULL);
		for (int id = 0; id < kernel->n_nodes && light; id++) {
			rr__op op = kernel->nodes[id].op;
			light = !mark[id] ||
			        !(op == RR_OP_EXP || op == RR_OP_LOG || op == RR_OP_TANH ||
			          op == RR_OP_DIV || op == RR_OP_SQRT || op == RR_OP_RSQRT);
		}
		chained += light;
	}
	return chained;
}

/* A bf16 kernel's passes in pair order (c_emit.c `paired_order`, device/cpu_vec.h
 * paired_bf16): V = 1, W a multiple of 32 (a pair of vectors on AVX2 and AVX-512 alike), a row
 * output, sums alone and no online pair. One unpack a vector widens the pair's load where the
 * natural order takes a word permute (AVX-512: a load and add at 1.1 cycles a vector against
 * 1.6), and one conversion and one permute store each pair. Two threads, `rowreduce bench`
 * ABBA on the AVX-512 host (bench/NOTES.md session 41 CPU), add_layernorm bf16 (two row inputs:
 * AVX-512 takes the pair order for such kernels alone, device/cpu_vec.h) at W = 32 against
 * W = 16 (which the natural order had measured faster) 0.85-0.94 on 1024x1024-4096x4096,
 * 0.97-0.99 at 256x65536; from NumPy's arrays 4096x4096 0.88. Rows of a whole number of pairs
 * only: where N is not a multiple of 32 each row starts at another offset and the pair's
 * 64-byte loads cross lines, and add_layernorm bf16 ran 1000x50265, 2047x6143 and 512x32003
 * at W = 32 in 1.07-1.25x the time of W = 16. And launches from memory only
 * (RR_CPU_STREAM_BYTES): in cache add_layernorm 64x4096 ran 1.01-1.05x, 100x32768 (26 MB)
 * 1.02x. */
#define CPU_PAIR_PACK_FACTOR 0.9

static int cpu_pair_order(const rr__plan_request *req, const rr_layout *l, const io_facts *io,
                          const rr__plan_features *f)
{
	const rr_kernel *k = req->kernel;
	const double launch_bytes =
	    (double)(io->row_inputs + io->row_outputs) * f->rows * (double)req->cols * 2;
	if (req->dtype != RR_BF16 || l->vec != 1 || l->workers_per_row % 32 != 0 ||
	    req->cols % 32 != 0 || io->row_inputs < 2 || k->analysis.online_rewrites > 0 ||
	    io->row_outputs == 0 || launch_bytes < RR_CPU_STREAM_BYTES)
		return 0;
	for (int id = 0; id < k->n_nodes; id++)
		if (k->nodes[id].op == RR_OP_REDUCE && k->nodes[id].reduce != RR_REDUCE_SUM)
			return 0;
	return 1;
}

/* exp, log and tanh of a row's elements, counted once in every phase that computes them
 * (softmax's online pass and its output phase: two; cross_entropy one; the norms none). */
static int elem_transcendentals(const rr_kernel *kernel)
{
	unsigned char mark[RR_MAX_NODES];
	int count = 0;
	for (int phase = 1; phase <= kernel->analysis.rounds + 1; phase++) {
		rr__phase_roots(kernel, phase, mark);
		/* an online pair's sum rides with its max: its operand is computed there too */
		for (int id = 0; id < kernel->n_nodes; id++) {
			int max = kernel->analysis.online_partner[id];
			if (rr__is_online_sum(kernel, id) && max >= 0 &&
			    rr__reduced_in(kernel, max, phase) &&
			    kernel->nodes[kernel->nodes[id].a].shape == RR_SHAPE_ELEM)
				mark[kernel->nodes[id].a] = 1;
		}
		rr__mark_operands(kernel, mark, NULL);
		for (int id = 0; id < kernel->n_nodes; id++) {
			rr__op op = kernel->nodes[id].op;
			count +=
			    mark[id] && (op == RR_OP_EXP || op == RR_OP_LOG || op == RR_OP_TANH);
		}
	}
	return count;
}

/* Vector operations an exp, log or tanh costs rows as lanes (the split's sum keeps its
 * exp(e - m) for the output phase: fit on softmax above), in units of cpu_pack_ns. */
#define CPU_LANES_TRANSCENDENTAL_OPS 6

/* Scalar nodes the cpu backend computes through libm (exp, log, tanh, max, min of a row's
 * scalars): rows as lanes call them lane by lane. */
static int scalar_libm_calls(const rr_kernel *kernel)
{
	int count = 0;
	for (int id = 0; id < kernel->n_nodes; id++) {
		const rr__node *node = &kernel->nodes[id];
		count += node->shape == RR_SHAPE_SCALAR &&
		         (node->op == RR_OP_EXP || node->op == RR_OP_LOG ||
		          node->op == RR_OP_TANH || node->op == RR_OP_MAX || node->op == RR_OP_MIN);
	}
	return count;
}

/* Vector operations of a block's transposition of one row array (device/cpu_lanes.h): the
 * network's L log2(L) two-vector permutes at L = 16, and about one permute a vector for the
 * rows' starts or the row-major vectors' assembly. */
#define CPU_LANES_TRANSPOSE_OPS 64.0

/* A row's time where rows run as lanes (rr__cpu_rows_as_lanes): L = 16 rows share every
 * vector operation of a block, exp, log and tanh included (a polynomial of about a dozen);
 * each pass evaluates the N elements once; the block's row arrays move into element order and
 * back by lane permutes, N two-vector permutes and blends an element (N^2 an array), or from
 * RR_CPU_LANES_TRANSPOSE_MIN_N elements on by a transposition, CPU_LANES_TRANSPOSE_OPS + N an
 * array; the scalars' libm calls go lane by lane. One thread, 100000 rows
 * (bench/lab/s61-cpu/notes.md): softmax f32 at N = 1, 3 0.38, 1.71 ns a row, priced 0.43,
 * 1.6; cross_entropy at 4 5.0, priced 3.9, where W = 4 ran 12.7. Transposed, N = 9 and 16
 * (f32): softmax 6.3 and 9.1 priced 7.0 and 10.0, rmsnorm 3.8 and 4.2 priced 4.1 and 4.8,
 * add_layernorm 7.4 and 8.3 priced 8.0 and 9.2, cross_entropy 7.6 and 9.1 priced 6.3 and
 * 7.9, sum 1.1 and 1.3 priced 2.1 and 2.4; between them the rows that do not divide 16 cost
 * more (layernorm at 13 and 15: 8.0 and 9.8 priced 4.8 and 5.1), still under half the
 * per-row plans' measured time, so the picks hold. */
static double cpu_lanes_row_ns(const rr__cost_coeffs *k, const rr__plan_request *req,
                               const io_facts *io)
{
	const double N = (double)req->cols, rows_a_block = 16;
	const double passes = io->max_passes + req->kernel->analysis.online_rewrites;
	const double moves =
	    N >= RR_CPU_LANES_TRANSPOSE_MIN_N ? CPU_LANES_TRANSPOSE_OPS + N : N * N;
	const double ops =
	    N * (passes + CPU_LANES_TRANSCENDENTAL_OPS * elem_transcendentals(req->kernel)) +
	    (io->row_inputs + io->row_outputs) * moves;
	return ops * K(cpu_pack_ns) / rows_a_block +
	       scalar_libm_calls(req->kernel) * K(cpu_transcendental_ns);
}

static void cpu_features(const rr__cost_coeffs *k, const rr__plan_request *req,
                         const rr__realisation *r, const io_facts *io, rr__plan_features *f)
{
	const rr_layout *l = &r->layout;
	double threads = req->target->multiprocessors > 0 ? req->target->multiprocessors : 1;
	double elem = (double)rr_dtype_size(req->dtype);
	double W = l->workers_per_row, U = fmin(l->unroll, f->chunks_per_worker);
	/* One pass over a row: every worker's packs in turn (a pack of up to 32 bytes is one
	 * vector operation), plus each worker's setup and the tree's steps. */
	/* The C emitter runs workers as the lanes of a vector (up to 16): one vector operation
	 * advances min(W, 16) workers by one element, so a worker's pack of V elements costs V
	 * operations shared by its lanes, and a lane's V > 1 elements are strided loads. */
	double lanes = fmin(W, 16);
	double pack_ns = K(cpu_pack_ns) * l->vec * (l->vec > 1 ? 2.0 : 1.0) / lanes *
	                 (cpu_pair_order(req, l, io, f) ? CPU_PAIR_PACK_FACTOR : 1.0);
	double ilp = U >= 4 ? K(cpu_ilp_u4) : U >= 2 ? K(cpu_ilp_u2) : 1.0;
	double issue_ns = f->chunks_per_worker * W * pack_ns * ilp; /* the packs of one pass */
	double pass_ns =
	    issue_ns + ceil(W / lanes) * K(cpu_worker_ns) + log2_of(W) * K(cpu_tree_level_ns);
	double later_ns = 0;
	int cached = f->row_share * elem * io->kept <= K(cpu_cached_row_bytes);
	/* Keeping a 32-bit row saves no conversion, and the keep's stores into scratch cost the
	 * first pass a store per pack: a kept pass costs a re-read one, in cache or past it (peer
	 * script, f32 16384x1024, R = 4: rmsnorm reread 2.64 ms, regs 2.77; layernorm 2.74 and
	 * 2.94; `rowreduce bench` on AVX-512, three interleaved runs, the planner's R: rmsnorm f32
	 * 1024x1024 140-154 µs against 188-225, layernorm 172-201 against 230-268, add_layernorm
	 * 2048x512 331-374 against 479-516, 12345x321 level). A 16-bit row kept saves its later
	 * conversions, its passes at cpu_kept_pass_factor of a re-read one's, no store charged:
	 * with each thread's scratch on pages of its own (session 23) the keep measured 0.94-1.01
	 * of the re-read at the planner's W, U and R (softmax, rmsnorm, layernorm, add_layernorm
	 * bf16 at 257-4096 columns, cpu-lab s24), but layernorm bf16 4096x4096 W = 64 1.10; the
	 * factor refit on them is 0.96 (bench/NOTES.md session 24). */
	double kept_factor = elem >= 4 ? 1.0 : K(cpu_kept_pass_factor);
	if (io->kept > 0) {
		/* Kept rows are read back from the workers' arrays; re-read rows from the cache, or
		 * from memory when they do not fit (counted in the bytes). */
		later_ns = (io->max_passes - 1) * pass_ns *
		           (l->storage == RR_STORAGE_REREAD ? 1.0 : kept_factor);
		if (elem >= 4 && l->storage != RR_STORAGE_REREAD)
			later_ns += f->chunks_per_worker * W * pack_ns * io->kept;
		if (f->passes > 1 && !cached)
			f->dram_bytes += (f->passes - 1) * io->kept * f->rows * req->cols * elem;
	}
	/* A reduction accumulates into W / lanes vectors (device/cpu_vec.h's BLOCKS), one
	 * dependent add a chunk and element each, so a round's pass takes at least its adds over
	 * the chains at one vector add's latency, where the issue time above says less (cpu-lab
	 * s22 chain.c: 1.47-1.61 ns an add in one chain, 0.77 in two). Two chains are as many as
	 * help (64x4096 in cache, one thread, of W = 16's time: layernorm f32 W = 32 0.88, W = 64
	 * 0.89): past them the pass's loads and arithmetic bind. The first CPU_CHAIN_HIDDEN adds
	 * are not charged: on rows of 257 and 321 columns W = 32 measured 0.99-1.07x W = 16's time
	 * for the f32 norms (its tree step and guarded pack), at 1024 0.86-1.01. Priced for rows
	 * before an output phase: a sum's one pass reads the row from memory in large launches
	 * (W = 32 0.99-1.03). W = 32 against W = 16, two threads, rmsnorm, layernorm,
	 * add_layernorm f32 at 4096 and 65536 columns: 0.85-0.97, add_layernorm at 256x65536 and
	 * 1024x4096 level (bench/NOTES.md session 22). A 16-bit vector holds as many elements in
	 * half the bytes, so its chain is as long as an f32 row's: rmsnorm and layernorm bf16 and
	 * f16 at 4096 and 65536 columns 0.78-0.97 of the time (medians of three runs), rmsnorm
	 * bf16 1024x4096 and layernorm bf16 at W = 64 S=regs level (0.85-1.08; session 23). Not
	 * on 16-bit rows read with another: add_layernorm's first pass converts two rows in and
	 * one out per add (W = 32 1.03-1.09x W = 16's time at 1024x4096, 4096x4096, 256x65536).
	 * 16-bit rows leave CPU_CHAIN_HIDDEN_16 adds free: at 1024 columns (64 adds at W = 16)
	 * layernorm bf16 and f16 at W = 32 took 0.89-0.95 of W = 16's time, in cache and from
	 * memory, two threads (session 24), where the f32 norms had measured 0.86-1.01. */
	double chains = fmin(ceil(W / lanes), CPU_CHAINS_USEFUL);
	double chain_adds = f->chunks_per_worker * l->vec * ceil(W / lanes) / chains;
	double hidden = elem >= 4 ? CPU_CHAIN_HIDDEN : CPU_CHAIN_HIDDEN_16;
	double chain_ns = fmax(0, chain_adds - hidden) * K(cpu_chain_ns);
	/* An exp, log or tanh is a polynomial of a dozen vector operations, evaluated once per
	 * vector of lanes: at W = 1 or 2 each evaluation serves one or two elements, and rows of
	 * a few elements are bound by them. softmax and cross_entropy f32 over rows of 3-33
	 * elements (AVX-512, two threads, R = 64) ran 1.4-4.7x longer at W = 1 than at W = 4 and
	 * 1.6-2.9x at W = 2, about 2.7 ns more per evaluation, where rmsnorm ran 0.7-1.5x; W = 8
	 * ran 0.91-1.72x W = 4's time (bench/NOTES.md session 37 CPU). Charged to the vectors of
	 * one or two lanes alone: from four lanes on, the pack's issue time prices it. */
	double heavy_ns = lanes < 4 ? elem_transcendentals(req->kernel) * f->chunks_per_worker * W *
	                                  l->vec / lanes * K(cpu_transcendental_ns)
	                            : 0;
	/* The per-row code calls libm for a row's scalar exp, log, tanh, max and min as the rows
	 * as lanes do, once a row whatever W: cross_entropy's log. Uncharged, W = 4 was priced
	 * 7.4 ns a row at 65536x8 where it measured 14.9 and the lanes 6.6, and kept its rows of
	 * 7 and 8 (bench/lab/s61-cpu/notes.md, "Rows of 9-16 and cross_entropy's W = 4"). */
	double row_ns = pass_ns + later_ns + heavy_ns +
	                scalar_libm_calls(req->kernel) * K(cpu_transcendental_ns);
	if (io->row_outputs > 0 && req->kernel->analysis.level && chain_ns > issue_ns &&
	    (elem >= 4 || io->row_inputs == 1))
		row_ns += chained_rounds(req->kernel) * (chain_ns - issue_ns);
	if (rr__cpu_rows_as_lanes(r))
		row_ns = cpu_lanes_row_ns(k, req, io);
	double groups_per_thread = ceil(f->groups / threads);
	f->groups_per_sm = 1;
	f->registers_per_thread = f->slots * io->kept;
	f->waves = f->groups / threads;
	f->tail_efficiency = f->waves / ceil(f->waves);
	f->serial_steps = ceil(f->chunks_per_worker / U) * W;
	f->bandwidth_efficiency = fmin(1, f->groups / threads);
	f->memory_us =
	    f->dram_bytes / (threads * K(cpu_bandwidth_per_thread) * f->bandwidth_efficiency) * 1e6;
	f->latency_us = groups_per_thread * (l->rows_per_group * row_ns + K(cpu_group_ns)) / 1000;
	f->launch_us = K(cpu_launch_us);
}

/* ---------------------------------------------------------------- entry points */

/* Whether an S=grid launch has more blocks than SMs where one block an SM (the largest power
 * of two C with rows · C <= SMs) would still keep its segment of the row in shared memory. */
static int grid_one_block_keeps(const rr__plan_request *req, const rr_layout *l,
                                const rr__plan_features *f)
{
	const rr__target *t = req->target;
	double sms = t->multiprocessors > 0 ? t->multiprocessors : 1;
	if (f->groups <= sms || f->rows > sms || t->smem_per_group <= 0)
		return 0;
	double C = 1;
	while (f->rows * C * 2 <= sms)
		C *= 2;
	int64_t segment =
	    rr__block_segment(req->cols, (int)C, l->vec, (int)rr_dtype_size(req->dtype));
	return block_keeps(req, f->kept_inputs, (double)segment);
}

/* One-element 16-bit packs of two row inputs at fewer workers than a warp (gpu_measured_factor). */
#define GPU_PAIR_HALF_WARP_FACTOR 1.35
/* 16-byte packs of a 16-bit online pair's row on half a warp (gpu_measured_factor). */
#define GPU_ONLINE_HALF_WARP_FACTOR 1.06

/* Corrections the second round of H200 sweeps measured and the terms above do not capture
 * (bench/NOTES.md, "sweeps after the first recorded run"); each factor is a coefficient, the
 * hand value first, now fitted per device class:
 * - one group per R rows beat a persistent grid on every unclustered shape (layernorm f32
 *   16384x4096: 133 against 139 µs; add_layernorm: 262 against 281), clusters excepted;
 * - fewer than 4 packs per worker wastes a wide group (layernorm f32 16384x4096: W = 128 with
 *   8 packs 131 µs, W = 512 with 2 packs 168, W = 1024 with 1 pack 295);
 * - groups of several rows lose on launches of few rows, where every row can have a group
 *   of its own (layernorm f32 17x257: R = 32 7.8 µs, R = 1 2.7 µs);
 * - a row one block can keep in shared memory runs faster there than over a cluster (rmsnorm
 *   f32 4096x32768: W = 1024 smem 271 µs, C = 2 cluster 392). */
static double gpu_measured_factor(const rr__cost_coeffs *k, const rr__plan_request *req,
                                  const rr__realisation *r, const io_facts *io,
                                  const rr__plan_features *f)
{
	const rr_layout *l = &r->layout;
	double factor = 1;
	/* The other side of smem_pair_overlaps: such rows kept in registers by one block an SM,
	 * over two waves or more, load, reduce and store each row with nothing else on the SM to
	 * fill the gaps between its phases (the measurements there: 1.06-1.07x the time of the
	 * shared-memory keep, where the model had them level or ahead). */
	if (l->storage == RR_STORAGE_REGS && l->blocks_per_row == 1 && f->groups_per_sm <= 1 &&
	    f->waves >= 2 && io->row_outputs > 0 && io->kept > 0 && pair_rows_16bit(req, io) &&
	    req->cols >= 8192)
		factor *= GPU_LONE_PAIR_BLOCK_FACTOR;
	if (l->grid == RR_GRID_PERSISTENT && l->blocks_per_row == 1)
		factor *= K(gpu_persistent_factor);
	/* Both pack-count factors come from sweeps of launches of many waves; on fewer groups
	 * than SMs the element terms of gpu_features count a worker's packs instead. A block of
	 * one row and at most 128 workers is not wasted by fewer packs: on f32 rows of 1023 the
	 * H200 ran W = 128, V = 4 (two packs a worker) in 21.0 us where layernorm's W = 32 pick
	 * (eight) took 25.1, rmsnorm in 18.5-19.1 against W = 32's 21.0-22.3 (bench/NOTES.md,
	 * session 31), while the factor priced them 1.6x. */
	int narrow_block = l->blocks_per_row == 1 && l->workers_per_row <= 128;
	if (!f->few_groups && f->chunks_per_worker < 4 && l->workers_per_row > 32 &&
	    !narrow_block && req->cols >= (int64_t)l->workers_per_row * l->vec &&
	    !rr__plain_stream(req, l))
		factor *= 1 + K(gpu_few_packs_factor) * (4 - f->chunks_per_worker);
	if (l->rows_per_group > 1 && (l->rows_per_group > f->rows || f->rows <= 256))
		factor *= K(gpu_few_rows_factor);
	/* Blocks of several short rows: past 256 threads a block, fewer blocks an SM share its
	 * rows' loads and stores, and each waits for its slowest warp before the next starts.
	 * The H200 ran 512 threads 1.04-1.06x and 1024 threads 1.02-1.08x the time of 128-thread
	 * blocks of the same W (layernorm f32 131072x64 R = 256 against 32 1.083, bf16 R = 128
	 * against 32 1.057, f32 65536x128 R = 128 against 16 1.023; softmax bf16 65536x128 W = 16,
	 * R = 32 against 8 1.061, R = 16 1.014). Priced at 256 and 1023 columns as well, it moved
	 * layernorm bf16 65536x256 to R = 4 (1.17x) and rmsnorm bf16 8191x1023 to R = 16 (1.24x):
	 * rows of at most 128 elements (bench/NOTES.md session 24). */
	if (l->rows_per_group > 1 && !f->few_groups && f->threads_per_group > 256 &&
	    req->cols <= ROW_BLOCK_COLS)
		factor *= 1 + GPU_ROW_BLOCK_FACTOR * log2_of(f->threads_per_group / 256);
	/* Wider f32 rows too, where one block keeps every value the kernel keeps in shared
	 * memory: add_layernorm f32 1000x50265 (h = x + r, 201 KB) ran C = 4 in registers in 1.31x
	 * the time of the block's 282 µs, layernorm f32 1.63x; in bf16 the clusters ran level with
	 * the block (add_layernorm C = 2 162 µs against 165; bench/NOTES.md session 26). Only on
	 * rows enough for four blocks an SM: on fewer, a cluster is what spreads them over the
	 * device. */
	double sms = req->target->multiprocessors > 0 ? req->target->multiprocessors : 1;
	int block_holds_f32_row = rr_dtype_size(req->dtype) >= 4 && f->rows >= 4 * sms &&
	                          block_keeps(req, f->kept_values, (double)req->cols);
	/* Not on 16-bit rows of two inputs whose f32 keep leaves one block alone on its SM: there
	 * the H200 ran add_layernorm bf16 4096x32768 (h = x + r, 128 KB) over clusters of two
	 * 256-thread blocks keeping their halves in shared memory, three an SM, in 0.88x the
	 * block's time (293 against 334 us; the clusters keeping theirs in registers 0.93-1.01x), where
	 * rmsnorm, layernorm, softmax and add_layernorm f32 at that shape ran their clusters
	 * 1.06-1.17x the block's (bench/NOTES.md session 32). */
	int lone_pair_block =
	    pair_rows_16bit(req, io) && r->keep == RR_KEEP_SMEM &&
	    block_keeps(req, f->kept_values, (double)req->cols) &&
	    fmax(1, f->kept_values) * req->cols * 4 > 0.5 * (double)req->target->smem_per_group;
	if (l->blocks_per_row > 1 && (req->cols <= 32768 || block_holds_f32_row) && !lone_pair_block)
		factor *= K(gpu_cluster_short_row_factor);
	/* One-element packs of 16-bit rows read two at a time (add_layernorm) at 8 <= W < 32, two
	 * rows or more a warp: the H200 ran W = 16 1.27-1.35x the time of W = 32 (bf16 and f16 65535x127,
	 * 29.1-30.2 against 22.9 us; bf16 32767x255 32.0 against 23.8; session 32), where the
	 * one-input kernels ran W = 16 faster at 127 columns (session 31). */
	if (pair_rows_16bit(req, io) && l->vec == 1 && l->workers_per_row >= 8 &&
	    l->workers_per_row < (req->target->warp_size > 0 ? req->target->warp_size : 32))
		factor *= GPU_PAIR_HALF_WARP_FACTOR;
	/* A 16-bit row of an online pair (softmax, cross-entropy) on half a warp, in 16-byte packs,
	 * past 512 elements, where the model had W = 16 ahead by its shorter tree: the H100 ran
	 * the W = 32, R = 1 plans this factor picks for softmax bf16 in 0.945x the time of the W =
	 * 16 picks at 8191x1023 (13.55 against 14.34 µs), 0.977x at 8192x1024 and 0.870x at
	 * 12000x999 (against W = 16, R = 4 re-reading; A B B A, bench/results/
	 * 2026-12-06-h100-online-half-warp-s56), the H200 W = 32, U = 4 0.94x at 8191x1023
	 * (sessions 24 and 26); its other moved picks 0.909-0.990 on the H100, 1024x777 and
	 * 4000x1000 among them (bench/results/2026-12-07-h100-plans-s57). At 1.03 it moved no
	 * pick; at 1.10 it moves cross_entropy at 1023-1024 columns too, not measured. */
	if (rr_dtype_size(req->dtype) == 2 && req->kernel->analysis.online_rewrites > 0 &&
	    l->workers_per_row == 16 && l->vec * rr_dtype_size(req->dtype) == 16 && req->cols > 512)
		factor *= GPU_ONLINE_HALF_WARP_FACTOR;
	/* A cluster a row against clusters that loop over rows: 1.04-1.18x the time on the H200
	 * (softmax, rmsnorm, layernorm f32 at 65536-262144, W = 512 in registers and W = 1024 in
	 * shared memory; bench/NOTES.md session 13). */
	if (l->storage == RR_STORAGE_CLUSTER && l->grid == RR_GRID_ROWS && f->waves > 1)
		factor *= K(gpu_cluster_rows_factor);
	if (l->vec * rr_dtype_size(req->dtype) > 16) /* packs wider than one 16-byte access */
		factor *= K(gpu_wide_pack_factor);
	/* A kernel of three phases (LayerNorm's mean, variance, output) re-reading its row twice:
	 * each re-read waits on the barrier before it, which the re-read term does not price. The
	 * H200 measured rows kept in one block's shared memory 1.2-2.1x faster than the re-read
	 * the model picked (layernorm and add_layernorm f32 and bf16, 1000x50265 and 512x32003,
	 * bench/NOTES.md 2026-12-01 session 9). */
	if (f->passes >= 3)
		factor *= K(gpu_reread_twice_factor);
	/* S=grid meets at a barrier every round: a kernel of two rounds or more (LayerNorm) ran
	 * faster with one block an SM than with two (layernorm f32 16x128257 on the H200: C = 8,
	 * W = 1024 13.0 µs; C = 16-64 16.4-17.4; bench/NOTES.md 2026-12-01 session 10), while
	 * one round (RMSNorm) ran faster at C = 16-32 (11.0-11.2 µs against 12.6 at C = 8). Only
	 * where one block an SM could still keep its segment of the row on chip: otherwise more
	 * blocks are what keeps it there (add_layernorm f32 7x777777: C = 64 59.6 µs, C = 16
	 * re-reading 66.7). */
	if (grid_rounds(l, f) && grid_one_block_keeps(req, l, f))
		factor *= K(gpu_grid_shared_sm_factor);
	return factor;
}

/* A wave of S=grid row groups after the first, per round (rr__cost_features). */
#define GPU_GRID_WAVE_ROUND_US 3.0
/* Headed 16-bit S=grid kernels of two rounds with more blocks than SMs (features_of). */
#define GPU_GRID_HEADED_16BIT_FACTOR 1.3
/* A mailbox cluster of fewer than six blocks an SM, and one of six or more (features_of). */
#define GPU_MAILBOX_FEW_BLOCKS_FACTOR 1.06
#define GPU_MAILBOX_MANY_BLOCKS_FACTOR 0.94

/* Blocks of S=grid holding fewer elements of a row than this rank as narrow clusters do. */
#define GRID_NARROW_ELEMENTS 2048

/* Rows from this many elements on are plain streams (rr__plain_stream) when the kernel is one. */
#define PLAIN_STREAM_COLS 4096
/* A plain stream takes U = 8 from this many packs a worker on (rr__plain_stream_deep): sum bf16
 * 512x32003 at W = 512 (8 packs) ran U = 8 1.19x the time of U = 4 (bench/NOTES.md session 24). */
#define PLAIN_STREAM_U8_PACKS 16

/* The realisation of `layout` for the request. */
static rr_status realise(const rr__plan_request *req, const rr_layout *layout, rr__realisation *r)
{
	if (!rr__layout_is_complete(layout) || req->cols < 1)
		return RR_ERR_INVALID_ARG;
	rr_status status =
	    req->facts
	        ? rr__realise_with(req->facts, req->dtype, req->cols, layout, req->target, r)
	        : rr__realise(req->kernel, req->dtype, req->cols, layout, req->target, r);
	if (status == RR_OK)
		rr__realisation_for_rows(r, req->rows);
	return status;
}

/* The features of a realised layout. */
static void features_of(const rr__plan_request *req, const rr__realisation *r,
                        rr__plan_features *features)
{
	io_facts io;
	const rr_layout *layout = &r->layout;
	int gpu = req->target->kind == RR_TARGET_GPU;
	rr__cost_coeffs own;
	const rr__cost_coeffs *k = req->coeffs;
	if (!k) { /* the planner resolves them (and reports a bad file); a lone call here */
		(void)rr__cost_coeffs_for(req->target, &own);
		k = &own;
	}
	io_facts_of(req->kernel, r, &io);
	common_features(req, r, &io, features);
	if (gpu)
		gpu_features(k, req, r, &io, features);
	else
		cpu_features(k, req, r, &io, features);
	double slow = fmax(features->memory_us, features->latency_us);
	double fast = fmin(features->memory_us, features->latency_us);
	/* Memory and latency overlap, but not perfectly; under S=grid not at all: every wave of
	 * row groups loads, meets at its barrier and stores in turn (rmsnorm f32 4x2097152 on the
	 * H200: C = 128 in 4 waves 37.2 µs, C = 64 in 2 waves 30.4, bench/NOTES.md 2026-12-01). */
	double overlap = layout->storage == RR_STORAGE_GRID ? 1 : K(overlap);
	features->predicted_us = features->launch_us + slow + overlap * fast +
	                         K(tree_weight) * features->tree_us + features->head_us +
	                         features->trips_us;
	/* S=grid rows in waves of row groups: each wave after the first
	 * loads, meets at every round's barrier and stores before the next starts, ~3 µs a round
	 * that neither term above sees (H200: layernorm bf16 4x2097152 in four waves 37.6 µs, in
	 * one 17.7; add_layernorm f32 3x2097152 in three 54.6, in one 41.0; bench/NOTES.md
	 * session 27). One-round kernels are charged one round's wait (session 29), but not
	 * grid_regs_beyond_l2's. */
	if (gpu && layout->storage == RR_STORAGE_GRID && features->waves > 1 &&
	    !grid_regs_beyond_l2(req, r, &io, features))
		features->predicted_us += (ceil(features->waves) - 1) * fmax(1, features->rounds) *
		                          GPU_GRID_WAVE_ROUND_US;
	/* A launch in a single wave of an online reduction without row outputs (cross-entropy)
	 * over short rows, whose workers load in several dependent steps (U chunks at a time),
	 * has no other group to hide a step behind: each step after the first waits outside the
	 * memory/latency overlap. The H200 measured cross_entropy bf16 65536x128 at W = 2, U = 4
	 * (two steps) 7.85 µs against W = 4 (one) 6.63, 131072x64 f32 W = 2, U = 2 (four steps)
	 * 12.71-13.24 against W = 8, U = 2 10.04; priced, its picks at 64-128 columns ran
	 * 0.78-1.00x the time of those before. On sum's short rows, on 255-321 columns and on
	 * long rows the same term moved picks to 1.02-1.29x (bench/NOTES.md sessions 23-24). */
	if (gpu && features->waves <= 1 && !features->few_groups && features->serial_steps > 1 &&
	    layout->blocks_per_row == 1 && req->cols <= SINGLE_WAVE_STEP_COLS &&
	    req->kernel->analysis.online_rewrites > 0 && io.row_outputs == 0)
		features->predicted_us += (features->serial_steps - 1) * GPU_SINGLE_WAVE_STEP_US;
	features->additive_us = features->predicted_us;
	/* More than 8 packs per worker is outside what the H200 sweeps measured (bench/NOTES.md);
	 * the model's latency terms are not trusted there, so such layouts rank last unless
	 * nothing else is legal. */
	if (gpu && features->chunks_per_worker > 8 && layout->workers_per_row < 1024 &&
	    !features->few_groups && !features->cluster_in_registers && !features->raw_streams &&
	    !rr__online_stream(req, layout) && !rr__plain_stream(req, layout) &&
	    !odd_scalar_stretch(req, &io, layout, features))
		features->predicted_us *= K(gpu_many_packs_factor);
	/* A cluster pays cluster-wide barriers per round; it is for rows one block cannot hold.
	 * S=grid's blocks meet through L2 whatever their number: on the wide rows where it is
	 * preferred (one row of 131073 f32) the H200 measured C = 64 (2048 elements a block)
	 * fastest for rmsnorm and layernorm, and C = 16-32 level on 16 rows of 128257
	 * (bench/NOTES.md 2026-12-01 session 9); narrower rows keep the clusters' bound. */
	if (layout->blocks_per_row > 1 &&
	    req->cols / layout->blocks_per_row <
	        (layout->storage == RR_STORAGE_GRID && req->cols > RR__GRID_WIDE_COLS
	             ? GRID_NARROW_ELEMENTS
	             : 8192))
		features->predicted_us *= K(cluster_narrow_factor);
	if (gpu)
		features->predicted_us *= gpu_measured_factor(k, req, r, &io, features);
	if (gpu && features->raw_streams && raw_stream_starved(r, features))
		features->predicted_us *= K(gpu_staged_lone_factor);
	/* The headed entry of a 16-bit S=grid kernel of two rounds keeps more than the model counts
	 * (ptxas: 111-135 registers at W = 256-512 where the aligned entry takes 74-80), so past
	 * one block an SM its row groups do not all fit at once and loop: layernorm bf16 16x128257
	 * and 16x100003 ran C = 8 in 0.63x the time of C = 16, 4x500001 C = 32 0.62x C = 64,
	 * 3x1000001 0.90x; aligned 16x131072 level (bench/NOTES.md session 25). */
	if (gpu && layout->storage == RR_STORAGE_GRID && features->rounds >= 2 &&
	    r->head_slots > 0 && rr_dtype_size(req->dtype) < 4 &&
	    grid_one_block_keeps(req, layout, features))
		features->predicted_us *= GPU_GRID_HEADED_16BIT_FACTOR;
	/* Mailbox clusters streaming raw keeps, in kernels of two rounds or more: with blocks of
	 * 32 KB, six an SM, the H200 ran layernorm bf16 at 131072 with C = 8, W = 256 in
	 * 0.87-0.89x the time of C = 4 (three blocks of 64 KB an SM), and at 65536 one block's
	 * shared memory in 0.93x that of C = 2. Priced for one round as well, softmax bf16
	 * 512x131072 moved to a re-read 1.06x slower; C = 16 to reach six at 262144 ran 1.01-1.02x
	 * C = 8's time (bench/NOTES.md session 18). */
	if (gpu && features->raw_streams && rr__cluster_mailbox(r) && layout->blocks_per_row < 8 &&
	    features->groups_per_sm < 6 && features->rounds >= 2 && req->cols >= 65536)
		features->predicted_us *= GPU_MAILBOX_FEW_BLOCKS_FACTOR;
	/* And in kernels of one round (softmax: its online pair combines through a mailbox), where
	 * the factor above does not apply, blocks of 32 KB, six an SM, ran softmax at 131072 in
	 * 0.95-0.97x the time of C = 4's 64 KB blocks (bf16 and f16, 512-2048 rows), 0.88-0.90x
	 * that of C = 4 or a re-read on 64-256 rows; at 65536, C = 4 against C = 2 1.01x (bench/
	 * results/2026-12-03-h200-softmax-picks-s20). */
	if (gpu && features->raw_streams && rr__cluster_mailbox(r) && features->rounds == 1 &&
	    features->groups_per_sm >= 6 && req->cols >= 131072)
		features->predicted_us *= GPU_MAILBOX_MANY_BLOCKS_FACTOR;
}

void rr__plan_features_compute(const rr__plan_request *req, const rr_layout *layout,
                               rr__plan_features *features)
{
	rr__realisation r;
	memset(features, 0, sizeof *features);
	if (realise(req, layout, &r) != RR_OK) {
		features->predicted_us = INFINITY; /* nothing to predict for an unfinished layout */
		return;
	}
	features_of(req, &r, features);
}

double rr__cost_realised(const rr__plan_request *req, const rr__realisation *r)
{
	rr__plan_features features;
	memset(&features, 0, sizeof features);
	features_of(req, r, &features);
	return features.predicted_us;
}

double rr__cost_default(const rr__plan_request *req, const rr_layout *layout, void *ctx)
{
	rr__plan_features features;
	(void)ctx;
	rr__plan_features_compute(req, layout, &features);
	return features.predicted_us;
}

/* A one-round reduction on the GPU that writes no row output, laid out one block a row without
 * S=grid: what rr__online_stream and rr__plain_stream have in common. Its packs a worker in
 * *packs. */
static int one_pass_reader(const rr__plan_request *req, const rr_layout *layout, int64_t *packs)
{
	const rr_kernel *kernel = req->kernel;
	if (!kernel || !kernel->analysis.level || req->target->kind != RR_TARGET_GPU ||
	    kernel->analysis.rounds != 1 || layout->rows_per_group != 1 ||
	    layout->blocks_per_row != 1 || layout->storage == RR_STORAGE_GRID ||
	    layout->workers_per_row < 1 || layout->vec < 1)
		return 0;
	for (int j = 0; j < kernel->n_outputs; j++)
		if (kernel->outputs[j].kind == RR_KIND_ROW)
			return 0;
	int64_t span = (int64_t)layout->workers_per_row * layout->vec;
	*packs = (req->cols + span - 1) / span;
	return 1;
}

/* Whether the aligned body of a one-pass reader is unrolled whole (cuda_emit_row.c,
 * unroll_aligned: 16-bit rows in blocks of one row, fewer than 16 complete chunks a worker, every
 * row starting on a 16-byte boundary) on rows for four blocks an SM or more (or rows unknown).
 * There U = 8 is slower than U = 4: sum bf16 4096x32000 60.83 µs against 59.07, cross_entropy
 * bf16 4096x32000 72.56 against 64.63, and the picks without U = 8 ran 0.93-0.997 of the time
 * on 1024-8192 rows; its registers cost the blocks an SM holds. On a block an SM the deeper U
 * keeps more loads in flight: cross_entropy bf16 128x32000 at U = 8 5.37 µs, the pick without
 * it 6.47; 512 rows were level (bench/NOTES.md session 34). */
static int aligned_body_unrolled(const rr__plan_request *req, const rr_layout *layout)
{
	size_t size = rr_dtype_size(req->dtype);
	int64_t span = (int64_t)layout->workers_per_row * layout->vec;
	return size < 4 && ((int64_t)size * req->cols) % 16 == 0 && req->cols / span < 16 &&
	       (req->rows <= 0 || req->rows >= 4 * (int64_t)req->target->multiprocessors);
}

int rr__online_stream(const rr__plan_request *req, const rr_layout *layout)
{
	int64_t packs;
	return one_pass_reader(req, layout, &packs) && req->kernel->analysis.online_rewrites > 0 &&
	       layout->unroll == 8 && req->cols >= 16384 && packs >= 16 && packs <= 32 &&
	       !aligned_body_unrolled(req, layout);
}

int rr__plain_stream(const rr__plan_request *req, const rr_layout *layout)
{
	int64_t packs;
	return one_pass_reader(req, layout, &packs) && plain_kernel(req) &&
	       req->cols >= PLAIN_STREAM_COLS;
}

int rr__plain_flat(const rr__plan_request *req, const rr_layout *layout)
{
	if (req->target->kind != RR_TARGET_GPU || !plain_kernel(req) ||
	    layout->blocks_per_row != 1 || layout->storage == RR_STORAGE_GRID ||
	    layout->workers_per_row < 1 || layout->vec < 1 || req->cols >= PLAIN_STREAM_COLS)
		return 0;
	int64_t span = (int64_t)layout->workers_per_row * layout->vec;
	int64_t packs = (req->cols + span - 1) / span;
	return packs > 4 && packs <= 8 &&
	       (layout->rows_per_group == 1 || req->cols <= PLAIN_FLAT_ROWS_COLS);
}

int rr__plain_stream_deep(const rr__plan_request *req, const rr_layout *layout)
{
	int64_t packs;
	return rr__plain_stream(req, layout) && one_pass_reader(req, layout, &packs) &&
	       packs >= PLAIN_STREAM_U8_PACKS && !aligned_body_unrolled(req, layout);
}

int rr__cost_raw_streams(const rr__plan_request *req, const rr__realisation *r)
{
	io_facts io;
	io_facts_of(req->kernel, r, &io);
	return raw_streams(req, r, &io);
}

double rr__cost_resident_groups(const rr__plan_request *req, const rr_layout *layout)
{
	if (req->target->kind != RR_TARGET_GPU)
		return req->target->multiprocessors > 0 ? req->target->multiprocessors : 1;
	rr__realisation r;
	if (realise(req, layout, &r) != RR_OK)
		return 0;
	io_facts io;
	rr__plan_features features;
	memset(&features, 0, sizeof features);
	io_facts_of(req->kernel, &r, &io);
	common_features(req, &r, &io, &features);
	gpu_occupancy(req, &r, &io, &features);
	return features.groups_per_sm *
	       (req->target->multiprocessors > 0 ? req->target->multiprocessors : 1);
}
