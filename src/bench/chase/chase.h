/* The pointer chase (memory.latency.*), shared between its files: the
 * memory paths, the sweep plan and the run's context. The staircase is a
 * kernel sweep (core/ksweep.h) whose description chase.c fills. */
#ifndef GC_BENCH_CHASE_H
#define GC_BENCH_CHASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench.h"
#include "core/ksweep.h"
#include "kgen/kgen.h"
#include "model/cache.h"

enum chase_path {
    PATH_GLOBAL,
    PATH_L2,
    PATH_READONLY,
    PATH_TEXTURE,
    PATH_CONSTANT,
    PATH_SHARED,
    PATH_PRIVATE,
    PATH_TLB,
    PATH_L2_PARTITION,
};

/* The top of a path's footprints (struct chase_axis). */
enum chase_top {
    /* A few times the largest cache: on GPUs 2x the L2 (3x quick, 4x
     * full) within 16 MiB .. 2 GiB (256 MiB where the L2 is unknown); on
     * CPUs 4x the last-level cache within 4 MiB and 32 MiB / 64 MiB / 1 GiB
     * by profile. At most top_bytes where that is set, the largest allocation
     * and half the memory. */
    TOP_CACHES,
    /* top_bytes. */
    TOP_FIXED,
    /* The per-block shared-memory limit; on CPUs at most top_bytes. */
    TOP_SHARED,
    /* Pages enough for the TLBs: on GPUs 4 / 16 / 64 GiB, on CPUs 64 MiB /
     * 256 MiB / 1 GiB by profile, at most the largest allocation and half
     * the memory. */
    TOP_PAGES,
};

/* A path's axis as data: footprints from lo to the top its rule gives, a
 * geometric grid (gc__ksweep_grid) of 2 / 4 / 8 steps per octave by
 * profile, elements spacing bytes apart. */
struct chase_axis {
    size_t spacing_gpu, spacing_cpu; /* 0: a cache line (128 B on GPUs, the CPU's line) */
    size_t lo;                       /* bytes; 0: 16 elements */
    enum chase_top top;
    size_t top_bytes; /* see enum chase_top; 0: none */
    bool paged;       /* one element per page at a random line of it */
};

struct chase_def {
    enum chase_path path;
    bool cuda_only;
    struct chase_axis axis;
};

/* Dependent loads in one trip of the timed loop: the loop's counter and
 * branch run beside the chain, which is the only dependence. */
/* Dynamic shared memory of the L1 paths' launches. A kernel with no shared
 * memory at all is given a 32 KiB carve-out on sm_90 whatever the
 * preference (its L1 then starts to miss at 218 KiB on an H100); with a
 * little, the driver takes the smallest non-zero carve-out, 8 KiB (misses
 * from 242 KiB), the largest L1 the SM can have. */
#define CH_L1_DYN 1024

#define CHASE_UNROLL 32
/* Dependent loads per timed segment on CUDA (one clock64 reading each). */
#define CHASE_SEG_LOADS 2048
/* Cycle path: footprints of at least this many elements are warmed by the
 * block's CHASE_TOUCH_THREADS threads touching the chain in its order
 * (gc__chase_gen) rather than by one thread walking it: the walk costs a
 * DRAM latency per element (0.5 s for 180 MiB of 128-byte lines). Below
 * it (1 MiB of lines) the walk costs less than the launch. */
#define CHASE_TOUCH_MIN 8192
#define CHASE_TOUCH_THREADS 256
/* Event path: timed loads of the short launch (the long one has twice as
 * many); the difference of their times cancels launch overhead and the
 * warm-up pass. */
#define CHASE_CL_LOADS 32768
/* CPUs: launches through a host runtime jitter by tens of microseconds, so
 * the chase must last milliseconds for the difference to stand out: the
 * short launch's timed loads are as many as last CHASE_CL_CPU_TIMED_S at
 * the latency of the nearest smaller footprint measured, at most
 * CHASE_CL_CPU_LOADS (the first footprint's, and what the smallest
 * footprints' ~1.5 ns loads take 0.8 ms for), at least
 * CHASE_CL_CPU_MIN_LOADS. */
#define CHASE_CL_CPU_LOADS (1 << 19)
#define CHASE_CL_CPU_TIMED_S 2e-3
#define CHASE_CL_CPU_MIN_LOADS 8192
/* Event path: sampling stops after the least samples once this many seconds
 * of them are in (the engine's time cap, lowered). */
#define CHASE_CL_SAMPLING_S 0.3
/* ... and on CPUs the least samples there: launches of a tenth of a second
 * (footprints at DRAM latency, the warm pass included) reach the sampling
 * time in three samples; short ones still take samples until it (the spread
 * rule is off for them). */
#define CHASE_CL_MIN_SAMPLES 3
/* The launch overhead that the OpenCL difference implies may be at most this
 * share of the short kernel's time: a launch costs microseconds (50-120 at
 * the median through PoCL on a Xeon) against the short kernel's
 * milliseconds, so a larger overhead means that the two kernels ran in
 * different modes and the difference is too small. Where a consistent pair
 * is turned down, the bound that stands instead reads o / (m + 2L) high:
 * about 5% at L1 on that Xeon, less at slower levels. */
#define CHASE_CL_MAX_OVERHEAD 0.10
/* Per-thread array of the private path: its largest footprint. */
#define CHASE_PRIVATE_BYTES 4096
/* Most footprints in one sweep, refinement included. */
#define CHASE_MAX_POINTS 256
/* Adaptive refinement: an interval between two measured footprints is split
 * while the latency changes across it by more than this factor (GPUs; CPU
 * staircases are noisier) and it is wider than CHASE_REFINE_WIDTH, so that
 * eq. 6 is fitted with points on each step. */
#define CHASE_REFINE_JUMP_GPU 0.05
#define CHASE_REFINE_JUMP_CPU 0.15
#define CHASE_REFINE_WIDTH 0.03
/* Event path: the planned sweep measures every CHASE_COARSE_STRIDE-th
 * footprint of its grid first (half-octave steps in the default profile),
 * then bisects, down to the grid's step, the stretches whose ends differ by
 * more than CHASE_COARSE_JUMP: below the plateau tolerance of the level
 * detection (12%), so that a stretch left coarse has every footprint of it
 * on one plateau, and above the few % of noise between a CPU's points. */
#define CHASE_COARSE_STRIDE 2
#define CHASE_COARSE_JUMP 0.08
/* Fewer coarse points than this: the whole grid (the level detection asks
 * for plateaus of three points only from 12 planned points on). */
#define CHASE_COARSE_MIN_POINTS 12

struct kspec {
    enum chase_path path;
    enum gc_dialect d;
    /* The cycle path: inline-PTX loads, clock64 between segments (devices
     * with GC_CAP_INLINE_ASM, CLOCK64 and GLOBALTIMER); else plain loads
     * timed by the launch's events. */
    bool clocks;
    int loads;              /* timed loads per segment (clocks) or in all (events) */
    int nseg;               /* timed segments (clocks) */
    const uint32_t *cwords; /* constant path with clocks: the chain as data */
    size_t ncwords;
};

/* Words of one block's record in the every-SM chase: final element, %smid,
 * %globaltimer at the start and end of the timed loads, clock64 at the
 * start, then clock64 after each segment. */
#define ALL_REC_HEAD 5

/* The largest constant chain a program's own constant array holds where
 * the dialect also passes constant buffers (OpenCL): half of a 64 KiB bank,
 * which it shares with the compiler's other constant data. */
#define CHASE_CONST_ARRAY_MAX ((size_t)32 << 10)

struct plan {
    size_t fp[CHASE_MAX_POINTS]; /* footprints, bytes */
    int n;
    size_t spacing; /* bytes between consecutive elements (a line or a page) */
    size_t line;    /* cache line assumed (tlb: element offset granule in a page) */
    bool paged;     /* tlb: one element per page at a random line of it */
    size_t esize;   /* element bytes: 8 (global family) or 4 (the others) */
    size_t bytes;   /* buffer bytes */
    size_t llc;     /* largest cache known (sweep extent), 0 unknown */
};

struct chase_ctx {
    struct gc_session *s;
    struct gc_bench_result *r;
    enum chase_path path;
    struct plan pl;
    bool clocks; /* the cycle path (struct kspec) */
    int nseg;    /* clocks: timed segments per launch */
    int loads;   /* clocks: loads per segment; else the short launch's most */
    struct gc_kreq *reqs;
    int nreq;
    struct gc_kern *install;
    struct gc_buf *buf, *out, *pairs, *words;
    size_t bytes; /* what buf holds: the plan's largest footprint, or more */
    uint64_t tex;
    /* CUDA L1 paths: the chase kernel asked for the largest L1 (carve-out
     * preference 0); carveout_err holds why not where that failed. */
    bool carveout;
    char carveout_err[160];
    /* The every-SM chase (memory.latency.l2 on CUDA). */
    struct gc_kern *all;
    struct gc_buf *all_out;
    int nsm;
};

/* ---- gen.c: the chain */

/* The element reached from element start after steps steps along a cycle
 * of length m through it, by walking the cycle (steps % m of them). */
uint32_t gc__chase_walk_from(const uint32_t *next, uint32_t start, size_t m, uint64_t steps);

/* The element reached after steps steps from element first, the first
 * element of a cycle of m in a chain of n elements in all, looked up in the
 * walk's order stored after the chain (next[n + first + k] is the k-th
 * element from first): what gc__chase_walk_from gives, in one step. */
uint32_t gc__chase_end(const uint32_t *next, size_t n, size_t first, size_t m, uint64_t steps);

/* The element reached from element 0 after steps steps along a chain of
 * one cycle of m elements, from its stored order. */
uint32_t gc__chase_walk(const uint32_t *next, size_t m, uint64_t steps);

/* Index (in elements of esize bytes) of chain element e. */
size_t gc__chase_slot_of(const struct plan *pl, size_t e);

/* The slots of the m elements of a walk's order (the ordered touch's
 * input): ord[k] = gc__chase_slot_of(pl, order[k]). */
void gc__chase_order_slots(const struct plan *pl, const uint32_t *order, size_t m, uint32_t *ord);

/* Puts the chain of footprint fp into the device buffer the kernel reads:
 * one cycle, or `slices` disjoint cycles of fp / spacing / slices elements
 * each (the every-SM chase). Returns the chain (malloc'ed) through *next and
 * its length in all through *m; the m words after the chain are the walks'
 * orders: of one cycle from element 0 (next[m + k] is the k-th element it
 * visits), of slices from each slice's first element (gc__chase_end). */
int gc__chase_install_chain(struct chase_ctx *c, size_t fp, int slices, uint64_t seed,
                            uint32_t **next, size_t *m);

/* The chain of footprint fp as the words the word paths read (random words
 * between the elements); also returns the chain. */
uint32_t *gc__chase_chain_words(const struct plan *pl, size_t fp, uint64_t seed, uint32_t **next,
                                size_t *m);

/* The chain seed of point i of a sweep. */
uint64_t gc__chase_point_seed(const struct gc_session *s, int i);

/* The verifier: checks the kernel's final chain position against the
 * host's walk; records the error and returns GC_EVERIFY when they differ. */
int gc__chase_verify_end(struct chase_ctx *c, uint64_t got, uint64_t want, size_t fp);

/* ---- gen.c: the kernels */

/* Paths that chase 32-bit word indices (constant, shared, private) rather
 * than 64-bit elements of the global family. */
bool gc__chase_words_path(enum chase_path p);

/* The path's name as the benchmark and its metrics spell it. */
const char *gc__chase_path_name(enum chase_path p);

/* The SASS load each CUDA path must compile to (checked per timed loop). */
const char *gc__chase_path_sass(enum chase_path p);

/* The chase kernel of a path. Thread 0 of one block walks: a warm pass of
 * `warm` loads (a whole cycle, so every element is where the footprint puts
 * it), then the timed loads. On the cycle path the global family's kernels
 * also take the chain's order (ord, nord): with nord > 0 the block's threads
 * touch the elements in that order instead (CHASE_TOUCH_MIN) and warm is 0. On CUDA the timed loads
 * are nseg segments with a clock64 reading between them; on the event path the launch is timed by
 * events and its timed loads are trips x CHASE_UNROLL, an argument (the short and the long launch
 * of a footprint are one kernel). The final position is stored for verification. */
char *gc__chase_gen(const struct kspec *k);

/* Writes the chain into the chase buffer: buf[pairs[2i]] = pairs[2i + 1],
 * plus the buffer's own address when reloc is set (CUDA address chase). */
char *gc__chase_gen_install(enum gc_dialect d);

/* The near/far L2 kernel (CUDA): one block per SM (the dynamic shared memory
 * lets only one fit), and only the block on SM `target` works: either a
 * whole pass over the chain through L2 (timed == 0: the touch), or the timed
 * chase. Each working block counts itself in out[2]. */
char *gc__chase_gen_l2part(enum gc_dialect d, int loads);

/* The every-SM chase (CUDA): one block of one warp per SM (the dynamic
 * shared memory lets only one fit), lane 0 of block b chases its own slice
 * of ms elements (a cycle of its own, starting at element b x ms) with
 * ld.global.cg, all SMs at once, so that the whole L2 holds the footprint.
 * Each block warms its slice with one whole pass, then times nseg segments
 * of `loads` dependent loads with its own SM's clock64. */
char *gc__chase_gen_all(enum gc_dialect d, int loads, int nseg, size_t spacing);

/* ---- The staircase as a kernel sweep */

/* On CPUs the refinement stops once it has taken this share of the planned
 * sweep's time: a point of the chase lasts up to a second there. */
#define CHASE_CPU_REFINE_SHARE 0.25

/* The description of a staircase over the footprints fps (core/ksweep.h):
 * on the event path the planned footprints are measured coarse to fine
 * (every CHASE_COARSE_STRIDE-th, then the grid's footprints between them
 * where the latency climbs: gc__coarse_fill_next), on the cycle path all of
 * them; then up to budget more where the latency steps
 * (gc__cache_refine_next on the cycles where the device counts them, else
 * the ns), each a multiple of granule. Value 0 of a point is its cycles per
 * load, value 1 its ns per load; the caller names the series. */
static inline struct gc_ksweep_desc gc__chase_staircase(const struct chase_ctx *c,
                                                        const size_t *fps, int nfp, int budget,
                                                        size_t granule, gc_ksweep_point_fn fn,
                                                        void *u)
{
    bool gpu = c->s->dev->info.type == GC_DEVICE_GPU;

    return (struct gc_ksweep_desc){
        .grid = fps,
        .ngrid = nfp,
        .max_points = CHASE_MAX_POINTS,
        .coarse = gc__coarse_plan,
        .stride = c->clocks ? 1 : CHASE_COARSE_STRIDE,
        .min_coarse = CHASE_COARSE_MIN_POINTS,
        .fill = gc__coarse_fill_next,
        .fill_jump = CHASE_COARSE_JUMP,
        .refine = gc__cache_refine_next,
        .budget = budget,
        .refine_jump = gpu ? CHASE_REFINE_JUMP_GPU : CHASE_REFINE_JUMP_CPU,
        .refine_width = CHASE_REFINE_WIDTH,
        .granule = granule,
        .refine_time_share = gpu ? 0 : CHASE_CPU_REFINE_SHARE,
        .steer = c->clocks ? 0 : 1,
        .point = fn,
        .u = u,
    };
}

/* ---- chase.c: the description */

/* The footprints, spacing and buffer of a path's sweep on the device. */
void gc__chase_make_plan(const struct gc_session *s, enum chase_path p, struct plan *pl);

/* The cycle path needs the cycle counter and the ns timer read through
 * inline PTX, and loads spelled in PTX. */
bool gc__chase_clocks(const struct gc_device_info *info);

/* ---- chase.c: levels into metrics */

/* Detects the staircase's levels and adds their latency and size
 * metrics; detect_on_cycles fits the cycles where the device counts them. */
void gc__chase_level_metrics(struct chase_ctx *c, const double *x, const double *y_ns,
                             const double *y_cyc, const bool *planned, int n, bool have_cyc,
                             bool detect_on_cycles);

/* ---- l2.c */

/* memory.latency.l2_partition: near and far L2 latency seen from one SM. */
int gc__chase_run_l2part(struct gc_session *s, struct gc_bench_result *r);

/* The every-SM sweep of memory.latency.l2: footprints from L2/32 to the top of
 * the one-SM sweep, multiples of nsm elements, refined like the one-SM one. */
int gc__chase_run_all_sms(struct chase_ctx *c, int per_oct, int budget);

#endif
