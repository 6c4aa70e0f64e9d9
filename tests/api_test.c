/* SPDX-License-Identifier: MIT */
/*
 * api_test - the runtime API's contract: errors as documented (-EINVAL, -EBUSY, -ENOENT,
 * -errno of the file), tpoint_flush() completing the file while recording goes on, a
 * thread's new name reaching the file, a second recording in the same process, and a
 * running recording switched from discard to overwrite mode and back.
 */
#include "testutil.h"
#include <errno.h>
#include <pthread.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_api.h>

struct count {
	uint64_t n;
	char comm[64];
	int first, last; /* the first and last n= seen */
};

static int count_line(const struct tu_line *l, void *arg)
{
	struct count *c = (struct count *)arg;

	if (!strcmp(l->name, "api_tick")) {
		const char *v = strstr(l->text, "n=");
		int n = v ? atoi(v + 2) : -1;

		if (!c->n)
			c->first = n;
		c->last = n;
		c->n++;
		snprintf(c->comm, sizeof(c->comm), "%s", l->comm);
	}
	return 0;
}

static uint64_t events_in(const char *file, char *comm)
{
	struct count c = { 0, "", 0, 0 };
	struct tu_report r;

	tu_report_each(file, count_line, &c, &r);
	CHECK(r.status == 0 && r.malformed == 0, "%s: trace-cmd report status %d", file, r.status);
	if (comm)
		strcpy(comm, c.comm);
	return c.n;
}

int main(void)
{
	char comm[64];
	int ret;

	tu_require_trace_cmd();
	CHECK(tpoint_enable("") == -EINVAL, "an empty pattern is -EINVAL");
	CHECK(tpoint_enable("a b") == -EINVAL, "a pattern with a blank is -EINVAL");
	CHECK(tpoint_enable("nosuch:*") == 0, "a pattern matching nothing matches 0");
	CHECK(tpoint_set_buffer_size(1000) == -EINVAL, "a pool below 64K is -EINVAL");
	CHECK(tpoint_set_mode((enum tpoint_mode)7) == -EINVAL, "an unknown mode is -EINVAL");
	CHECK(tpoint_record_stop() == -ENOENT, "stop without a recording is -ENOENT");
	CHECK(tpoint_flush() == -ENOENT, "flush without a recording is -ENOENT");
	ret = tpoint_record_start("/nonexistent-dir/x.dat");
	CHECK(ret == -ENOENT, "an unwritable path gives -ENOENT, got %d", ret);
	CHECK(tpoint_record_start("") == -EINVAL, "an empty path is -EINVAL");

	CHECK(tpoint_enable("tpt_api:*") == 1, "tpt_api:* matches the one event");
	CHECK(tpoint_set_buffer_size(256 << 10) == 0, "256K pool");
	REQUIRE(tpoint_record_start("api.dat") == 0, "start recording");
	CHECK(tpoint_record_start("other.dat") == -EBUSY, "a second start is -EBUSY");
	CHECK(tpoint_set_buffer_size(1 << 20) == -EBUSY, "resizing while recording is -EBUSY");
	for (int i = 0; i < 100; i++)
		trace_api_tick(i);
	ret = tpoint_flush();
	CHECK(ret == 100, "flush writes the 100 events so far, said %d", ret);
	CHECK(events_in("api.dat", NULL) == 100, "after flush the file holds 100 events");
	for (int i = 100; i < 150; i++)
		trace_api_tick(i);
	pthread_setname_np(pthread_self(), "renamed-main");
	CHECK(tpoint_record_stop() == 0, "stop");
	CHECK(events_in("api.dat", comm) == 150, "after stop the file holds all 150 events");
	CHECK(!strcmp(comm, "renamed-main"), "the thread's latest name is in the file: '%s'",
	      comm);
	CHECK(access("api.dat.spool", F_OK) != 0, "the spool is removed");
	tu_note("errors as documented; flush then stop: 100 then 150 events, comm '%s'", comm);

	/* A second recording in the same process: the threads leave the old pool behind. */
	REQUIRE(tpoint_record_start("api2.dat") == 0, "start a second recording");
	for (int i = 0; i < 70; i++)
		trace_api_tick(i);
	CHECK(tpoint_record_stop() == 0, "stop the second");
	CHECK(events_in("api2.dat", NULL) == 70, "the second file holds its 70 events");
	CHECK(events_in("api.dat", NULL) == 150, "the first file is unchanged");
	struct tpoint_event_stats st;

	CHECK(tu_stats("tpt_api", "api_tick", &st) == 0 && st.recorded == 220 && st.lost == 0,
	      "counters add up over both recordings: recorded %llu lost %llu",
	      (unsigned long long)st.recorded, (unsigned long long)st.lost);
	tu_note("a second recording: 70 events, counters over the process: %llu",
		(unsigned long long)st.recorded);

	/* tpoint_set_filter(): the C API's way to the same filters. */
	CHECK(tpoint_set_filter("tpt_api:api_tick", "n >= 10 && n < 20") == 0, "set a filter");
	CHECK(tpoint_set_filter("api_tick", "n >") == -EINVAL, "a bad expression is -EINVAL");
	CHECK(tpoint_set_filter("nosuch", "n > 1") == -ENOENT, "an unknown event is -ENOENT");
	REQUIRE(tpoint_record_start("api3.dat") == 0, "start a third recording");
	for (int i = 0; i < 100; i++)
		trace_api_tick(i);
	/* Cleared and set again while recording: the enable word follows at once. */
	CHECK(tpoint_set_filter("api_tick", "") == 0, "clear the filter");
	for (int i = 0; i < 5; i++)
		trace_api_tick(i);
	CHECK(tpoint_set_filter("api_tick", "n == 7") == 0, "set another filter");
	for (int i = 0; i < 10; i++)
		trace_api_tick(i);
	CHECK(tpoint_record_stop() == 0, "stop the third");
	CHECK(events_in("api3.dat", NULL) == 16, "the filters kept 10 + 5 + 1 events: %llu",
	      (unsigned long long)events_in("api3.dat", NULL));
	CHECK(tu_stats("tpt_api", "api_tick", &st) == 0 && st.filtered == 99,
	      "99 records filtered, counted: %llu", (unsigned long long)st.filtered);
	CHECK(tpoint_set_filter("api_tick", "") == 0, "clear the filter");
	tu_note("tpoint_set_filter: 10 of 100 kept, then 5 of 5 unfiltered, then 1 of 10");

	/*
	 * The mode of a running recording: in overwrite mode the drain leaves the pages alone
	 * and the 64-page pool keeps the newest; back in discard mode they go to the file, and
	 * what was overwritten is counted as lost, exactly.
	 */
	struct tpoint_event_stats before, after;
	struct count c = { 0, "", 0, 0 };
	struct tu_report r;

	CHECK(tu_stats("tpt_api", "api_tick", &before) == 0, "counters before");
	REQUIRE(tpoint_record_start("api4.dat") == 0, "start a fourth recording");
	for (int i = 0; i < 10; i++)
		trace_api_tick(i);
	CHECK(tpoint_flush() == 10, "discard mode: the first 10 reach the file");
	CHECK(tpoint_set_mode(TPOINT_MODE_OVERWRITE) == 0, "switch to overwrite while recording");
	for (int i = 1000; i < 201000; i++)
		trace_api_tick(i);
	CHECK(tpoint_set_mode(TPOINT_MODE_DISCARD) == 0, "switch back to discard");
	/* The pool is all full pages now: the flush frees them for what comes next. */
	CHECK(tpoint_flush() > 0, "flush after the switch");
	for (int i = 300000; i < 300100; i++)
		trace_api_tick(i);
	CHECK(tpoint_record_stop() == 0, "stop the fourth");
	CHECK(tu_stats("tpt_api", "api_tick", &after) == 0, "counters after");
	tu_report_each("api4.dat", count_line, &c, &r);
	uint64_t rec = after.recorded - before.recorded, lost = after.lost - before.lost;

	CHECK(r.status == 0 && r.malformed == 0, "api4.dat: trace-cmd report status %d", r.status);
	CHECK(rec + lost == 200110, "recorded %llu + lost %llu = the 200110 hits",
	      (unsigned long long)rec, (unsigned long long)lost);
	CHECK(lost > 150000 && c.n == rec, "a 256K pool kept the newest: %llu in the file, "
	      "recorded %llu, lost %llu", (unsigned long long)c.n, (unsigned long long)rec,
	      (unsigned long long)lost);
	CHECK(c.first == 0 && c.last == 300099, "the file runs from n=0 to n=300099: %d..%d",
	      c.first, c.last);
	tu_note("mode switched while recording: %llu of 200110 kept, %llu overwritten",
		(unsigned long long)c.n, (unsigned long long)lost);
	return tu_finish();
}
