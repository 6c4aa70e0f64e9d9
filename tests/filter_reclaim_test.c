// SPDX-License-Identifier: MIT
/*
 * filter_reclaim_test - a filter replaced thousands of times (as `tpoint filter -p` does,
 * through tpoint_set_filter()) while threads hit the event: the replaced compiled filters
 * are freed once no thread can still be evaluating them, so the heap does not grow with
 * the number of replacements (issue 30), and every record is still judged by a whole
 * filter: all rejected while every filter rejects all, the right ones kept after.
 *
 * Exit 0 when every check passes; each check prints one line.
 */
#include "testutil.h"
#include <malloc.h>
#include <pthread.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_api.h>

#define THREADS 4
#define REPLACEMENTS 20000

static volatile int stop;
static uint64_t hits[THREADS];

static void *hitter(void *arg)
{
	uint64_t *n = arg;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		for (int i = 0; i < 100; i++) {
			trace_api_tick(i);
			/* a program does other things too: outside a record, a thread holds no filter */
			for (volatile int k = 0; k < 20; k++)
				;
		}
		*n += 100;
	}
	return NULL;
}

static int tick_stats(struct tpoint_event_stats *st)
{
	struct tpoint_event_stats all[64];
	int n = tpoint_stats(all, 64);

	for (int i = 0; i < n; i++)
		if (!strcmp(all[i].name, "api_tick")) {
			*st = all[i];
			return 0;
		}
	return -1;
}

/* Bytes of the heap in use; 0 where malloc is not glibc's (a sanitizer's). */
static size_t heap_used(void)
{
	return mallinfo2().uordblks;
}

int main(void)
{
	pthread_t th[THREADS];
	struct tpoint_event_stats st;
	char expr[64];
	uint64_t total = 0;
	size_t before, during, after;
	/* ThreadSanitizer's build keeps replaced filters (lib/event_filter.c): fewer rounds */
	int replacements = getenv("TPOINT_TSAN_QUICK") ? REPLACEMENTS / 10 : REPLACEMENTS;

	REQUIRE(tpoint_record_start("reclaim.dat") == 0, "start recording");
	REQUIRE(tpoint_enable("tpt_api:api_tick") > 0, "enable tpt_api:api_tick");
	REQUIRE(tpoint_set_filter("api_tick", "n < -1") == 0, "a first filter that rejects all");
	for (int i = 0; i < THREADS; i++)
		REQUIRE(pthread_create(&th[i], NULL, hitter, &hits[i]) == 0, "start thread %d", i);

	/* A few rounds first: the registry's and the threads' own allocations settle. */
	for (int i = 0; i < 200; i++) {
		snprintf(expr, sizeof(expr), "n < -%d", 2 + i % 7);
		tpoint_set_filter("api_tick", expr);
	}
	before = heap_used();
	for (int i = 0; i < replacements; i++) {
		/* each one rejects every n the threads hit (0..99), each with a text of its own */
		snprintf(expr, sizeof(expr), "n < -%d || (n > 1000 && n != %d)", 2 + i % 7, i);
		if (tpoint_set_filter("api_tick", expr)) {
			CHECK(0, "replacement %d failed", i);
			break;
		}
	}
	during = heap_used(); /* the threads still hit: filters are freed as they go */
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		total += hits[i];
	}
	/* With every thread gone quiet, one more replacement frees what is left waiting. */
	tpoint_set_filter("api_tick", "n < -1");
	after = heap_used();
	if (before) {
		tu_note("heap in use: %zu bytes before %d replacements, %zu at their end, %zu "
			"once the threads ended", before, replacements, during, after);
		/*
		 * A thread preempted in the middle of a record holds back what was replaced
		 * after it: what waits is a time's worth of replacements, not their number
		 * (6.8 MB when none is freed).
		 */
		CHECK(during < before + 2 * 1024 * 1024,
		      "replaced filters are freed while the threads hit the event: the heap grew "
		      "by %zd bytes (bound 2 MiB)",
		      (ssize_t)(during - before));
		CHECK(after < before + 64 * 1024,
		      "%d replaced filters are freed: the heap grew by %zd bytes (bound 64 KiB)",
		      replacements, (ssize_t)(after - before));
	} else {
		tu_note("no glibc heap figures (a sanitizer's malloc): the growth is not measured");
	}

	REQUIRE(tick_stats(&st) == 0, "stats of api_tick");
	tu_note("%" PRIu64 " hits by %d threads during the replacements", total, THREADS);
	CHECK(total > 0, "the threads hit the event");
	CHECK(st.recorded == 0, "every filter rejected every record: %" PRIu64 " recorded",
	      st.recorded);
	CHECK(st.filtered + st.lost == total,
	      "every hit judged: %" PRIu64 " filtered + %" PRIu64 " lost = %" PRIu64 " hits",
	      st.filtered, st.lost, total);

	/* The last filter is still right: 10 of each 100 kept. */
	REQUIRE(tpoint_set_filter("api_tick", "n < 10") == 0, "a filter that keeps n < 10");
	for (int i = 0; i < 100; i++)
		trace_api_tick(i);
	struct tpoint_event_stats st2;

	REQUIRE(tick_stats(&st2) == 0, "stats of api_tick");
	CHECK(st2.recorded - st.recorded == 10, "n < 10 keeps 10 of 100: %" PRIu64,
	      st2.recorded - st.recorded);
	CHECK(tpoint_record_stop() == 0, "stop recording");
	return tu_finish();
}
