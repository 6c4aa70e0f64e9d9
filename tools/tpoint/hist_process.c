// SPDX-License-Identifier: MIT
/*
 * tpoint hist -p PID: a running process's histograms (hist_cmd.h), the merged tables of its
 * hist: triggers (TPOINT_TRIGGER, tpoint trigger, tpoint_set_trigger()), as the process
 * prints them (CTL_HIST): the kernel's hist file text, or a JSON object per histogram.
 * Once, or every --watch seconds until Ctrl-C, SIGTERM or --duration.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "control_client.h"
#include "fmt/control_msg.h"
#include "glob.h"
#include "hist_cmd.h"
#include "tool.h"

/* One process's histograms on stdout; -1 said. */
static int print_one(pid_t pid, const struct hist_cmd_opts *o, bool named)
{
	struct ctl_conn conn;
	struct ctl_text req = { 0 };
	char err[1024], *reply = NULL, comm[64];
	int n;

	if (ctl_connect(pid, &conn, err, sizeof(err)) < 0) {
		tool_error(HIST_VERB, "%s", err);
		return -1;
	}
	tp_ctl_hist_req_put(&req, &(struct ctl_hist_req){ o->events ? o->events : "", o->json });
	n = req.oom ? -1 : ctl_request(&conn, CTL_HIST, req.buf, &reply, err, sizeof(err));
	tp_ctl_text_free(&req);
	ctl_close(&conn);
	if (n < 0) {
		tool_error(HIST_VERB, "process %d: %s", (int)pid, req.oom ? "out of memory" : err);
		return -1;
	}
	if (named && !o->json) {
		ctl_proc_comm(pid, comm, sizeof(comm));
		printf("### process %d (%s)\n", (int)pid, comm);
	}
	if (!n && !o->json)
		printf("# no histograms%s%s: set one with TPOINT_TRIGGER or tpoint trigger -p %d\n",
		       o->events ? " of " : "", o->events ? o->events : "", (int)pid);
	fputs(reply ? reply : "", stdout);
	free(reply);
	return fflush(stdout) == EOF ? -1 : 0;
}

static int print_all(const struct hist_cmd_opts *o)
{
	for (size_t i = 0; i < o->npids; i++)
		if (print_one(o->pids[i], o, o->npids > 1) < 0)
			return -1;
	return 0;
}

static int latency(const struct hist_cmd_opts *o);
static int run(const struct hist_cmd_opts *o, bool until_stop);

int hist_process(const struct hist_cmd_opts *o)
{
	if (o->events && globs_check(HIST_VERB, o->events) < 0)
		return EXIT_USAGE;
	if (o->latency)
		return latency(o);
	if (!o->watch && !o->duration)
		return print_all(o) < 0 ? EXIT_FAIL : EXIT_OK;
	return run(o, false);
}

/*
 * --latency: set, run as -k runs (printed at the end: Ctrl-C, SIGTERM or --duration; and
 * every --watch seconds), the synthetic event's histogram only; then removed.
 */
static int latency(const struct hist_cmd_opts *o)
{
	static struct hist_latency_set ls;
	struct hist_cmd_opts lo = *o;
	int ret;

	hist_catch_stop(); /* before the triggers are set: a Ctrl-C now still removes them */
	ret = hist_latency_set(o, &ls);
	if (ret >= 0)
		return ret;
	lo.events = HIST_LATENCY_EVENT;
	ret = run(&lo, true);
	hist_latency_unset(&ls);
	return ret;
}

/* Print every --watch seconds, and at the end (--duration, or a stop if `until_stop`). */
static int run(const struct hist_cmd_opts *o, bool until_stop)
{
	double start = hist_now(), next;

	hist_catch_stop();
	next = start + (o->watch ? o->watch : o->duration ? o->duration : 1e18);
	for (;;) {
		double t = hist_now(), until = next;
		bool end;

		if (o->duration && start + o->duration < until)
			until = start + o->duration;
		if (until_stop && !o->watch && !o->duration && !hist_stop) {
			pause(); /* a stop's signal ends it */
			continue;
		}
		if (t < until && !hist_stop) {
			double left = until - t;
			struct timespec nap = { (time_t)left, (long)((left - (double)(time_t)left) * 1e9) };

			nanosleep(&nap, NULL); /* a signal cuts it short */
			continue;
		}
		end = hist_stop || (o->duration && t >= start + o->duration);
		if (print_all(o) < 0)
			return EXIT_FAIL;
		if (end)
			return EXIT_OK;
		next += o->watch;
		if (!o->json)
			putchar('\n');
	}
}
