/* SPDX-License-Identifier: MIT */
/* tpoint record -p PID: a running process records into our directory until it is told to stop. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "attach.h"
#include "fmt/control_msg.h"
#include "filter.h"
#include "owner.h"
#include "record.h"
#include "tool.h"

/* The file keeps the selection's events, and of those the records its filters pass. */
static bool keep_event(void *ctx, const char *system, const char *name, const char *format,
		       struct filter **f)
{
	return sel_event(ctx, system, name, format, f);
}

/* tpoint record -p PID: the process spools into our directory; we wait, then assemble. */
int record_pid(pid_t pid, const struct selection *sel, const char *out,
		      double duration, const char *mode, size_t bytes, struct krecord *kr,
		      bool kernel_pids)
{
	struct tracedat_extra x;
	struct tracedat_select keep = { (void *)sel, 0, keep_event };
	struct timespec t0;
	struct attach a;
	struct tracedat_result res;
	char err[1024] = "", *stats;
	bool salvaged, tty = isatty(2);
	double elapsed = 0;
	unsigned long long last_rec = 0;
	int ret = EXIT_FAIL, dir_lock;

	if (attach_make_dir(&a, pid, out, err, sizeof(err)) < 0) {
		tool_error("record", "%s", err);
		return EXIT_FAIL;
	}
	/* Held until we are gone: if we are killed, the next record names the directory. */
	dir_lock = owner_lock_dir(a.dir);
	/* Every -e names an event, every -f compiles for one: before anything changes. */
	if (ctl_connect(pid, &a.conn, err, sizeof(err)) < 0) {
		tool_error("record", "%s", err);
		goto out;
	}
	if (sel_check(sel, "record", &a.conn, pid) < 0)
		goto out;
	ctl_close(&a.conn);
	if (kr && ((kernel_pids && krec_set_pids(kr, &pid, 1, err, sizeof(err)) < 0) ||
		   krec_start(kr, out, err, sizeof(err)) < 0)) {
		tool_error("record", "-k: %s", err);
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	keep.since = (uint64_t)t0.tv_sec * 1000000000u + (uint64_t)t0.tv_nsec;
	if (attach_start(&a, pid, sel_globs(sel), mode, bytes, false, err, sizeof(err)) < 0) {
		tool_error("record", "%s", err);
		goto out;
	}
	/* a selected event that stays off (failed reg(), unrenderable format) is said */
	ctl_say_refused("record", &a.conn, sel_globs(sel));
	if (a.pool_fd < 0)
		tool_warn("record", "note: process %d closed its buffer's descriptor: "
			"if it is killed, unspooled events are lost", (int)pid);
	while (!stop_requested && (!duration || elapsed < duration)) {
		struct timespec ts = { 0, 100000000 };

		nanosleep(&ts, NULL);
		elapsed += 0.1;
		if (kill(pid, 0) < 0 && errno == ESRCH)
			break;
		/* Once a second, on a terminal: what is coming in. */
		if (tty && (int)(elapsed * 10) % 10 == 0 &&
		    ctl_request(&a.conn, CTL_STATS, NULL, &stats, err, sizeof(err)) >= 0) {
			unsigned long long rec = 0, lost = 0;
			struct ctl_stat_row row;
			char *cur = stats;
			int got;

			while ((got = tp_ctl_stat_row_next(&cur, &row)))
				if (got > 0) {
					rec += row.v[CTL_RECORDED];
					lost += row.v[CTL_LOST];
				}
			free(stats);
			fprintf(stderr, "\rtpoint record: %llu events/s, %llu recorded, %llu lost   ",
				rec - last_rec, rec, lost);
			last_rec = rec;
		}
	}
	if (tty)
		fputc('\n', stderr);
	krec_stop(kr);
	if (attach_finish(&a, &salvaged, err, sizeof(err)) < 0) {
		tool_error("record", "%s", err);
		goto out;
	}
	if (salvaged)
		tool_warn("record", "process %d is gone; its remaining pages were "
			"read from its buffer", (int)pid);
	const char *spools[1] = { a.spool_ref }; /* what we opened, not its name */

	if (kr && krec_extra(kr, &x, err, sizeof(err)) < 0) {
		tool_error("record", "-k: %s", err);
		goto out;
	}
	if (tp_tracedat_write(&(struct tracedat_write_opts){ .out_path = out, .spools = spools,
			      .nspools = 1, .sel = &keep, .extra = kr ? &x : NULL,
			      .codec = opt_codec }, &res, err, sizeof(err)) < 0) {
		tool_error("record", "%s", err);
		goto out;
	}
	tool_error_lines("record", "damaged: ", res.damage);
	print_summary(out, &res, 1, NULL);
	if (res.uncounted)
		tool_warn("record", "process %d ended before it wrote its counters "
			"(killed by a signal, or _exit()): its events' counts are unknown ('?'); "
			"the file holds every event it recorded", (int)pid);
	if (kr)
		krec_summary(kr);
	ret = res.damage ? EXIT_FAIL : EXIT_OK;
	tp_tracedat_result_free(&res);
out:
	attach_cleanup(&a);
	if (dir_lock >= 0)
		close(dir_lock);
	return ret;
}
