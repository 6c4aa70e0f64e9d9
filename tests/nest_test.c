// SPDX-License-Identifier: MIT
/*
 * nest_test - records nested inside records, deeper than the library has levels for.
 *
 * A nest_level record traces the next depth while it is being filled, as a signal handler
 * interrupting a tracepoint would, but every time and as deep as asked: depth 0 is the
 * thread's level, depths 1-3 take the nested levels, and depth 4 finds none left (it claims
 * the spare stream, which has no room), so it is dropped and counted as lost, and its
 * TP_fast_assign, which would trace depth 5, never runs. Over many rounds the levels switch
 * pages in the middle of the nesting. Then: the counters say exactly 4 recorded and 1 lost a
 * round, trace-cmd reads each round's depths 0-3 once, each with the depth it nested, a
 * plain event after each round is intact, and no level is left claimed.
 */
#include "testutil.h"

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_nest.h>

#define ROUNDS 3000
#define ASKED_DEPTH 6 /* depths 0-5 asked for; 0-3 fit */
#define LEVELS 4      /* TPOINT_MAX_NESTING */

static int descended[ASKED_DEPTH + 1];

int tpt_nest_descend(int depth, int round)
{
	descended[depth]++;
	if (depth + 1 < ASKED_DEPTH)
		trace_nest_level(depth + 1, round);
	return depth + 1;
}

struct seen {
	uint64_t per_depth[LEVELS];
	uint64_t bad, after, after_bad;
	unsigned char *round_mask; /* bit d: depth d of that round seen */
};

static int check_line(const struct tu_line *l, void *arg)
{
	struct seen *s = arg;
	int depth, round, inner;

	if (!strcmp(l->name, "nest_after")) {
		s->after++;
		if (sscanf(l->text, "round=%d", &round) != 1 || round < 0 || round >= ROUNDS)
			s->after_bad++;
		return 0;
	}
	if (sscanf(l->text, "depth=%d round=%d inner=%d", &depth, &round, &inner) != 3 ||
	    depth < 0 || depth >= LEVELS || round < 0 || round >= ROUNDS || inner != depth + 1 ||
	    (s->round_mask[round] & (1u << depth))) {
		if (s->bad++ < 5)
			tu_note("unexpected record: %s: %s", l->name, l->text);
		return 0;
	}
	s->round_mask[round] |= (unsigned char)(1u << depth);
	s->per_depth[depth]++;
	return 0;
}

int main(void)
{
	struct tpoint_event_stats lv, af;
	int ret;

	CHECK(tpoint_enable("tpt_nest:*") == 2, "enable both events");
	ret = tpoint_record_start("nest.dat");
	REQUIRE(ret == 0, "tpoint_record_start: %s", strerror(-ret));
	for (int r = 0; r < ROUNDS; r++) {
		trace_nest_level(0, r);
		trace_nest_after(r);
	}
	CHECK(TPOINT_TLS.top == &TPOINT_TLS.stream[0], "no level is left claimed");
	ret = tpoint_record_stop();
	REQUIRE(ret == 0, "tpoint_record_stop: %s", strerror(-ret));

	/* Depth 4 was never filled: its fill is what would have traced depth 5. */
	CHECK(descended[0] == ROUNDS && descended[3] == ROUNDS && descended[4] == 0 &&
		      descended[5] == 0,
	      "fills per depth: 0:%d 3:%d 4:%d 5:%d, want %d %d 0 0", descended[0], descended[3],
	      descended[4], descended[5], ROUNDS, ROUNDS);
	REQUIRE(tu_stats("tpt_nest", "nest_level", &lv) == 0, "stats of nest_level");
	REQUIRE(tu_stats("tpt_nest", "nest_after", &af) == 0, "stats of nest_after");
	CHECK(lv.recorded == (uint64_t)LEVELS * ROUNDS && lv.lost == ROUNDS,
	      "nest_level: %" PRIu64 " recorded, %" PRIu64 " lost; want %d and %d",
	      lv.recorded, lv.lost, LEVELS * ROUNDS, ROUNDS);
	CHECK(af.recorded == ROUNDS && af.lost == 0,
	      "nest_after: %" PRIu64 " recorded, %" PRIu64 " lost; want %d and 0", af.recorded,
	      af.lost, ROUNDS);
	tu_note("%d rounds nested %d deep: %" PRIu64 " records, %" PRIu64 " dropped at depth %d",
		ROUNDS, ASKED_DEPTH, lv.recorded, lv.lost, LEVELS);

	if (tu_have_trace_cmd()) {
		struct seen s = { .round_mask = calloc(ROUNDS, 1) };
		struct tu_report rep;
		int whole = 0;

		REQUIRE(s.round_mask, "calloc");
		tu_report_each("nest.dat", check_line, &s, &rep);
		for (int r = 0; r < ROUNDS; r++)
			whole += s.round_mask[r] == (1u << LEVELS) - 1;
		CHECK(rep.status == 0 && rep.malformed == 0 && s.bad == 0,
		      "trace-cmd: status %d, %" PRIu64 " malformed, %" PRIu64 " unexpected",
		      rep.status, rep.malformed, s.bad);
		CHECK(whole == ROUNDS, "%d of %d rounds have depths 0-3 once each", whole, ROUNDS);
		CHECK(s.after == ROUNDS && s.after_bad == 0, "nest_after: %" PRIu64 " records, "
		      "%" PRIu64 " bad; want %d", s.after, s.after_bad, ROUNDS);
		CHECK(rep.dropped == 0 && rep.dropped_unknown == 0,
		      "no page was lost: %" PRIu64 " dropped", rep.dropped);
		tu_note("trace-cmd reads depths 0-3 of every round: %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64, s.per_depth[0], s.per_depth[1], s.per_depth[2],
			s.per_depth[3]);
		free(s.round_mask);
	}
	return tu_finish();
}
