// SPDX-License-Identifier: MIT
/*
 * probe_test - in-process probes and the cost of a disabled tracepoint:
 * register_trace_<name>() callbacks receive the arguments (and their data pointer), on the
 * calling thread, only when the condition holds; trace_<name>_enabled() follows their
 * registration and the recording; while an event is off, its condition is not evaluated, nor
 * are the arguments of tpoint_trace(name, f(x)); those of trace_<name>(f(x)), a function as
 * in the kernel, are evaluated once per call, as C does for any function; while on, each
 * exactly once.
 */
#include "testutil.h"

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_probe.h>

static int arg_evals, cond_evals;

static int arg(int x)
{
	arg_evals++;
	return x;
}

int tpt_probe_cond(int v)
{
	cond_evals++;
	return v >= 0;
}

struct seen {
	int calls;
	int a;
	long b;
	int v;
	char s[32];
	pid_t tid;
	int order;
};
static int order_counter;

static void probe_plain(void *data, int a, long b)
{
	struct seen *s = (struct seen *)data;

	s->calls++;
	s->a = a;
	s->b = b;
	s->tid = tu_gettid();
	s->order = ++order_counter;
}

static void probe_cond(void *data, int v, const char *str)
{
	struct seen *s = (struct seen *)data;

	s->calls++;
	s->v = v;
	snprintf(s->s, sizeof(s->s), "%s", str);
}

static int count_lines(const struct tu_line *l, void *arg)
{
	(void)l;
	(*(int *)arg)++;
	return 0;
}

int main(void)
{
	struct seen a = { 0 }, b = { 0 }, c = { 0 };
	struct tpoint_event_stats st;
	int ret;

	/* Off: nothing evaluated. */
	CHECK(!trace_probe_plain_enabled() && !trace_probe_cond_enabled(), "off at start");
	for (int i = 0; i < 100; i++) {
		tpoint_trace(probe_plain, arg(i), (long)arg(i));
		tpoint_trace(probe_cond, arg(i), "off");
	}
	CHECK(arg_evals == 0, "off: tpoint_trace() evaluated arguments %d times, want 0",
	      arg_evals);
	CHECK(cond_evals == 0, "off: condition evaluated %d times, want 0", cond_evals);
	tu_note("off: 200 tpoint_trace() calls evaluated the condition %d times, arguments %d "
		"times (want 0, 0)", cond_evals, arg_evals);
	for (int i = 0; i < 100; i++)
		trace_probe_cond(arg(i), "off");
	CHECK(arg_evals == 100 && cond_evals == 0,
	      "off: trace_probe_cond(arg(i)) evaluated arguments %d times (want 100: it is a "
	      "function) and the condition %d times (want 0)", arg_evals, cond_evals);
	arg_evals = 0;

	/* One probe: on, called once with the arguments, each argument evaluated once. */
	CHECK(register_trace_probe_plain(probe_plain, &a) == 0, "register probe a");
	CHECK(trace_probe_plain_enabled(), "a probe turns the event on");
	int before = arg_evals;

	CHECK(!trace_probe_cond_enabled(), "only that event");
	trace_probe_plain(arg(7), -8000000000L);
	CHECK(a.calls == 1 && a.a == 7 && a.b == -8000000000L,
	      "probe a: %d calls, a=%d b=%ld", a.calls, a.a, a.b);
	CHECK(a.tid == tu_gettid(), "the probe runs on the calling thread");
	CHECK(arg_evals - before == 1, "on: argument evaluated %d times, want 1",
	      arg_evals - before);
	CHECK(register_trace_probe_plain(probe_plain, &a) == -EEXIST, "same probe twice: -EEXIST");

	/* Two probes with their own data: both called, in the order registered. */
	CHECK(register_trace_probe_plain(probe_plain, &b) == 0, "register probe b");
	trace_probe_plain(1, 2);
	CHECK(a.calls == 2 && b.calls == 1 && a.order < b.order,
	      "both probes called, a first: a %d calls (order %d), b %d (order %d)", a.calls,
	      a.order, b.calls, b.order);
	CHECK(b.a == 1 && b.b == 2, "probe b got a=%d b=%ld", b.a, b.b);
	tu_note("two probes receive the arguments and their own data, in registration order");

	/* The condition gates the probes, and is evaluated exactly once per call while on. */
	CHECK(register_trace_probe_cond(probe_cond, &c) == 0, "register probe c");
	CHECK(trace_probe_cond_enabled(), "probe_cond on");
	arg_evals = cond_evals = 0;
	trace_probe_cond(arg(-1), "no");
	CHECK(cond_evals == 1 && arg_evals == 1 && c.calls == 0,
	      "false condition: evaluated %d, args %d, probe called %d (want 1 1 0)", cond_evals,
	      arg_evals, c.calls);
	trace_probe_cond(arg(3), "yes");
	CHECK(cond_evals == 2 && c.calls == 1 && c.v == 3 && !strcmp(c.s, "yes"),
	      "true condition: evaluated %d, probe called %d with v=%d s=%s", cond_evals,
	      c.calls, c.v, c.s);
	CHECK(tu_stats("tpt_probe", "probe_cond", &st) == 0 && st.cond_skipped == 1,
	      "the skip is counted (%" PRIu64 ")", st.cond_skipped);
	tu_note("condition: evaluated once per call while on; a false one skips the probes "
		"and is counted");

	/* Unregistering: the event stays on while any probe remains. */
	CHECK(unregister_trace_probe_plain(probe_plain, &a) == 0, "unregister a");
	CHECK(trace_probe_plain_enabled(), "still on with probe b");
	trace_probe_plain(5, 6);
	CHECK(a.calls == 2 && b.calls == 2 && b.a == 5, "only b called: a %d, b %d", a.calls,
	      b.calls);
	CHECK(unregister_trace_probe_plain(probe_plain, &a) == -ENOENT, "unregister a again");
	CHECK(unregister_trace_probe_plain(probe_plain, &b) == 0, "unregister b");
	CHECK(unregister_trace_probe_cond(probe_cond, &c) == 0, "unregister c");
	CHECK(!trace_probe_plain_enabled() && !trace_probe_cond_enabled(), "off again");
	arg_evals = cond_evals = 0;
	for (int i = 0; i < 100; i++) {
		tpoint_trace(probe_plain, arg(i), 0);
		tpoint_trace(probe_cond, arg(i), "off");
	}
	CHECK(cond_evals == 0 && a.calls == 2 && b.calls == 2 && c.calls == 1,
	      "off after unregister: condition %d, probes %d %d %d", cond_evals, a.calls,
	      b.calls, c.calls);
	CHECK(arg_evals == 0, "off after unregister: arguments evaluated %d times, want 0",
	      arg_evals);
	tu_note("after the last unregister: off, no probe called, condition evaluated %d times, "
		"arguments %d times (want 0, 0)",
		cond_evals, arg_evals);

	/* Probes and recording together: both see the hit. */
	CHECK(tpoint_enable("tpt_probe:probe_plain") == 1, "enable probe_plain");
	CHECK(trace_probe_plain_enabled(), "enabled: on, recording into memory");
	ret = tpoint_record_start("probe.dat");
	REQUIRE(ret == 0, "tpoint_record_start: %s", strerror(-ret));
	CHECK(trace_probe_plain_enabled(), "recording: on");
	CHECK(register_trace_probe_plain(probe_plain, &a) == 0, "register a while recording");
	trace_probe_plain(arg(11), 12);
	trace_probe_plain(13, 14);
	CHECK(unregister_trace_probe_plain(probe_plain, &a) == 0, "unregister a");
	CHECK(trace_probe_plain_enabled(), "still recording: on");
	trace_probe_plain(15, 16);
	CHECK(a.calls == 4 && a.a == 13, "probe a saw the 2 hits while registered (%d)", a.calls);
	ret = tpoint_record_stop();
	REQUIRE(ret == 0, "tpoint_record_stop: %s", strerror(-ret));
	CHECK(trace_probe_plain_enabled(), "stopped: still on, into memory again");
	CHECK(tu_stats("tpt_probe", "probe_plain", &st) == 0 && st.recorded == 3,
	      "3 records written, stats say %" PRIu64, st.recorded);
	if (tu_have_trace_cmd()) {
		struct tu_report rep;
		int n = 0;

		tu_report_each("probe.dat", count_lines, &n, &rep);
		CHECK(rep.status == 0 && n == 3, "trace-cmd reads %d records, want 3", n);
		tu_note("probes and recording together: the probe saw 2 hits, the file has %d", n);
	}

	/* The same on a DEFINE_EVENT, whose probe loop is its class's: the probe gets the
	 * arguments and the record goes to this event, not to the class's other one. */
	struct seen d = { 0 };

	CHECK(tpoint_enable("tpt_probe:probe_alias") == 1, "enable probe_alias");
	CHECK(register_trace_probe_alias(probe_plain, &d) == 0, "register a probe on probe_alias");
	trace_probe_alias(21, -22000000000L);
	CHECK(d.calls == 1 && d.a == 21 && d.b == -22000000000L,
	      "the DEFINE_EVENT's probe got %d calls, a=%d b=%ld", d.calls, d.a, d.b);
	CHECK(unregister_trace_probe_alias(probe_plain, &d) == 0, "unregister it");
	CHECK(tu_stats("tpt_probe", "probe_alias", &st) == 0 && st.recorded == 1,
	      "probe_alias recorded %" PRIu64 ", want 1", st.recorded);
	CHECK(tu_stats("tpt_probe", "probe_plain", &st) == 0 && st.recorded == 3,
	      "probe_plain still has %" PRIu64 " records, want 3", st.recorded);
	return tu_finish();
}
