/* SPDX-License-Identifier: MIT */
/* The control protocol's messages and the files' counter rows, written and read (control_msg.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "control_msg.h"

/* ---- where the socket is ---- */

int tp_ctl_dir_in_runtime(char *out, size_t len, const char *runtime_dir)
{
	return snprintf(out, len, "%s/tpoint", runtime_dir);
}

int tp_ctl_dir_in_tmp(char *out, size_t len, unsigned euid)
{
	return snprintf(out, len, "/tmp/tpoint-%u", euid);
}

int tp_ctl_socket_path(char *out, size_t len, const char *dir, int pid)
{
	return snprintf(out, len, "%s/%d.sock", dir, pid);
}

bool tp_ctl_socket_name(const char *name, long *pid)
{
	char *end;

	*pid = strtol(name, &end, 10);
	return *pid > 0 && !strcmp(end, ".sock");
}

/* ---- growing text ---- */

void tp_ctl_text_add(struct ctl_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->oom)
		return;
	for (;;) {
		size_t room = t->cap - t->len;

		va_start(ap, fmt);
		n = vsnprintf(t->buf ? t->buf + t->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->oom = true;
			return;
		}
		if ((size_t)n < room) {
			t->len += (size_t)n;
			return;
		}
		size_t cap = t->cap ? t->cap * 2 : 4096;

		while (cap - t->len <= (size_t)n)
			cap *= 2;
		if (t->max && cap > t->max) {
			t->oom = true;
			return;
		}
		char *b = realloc(t->buf, cap);

		if (!b) {
			t->oom = true;
			return;
		}
		t->buf = b;
		t->cap = cap;
	}
}

void tp_ctl_text_free(struct ctl_text *t)
{
	free(t->buf);
	*t = (struct ctl_text){ .max = t->max };
}

/* ---- cutting text in place ---- */

/* The next line at *cur, its newline cut; NULL at the end. Empty lines are skipped. */
static char *next_line(char **cur)
{
	char *line;

	while (*cur && **cur == '\n')
		(*cur)++;
	if (!*cur || !**cur)
		return NULL;
	line = *cur;
	*cur = strchr(line, '\n');
	if (*cur)
		*(*cur)++ = 0;
	return line;
}

/* The next tab-separated field at *p (NULL when there is none), cut; empty fields kept. */
static char *field(char **p)
{
	return *p ? strsep(p, "\t") : NULL;
}

/* A decimal number, all of s: digits only, no sign, no overflow. */
static bool decimal(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!s || !*s)
		return false;
	for (; *s; s++) {
		/* as the file's reader always took them: no more than 20 digits' worth */
		if (*s < '0' || *s > '9' || x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return true;
}

static long long number_or_none(const char *s)
{
	uint64_t v;

	return decimal(s, &v) && v <= INT64_MAX ? (long long)v : -1;
}

/* An event's name: system:name as the library keeps it apart, or whole. */
static void put_event(struct ctl_text *t, const char *system, const char *event)
{
	if (system)
		tp_ctl_text_add(t, "%s:%s", system, event);
	else
		tp_ctl_text_add(t, "%s", event);
}

/* ---- CTL_HELLO ---- */

void tp_ctl_hello_put(struct ctl_text *t, const struct ctl_hello *h)
{
	tp_ctl_text_add(t, "%lld\t%s\t%lld\t%lld\t%s\n", h->pid, h->comm, h->events, h->enabled,
		     h->recording);
}

void tp_ctl_hello_parse(char *line, struct ctl_hello *h)
{
	char *p = line;

	line[strcspn(line, "\n")] = 0;
	h->pid = number_or_none(field(&p));
	h->comm = field(&p);
	h->events = number_or_none(field(&p));
	h->enabled = number_or_none(field(&p));
	h->recording = field(&p);
}

/* ---- CTL_LIST ---- */

#define REG_WORDS "reg function returned "

void tp_ctl_event_row_put(struct ctl_text *t, const struct ctl_event_row *r)
{
	tp_ctl_text_add(t, "%u\t", r->id);
	put_event(t, r->system, r->event);
	tp_ctl_text_add(t, "\t%d\t%s\t%s\t", r->enabled, r->condition, r->filter);
	if (r->refusal == CTL_REFUSAL_REG)
		tp_ctl_text_add(t, REG_WORDS "%d\n", r->reg_error);
	else if (r->refusal == CTL_REFUSAL_FORMAT)
		tp_ctl_text_add(t, "%s\n", r->why ? r->why : "refused");
	else
		tp_ctl_text_add(t, "\n");
}

enum ctl_refusal tp_ctl_refusal_of(const char *refused, int *reg_error)
{
	*reg_error = 0;
	if (!refused || !*refused)
		return CTL_REFUSAL_NONE;
	if (!strncmp(refused, REG_WORDS, strlen(REG_WORDS))) {
		*reg_error = atoi(refused + strlen(REG_WORDS));
		return CTL_REFUSAL_REG;
	}
	return CTL_REFUSAL_FORMAT;
}

int tp_ctl_event_row_next(char **cur, struct ctl_event_row *r)
{
	char *line, *p, *id, *enabled;

	while ((line = next_line(cur))) {
		p = line;
		id = field(&p);
		r->event = field(&p);
		if (!r->event)
			continue; /* not a row */
		r->system = NULL;
		r->id = (unsigned)strtoul(id, NULL, 10);
		enabled = field(&p);
		r->enabled = enabled && !strcmp(enabled, "1");
		r->condition = (r->condition = field(&p)) ? r->condition : "";
		r->filter = (r->filter = field(&p)) ? r->filter : "";
		r->refused = (r->refused = field(&p)) ? r->refused : "";
		r->refusal = tp_ctl_refusal_of(r->refused, &r->reg_error);
		r->why = r->refusal == CTL_REFUSAL_FORMAT ? r->refused : NULL;
		return 1;
	}
	return 0;
}

/* ---- counter rows ---- */

void tp_ctl_stat_row_put(struct ctl_text *t, const struct ctl_stat_row *r,
		      enum ctl_row_flavour flavour)
{
	put_event(t, r->system, r->event);
	tp_ctl_text_add(t, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%s",
		     r->v[CTL_HITS], r->v[CTL_COND_SKIPPED], r->v[CTL_FILTERED],
		     r->v[CTL_RECORDED], r->v[CTL_LOST], r->condition);
	if (flavour == CTL_ROW_SOCKET)
		tp_ctl_text_add(t, "\t%" PRIu64 "\n", r->usdt);
	else
		tp_ctl_text_add(t, "\n");
}

int tp_ctl_stat_row_parse(char *line, struct ctl_stat_row *r, enum ctl_row_flavour flavour)
{
	char *p = line, *f[CTL_NCOUNTERS];

	r->system = NULL;
	r->event = field(&p);
	for (int i = 0; i < CTL_NCOUNTERS; i++)
		f[i] = field(&p);
	/* the file's rows have a condition; a process's may not (an older library) */
	if (!f[CTL_NCOUNTERS - 1] || (flavour == CTL_ROW_FILE && !p) || !*r->event ||
	    !strchr(r->event, ':'))
		return CTL_ROW_MALFORMED;
	for (int i = 0; i < CTL_NCOUNTERS; i++)
		if (!decimal(f[i], &r->v[i]))
			return CTL_ROW_NOT_NUMBER + i;
	r->condition = p ? p : "";
	r->usdt = 0;
	if (flavour == CTL_ROW_SOCKET && p) {
		char *tab = strrchr(p, '\t'); /* the usdt field, last, if it is there */

		if (tab) {
			*tab = 0;
			if (!decimal(tab + 1, &r->usdt))
				return CTL_ROW_MALFORMED;
		}
	}
	return 0;
}

int tp_ctl_stat_row_next(char **cur, struct ctl_stat_row *r)
{
	char *line = next_line(cur);

	return line ? (tp_ctl_stat_row_parse(line, r, CTL_ROW_SOCKET) ?: 1) : 0;
}

/* ---- the file's notes ---- */

void tp_ctl_note_row_put(struct ctl_text *t, const struct ctl_note_row *r)
{
	put_event(t, r->system, r->event);
	if (r->refusal == CTL_REFUSAL_REG)
		tp_ctl_text_add(t, "\t%" PRIu64 "\treg %d\n", r->too_big, r->reg_error);
	else
		tp_ctl_text_add(t, "\t%" PRIu64 "\t%d\n", r->too_big,
				r->refusal == CTL_REFUSAL_FORMAT);
}

int tp_ctl_note_row_parse(char *line, struct ctl_note_row *r)
{
	char *p = line, *big, *refused;

	r->system = NULL;
	r->event = field(&p);
	big = field(&p);
	refused = p; /* the rest */
	if (!big || !refused)
		return CTL_ROW_MALFORMED;
	r->too_big = strtoull(big, NULL, 10);
	r->reg_error = 0;
	if (!strcmp(refused, "1")) {
		r->refusal = CTL_REFUSAL_FORMAT;
	} else if (!strncmp(refused, "reg ", 4)) {
		r->refusal = CTL_REFUSAL_REG;
		r->reg_error = atoi(refused + 4);
	} else {
		r->refusal = CTL_REFUSAL_NONE;
	}
	return 0;
}

/* ---- CTL_FILTER ---- */

void tp_ctl_filter_req_put(struct ctl_text *t, const struct ctl_filter_req *r)
{
	tp_ctl_text_add(t, "%s\t%s", r->event, r->expr);
}

int tp_ctl_filter_req_parse(char *payload, struct ctl_filter_req *r)
{
	char *tab = strchr(payload, '\t');

	if (!tab)
		return CTL_ROW_MALFORMED;
	*tab = 0;
	r->event = payload;
	r->expr = tab + 1;
	return 0;
}

/* ---- CTL_HIST ---- */

void tp_ctl_hist_req_put(struct ctl_text *t, const struct ctl_hist_req *r)
{
	tp_ctl_text_add(t, "%s\t%d", r->globs, r->json ? 1 : 0);
}

int tp_ctl_hist_req_parse(char *payload, struct ctl_hist_req *r)
{
	char *tab = strchr(payload, '\t');

	if (!tab || (strcmp(tab + 1, "0") && strcmp(tab + 1, "1")))
		return CTL_ROW_MALFORMED;
	*tab = 0;
	r->globs = payload;
	r->json = tab[1] == '1';
	return 0;
}

/* ---- CTL_ATTACH ---- */

void tp_ctl_attach_req_put(struct ctl_text *t, const struct ctl_attach_req *r)
{
	tp_ctl_text_add(t, "%s\t%s\t%s\t%d\t%s", r->spool, r->globs, r->mode, r->live ? 1 : 0,
		     r->pool_bytes);
}

int tp_ctl_attach_req_parse(char *payload, struct ctl_attach_req *r)
{
	char *p = payload, *live;

	r->spool = field(&p);
	r->globs = field(&p);
	r->mode = field(&p);
	live = field(&p);
	r->pool_bytes = field(&p);
	if (!r->pool_bytes || r->spool[0] != '/')
		return CTL_ROW_MALFORMED;
	r->live = !strcmp(live, "1");
	return 0;
}

void tp_ctl_attach_reply_put(struct ctl_text *t, const struct ctl_attach_reply *r)
{
	tp_ctl_text_add(t, "%u\t%u\t%zu", r->npages, r->page_size, r->meta_offset);
}

int tp_ctl_attach_reply_parse(const char *text, struct ctl_attach_reply *r)
{
	return sscanf(text, "%u\t%u\t%zu", &r->npages, &r->page_size, &r->meta_offset) == 3
		       ? 0
		       : CTL_ROW_MALFORMED;
}

/* ---- CTL_JUMP ---- */

void tp_ctl_jump_put(struct ctl_text *t, const struct ctl_jump *j)
{
	tp_ctl_text_add(t, "%llu\t%llu\t%s\n", j->sites, j->checked, j->reason);
}

int tp_ctl_jump_parse(char *text, struct ctl_jump *j)
{
	char *p = text, *sites, *checked;
	uint64_t v[2];

	text[strcspn(text, "\n")] = 0;
	sites = field(&p);
	checked = field(&p);
	if (!decimal(sites, &v[0]) || !decimal(checked, &v[1]))
		return CTL_ROW_MALFORMED;
	j->sites = v[0];
	j->checked = v[1];
	j->reason = p ? p : "";
	return 0;
}
