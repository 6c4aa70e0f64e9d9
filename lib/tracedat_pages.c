/* SPDX-License-Identifier: MIT */
/*
 * tracedat_pages - one CPU's output: pages in the kernel's ring-buffer layout, filled in
 * time order, losses marked on the page after them as the kernel marks them.
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


void tp_tdw_page_close(struct page_out *po)
{
	uint64_t commit = po->used;

	if (!po->open)
		return;
	if (po->lost) {
		/* The count goes right after the data. */
		commit |= RB_MISSED_EVENTS | RB_MISSED_STORED;
		memcpy(po->page + TPOINT_PAGE_HEADER + po->used, &po->lost, 8);
	} else if (po->lost_unknown) {
		commit |= RB_MISSED_EVENTS; /* alone: "[EVENTS DROPPED]" */
	}
	memcpy(po->page + 8, &commit, 8);
	if (po->td7)
		tp_td7_cpu_data(po->td7, po->cpu, po->page, TPOINT_PAGE_SIZE);
	else
		tp_tdw_out_write(po->f, po->page, TPOINT_PAGE_SIZE);
	po->pages++;
	po->open = false;
	po->lost = 0;
	po->lost_unknown = false;
}

void tp_tdw_page_add(struct page_out *po, uint64_t ns, const char *payload, uint32_t size,
		     uint16_t id, uint64_t lost_before, bool lost_unknown)
{
	uint64_t delta;
	uint32_t need = 8 + size;

	if ((lost_before || lost_unknown) && po->open)
		tp_tdw_page_close(po); /* the mark says: lost before this page */
	if (ns < po->last_ns)
		ns = po->last_ns; /* a clock sample's rounding must not run time backwards */
	delta = po->open ? ns - po->last_ns : 0;
	if (tp_rb_delta_too_wide(delta))
		need += 8;
	if (po->open && po->used + need > TPOINT_PAGE_DATA_END)
		tp_tdw_page_close(po);
	if (!po->open) {
		memset(po->page, 0, sizeof(po->page));
		memcpy(po->page, &ns, 8);
		po->used = 0;
		po->open = true;
		delta = 0;
	}
	po->lost += lost_before;
	po->lost_unknown |= lost_unknown;
	char *d = po->page + TPOINT_PAGE_HEADER + po->used;

	if (tp_rb_delta_too_wide(delta)) {
		uint32_t ext[2];

		tp_rb_time_extend(delta, ext);
		memcpy(d, ext, 8);
		d += 8;
		po->used += 8;
		delta = 0;
	}
	uint64_t hdr = tpoint_record_header(delta, 8 + size);

	memcpy(d, &hdr, 8);
	memcpy(d + 8, payload, size);
	memcpy(d + 8, &id, 2); /* the file's id for this event */
	po->used += 8 + size;
	po->last_ns = ns;
	po->events++;
}
