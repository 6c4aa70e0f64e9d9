/* SPDX-License-Identifier: MIT */
/*
 * synth_format.c - a synthetic event's meta records, descriptor and module (see
 * synth_format.h). Its fields are described as stage 4 describes a TRACE_EVENT's, so that
 * the registry's format builder (format.c) lays them out where hist_synth.c put them: every
 * field aligned to 8, a number its own size (the kernel's size: 4 for a pid_t), a char[N]
 * as char[STR_VAR_LEN_MAX] (the kernel says char[N] with size N at the same offsets, which
 * C's layout rules cannot say).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tpoint/meta.h>
#include "synth_format.h"

/* synth_field_fmt(): the printf conversion of each type the kernel takes. */
static const char *field_fmt(const struct hist_synth_field *f)
{
	static const struct {
		const char *type, *fmt;
	} fmts[] = {
		{ "s64", "%lld" }, { "u64", "%llu" }, { "s32", "%d" }, { "u32", "%u" },
		{ "s16", "%d" }, { "u16", "%u" }, { "s8", "%d" }, { "u8", "%u" },
		{ "char", "%d" }, { "unsigned char", "%u" }, { "int", "%d" },
		{ "unsigned int", "%u" }, { "long", "%ld" }, { "unsigned long", "%lu" },
		{ "bool", "%d" }, { "pid_t", "%d" }, { "gfp_t", "%x" },
	};

	if (f->is_string)
		return "%s";
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
		if (!strcmp(f->type, fmts[i].type))
			return fmts[i].fmt;
	return "%llu"; /* the kernel's default */
}

/* snprintf at buf + *pos, counting what it needs whatever room is left. */
static void put(char *buf, size_t len, size_t *pos, const char *fmt, const char *a,
		const char *b, const char *c)
{
	size_t room = *pos < len ? len - *pos : 0;
	int n = snprintf(room ? buf + *pos : NULL, room, fmt, a, b, c);

	if (n > 0)
		*pos += (size_t)n;
}

size_t tp_synth_print_fmt(const struct hist_synth *syn, char *buf, size_t len)
{
	size_t pos = 0;

	if (len)
		buf[0] = 0;
	put(buf, len, &pos, "\"%s%s%s", "", "", "");
	for (unsigned i = 0; i < syn->nfields; i++)
		put(buf, len, &pos, "%s=%s%s", syn->fields[i].name, field_fmt(&syn->fields[i]),
		    i == syn->nfields - 1 ? "" : ", ");
	put(buf, len, &pos, "\"%s%s%s", "", "", "");
	for (unsigned i = 0; i < syn->nfields; i++)
		put(buf, len, &pos, ", REC->%s%s%s", syn->fields[i].name, "", "");
	return pos;
}

/* A field's type as the format names it: a char[N] as its element. */
static void field_type(const struct hist_synth_field *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s", f->is_string ? "char" : f->type);
}

static size_t round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The class record's bytes (NULL out: only the size). */
static size_t class_record(const struct hist_synth *syn, const char *print, char *out)
{
	size_t fixed = sizeof(struct tpoint_meta_class) +
		       syn->nfields * sizeof(struct tpoint_meta_field);
	size_t pos = fixed;
	char type[HIST_NAME_MAX];

#define STR(s)                                                                                \
	do {                                                                                   \
		size_t n_ = strlen(s) + 1;                                                     \
		if (out)                                                                       \
			memcpy(out + pos, (s), n_);                                            \
		pos += n_;                                                                     \
	} while (0)
	STR(HIST_SYNTH_SYSTEM);
	STR(syn->name);
	for (unsigned i = 0; i < syn->nfields; i++) {
		field_type(&syn->fields[i], type, sizeof(type));
		STR(type);
		STR(syn->fields[i].name);
	}
	STR(print);
	pos = round8(pos);
	if (out) {
		struct tpoint_meta_class *c = (struct tpoint_meta_class *)(void *)out;
		struct tpoint_meta_field *f = (struct tpoint_meta_field *)(void *)(c + 1);

		c->hdr = (struct tpoint_meta_hdr){ TPOINT_META_MAGIC, TPOINT_META_CLASS,
						   TPOINT_META_VERSION, (uint32_t)pos };
		c->nfields = syn->nfields;
		c->payload_size = syn->rec_size; /* the common header included, as sizeof the entry */
		for (unsigned i = 0; i < syn->nfields; i++) {
			const struct hist_synth_field *sf = &syn->fields[i];

			f[i] = (struct tpoint_meta_field){ 8, sf->size, sf->is_signed,
							   TPOINT_FIELD_PLAIN, 0, 0 };
			if (sf->is_string) {
				f[i].size = HIST_STR_VAR_MAX;
				f[i].kind = TPOINT_FIELD_ARRAY;
				f[i].array_len = HIST_STR_VAR_MAX;
			}
		}
	}
	return pos;
}

/* The event record: system, name, class, no condition, no print override. */
static size_t event_record(const struct hist_synth *syn, char *out)
{
	size_t pos = sizeof(struct tpoint_meta_event);

	STR(HIST_SYNTH_SYSTEM);
	STR(syn->name);
	STR(syn->name);
	STR("");
	STR("");
#undef STR
	pos = round8(pos);
	if (out)
		((struct tpoint_meta_event *)(void *)out)->hdr = (struct tpoint_meta_hdr){
			TPOINT_META_MAGIC, TPOINT_META_EVENT, TPOINT_META_VERSION, (uint32_t)pos
		};
	return pos;
}

static int32_t offset_to(const void *to, const int32_t *field)
{
	return (int32_t)((const char *)to - (const char *)field);
}

struct synth_block *tp_synth_block_new(const struct hist_synth *syn)
{
	size_t plen = tp_synth_print_fmt(syn, NULL, 0);
	char *print = malloc(plen + 1);
	struct synth_block *b;
	size_t csize, esize;

	if (!print)
		return NULL;
	tp_synth_print_fmt(syn, print, plen + 1);
	csize = class_record(syn, print, NULL);
	esize = event_record(syn, NULL);
	b = calloc(1, sizeof(*b) + csize + esize);
	if (!b) {
		free(print);
		errno = ENOMEM;
		return NULL;
	}
	class_record(syn, print, b->meta);
	event_record(syn, b->meta + csize);
	free(print);
	b->meta_size = csize + esize;
	b->ev.abi = TPOINT_ABI;
	b->ref.event = offset_to(&b->ev, &b->ref.event);
	b->ref.class_meta = offset_to(b->meta, &b->ref.class_meta);
	b->ref.meta = offset_to(b->meta + csize, &b->ref.meta);
	b->mod = (struct tpoint_module){ TPOINT_ABI, &b->ref, &b->ref + 1, b->meta,
					 b->meta + b->meta_size };
	return b;
}

int tp_synth_block_same(const struct synth_block *a, const struct synth_block *b)
{
	return a->meta_size == b->meta_size && !memcmp(a->meta, b->meta, a->meta_size);
}
