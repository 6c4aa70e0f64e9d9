/* SPDX-License-Identifier: MIT */
/*
 * format.h - reading "tpoint_meta" records (meta_read.c), turning them into tracefs format
 * text (format.c), and checking a print fmt against libtraceevent (print_fmt_check.c).
 *
 * Shared by the runtime (which reads its own loaded section) and `tpoint list` (which reads
 * the section out of an ELF file), so that both describe an event with the same bytes. Pure
 * functions over caller-owned memory: no global state, libc only.
 */
#ifndef TPOINT_FORMAT_H
#define TPOINT_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <tpoint/meta.h>

#pragma GCC visibility push(hidden)

/*
 * Walk the records of a section. *cursor starts at the section's beginning (8-byte aligned);
 * zero words between records (linker padding) are skipped. Returns 1 with *rec set and
 * *cursor moved past the record, 0 at the end, -EINVAL with *cursor left at the bad record
 * when the section is corrupt: wrong magic, version or size, counts that overflow the record,
 * or any string without its NUL.
 */
int tpoint_meta_next(const char **cursor, const char *end, const struct tpoint_meta_hdr **rec);
/*
 * The same for the records of one kind, the others checked only for their header and size:
 * for a section of the running program, which its compiler made (the registry's search for
 * TRACE_DEFINE_ENUM records checked every string of every record: a third of the start-up
 * of a program with thousands of events). On -EINVAL *cursor is past the bad record.
 */
int tpoint_meta_next_kind(const char **cursor, const char *end, uint16_t kind,
			  const struct tpoint_meta_hdr **rec);

/* The parts of records that tpoint_meta_next() has validated. */
const struct tpoint_meta_field *tpoint_meta_class_fields(const struct tpoint_meta_class *c);
const char *tpoint_meta_class_system(const struct tpoint_meta_class *c);
const char *tpoint_meta_class_name(const struct tpoint_meta_class *c);
/* The first field's type, then its name, the next field's type, ...: tpoint_meta_str_next(). */
const char *tpoint_meta_class_field_strings(const struct tpoint_meta_class *c);
const char *tpoint_meta_class_print(const struct tpoint_meta_class *c);
const char *tpoint_meta_event_system(const struct tpoint_meta_event *e);
const char *tpoint_meta_event_name(const struct tpoint_meta_event *e);
const char *tpoint_meta_event_class(const struct tpoint_meta_event *e);
/* "" when the event is unconditional. */
const char *tpoint_meta_event_condition(const struct tpoint_meta_event *e);
/* "" when the event uses its class's print format. */
const char *tpoint_meta_event_print(const struct tpoint_meta_event *e);
const char *tpoint_meta_enum_system(const struct tpoint_meta_enum *m);
const char *tpoint_meta_enum_name(const struct tpoint_meta_enum *m);
/* The string after s in a record. */
const char *tpoint_meta_str_next(const char *s);

/*
 * An event record of TPOINT_META_VERSION 1 (objects of tpoint ABI 1 to 4): every name in 64
 * bytes. Kept to name the events of such objects when they are refused.
 */
struct tpoint_meta_event_v1 {
	struct tpoint_meta_hdr hdr;
	char system[64];
	char name[64];
	char class_name[64];
	uint32_t condition_len;
	uint32_t print_len;
};
/* The system and name of an event record of version 1 or 2 ("?" for another version). */
void tpoint_meta_event_names(const struct tpoint_meta_event *e, const char **system,
			     const char **name);

/* The class record named system:class_name in [begin, end), or NULL (also when corrupt). */
const struct tpoint_meta_class *tpoint_meta_find_class(const char *begin, const char *end,
						       const char *system,
						       const char *class_name);

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
 * The tracefs `format` text of event e of class c, with common_type `id`: name, ID, the
 * common fields, the fields laid out by C's rules from offset 8, and the print format (e's
 * override or c's) after enum substitution. malloc'ed; NULL with errno EINVAL when the field
 * layout disagrees with c->payload_size or e does not belong to c, ENOMEM when out of memory.
 */
/*
 * The offsets of a class's fields in the record, laid out with C's rules after the 8-byte
 * common header (the records carry none), into offsets[nfields]. -EINVAL when the layout
 * disagrees with the class's payload_size (the compiler's own).
 */
int tpoint_meta_layout(const struct tpoint_meta_class *c, uint16_t *offsets);

char *tpoint_format_build(const struct tpoint_meta_class *c, const struct tpoint_meta_event *e,
			  unsigned id, const struct tpoint_enum *enums, size_t nenums);

/*
 * 0 if libtraceevent 1.7.1 can render print_fmt, else -EINVAL with a one-line reason naming
 * the construct in why (docs/TRACEDAT-FORMAT.md): %c, float conversions, %px, %pK, '^',
 * '->' other than REC->field, sizeof of a typedef, calls of functions libtraceevent does not
 * know, and a print fmt that does not start with a string literal. Run it on the text after
 * enum substitution. Runtime-only problems (signed comparisons, ...) are not detected.
 */
int tpoint_print_fmt_check(const char *print_fmt, char *why, size_t whylen);

#pragma GCC visibility pop

#endif /* TPOINT_FORMAT_H */
