/* SPDX-License-Identifier: MIT */
/*
 * Which events are selected, and with which filter: the rules that the runtime and the tool
 * both apply, written once (the glob language itself is lib/globs.h; sizes are
 * lib/poolsize.h). Pure: only libc and the glob matcher; tests/selection_test.c holds the
 * table of cases.
 *
 * - An event is named "system:name", or by its bare "name" (tpoint_set_filter(),
 *   TPOINT_FILTER, `tpoint filter`): tp_event_named(), tp_event_split().
 * - TPOINT_FILTER='sys:event:EXPR;event:EXPR': tp_filter_env_next().
 * - A consumer's -e/-f groups, as trace-cmd reads them (-e A -f X -e B: X filters A only):
 *   struct selection. The tool (tpoint stream, tpoint record) keeps one.
 */
#ifndef TPOINT_SELECTION_H
#define TPOINT_SELECTION_H

#include <stdbool.h>
#include <stddef.h>

/*
 * How `event` ("system:name", or a bare "name") names the event system:name: not at all (0),
 * by its bare name, or with its system, which wins (a filter set for "sys:name" is the
 * event's over one set for "name", whichever came first).
 */
enum event_naming { EVENT_NOT_NAMED = 0, EVENT_NAMED_BARE = 1, EVENT_NAMED_FULL = 2 };
enum event_naming tp_event_named(const char *event, const char *system, const char *name);

/*
 * "system:name" cut at its first ':': the system into system[len], *name after the colon.
 * false when there is no ':', or the system does not fit.
 */
bool tp_event_split(const char *event, char *system, size_t len, const char **name);

/*
 * The next item of a TPOINT_FILTER value, cut in place from *cursor (which moves past it).
 * Items are split at ';', an item at the ':' that ends its event (the second ':' of
 * "sys:event:EXPR", else the first): a ';' or ':' inside a quoted string is the string's
 * (the filter syntax has no escapes). Blanks before an item and empty items are skipped.
 * Returns 1 with *event and *expr set; -1 for an item that is not event:EXPR (no ':', none
 * before it, or "sys::EXPR"), with *event the whole item; 0 at the end.
 */
int tp_filter_env_next(char **cursor, char **event, char **expr);

/*
 * TPOINT_TRIGGER='sys:event:hist:keys=x;event:!hist:keys=x', as the kernel's trigger files
 * take a command (hist, traceon, traceoff, snapshot, stacktrace, enable_event, ...), after
 * the event named as for filters; or "synthetic_events:'DEFINITION'", a synthetic event as
 * the kernel's synthetic_events file takes it (quoted: its ';' does not cut). Cut in place;
 * a ';' in a quoted string does not cut.
 * Returns 1 with *event and *trigger set; -1 for an item with no command after an event
 * (*event the whole item); 0 at the end.
 */
int tp_trigger_env_next(char **cursor, char **event, char **trigger);

/* One -e: comma-separated globs, with the -f after it (or NULL). */
struct sel_group {
	const char *globs;
	const char *filter;
};

/* Every -e with its -f, in order; the strings are the caller's (its argv). */
struct selection {
	struct sel_group *group;
	size_t ngroups;
	char *globs; /* every group's, comma-joined: what the process is asked to record */
};

/* What tp_sel_add_events() and tp_sel_add_filter() refuse (the tool's words say why). */
enum sel_refusal {
	SEL_OK = 0,
	SEL_NOMEM = -1,
	SEL_NOT_GLOBS = -2,   /* -e: not a glob list the runtime takes (tp_globs_valid()) */
	SEL_NO_GROUP = -3,    /* -f before any -e: a filter applies to the -e before it */
	SEL_FILTER_TWICE = -4 /* a second -f for one -e: join them with && or || */
};

/* -e GLOBS: SEL_OK, SEL_NOT_GLOBS or SEL_NOMEM; the selection is unchanged but for OK. */
int tp_sel_add_events(struct selection *s, const char *globs);
/* -f EXPR for the -e before it: SEL_OK, SEL_NO_GROUP or SEL_FILTER_TWICE. */
int tp_sel_add_filter(struct selection *s, const char *expr);
void tp_sel_free(struct selection *s);

/* Does group g select system:name? */
bool tp_sel_group_selects(const struct sel_group *g, const char *system, const char *name);

/*
 * One event: false when no group selects it. Else *expr is the filter its records must
 * pass, malloc'd, or NULL for all of them: the -f of every group that selects it, each
 * parenthesised, joined with "||" (a record of any group is kept). A group without -f, or
 * whose -f does not compile for the event (compiles() says, with ctx), keeps all the
 * event's records, and so does a join that runs out of memory.
 */
bool tp_sel_event(const struct selection *s, const char *system, const char *name,
		  bool (*compiles)(void *ctx, const char *expr), void *ctx, char **expr);

#endif
