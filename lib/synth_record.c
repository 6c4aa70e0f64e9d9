/* SPDX-License-Identifier: MIT */
/*
 * The writing of synthetic records (see synth_pending.h): what a call site's hit function
 * does (stage 6), with the record's bytes copied from the queue instead of assigned: reserve
 * on the thread's current level, fill, then publish, or through the filtered path when the
 * event has a filter or triggers (and always after the slow path made room, which may have
 * given a scratch page); a record that finds no room is counted lost by the slow path.
 */
#include <string.h>
#include <tpoint/event.h>
#include "synth_pending.h"
#include "synth_record.h"
#include "writer.h"

static void write_one(struct tpoint_event *ev, const void *rec, uint32_t size)
{
	uint32_t word = tpoint_enabled_peek(ev);
	struct tpoint_stream *s;
	void *entry;

	if (!(word & TPOINT_ENABLED_RECORD))
		return; /* switched off since its hit */
	if (size > TPOINT_MAX_PAYLOAD) {
		tpoint_count_lost_v1(ev);
		return;
	}
	entry = tpoint_reserve(size, &s);
	if (!entry) {
		if (!tpoint_make_room_v1(ev, tpoint_record_total(size)))
			return; /* counted lost */
		entry = tpoint_reserve(size, &s);
		if (!entry) {
			tpoint_count_lost_v1(ev);
			return;
		}
		word |= TPOINT_ENABLED_FILTER; /* a scratch page is the filtered path's */
	}
	memcpy(entry, rec, size);
	if (word & TPOINT_ENABLED_FILTER)
		tpoint_filter_commit_v2(ev, s, size);
	else
		tpoint_publish(ev, s, entry, size);
}

void tp_synth_record_flush(void)
{
	struct thread_rec *rec = TPOINT_TLS.thread;
	struct synth_pending *p = rec ? rec->synth_pending : NULL;

	if (!p)
		return;
	/* Taken before it is written: a handler that writes the queue meanwhile goes on
	 * after it. The loop reads n again each time. */
	while (p->head != p->n) {
		unsigned i = p->head++ % SYNTH_PENDING_MAX;

		write_one(p->q[i].ev, p->q[i].rec, p->q[i].size);
	}
}
