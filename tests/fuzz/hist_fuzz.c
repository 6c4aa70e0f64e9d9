// SPDX-License-Identifier: MIT
/*
 * hist_fuzz - libFuzzer harness for the histograms (lib/hist_parse.c, hist_table.c,
 * hist_print.c, hist_json.c; hist_parse_vars.c, hist_synth.c, hist_vars.c, hist_set.c). Built by
 * tests/fuzz/run.sh.
 *
 * An input is a trigger text, optionally followed by a NUL and the bytes of a record (the
 * layout below; the record is copied into a buffer of exactly its size, so that ASan sees a
 * read past it). A trigger that parses gets a table, three hits of the record (at other
 * CPUs and times), a merge into a second table, and both printers. Besides not crashing,
 * leaking or hanging it checks: a refusal is -EINVAL or -ENOMEM with a message and no spec;
 * hits + drops never exceed the hits made; entries never exceed size=; a merge keeps
 * hits + drops. The trigger then joins a set (hist_set.h) as the second of three: after a
 * start trigger that defines variables (ts0, v, c) on an event of the same fields, before a
 * trigger on the synthetic event "fz" that an onmatch() may feed; a start and the record are
 * hit twice, and every histogram printed.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "hist_set.h"

static const struct filter_field fields[] = {
	{ "common_type", 0, 2, 0, FILTER_NUM },
	{ "common_flags", 2, 1, 0, FILTER_NUM },
	{ "common_preempt_count", 3, 1, 0, FILTER_NUM },
	{ "common_pid", 4, 4, 1, FILTER_NUM },
	{ "u8", 8, 1, 0, FILTER_NUM },
	{ "s16", 10, 2, 1, FILTER_NUM },
	{ "u32", 12, 4, 0, FILTER_NUM },
	{ "s64", 16, 8, 1, FILTER_NUM },
	{ "comm", 24, 16, 0, FILTER_STR_ARRAY },
	{ "path", 40, 4, 0, FILTER_STR_DYN },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NF (sizeof(fields) / sizeof(fields[0]))

/* The trigger among others: variables to reference, a synthetic event to feed. */
static void in_a_set(const char *trigger, const unsigned char *rec, size_t rlen)
{
	struct hist_set *set = tp_hist_set_new(1);
	struct hist_ctx *c = set ? tp_hist_set_context(set) : NULL;
	struct hist_error err;
	int start, ev, fz;
	FILE *devnull;

	if (!c)
		abort();
	start = tp_hist_set_event(set, "fuzz:start", fields, NF);
	ev = tp_hist_set_event(set, "fuzz:ev", fields, NF);
	fz = tp_hist_set_synthetic(set, "fz u64 a; s64 b; char s[16]", &err);
	if (start < 0 || ev < 0 || fz < 0 ||
	    tp_hist_set_trigger(set, start, "hist:keys=u32:ts0=common_timestamp,v=s64,c=comm",
				&err) < 0)
		abort();
	if (tp_hist_set_trigger(set, ev, trigger, &err) < 0) {
		if (!err.msg[0] || err.code == HIST_ERR_NONE)
			abort();
		tp_hist_set_free(set);
		return;
	}
	if (tp_hist_set_trigger(set, fz, "hist:keys=a,s:vals=b", &err) < 0)
		abort();
	for (unsigned i = 0; i < 2; i++) {
		tp_hist_set_hit(set, c, start,
				&(struct hist_set_hit){ rec, (uint32_t)rlen, i, 1000u * i, "f", NULL });
		tp_hist_set_hit(set, c, ev,
				&(struct hist_set_hit){ rec, (uint32_t)rlen, i, 5000u * i + 7, "f", NULL });
	}
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	for (unsigned t = 0; t < tp_hist_set_triggers(set); t++) {
		struct hist_table *table = tp_hist_set_table(set, t);

		if (!table)
			abort();
		tp_hist_print(devnull, table, t, NULL);
		tp_hist_print_json(devnull, table, NULL);
		tp_hist_table_free(table);
	}
	fclose(devnull);
	tp_hist_set_free(set);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t tlen = nul ? (size_t)(nul - data) : size, rlen = nul ? size - tlen - 1 : 0;
	char *trigger = malloc(tlen + 1);
	unsigned char *rec = malloc(rlen ? rlen : 1);
	struct hist_spec *s = NULL;
	struct hist_table *t, *m;
	struct hist_error err;
	FILE *devnull;
	int ret;

	if (!trigger || !rec)
		abort();
	memcpy(trigger, data, tlen);
	trigger[tlen] = 0;
	if (rlen)
		memcpy(rec, nul + 1, rlen);
	ret = tp_hist_parse(trigger, "fuzz:ev", fields, sizeof(fields) / sizeof(fields[0]), &s,
			    &err);
	if (ret) {
		if ((ret != -EINVAL && ret != -ENOMEM) || s || !err.msg[0] || err.code == HIST_ERR_NONE)
			abort();
		goto out;
	}
	if (!s || s->nkeys < 1 || s->nkeys > HIST_KEYS_MAX || s->nvals < 1 ||
	    s->nvals > HIST_VALS_MAX || s->key_size > HIST_KEY_SIZE_MAX)
		abort();
	/* Small tables only: the size is the parser's business, the memory the fuzzer's. */
	if (s->map_bits > 10)
		s->map_bits = 10;
	t = tp_hist_table_new(s);
	m = tp_hist_table_new(s);
	devnull = fopen("/dev/null", "w");
	if (!t || !m || !devnull)
		abort();
	for (unsigned i = 0; i < 3; i++) {
		struct hist_hit h = { rec, (uint32_t)rlen, i, 1000u * i + 499u, i ? "fuzz" : NULL,
				      NULL };

		tp_hist_hit(t, &h);
	}
	if (tp_hist_table_hits(t) + tp_hist_table_drops(t) > 3 ||
	    tp_hist_table_entries(t) > (1u << s->map_bits))
		abort();
	tp_hist_table_merge(m, t);
	tp_hist_table_merge(m, t);
	if (tp_hist_table_hits(m) + tp_hist_table_drops(m) !=
	    2 * (tp_hist_table_hits(t) + tp_hist_table_drops(t)))
		abort();
	tp_hist_print(devnull, m, 1, NULL);
	tp_hist_print_json(devnull, t, NULL);
	fclose(devnull);
	tp_hist_table_free(t);
	tp_hist_table_free(m);
	if (s->map_bits <= 10) /* the set's tables are the trigger's size: keep them small */
		in_a_set(trigger, rec, rlen);
out:
	tp_hist_spec_free(s);
	free(trigger);
	free(rec);
	return 0;
}
