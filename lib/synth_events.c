/* SPDX-License-Identifier: MIT */
/*
 * The synthetic events' blocks by name and their registration (see synth_events.h).
 * Definitions change under the registry lock (trigger_linked.c); registering takes that
 * lock itself, so it is done after, by whoever changed a definition (trigger.c), one block
 * at a time: a block being (un)registered is marked busy, and a thread that finds it so
 * leaves it to the one that marked it, which looks again when it is done.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "registry.h"
#include "synth_events.h"
#include "synth_format.h"
#include "synth_record.h"
#include "writer.h"

struct synth_entry {
	char name[HIST_NAME_MAX];
	struct synth_block *block; /* never freed: its descriptor is the event's */
	bool want, registered, busy;
};

static struct synth_entry *entries;
static unsigned nentries;
static void (*module_register)(const struct tpoint_module *);
static void (*module_unregister)(const struct tpoint_module *);

static struct synth_entry *entry_named(const char *name)
{
	for (unsigned i = 0; i < nentries; i++)
		if (!strcmp(entries[i].name, name))
			return &entries[i];
	return NULL;
}

int tp_synth_event_prepare(const struct hist_synth *syn, char *err, size_t errlen)
{
	struct synth_block *b = tp_synth_block_new(syn);
	struct synth_entry *e = entry_named(syn->name), *grown;

	if (!b) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (e) {
		int same = tp_synth_block_same(e->block, b);

		free(b);
		if (same)
			return 0;
		snprintf(err, errlen, "synthetic event '%s' was defined before in this process "
			 "with other fields, and keeps its id and record layout: give it the same "
			 "fields, or another name", syn->name);
		return -EEXIST;
	}
	grown = realloc(entries, (nentries + 1) * sizeof(*entries));
	if (!grown) {
		free(b);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	entries = grown;
	e = &entries[nentries++];
	*e = (struct synth_entry){ .block = b };
	snprintf(e->name, sizeof(e->name), "%s", syn->name);
	/* Its records are written after their hit's (lib/writer.c's after_commit()). */
	__atomic_store_n(&tp_synth_flush_hook, tp_synth_record_flush, __ATOMIC_RELAXED);
	return 0;
}

void tp_synth_event_want(const char *name, bool want)
{
	struct synth_entry *e = entry_named(name);

	if (e)
		e->want = want;
}

struct tpoint_event *tp_synth_event_of(const char *name)
{
	struct synth_entry *e = entry_named(name);

	return e ? &e->block->ev : NULL;
}

void tp_synth_events_set_calls(void (*reg)(const struct tpoint_module *),
			       void (*unreg)(const struct tpoint_module *))
{
	tp_registry_lock();
	module_register = reg;
	module_unregister = unreg;
	tp_registry_unlock();
}

void tp_synth_events_sync(void)
{
	for (;;) {
		void (*call)(const struct tpoint_module *) = NULL;
		struct synth_entry *e = NULL;
		struct synth_block *block;
		bool want = false;

		tp_registry_lock();
		for (unsigned i = 0; i < nentries && module_register; i++)
			if (!entries[i].busy && entries[i].want != entries[i].registered) {
				e = &entries[i];
				break;
			}
		if (!e) {
			tp_registry_unlock();
			return;
		}
		e->busy = true;
		want = e->want;
		call = want ? module_register : module_unregister;
		block = e->block; /* entries may move (realloc) meanwhile; blocks do not */
		tp_registry_unlock();

		call(&block->mod);

		tp_registry_lock();
		for (unsigned i = 0; i < nentries; i++)
			if (entries[i].block == block) {
				entries[i].busy = false;
				entries[i].registered = want;
			}
		tp_registry_unlock();
	}
}

void tp_synth_events_after_fork(void)
{
	for (unsigned i = 0; i < nentries; i++)
		if (entries[i].busy) {
			entries[i].busy = false;
			entries[i].registered = !entries[i].want;
		}
}
