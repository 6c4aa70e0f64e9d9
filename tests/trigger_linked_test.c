/* SPDX-License-Identifier: MIT */
/*
 * trigger_linked_test - linked hist triggers in the process (lib/trigger_linked.c): a
 * synthetic event, a start trigger saving a variable, an end trigger whose onmatch() traces
 * the latency into the synthetic event, and the synthetic event's .log2 histogram.
 *
 *  - exact: PAIRS_MAX begin/end pairs, each begun on one of two begin threads and ended on its
 *    partner end thread, with latencies of 0, 3, 50, 300, 70000 on the program's clock `t`;
 *    the synthetic histogram's buckets are what the test computes (the kernel's
 *    hist_field_log2(): ilog2(roundup_pow_of_two(v))), Hits the number of pairs;
 *  - carried: adding or removing a linked trigger rebuilds the set, and the histograms and
 *    variables of the others go on as the kernel's do (a start seen before the rebuild pairs
 *    with its end seen after); :clear starts its own trigger over, and no other;
 *  - removal while threads hit: four threads hit both events without pause while the main
 *    thread removes and sets the end trigger (and the synthetic event's histogram) again and
 *    again: each change rebuilds the process's set and retires the old one after grace;
 *    nothing crashes, TSan sees no race (make check-tsan runs this), and the last set counts.
 *
 * Exit 0 when every check passes.
 */
#include "testutil.h"
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <tpoint/tpoint.h>
#include "hist_text.h"

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_hlat.h>

#define PAIRS_MAX 20000 /* per begin thread (TPOINT_TSAN_QUICK: a tenth) */
#define WINDOW 50   /* pairs begun ahead of their ends, fewer than the 100 ids a pair uses */

static unsigned long pairs = PAIRS_MAX;
static const unsigned long long lat_us[] = { 0, 3, 50, 300, 70000 };

struct pair_line {
	unsigned base;         /* ids base .. base + 99 */
	unsigned long begun;   /* atomic: begins emitted */
	unsigned long ended;   /* atomic: ends emitted */
};

static unsigned long long t_of(unsigned long j)
{
	return 1000000ull + j * 100000ull;
}

static void *begins(void *arg)
{
	struct pair_line *l = arg;

	for (unsigned long j = 0; j < pairs; j++) {
		while (j >= __atomic_load_n(&l->ended, __ATOMIC_ACQUIRE) + WINDOW)
			sched_yield();
		trace_hl_begin(l->base + (unsigned)(j % 100), t_of(j));
		__atomic_store_n(&l->begun, j + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void *ends(void *arg)
{
	struct pair_line *l = arg;

	for (unsigned long j = 0; j < pairs; j++) {
		while (j >= __atomic_load_n(&l->begun, __ATOMIC_ACQUIRE))
			sched_yield();
		trace_hl_done(l->base + (unsigned)(j % 100), t_of(j) + lat_us[j % 5], "get");
		__atomic_store_n(&l->ended, j + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static unsigned log2_bucket(unsigned long long v)
{
	unsigned b = 0;

	while ((1ull << b) < v)
		b++;
	return b;
}

/* The "{ lat: ~ 2^B } hitcount: H" lines into count[], and Hits. */
static unsigned long long parse(const char *text, unsigned long long count[64])
{
	unsigned long long hits = 0;

	memset(count, 0, 64 * sizeof(count[0]));
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		unsigned b;
		unsigned long long c;

		if (sscanf(l, "{ lat: ~ 2^%u } hitcount: %llu", &b, &c) == 2 && b < 64)
			count[b] = c;
		sscanf(l, "    Hits: %llu", &hits);
	}
	return hits;
}

static const char *const end_trigger =
	"hist:keys=id:lat=t-$t0:onmatch(tpt_hlat.hl_begin).trace(lat,$lat)";

static void exact(void)
{
	struct pair_line lines[2] = { { .base = 0 }, { .base = 100 } };
	pthread_t th[4];
	unsigned long long want[64] = { 0 }, got[64];
	char *text;

	REQUIRE(tpoint_set_trigger("synthetic_events", "lat u64 lat") == 0, "synthetic event");
	REQUIRE(tpoint_set_trigger("tpt_hlat:hl_begin", "hist:keys=id:t0=t") == 0, "begin");
	REQUIRE(tpoint_set_trigger("tpt_hlat:hl_done", end_trigger) == 0, "end");
	REQUIRE(tpoint_set_trigger("synthetic:lat", "hist:keys=lat.log2") == 0, "synthetic's");
	for (int i = 0; i < 2; i++) {
		REQUIRE(pthread_create(&th[2 * i], NULL, begins, &lines[i]) == 0, "pthread_create");
		REQUIRE(pthread_create(&th[2 * i + 1], NULL, ends, &lines[i]) == 0, "pthread_create");
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	for (unsigned long j = 0; j < pairs; j++)
		want[log2_bucket(lat_us[j % 5])] += 2;
	text = hist_text("synthetic:lat");
	CHECK(parse(text, got) == 2 * pairs, "Hits: every pair\n%s", text);
	for (int b = 0; b < 64; b++)
		CHECK(got[b] == want[b], "2^%d: %llu, not %llu\n%s", b, got[b], want[b], text);
	free(text);
	tu_note("%lu pairs over two begin and two end threads: .log2 buckets exact", 2 * pairs);
}

/* Hits of synthetic:lat, and its 2^bucket's count, now. */
static unsigned long long synth_hits(unsigned bucket, unsigned long long *in_bucket)
{
	unsigned long long got[64], hits;
	char *text = hist_text("synthetic:lat");

	hits = parse(text, got);
	*in_bucket = got[bucket];
	free(text);
	return hits;
}

static void carried(void)
{
	unsigned long long hits, b2, before = synth_hits(2, &b2), b2_before = b2;

	trace_hl_begin(5000, 1000);
	/* Another synthetic event: the set is rebuilt, the others' state goes on. */
	CHECK(tpoint_set_trigger("synthetic_events", "other u64 x") == 0, "another definition");
	hits = synth_hits(2, &b2);
	CHECK(hits == before && b2 == b2_before, "a rebuild kept the histogram: Hits %llu, not %llu",
	      hits, before);
	trace_hl_done(5000, 1003, "get");
	hits = synth_hits(2, &b2);
	CHECK(hits == before + 1 && b2 == b2_before + 1,
	      "a start before the rebuild pairs with its end after it: Hits %llu, 2^2 %llu; "
	      "want %llu, %llu", hits, b2, before + 1, b2_before + 1);
	CHECK(tpoint_set_trigger("synthetic_events", "!other") == 0, "the definition removed");
	hits = synth_hits(2, &b2);
	CHECK(hits == before + 1, "a removal kept the histogram: Hits %llu, not %llu", hits,
	      before + 1);
	CHECK(tpoint_set_trigger("synthetic:lat", "hist:keys=lat.log2:clear") == 0, ":clear");
	hits = synth_hits(2, &b2);
	CHECK(hits == 0, ":clear starts it over: Hits %llu", hits);
	trace_hl_begin(5001, 2000);
	trace_hl_done(5001, 2003, "get");
	hits = synth_hits(2, &b2);
	CHECK(hits == 1 && b2 == 1, "after :clear, one pair: Hits %llu, 2^2 %llu", hits, b2);
	tu_note("a rebuild of the set (a trigger added, removed) keeps the histograms and the "
		"variables; :clear starts only its own over");
}

static volatile int stop;

static void *hammer(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	unsigned long long t = 1;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		trace_hl_begin(id, t);
		trace_hl_done(id, t + 7, "put");
		t += 10;
		if (!(t % 640)) /* the main thread, which changes the triggers, gets the CPU too */
			sched_yield();
	}
	return NULL;
}

static void churn(void)
{
	int rounds = getenv("TPOINT_TSAN_QUICK") ? 50 : 300, failed = 0;
	pthread_t th[4];
	unsigned long long got[64];
	char *text;

	for (int i = 0; i < 4; i++)
		REQUIRE(pthread_create(&th[i], NULL, hammer, (void *)(uintptr_t)(1000 + i)) == 0,
			"pthread_create");
	for (int r = 0; r < rounds; r++) {
		failed += tpoint_set_trigger("tpt_hlat:hl_done", "!hist:keys=id:lat=t-$t0:onmatch("
					     "tpt_hlat.hl_begin).trace(lat,$lat)") != 0;
		failed += tpoint_set_trigger("synthetic:lat", "!hist:keys=lat.log2") != 0;
		failed += tpoint_set_trigger("synthetic:lat", "hist:keys=lat.log2") != 0;
		failed += tpoint_set_trigger("tpt_hlat:hl_done", end_trigger) != 0;
	}
	CHECK(!failed, "%d of %d changes failed", failed, 4 * rounds);
	/* The last set counts: wait for hits to reach it (no timing: until it has some). */
	for (;;) {
		text = hist_text("synthetic:lat");
		if (parse(text, got) > 0)
			break;
		free(text);
		sched_yield();
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	free(text);
	text = hist_text("synthetic:lat");
	CHECK(parse(text, got) > 0 && got[3] > 0, "the last set counts latency 7 as 2^3\n%s",
	      text);
	free(text);
	tu_note("%d rebuilds of the set while 4 threads hit both events", 2 * rounds);
}

int main(void)
{
	if (getenv("TPOINT_TSAN_QUICK"))
		pairs = PAIRS_MAX / 10;
	exact();
	carried();
	churn();
	return tu_finish();
}
