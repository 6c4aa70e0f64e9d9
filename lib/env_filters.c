/* SPDX-License-Identifier: MIT */
/*
 * TPOINT_FILTER: its filters parsed, set by name before their events register, and followed
 * until each has met its event, so that one that never applies is said.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <tpoint/tpoint.h>
#include "env_filters.h"
#include "event_filter.h"
#include "fmt/selection.h"
#include "log.h"

/*
 * The filters of TPOINT_FILTER, until each has met its event: one that does not compile, or
 * whose event never registers, is said in one line even without TPOINT_DEBUG (tp_notice()):
 * the user asked for it by name, and a filter ignored in silence records what it was meant
 * to keep out.
 */
struct env_filter {
	char *event, *expr;
	bool met; /* its event registered, and the filter was tried on it */
};
static struct env_filter *env_filters;
static size_t nenv_filters;
static pthread_mutex_t env_filters_mutex = PTHREAD_MUTEX_INITIALIZER;

static void env_filter_add(const char *event, const char *expr)
{
	struct env_filter *n = realloc(env_filters, (nenv_filters + 1) * sizeof(*n));

	if (!n)
		return;
	env_filters = n;
	n[nenv_filters] = (struct env_filter){ strdup(event), strdup(expr), false };
	if (n[nenv_filters].event && n[nenv_filters].expr) {
		nenv_filters++;
	} else {
		free(n[nenv_filters].event);
		free(n[nenv_filters].expr);
	}
}

/* Events registered (an object's constructor, a dlopen()): the filters that name them. */
void tp_env_filters_check(void)
{
	char err[512];

	pthread_mutex_lock(&env_filters_mutex);

	for (size_t i = 0; i < nenv_filters; i++) {
		struct env_filter *f = &env_filters[i];
		int ret;

		if (f->met)
			continue;
		/*
		 * Compiled against the event now, to say why it does not apply; not set again:
		 * the event already has the filter its name's rank picks ("sys:event" over a
		 * bare "event", whichever came first), which setting each item in turn undid.
		 */
		ret = tp_registry_try_filter(f->event, f->expr, err, sizeof(err));
		if (ret == -ENOENT)
			continue; /* not registered yet */
		f->met = true;
		if (ret < 0)
			tp_notice("TPOINT_FILTER: '%s:%s': %s; %s records unfiltered", f->event,
				  f->expr, err, f->event);
	}
	pthread_mutex_unlock(&env_filters_mutex);
}

/* At exit: the filters whose event never registered. */
void tp_env_filters_report(void)
{
	pthread_mutex_lock(&env_filters_mutex);
	for (size_t i = 0; i < nenv_filters; i++)
		if (!env_filters[i].met)
			tp_notice("TPOINT_FILTER: '%s:%s': no event '%s' in this program; the "
				  "filter was ignored", env_filters[i].event, env_filters[i].expr,
				  env_filters[i].event);
	pthread_mutex_unlock(&env_filters_mutex);
}

/*
 * TPOINT_FILTER='sys:event:EXPR;event:EXPR', the event named as `tpoint filter` and
 * tpoint_set_filter() take it: with its system or without (the grammar is
 * tp_filter_env_next()'s, lib/fmt/selection.h). The events are not registered yet (their
 * objects' constructors run after ours), so the filters wait in the registry; a filter that
 * does not compile is named when its event registers (tp_env_filters_check()).
 */
void tp_env_filters_parse(const char *v)
{
	char *copy = strdup(v), *cursor = copy, *event, *expr, err[512];
	int item;

	pthread_mutex_lock(&env_filters_mutex);
	while ((item = tp_filter_env_next(&cursor, &event, &expr)) != 0) {
		if (item < 0)
			tp_notice("TPOINT_FILTER: '%s': expected system:event:expression or "
				  "event:expression; ignored", event);
		else if (tp_registry_want_filter(event, expr, err, sizeof(err)) < 0)
			tp_notice("TPOINT_FILTER: '%s:%s': %s; ignored", event, expr, err);
		else
			env_filter_add(event, expr);
	}
	pthread_mutex_unlock(&env_filters_mutex);
	free(copy);
}
