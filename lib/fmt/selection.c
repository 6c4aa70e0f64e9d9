/* SPDX-License-Identifier: MIT */
/* See selection.h. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "globs.h"
#include "selection.h"

enum event_naming tp_event_named(const char *event, const char *system, const char *name)
{
	size_t n = strlen(system);

	if (!strncmp(event, system, n) && event[n] == ':' && !strcmp(event + n + 1, name))
		return EVENT_NAMED_FULL;
	return !strcmp(event, name) ? EVENT_NAMED_BARE : EVENT_NOT_NAMED;
}

bool tp_event_split(const char *event, char *system, size_t len, const char **name)
{
	const char *colon = strchr(event, ':');
	size_t n;

	if (!colon || (n = (size_t)(colon - event)) >= len)
		return false;
	memcpy(system, event, n);
	system[n] = 0;
	*name = colon + 1;
	return true;
}

/* The next `c` of s outside quoted strings (the filter syntax has no escapes), or NULL. */
static char *find_unquoted(char *s, char c)
{
	char quote = 0;

	for (; *s; s++) {
		if (quote)
			quote = *s == quote ? 0 : quote;
		else if (*s == '"' || *s == '\'')
			quote = *s;
		else if (*s == c)
			return s;
	}
	return NULL;
}

/* The next non-blank ';'-separated item of a list, cut in place; NULL at the end. */
static char *next_item(char **cursor)
{
	char *item = *cursor;

	while (item && *item) {
		char *end = find_unquoted(item, ';');

		if (end)
			*end = 0;
		*cursor = end ? end + 1 : NULL;
		while (*item == ' ')
			item++;
		if (*item)
			return item;
		item = *cursor;
	}
	*cursor = NULL;
	return NULL;
}

int tp_filter_env_next(char **cursor, char **event, char **expr)
{
	char *item = next_item(cursor);

	if (item) {
		char *first, *second;

		first = find_unquoted(item, ':');
		second = first ? find_unquoted(first + 1, ':') : NULL;
		*event = item;
		if (!first || first == item || (second && second == first + 1))
			return -1;
		if (second)
			first = second;
		*first = 0;
		*expr = first + 1;
		return 1;
	}
	return 0;
}

/* Does a trigger command start at p ("hist:...", "!hist", "traceon", ...)? */
static bool trigger_command_at(const char *p)
{
	static const char *const words[] = { "hist", "traceon", "traceoff", "snapshot",
					     "stacktrace", "enable_event", "disable_event",
					     "enable_hist", "disable_hist" };

	if (*p == '!')
		p++;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = strlen(words[i]);

		if (!strncmp(p, words[i], n) && (!p[n] || p[n] == ':' || p[n] == ' '))
			return true;
	}
	return false;
}

int tp_trigger_env_next(char **cursor, char **event, char **trigger)
{
	char *item = next_item(cursor), *colon;

	if (!item)
		return 0;
	*event = item;
	/* The event ends at the first colon that a command follows, or a definition's. */
	if (!strncmp(item, "synthetic_events:", strlen("synthetic_events:"))) {
		colon = item + strlen("synthetic_events");
		*colon = 0;
		*trigger = colon + 1;
		return 1;
	}
	for (colon = strchr(item, ':'); colon && !trigger_command_at(colon + 1);
	     colon = strchr(colon + 1, ':'))
		;
	if (!colon || colon == item || colon[-1] == ':')
		return -1;
	*colon = 0;
	*trigger = colon + 1;
	return 1;
}

int tp_sel_add_events(struct selection *s, const char *globs)
{
	struct sel_group *g;
	char *all;

	if (!tp_globs_valid(globs))
		return SEL_NOT_GLOBS;
	g = realloc(s->group, (s->ngroups + 1) * sizeof(*g));
	if (!g)
		return SEL_NOMEM;
	s->group = g;
	if (asprintf(&all, "%s%s%s", s->globs ? s->globs : "", s->globs ? "," : "", globs) < 0)
		return SEL_NOMEM;
	s->group[s->ngroups++] = (struct sel_group){ globs, NULL };
	free(s->globs);
	s->globs = all;
	return SEL_OK;
}

int tp_sel_add_filter(struct selection *s, const char *expr)
{
	if (!s->ngroups)
		return SEL_NO_GROUP;
	if (s->group[s->ngroups - 1].filter)
		return SEL_FILTER_TWICE;
	s->group[s->ngroups - 1].filter = expr;
	return SEL_OK;
}

void tp_sel_free(struct selection *s)
{
	free(s->group);
	free(s->globs);
	memset(s, 0, sizeof(*s));
}

bool tp_sel_group_selects(const struct sel_group *g, const char *system, const char *name)
{
	return tp_globs_select(g->globs, system, name);
}

bool tp_sel_event(const struct selection *s, const char *system, const char *name,
		  bool (*compiles)(void *ctx, const char *expr), void *ctx, char **expr)
{
	bool selected = false, all = false;
	char *joined = NULL;

	for (size_t i = 0; i < s->ngroups; i++) {
		const struct sel_group *g = &s->group[i];
		char *more;

		if (!tp_sel_group_selects(g, system, name))
			continue;
		selected = true;
		if (all || !g->filter || !compiles(ctx, g->filter)) {
			all = true;
			continue;
		}
		if (asprintf(&more, "%s%s(%s)", joined ? joined : "", joined ? " || " : "",
			     g->filter) < 0) {
			all = true;
			continue;
		}
		free(joined);
		joined = more;
	}
	if (all) {
		free(joined);
		joined = NULL;
	}
	*expr = joined;
	return selected;
}
