// SPDX-License-Identifier: MIT
/*
 * ustack_sym - `tpoint report`'s user stacks: the mappings of a trace.dat gathered
 * (tpoint:user_stack_map records), and ftrace:user_stack printed with names
 * (ustack_names.c) through a libtraceevent event handler.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "td_merge.h"
#include "fmt/ustack_names.h"
#include "ustack_sym.h"

/* A record's string field (__data_loc), checked against the record; NULL if it does not fit. */
static const char *loc_string(const struct tep_format_field *field, const unsigned char *data,
			      uint32_t size)
{
	uint32_t loc, off, len;

	if (!field || field->offset + 4 > (int)size)
		return NULL;
	memcpy(&loc, data + field->offset, 4);
	off = loc & 0xffff;
	len = loc >> 16;
	if (!len || off + len > size || data[off + len - 1] != '\0')
		return NULL;
	return (const char *)data + off;
}

static bool number(const struct tep_format_field *f, const unsigned char *data, uint32_t size,
		   uint64_t *out)
{
	unsigned long long v;

	if (!f || f->offset + f->size > (int)size ||
	    tep_read_number_field((struct tep_format_field *)f, data, &v))
		return false;
	*out = v;
	return true;
}

/* One pass over the file's records: the mappings its processes recorded. */
static void gather(struct ustack_names *s, const struct tracedat *td, struct tep_event *ev)
{
	struct td_merge *m = td_merge_new();
	struct td_merge_rec r;
	struct tep_format_field *tgid = tep_find_field(ev, "tgid"), *start = tep_find_field(ev, "start"),
				*end = tep_find_field(ev, "end"), *pgoff = tep_find_field(ev, "pgoff"),
				*path = tep_find_field(ev, "path");

	if (!m || td_merge_add(m, td)) {
		td_merge_free(m);
		return;
	}
	while (td_merge_next(m, &r)) {
		uint16_t id;
		uint64_t t, a, b, o;
		const char *p;

		if (r.size < 2)
			continue;
		memcpy(&id, r.data, 2);
		if (id != ev->id || !number(tgid, r.data, r.size, &t) ||
		    !number(start, r.data, r.size, &a) || !number(end, r.data, r.size, &b) ||
		    !number(pgoff, r.data, r.size, &o) || !(p = loc_string(path, r.data, r.size)))
			continue;
		tp_ustack_names_add_map(s, (uint32_t)t, a, b, o, p);
	}
	td_merge_free(m);
}

/* ftrace:user_stack as the kernel's `trace` file shows a user stack, with names. */
static int print_stack(struct trace_seq *seq, struct tep_record *rec, struct tep_event *ev,
		       void *ctx)
{
	struct ustack_names *s = ctx;
	struct tep_format_field *tgid = tep_find_field(ev, "tgid");
	struct tep_format_field *caller = tep_find_field(ev, "caller");
	uint64_t pid;
	char name[512];

	if (!number(tgid, rec->data, (uint32_t)rec->size, &pid) || !caller ||
	    caller->elementsize != 8 || caller->offset + caller->size > rec->size)
		return -1; /* libtraceevent prints it by its format */
	trace_seq_puts(seq, "<user stack trace>");
	for (int i = 0; i < caller->size / 8; i++) {
		uint64_t pc;

		memcpy(&pc, (const char *)rec->data + caller->offset + 8 * i, 8);
		if (!pc)
			break;
		tp_ustack_names_name(s, (uint32_t)pid, pc, name, sizeof(name));
		trace_seq_printf(seq, "\n=> %s", name);
	}
	return 0;
}

struct ustack_sym *ustack_sym_attach(struct tep_handle *tep, const struct tracedat *td)
{
	struct tep_event *stack = tep_find_event_by_name(tep, "ftrace", "user_stack");
	struct tep_event *map = tep_find_event_by_name(tep, "tpoint", "user_stack_map");
	struct ustack_names *s;

	/* A file without tpoint's mappings (the kernel's user stacks, trace-cmd's file) prints
	 * as trace-cmd prints it. */
	if (!stack || !map || !(s = tp_ustack_names_new()))
		return NULL;
	gather(s, td, map);
	if (tep_register_event_handler(tep, stack->id, "ftrace", "user_stack", print_stack, s) < 0) {
		tp_ustack_names_free(s);
		return NULL;
	}
	return (struct ustack_sym *)s;
}

void ustack_sym_free(struct ustack_sym *s)
{
	tp_ustack_names_free((struct ustack_names *)s);
}
