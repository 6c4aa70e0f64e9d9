/* SPDX-License-Identifier: MIT */
/*
 * tpoint enable -p PID GLOB... and tpoint disable -p PID GLOB...: switch events of a running
 * process on or off, as writing to a kernel event's enable file does. A process that was
 * not recording keeps the newest events in memory from then on.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "control_client.h"
#include "fmt/control_msg.h"
#include "tool.h"

static int run(const char *verb, bool on, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct ctl_conn conn;
	char err[512] = "", *text, list[8192] = "";
	pid_t pid = 0;
	int c, ret, refused;

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pid = ctl_parse_one_pid(verb, optarg, pid);
			if (pid < 0)
				return EXIT_USAGE;
			break;
		case 'h':
			printf("usage: tpoint %s -p PID GLOB...\n\n%s the events of process PID that "
			       "match the globs\n(sys:name, sys:*, sys, name). Prints how many "
			       "matched.\n", verb, on ? "Enable" : "Disable");
			return EXIT_OK;
		default:
			fprintf(stderr, "usage: tpoint %s -p PID GLOB...\n", verb);
			return EXIT_USAGE;
		}
	}
	if (!pid || optind >= argc) {
		tool_error(verb, "usage: tpoint %s -p PID GLOB...", verb);
		return EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		if (strlen(list) + strlen(argv[i]) + 2 > sizeof(list)) {
			tool_error(verb, "too many globs");
			return EXIT_USAGE;
		}
		if (i > optind)
			strcat(list, ",");
		strcat(list, argv[i]);
	}
	if (ctl_connect(pid, &conn, err, sizeof(err)) < 0) {
		tool_error(verb, "%s", err);
		return EXIT_FAIL;
	}
	ret = ctl_request(&conn, on ? CTL_ENABLE : CTL_DISABLE, list, &text, err, sizeof(err));
	if (ret < 0) {
		ctl_close(&conn);
		tool_error(verb, "process %d: %s", (int)pid, err);
		return EXIT_FAIL;
	}
	free(text);
	if (ret == 0) {
		ctl_close(&conn);
		tool_error(verb, "'%s' matches no event of process %d", list, (int)pid);
		return EXIT_FAIL;
	}
	printf("%s %d event%s of process %d\n", on ? "enabled" : "disabled", ret,
	       ret == 1 ? "" : "s", (int)pid);
	/* switched on but still off is a failure, said with its reason */
	refused = on ? ctl_say_refused(verb, &conn, list) : 0;
	ctl_close(&conn);
	return refused ? EXIT_FAIL : EXIT_OK;
}

int cmd_enable(int argc, char **argv)
{
	return run("enable", true, argc, argv);
}

int cmd_disable(int argc, char **argv)
{
	return run("disable", false, argc, argv);
}
