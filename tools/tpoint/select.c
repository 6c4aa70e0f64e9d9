/* SPDX-License-Identifier: MIT */
/* See select.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tpoint/tpoint.h>
#include "fmt/control_msg.h"
#include "filter.h"
#include "fmt/tracefs_format.h"
#include "glob.h"
#include "select.h"
#include "tool.h"

int sel_add_events(struct selection *s, const char *verb, const char *globs)
{
	switch (tp_sel_add_events(s, globs)) {
	case SEL_OK:
		return 0;
	case SEL_NOT_GLOBS:
		globs_check(verb, globs); /* says why */
		return -2;
	default:
		tool_error(verb, "out of memory");
		return -1;
	}
}

int sel_add_group_filter(struct selection *s, const char *verb, char opt, const char *expr)
{
	switch (tp_sel_add_filter(s, expr)) {
	case SEL_OK:
		return 0;
	case SEL_NO_GROUP:
		tool_error(verb, "-f '%s' comes before any -%c: a filter applies to the -%c "
			   "before it", expr, opt, opt);
		return -1;
	default: /* SEL_FILTER_TWICE */
		tool_error(verb, "two -f for -%c '%s': join them with && or ||", opt,
			   s->group[s->ngroups - 1].globs);
		return -1;
	}
}

int sel_add_filter(struct selection *s, const char *verb, const char *expr)
{
	return sel_add_group_filter(s, verb, 'e', expr);
}

const char *sel_globs(const struct selection *s)
{
	return s->globs;
}

void sel_free(struct selection *s)
{
	tp_sel_free(s);
}

/* The fields of a tracefs format text, as the library gives them to its filters. */
struct fields {
	char *text; /* a copy of the format, cut where the names end */
	struct filter_field *f;
	size_t n;
};

static int parse_fields(const char *format, struct fields *out)
{
	const char *body = strstr(format, "format:");
	struct tracefs_field tf;
	size_t max = 1, len, pos = 0;
	char *end;

	memset(out, 0, sizeof(*out));
	if (!body || !(out->text = strdup(body)))
		return -1;
	end = strstr(out->text, "print fmt:");
	len = end ? (size_t)(end - out->text) : strlen(out->text);
	for (const char *p = out->text; (p = strstr(p, "field:")); p++)
		max++;
	out->f = calloc(max, sizeof(*out->f));
	if (!out->f)
		return -1;
	while (tp_tracefs_next_field(out->text, len, &pos, &tf)) {
		struct filter_field *x = &out->f[out->n];
		int kind = tp_tracefs_field_kind(&tf);

		/* structs and other arrays cannot be compared, as in event_filter.c */
		if (kind < 0 || tf.offset > UINT16_MAX || tf.size > UINT16_MAX)
			continue;
		((char *)tf.name)[tf.name_len] = 0; /* its line is read: cut there, in the copy */
		*x = (struct filter_field){ tf.name, (uint16_t)tf.offset, (uint16_t)tf.size,
					    tf.is_signed, (uint8_t)kind };
		out->n++;
	}
	return 0;
}

static void fields_free(struct fields *f)
{
	free(f->text);
	free(f->f);
}

/* Compile expr for one event: 0, or -errno with the reason in err. */
static int compile(const char *expr, const char *system, const char *name, const char *format,
		   struct filter **f, char *err, size_t errlen)
{
	struct fields fl;
	char full[2 * TPOINT_NAME_MAX + 2];
	int ret;

	*f = NULL;
	if (parse_fields(format, &fl) < 0) {
		fields_free(&fl);
		snprintf(err, errlen, "%s:%s: its format cannot be read", system, name);
		return -EINVAL;
	}
	snprintf(full, sizeof(full), "%s:%s", system, name);
	ret = tp_filter_compile(expr, full, fl.f, fl.n, f, err, errlen);
	fields_free(&fl);
	return ret;
}

/* The event whose format a -f is compiled against, for tp_sel_event(). */
struct one_event {
	const char *system, *name, *format;
};

static bool compiles_for(void *ctx, const char *expr)
{
	const struct one_event *e = ctx;
	struct filter *f;
	char err[512];

	if (compile(expr, e->system, e->name, e->format, &f, err, sizeof(err)) < 0)
		return false;
	tp_filter_free(f);
	return true;
}

bool sel_event(const struct selection *s, const char *system, const char *name,
	       const char *format, struct filter **f)
{
	struct one_event e = { system, name, format };
	char err[512], *expr;
	bool selected = tp_sel_event(s, system, name, compiles_for, &e, &expr);

	/* A filter it does not compile for leaves the event's records alone (sel_check()). */
	*f = NULL;
	if (expr && compile(expr, system, name, format, f, err, sizeof(err)) < 0)
		*f = NULL;
	free(expr);
	return selected;
}

/* The format text of event `id` in a CTL_FORMATS answer, or NULL. */
static const char *format_by_id(const char *formats, unsigned id)
{
	for (const char *p = formats; p && *p; p = strstr(p, "\nname: ")) {
		const char *line = strstr(p, "ID: ");
		unsigned got;

		if (*p == '\n')
			p++;
		if (line && sscanf(line, "ID: %u", &got) == 1 && got == id)
			return p;
	}
	return NULL;
}

struct known_event {
	unsigned id;
	char *system, *name;
};

/* The events of a CTL_LIST answer, cut in place. */
static size_t parse_list(char *text, struct known_event **out)
{
	struct ctl_event_row row;
	char *cur = text;
	size_t n = 0;

	*out = NULL;
	while (tp_ctl_event_row_next(&cur, &row)) {
		char *colon = strchr(row.event, ':');
		struct known_event *k;

		if (!colon)
			continue;
		*colon = 0;
		k = realloc(*out, (n + 1) * sizeof(*k));
		if (!k)
			break;
		*out = k;
		k[n++] = (struct known_event){ row.id, (char *)row.event, colon + 1 };
	}
	return n;
}

/* One -e of the check: its events, and its filter on each. 0, or -1 (said). */
static int check_group(const struct sel_group *g, const char *verb, const struct sel_known *ev,
		       size_t nev, const char *where)
{
	size_t matched = 0, ok = 0;
	char first[512] = "", err[512];
	struct filter *f;

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < nev; i++) {
			if (!tp_sel_group_selects(g, ev[i].system, ev[i].name))
				continue;
			matched += pass == 0;
			if (!g->filter)
				continue;
			if (!ev[i].format) {
				snprintf(err, sizeof(err), "%s:%s: the process gave no format",
					 ev[i].system, ev[i].name);
			} else if (compile(g->filter, ev[i].system, ev[i].name, ev[i].format, &f,
					   err, sizeof(err)) == 0) {
				tp_filter_free(f);
				ok += pass == 0;
				continue;
			}
			if (pass == 0 && !first[0])
				snprintf(first, sizeof(first), "%s", err);
			if (pass == 1) /* some events take the filter: this one keeps its records */
				tool_error(verb, "-f '%s' leaves %s:%s unfiltered: %s", g->filter,
					   ev[i].system, ev[i].name, err);
		}
		if (!matched) {
			/* "sys/name" is the kernel's path, not a glob: say how a glob is written */
			tool_error(verb, "'%s' matches no event of %s%s", g->globs, where,
				   strchr(g->globs, '/') ? " (an event glob is sys:name, not "
				   "sys/name)" : "");
			return -1;
		}
		if (g->filter && !ok) {
			tool_error(verb, "-f '%s': %s", g->filter, first);
			return -1;
		}
	}
	return 0;
}

int sel_check_events(const struct selection *s, const char *verb, const struct sel_known *ev,
		     size_t nev, const char *where)
{
	for (size_t i = 0; i < s->ngroups; i++)
		if (check_group(&s->group[i], verb, ev, nev, where))
			return -1;
	return 0;
}

int sel_check(const struct selection *s, const char *verb, struct ctl_conn *conn, pid_t pid)
{
	char err[1024] = "", *list = NULL, *formats = NULL;
	struct known_event *ev = NULL;
	struct sel_known *known;
	char where[32];
	bool filters = false;
	size_t nev;
	int ret = 0;

	for (size_t i = 0; i < s->ngroups; i++)
		filters |= s->group[i].filter != NULL;
	if (ctl_request(conn, CTL_LIST, NULL, &list, err, sizeof(err)) < 0 ||
	    (filters && ctl_request(conn, CTL_FORMATS, NULL, &formats, err, sizeof(err)) < 0)) {
		tool_error(verb, "process %d: %s", (int)pid, err);
		free(list);
		return -1;
	}
	nev = parse_list(list, &ev);
	known = calloc(nev + 1, sizeof(*known));
	if (!known) {
		tool_error(verb, "out of memory");
		ret = -1;
	}
	for (size_t i = 0; known && i < nev; i++)
		known[i] = (struct sel_known){ ev[i].system, ev[i].name,
					       format_by_id(formats, ev[i].id) };
	snprintf(where, sizeof(where), "process %d", (int)pid);
	if (known)
		ret = sel_check_events(s, verb, known, nev, where);
	free(known);
	free(ev);
	free(list);
	free(formats);
	return ret;
}
