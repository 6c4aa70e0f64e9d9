/* SPDX-License-Identifier: MIT */
/*
 * Which events are selected: the patterns of tpoint_enable(), tpoint_disable() and
 * TPOINT_EVENTS, applied in order to every event, those registered later too, each marked
 * when it matches (for the warning about a pattern that matched nothing); and the globs of an
 * attached client, kept apart. Everything here runs under the registry lock (registry.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <tpoint/tpoint.h>
#include "env.h"
#include "globs.h"
#include "log.h"
#include "patterns.h"
#include "registry.h"

struct pattern {
	char *glob;
	bool on;
	bool from_env;
	bool matched;
};
static struct pattern *patterns;
static size_t npatterns, patterns_cap;
static char *client_globs; /* tp_registry_set_client(): comma-separated, or NULL */

/* The last pattern that matches decides, as when the user typed them in order. */
void tp_registry_slot_apply_patterns(struct event_slot *s)
{
	for (size_t i = 0; i < npatterns; i++)
		if (tp_glob_selects(patterns[i].glob, strlen(patterns[i].glob), s->system, s->name)) {
			s->record = patterns[i].on;
			patterns[i].matched = true;
		}
}

/* Does a glob of the attached client's list select the slot's event? */
bool tp_registry_slot_client_matches(const struct event_slot *s)
{
	return tp_globs_select(client_globs, s->system, s->name);
}

static int add_patterns(const char *list, bool on, bool from_env)
{
	int matched = 0;
	const char *item;
	size_t len;

	if (!list)
		return -EINVAL;
	/* Validate the whole list first: a bad item changes nothing. */
	if (!tp_globs_valid(list))
		return -EINVAL;
	size_t first = npatterns;

	for (const char *at = list; tp_globs_next(&at, &item, &len);) {
		if (npatterns == patterns_cap) {
			size_t cap = patterns_cap ? patterns_cap * 2 : 8;
			struct pattern *n = realloc(patterns, cap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			patterns = n;
			patterns_cap = cap;
		}
		char *glob = strndup(item, len);

		if (!glob)
			return -ENOMEM;
		/*
		 * The last matching pattern decides, so an earlier one with the same glob can
		 * never decide again: drop it, so that a program switched on and off for
		 * weeks keeps a list as long as its distinct globs.
		 */
		for (size_t k = 0; k < npatterns; k++)
			if (!strcmp(patterns[k].glob, glob)) {
				free(patterns[k].glob);
				memmove(&patterns[k], &patterns[k + 1],
					(npatterns - k - 1) * sizeof(*patterns));
				npatterns--;
				first -= k < first;
				break;
			}
		struct pattern *pat = &patterns[npatterns];

		pat->glob = glob;
		pat->on = on;
		pat->from_env = from_env;
		pat->matched = false;
		npatterns++;
	}
	/* Count the events these patterns name; all the patterns decide each one's state. */
	for (uint32_t i = 0; i < tp_nslots; i++) {
		bool hit = false;

		for (size_t k = first; k < npatterns && !hit; k++)
			hit = tp_glob_selects(patterns[k].glob, strlen(patterns[k].glob),
					      tp_slots[i].system, tp_slots[i].name);
		if (hit) {
			matched++;
			tp_registry_slot_apply_patterns(&tp_slots[i]);
			tp_registry_slot_apply(&tp_slots[i]);
		}
	}
	return matched;
}

int tp_registry_enable_patterns(const char *list, bool on, bool from_env)
{
	int ret;

	tp_registry_lock();
	ret = add_patterns(list, on, from_env);
	tp_registry_unlock();
	return ret;
}

int tp_registry_set_client(const char *globs)
{
	char *copy = NULL;
	int matched = 0;

	if (globs) {
		if (!tp_globs_valid(globs))
			return -EINVAL;
		copy = strdup(globs);
		if (!copy)
			return -ENOMEM;
	}
	tp_registry_lock();
	free(client_globs);
	client_globs = copy;
	for (uint32_t i = 0; i < tp_nslots; i++) {
		tp_slots[i].client = tp_registry_slot_client_matches(&tp_slots[i]);
		matched += tp_slots[i].client;
		tp_registry_slot_apply(&tp_slots[i]);
	}
	tp_registry_unlock();
	return matched;
}

/* After a fork: a client attached to the parent is the parent's, none records the child. */
void tp_registry_client_after_fork(void)
{
	free(client_globs);
	client_globs = NULL;
	for (uint32_t i = 0; i < tp_nslots; i++) {
		tp_slots[i].client = false;
		tp_registry_slot_apply(&tp_slots[i]);
	}
}

void tp_registry_report_unmatched(void)
{
	tp_registry_lock();
	for (size_t i = 0; i < npatterns; i++)
		if (patterns[i].from_env && !patterns[i].matched)
			tp_warn("TPOINT_EVENTS: '%s' matches no event of this program",
				patterns[i].glob);
	tp_registry_unlock();
}

/*
 * `TPOINT_RECORD=trace.dat ./app` without TPOINT_EVENTS, or with a glob that names nothing of
 * the program, wrote a file with no events in it and said nothing: the user finds out in the
 * report, much later. It is the one case where the library speaks unasked: a recording was
 * asked for, it cannot hold anything, and there is no tool around to say so.
 */
void tp_registry_say_nothing_enabled(const char *file)
{
	const char *env = tp_env_events();
	bool any = false, refused = false;
	unsigned abi;

	tp_registry_lock();
	for (uint32_t i = 0; i < tp_nslots && !any; i++) {
		any = tp_slots[i].record && !tp_slots[i].broken;
		refused |= tp_slots[i].record && tp_slots[i].broken;
	}
	tp_registry_unlock();
	if (any)
		return;
	if (!env || !*env)
		tp_notice("TPOINT_RECORD=%s: no event was enabled (TPOINT_EVENTS is not set), so the "
		       "file holds none", file);
	else if (refused)
		tp_notice("TPOINT_RECORD=%s: TPOINT_EVENTS='%s' matches only events that stay off (their "
		       "TP_printk cannot be rendered; see `tpoint list --check`), so the file holds "
		       "none", file, env);
	else if (tp_registry_refused_by_abi(&abi))
		tp_notice("TPOINT_RECORD=%s: TPOINT_EVENTS='%s' matches no event of this program, so the "
			  "file holds none; its events built for tpoint ABI %u were refused (this "
			  "library has %u): rebuild them with its headers (TPOINT_DEBUG=1 names "
			  "them)", file, env, abi, TPOINT_ABI);
	else
		tp_notice("TPOINT_RECORD=%s: TPOINT_EVENTS='%s' matches no event of this program, so the "
		       "file holds none", file, env);
}
