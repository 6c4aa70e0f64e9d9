// SPDX-License-Identifier: MIT
/*
 * filter_common_test - a filter on the common fields, end to end.
 *
 * The common header (common_type, flags, preempt_count, common_pid) is written when a
 * record is published; a filtered record is judged before that, so the library writes it
 * before the judge. Two threads record the same event under the filter "common_pid == T",
 * T the main thread's id: exactly the main thread's records are kept, the other thread's
 * are counted as filtered, and trace-cmd reads only the main thread's.
 */
#include <pthread.h>
#include "testutil.h"

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_pause.h>

#define N 5000

static void *other(void *arg)
{
	(void)arg;
	for (uint64_t i = 0; i < N; i++)
		trace_pause_small(i, 1);
	return NULL;
}

struct seen {
	uint64_t lines, wrong_tid;
	int tid;
};

static int check_line(const struct tu_line *l, void *arg)
{
	struct seen *s = arg;

	s->lines++;
	if (l->tid != s->tid && s->wrong_tid++ < 5)
		tu_note("a record of thread %d: %s", l->tid, l->text);
	return 0;
}

int main(void)
{
	struct tpoint_event_stats st;
	struct seen seen = { .tid = tu_gettid() };
	struct tu_report rep;
	char expr[64];
	pthread_t th;
	int ret;

	tu_require_trace_cmd();
	snprintf(expr, sizeof(expr), "common_pid == %d", seen.tid);
	CHECK(tpoint_enable("tpt_pause:pause_small") == 1, "enable the event");
	REQUIRE(tpoint_set_filter("tpt_pause:pause_small", expr) == 0, "set the filter %s", expr);
	ret = tpoint_record_start("filter_common.dat");
	REQUIRE(ret == 0, "tpoint_record_start: %s", strerror(-ret));
	REQUIRE(pthread_create(&th, NULL, other, NULL) == 0, "pthread_create");
	for (uint64_t i = 0; i < N; i++)
		trace_pause_small(i, 0);
	pthread_join(th, NULL);
	ret = tpoint_record_stop();
	REQUIRE(ret == 0, "tpoint_record_stop: %s", strerror(-ret));
	REQUIRE(tu_stats("tpt_pause", "pause_small", &st) == 0, "stats of pause_small");
	CHECK(st.recorded == N && st.filtered == N && st.lost == 0,
	      "%" PRIu64 " recorded, %" PRIu64 " filtered, %" PRIu64 " lost; want %d, %d, 0",
	      st.recorded, st.filtered, st.lost, N, N);
	tu_report_each("filter_common.dat", check_line, &seen, &rep);
	CHECK(rep.status == 0 && seen.lines == N && seen.wrong_tid == 0,
	      "trace-cmd: status %d, %" PRIu64 " records, %" PRIu64 " of another thread; want %d "
	      "of thread %d", rep.status, seen.lines, seen.wrong_tid, N, seen.tid);
	return tu_finish();
}
