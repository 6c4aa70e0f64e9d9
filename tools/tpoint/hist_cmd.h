/* SPDX-License-Identifier: MIT */
/*
 * tpoint hist: the kernel's histogram triggers, live. Its command line (hist_cmd.c) and the
 * two ways it computes them:
 *
 *  - hist_kernel() (hist_kernel.c), -k SYS:EVENT 'hist:...': a kernel event's histogram, over
 *    the stream of a private tracefs instance (or the kernel's own trigger there, where the
 *    kernel has hist triggers);
 *  - hist_process() (hist_process.c), -p PID: the histograms of a running process's hist:
 *    triggers (TPOINT_TRIGGER, `tpoint trigger`), -e GLOB choosing among its events, and
 *    --latency START,END --key F [--by F] as the short form of a latency pair.
 *
 * Both print on stdout the kernel's `hist` text (lib/hist_print.c), or one JSON object per
 * histogram (lib/hist_json.c), at the end and every --watch seconds; both return an exit
 * status (EXIT_OK, EXIT_FAIL) after saying on stderr why they failed.
 */
#ifndef TPOINT_HIST_CMD_H
#define TPOINT_HIST_CMD_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#define HIST_VERB "hist"

/* One -k: the kernel event ("sys:event") and its trigger ("hist:keys=...[ if FILTER]"). */
struct hist_kernel_trigger {
	const char *event;
	const char *trigger;
};

struct hist_cmd_opts {
	struct hist_kernel_trigger *k; /* -k, in the order given */
	size_t nk;
	pid_t *pids;                   /* -p, repeatable */
	size_t npids;
	const char *events;            /* -e GLOB[,GLOB...], or NULL: every histogram */
	const char *latency;           /* --latency sys:start,sys:end, or NULL */
	const char *key;               /* --key FIELD (with --latency), or NULL */
	const char *by;                /* --by FIELD (with --latency), or NULL */
	bool json;                     /* --json */
	double watch;                  /* --watch S: reprint every S seconds; 0: at the end only */
	double duration;               /* --duration S: stop after S seconds; 0: at Ctrl-C */
};

/*
 * What both ways share (hist_run.c): the stop of a run (Ctrl-C, SIGTERM, SIGHUP, SIGPIPE set
 * hist_stop; no SA_RESTART, so a sleep ends at once) and the clock it is paced by.
 */
extern volatile sig_atomic_t hist_stop;
void hist_catch_stop(void);
double hist_now(void);

int hist_kernel(const struct hist_cmd_opts *o);
int hist_process(const struct hist_cmd_opts *o);

/* -p PID --latency (hist_latency_pid.c): what was set in the process, to be removed. */
#define HIST_LATENCY_TRIGGERS 3 /* the start's, the end's, the synthetic event's */
#define HIST_LATENCY_EVENT "synthetic:latency" /* lib/hist_latency.c's synthetic event */
struct hist_latency_set {
	pid_t pid;
	char synth[512];     /* the synthetic event's definition */
	char triggers[2048]; /* "sys:event:hist:...;..." as lib/hist_latency.c writes them */
	bool synth_added, added[HIST_LATENCY_TRIGGERS]; /* by us: removed at the end */
};
/*
 * Expand --latency with the process's fields, say it on stderr, set it in the process:
 * -1 to go on, or an exit status after saying why (nothing left set).
 */
int hist_latency_set(const struct hist_cmd_opts *o, struct hist_latency_set *ls);
/* What hist_latency_set() added, removed (quietly if the process is gone). */
void hist_latency_unset(struct hist_latency_set *ls);

#endif
