/* SPDX-License-Identifier: MIT */
/*
 * format.h - an event's tracefs format text built from its "tpoint_meta" records (format.c):
 * the fields laid out with their offsets, the print fmt with enums substituted.
 *
 * Shared by the runtime and `tpoint list`, so that both describe an event with the same
 * bytes. Pure functions over caller-owned memory: no global state, libc only. The records
 * are read with meta_read.h; whether libtraceevent renders the result, print_fmt_check.h.
 */
#ifndef TPOINT_FORMAT_H
#define TPOINT_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <tpoint/meta.h>

#pragma GCC visibility push(hidden)

/* One TRACE_DEFINE_ENUM / TRACE_DEFINE_SIZEOF: name ("X" or "sizeof(X)") of a system. */
struct tpoint_enum {
	const char *system;
	const char *name;
	int64_t value;
};

/*
 * A copy of print_fmt with every whole-word use of an enum name of `system` replaced by its
 * decimal value, outside string literals and not as a member name after "->" or ".", as the
 * kernel does for TRACE_DEFINE_ENUM. malloc'ed; NULL with errno ENOMEM.
 */
char *tpoint_print_fmt_subst(const char *print_fmt, const char *system,
			     const struct tpoint_enum *enums, size_t nenums);

/*
 * The offsets of a class's fields in the record, laid out with C's rules after the 8-byte
 * common header (the records carry none), into offsets[nfields]. -EINVAL when the layout
 * disagrees with the class's payload_size (the compiler's own).
 */
int tpoint_meta_layout(const struct tpoint_meta_class *c, uint16_t *offsets);

/*
 * The tracefs `format` text of event e of class c, with common_type `id`: name, ID, the
 * common fields, the fields laid out by C's rules from offset 8, and the print format (e's
 * override or c's) after enum substitution. malloc'ed; NULL with errno EINVAL when the field
 * layout disagrees with c->payload_size or e does not belong to c, ENOMEM when out of memory.
 */
char *tpoint_format_build(const struct tpoint_meta_class *c, const struct tpoint_meta_event *e,
			  unsigned id, const struct tpoint_enum *enums, size_t nenums);

#pragma GCC visibility pop

#endif /* TPOINT_FORMAT_H */
