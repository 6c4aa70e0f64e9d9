/* SPDX-License-Identifier: MIT */
/*
 * tracedat_ids - the events' ids in the output file: each spool's events mapped by system and
 * name, renumbered where two processes use one id for different events; the bounds each
 * event's records must keep (their format's fields); the cmdlines.
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


static size_t name_hash(const char *sys, const char *name)
{
	size_t h = 14695981039346656037ull; /* FNV-1a over "sys\0name" */

	for (const char *p = sys;; p++) {
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
		if (!*p)
			break;
	}
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

/* The index slot of that system and name: the event's, or the empty one it would take. */
static uint32_t *name_slot(struct writer_state *w, const char *sys, const char *name)
{
	size_t mask = w->name_index_size - 1, i = name_hash(sys, name) & mask;

	for (;; i = (i + 1) & mask) {
		uint32_t *slot = &w->name_index[i];
		const struct out_event *e = *slot ? &w->events[*slot - 1] : NULL;

		if (!e || (!strcmp(e->system, sys) && !strcmp(e->name, name)))
			return slot;
	}
}

/* Room for one more event in the index: 0, or -ENOMEM. */
static int name_index_grow(struct writer_state *w)
{
	size_t size = w->name_index_size ? w->name_index_size : 64;

	if (2 * (w->nevents + 1) <= w->name_index_size)
		return 0;
	while (2 * (w->nevents + 1) > size)
		size *= 2;
	uint32_t *index = calloc(size, sizeof(*index));

	if (!index)
		return -ENOMEM;
	free(w->name_index);
	w->name_index = index;
	w->name_index_size = size;
	for (size_t i = 0; i < w->nevents; i++)
		if (!w->events[i].kernel)
			*name_slot(w, w->events[i].system, w->events[i].name) = (uint32_t)i + 1;
	return 0;
}

bool tp_tdw_id_taken(const struct writer_state *w, uint16_t id)
{
	return w->ids_taken[id / 64] >> (id % 64) & 1;
}

/* A thread's latest name wins: trace-cmd shows either of two lines for one pid. */
void tp_tdw_add_cmdline(struct writer_state *w, uint32_t tid, const char *comm)
{
	size_t i;

	for (i = 0; i < w->ncomms; i++)
		if (w->comms[i].tid == tid)
			break;
	if (i == w->ncomms) {
		struct comm *n = realloc(w->comms, (w->ncomms + 1) * sizeof(*n));

		if (!n)
			return;
		w->comms = n;
		w->ncomms++;
	}
	w->comms[i].tid = tid;
	snprintf(w->comms[i].comm, sizeof(w->comms[i].comm), "%s", comm);
}

/* A record's bounds from the event's format text: each "field:" line's offset and size. */
void tp_tdw_format_bounds(struct out_event *e)
{
	for (const char *p = e->format_body; p && (p = strstr(p, "field:"));) {
		const char *nl = strchr(p, '\n');
		const char *o = strstr(p, "offset:"), *z = strstr(p, "size:"), *type = p + 6;
		unsigned long off, size;

		if (!o || !z || (nl && (o > nl || z > nl)))
			break;
		off = strtoul(o + 7, NULL, 10);
		size = strtoul(z + 5, NULL, 10);
		if (off > TPOINT_MAX_PAYLOAD || size > TPOINT_MAX_PAYLOAD)
			break;
		if (off + size > e->fixed_end)
			e->fixed_end = (uint32_t)(off + size);
		while (*type == ' ' || *type == '\t')
			type++;
		if (size == 4 && e->nlocs < sizeof(e->locs) / sizeof(e->locs[0]) &&
		    (!strncmp(type, "__data_loc ", 11) || !strncmp(type, "__rel_loc ", 10))) {
			e->locs[e->nlocs].off = (uint16_t)off;
			e->locs[e->nlocs++].rel = type[2] == 'r';
		}
		p = nl;
	}
}

/* Does a record of `size` bytes hold what its event's format says it does? */
bool tp_tdw_record_fits(const struct out_event *e, const char *data, uint32_t size)
{
	if (size < e->fixed_end)
		return false;
	for (uint8_t i = 0; i < e->nlocs; i++) {
		uint32_t v, start;

		memcpy(&v, data + e->locs[i].off, 4);
		/* __data_loc: offset in the record; __rel_loc: from the end of the field. */
		start = (v & 0xffff) + (e->locs[i].rel ? e->locs[i].off + 4u : 0);
		if (start + (v >> 16) > size)
			return false;
	}
	return true;
}

/*
 * An event a spool names (checked by the reader): 0, -ENOMEM, or -ENOSPC when the spools
 * name more distinct events than the file has ids for.
 */
int tp_tdw_map_event(struct writer_state *w, struct spool_in *s, const struct spool_event_def *d)
{
	uint16_t id = d->id;
	const char *sys = d->system, *name = d->name, *cond = d->condition, *fmt = d->format;
	const char *body = strstr(fmt, "format:");
	struct out_event *e;
	uint32_t *named;

	if (name_index_grow(w) < 0)
		return -ENOMEM;
	named = name_slot(w, sys, name);
	if (*named) {
		e = &w->events[*named - 1];
	} else {
		if (w->nspool_events == OUT_IDS_MAX)
			return -ENOSPC;
		if (w->nevents == w->events_cap) {
			size_t cap = w->events_cap ? 2 * w->events_cap : 64;
			struct out_event *n = realloc(w->events, cap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			w->events = n;
			w->events_cap = cap;
		}
		e = &w->events[w->nevents];
		memset(e, 0, sizeof(*e));
		e->system = strdup(sys);
		e->name = strdup(name);
		e->condition = strdup(cond);
		e->format_body = body;
		tp_tdw_format_bounds(e);
		if (!e->system || !e->name || !e->condition)
			return -ENOMEM;
		if (w->sel)
			e->dropped = !w->sel->event(w->sel->ctx, sys, name, fmt, &e->filter);
		/* The spool's own id if it is free, else the next free one (there is one);
		 * ftrace:user_stack the kernel's (tracedat_format.h). */
		uint16_t out = id;

		if (!strcmp(sys, "ftrace") && !strcmp(name, "user_stack") &&
		    !tp_tdw_id_taken(w, TD_ID_USER_STACK) && !tp_tdw_id_taken(w, TD_ID_AFTER_USER_STACK))
			out = TD_ID_USER_STACK;

		while (tp_tdw_id_taken(w, out))
			out = out == UINT16_MAX ? (uint16_t)TPOINT_FIRST_ID : (uint16_t)(out + 1);
		w->ids_taken[out / 64] |= 1ull << (out % 64);
		e->id = out;
		w->nevents++;
		w->nspool_events++;
		*named = (uint32_t)w->nevents;
	}
	size_t slot = (size_t)(id - TPOINT_FIRST_ID);

	if (slot >= s->nidmap) {
		uint16_t *m = realloc(s->idmap, (slot + 1) * sizeof(*m));

		if (!m)
			return -ENOMEM;
		memset(m + s->nidmap, 0, (slot + 1 - s->nidmap) * sizeof(*m));
		s->idmap = m;
		s->nidmap = slot + 1;
	}
	s->idmap[slot] = e->id;
	return 0;
}

/* The file's id of a spool's event id; 0 if no SPOOL_EVENT chunk of the spool names it. */
uint16_t tp_tdw_out_id(const struct spool_in *s, uint16_t id)
{
	size_t slot = (size_t)(id - TPOINT_FIRST_ID);

	if (id < TPOINT_FIRST_ID || slot >= s->nidmap)
		return 0;
	return s->idmap[slot];
}

struct out_event *tp_tdw_event_by_out_id(struct writer_state *w, uint16_t id)
{
	for (size_t i = 0; i < w->nevents; i++)
		if (w->events[i].id == id)
			return &w->events[i];
	return NULL;
}
