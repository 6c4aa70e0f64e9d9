/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the benchmarks under bench/: batches timed with CLOCK_MONOTONIC, run by one or
 * more threads at once, summarised as median, min and max; an event's counters; a directory
 * and a recording to run in; waiting for the drain thread; instructions per call counted by
 * callgrind. Used by hotpath.c and the peers' programs, so that `make bench` and
 * `make bench-peers` measure alike (interleaved rounds, a warm-up round, medians); the
 * medians come from median.h, which jump.c uses too.
 */
#ifndef BENCH_TIMING_H
#define BENCH_TIMING_H

#define _GNU_SOURCE
#include <dirent.h>
#include <glob.h>
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "median.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#endif
#endif

/*
 * What each loop body ends with: the compiler must assume the counter is used and any memory
 * changed, so it can neither delete an iteration nor hoist an enable word out of the loop.
 * Every loop has it, the empty one included, so it is part of the baseline.
 */
#define sink(x) __asm__ __volatile__("" : : "r"(x) : "memory")

#define MAX_THREADS 2
#define MAX_REPS BENCH_MAX_REPS

static inline double mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* A loop runs n calls; `tid` picks per-thread state (the floor's buffer). */
typedef void loop_fn(uint64_t n, int tid);

struct worker {
	loop_fn *loop;
	uint64_t n;
	int tid;
	pthread_barrier_t *start;
	double ns;
};

/* One batch in this thread, as it is: ns per call, nothing warmed first. */
static inline double time_loop(loop_fn *loop, uint64_t n, int tid)
{
	double t0 = mono_ns();

	loop(n, tid);
	return (mono_ns() - t0) / (double)n;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	/* Warm this thread's own state (TLS, its first page, its buffers) before the start. */
	w->loop(w->n / 8, w->tid);
	pthread_barrier_wait(w->start);
	w->ns = time_loop(w->loop, w->n, w->tid);
	return NULL;
}

/*
 * All threads run the batch at once, each in a thread of its own (the 1-thread case too, so
 * that both pay the same thread start and TLS). The figure is their mean ns per call.
 * time_batch_at() starts them at a barrier of the caller's, which may be shared with threads
 * of other processes (PTHREAD_PROCESS_SHARED) so that batches there start at the same time.
 */
static inline double time_batch_at(loop_fn *loop, uint64_t n, int nthreads,
				   pthread_barrier_t *start)
{
	pthread_t th[MAX_THREADS];
	struct worker w[MAX_THREADS];
	double sum = 0;

	for (int i = 0; i < nthreads; i++) {
		w[i] = (struct worker){ loop, n, i, start, 0 };
		if (pthread_create(&th[i], NULL, worker_main, &w[i])) {
			perror("pthread_create");
			exit(1);
		}
	}
	for (int i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		sum += w[i].ns;
	}
	return sum / nthreads;
}

static inline double time_batch(loop_fn *loop, uint64_t n, int nthreads)
{
	pthread_barrier_t start;
	double ns;

	pthread_barrier_init(&start, NULL, (unsigned)nthreads);
	ns = time_batch_at(loop, n, nthreads, &start);
	pthread_barrier_destroy(&start);
	return ns;
}

struct summary {
	double med, min, max;
};

static inline struct summary summarise(const double *ns, int reps)
{
	struct summary s;

	bench_summarise(ns, reps, &s.med, &s.min, &s.max);
	return s;
}

/* The counters of event system:name, summed over threads. */
static inline int bench_event_stats(const char *system, const char *name,
				    struct tpoint_event_stats *out)
{
	struct tpoint_event_stats all[64];
	int n = tpoint_stats(all, 64);

	for (int i = 0; i < n && i < 64; i++)
		if (!strcmp(all[i].system, system) && !strcmp(all[i].name, name)) {
			*out = all[i];
			return 0;
		}
	return -ENOENT;
}

/* The system of an enable pattern "sys:name", into out; "bench" when it names none. */
static inline const char *bench_pattern_system(const char *pattern, char *out, size_t len)
{
	const char *colon = strchr(pattern, ':');

	if (!colon)
		return "bench";
	snprintf(out, len, "%.*s", (int)(colon - pattern), pattern);
	return out;
}

/*
 * Turn on the events a case measures and take the counters of `event` (of the system the
 * pattern names) before its batch. A case whose events cannot be turned on would time the
 * disabled path: give up.
 */
static inline int bench_enable(const char *prog, const char *enable, const char *event,
			       struct tpoint_event_stats *before)
{
	char sys[64];

	if (tpoint_enable(enable) != 1) {
		fprintf(stderr, "%s: cannot enable %s\n", prog, enable);
		return -1;
	}
	bench_event_stats(bench_pattern_system(enable, sys, sizeof(sys)), event, before);
	return 0;
}

static inline off_t bench_file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

/*
 * The size of a recording's spool, FILE.spool: the library keeps it in a private directory
 * beside the file, FILE.spool.XXXXXX/NAME.spool (NAME the file's base name). -1 if there is
 * none (yet).
 */
static inline off_t bench_spool_size(const char *spool)
{
	const char *base = strrchr(spool, '/');
	char pattern[8704];
	glob_t g;
	off_t size = -1;

	base = base ? base + 1 : spool;
	int n = snprintf(pattern, sizeof(pattern), "%s.*/%s", spool, base);

	if (n < 0 || (size_t)n >= sizeof(pattern))
		return -1;
	if (glob(pattern, 0, NULL, &g) == 0) {
		if (g.gl_pathc == 1)
			size = bench_file_size(g.gl_pathv[0]);
		globfree(&g);
	}
	return size;
}

/*
 * A fresh directory for a run's files, dir-name.XXXXXX in $TMPDIR (make bench and run.sh
 * point it at tmpfs), else in /tmp. -1, said on stderr, if it cannot be made.
 */
static inline int bench_tmpdir(char *dir, size_t len, const char *name)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, len, "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return -1;
	}
	return 0;
}

/*
 * Record into path with a pool of `pool` bytes, then turn every bench event off: a case turns
 * on what it measures, and TPOINT_EVENTS may have turned some on at start-up. A negative
 * errno, said on stderr as prog's, if the recording cannot start.
 */
static inline int bench_record_start(const char *prog, const char *path, size_t pool)
{
	int err;

	if ((err = tpoint_set_buffer_size(pool)) < 0 || (err = tpoint_record_start(path)) < 0) {
		fprintf(stderr, "%s: cannot record into %s: %s\n", prog, path, strerror(-err));
		return err;
	}
	tpoint_disable("bench");
	return 0;
}

/*
 * Let the drain thread catch up, so that the next batch starts with a free pool as this one
 * did: wait until the spool (FILE.spool: bench_spool_size()) has grown to at least `until` bytes (what the batch's records
 * need at the least), then until it has not grown for 20 ms; 20 s at most. The first part
 * matters on a busy machine, where a drain thread kept off the CPU for 20 ms is not done.
 */
static inline void bench_wait_drained(const char *spool, off_t until)
{
	const struct timespec tick = { 0, 5000000 };
	off_t last = -2;
	int stable = 0;

	for (int i = 0; i < 4000 && stable < 4; i++) {
		off_t now = bench_spool_size(spool);

		stable = now == last && now >= until ? stable + 1 : 0;
		last = now;
		nanosleep(&tick, NULL);
	}
}

/*
 * The drain thread's CPU time: total from schedstat (ns), the user/system split from stat
 * (clock ticks), per recorded event, as a line of text in out (empty if there is no drain
 * thread). Read it once the drain is done (after tpoint_flush() or bench_wait_drained()),
 * and before tpoint_record_stop() ends the thread.
 */
static inline void bench_drain_cpu(uint64_t recorded, char *out, size_t len)
{
	*out = 0;
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char path[300], buf[1024] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		bool drain = fgets(buf, sizeof(buf), f) && !strcmp(buf, "tpoint-drain\n");
		fclose(f);
		if (!drain)
			continue;
		unsigned long long run_ns = 0, ut = 0, st = 0;

		snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", e->d_name);
		if ((f = fopen(path, "r"))) {
			if (fscanf(f, "%llu", &run_ns) != 1)
				run_ns = 0;
			fclose(f);
		}
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat", e->d_name);
		if ((f = fopen(path, "r"))) {
			char *p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;

			/* After "pid (comm)": state is field 3; utime and stime are 14 and 15. */
			if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
					 &ut, &st) != 2)
				ut = st = 0;
			fclose(f);
		}
		/* What it handed to write() and writev(): the spool, packed or not. */
		unsigned long long wchar = 0;

		snprintf(path, sizeof(path), "/proc/self/task/%s/io", e->d_name);
		if ((f = fopen(path, "r"))) {
			while (fgets(buf, sizeof(buf), f) && sscanf(buf, "wchar: %llu", &wchar) != 1)
				;
			fclose(f);
		}
		if (recorded && ut + st)
			snprintf(out, len,
				 "drain: %.1f ns CPU per recorded event (%.0f %% user, %.0f %% system), "
				 "%.1f bytes written per event\n",
				 (double)run_ns / (double)recorded,
				 100.0 * (double)ut / (double)(ut + st),
				 100.0 * (double)st / (double)(ut + st),
				 (double)wchar / (double)recorded);
	}
	if (d)
		closedir(d);
}

/*
 * Instructions of dump k (from 1) of the first thread, as callgrind wrote them with
 * --separate-threads=yes --callgrind-out-file=DIR/cg.out: the "totals:" line of
 * DIR/cg.out.k-01. -1, said on stderr, if the file is not there.
 */
static inline long long bench_callgrind_ir(const char *dir, size_t k)
{
	char file[4200], line[256];
	long long ir = 0;
	FILE *f;

	snprintf(file, sizeof(file), "%s/cg.out.%zu-01", dir, k);
	f = fopen(file, "r");
	if (!f) {
		fprintf(stderr, "%s: %s\n", file, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "totals:", 7))
			ir = strtoll(line + 7, NULL, 10);
	fclose(f);
	return ir;
}

/* A loop whose instructions are counted under callgrind. */
struct bench_cg_run {
	const char *label;
	loop_fn *loop;
	const char *enable;  /* tpoint events on during the run, or NULL */
	const bool *only_if; /* if not NULL, the run is made only when *only_if holds */
};

/* What `prog --callgrind DIR` counts, and how. */
struct bench_cg {
	const char *prog;  /* for messages, and the trace's name: DIR/prog.dat */
	size_t pool;       /* the trace's pool, in bytes */
	int (*setup)(void); /* if not NULL, called once recording; < 0 gives up */
	const struct bench_cg_run *runs;
	size_t nruns;
	uint64_t calls;    /* per run */
	int width;         /* of the label column */
};

#ifdef HAVE_CALLGRIND
static inline bool bench_cg_made(const struct bench_cg_run *r)
{
	return !r->only_if || *r->only_if;
}

/*
 * Run under valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file=DIR/cg.out:
 * each run's loop, cg->calls calls in this thread between two client requests, one dump per
 * run made, while recording for real; then the table of those dumps, instructions per call
 * and above the first run (the empty loop). The figures are exact and repeat from run to
 * run, unlike the timings. The drain thread's instructions are not in them: with
 * --separate-threads=yes this thread has totals of its own.
 */
static inline int bench_callgrind(const struct bench_cg *cg, const char *out_dir)
{
	char path[4096];
	double empty = 0;

	if (!RUNNING_ON_VALGRIND) {
		fprintf(stderr, "%s --callgrind: run me under valgrind --tool=callgrind\n",
			cg->prog);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s.dat", out_dir, cg->prog);
	if (bench_record_start(cg->prog, path, cg->pool) < 0 || (cg->setup && cg->setup() < 0))
		return 1;
	for (size_t i = 0; i < cg->nruns; i++) {
		const struct bench_cg_run *r = &cg->runs[i];

		if (!bench_cg_made(r))
			continue;
		if (r->enable)
			tpoint_enable(r->enable);
		r->loop(1000, 0); /* this thread's page and counters exist before we count */
		CALLGRIND_ZERO_STATS;
		r->loop(cg->calls, 0);
		CALLGRIND_DUMP_STATS_AT(r->label);
		if (r->enable)
			tpoint_disable(r->enable);
	}
	tpoint_record_stop();
	unlink(path);

	printf("\ncallgrind: instructions per call, %llu calls each (exact, repeatable)\n",
	       (unsigned long long)cg->calls);
	printf("%-*s %10s %14s\n", cg->width, "case", "Ir/call", "over empty loop");
	for (size_t i = 0, k = 0; i < cg->nruns; i++) {
		if (!bench_cg_made(&cg->runs[i]))
			continue;
		/* Dump k of this (the first) thread, in the order the runs were made. */
		long long ir = bench_callgrind_ir(out_dir, ++k);

		if (ir < 0)
			return 1;
		double per = (double)ir / (double)cg->calls;

		if (k == 1)
			empty = per;
		printf("%-*s %10.2f %14.2f\n", cg->width, cg->runs[i].label, per, per - empty);
	}
	return 0;
}
#else
static inline int bench_callgrind(const struct bench_cg *cg, const char *out_dir)
{
	(void)cg;
	(void)out_dir;
	printf("callgrind: <valgrind/callgrind.h> was missing at build time; skipped\n");
	return 0;
}
#endif

#endif
