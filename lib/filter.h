/* SPDX-License-Identifier: MIT */
/*
 * filter.h - ftrace-style event filters: "flags & 3 && ino > 100", "comm ~ \"kworker*\"".
 *
 * The grammar is the kernel's (Documentation/trace/events.rst, "Event filtering"), so that a
 * filter written for a kernel event works unchanged on a tpoint event. A filter is compiled
 * once, against the event's field list, into a small program: tests joined by forward jumps,
 * ending in the two verdicts. Matching walks that program once, with no recursion, no stack,
 * no allocation, no lock and no system call, so it may run in the hot path of any thread and
 * inside signal handlers.
 *
 * A compiled filter is immutable: threads may share it without synchronisation. libc only.
 */
#ifndef TPOINT_FILTER_H
#define TPOINT_FILTER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "filter_eval.h"

#pragma GCC visibility push(hidden)

/* Longest expression tp_filter_compile() accepts, in bytes, without the NUL. */
#define FILTER_MAX_LEN 4096
/* Deepest nesting of '(' and '!' ("!(" is one level); keeps compile-time recursion bounded. */
#define FILTER_MAX_DEPTH 64

enum filter_field_kind {
	FILTER_NUM = 0,       /* integer of 1, 2, 4 or 8 bytes, host byte order */
	FILTER_STR_ARRAY = 1, /* char name[N]: the string ends at the first NUL or after N */
	FILTER_STR_DYN = 2,   /* __data_loc char[]: u32 (length << 16 | offset from the record) */
};

struct filter_field {
	const char *name;
	uint16_t offset;   /* from the start of the record (common_type) */
	uint16_t size;     /* 1, 2, 4 or 8 for numbers; N for char[N]; 4 for __data_loc */
	uint8_t is_signed; /* numbers: sign-extend before comparing */
	uint8_t kind;      /* enum filter_field_kind */
};

/*
 * Compile `expr` against `fields` (the caller lists the common fields too: common_type u16@0,
 * common_flags u8@2, common_preempt_count u8@3, common_pid s32@4). Returns 0 with *out set,
 * -EINVAL with a one-line reason in `err` (syntax errors give the 1-based column and the
 * offending token), or -ENOMEM. `event_name` ("system:event") only names the event in
 * messages and may be NULL; `err` may be NULL when errlen is 0.
 */
int tp_filter_compile(const char *expr, const char *event_name, const struct filter_field *fields,
		      size_t nfields, struct filter **out, char *err, size_t errlen);

#pragma GCC visibility pop

#endif /* TPOINT_FILTER_H */
