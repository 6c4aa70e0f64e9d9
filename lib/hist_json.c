/* SPDX-License-Identifier: MIT */
/*
 * hist_json.c - a histogram as one JSON object (see hist.h), for programs that read it:
 *
 *   {"event": "sys:ev" or null,
 *    "trigger": "hist:keys=...:size=2048 [active]"   (the kernel's trigger info line),
 *    "name": "NAME" or null, "paused": false, "size": 2048,
 *    "keys": [{"field": "common_pid", "modifier": "execname" or null,
 *              "buckets": N (with .buckets only)}, ...],
 *    "values": ["hitcount", "bytes", ...]            (hitcount first, even with nohitcount),
 *    "entries": [{"key": {...}, "values": {"hitcount": 3, "bytes": 120}}, ...],
 *    "totals": {"hits": H, "entries": E, "dropped": D}}
 *
 * The entries come in the text's order. An entry's "key" has, for each key field, its name
 * and the number the kernel keeps (a u64: a negative field shows as 2^64 - n, as in the
 * text) or its string; a transformed key is named after its modifier: "bytes.log2": 3 is the
 * bucket 2^3, "bytes.buckets": 100 the bucket from 100; a key printed with a name carries it
 * beside the number: "common_pid.execname", "call_site.sym", "call_site.sym-offset",
 * "id.syscall". "values" has each value's sum by field name. A name given twice, as a key or
 * as a value, is named the second time with its modifier ("hitcount.percent"), or NAME.2.
 * .percent and .graph are the text's business: the sums are raw. Strings are escaped, bytes
 * outside printable ASCII as \u00XX.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "hist.h"

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(out, "\\%c", *c);
		else if (*c < 0x20 || *c >= 0x7f)
			fprintf(out, "\\u%04x", *c);
		else
			fputc(*c, out);
	}
	fputc('"', out);
}

static const char *mod_of(const struct hist_field *f)
{
	return tp_hist_mod_name(f->mods);
}

/* "name" or "name.modifier": the key under which a field's number goes. */
static void json_name(FILE *out, const struct hist_field *f, const char *mod)
{
	char buf[HIST_NAME_MAX + 16];

	snprintf(buf, sizeof(buf), mod ? "%s.%s" : "%s", f->name, mod);
	json_str(out, buf);
}

/* Whether field i's name was used by an earlier one of the same list. */
static bool name_taken(const struct hist_field *f, unsigned i)
{
	for (unsigned j = 0; j < i; j++)
		if (!strcmp(f[j].name, f[i].name))
			return true;
	return false;
}

/* A value's or key's name in "values" and "key": NAME, or NAME.MODIFIER (NAME.2) if taken. */
static void list_name(FILE *out, const struct hist_field *f, unsigned i)
{
	const char *mod = mod_of(&f[i]);

	json_name(out, &f[i], name_taken(f, i) ? (mod ? mod : "2") : NULL);
}

static void key_json(FILE *out, const struct hist_table *t, unsigned e,
		     const struct hist_names *nm)
{
	const struct hist_spec *s = tp_hist_table_spec(t);
	const unsigned char *key = tp_hist_entry_key(t, e);
	char text[512];

	fputc('{', out);
	for (unsigned i = 0; i < s->nkeys; i++) {
		const struct hist_field *k = &s->keys[i];
		unsigned long long v = tp_hist_key_num(k, key);

		if (i)
			fputs(", ", out);
		if (k->src == HIST_SRC_STR_ARRAY || k->src == HIST_SRC_STR_DYN) {
			list_name(out, s->keys, i);
			fputs(": ", out);
			json_str(out, (const char *)key + k->key_offset);
			continue;
		}
		if (k->mods & (HIST_MOD_LOG2 | HIST_MOD_BUCKETS))
			json_name(out, k, mod_of(k));
		else
			list_name(out, s->keys, i);
		fprintf(out, ": %llu", v);
		if (k->mods & HIST_MOD_EXECNAME) {
			fputs(", ", out);
			json_name(out, k, "execname");
			fputs(": ", out);
			json_str(out, tp_hist_entry_comm(t, e));
		} else if (k->mods & (HIST_MOD_SYM | HIST_MOD_SYM_OFFSET)) {
			bool off = k->mods & HIST_MOD_SYM_OFFSET;

			fputs(", ", out);
			json_name(out, k, mod_of(k));
			fputs(": ", out);
			json_str(out, tp_hist_sym_text(nm, v, off, text, sizeof(text)));
		} else if (k->mods & HIST_MOD_SYSCALL) {
			fputs(", ", out);
			json_name(out, k, "syscall");
			fputs(": ", out);
			json_str(out, tp_hist_syscall_text(nm, v));
		}
	}
	fputc('}', out);
}

int tp_hist_print_json(FILE *out, const struct hist_table *t, const struct hist_names *nm)
{
	const struct hist_spec *s = tp_hist_table_spec(t);
	unsigned n, *order = tp_hist_sorted(t, &n);
	char *info = NULL;
	size_t len = 0;
	FILE *m;

	if (n && !order)
		return -1;
	m = open_memstream(&info, &len);
	if (!m || tp_hist_spec_print(m, s, tp_hist_table_paused(t)) || fclose(m)) {
		free(info);
		free(order);
		return -1;
	}
	if (len && info[len - 1] == '\n')
		info[len - 1] = 0;
	fputs("{\"event\": ", out);
	if (s->event)
		json_str(out, s->event);
	else
		fputs("null", out);
	fputs(", \"trigger\": ", out);
	json_str(out, info);
	fputs(", \"name\": ", out);
	if (s->name)
		json_str(out, s->name);
	else
		fputs("null", out);
	fprintf(out, ", \"paused\": %s, \"size\": %u, \"keys\": [",
		tp_hist_table_paused(t) ? "true" : "false", 1u << s->map_bits);
	for (unsigned i = 0; i < s->nkeys; i++) {
		const char *mod = mod_of(&s->keys[i]);

		fputs(i ? ", {\"field\": " : "{\"field\": ", out);
		json_str(out, s->keys[i].name);
		fputs(", \"modifier\": ", out);
		if (mod)
			json_str(out, mod);
		else
			fputs("null", out);
		if (s->keys[i].mods & HIST_MOD_BUCKETS)
			fprintf(out, ", \"buckets\": %llu", (unsigned long long)s->keys[i].buckets);
		fputc('}', out);
	}
	fputs("], \"values\": [", out);
	for (unsigned i = 0; i < s->nvals; i++) {
		if (i)
			fputs(", ", out);
		list_name(out, s->vals, i);
	}
	fputs("], \"entries\": [", out);
	for (unsigned i = 0; i < n; i++) {
		const uint64_t *sums = tp_hist_entry_sums(t, order[i]);

		fputs(i ? ", {\"key\": " : "{\"key\": ", out);
		key_json(out, t, order[i], nm);
		fputs(", \"values\": {", out);
		for (unsigned v = 0; v < s->nvals; v++) {
			if (v)
				fputs(", ", out);
			list_name(out, s->vals, v);
			fprintf(out, ": %llu", (unsigned long long)sums[v]);
		}
		fputs("}}", out);
	}
	fprintf(out, "], \"totals\": {\"hits\": %llu, \"entries\": %u, \"dropped\": %llu}}\n",
		(unsigned long long)tp_hist_table_hits(t), n,
		(unsigned long long)tp_hist_table_drops(t));
	free(info);
	free(order);
	return ferror(out) ? -1 : 0;
}
