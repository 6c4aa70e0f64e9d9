/* SPDX-License-Identifier: MIT */
/*
 * What a consumer of a running process (tpoint stream, tpoint record -p) delivers: its -e
 * globs, each with the -f that follows it, as trace-cmd reads them (-e A -f X -e B: X
 * filters A only; the rules are lib/fmt/selection.h's, here the tool's words for them). The process records what the consumer's globs select besides what it
 * records for itself; the consumer keeps only its own events and judges its own filters on
 * the records it reads, with the library's filter code (lib/filter.c), so that nothing of
 * the process's own (its enabled events, its filters, its flight recorder) changes.
 */
#ifndef TPOINT_SELECT_H
#define TPOINT_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "control_client.h"
#include "fmt/selection.h" /* struct selection: the -e/-f groups, their rules */

struct filter;

/* -e GLOBS (or record's -k): 0, -1 out of memory, -2 not a glob list (glob.h); said. */
int sel_add_events(struct selection *s, const char *verb, const char *globs);
/* -f EXPR for the -e before it: 0, or -1 when there is none (said; a usage error). */
int sel_add_filter(struct selection *s, const char *verb, const char *expr);
/* The same for a group of option -opt (record's -k: the kernel's filter of its events). */
int sel_add_group_filter(struct selection *s, const char *verb, char opt, const char *expr);
/* Every group's globs, comma-joined, or NULL when there is no -e. */
const char *sel_globs(const struct selection *s);
/*
 * Before attaching: every -e matches an event of the process, and every -f compiles for one
 * of the events its -e selects at least; an event it does not compile for (a field it lacks)
 * keeps all its records, and is named on stderr. 0, or -1 (said).
 */
int sel_check(const struct selection *s, const char *verb, struct ctl_conn *conn, pid_t pid);
/* An event a selection is checked against: its names and its tracefs format text (or NULL). */
struct sel_known {
	const char *system, *name, *format;
};
/*
 * sel_check()'s checks against a list of events (the formats of files, for `tpoint report`):
 * "'GLOBS' matches no event of WHERE", a -f that compiles for none of its events, the events
 * it leaves unfiltered. 0, or -1 (said).
 */
int sel_check_events(const struct selection *s, const char *verb, const struct sel_known *ev,
		     size_t nev, const char *where);
/*
 * One event, by its tracefs format text: false when the selection leaves it out; else *f is
 * the filter its records must pass (NULL: all of them), the caller's to tp_filter_free().
 */
bool sel_event(const struct selection *s, const char *system, const char *name,
	       const char *format, struct filter **f);
void sel_free(struct selection *s);

#endif
