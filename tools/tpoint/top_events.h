/* SPDX-License-Identifier: MIT */
/*
 * The program-events view of tpoint top: per instrumented process and event, the rates of
 * hits, of hits its condition skipped, filtered, recorded and lost, read over the control
 * sockets as tpoint stat reads them (any user, for their own processes; root, for all).
 */
#ifndef TPOINT_TOP_EVENTS_H
#define TPOINT_TOP_EVENTS_H

#include <stdbool.h>
#include <sys/types.h>
#include "stat_rows.h"

struct events_row {
	pid_t pid;
	const char *comm;
	const struct stat_row *now;      /* its counters, its condition */
	double rate[STAT_NCOUNTERS];     /* per second since the refresh before */
	bool has_rate;                   /* false the first time a process is seen */
	bool ended;                      /* the process ended: its last counters, shown once */
};

struct events_view;

/* pids[0..npids): the processes to show (none: every one with a control socket). */
struct events_view *events_open(const pid_t *pids, int npids);
/* Ask every process for its counters; the rows in *rows (owned by the view). */
int events_refresh(struct events_view *v, struct events_row **rows);
/*
 * Between refreshes, often: connect to processes started since the last call and take their
 * counters, so that one that ends before the refresh is still shown.
 */
void events_poll(struct events_view *v);
/* Why a process -p named is not shown ("no process 123", ...), or NULL. */
const char *events_error(struct events_view *v);
void events_close(struct events_view *v);

#endif
