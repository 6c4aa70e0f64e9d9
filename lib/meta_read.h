/* SPDX-License-Identifier: MIT */
/*
 * meta_read.h - reading "tpoint_meta" records (meta_read.c): a section walked, every record
 * checked before its strings are read through the accessors below.
 *
 * Shared by the runtime (which reads its own loaded section) and `tpoint list` (which reads
 * the section out of an ELF file, untrusted). Pure functions over caller-owned memory: no
 * global state, libc only.
 */
#ifndef TPOINT_META_READ_H
#define TPOINT_META_READ_H

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

#pragma GCC visibility pop

#endif /* TPOINT_META_READ_H */
