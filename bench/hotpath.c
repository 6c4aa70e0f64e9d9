/* SPDX-License-Identifier: MIT */
/*
 * The hot path, measured against what a tracer cannot beat, in one run.
 *
 *	hotpath [CALLS [REPS]]		timings: a table of medians, ratios and the targets
 *	hotpath --callgrind		instructions per event; run it under
 *					valgrind --tool=callgrind --separate-threads=yes
 *
 * Every case runs REPS timed batches of CALLS calls; a whole untimed round of every case comes
 * first, so that code, TLS, the pool's pages and the branch predictors are warm. Rounds visit
 * the cases in turn, so a slow spell of the machine (this is a 2-core VM) spreads over all of
 * them instead of spoiling one. The figure is the wall time of the batch divided by CALLS:
 * loop overhead, page switches, the drain thread competing for the CPU, all of it is in it.
 *
 * The recording is real: a file in a temporary directory, written by the library's drain
 * thread while the batches run, completed by tpoint_record_stop() at the end.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "trace/events/bench.h"
#include "timing.h"
#include "loops.h"

/*
 * Big enough for the largest batch (2 threads x 2 M records of 40 bytes, and their warm-up)
 * even if the drain thread wrote nothing meanwhile: a batch that ran out of pages would time
 * the drop path, not the hot path. The drain empties the pool between batches.
 */
#define POOL_BYTES ((size_t)256 << 20)
#define MIN_CALLS 2000000ull
#define MIN_REPS 7
#define CALLGRIND_CALLS 100000ull
/*
 * The cases that record nothing run this many times more calls per batch: at well under a
 * nanosecond per call, 2 M calls last a millisecond, too short to time steadily.
 */
#define CHEAP_FACTOR 10

static char *floor_buf;
static size_t floor_size;
static uint64_t floor_commit;

/*
 * ---- the loops besides loops.h's, noinline like them ----
 * They take timing.h's loop_fn arguments; tid goes unused, as the floor runs in 1 thread.
 */

/*
 * What no tracer can beat: take a timestamp, store 32 bytes of record, publish it with a
 * release store. The buffer is as large as the library's pool and touched in order, so the
 * floor pays the same stream of fresh cache lines as the pages do.
 */
static __attribute__((noinline)) void loop_floor(uint64_t n, int tid)
{
	char *buf = floor_buf;
	size_t off = 0;

	(void)tid;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t *rec = (uint64_t *)(void *)(buf + off);

		rec[0] = tpoint_arch_clock();
		rec[1] = i;
		rec[2] = ARG_B(i);
		rec[3] = ARG_C(i);
		off += 32;
		if (off == floor_size)
			off = 0;
		__atomic_store_n(&floor_commit, off, __ATOMIC_RELEASE);
		sink(i);
	}
}

/* An even first argument: the condition (a & 1) is false whenever the event is on. */
static __attribute__((noinline)) void loop_cond(uint64_t n, int tid)
{
	(void)tid;
	for (uint64_t i = 0; i < n; i++) {
		trace_bench_cond(i << 1, ARG_B(i), ARG_C(i));
		sink(i);
	}
}

/*
 * The filters the two filtered events keep for the whole run, in the kernel's grammar. b is
 * 3 * i, which is 1 or 7 (modulo 2^64) only for an i above 2^63: the first filter rejects
 * every record after it was filled, the second evaluates both of its tests and accepts
 * every record.
 */
#define FILTER_REJECTS "b == 1"
#define FILTER_ACCEPTS "a >= 0 && b != 7"
/* One key (about 30 buckets over a run), one value: the histogram issue's case. */
#define HIST_TRIGGER "hist:keys=a.log2:vals=b"

/* The same arguments as loop_u64x3, into the event whose filter rejects them all. */
static __attribute__((noinline)) void loop_filt_rej(uint64_t n, int tid)
{
	(void)tid;
	for (uint64_t i = 0; i < n; i++) {
		trace_bench_filt_rej(i, ARG_B(i), ARG_C(i));
		sink(i);
	}
}

/* The same into a DEFINE_EVENT of that class that has no filter. */
static __attribute__((noinline)) void loop_u64x3_de(uint64_t n, int tid)
{
	(void)tid;
	for (uint64_t i = 0; i < n; i++) {
		trace_bench_u64x3_de(i, ARG_B(i), ARG_C(i));
		sink(i);
	}
}

/* And into the one whose two-test filter accepts them all. */
static __attribute__((noinline)) void loop_filt_acc(uint64_t n, int tid)
{
	(void)tid;
	for (uint64_t i = 0; i < n; i++) {
		trace_bench_filt_acc(i, ARG_B(i), ARG_C(i));
		sink(i);
	}
}

/* And into the one a histogram trigger aggregates (not recorded). */
static __attribute__((noinline)) void loop_hist(uint64_t n, int tid)
{
	(void)tid;
	for (uint64_t i = 0; i < n; i++) {
		trace_bench_hist(i, ARG_B(i), ARG_C(i));
		sink(i);
	}
}

/*
 * STACK_CALLS calls deep, in functions with frame pointers (the stack walk follows them),
 * the event with a stacktrace trigger or, for the same calls without the stack, the
 * DEFINE_EVENT of its class that has nothing but its record. The walk keeps 8 frames.
 */
#define STACK_CALLS 10
#define STACK_FRAMES 8
#ifdef __clang__ /* no such switch a function: frame pointers as CFLAGS say */
#define WITH_FRAMES __attribute__((noinline))
#else
#define WITH_FRAMES __attribute__((noinline, optimize("no-omit-frame-pointer")))
#endif

static WITH_FRAMES void deep(unsigned d, uint64_t i, bool stack)
{
	if (d) {
		deep(d - 1, i, stack);
		sink(d); /* not a tail call: the frame stays */
	} else if (stack) {
		trace_bench_stack(i, ARG_B(i), ARG_C(i));
	} else {
		trace_bench_u64x3_de(i, ARG_B(i), ARG_C(i));
	}
}

static WITH_FRAMES void loop_deep(uint64_t n, int tid)
{
	(void)tid;
	for (uint64_t i = 0; i < n; i++)
		deep(STACK_CALLS, i, false);
}

static WITH_FRAMES void loop_stack(uint64_t n, int tid)
{
	(void)tid;
	for (uint64_t i = 0; i < n; i++)
		deep(STACK_CALLS, i, true);
}

/* tpoint_printf() with a number and a string: formatted and recorded only while it is on. */
static __attribute__((noinline)) void loop_printf(uint64_t n, int tid)
{
	(void)tid;
	for (uint64_t i = 0; i < n; i++) {
		tpoint_printf("retry %llu of %s", (unsigned long long)i, str32);
		sink(i);
	}
}

static int set_filters(void)
{
	int err;

	if ((err = tpoint_set_filter("bench:bench_filt_rej", FILTER_REJECTS)) < 0 ||
	    (err = tpoint_set_filter("bench:bench_filt_acc", FILTER_ACCEPTS)) < 0 ||
	    (err = tpoint_set_trigger("bench:bench_hist", HIST_TRIGGER)) < 0 ||
	    (err = tpoint_set_trigger("bench:bench_stack", "stacktrace")) < 0) {
		fprintf(stderr, "hotpath: cannot set the filters and trigger: %s\n",
			strerror(-err));
		return err;
	}
	return 0;
}

/* ---- the cases; timing.h times them ---- */

enum {
	C_EMPTY,
	C_FLOOR,
	C_DIS,
	C_DIS_COND,
	C_COND_FALSE,
	C_EN,
	C_EN_STR,
	C_FILT_REJ,
	C_FILT_ACC,
	C_HIST,
	C_DEEP,
	C_STACK,
	C_EN_2T,
	C_PRINTF_OFF,
	C_PRINTF_ON,
	NCASES
};

struct bench_case {
	const char *label;
	loop_fn *loop;
	const char *enable; /* events on during the batch, NULL for none */
	const char *event;  /* whose counters to report */
	int threads;
	int factor;         /* CHEAP_FACTOR for the cases that write nothing, else 1 */
	double ns[MAX_REPS];
	struct summary s;
	uint64_t recorded, lost, skipped, filtered;
};

static struct bench_case cases[NCASES] = {
	[C_EMPTY] = { "empty loop", loop_empty, NULL, NULL, 1, CHEAP_FACTOR },
	[C_FLOOR] = { "record floor (rdtsc + 32 B + release)", loop_floor, NULL, NULL, 1, 1 },
	[C_DIS] = { "disabled, 3 x u64", loop_u64x3, NULL, NULL, 1, CHEAP_FACTOR },
	[C_DIS_COND] = { "disabled, conditional", loop_cond, NULL, NULL, 1, CHEAP_FACTOR },
	[C_COND_FALSE] = { "enabled, condition false", loop_cond, "bench:bench_cond",
			   "bench_cond", 1, CHEAP_FACTOR },
	[C_EN] = { "enabled, 3 x u64", loop_u64x3, "bench:bench_u64x3", "bench_u64x3", 1, 1 },
	[C_EN_STR] = { "enabled, __string (32 B)", loop_str, "bench:bench_str", "bench_str", 1,
		       1 },
	[C_FILT_REJ] = { "enabled, filter rejects", loop_filt_rej, "bench:bench_filt_rej",
			 "bench_filt_rej", 1, 1 },
	[C_FILT_ACC] = { "enabled, 2-predicate filter accepts", loop_filt_acc,
			 "bench:bench_filt_acc", "bench_filt_acc", 1, 1 },
	[C_HIST] = { "hist: keys=a.log2:vals=b, not recorded", loop_hist, NULL, "bench_hist", 1,
		     1 },
	[C_DEEP] = { "10 calls deep, 3 x u64", loop_deep, "bench:bench_u64x3_de",
		     "bench_u64x3_de", 1, 1 },
	[C_STACK] = { "10 calls deep, stacktrace (8 frames)", loop_stack, "bench:bench_stack",
		      "bench_stack", 1, 1 },
	[C_EN_2T] = { "enabled, 3 x u64, 2 threads (per thread)", loop_u64x3,
		      "bench:bench_u64x3", "bench_u64x3", 2, 1 },
	[C_PRINTF_OFF] = { "tpoint_printf(), off", loop_printf, NULL, NULL, 1, CHEAP_FACTOR },
	[C_PRINTF_ON] = { "tpoint_printf(\"%llu %s\"), on", loop_printf, "tpoint:print", "print",
			  1, 1 },
};

static void run_case(struct bench_case *c, uint64_t n, int rep, const char *spool)
{
	struct tpoint_event_stats before = { 0 }, after = { 0 };
	double ns;

	n *= (uint64_t)c->factor;
	if (c->enable && bench_enable("hotpath", c->enable, c->event, &before) < 0)
		exit(1); /* timing the disabled path instead would say nothing true */
	/*
	 * One thread runs in this one, warmed by the warm-up round alone; more run in fresh
	 * threads that each warm up with an eighth of the batch first (counted as recorded).
	 */
	if (c->threads > 1)
		ns = time_batch(c->loop, n, c->threads);
	else
		ns = time_loop(c->loop, n, 0);
	if (c->enable) {
		tpoint_disable(c->enable);
		/*
		 * After the drain: "recorded" counts what reached the file. No lower bound on
		 * the spool's size: wait until it stops growing, as this benchmark always has.
		 */
		char sys[64];

		bench_wait_drained(spool, -1);
		bench_event_stats(bench_pattern_system(c->enable, sys, sizeof(sys)), c->event,
				  &after);
	}
	if (rep < 0)
		return; /* the warm-up round */
	c->ns[rep] = ns;
	c->recorded += after.recorded - before.recorded;
	c->lost += after.lost - before.lost;
	c->skipped += after.cond_skipped - before.cond_skipped;
	c->filtered += after.filtered - before.filtered;
}

static void target(const char *what, double value, double limit)
{
	printf("target: %s <= %gx floor: %.2fx (%s)\n", what, limit, value,
	       value <= limit ? "met" : "NOT met");
}

/* make bench builds this file twice: -O2, whose figures meet the targets, and -O0 -g. */
#ifdef __OPTIMIZE__
#define DEBUG_BUILD 0
#else
#define DEBUG_BUILD 1
#endif

/* The targets, judged on the optimised build. */
static void print_targets(const struct bench_case *cases)
{
	const struct bench_case *fl = &cases[C_FLOOR];

	target("enabled 3xu64", cases[C_EN].s.med / fl->s.med, 1.5);
	target("condition-false", cases[C_COND_FALSE].s.med / fl->s.med, 0.3);
	target("filter rejects", cases[C_FILT_REJ].s.med / fl->s.med, 1.5);
	target("2-predicate filter that accepts", cases[C_FILT_ACC].s.med / fl->s.med, 2);
	target("hist: trigger hit", cases[C_HIST].s.med / fl->s.med, 2);

	/*
	 * "Within noise": the disabled median differs from the empty loop's by no more than the
	 * spread (min to max) that either of them shows across its own repetitions.
	 */
	const struct bench_case *e = &cases[C_EMPTY];
	for (int i = C_DIS; i <= C_DIS_COND; i++) {
		const struct bench_case *d = &cases[i];
		double diff = d->s.med - e->s.med;
		double e_spread = e->s.max - e->s.min, d_spread = d->s.max - d->s.min;
		double noise = e_spread > d_spread ? e_spread : d_spread;

		printf("target: %s within noise of the empty loop: %+.2f ns (noise %.2f ns) (%s)\n",
		       i == C_DIS ? "disabled" : "disabled conditional", diff, noise,
		       (diff < 0 ? -diff : diff) <= noise ? "met" : "NOT met");
	}
}

static int bench(uint64_t n, int reps)
{
	char dir[4096], path[4200], spool[4300];
	const struct bench_case *fl = &cases[C_FLOOR];
	int err;

	if (bench_tmpdir(dir, sizeof(dir), "tpoint-bench") < 0)
		return 1;
	snprintf(path, sizeof(path), "%s/bench.dat", dir);
	snprintf(spool, sizeof(spool), "%s.spool", path);

	/* The floor's buffer, touched once now so that no page fault lands in a batch. */
	floor_size = POOL_BYTES;
	floor_buf = aligned_alloc(4096, floor_size);
	if (!floor_buf) {
		perror("aligned_alloc");
		return 1;
	}
	memset(floor_buf, 1, floor_size);

	if (bench_record_start("hotpath", path, POOL_BYTES) < 0 || set_filters() < 0)
		return 1;

	/*
	 * Where the file lives matters on a small machine: a disk-backed file system's
	 * writeback runs kernel threads that take CPU from the batches. Say which it is.
	 */
	struct statfs sfs;
	bool in_memory = !statfs(dir, &sfs) && (uint32_t)sfs.f_type == 0x01021994u; /* tmpfs */

	printf("tpoint hot path: median of %d batches per case (after a warm-up round), "
	       "recording to %s (%s; TMPDIR chooses), pool %zu MiB\n",
	       reps, path, in_memory ? "tmpfs" : "disk-backed", POOL_BYTES >> 20);
	fflush(stdout);
	for (int rep = -1; rep < reps; rep++)
		for (int i = 0; i < NCASES; i++)
			run_case(&cases[i], n, rep, spool);

	double t0 = mono_ns();
	err = tpoint_record_stop();
	double stop_s = (mono_ns() - t0) / 1e9;
	off_t dat = bench_file_size(path);

	for (int i = 0; i < NCASES; i++)
		cases[i].s = summarise(cases[i].ns, reps);

	printf("\n%-42s %5s %8s %17s %8s  %s\n", "case", "calls", "ns/call", "min - max",
	       "x floor", "recorded / lost / cond-skipped / filtered");
	for (int i = 0; i < NCASES; i++) {
		const struct bench_case *c = &cases[i];

		printf("%-42s %4lluM %8.2f %8.2f - %6.2f %7.2fx", c->label,
		       (unsigned long long)(n * (uint64_t)c->factor / 1000000), c->s.med, c->s.min,
		       c->s.max, c->s.med / fl->s.med);
		if (c->enable)
			printf("  %llu / %llu / %llu / %llu", (unsigned long long)c->recorded,
			       (unsigned long long)c->lost, (unsigned long long)c->skipped,
			       (unsigned long long)c->filtered);
		printf("\n");
	}
	/* What a stacktrace adds to its event (the user_stack record included), a frame. */
	printf("\nstacktrace: %.2f ns over the record alone for %d frames: %.2f ns a frame\n",
	       cases[C_STACK].s.med - cases[C_DEEP].s.med, STACK_FRAMES,
	       (cases[C_STACK].s.med - cases[C_DEEP].s.med) / STACK_FRAMES);
	printf("\nrecording stopped (%s) in %.2f s: trace.dat of %.1f MiB\n",
	       err < 0 ? strerror(-err) : "ok", stop_s, dat < 0 ? 0.0 : (double)dat / 1048576.0);

	printf("\n");
	if (DEBUG_BUILD)
		printf("targets: judged on the -O2 build; this one is a debug build (-O0)\n");
	else
		print_targets(cases);

	unlink(path);
	unlink(spool);
	rmdir(dir);
	free(floor_buf);
	return 0;
}

/* Under callgrind: instructions per call of the cases that timing.h can count alike. */
static int callgrind(const char *out_dir)
{
	static const struct bench_cg_run runs[] = {
		{ "empty loop", loop_empty, NULL, NULL },
		{ "disabled, 3 x u64", loop_u64x3, NULL, NULL },
		{ "enabled, condition false", loop_cond, "bench:bench_cond", NULL },
		{ "enabled, 3 x u64", loop_u64x3, "bench:bench_u64x3", NULL },
		{ "enabled, 3 x u64, DEFINE_EVENT", loop_u64x3_de, "bench:bench_u64x3_de", NULL },
		{ "enabled, __string (32 B)", loop_str, "bench:bench_str", NULL },
		{ "enabled, filter rejects", loop_filt_rej, "bench:bench_filt_rej", NULL },
		{ "enabled, 2-predicate filter accepts", loop_filt_acc, "bench:bench_filt_acc",
		  NULL },
		{ "hist: keys=a.log2:vals=b, not recorded", loop_hist, NULL, NULL },
		{ "10 calls deep, 3 x u64", loop_deep, "bench:bench_u64x3_de", NULL },
		{ "10 calls deep, stacktrace (8 frames)", loop_stack, "bench:bench_stack", NULL },
		{ "tpoint_printf(), off", loop_printf, NULL, NULL },
		{ "tpoint_printf(\"%llu %s\"), on", loop_printf, "tpoint:print", NULL },
	};
	static const struct bench_cg cg = {
		"hotpath", POOL_BYTES, set_filters, runs, sizeof(runs) / sizeof(runs[0]),
		CALLGRIND_CALLS, 42,
	};

	return bench_callgrind(&cg, out_dir);
}

int main(int argc, char **argv)
{
	uint64_t n = MIN_CALLS;
	int reps = 9;

	if (argc > 2 && !strcmp(argv[1], "--callgrind"))
		return callgrind(argv[2]);
	if (argc > 1)
		n = strtoull(argv[1], NULL, 0);
	if (argc > 2)
		reps = atoi(argv[2]);
	if (n < MIN_CALLS || reps < MIN_REPS || reps > MAX_REPS) {
		fprintf(stderr, "usage: hotpath [CALLS >= %llu [REPS %d..%d]]\n"
				"       valgrind --tool=callgrind --separate-threads=yes "
				"--callgrind-out-file=DIR/cg.out hotpath --callgrind DIR\n",
			MIN_CALLS, MIN_REPS, MAX_REPS);
		return 2;
	}
	return bench(n, reps);
}
