/* SPDX-License-Identifier: MIT */
/*
 * Calling libtraceevent safely. libtraceevent 1.7.1 crashes on some print formats (a
 * division by a field that is 0 is SIGFPE, in trace-cmd too) and trusts the shape of what it
 * parsed. Its calls run under this guard: a trap jumps back, the caller marks the event and
 * never hands it over again. The memory the library held at that moment is leaked on
 * purpose. Used by report and stream.
 */
#ifndef TPOINT_TEP_GUARD_H
#define TPOINT_TEP_GUARD_H

#include <stddef.h>
#include <event-parse.h>

/* Install the handlers (on an alternate stack) for the time the tool renders events. */
void guard_install(void);
void guard_remove(void);

/* tep_parse_event() under the guard: 0, or the signal that stopped it. */
int guarded_parse(struct tep_handle *tep, const char *text, size_t len, const char *sys,
		  enum tep_errno *err);
/* The event's text (TEP_PRINT_INFO) into info: 0, or the signal that stopped it. */
int guarded_info(struct tep_handle *tep, struct trace_seq *info, struct tep_record *rec);
/*
 * Whether libtraceevent may read the record: it reads fields where the format puts them,
 * whatever the record's size. NULL if the record holds every field, else why not (in why).
 */
const char *guard_check_fields(struct tep_handle *tep, struct tep_event *ev,
			       struct tep_record *rec, char *why, size_t len);
/* "SIGFPE (a division by zero)" and the like. */
const char *guard_signal_name(int sig);

#endif
