/* SPDX-License-Identifier: MIT */
/*
 * tracedat_select - what a consumer selected (tpoint record -p, struct tracedat_select):
 * the events kept, and the records their filters leave out, counted as filtered.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "filter.h"
#include "growbuf.h"
#include "ringbuf.h"
#include "tracedat_format.h"
#include "tracedat_v7.h"
#include "tracedat_writer.h"

/* Output id -> event, for the selection's judgement of each record; again after a sort. */
void tp_tdw_build_by_id(struct writer_state *w)
{
	if (!w->by_id)
		return;
	memset(w->by_id, 0, 0x10000 * sizeof(*w->by_id));
	for (size_t i = 0; i < w->nevents; i++)
		w->by_id[w->events[i].id] = &w->events[i];
}

/*
 * A selection that keeps the user stacks (ftrace:user_stack) keeps the mappings that name
 * them (tpoint:user_stack_map), whole: without them a reader shows addresses only.
 */
void tp_tdw_keep_stack_maps(struct writer_state *w)
{
	struct out_event *stack = NULL, *maps = NULL;

	for (size_t i = 0; i < w->nevents; i++) {
		struct out_event *e = &w->events[i];

		if (!strcmp(e->system, "ftrace") && !strcmp(e->name, "user_stack"))
			stack = e;
		else if (!strcmp(e->system, "tpoint") && !strcmp(e->name, "user_stack_map"))
			maps = e;
	}
	if (stack && maps && !stack->dropped && maps->dropped) {
		maps->dropped = false;
		if (maps->filter) {
			tp_filter_free(maps->filter);
			maps->filter = NULL;
		}
	}
}

/* Does the record of output id `id` go into the file? */
bool tp_tdw_selected(const struct writer_state *w, uint16_t id, const char *data, uint32_t size)
{
	const struct out_event *e = w->by_id ? w->by_id[id] : NULL;

	return !e || (!e->dropped && (!e->filter || filter_match(e->filter, data, size)));
}

/*
 * The records the selection's filters, or tracing_on's off windows, leave out count as filtered: the counts go into the
 * file before the records do, so they are judged once ahead.
 */
void tp_tdw_count_filtered(struct writer_state *w)
{
	char *unpacked = malloc(SPOOL_UNPACKED_MAX);

	for (size_t i = 0; unpacked && i < w->nchunks; i++) {
		const struct stream_chunk *ch = &w->chunks[i];
		struct spool_iter it;
		const char *data;
		uint64_t clock;
		uint32_t size;
		uint16_t id;

		tp_spool_iter_init(&it, ch->type, (const char *)ch->hdr, ch->size, unpacked);
		while (tp_spool_iter_next(&it, &clock, &data, &size)) {
			struct out_event *e;

			struct spool_in *s = &w->in[ch->spool];

			memcpy(&id, data, 2);
			e = w->by_id[tp_tdw_out_id(s, id)];
			if (!e || e->dropped)
				continue;
			/* A record of a tracing_on off window is left out, as a filter's is. */
			if (!tp_tdw_traced_off(s, clock) &&
			    (!e->filter || filter_match(e->filter, data, size)))
				continue;
			if (w->sel && tp_tdw_to_ns(s, clock) < w->sel->since)
				continue;
			e->stat.filtered++;
			if (e->stat.recorded)
				e->stat.recorded--;
		}
	}
	free(unpacked);
}
