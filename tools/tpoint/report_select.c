// SPDX-License-Identifier: MIT
/* The records `tpoint report` shows (report_select.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "report_select.h"
#include "select.h"
#include "tool.h"

#define NR_IDS 0x10000

/* One item of a comma-separated list: its bytes, copied for the messages. */
static void item_text(const char *p, size_t len, char *buf, size_t size)
{
	snprintf(buf, size, "%.*s", (int)(len < 64 ? len : 64), p);
}

/* The decimal number of exactly len bytes at p, at most max: true and *v, or false. */
static bool parse_uint(const char *p, size_t len, uint64_t max, uint64_t *v)
{
	uint64_t n = 0;

	if (!len || len > 20)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9' || __builtin_mul_overflow(n, 10, &n) ||
		    __builtin_add_overflow(n, (uint64_t)(p[i] - '0'), &n))
			return false;
	}
	if (n > max)
		return false;
	*v = n;
	return true;
}

static int add_pids(struct rsel *s, const char *verb, const char *value)
{
	const char *p = value;
	char bad[72];

	do {
		size_t len = strcspn(p, ",");
		uint64_t v;
		int32_t *grown;

		if (!parse_uint(p, len, INT32_MAX, &v)) {
			item_text(p, len, bad, sizeof(bad));
			tool_error(verb, "--pid '%s': '%s' is not a thread id (expected numbers, "
				   "comma-separated, like 1234,1240)", value, bad);
			return EXIT_USAGE;
		}
		grown = realloc(s->pids, (s->nr_pids + 1) * sizeof(*grown));
		if (!grown) {
			tool_error(verb, "out of memory");
			return EXIT_FAIL;
		}
		s->pids = grown;
		s->pids[s->nr_pids++] = (int32_t)v;
		p += len;
	} while (*p++);
	return 0;
}

static int add_cpus(struct rsel *s, const char *verb, const char *value)
{
	const char *p = value;
	char bad[72];

	do {
		size_t len = strcspn(p, ","), lo_len = strcspn(p, ",-");
		uint64_t lo, hi;
		void *grown;

		hi = 0;
		if (!parse_uint(p, lo_len, UINT32_MAX, &lo) ||
		    (lo_len < len && !parse_uint(p + lo_len + 1, len - lo_len - 1, UINT32_MAX, &hi)) ||
		    (lo_len < len && hi < lo)) {
			item_text(p, len, bad, sizeof(bad));
			tool_error(verb, "--cpu '%s': '%s' is not a CPU (expected numbers or "
				   "ranges, comma-separated, like 0,2-3)", value, bad);
			return EXIT_USAGE;
		}
		if (lo_len == len)
			hi = lo;
		grown = realloc(s->cpus, (s->nr_cpus + 1) * sizeof(*s->cpus));
		if (!grown) {
			tool_error(verb, "out of memory");
			return EXIT_FAIL;
		}
		s->cpus = grown;
		s->cpus[s->nr_cpus].lo = (uint32_t)lo;
		s->cpus[s->nr_cpus++].hi = (uint32_t)hi;
		p += len;
	} while (*p++);
	return 0;
}

/*
 * "SECONDS[.FRACTION]", as the report prints times, to ns: 0 and *exact true for more than 6
 * decimals, or EXIT_USAGE (said).
 */
static int parse_time(const char *verb, const char *opt, const char *value, uint64_t *ns,
		      bool *exact)
{
	size_t whole = strspn(value, "0123456789"), frac = 0;
	uint64_t sec, part = 0;

	if (value[whole] == '.')
		frac = strspn(value + whole + 1, "0123456789");
	if (!whole || value[whole + (value[whole] == '.' ? 1 + frac : 0)] != '\0' ||
	    (value[whole] == '.' && !frac) || frac > 9 ||
	    !parse_uint(value, whole, UINT64_MAX / 1000000000u, &sec) ||
	    (frac && !parse_uint(value + whole + 1, frac, 999999999, &part))) {
		tool_error(verb, "%s '%s': expected seconds as the report prints times, like "
			   "12345.678901 (at most 9 decimals)", opt, value);
		return EXIT_USAGE;
	}
	*exact = frac > 6;
	for (size_t i = frac; i < 9; i++)
		part *= 10;
	if (__builtin_add_overflow(sec * 1000000000u, part, ns)) {
		tool_error(verb, "%s '%s': too far in time", opt, value);
		return EXIT_USAGE;
	}
	return 0;
}

int rsel_option(struct rsel *s, const char *verb, int opt, const char *value)
{
	int ret;

	switch (opt) {
	case 'e':
		ret = sel_add_events(&s->sel, verb, value);
		return ret == -2 ? EXIT_USAGE : ret ? EXIT_FAIL : 0;
	case 'f':
		return sel_add_filter(&s->sel, verb, value) ? EXIT_USAGE : 0;
	case RSEL_OPT_PID:
		return add_pids(s, verb, value);
	case RSEL_OPT_CPU:
		return add_cpus(s, verb, value);
	case RSEL_OPT_FROM:
		s->has_from = true;
		s->from_text = value;
		return parse_time(verb, "--from", value, &s->from, &s->from_exact);
	case RSEL_OPT_TO:
		s->has_to = true;
		s->to_text = value;
		return parse_time(verb, "--to", value, &s->to, &s->to_exact);
	}
	return EXIT_USAGE;
}

bool rsel_active(const struct rsel *s)
{
	return s->sel.ngroups || s->nr_pids || s->nr_cpus || s->has_from || s->has_to;
}

int rsel_finish(struct rsel *s, const char *verb)
{
	if (s->has_from && s->has_to && s->from >= s->to) {
		tool_error(verb, "--from %s is not before --to %s: no time is in between (from "
			   "is kept, to is not)", s->from_text, s->to_text);
		return EXIT_USAGE;
	}
	return 0;
}

/* The files' event formats, NUL-terminated (the filter compiler reads them as strings). */
struct formats {
	char **text; /* per file, then per format */
	struct sel_known *known; /* every event once: what the checks see */
	size_t nr_known;
};

static bool same_event(const struct sel_known *a, const struct sel_known *b)
{
	return !strcmp(a->system, b->system) && !strcmp(a->name, b->name) &&
	       !strcmp(a->format, b->format);
}

static int formats_load(struct formats *fm, const struct rsel *s)
{
	size_t total = 0, at = 0;

	memset(fm, 0, sizeof(*fm));
	for (size_t f = 0; f < s->nr_files; f++)
		total += s->files[f].td->nr_formats;
	fm->text = calloc(total + 1, sizeof(*fm->text));
	fm->known = calloc(total + 1, sizeof(*fm->known));
	if (!fm->text || !fm->known)
		return -1;
	for (size_t f = 0; f < s->nr_files; f++) {
		const struct tracedat *td = s->files[f].td;

		for (size_t i = 0; i < td->nr_formats; i++, at++) {
			const struct td_format *tf = &td->formats[i];
			struct sel_known k;
			bool seen = false;

			fm->text[at] = strndup(tf->text.data, tf->text.len);
			if (!fm->text[at])
				return -1;
			k = (struct sel_known){ tf->system, tf->name, fm->text[at] };
			/* the same event in several files: checked, and named, once */
			for (size_t j = 0; j < fm->nr_known && !seen; j++)
				seen = same_event(&fm->known[j], &k);
			if (!seen)
				fm->known[fm->nr_known++] = k;
		}
	}
	return 0;
}

static void formats_free(struct formats *fm, size_t total)
{
	for (size_t i = 0; fm->text && i < total; i++)
		free(fm->text[i]);
	free(fm->text);
	free(fm->known);
}

/* The events of one file -e selects, with their filters. 0, or EXIT_FAIL (said). */
static int prepare_file(struct rsel *s, const char *verb, struct rsel_file *rf,
			char *const *text)
{
	const struct tracedat *td = rf->td;

	rf->selected = calloc(NR_IDS, sizeof(*rf->selected));
	rf->filter = calloc(NR_IDS, sizeof(*rf->filter));
	if (!rf->selected || !rf->filter) {
		tool_error(verb, "out of memory");
		return EXIT_FAIL;
	}
	for (size_t i = 0; i < td->nr_formats; i++) {
		const struct td_format *tf = &td->formats[i];
		struct filter *f = NULL;

		if (tf->id < 0 || tf->id >= NR_IDS || rf->selected[tf->id])
			continue;
		rf->selected[tf->id] = sel_event(&s->sel, tf->system, tf->name, text[i], &f);
		rf->filter[tf->id] = f;
		/* the compiled filter reads numbers in this machine's byte order */
		if (f && rf->foreign_order) {
			tool_error(verb, "%s: -f on a file of the other byte order (%s-endian) is not "
				   "supported; -e, --pid, --cpu, --from and --to are", rf->name,
				   td->big_endian ? "big" : "little");
			return EXIT_FAIL;
		}
	}
	return 0;
}

static int check_cpus(const struct rsel *s, const char *verb)
{
	const struct rsel_file *most = &s->files[0];

	for (size_t f = 1; f < s->nr_files; f++)
		if (s->files[f].td->nr_cpus > most->td->nr_cpus)
			most = &s->files[f];
	for (size_t i = 0; i < s->nr_cpus; i++) {
		if (s->cpus[i].lo < most->td->nr_cpus)
			continue;
		if (!most->td->nr_cpus)
			tool_error(verb, "--cpu %" PRIu32 ": %s%s no CPU", s->cpus[i].lo,
				   s->nr_files > 1 ? "the files" : most->name,
				   s->nr_files > 1 ? " have" : " has");
		else
			tool_error(verb, "--cpu %" PRIu32 ": %s has CPUs 0-%" PRIu32 "%s",
				   s->cpus[i].lo, most->name, most->td->nr_cpus - 1,
				   s->nr_files > 1 ? ", the most of the files" : "");
		return EXIT_FAIL;
	}
	return 0;
}

int rsel_add_file(struct rsel *s, const char *verb, const struct tracedat *td, const char *name)
{
	struct rsel_file *grown = realloc(s->files, (s->nr_files + 1) * sizeof(*grown));

	if (!grown) {
		tool_error(verb, "out of memory");
		return EXIT_FAIL;
	}
	s->files = grown;
	s->files[s->nr_files++] = (struct rsel_file){ .name = name, .td = td,
						      .foreign_order = tracedat_swapped(td) };
	return 0;
}

int rsel_prepare(struct rsel *s, const char *verb)
{
	struct formats fm;
	size_t total = 0, at = 0;
	int ret = EXIT_FAIL;

	for (size_t f = 0; f < s->nr_files; f++) {
		total += s->files[f].td->nr_formats;
		if ((s->has_from || s->has_to) && !s->files[f].td->ts_in_ns) {
			tool_error(verb, "%s: its times are clock counts, not nanoseconds: --from "
				   "and --to take seconds", s->files[f].name);
			return EXIT_FAIL;
		}
	}
	if (!s->nr_files || check_cpus(s, verb))
		return EXIT_FAIL;
	if (!s->sel.ngroups)
		return 0;
	if (formats_load(&fm, s)) {
		tool_error(verb, "out of memory");
		goto out;
	}
	if (sel_check_events(&s->sel, verb, fm.known, fm.nr_known,
			     s->nr_files > 1 ? "the files" : s->files[0].name))
		goto out;
	for (size_t f = 0; f < s->nr_files; f++) {
		if (prepare_file(s, verb, &s->files[f], fm.text + at))
			goto out;
		at += s->files[f].td->nr_formats;
	}
	ret = 0;
out:
	formats_free(&fm, total);
	return ret;
}
static bool cpu_listed(const struct rsel *s, uint32_t cpu)
{
	for (size_t i = 0; i < s->nr_cpus; i++)
		if (cpu >= s->cpus[i].lo && cpu <= s->cpus[i].hi)
			return true;
	return false;
}

static bool pid_listed(const struct rsel *s, int32_t pid)
{
	for (size_t i = 0; i < s->nr_pids; i++)
		if (s->pids[i] == pid)
			return true;
	return false;
}

/*
 * The record's time against a bound of --from/--to: below it (<0), at it (0) or after (>0).
 * A bound of up to 6 decimals is a time as the report prints it: libtraceevent rounds to the
 * microsecond ((ts + 500) / 1000, print_event_time()), so the record's printed time is what
 * is compared, and the lines kept are those whose printed time is in the window.
 */
static int time_cmp(uint64_t ts, uint64_t bound, bool exact)
{
	if (!exact) {
		ts = (ts + 500) / 1000;
		bound /= 1000;
	}
	return ts < bound ? -1 : ts > bound;
}

bool rsel_keep(void *ctx, const struct td_merge_rec *r)
{
	struct rsel *s = ctx;
	struct rsel_file *f = &s->files[r->file];

	if ((s->has_from && time_cmp(r->ts, s->from, s->from_exact) < 0) ||
	    (s->has_to && time_cmp(r->ts, s->to, s->to_exact) >= 0))
		return false;
	if (s->nr_cpus && !cpu_listed(s, r->cpu))
		return false;
	/* common_pid is at 4, 4 bytes, in every format (the reader checks it) */
	if (s->nr_pids && (r->size < 8 || !pid_listed(s, (int32_t)tracedat_u32(f->td,
									       r->data + 4))))
		return false;
	if (f->selected) {
		unsigned id;

		if (r->size < 2)
			return false;
		id = tracedat_u16(f->td, r->data);
		if (!f->selected[id] ||
		    (f->filter[id] && !filter_match(f->filter[id], r->data, r->size)))
			return false;
	}
	f->kept++;
	return true;
}

uint64_t rsel_records(const struct tracedat *td)
{
	uint64_t n = 0;

	for (size_t b = 0; b < td->nr_buffers; b++)
		for (uint32_t cpu = 0; cpu < td->nr_cpus; cpu++)
			n += td->buffers[b].cpus[cpu].nr_events;
	return n;
}

int rsel_end(const struct rsel *s, const char *verb)
{
	uint64_t kept = 0;

	for (size_t f = 0; f < s->nr_files; f++) {
		uint64_t n = rsel_records(s->files[f].td);

		kept += s->files[f].kept;
		if (!s->files[f].kept && n)
			tool_error(verb, "%s: no record selected (of %" PRIu64 " in the file)",
				   s->files[f].name, n);
	}
	return kept ? EXIT_OK : EXIT_FAIL;
}

void rsel_free(struct rsel *s)
{
	for (size_t f = 0; f < s->nr_files; f++) {
		for (size_t id = 0; s->files[f].filter && id < NR_IDS; id++)
			tp_filter_free(s->files[f].filter[id]);
		free(s->files[f].filter);
		free(s->files[f].selected);
	}
	free(s->files);
	free(s->pids);
	free(s->cpus);
	sel_free(&s->sel);
	memset(s, 0, sizeof(*s));
}
