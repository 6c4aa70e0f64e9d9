/* SPDX-License-Identifier: MIT */
/*
 * hist_synth.c - a synthetic event's definition, as the kernel's `synthetic_events` file
 * reads it (kernel/trace/trace_events_synth.c: create_or_delete_synth_event(),
 * __create_synth_event(), parse_synth_field(), synth_field_size()), and its record's layout
 * (synth_event_define_fields(): the 8 common bytes, then each field in a u64, a char[N] in
 * STR_VAR_LEN_MAX bytes). Refusals carry the kernel's words (its SYNTH_ERR_* list) and the
 * column of the token, found as the kernel's err_pos() finds it: the token's first
 * occurrence in the command.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "hist_set.h"

static int synth_fail(struct hist_error *err, const char *def, const char *what,
		      const char *token)
{
	const char *at = token && *token ? strstr(def, token) : NULL;
	unsigned column = at ? (unsigned)(at - def) + 1 : 0;

	err->code = HIST_ERR_BAD_SYNTH;
	err->column = column;
	if (column)
		snprintf(err->msg, sizeof(err->msg), "%s at column %u: '%s'", what, column, token);
	else
		snprintf(err->msg, sizeof(err->msg), "%s", what);
	return -EINVAL;
}

#define INVALID_CMD "Command must be of the form: <name> field[;field] ..."

/* is_good_name(): a C identifier. */
static bool good_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	while (*++s)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* synth_field_size(): 0 for an unknown type, -1 for a bad char[N]; N for a string. */
static int field_size(const char *type, bool *is_string)
{
	static const struct {
		const char *type;
		int size;
	} sizes[] = {
		{ "s64", 8 }, { "u64", 8 }, { "s32", 4 }, { "u32", 4 }, { "s16", 2 },
		{ "u16", 2 }, { "s8", 1 }, { "u8", 1 }, { "char", 1 }, { "unsigned char", 1 },
		{ "int", 4 }, { "unsigned int", 4 }, { "long", 8 }, { "unsigned long", 8 },
		{ "bool", 1 }, { "pid_t", 4 }, { "gfp_t", 4 },
	};
	const char *start = strstr(type, "char["), *end;
	char *stop;
	unsigned long n;

	*is_string = false;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (!strcmp(type, sizes[i].type))
			return sizes[i].size;
	if (!start)
		return 0;
	/* synth_field_string_size(): "char[N]", N of 1 to 3 digits, at most STR_VAR_LEN_MAX. */
	*is_string = true;
	start += 5;
	end = strchr(type, ']');
	if (!end || end < start || end[1] || end - start > 3)
		return -1;
	if (end == start)
		return 0; /* char[]: a dynamic string */
	n = strtoul(start, &stop, 0);
	if (stop != end || n > HIST_STR_VAR_MAX)
		return -1;
	return (int)n;
}

/* synth_field_signed(): everything but the u* types and gfp_t. */
static bool field_signed(const char *type)
{
	return type[0] != 'u' && strcmp(type, "gfp_t");
}

/* One "type name" (or "unsigned type name") of the words: how many it took, or -1. */
static int parse_field(const char *def, char **argv, int argc, struct hist_synth *s,
		       struct hist_error *err)
{
	struct hist_synth_field *f = &s->fields[s->nfields];
	const char *prefix = "", *type = argv[0], *name, *array;
	int used = 2, size;
	size_t len;

	if (!strcmp(type, "unsigned")) {
		if (argc < 3)
			return synth_fail(err, def, "Incomplete type", type);
		prefix = "unsigned ";
		type = argv[1];
		name = argv[2];
		used = 3;
	} else {
		if (argc < 2)
			return synth_fail(err, def, "Invalid field", type);
		name = argv[1];
	}
	if (s->nfields == HIST_SYNTH_FIELDS_MAX)
		return synth_fail(err, def, "Too many fields", NULL);
	array = strchr(name, '[');
	len = array ? (size_t)(array - name) : strlen(name);
	if (len >= sizeof(f->name))
		return synth_fail(err, def, "Illegal name", name);
	memcpy(f->name, name, len);
	f->name[len] = 0;
	if (!good_name(f->name))
		return synth_fail(err, def, "Illegal name", name);
	if ((size_t)snprintf(f->type, sizeof(f->type), "%s%s%s", prefix, type,
			     array ? array : "") >= sizeof(f->type))
		return synth_fail(err, def, "Invalid type", type);
	size = field_size(f->type, &f->is_string);
	if (size < 0)
		return synth_fail(err, def, array ? "Invalid array specification" : "Invalid type",
				  array ? name : type);
	if (size == 0)
		return f->is_string ? synth_fail(err, def, "Invalid type (char[] dynamic strings "
					 "are not supported here; give char[N])", type)
				    : synth_fail(err, def, "Invalid type", type);
	f->size = (uint16_t)size;
	f->is_signed = !f->is_string && field_signed(f->type);
	s->nfields++;
	return used;
}

/* The record's layout and the fields as the filter sees them. */
static void layout(struct hist_synth *s)
{
	static const struct filter_field common[] = {
		{ "common_type", 0, 2, 0, FILTER_NUM },
		{ "common_flags", 2, 1, 0, FILTER_NUM },
		{ "common_preempt_count", 3, 1, 0, FILTER_NUM },
		{ "common_pid", 4, 4, 1, FILTER_NUM },
	};
	uint32_t offset = 8;

	memcpy(s->filter_fields, common, sizeof(common));
	s->nfilter_fields = 4;
	for (unsigned i = 0; i < s->nfields; i++) {
		struct hist_synth_field *f = &s->fields[i];

		f->offset = (uint16_t)offset;
		offset += f->is_string ? HIST_STR_VAR_MAX : 8;
		s->filter_fields[s->nfilter_fields++] = (struct filter_field){
			f->name, f->offset, f->size, f->is_signed,
			f->is_string ? FILTER_STR_ARRAY : FILTER_NUM
		};
	}
	s->rec_size = offset;
}

#define MAX_WORDS 64

/* Splits s (a copy) at blanks, as argv_split() does. */
static int split_words(char *s, char **argv)
{
	int argc = 0;
	char *w;

	while ((w = strsep(&s, " \t\n")))
		if (*w) {
			if (argc == MAX_WORDS)
				return -1;
			argv[argc++] = w;
		}
	return argc;
}

int tp_hist_synth_parse(const char *def, struct hist_synth *s, struct hist_error *err)
{
	char *copy, *name, *fields, *field;
	const char *p = def;
	int ret = -EINVAL;

	memset(s, 0, sizeof(*s));
	memset(err, 0, sizeof(*err));
	while (isspace((unsigned char)*p))
		p++;
	copy = strdup(p);
	if (!copy) {
		tp_hist_error_at(err, HIST_ERR_NOMEM, 0, NULL);
		return -ENOMEM;
	}
	fields = copy + strcspn(copy, " \t");
	if (!*fields || *copy == '!') {
		synth_fail(err, def, INVALID_CMD, NULL);
		goto out;
	}
	*fields++ = 0;
	name = copy;
	if (!good_name(name) || strlen(name) >= sizeof(s->name)) {
		synth_fail(err, def, "Illegal name", name);
		goto out;
	}
	strcpy(s->name, name);
	{
		/* check_command(): the name and a first "type field" at least. */
		char first[HIST_STR_MAX], *argv[MAX_WORDS];

		snprintf(first, sizeof(first), "%.*s", (int)strcspn(fields, ";"), fields);
		if (split_words(first, argv) < 2) {
			synth_fail(err, def, INVALID_CMD, NULL);
			goto out;
		}
	}
	while ((field = strsep(&fields, ";"))) {
		char *argv[MAX_WORDS];
		int argc = split_words(field, argv), used = 0;

		if (argc < 0) {
			synth_fail(err, def, "Too many fields", NULL);
			goto out;
		}
		while (used < argc) {
			int n = parse_field(def, argv + used, argc - used, s, err);

			if (n < 0)
				goto out;
			used += n;
		}
	}
	if (!s->nfields) {
		synth_fail(err, def, INVALID_CMD, NULL);
		goto out;
	}
	layout(s);
	ret = 0;
out:
	free(copy);
	return ret;
}
