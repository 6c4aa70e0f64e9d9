/* SPDX-License-Identifier: MIT */
/*
 * tpoint snapshot -p PID [-o FILE]: write what a running process's buffers hold right now
 * into a trace.dat, without stopping anything: the flight recorder's "what just happened".
 * The process must be recording (tpoint enable -p keeps events in memory; record -p
 * --overwrite keeps the newest ones).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "attach.h"
#include "control_proto.h"
#include "ownfile.h"
#include "tool.h"
#include "tracedat.h"

int cmd_snapshot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *out = "trace.dat";
	struct tracedat_result res;
	struct attach a;
	char err[1024] = "", *path = NULL;
	pid_t pid = 0;
	int c, fd = -1, ret = EXIT_FAIL;

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pid = ctl_parse_one_pid("snapshot", optarg, pid);
			if (pid < 0)
				return EXIT_USAGE;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			printf("usage: tpoint snapshot -p PID [-o FILE]\n\nWrite what the buffers of "
			       "process PID hold now into FILE (default trace.dat),\nwithout stopping "
			       "anything. The process must be recording: 'tpoint enable -p'\nkeeps "
			       "the newest events in memory, as does 'tpoint record -p --overwrite'.\n");
			return EXIT_OK;
		default:
			fprintf(stderr, "usage: tpoint snapshot -p PID [-o FILE]\n");
			return EXIT_USAGE;
		}
	}
	if (!pid || optind < argc) {
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
	/* The process names the file: read it only if it is one of its user's. */
	char ref[32];
	const char *spools[1] = { ref };

	fd = attach_open_result(&a, path, err, sizeof(err));
	if (fd < 0) {
		tool_error("snapshot", "%s", err);
		goto out;
	}
	snprintf(ref, sizeof(ref), "/proc/self/fd/%d", fd);

	if (tp_tracedat_from_spools(out, spools, 1, &res, err, sizeof(err)) < 0) {
		tool_error("snapshot", "%s", err);
		goto out;
	}
	tool_error_lines("snapshot", "damaged: ", res.damage);
	fprintf(stderr, "tpoint snapshot: %s: %llu events of process %d\n", out,
		(unsigned long long)res.events, (int)pid);
	if (tp_tracedat_size_warning(&res, err, sizeof(err)))
		fprintf(stderr, "tpoint snapshot: %s: %s\n", out, err);
	ret = res.damage ? EXIT_FAIL : EXIT_OK;
	tp_tracedat_result_free(&res);
out:
	if (fd >= 0)
		close(fd);
	free(path);
	attach_cleanup(&a);
	return ret;
}
