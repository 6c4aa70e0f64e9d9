// SPDX-License-Identifier: MIT
/*
 * meta_read.c - read "tpoint_meta" records: walk a section, check each record, and give its
 * strings through accessors (meta_read.h).
 *
 * The records may come from an untrusted file (`tpoint list FILE`), so everything here is
 * bounds-checked before use, and nothing is trusted beyond what tpoint_meta_next() checked.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "meta_read.h"

static bool all_zero(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * The bytes that n NUL-terminated strings take from p, within room; 0 when one has no NUL
 * there, or when one of the first `names` (names, in readers' TPOINT_NAME_MAX buffers) is
 * longer than TPOINT_NAME_MAX with its NUL.
 */
static size_t strings_ok(const char *p, size_t room, uint64_t n, uint64_t names)
{
	size_t used = 0;

	for (uint64_t i = 0; i < n; i++) {
		const char *z = memchr(p + used, 0, room - used);
		size_t len;

		if (!z)
			return 0;
		len = (size_t)(z - (p + used)) + 1;
		if (i < names && len > TPOINT_NAME_MAX)
			return 0;
		used += len;
	}
	return used;
}

static bool class_ok(const struct tpoint_meta_class *c)
{
	const struct tpoint_meta_field *f = tpoint_meta_class_fields(c);
	uint32_t size = c->hdr.size;
	size_t room;

	if (size < sizeof(*c))
		return false;
	room = size - sizeof(*c);
	/* At least the strings' 3 + 2 * nfields NULs must follow the fields. */
	if (c->nfields > room / (sizeof(struct tpoint_meta_field) + 2))
		return false;
	room -= (size_t)c->nfields * sizeof(struct tpoint_meta_field);
	for (uint32_t i = 0; i < c->nfields; i++)
		if (f[i].kind > TPOINT_FIELD_KIND_MAX)
			return false;
	/* system, name, the fields' types and names, the print format */
	return strings_ok((const char *)(f + c->nfields), room, 3 + 2 * (uint64_t)c->nfields,
			  2 + 2 * (uint64_t)c->nfields) != 0;
}

static bool event_ok(const struct tpoint_meta_event *e)
{
	/* system, name, class, then the condition and print override of any length */
	return e->hdr.size >= sizeof(*e) &&
	       strings_ok((const char *)(e + 1), e->hdr.size - sizeof(*e), 5, 3);
}

static bool enum_ok(const struct tpoint_meta_enum *m)
{
	return m->hdr.size >= sizeof(*m) &&
	       strings_ok((const char *)(m + 1), m->hdr.size - sizeof(*m), 2, 2);
}

/*
 * The header at *cursor, past the zero padding the linker may leave between the files'
 * records: 1 with *hdr set (its size checked against `end`), 0 at the end, -EINVAL.
 */
static int meta_header(const char **cursor, const char *end, const struct tpoint_meta_hdr **hdr)
{
	const char *p = *cursor;
	const struct tpoint_meta_hdr *h;
	size_t left;

	/* Records are read in place through their structs, so they must be aligned. */
	if (p > end || ((uintptr_t)p & 7))
		return -EINVAL;
	while ((size_t)(end - p) >= 8 && all_zero(p, 8))
		p += 8;
	*cursor = p;
	left = (size_t)(end - p);
	if (!left)
		return 0;
	if (left < 8 && all_zero(p, left)) {
		*cursor = end;
		return 0;
	}
	if (left < sizeof(*h))
		return -EINVAL;
	h = (const struct tpoint_meta_hdr *)(const void *)p;
	if (h->magic != TPOINT_META_MAGIC || h->version != TPOINT_META_VERSION ||
	    h->size < sizeof(*h) || (h->size & 7) || h->size > left)
		return -EINVAL;
	*hdr = h;
	return 1;
}

/* Whether the record's own contents hold together (its header was checked). */
static bool meta_record_ok(const struct tpoint_meta_hdr *h)
{
	switch (h->kind) {
	case TPOINT_META_CLASS:
		return class_ok((const struct tpoint_meta_class *)h);
	case TPOINT_META_EVENT:
		return event_ok((const struct tpoint_meta_event *)h);
	case TPOINT_META_ENUM:
		return enum_ok((const struct tpoint_meta_enum *)h);
	default:
		return false;
	}
}

int tpoint_meta_next(const char **cursor, const char *end, const struct tpoint_meta_hdr **rec)
{
	const struct tpoint_meta_hdr *h;
	int ret = meta_header(cursor, end, &h);

	if (ret <= 0)
		return ret;
	if (!meta_record_ok(h))
		return -EINVAL;
	*rec = h;
	*cursor += h->size;
	return 1;
}

int tpoint_meta_next_kind(const char **cursor, const char *end, uint16_t kind,
			  const struct tpoint_meta_hdr **rec)
{
	const struct tpoint_meta_hdr *h;
	int ret;

	while ((ret = meta_header(cursor, end, &h)) > 0) {
		*cursor += h->size;
		if (h->kind != kind)
			continue;
		if (!meta_record_ok(h))
			return -EINVAL;
		*rec = h;
		return 1;
	}
	return ret;
}

const char *tpoint_meta_str_next(const char *s)
{
	return s + strlen(s) + 1;
}

const struct tpoint_meta_field *tpoint_meta_class_fields(const struct tpoint_meta_class *c)
{
	return (const struct tpoint_meta_field *)(const void *)(c + 1);
}

const char *tpoint_meta_class_system(const struct tpoint_meta_class *c)
{
	return (const char *)(tpoint_meta_class_fields(c) + c->nfields);
}

const char *tpoint_meta_class_name(const struct tpoint_meta_class *c)
{
	return tpoint_meta_str_next(tpoint_meta_class_system(c));
}

const char *tpoint_meta_class_field_strings(const struct tpoint_meta_class *c)
{
	return tpoint_meta_str_next(tpoint_meta_class_name(c));
}

const char *tpoint_meta_class_print(const struct tpoint_meta_class *c)
{
	const char *s = tpoint_meta_class_field_strings(c);

	for (uint32_t i = 0; i < c->nfields; i++)
		s = tpoint_meta_str_next(tpoint_meta_str_next(s));
	return s;
}

const char *tpoint_meta_event_system(const struct tpoint_meta_event *e)
{
	return (const char *)(e + 1);
}

const char *tpoint_meta_event_name(const struct tpoint_meta_event *e)
{
	return tpoint_meta_str_next(tpoint_meta_event_system(e));
}

const char *tpoint_meta_event_class(const struct tpoint_meta_event *e)
{
	return tpoint_meta_str_next(tpoint_meta_event_name(e));
}

const char *tpoint_meta_event_condition(const struct tpoint_meta_event *e)
{
	return tpoint_meta_str_next(tpoint_meta_event_class(e));
}

const char *tpoint_meta_event_print(const struct tpoint_meta_event *e)
{
	return tpoint_meta_str_next(tpoint_meta_event_condition(e));
}

const char *tpoint_meta_enum_system(const struct tpoint_meta_enum *m)
{
	return (const char *)(m + 1);
}

const char *tpoint_meta_enum_name(const struct tpoint_meta_enum *m)
{
	return tpoint_meta_str_next(tpoint_meta_enum_system(m));
}

void tpoint_meta_event_names(const struct tpoint_meta_event *e, const char **system,
			     const char **name)
{
	const struct tpoint_meta_event_v1 *v1 = (const struct tpoint_meta_event_v1 *)(const void *)e;

	if (e->hdr.version == 1) {
		*system = v1->system;
		*name = v1->name;
	} else if (e->hdr.version == TPOINT_META_VERSION) {
		*system = tpoint_meta_event_system(e);
		*name = tpoint_meta_event_name(e);
	} else {
		*system = "?";
		*name = "?";
	}
}

const struct tpoint_meta_class *tpoint_meta_find_class(const char *begin, const char *end,
						       const char *system,
						       const char *class_name)
{
	const struct tpoint_meta_hdr *h;
	const char *cur = begin;

	while (tpoint_meta_next(&cur, end, &h) > 0) {
		const struct tpoint_meta_class *c = (const struct tpoint_meta_class *)h;

		if (h->kind == TPOINT_META_CLASS && !strcmp(tpoint_meta_class_system(c), system) &&
		    !strcmp(tpoint_meta_class_name(c), class_name))
			return c;
	}
	return NULL;
}
