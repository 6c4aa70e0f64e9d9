// SPDX-License-Identifier: MIT
/*
 * synth_pending_test - the queue of a thread's synthetic records (lib/synth_pending.h): mapped
 * at the first record, SYNTH_PENDING_MAX at most between two flushes (the rest refused, for
 * the caller to count lost), a record too large refused, and the ring's indices going on
 * across flushes (a flush takes what is between head and n, as lib/synth_record.c does).
 */
#include "testutil.h"
#include "synth_pending.h"

int main(void)
{
	struct synth_pending *p = NULL;
	struct tpoint_event ev = { 0 };
	uint64_t rec[4] = { 0 };
	unsigned accepted = 0;

	for (unsigned i = 0; i < SYNTH_PENDING_MAX + 3; i++) {
		rec[1] = i;
		accepted += (unsigned)tp_synth_pending_add(&p, &ev, rec, sizeof(rec));
	}
	REQUIRE(p != NULL, "the queue was not mapped");
	CHECK(accepted == SYNTH_PENDING_MAX && p->n - p->head == SYNTH_PENDING_MAX,
	      "%u accepted, %u queued", accepted, p->n - p->head);
	/* A flush, as synth_record.c's: in order, each once. */
	for (unsigned k = 0; p->head != p->n; k++) {
		unsigned i = p->head++ % SYNTH_PENDING_MAX;

		CHECK(p->q[i].ev == &ev && p->q[i].size == sizeof(rec) && p->q[i].rec[1] == k,
		      "record %u", k);
	}
	/* Around the ring: slots reused, order kept. */
	for (unsigned round = 0; round < 3; round++) {
		for (unsigned i = 0; i < 5; i++) {
			rec[1] = 100 * round + i;
			CHECK(tp_synth_pending_add(&p, &ev, rec, sizeof(rec)), "round %u add %u",
			      round, i);
		}
		for (unsigned k = 0; p->head != p->n; k++)
			CHECK(p->q[p->head++ % SYNTH_PENDING_MAX].rec[1] == 100 * round + k,
			      "round %u record %u", round, k);
	}
	CHECK(!tp_synth_pending_add(&p, &ev, rec, HIST_SYNTH_REC_MAX + 9),
	      "a record larger than a slot is refused");
	tu_note("%u records between flushes, the rest refused; the ring keeps order", SYNTH_PENDING_MAX);
	return tu_finish();
}
