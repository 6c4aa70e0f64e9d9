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
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "median.h"
#include "trace/events/bench.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#endif
#endif

/*
 * Big enough for the largest batch (2 threads x 2 M records of 40 bytes, and their warm-up)
 * even if the drain thread wrote nothing meanwhile: a batch that ran out of pages would time
 * the drop path, not the hot path. The drain empties the pool between batches.
 */
#define POOL_BYTES ((size_t)256 << 20)
#define MIN_CALLS 2000000ull
#define MIN_REPS 7
#define MAX_REPS BENCH_MAX_REPS
#define CALLGRIND_CALLS 100000ull
/*
 * The cases that record nothing run this many times more calls per batch: at well under a
 * nanosecond per call, 2 M calls last a millisecond, too short to time steadily.
 */
#define CHEAP_FACTOR 10

/*
 * What each loop body ends with: the compiler must assume the loop counter is used and that
 * any memory may have changed, so it can neither delete an iteration nor hoist the event's
 * enable word (or anything else) out of the loop. Every loop has it, the empty one included,
 * so it is part of the baseline and not of a difference.
 */
#define sink(x) __asm__ __volatile__("" : : "r"(x) : "memory")

/* Argument values that cost one cycle or so to form, as a real call site's would. */
#define ARG_B(i) ((i) * 3)
#define ARG_C(i) ((i) ^ 0x5a5a5a5aull)

/* 31 characters and the NUL: the 32 bytes the __string field carries. */
static const char str32[] = "/var/lib/tpoint/bench/file.0001";
_Static_assert(sizeof(str32) == 32, "the string case records 32 bytes");

static char *floor_buf;
static size_t floor_size;
static uint64_t floor_commit;

/* ---- the loops; noinline, so that each case is one piece of code, timed as a whole ---- */

static __attribute__((noinline)) void loop_empty(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		sink(i);
}

/*
 * What no tracer can beat: take a timestamp, store 32 bytes of record, publish it with a
 * release store. The buffer is as large as the library's pool and touched in order, so the
 * floor pays the same stream of fresh cache lines as the pages do.
 */
static __attribute__((noinline)) void loop_floor(uint64_t n)
{
	char *buf = floor_buf;
	size_t off = 0;

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

/* Enabled or disabled: the same code, only the event's enable word differs. */
static __attribute__((noinline)) void loop_u64x3(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		trace_bench_u64x3(i, ARG_B(i), ARG_C(i));
		sink(i);
	}
}

/* An even first argument: the condition (a & 1) is false whenever the event is on. */
static __attribute__((noinline)) void loop_cond(uint64_t n)
{
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

/* The same arguments as loop_u64x3, into the event whose filter rejects them all. */
static __attribute__((noinline)) void loop_filt_rej(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		trace_bench_filt_rej(i, ARG_B(i), ARG_C(i));
		sink(i);
	}
}

/* And into the one whose two-test filter accepts them all. */
static __attribute__((noinline)) void loop_filt_acc(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		trace_bench_filt_acc(i, ARG_B(i), ARG_C(i));
		sink(i);
	}
}

static int set_filters(void)
{
	int err;

	if ((err = tpoint_set_filter("bench:bench_filt_rej", FILTER_REJECTS)) < 0 ||
	    (err = tpoint_set_filter("bench:bench_filt_acc", FILTER_ACCEPTS)) < 0) {
		fprintf(stderr, "hotpath: cannot set the filters: %s\n", strerror(-err));
		return err;
	}
	return 0;
}

static __attribute__((noinline)) void loop_str(uint64_t n)
{
	const char *s = str32;

	for (uint64_t i = 0; i < n; i++) {
		/* Launder the pointer: the call must look like it could record any string. */
		__asm__ __volatile__("" : "+r"(s));
		trace_bench_str(s);
		sink(i);
	}
}

/* ---- measuring ---- */

static double mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double time_batch(void (*loop)(uint64_t), uint64_t n)
{
	double t0 = mono_ns();

	loop(n);
	return (mono_ns() - t0) / (double)n;
}

struct worker {
	void (*loop)(uint64_t);
	uint64_t n;
	pthread_barrier_t *start;
	double ns;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	/* Warm this thread's own state (its TLS record, its first page) before the start. */
	w->loop(w->n / 8);
	pthread_barrier_wait(w->start);
	w->ns = time_batch(w->loop, w->n);
	return NULL;
}

/* Both threads run the batch at once; the figure is their mean ns per call. */
static double time_batch_threads(void (*loop)(uint64_t), uint64_t n, int nthreads)
{
	pthread_barrier_t start;
	pthread_t th[8];
	struct worker w[8];
	double sum = 0;

	pthread_barrier_init(&start, NULL, (unsigned)nthreads);
	for (int i = 0; i < nthreads; i++) {
		w[i] = (struct worker){ loop, n, &start, 0 };
		if (pthread_create(&th[i], NULL, worker_main, &w[i])) {
			perror("pthread_create");
			exit(1);
		}
	}
	for (int i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		sum += w[i].ns;
	}
	pthread_barrier_destroy(&start);
	return sum / nthreads;
}

static int event_stats(const char *name, struct tpoint_event_stats *out)
{
	static struct tpoint_event_stats all[64];
	int n = tpoint_stats(all, 64);

	for (int i = 0; i < n && i < 64; i++)
		if (!strcmp(all[i].system, "bench") && !strcmp(all[i].name, name)) {
			*out = all[i];
			return 0;
		}
	return -ENOENT;
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

/*
 * Let the drain thread catch up between batches, so that each batch starts with a free
 * pool, as the previous one did: wait until the spool file stops growing.
 */
static void wait_drained(const char *spool)
{
	const struct timespec tick = { 0, 5000000 };
	off_t last = -2;
	int stable = 0;

	for (int i = 0; i < 2000 && stable < 4; i++) {
		off_t now = file_size(spool);

		stable = now == last ? stable + 1 : 0;
		last = now;
		nanosleep(&tick, NULL);
	}
}

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
	C_EN_2T,
	NCASES
};

struct bench_case {
	const char *label;
	void (*loop)(uint64_t);
	const char *enable; /* events on during the batch, NULL for none */
	const char *event;  /* whose counters to report */
	int threads;
	int factor;         /* CHEAP_FACTOR for the cases that write nothing, else 1 */
	double ns[MAX_REPS];
	double med, min, max;
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
	[C_EN_2T] = { "enabled, 3 x u64, 2 threads (per thread)", loop_u64x3,
		      "bench:bench_u64x3", "bench_u64x3", 2, 1 },
};

static void summarise(struct bench_case *c, int reps)
{
	bench_summarise(c->ns, reps, &c->med, &c->min, &c->max);
}

static void run_case(struct bench_case *c, uint64_t n, int rep, const char *spool)
{
	struct tpoint_event_stats before = { 0 }, after = { 0 };
	double ns;

	n *= (uint64_t)c->factor;
	if (c->enable) {
		if (tpoint_enable(c->enable) != 1) {
			fprintf(stderr, "hotpath: cannot enable %s\n", c->enable);
			exit(1);
		}
		event_stats(c->event, &before);
	}
	if (c->threads > 1)
		ns = time_batch_threads(c->loop, n, c->threads);
	else
		ns = time_batch(c->loop, n);
	if (c->enable) {
		tpoint_disable(c->enable);
		/* After the drain: "recorded" counts what reached the file. */
		wait_drained(spool);
		event_stats(c->event, &after);
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

static int bench(uint64_t n, int reps)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], path[4200], spool[4300];
	const struct bench_case *fl = &cases[C_FLOOR];
	int err;

	snprintf(dir, sizeof(dir), "%s/tpoint-bench.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
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

	if ((err = tpoint_set_buffer_size(POOL_BYTES)) < 0 ||
	    (err = tpoint_record_start(path)) < 0) {
		fprintf(stderr, "hotpath: cannot record into %s: %s\n", path, strerror(-err));
		return 1;
	}
	/* Nothing on but what a case turns on (TPOINT_EVENTS may have enabled some). */
	tpoint_disable("bench");
	if (set_filters() < 0)
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
	off_t dat = file_size(path);

	for (int i = 0; i < NCASES; i++)
		summarise(&cases[i], reps);

	printf("\n%-42s %5s %8s %17s %8s  %s\n", "case", "calls", "ns/call", "min - max",
	       "x floor", "recorded / lost / cond-skipped / filtered");
	for (int i = 0; i < NCASES; i++) {
		const struct bench_case *c = &cases[i];

		printf("%-42s %4lluM %8.2f %8.2f - %6.2f %7.2fx", c->label,
		       (unsigned long long)(n * (uint64_t)c->factor / 1000000), c->med, c->min,
		       c->max, c->med / fl->med);
		if (c->enable)
			printf("  %llu / %llu / %llu / %llu", (unsigned long long)c->recorded,
			       (unsigned long long)c->lost, (unsigned long long)c->skipped,
			       (unsigned long long)c->filtered);
		printf("\n");
	}
	printf("\nrecording stopped (%s) in %.2f s: trace.dat of %.1f MiB\n",
	       err < 0 ? strerror(-err) : "ok", stop_s, dat < 0 ? 0.0 : (double)dat / 1048576.0);

	printf("\n");
	target("enabled 3xu64", cases[C_EN].med / fl->med, 1.5);
	target("condition-false", cases[C_COND_FALSE].med / fl->med, 0.3);
	target("filter rejects", cases[C_FILT_REJ].med / fl->med, 1.5);
	target("2-predicate filter that accepts", cases[C_FILT_ACC].med / fl->med, 2);

	/*
	 * "Within noise": the disabled median differs from the empty loop's by no more than the
	 * spread (min to max) that either of them shows across its own repetitions.
	 */
	const struct bench_case *e = &cases[C_EMPTY];
	for (int i = C_DIS; i <= C_DIS_COND; i++) {
		const struct bench_case *d = &cases[i];
		double diff = d->med - e->med;
		double noise = e->max - e->min > d->max - d->min ? e->max - e->min : d->max - d->min;

		printf("target: %s within noise of the empty loop: %+.2f ns (noise %.2f ns) (%s)\n",
		       i == C_DIS ? "disabled" : "disabled conditional", diff, noise,
		       (diff < 0 ? -diff : diff) <= noise ? "met" : "NOT met");
	}

	unlink(path);
	unlink(spool);
	rmdir(dir);
	free(floor_buf);
	return 0;
}

/*
 * Under callgrind: the instructions of each loop, between two client requests, divided by
 * the calls. The figures are exact and repeat from run to run, unlike the timings. The drain
 * thread's instructions are not counted: --separate-threads=yes gives this thread its own
 * totals, and each dump below is read from this thread's file.
 */
static int callgrind(const char *out_dir)
{
#ifdef HAVE_CALLGRIND
	static const struct {
		const char *label;
		void (*loop)(uint64_t);
		const char *enable;
	} runs[] = {
		{ "empty loop", loop_empty, NULL },
		{ "disabled, 3 x u64", loop_u64x3, NULL },
		{ "enabled, condition false", loop_cond, "bench:bench_cond" },
		{ "enabled, 3 x u64", loop_u64x3, "bench:bench_u64x3" },
		{ "enabled, __string (32 B)", loop_str, "bench:bench_str" },
		{ "enabled, filter rejects", loop_filt_rej, "bench:bench_filt_rej" },
		{ "enabled, 2-predicate filter accepts", loop_filt_acc, "bench:bench_filt_acc" },
	};
	const size_t nruns = sizeof(runs) / sizeof(runs[0]);
	char path[4096];
	double empty = 0;
	int err;

	if (!RUNNING_ON_VALGRIND) {
		fprintf(stderr, "hotpath --callgrind: run me under valgrind --tool=callgrind\n");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/bench.dat", out_dir);
	if ((err = tpoint_set_buffer_size(POOL_BYTES)) < 0 ||
	    (err = tpoint_record_start(path)) < 0) {
		fprintf(stderr, "hotpath: cannot record into %s: %s\n", path, strerror(-err));
		return 1;
	}
	tpoint_disable("bench");
	if (set_filters() < 0)
		return 1;
	for (size_t i = 0; i < nruns; i++) {
		if (runs[i].enable)
			tpoint_enable(runs[i].enable);
		runs[i].loop(1000); /* this thread's page and counters exist before we count */
		CALLGRIND_ZERO_STATS;
		runs[i].loop(CALLGRIND_CALLS);
		CALLGRIND_DUMP_STATS_AT(runs[i].label);
		if (runs[i].enable)
			tpoint_disable(runs[i].enable);
	}
	tpoint_record_stop();
	unlink(path);

	/* Dump k of this (the first) thread: <out>.<k>-01, its "totals:" line holds Ir. */
	printf("\ncallgrind: instructions per call, %llu calls each (exact, repeatable)\n",
	       (unsigned long long)CALLGRIND_CALLS);
	printf("%-42s %10s %14s\n", "case", "Ir/call", "over empty loop");
	for (size_t i = 0; i < nruns; i++) {
		char file[4200], line[256];
		unsigned long long ir = 0;
		FILE *f;

		snprintf(file, sizeof(file), "%s/cg.out.%zu-01", out_dir, i + 1);
		f = fopen(file, "r");
		if (!f) {
			fprintf(stderr, "hotpath: %s: %s\n", file, strerror(errno));
			return 1;
		}
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "totals:", 7))
				ir = strtoull(line + 7, NULL, 10);
		fclose(f);
		double per = (double)ir / (double)CALLGRIND_CALLS;
		if (i == 0)
			empty = per;
		printf("%-42s %10.2f %14.2f\n", runs[i].label, per, per - empty);
	}
	return 0;
#else
	(void)out_dir;
	printf("callgrind: <valgrind/callgrind.h> was missing at build time; skipped\n");
	return 0;
#endif
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
