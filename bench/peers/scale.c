/* SPDX-License-Identifier: MIT */
/*
 * Scale: THREADS threads (1,000 by default) each emit EVENTS events into a recording with the
 * default-sized pool, and all stay alive, holding their pages, while the resident memory is
 * read from /proc/self/status.
 *
 *	scale [THREADS [EVENTS]]
 *
 * The same threads first run with the event disabled: their stacks and glibc's per-thread
 * state become resident, and glibc keeps those stacks for the next threads. What the traced
 * round adds on top is tpoint's per-thread part (the thread's record of counters and state).
 * The pool's pages (shared memory, bounded by the pool size) are resident from the start of
 * the recording, which faults them in: they are counted from before it. Both are printed,
 * with the check "pool pages + (traced - untraced, pool aside) <= pool + THREADS x
 * per-thread bound".
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "trace/events/bench.h"
#include "timing.h"

/* The library's default pool, set explicitly so that the bound below is known. */
#define POOL_BYTES ((size_t)8 << 20)
/*
 * tpoint's own per-thread memory as designed: one page of thread record and one page of
 * counters touched per event used (writer.c maps the counters lazily). Stated ahead, so that
 * the measurement can fail it.
 */
#define PER_THREAD_BOUND (16u << 10)

struct mem {
	long rss, anon, shmem; /* KiB */
};

static struct mem mem_now(void)
{
	struct mem m = { 0, 0, 0 };
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "VmRSS: %ld", &m.rss);
		sscanf(line, "RssAnon: %ld", &m.anon);
		sscanf(line, "RssShmem: %ld", &m.shmem);
	}
	if (f)
		fclose(f);
	return m;
}

static uint64_t events_per_thread;
static pthread_barrier_t emitted, release;

static void *thread_main(void *arg)
{
	(void)arg;
	for (uint64_t i = 0; i < events_per_thread; i++) {
		trace_bench_u64x3(i, i * 3, i ^ 0x5a5a5a5aull);
		sink(i);
	}
	/* Stay alive, page in hand, until the memory has been read. */
	pthread_barrier_wait(&emitted);
	pthread_barrier_wait(&release);
	return NULL;
}

/* Run the threads; returns the memory while all of them are alive, and the emit time. */
static struct mem run_threads(int n, double *emit_s)
{
	pthread_t *th = calloc((size_t)n, sizeof(*th));
	pthread_attr_t attr;
	struct mem m;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 << 10); /* 1,000 default 8 MiB stacks: 8 GiB VM */
	pthread_barrier_init(&emitted, NULL, (unsigned)n + 1);
	pthread_barrier_init(&release, NULL, (unsigned)n + 1);
	double t0 = mono_ns();

	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], &attr, thread_main, NULL)) {
			perror("pthread_create");
			exit(1);
		}
	pthread_barrier_wait(&emitted);
	*emit_s = (mono_ns() - t0) / 1e9;
	m = mem_now();
	pthread_barrier_wait(&release);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&emitted);
	pthread_barrier_destroy(&release);
	pthread_attr_destroy(&attr);
	free(th);
	return m;
}

int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 1000;
	char dir[4096], path[4200], spool[4300], drain[256];
	struct tpoint_event_stats st = { 0 };
	double s0, s1;
	int err;

	events_per_thread = argc > 2 ? strtoull(argv[2], NULL, 0) : 10000;
	if (nthreads < 1 || !events_per_thread) {
		fprintf(stderr, "usage: scale [THREADS [EVENTS]]\n");
		return 2;
	}
	if (bench_tmpdir(dir, sizeof(dir), "tpoint-scale") < 0)
		return 1;
	snprintf(path, sizeof(path), "%s/scale.dat", dir);
	struct mem before = mem_now();

	if (bench_record_start("scale", path, POOL_BYTES) < 0)
		return 1;

	struct mem base = mem_now();
	struct mem untraced = run_threads(nthreads, &s0);

	tpoint_enable("bench:bench_u64x3");
	struct mem traced = run_threads(nthreads, &s1);

	tpoint_disable("bench:bench_u64x3");
	bench_event_stats("bench", "bench_u64x3", &st);
	snprintf(spool, sizeof(spool), "%s.spool", path);
	bench_wait_drained(spool, 0);
	bench_drain_cpu(st.recorded, drain, sizeof(drain));
	err = tpoint_record_stop();

	long pool_kib = (long)(POOL_BYTES >> 10);
	long shm = traced.shmem - before.shmem;
	long threads_kib = (traced.rss - traced.shmem) - (untraced.rss - untraced.shmem);
	long growth = shm + threads_kib;
	double per_thread = (double)threads_kib * 1024.0 / nthreads;
	uint64_t hits = (uint64_t)nthreads * events_per_thread;
	bool mem_ok = growth <= pool_kib + (long)((uint64_t)nthreads * PER_THREAD_BOUND >> 10);
	bool exact = st.recorded + st.lost == hits;

	printf("scale: %d threads x %llu events, pool %zu MiB, all threads alive when measured\n",
	       nthreads, (unsigned long long)events_per_thread, POOL_BYTES >> 20);
	printf("  resident, before recording:   %8ld KiB; recording, before threads: %ld KiB\n",
	       before.rss, base.rss);
	printf("  resident, untraced threads:   %8ld KiB\n", untraced.rss);
	printf("  resident, traced threads:     %8ld KiB\n", traced.rss);
	printf("  tpoint's: %ld KiB\n", growth);
	printf("    the pool (%ld KiB of pages, their metadata; shmem, faulted in at the start): "
	       "%ld KiB\n", pool_kib, shm);
	printf("    per thread, besides the pool: %.1f KiB\n", per_thread / 1024.0);
	printf("  emitting: %.1f ns per event over all threads (%.3f s; untraced round %.3f s)\n",
	       s1 * 1e9 / (double)hits, s1, s0);
	printf("  %s", drain);
	printf("  recorded %llu + lost %llu = %llu of %llu hits (%s)%s\n",
	       (unsigned long long)st.recorded, (unsigned long long)st.lost,
	       (unsigned long long)(st.recorded + st.lost), (unsigned long long)hits,
	       exact ? "exact" : "MISMATCH", err < 0 ? "; recording not completed" : "");
	printf("target: resident growth <= pool + %d x %u KiB: %ld <= %ld KiB (%s)\n", nthreads,
	       PER_THREAD_BOUND >> 10, growth,
	       pool_kib + (long)((uint64_t)nthreads * PER_THREAD_BOUND >> 10),
	       mem_ok && exact ? "met" : "NOT met");
	unlink(path);
	rmdir(dir);
	return mem_ok && exact ? 0 : 1;
}
