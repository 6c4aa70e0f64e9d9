// SPDX-License-Identifier: MIT
/*
 * tpoint-test: serial (it saturates both CPUs)
 * stress_test - four threads hammer two events through a 64 KiB pool for about half a
 * second; one event has a condition that is false about half the time. Afterwards every
 * record in the file must be intact (checksum, payload tid = common_pid), each thread's
 * sequence numbers strictly increasing with no duplicate, and for each event
 *	recorded + lost == calls whose condition passed, exactly,
 *	cond_skipped == calls whose condition failed,
 *	records in the file == recorded,
 * from tpoint_stats() against the counts the threads kept. Twice: in discard mode (the
 * default) and in overwrite mode, where the file must moreover hold each thread's newest
 * records: an unbroken run of sequence numbers ending with its last call. Then twice more
 * with the main thread calling tpoint_flush() every 10 ms meanwhile: in overwrite mode,
 * where a flush spools pages being written that a writer may take back at any moment, and
 * switching between the two modes at each flush. A record a flush spooled and a writer then
 * overwrote must count once, as recorded. Then the last three again through a 1 MiB pool,
 * where streams take pages in runs, the flushes once more through a 16 MiB pool, where the
 * runs are 64 pages long, and a stop with every thread alive and holding pages
 * (held_at_stop()).
 */
#include "stressutil.h"
#include <pthread.h>
#include <stdbool.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_stress.h>

#define NTHREADS 4
#define RUN_NS 500000000ull
/* A bound on the calls of one thread, so that a fast machine does not make a huge file. */
#define MAX_CALLS 3000000ull

struct worker {
	pthread_t th;
	uint32_t tid;
	uint64_t seq;         /* records expected so far: calls of stress_rec + kept stress_cond */
	uint64_t rec_calls;   /* stress_rec */
	uint64_t cond_pass;   /* stress_cond with keep */
	uint64_t cond_fail;   /* stress_cond without */
	/* What the reader found. */
	uint64_t seen, last_seq, first_seq;
	int have_last;
};

static struct worker workers[NTHREADS];
static int stop_flag;
/* held_at_stop(): each thread's calls, then it waits, alive, until released. */
static uint64_t call_cap;
static int capped_done, release_flag;

static void *hammer(void *arg)
{
	struct worker *w = (struct worker *)arg;
	char pad[SU_PAD_MAX + 1];
	uint64_t x = 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)arg;

	w->tid = (uint32_t)tu_gettid();
	for (uint64_t i = 0; i < (call_cap ? call_cap : MAX_CALLS); i++) {
		if ((i & 255) == 0 && __atomic_load_n(&stop_flag, __ATOMIC_RELAXED))
			break;
		/* xorshift: the condition's outcome must not follow a pattern the pages align to */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t val = x >> 40;
		uint64_t sum = su_make(w->tid, w->seq, val, pad);

		if (i & 1) {
			trace_stress_rec(w->tid, w->seq, val, pad, sum, 1);
			w->rec_calls++;
			w->seq++;
		} else {
			int keep = (int)(x & 1);

			trace_stress_cond(w->tid, w->seq, val, pad, sum, keep);
			if (keep) {
				w->cond_pass++;
				w->seq++;
			} else {
				w->cond_fail++;
			}
		}
	}
	if (call_cap) {
		__atomic_fetch_add(&capped_done, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&release_flag, __ATOMIC_ACQUIRE)) {
			struct timespec ts = { 0, 1000000 };

			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

struct reader {
	uint64_t intact, broken, order_errors, gaps, unknown_tid;
	uint64_t per_event[2]; /* stress_rec, stress_cond */
};

static struct worker *worker_of(uint32_t tid)
{
	for (int i = 0; i < NTHREADS; i++)
		if (workers[i].tid == tid)
			return &workers[i];
	return NULL;
}

static int read_line(const struct tu_line *l, void *arg)
{
	struct reader *rd = (struct reader *)arg;
	struct su_rec r;
	const char *why;
	struct worker *w;

	if (!strcmp(l->name, "stress_rec"))
		rd->per_event[0]++;
	else if (!strcmp(l->name, "stress_cond"))
		rd->per_event[1]++;
	if (su_check(l, &r, &why) < 0) {
		if (rd->broken++ < 5)
			fprintf(stderr, "broken record (%s): %s: %s\n", why, l->name, l->text);
		return 0;
	}
	rd->intact++;
	w = worker_of(r.tid);
	if (!w) {
		rd->unknown_tid++;
		return 0;
	}
	if (w->have_last && r.seq <= w->last_seq) {
		if (rd->order_errors++ < 5)
			fprintf(stderr, "thread %u: seq %llu after %llu\n", r.tid,
				(unsigned long long)r.seq, (unsigned long long)w->last_seq);
	} else if (w->have_last && r.seq != w->last_seq + 1) {
		rd->gaps++;
	}
	if (!w->have_last)
		w->first_seq = r.seq;
	w->have_last = 1;
	w->last_seq = r.seq;
	w->seen++;
	return 0;
}

static void snapshot(struct tpoint_event_stats *rec, struct tpoint_event_stats *cond)
{
	CHECK(tu_stats("tpt_stress", "stress_rec", rec) == 0, "stats know stress_rec");
	CHECK(tu_stats("tpt_stress", "stress_cond", cond) == 0, "stats know stress_cond");
}

enum churn { QUIET, FLUSHES, FLUSHES_AND_SWITCHES };

static void run(enum tpoint_mode mode, const char *file, enum churn churn, unsigned pool_kib)
{
	const char *mname = churn == FLUSHES_AND_SWITCHES ? "switching"
			    : mode == TPOINT_MODE_OVERWRITE ? "overwrite" : "discard";
	unsigned flushes = 0;
	struct tpoint_event_stats r0, c0, r1, c1;
	uint64_t rec_calls = 0, cond_pass = 0, cond_fail = 0, t0;
	struct reader rd;
	struct tu_report rep;
	int ret;

	uint64_t leaks0 = __atomic_load_n(&su_pool_leaks, __ATOMIC_RELAXED);

	printf("%s mode, %u KiB pool, %d threads%s:\n", mname, pool_kib, NTHREADS,
	       churn ? ", flushing every 10 ms" : "");
	memset(workers, 0, sizeof(workers));
	__atomic_store_n(&stop_flag, 0, __ATOMIC_RELAXED);
	snapshot(&r0, &c0);
	CHECK(tpoint_set_buffer_size((size_t)pool_kib << 10) == 0, "%u KiB pool accepted",
	      pool_kib);
	CHECK(tpoint_set_mode(mode) == 0, "mode %s accepted", mname);
	ret = tpoint_record_start(file);
	REQUIRE(ret == 0, "tpoint_record_start(%s): %s", file, strerror(-ret));

	t0 = tu_mono_ns();
	for (int i = 0; i < NTHREADS; i++)
		REQUIRE(pthread_create(&workers[i].th, NULL, hammer, &workers[i]) == 0,
			"pthread_create");
	while (tu_mono_ns() - t0 < RUN_NS) {
		struct timespec ts = { 0, 10000000 };

		nanosleep(&ts, NULL);
		if (churn == FLUSHES_AND_SWITCHES)
			CHECK(tpoint_set_mode(flushes % 2 ? TPOINT_MODE_DISCARD
							  : TPOINT_MODE_OVERWRITE) == 0,
			      "switch modes while recording");
		if (churn != QUIET) {
			ret = tpoint_flush();
			CHECK(ret >= 0, "tpoint_flush: %s (%s)", strerror(-ret), su_last_error);
			flushes++;
		}
	}
	__atomic_store_n(&stop_flag, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(workers[i].th, NULL);
	ret = tpoint_record_stop();
	REQUIRE(ret == 0, "tpoint_record_stop: %s", strerror(-ret));
	snapshot(&r1, &c1);

	for (int i = 0; i < NTHREADS; i++) {
		rec_calls += workers[i].rec_calls;
		cond_pass += workers[i].cond_pass;
		cond_fail += workers[i].cond_fail;
	}
	uint64_t rrec = r1.recorded - r0.recorded, rlost = r1.lost - r0.lost;
	uint64_t crec = c1.recorded - c0.recorded, clost = c1.lost - c0.lost;
	uint64_t cskip = c1.cond_skipped - c0.cond_skipped;

	tu_note("calls: stress_rec %" PRIu64 ", stress_cond %" PRIu64 " kept + %" PRIu64
		" skipped, in %.2f s, %u flushes",
		rec_calls, cond_pass, cond_fail, (double)(tu_mono_ns() - t0) / 1e9, flushes);
	tu_note("stats: stress_rec recorded %" PRIu64 " lost %" PRIu64
		"; stress_cond recorded %" PRIu64 " lost %" PRIu64 " cond_skipped %" PRIu64,
		rrec, rlost, crec, clost, cskip);
	CHECK_EXACT(leaks0, rrec + rlost == rec_calls,
	      "%s: stress_rec recorded %" PRIu64 " + lost %" PRIu64 " = %" PRIu64
	      ", calls %" PRIu64,
	      mname, rrec, rlost, rrec + rlost, rec_calls);
	CHECK_EXACT(leaks0, crec + clost == cond_pass,
	      "%s: stress_cond recorded %" PRIu64 " + lost %" PRIu64 " = %" PRIu64
	      ", kept calls %" PRIu64,
	      mname, crec, clost, crec + clost, cond_pass);
	CHECK(cskip == cond_fail, "%s: cond_skipped %" PRIu64 ", failed conditions %" PRIu64,
	      mname, cskip, cond_fail);
	CHECK(r1.cond_skipped == r0.cond_skipped, "stress_rec has no condition to skip");
	/*
	 * Something must be lost when the records could not all fit in the pool: 40 bytes is
	 * less than one of these records takes (header, common fields, 28 bytes of payload).
	 * Threads slowed down enough (ThreadSanitizer, a loaded machine under ASan) can make
	 * fewer than a big pool holds.
	 */
	if ((rec_calls + cond_pass) * 40 > (uint64_t)pool_kib << 10)
		CHECK(rlost + clost > 0, "%s: a %u KiB pool under 4 hammering threads, %" PRIu64
		      " records, loses something", mname, pool_kib, rec_calls + cond_pass);

	ret = tu_check_events(file);
	CHECK(ret == 0, "trace-cmd report --check-events %s: exit %d", file, ret);

	memset(&rd, 0, sizeof(rd));
	REQUIRE(tu_report_each(file, read_line, &rd, &rep) == 0, "run trace-cmd report");
	CHECK(rep.status == 0, "trace-cmd report exit %d", rep.status);
	CHECK(rep.malformed == 0 && rep.other == 0, "%" PRIu64 " malformed, %" PRIu64
	      " other lines", rep.malformed, rep.other);
	CHECK(rd.broken == 0, "%s: %" PRIu64 " broken records of %" PRIu64, mname, rd.broken,
	      rep.events);
	CHECK(rd.unknown_tid == 0, "%" PRIu64 " records of threads that did not write",
	      rd.unknown_tid);
	CHECK(rd.order_errors == 0, "%s: %" PRIu64 " sequence numbers out of order or repeated",
	      mname, rd.order_errors);
	CHECK(rd.per_event[0] == rrec, "%s: file has %" PRIu64 " stress_rec, stats recorded %"
	      PRIu64, mname, rd.per_event[0], rrec);
	CHECK(rd.per_event[1] == crec, "%s: file has %" PRIu64 " stress_cond, stats recorded %"
	      PRIu64, mname, rd.per_event[1], crec);
	tu_note("file: %" PRIu64 " records, all intact: %s; sequence errors %" PRIu64
		", gaps %" PRIu64 ", trace-cmd shows %" PRIu64 " dropped",
		rep.events, rd.broken ? "NO" : "yes", rd.order_errors, rd.gaps, rep.dropped);
	CHECK(rep.dropped <= rlost + clost, "dropped %" PRIu64 " shown, only %" PRIu64 " lost",
	      rep.dropped, rlost + clost);

	if (mode == TPOINT_MODE_OVERWRITE && churn == QUIET) {
		/*
		 * The flight recorder keeps the newest pages. Every thread's last page is its
		 * current one, never overwritten; older pages go oldest first, so what is kept
		 * of a thread is an unbroken run up to its last record.
		 */
		CHECK_EXACT(leaks0, rd.gaps == 0, "overwrite: %" PRIu64 " gaps inside a thread's kept records",
		      rd.gaps);
		for (int i = 0; i < NTHREADS; i++) {
			struct worker *w = &workers[i];

			CHECK_EXACT(leaks0, w->have_last && w->last_seq + 1 == w->seq,
			      "overwrite: thread %u's newest record in the file is seq %" PRIu64
			      ", its last was %" PRIu64,
			      w->tid, w->have_last ? w->last_seq : 0, w->seq - 1);
			CHECK_EXACT(leaks0, w->seen == w->last_seq - w->first_seq + 1,
			      "overwrite: thread %u kept %" PRIu64 " records, seq %" PRIu64
			      "..%" PRIu64,
			      w->tid, w->seen, w->first_seq, w->last_seq);
		}
		tu_note("overwrite: each thread's records are an unbroken run ending at its last");
	}
	if (__atomic_load_n(&su_pool_leaks, __ATOMIC_RELAXED) != leaks0)
		tu_note("%s: the library logged %" PRIu64 " pages leaving the pool (known bug)",
			mname, __atomic_load_n(&su_pool_leaks, __ATOMIC_RELAXED) - leaks0);
	unlink(file);
}

/*
 * Threads that write less than the pool holds and are still alive when the recording stops.
 * In overwrite mode the full pages of their runs are held back, not queued
 * (retire_or_hold()): the stop must spool them as it does pages being written, and every
 * record is in the file, none lost.
 */
static void held_at_stop(void)
{
	struct tpoint_event_stats r0, c0, r1, c1;
	uint64_t rec_calls = 0, cond_pass = 0;
	struct reader rd;
	struct tu_report rep;
	int ret;

	printf("overwrite mode, 1024 KiB pool, %d threads alive at the stop, 1000 calls each:\n",
	       NTHREADS);
	memset(workers, 0, sizeof(workers));
	call_cap = 1000;
	capped_done = release_flag = stop_flag = 0;
	snapshot(&r0, &c0);
	CHECK(tpoint_set_buffer_size(1 << 20) == 0, "1 MiB pool accepted");
	CHECK(tpoint_set_mode(TPOINT_MODE_OVERWRITE) == 0, "overwrite mode accepted");
	ret = tpoint_record_start("stress-held.dat");
	REQUIRE(ret == 0, "tpoint_record_start: %s", strerror(-ret));
	for (int i = 0; i < NTHREADS; i++)
		REQUIRE(pthread_create(&workers[i].th, NULL, hammer, &workers[i]) == 0,
			"pthread_create");
	while (__atomic_load_n(&capped_done, __ATOMIC_ACQUIRE) < NTHREADS)
		sched_yield();
	ret = tpoint_record_stop();
	REQUIRE(ret == 0, "tpoint_record_stop: %s", strerror(-ret));
	__atomic_store_n(&release_flag, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(workers[i].th, NULL);
		rec_calls += workers[i].rec_calls;
		cond_pass += workers[i].cond_pass;
	}
	call_cap = 0;
	snapshot(&r1, &c1);
	CHECK(rec_calls + cond_pass >= NTHREADS * 500, "held: %" PRIu64 " calls recorded",
	      rec_calls + cond_pass);
	CHECK(r1.recorded - r0.recorded == rec_calls && r1.lost == r0.lost,
	      "held: stress_rec recorded %" PRIu64 ", lost %" PRIu64 ", of %" PRIu64 " calls",
	      r1.recorded - r0.recorded, r1.lost - r0.lost, rec_calls);
	CHECK(c1.recorded - c0.recorded == cond_pass && c1.lost == c0.lost,
	      "held: stress_cond recorded %" PRIu64 ", lost %" PRIu64 ", of %" PRIu64 " kept",
	      c1.recorded - c0.recorded, c1.lost - c0.lost, cond_pass);
	memset(&rd, 0, sizeof(rd));
	REQUIRE(tu_report_each("stress-held.dat", read_line, &rd, &rep) == 0,
		"run trace-cmd report");
	CHECK(rd.broken == 0 && rd.order_errors == 0 && rd.gaps == 0,
	      "held: %" PRIu64 " broken, %" PRIu64 " out of order, %" PRIu64 " gaps",
	      rd.broken, rd.order_errors, rd.gaps);
	CHECK(rd.per_event[0] == rec_calls && rd.per_event[1] == cond_pass,
	      "held: the file has %" PRIu64 " stress_rec of %" PRIu64 ", %" PRIu64
	      " stress_cond of %" PRIu64, rd.per_event[0], rec_calls, rd.per_event[1],
	      cond_pass);
	tu_note("file: all %" PRIu64 " records", rep.events);
	unlink("stress-held.dat");
}

/*
 * `stress_test overwrite` runs only the overwrite-mode cases: those in which a race once left
 * a gap in a thread's kept records, a few seconds under ASan where the whole test takes
 * minutes, so that they can be run hundreds of times in a row.
 */
int main(int argc, char **argv)
{
	bool only_overwrite = argc > 1 && !strcmp(argv[1], "overwrite");

	if (argc > 1 && !only_overwrite) {
		fprintf(stderr, "usage: stress_test [overwrite]\n");
		return 2;
	}
	tu_require_trace_cmd();
	su_listen();
	REQUIRE(tpoint_enable("tpt_stress:stress_*") == 2, "two events enabled");
	if (!only_overwrite)
		run(TPOINT_MODE_DISCARD, "stress-discard.dat", QUIET, 64);
	run(TPOINT_MODE_OVERWRITE, "stress-overwrite.dat", QUIET, 64);
	run(TPOINT_MODE_OVERWRITE, "stress-flushes.dat", FLUSHES, 64);
	if (!only_overwrite)
		run(TPOINT_MODE_DISCARD, "stress-switching.dat", FLUSHES_AND_SWITCHES, 64);
	/*
	 * A pool of 256 pages: streams take runs of 5 pages and, in overwrite mode, hold back
	 * their full pages until a run is used up (retire_or_hold() in lib/writer.c), which
	 * a flush, the stop and the overwriting of the oldest pages must all get right.
	 */
	run(TPOINT_MODE_OVERWRITE, "stress-runs.dat", QUIET, 1024);
	run(TPOINT_MODE_OVERWRITE, "stress-runs-flushes.dat", FLUSHES, 1024);
	if (!only_overwrite)
		run(TPOINT_MODE_DISCARD, "stress-runs-switching.dat", FLUSHES_AND_SWITCHES, 1024);
	/* 4096 pages: runs of the longest kind, RESERVE_RUN_MAX (64) pages. */
	run(TPOINT_MODE_OVERWRITE, "stress-long-runs.dat", FLUSHES, 16384);
	held_at_stop();
	tpoint_set_mode(TPOINT_MODE_DISCARD);
	return tu_finish();
}
