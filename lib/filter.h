/* SPDX-License-Identifier: MIT */
/*
 * filter.h - ftrace-style event filters: "flags & 3 && ino > 100", "comm ~ \"kworker*\"".
 *
 * The grammar is the kernel's (Documentation/trace/events.rst, "Event filtering"), so that a
 * filter written for a kernel event works unchanged on a tpoint event. A filter is compiled
 * once, against the event's field list, into a flat array of tests joined by forward jumps;
 * matching walks that array once, with no recursion, no stack, no allocation, no lock and no
 * system call, so it may run in the hot path of any thread and inside signal handlers.
 *
 * A compiled filter is immutable: threads may share it without synchronisation. libc only.
 */
#ifndef TPOINT_FILTER_H
#define TPOINT_FILTER_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* Longest expression filter_compile() accepts, in bytes, without the NUL. */
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

/* A compiled filter. */
struct filter;

/*
 * Compile `expr` against `fields` (the caller lists the common fields too: common_type u16@0,
 * common_flags u8@2, common_preempt_count u8@3, common_pid s32@4). Returns 0 with *out set,
 * -EINVAL with a one-line reason in `err` (syntax errors give the 1-based column and the
 * offending token), or -ENOMEM. `event_name` ("system:event") only names the event in
 * messages and may be NULL; `err` may be NULL when errlen is 0.
 */
int filter_compile(const char *expr, const char *event_name, const struct filter_field *fields,
		   size_t nfields, struct filter **out, char *err, size_t errlen);

/*
 * 1 if the record (`size` bytes from common_type) matches, else 0. Reads only inside
 * [rec, rec + size): a number that does not fit reads as 0, and a string (char[N] or
 * __data_loc, whatever its offset and length say) is cut at the end of the record.
 * Async-signal-safe; the time is linear in the tests and, for ~, in string length times the
 * longest '*'-free part of the pattern.
 */
int filter_match(const struct filter *f, const void *rec, uint32_t size);

void filter_free(struct filter *f);

/*
 * The canonical text of the filter: one space around each operator, strings in quotes,
 * parentheses only where needed (and around what '!' applies to). Compiling it gives a filter
 * with the same text and the same matches, provided the text, which can be longer than the
 * source, is within FILTER_MAX_LEN. Lives as long as f.
 */
const char *filter_text(const struct filter *f);

#pragma GCC visibility pop

#endif /* TPOINT_FILTER_H */
