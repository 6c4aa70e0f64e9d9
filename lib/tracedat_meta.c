/* SPDX-License-Identifier: MIT */
/*
 * tracedat_meta - the metadata of the file written: the events sorted by system, their
 * formats, the cmdlines and the options (the clock, tpoint's counters and notes), through the
 * serialiser of version 6's blocks (lib/fmt/tracedat_v6.h): one after another in version 6,
 * one section each in version 7.
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
#include "fmt/control_msg.h"
#include "fmt/snapshot_fired.h"
#include "growbuf.h"
#include "ringbuf.h"
#include "tracedat_format.h"
#include "tracedat_v7.h"
#include "tracedat_writer.h"

static int cmp_event(const void *a, const void *b)
{
	const struct out_event *x = a, *y = b;
	int c = strcmp(x->system, y->system);

	return c ? c : (x->id > y->id) - (x->id < y->id);
}

/*
 * The metadata, block by block: version 6 writes them one after another, version 7 one
 * section each (the same bytes, compressed).
 */
static void block_header_info(struct writer_state *w, struct out_file *f)
{
	struct td6_out o = tp_tdw_out_v6(f);

	(void)w;
	tp_td6_put_header_info(&o, tp_td6_tpoint_header_page, tp_td6_tpoint_header_page_len,
			    tp_td6_tpoint_header_event, tp_td6_tpoint_header_event_len);
}

/* Events of the ftrace system (ftrace:user_stack) go in the ftrace formats, as the kernel's. */
static bool ftrace_event(const struct out_event *e)
{
	return !e->dropped && !strcmp(e->system, "ftrace");
}

static void put_event_format(struct td6_out *o, const struct out_event *e)
{
	char head[TPOINT_NAME_MAX + 32];
	int n = snprintf(head, sizeof(head), "name: %s\nID: %u\n", e->name, e->id);

	tp_td6_put_format2(o, head, (size_t)n, e->format_body, strlen(e->format_body));
}

static void block_ftrace_formats(struct writer_state *w, struct out_file *f)
{
	struct td6_out o = tp_tdw_out_v6(f);
	uint32_t n = 0;

	for (size_t i = 0; i < w->nevents; i++)
		n += ftrace_event(&w->events[i]);
	tp_td6_put_u32(&o, n);
	for (size_t i = 0; i < w->nevents; i++)
		if (ftrace_event(&w->events[i]))
			put_event_format(&o, &w->events[i]);
}

/* No kallsyms or printk formats: a count or size of 0. */
static void block_empty(struct writer_state *w, struct out_file *f)
{
	struct td6_out o = tp_tdw_out_v6(f);

	(void)w;
	tp_td6_put_u32(&o, 0);
}

/* Event systems: events sorted by system (sort_events()), each system once. */
static void block_event_formats(struct writer_state *w, struct out_file *f)
{
	struct td6_out o = tp_tdw_out_v6(f);
	uint32_t nsys = 0;
	const char *last = NULL;

	for (size_t i = 0; i < w->nevents; i++)
		if (!w->events[i].dropped && !ftrace_event(&w->events[i]) &&
		    (!last || strcmp(w->events[i].system, last))) {
			nsys++;
			last = w->events[i].system;
		}
	tp_td6_put_u32(&o, nsys);
	for (size_t i = 0; i < w->nevents;) {
		size_t j = i, kept = 0;

		while (j < w->nevents && !strcmp(w->events[j].system, w->events[i].system))
			kept += !w->events[j++].dropped;
		if (!strcmp(w->events[i].system, "ftrace"))
			kept = 0; /* in the ftrace formats */
		if (!kept) {
			i = j;
			continue;
		}
		tp_td6_put_system(&o, w->events[i].system, (uint32_t)kept);
		for (; i < j; i++)
			if (!w->events[i].dropped)
				put_event_format(&o, &w->events[i]);
	}
}

static void block_cmdlines(struct writer_state *w, struct out_file *f)
{
	struct td6_out o = tp_tdw_out_v6(f);
	size_t cmdlines_len = 0;
	char line[128];

	for (size_t i = 0; i < w->ncomms; i++)
		cmdlines_len += (size_t)snprintf(line, sizeof(line), "%u %s\n", w->comms[i].tid,
						 w->comms[i].comm);
	tp_td6_put_u64(&o, cmdlines_len);
	for (size_t i = 0; i < w->ncomms; i++)
		tp_tdw_out_write(f, line, (size_t)snprintf(line, sizeof(line), "%u %s\n", w->comms[i].tid,
						    w->comms[i].comm));
}

typedef void (*option_fn)(void *ctx, uint16_t id, const void *data, uint32_t len);

/* An event's refusal as its note says it: a reg() error beside records too big is not said,
 * as files always had it. */
static enum ctl_refusal note_refusal(const struct out_event *e)
{
	if (e->refused)
		return CTL_REFUSAL_FORMAT;
	return !e->too_big && e->reg_error ? CTL_REFUSAL_REG : CTL_REFUSAL_NONE;
}

/* The options: the clock, and tpoint's counters and notes (tracedat_format.h). */
static void each_option(struct writer_state *w, option_fn option, void *ctx)
{
	option(ctx, TD_OPT_TRACECLOCK, "[mono]", sizeof("[mono]"));

	/* The counters and the notes (fmt/control_msg.h), each an option if there is room. */
	struct ctl_text text = { 0 };

	for (size_t i = 0; i < w->nevents; i++) {
		const struct out_event *e = &w->events[i];
		const struct spool_stat *st = &e->stat;

		if (e->dropped || e->uncounted) /* no line: a reader shows them unknown */
			continue;
		tp_ctl_stat_row_put(&text, &(struct ctl_stat_row){
			.system = e->system, .event = e->name,
			.v = { st->cond_skipped + st->filtered + st->recorded + st->lost,
			       st->cond_skipped, st->filtered, st->recorded, st->lost },
			.condition = e->condition }, CTL_ROW_FILE);
	}
	if (!text.oom) {
		option(ctx, TD_OPT_TPOINT_STATS, text.buf ? text.buf : "", (uint32_t)text.len + 1);
		tp_ctl_text_free(&text);
		for (size_t i = 0; i < w->nevents; i++) {
			const struct out_event *e = &w->events[i];

			if (e->too_big || e->refused || e->reg_error)
				tp_ctl_note_row_put(&text, &(struct ctl_note_row){
					.system = e->system, .event = e->name,
					.too_big = e->too_big, .refusal = note_refusal(e),
					.reg_error = e->reg_error });
		}
		if (text.len && !text.oom)
			option(ctx, TD_OPT_TPOINT_NOTES, text.buf, (uint32_t)text.len + 1);
	}
	tp_ctl_text_free(&text);
	if (w->fired) {
		struct snapshot_fired f = { .ns = w->fired_ns, .tid = w->fired->tid };
		char text[sizeof(f.event) + 48];
		size_t n;

		snprintf(f.event, sizeof(f.event), "%s", w->fired->event);
		n = tp_snapshot_fired_format(text, sizeof(text), &f);
		if (n)
			option(ctx, TD_OPT_TPOINT_SNAPSHOT, text, (uint32_t)n);
	}
	if (w->extra && w->extra->stats)
		option(ctx, TD_OPT_TPOINT_KERNEL, w->extra->stats,
		       (uint32_t)strlen(w->extra->stats) + 1);
}

static void sort_events(struct writer_state *w)
{
	if (w->nevents > 1) /* qsort() wants a base even for nothing to sort */
		qsort(w->events, w->nevents, sizeof(*w->events), cmp_event);
}

static void option_v6(void *ctx, uint16_t id, const void *data, uint32_t len)
{
	tp_td6_put_option(ctx, id, data, len);
}

void tp_tdw_write_metadata_v6(struct writer_state *w, struct out_file *f)
{
	struct td6_out o = tp_tdw_out_v6(f);

	tp_td6_put_file_header(&o, sizeof(long), TPOINT_PAGE_SIZE);
	block_header_info(w, f);
	block_ftrace_formats(w, f);
	sort_events(w);
	block_event_formats(w, f);
	block_empty(w, f); /* kallsyms */
	block_empty(w, f); /* printk formats */
	block_cmdlines(w, f);
	tp_td6_put_u32(&o, w->ncpus);
	tp_td6_put_options_start(&o);
	each_option(w, option_v6, &o);
	tp_td6_put_options_end(&o);
}

static void option_v7(void *ctx, uint16_t id, const void *data, uint32_t len)
{
	tp_td7_option(ctx, id, data, len);
}

/* One block gathered in memory, then written as its section. */
static int section_v7(struct writer_state *w, uint16_t id,
		      void (*block)(struct writer_state *w, struct out_file *f))
{
	struct tp_growbuf m = { 0 };
	struct out_file f = { .file = OWNED_FD_NONE, .mem = &m };
	int ret;

	block(w, &f);
	ret = m.oom ? -ENOMEM : tp_td7_section(w->td7, id, m.p, m.len);
	free(m.p);
	return ret;
}

int tp_tdw_write_metadata_v7(struct writer_state *w)
{
	uint32_t ncpus = w->ncpus;
	int ret;

	sort_events(w);
	ret = section_v7(w, TD7_SEC_HEADER_INFO, block_header_info);
	if (!ret)
		ret = section_v7(w, TD7_SEC_FTRACE_EVENTS, block_ftrace_formats);
	if (!ret)
		ret = section_v7(w, TD7_SEC_EVENT_FORMATS, block_event_formats);
	if (!ret)
		ret = section_v7(w, TD7_SEC_KALLSYMS, block_empty);
	if (!ret)
		ret = section_v7(w, TD7_SEC_PRINTK, block_empty);
	if (!ret)
		ret = section_v7(w, TD7_SEC_CMDLINES, block_cmdlines);
	if (!ret)
		ret = tp_td7_option(w->td7, TD_OPT_CPUCOUNT, &ncpus, 4);
	if (!ret)
		each_option(w, option_v7, w->td7);
	return ret;
}
