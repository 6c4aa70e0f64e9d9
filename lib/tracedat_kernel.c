/* SPDX-License-Identifier: MIT */
/*
 * tracedat_kernel - the kernel's records (tpoint record -k, struct tracedat_extra): its
 * events with their own ids, taken first so that no spool's takes them, and its cmdlines.
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

/* The events of tracedat_extra, with their own ids: first, so that no spool's takes them. */
int tp_tdw_add_extra_events(struct writer_state *w)
{
	const struct tracedat_extra *x = w->extra;
	struct out_event *n;

	if (!x->nevents)
		return 0;
	n = realloc(w->events, (w->nevents + x->nevents) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	w->events = n;
	w->events_cap = w->nevents + x->nevents;
	for (size_t i = 0; i < x->nevents; i++) {
		struct out_event *e = &w->events[w->nevents];

		memset(e, 0, sizeof(*e));
		e->system = strdup(x->events[i].system);
		e->name = strdup(x->events[i].name);
		e->condition = strdup("");
		e->format_body = x->events[i].format;
		e->id = x->events[i].id;
		w->ids_taken[e->id / 64] |= 1ull << (e->id % 64);
		e->stat.recorded = x->events[i].recorded;
		e->kernel = true;
		w->nevents++;
		if (!e->system || !e->name || !e->condition)
			return -ENOMEM;
	}
	return 0;
}

/* The extra's "PID COMM" lines, for the pids the spools do not name. */
void tp_tdw_add_extra_cmdlines(struct writer_state *w, const char *text)
{
	while (text && *text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		char line[128], *sp;
		unsigned long tid;
		size_t i;

		snprintf(line, sizeof(line), "%.*s", (int)len, text);
		text += len + (nl != NULL);
		tid = strtoul(line, &sp, 10);
		if (sp == line || *sp != ' ' || !tid || tid > UINT32_MAX)
			continue;
		for (i = 0; i < w->ncomms && w->comms[i].tid != tid; i++)
			;
		if (i == w->ncomms)
			tp_tdw_add_cmdline(w, (uint32_t)tid, sp + 1);
	}
}
