/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the benchmarks under bench/: batches timed with CLOCK_MONOTONIC, run by one or
 * more threads at once, summarised as median, min and max; an event's counters; waiting for
 * the drain thread. The method is hotpath.c's (interleaved rounds, a warm-up round, medians);
 * medians come from median.h, which hotpath.c shares.
 */
#ifndef BENCH_TIMING_H
#define BENCH_TIMING_H

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <tpoint/tpoint.h>
#include "median.h"

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

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	/* Warm this thread's own state (TLS, its first page, its buffers) before the start. */
	w->loop(w->n / 8, w->tid);
	pthread_barrier_wait(w->start);
	double t0 = mono_ns();

	w->loop(w->n, w->tid);
	w->ns = (mono_ns() - t0) / (double)w->n;
	return NULL;
}

/*
 * All threads run the batch at once, each in a thread of its own (the 1-thread case too, so
 * that both pay the same thread start and TLS). The figure is their mean ns per call.
 */
static inline double time_batch(loop_fn *loop, uint64_t n, int nthreads)
{
	pthread_barrier_t start;
	pthread_t th[MAX_THREADS];
	struct worker w[MAX_THREADS];
	double sum = 0;

	pthread_barrier_init(&start, NULL, (unsigned)nthreads);
	for (int i = 0; i < nthreads; i++) {
		w[i] = (struct worker){ loop, n, i, &start, 0 };
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

static inline off_t bench_file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

/*
 * Let the drain thread catch up, so that the next batch starts with a free pool as this one
 * did: wait until the spool has grown to at least `until` bytes (what the batch's records
 * need at the least), then until it has not grown for 20 ms; 20 s at most. The first part
 * matters on a busy machine, where a drain thread kept off the CPU for 20 ms is not done.
 */
static inline void bench_wait_drained(const char *spool, off_t until)
{
	const struct timespec tick = { 0, 5000000 };
	off_t last = -2;
	int stable = 0;

	for (int i = 0; i < 4000 && stable < 4; i++) {
		off_t now = bench_file_size(spool);

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
		if (recorded && ut + st)
			snprintf(out, len,
				 "drain: %.1f ns CPU per recorded event (%.0f %% user, %.0f %% system)\n",
				 (double)run_ns / (double)recorded,
				 100.0 * (double)ut / (double)(ut + st),
				 100.0 * (double)st / (double)(ut + st));
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

#endif
