// SPDX-License-Identifier: MIT
/*
 * pause_test - records after a pause too long for a record header's 27-bit time delta.
 *
 * The fast path reads the clock after the fields, and a delta that does not fit goes to the
 * library (tpoint_commit_slow_v1()), which puts a time extend before the filled record: it
 * moves the record 8 bytes on where the page has room for both, and to a new page where it
 * has room for the record alone. The thread, pinned to one CPU so that no migration moves it
 * to another page, places its records so that both cases happen at known offsets of its
 * first page (checked through its stream), then: every record is read back by trace-cmd in
 * order, each pause shows in the timestamps as at least the time slept and no more than the
 * time measured around it, and nothing is lost. A wrong delta (its high bits dropped) would
 * show a gap of at most 2^27 clock ticks, tens of milliseconds.
 */
#define _GNU_SOURCE
#include <sched.h>
#include "testutil.h"

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_pause.h>

/* Longer than 2^27 ticks of any clock up to 447 MHz, and 2^27 TSC ticks are 27-64 ms. */
#define PAUSE_NS UINT64_C(300000000)
#define BIG 40u
#define SMALL 32u

/* Where the thread's level-0 stream writes next, as an offset in its page's event area. */
static uint32_t page_offset(void)
{
	return (uint32_t)((uintptr_t)TPOINT_TLS.stream[0].wp & (TPOINT_PAGE_SIZE - 1)) -
	       TPOINT_PAGE_HEADER;
}

static void pause_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

struct expect {
	uint64_t seq;                  /* records seen in order so far */
	uint64_t bad;
	uint64_t last_ts, gap[2];      /* ns: the gaps before records pause_seq[0] and [1] */
	uint64_t pause_seq[2];
};

static int check_line(const struct tu_line *l, void *arg)
{
	struct expect *e = arg;
	unsigned long long seq;

	if (sscanf(l->text, "seq=%llu", &seq) != 1 || seq != e->seq) {
		if (e->bad++ < 5)
			tu_note("unexpected record %s: %s (want seq=%llu)", l->name, l->text,
				(unsigned long long)e->seq);
		return 0;
	}
	for (int i = 0; i < 2; i++)
		if (seq == e->pause_seq[i])
			e->gap[i] = l->ts - e->last_ts;
	e->last_ts = l->ts;
	e->seq++;
	return 0;
}

int main(void)
{
	uint64_t seq = 0, slept[2], t0;
	struct expect e = { 0 };
	struct tpoint_event_stats big, small;
	cpu_set_t one;
	int cpu = sched_getcpu(), ret;

	tu_require_trace_cmd();
	CPU_ZERO(&one);
	CPU_SET(cpu < 0 ? 0 : cpu, &one);
	REQUIRE(sched_setaffinity(0, sizeof(one), &one) == 0, "pin to CPU %d: %s", cpu,
		strerror(errno));
	CHECK(tpoint_enable("tpt_pause:*") == 2, "enable both events");
	ret = tpoint_record_start("pause.dat");
	REQUIRE(ret == 0, "tpoint_record_start: %s", strerror(-ret));

	/* The thread's first record takes a page: it starts at offset 0. */
	for (int i = 0; i < 10; i++)
		trace_pause_big(seq++, 1, 2);
	CHECK(page_offset() == 10 * BIG, "10 records from the page's start: offset %u",
	      page_offset());

	/* 1. A pause, then a record with room for a time extend before it. */
	e.pause_seq[0] = seq;
	t0 = tu_mono_ns();
	pause_ns(PAUSE_NS);
	trace_pause_big(seq++, 1, 2);
	slept[0] = tu_mono_ns() - t0;
	CHECK(page_offset() == 10 * BIG + 8 + BIG, "the extend and the record: offset %u, want %u",
	      page_offset(), 10 * BIG + 8 + BIG);

	/* Fill the page up to exactly one small record's room: 4072 - 448 - 32 = 85 * 40 + 6 * 32. */
	for (int i = 0; i < 85; i++)
		trace_pause_big(seq++, 1, 2);
	for (int i = 0; i < 6; i++)
		trace_pause_small(seq++, 3);
	CHECK(page_offset() == TPOINT_PAGE_DATA_END - SMALL, "room for one small record: "
	      "offset %u, want %u", page_offset(), TPOINT_PAGE_DATA_END - SMALL);

	/* 2. A pause, then a record that fits, but not with an extend: it goes to a new page. */
	e.pause_seq[1] = seq;
	t0 = tu_mono_ns();
	pause_ns(PAUSE_NS);
	trace_pause_small(seq++, 3);
	slept[1] = tu_mono_ns() - t0;
	CHECK(page_offset() == SMALL, "the record moved to a new page, which starts with it: "
	      "offset %u, want %u", page_offset(), SMALL);
	for (int i = 0; i < 5; i++)
		trace_pause_big(seq++, 1, 2);
	CHECK(page_offset() == SMALL + 5 * BIG, "and the records after it: offset %u",
	      page_offset());

	ret = tpoint_record_stop();
	REQUIRE(ret == 0, "tpoint_record_stop: %s", strerror(-ret));
	REQUIRE(tu_stats("tpt_pause", "pause_big", &big) == 0, "stats of pause_big");
	REQUIRE(tu_stats("tpt_pause", "pause_small", &small) == 0, "stats of pause_small");
	CHECK(big.recorded + small.recorded == seq && big.lost + small.lost == 0,
	      "%" PRIu64 " + %" PRIu64 " recorded, %" PRIu64 " lost; want %" PRIu64 " and 0",
	      big.recorded, small.recorded, big.lost + small.lost, seq);

	struct tu_report rep;

	tu_report_each("pause.dat", check_line, &e, &rep);
	CHECK(rep.status == 0 && rep.malformed == 0 && e.bad == 0 && e.seq == seq,
	      "trace-cmd: status %d, %" PRIu64 " malformed, %" PRIu64 " unexpected, %" PRIu64
	      " of %" PRIu64 " records in order", rep.status, rep.malformed, e.bad, e.seq, seq);
	for (int i = 0; i < 2; i++)
		CHECK(e.gap[i] >= PAUSE_NS && e.gap[i] <= slept[i] + 1000000u,
		      "pause %d: %" PRIu64 " ns between the records, slept %" PRIu64
		      " ns (measured %" PRIu64 ")", i + 1, e.gap[i], PAUSE_NS, slept[i]);
	tu_note("pauses of %.3f and %.3f s read back as %.3f and %.3f s", slept[0] / 1e9,
		slept[1] / 1e9, e.gap[0] / 1e9, e.gap[1] / 1e9);
	return tu_finish();
}
