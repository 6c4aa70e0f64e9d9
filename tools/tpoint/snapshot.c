/* SPDX-License-Identifier: MIT */
/*
 * tpoint snapshot -p PID [-o FILE]: write what a running process's buffers hold right now
 * into a trace.dat, without stopping anything: the flight recorder's "what just happened".
 * The process must be recording (tpoint enable -p keeps events in memory; record -p
 * --overwrite keeps the newest ones).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "attach.h"
#include "fmt/control_msg.h"
#include "ownfile.h"
#include "options.h"
#include "tool.h"
#include "tracedat.h"

static const struct opts_spec snapshot_opts = {
	.verb = "snapshot",
	.usage = (const char *const[]){ "tpoint snapshot -p PID [-o FILE]", NULL },
	.about = "Write what the buffers of process PID hold now into FILE (default trace.dat),\n"
		 "without stopping anything. The process must be recording: 'tpoint enable -p'\n"
		 "keeps the newest events in memory, as does 'tpoint record -p --overwrite'.\n",
	.opts = (const struct opt[]){
		OPT_PID("the process"),
		OPT_OUTPUT("FILE", "where to write (default trace.dat)"),
		OPT_END,
	},
};

int cmd_snapshot(int argc, char **argv)
{
	struct opts o;
	const char *out = "trace.dat";
	struct tracedat_result res;
	struct attach a;
	char err[1024] = "", *path = NULL;
	pid_t pid = 0;
	int c, ret = EXIT_FAIL;

	opts_start(&o, &snapshot_opts, argc, argv);
	while ((c = opts_next(&o)) != OPTS_END) {
		switch (c) {
		case 'p':
			pid = ctl_parse_one_pid("snapshot", o.value, pid);
			if (pid < 0)
				return EXIT_USAGE;
			break;
		case 'o':
			out = o.value;
			break;
		default:
			return opts_exit(c);
		}
	}
	if (!pid || o.ind < argc) {
		tool_error("snapshot", "usage: tpoint snapshot -p PID [-o FILE]");
		return EXIT_USAGE;
	}
	/* Only a regular file is replaced by the one written (lib/ownfile.c). */
	if (tp_output_check(out, err, sizeof(err)) < 0) {
		tool_error("snapshot", "%s", err);
		return EXIT_FAIL;
	}
	if (attach_make_dir(&a, pid, out, err, sizeof(err)) < 0) {
		tool_error("snapshot", "%s", err);
		return EXIT_FAIL;
	}
	if (ctl_connect(pid, &a.conn, err, sizeof(err)) < 0 ||
	    ctl_request(&a.conn, CTL_SNAPSHOT, a.dir, &path, err, sizeof(err)) < 0) {
		tool_error("snapshot", "%s", err);
		goto out;
	}
	/*
	 * The process names the file it wrote; only the one this tool made for it (with
	 * O_EXCL, in a directory of its own: attach_make_dir()) is read, through the
	 * descriptor the tool kept. Anything else may be any file the process's claim can
	 * reach, a root-only one too: compared, never opened.
	 */
	const char *spools[1] = { a.spool_ref };
	struct stat named, made;

	if (lstat(path, &named) < 0 || fstat(a.spool_fd, &made) < 0 ||
	    named.st_dev != made.st_dev || named.st_ino != made.st_ino) {
		tool_error("snapshot", "process %d names %s as its snapshot, not the file made "
			   "for it (%s/%d.spool): not read", (int)pid, path, a.dir, (int)pid);
		goto out;
	}

	if (tp_tracedat_from_spools(out, spools, 1, &res, err, sizeof(err)) < 0) {
		tool_error("snapshot", "%s", err);
		goto out;
	}
	tool_error_lines("snapshot", "damaged: ", res.damage);
	tool_warn("snapshot", "%s: %llu events of process %d", out,
		(unsigned long long)res.events, (int)pid);
	if (tp_tracedat_size_warning(&res, err, sizeof(err)))
		tool_warn("snapshot", "%s: %s", out, err);
	ret = res.damage ? EXIT_FAIL : EXIT_OK;
	tp_tracedat_result_free(&res);
out:
	free(path);
	attach_cleanup(&a);
	return ret;
}
