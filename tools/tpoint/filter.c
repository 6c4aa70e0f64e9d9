/* SPDX-License-Identifier: MIT */
/*
 * tpoint filter -p PID EVENT 'EXPR' | --clear: the kernel's event filter, for one event of
 * a running process. The process compiles the expression and answers with what is wrong.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "control_client.h"
#include "control_proto.h"
#include "tpoint.h"

int cmd_filter(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "clear", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct ctl_conn conn;
	char err[1024] = "", *text, *req;
	bool clear = false;
	pid_t pid = 0;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pid = ctl_parse_pid("filter", optarg);
			if (pid < 0)
				return EXIT_USAGE;
			break;
		case 'c':
			clear = true;
			break;
		case 'h':
			printf("usage: tpoint filter -p PID EVENT 'EXPR'\n"
			       "       tpoint filter -p PID EVENT --clear\n\n"
			       "Keep only the records of EVENT (sys:name or name) for which EXPR holds,\n"
			       "in the kernel's filter syntax: fields compared with == != < <= > >= &,\n"
			       "strings with == != ~ (glob), joined with && || ! and parentheses;\n"
			       "common_pid is a field too. Example: 'flags & 3 && ino > 100'.\n");
			return EXIT_OK;
		default:
			fprintf(stderr, "usage: tpoint filter -p PID EVENT 'EXPR'|--clear\n");
			return EXIT_USAGE;
		}
	}
	if (!pid || optind >= argc || (clear ? optind + 1 != argc : optind + 2 != argc)) {
		tool_error("filter", "usage: tpoint filter -p PID EVENT 'EXPR' (or --clear)");
		return EXIT_USAGE;
	}
	if (!clear && !*argv[optind + 1]) {
		tool_error("filter", "an empty expression: use --clear to remove a filter");
		return EXIT_USAGE;
	}
	if (strchr(argv[optind], '\t') || (!clear && strchr(argv[optind + 1], '\t'))) {
		tool_error("filter", "tabs are not allowed in an event name or expression");
		return EXIT_USAGE;
	}
	if (asprintf(&req, "%s\t%s", argv[optind], clear ? "" : argv[optind + 1]) < 0)
		return EXIT_FAIL;
	if (ctl_connect(pid, &conn, err, sizeof(err)) < 0) {
		free(req);
		tool_error("filter", "%s", err);
		return EXIT_FAIL;
	}
	ret = ctl_request(&conn, CTL_FILTER, req, &text, err, sizeof(err));
	ctl_close(&conn);
	free(req);
	if (ret < 0) {
		tool_error("filter", "%s", err);
		return EXIT_FAIL;
	}
	free(text);
	printf("%s %s of process %d\n", clear ? "cleared the filter of" : "filtering",
	       argv[optind], (int)pid);
	return EXIT_OK;
}
