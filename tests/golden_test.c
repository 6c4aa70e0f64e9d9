// SPDX-License-Identifier: MIT
/*
 * golden_test - record events of every field kind and print helper through the C API, from
 * one thread, with known values; read the file back with `trace-cmd report` and compare each
 * event's text exactly with the text written here. Also: the comm, tid and CPU columns,
 * timestamps monotonic and within 10 ms of CLOCK_MONOTONIC read around each call, the
 * condition's skips counted, and `trace-cmd report --check-events` accepting every format.
 */
#include "testutil.h"
#include <sys/sysinfo.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_golden.h>

#define FILE_NAME "golden.dat"
#define SLACK_NS 10000000ull /* 10 ms */

struct expect {
	const char *name;
	const char *text;
	uint64_t before, after; /* CLOCK_MONOTONIC around the call */
};

static struct expect exp_[32];
static int nexp;

/* Bracket one call with clock reads; `name` NULL when the call must leave no record. */
#define EMIT(ev_name, want, call)                                                            \
	do {                                                                                 \
		uint64_t b_ = tu_mono_ns();                                                  \
		call;                                                                        \
		uint64_t a_ = tu_mono_ns();                                                  \
		if (ev_name) {                                                               \
			exp_[nexp].name = ev_name;                                           \
			exp_[nexp].text = want;                                              \
			exp_[nexp].before = b_;                                              \
			exp_[nexp].after = a_;                                               \
			nexp++;                                                              \
		}                                                                            \
	} while (0)

static void emit_all(void)
{
	const struct golden_pt pt = { 1, -2 }, zero_pt = { 0, 0 };
	const u32 vals[] = { 1, 2, 0xabcdef };
	const u8 buf[] = { 0xde, 0xad, 0xbe, 0xef };
	const u8 mac[6] = { 0x00, 0x1b, 0x21, 0x3c, 0x4d, 0xff };

	EMIT("golden_fields",
	     "a=200 b=-1234 c=0xbeef d=-5000000000 e=18446744073709551615 "
	     "pt=01 00 00 00 fe ff ff ff tag=tagtagt name=alpha vals=1 2 11259375",
	     trace_golden_fields(200, -1234, 0xbeef, -5000000000ll, UINT64_MAX, &pt,
				 "tagtagtagtag", "alpha", vals, 3));
	/*
	 * libtraceevent prints __print_array as decimal values separated by blanks (the kernel:
	 * "{0x1,0x2}"); a NULL string is recorded as "(null)", as in the kernel.
	 */
	EMIT("golden_fields",
	     "a=0 b=0 c=0 d=0 e=0 pt=00 00 00 00 00 00 00 00 tag= name=(null) vals=",
	     trace_golden_fields(0, 0, 0, 0, 0, &zero_pt, "", NULL, NULL, 0));
	EMIT("golden_fields",
	     "a=255 b=32767 c=0xffffffff d=9223372036854775807 e=1 "
	     "pt=ff ff ff 7f 00 00 00 80 tag=1234567 name=a longer name with spaces vals=11259375",
	     trace_golden_fields(255, 32767, 0xffffffffu, INT64_MAX, 1,
				 &(struct golden_pt){ INT32_MAX, INT32_MIN }, "12345678",
				 "a longer name with spaces", vals + 2, 1));
	/* Leftover flag bits print in hex; an unknown symbol prints its value in hex. */
	EMIT("golden_bits", "flags=READ|SYNC|0x100 state=run buf=de ad be ef mac=00 1b 21 3c 4d ff",
	     trace_golden_bits(GOLDEN_READ | GOLDEN_SYNC | 0x100, GOLDEN_RUN, buf, 4, mac));
	EMIT("golden_bits", "flags= state=done buf=de mac=00 1b 21 3c 4d ff",
	     trace_golden_bits(0, GOLDEN_DONE, buf, 1, mac));
	EMIT("golden_bits", "flags=READ|WRITE|SYNC state=idle buf=ad be mac=00 1b 21 3c 4d ff",
	     trace_golden_bits(7, GOLDEN_IDLE, buf + 1, 2, mac));
	EMIT("golden_bits", "flags=WRITE state=0x7 buf=ef mac=00 1b 21 3c 4d ff",
	     trace_golden_bits(GOLDEN_WRITE, 7, buf + 3, 1, mac));
	EMIT("golden_open", "id=1 what=first", trace_golden_open(1, "first"));
	EMIT("golden_open", "id=-7 what=", trace_golden_open(-7, ""));
	EMIT("golden_maybe", "id=2 what=even", trace_golden_maybe(2, "even"));
	EMIT(NULL, NULL, trace_golden_maybe(3, "odd"));
	EMIT(NULL, NULL, trace_golden_maybe(5, "odd"));
	EMIT("golden_maybe", "id=4 what=even again", trace_golden_maybe(4, "even again"));
	EMIT("golden_alt", "alt #42 <answer>", trace_golden_alt(42, "answer"));
	EMIT("golden_open", "id=3 what=last", trace_golden_open(3, "last"));
}

static void read_comm(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/comm", "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

int main(void)
{
	struct tpoint_event_stats st;
	struct tu_lines lines = { 0 };
	struct tu_report rep;
	char comm[64];
	int ncpus = get_nprocs_conf();
	int n, ret;

	tu_require_trace_cmd();
	read_comm(comm, sizeof(comm));

	CHECK(!trace_golden_open_enabled(), "an event is off before anything enabled it");
	CHECK(tpoint_set_buffer_size(1 << 20) == 0, "1 MiB pool accepted");
	n = tpoint_enable("tpt_golden:*");
	CHECK(n == 5, "tpoint_enable(\"tpt_golden:*\") matched %d events, want 5", n);
	/* As in the kernel: enabled events record, into memory until a file is asked for. */
	CHECK(trace_golden_open_enabled(), "enabled, recording into memory: on");
	ret = tpoint_record_start(FILE_NAME);
	REQUIRE(ret == 0, "tpoint_record_start: %s", strerror(-ret));
	CHECK(trace_golden_open_enabled(), "on while recording");
	CHECK(tpoint_record_start("other.dat") == -EBUSY, "a second recording is refused");
	CHECK(tpoint_set_buffer_size(1 << 20) == -EBUSY, "no resize while recording");

	pid_t tid = tu_gettid();
	emit_all();

	ret = tpoint_record_stop();
	REQUIRE(ret == 0, "tpoint_record_stop: %s", strerror(-ret));
	CHECK(trace_golden_open_enabled(), "still on once the recording stopped: into memory");
	CHECK(tpoint_record_stop() == -ENOENT, "stopping twice says nothing runs");
	tu_note("recorded %d events with known values from thread %d", nexp, (int)tid);

	/* The condition: two odd ids skipped, two even ids recorded, nothing lost. */
	CHECK(tu_stats("tpt_golden", "golden_maybe", &st) == 0, "stats know golden_maybe");
	CHECK(st.cond_skipped == 2 && st.recorded == 2 && st.lost == 0 && st.hits == 4,
	      "golden_maybe: hits %" PRIu64 " cond_skipped %" PRIu64 " recorded %" PRIu64
	      " lost %" PRIu64 ", want 4 2 2 0",
	      st.hits, st.cond_skipped, st.recorded, st.lost);
	CHECK(st.condition && !strcmp(st.condition, "id % 2 == 0"),
	      "condition text is the source: '%s'", st.condition ? st.condition : "(null)");
	tu_note("golden_maybe: condition '%s' skipped %" PRIu64 ", recorded %" PRIu64,
		st.condition ? st.condition : "", st.cond_skipped, st.recorded);

	ret = tu_check_events(FILE_NAME);
	CHECK(ret == 0, "trace-cmd report --check-events exit %d", ret);
	tu_note("trace-cmd report --check-events: exit %d", ret);

	REQUIRE(tu_report_each(FILE_NAME, tu_save_line, &lines, &rep) == 0, "run trace-cmd");
	CHECK(rep.status == 0, "trace-cmd report exit %d", rep.status);
	CHECK(rep.dropped == 0 && rep.dropped_unknown == 0, "no events dropped");
	CHECK(rep.other == 0 && rep.malformed == 0, "no unexpected lines");
	CHECK((int)lines.n == nexp, "report has %zu events, want %d", lines.n, nexp);

	for (int i = 0; i < nexp && i < (int)lines.n; i++) {
		const struct tu_line *l = &lines.v[i].l;

		CHECK(!strcmp(l->name, exp_[i].name), "line %d: event %s, want %s", i, l->name,
		      exp_[i].name);
		CHECK(!strcmp(l->text, exp_[i].text), "line %d (%s):\n\tgot  '%s'\n\twant '%s'",
		      i, exp_[i].name, l->text, exp_[i].text);
		CHECK(l->tid == (int)tid, "line %d: tid %d, want %d", i, l->tid, (int)tid);
		CHECK(!strcmp(l->comm, comm), "line %d: comm '%s', want '%s'", i, l->comm, comm);
		CHECK(l->cpu >= 0 && l->cpu < ncpus, "line %d: cpu %d of %d", i, l->cpu, ncpus);
		CHECK(l->ts + SLACK_NS >= exp_[i].before && l->ts <= exp_[i].after + SLACK_NS,
		      "line %d: timestamp %" PRIu64 " not within 10 ms of [%" PRIu64 ", %" PRIu64
		      "]",
		      i, l->ts, exp_[i].before, exp_[i].after);
		if (i > 0)
			CHECK(l->ts >= lines.v[i - 1].l.ts, "line %d: timestamp goes back", i);
	}
	tu_note("%zu report lines: texts equal the golden strings, comm '%s', tid %d, cpu < %d, "
		"timestamps monotonic and within 10 ms of CLOCK_MONOTONIC",
		lines.n, comm, (int)tid, ncpus);
	if (lines.n)
		tu_note("first: %s: %s", lines.v[0].l.name, lines.v[0].l.text);
	tu_lines_free(&lines);
	return tu_finish();
}
