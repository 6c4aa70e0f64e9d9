/* SPDX-License-Identifier: MIT */
/*
 * tpoint enable -p PID GLOB... and tpoint disable -p PID GLOB...: switch events of a running
 * process on or off, as writing to a kernel event's enable file does. A process that was
 * not recording keeps the newest events in memory from then on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "control_client.h"
#include "fmt/control_msg.h"
#include "options.h"
#include "tool.h"

static const struct opt switch_opts[] = {
	OPT_PID("the process"),
	OPT_END,
};

static const struct opts_spec enable_opts = {
	.verb = "enable",
	.usage = (const char *const[]){ "tpoint enable -p PID GLOB...", NULL },
	.about = "Enable the events of process PID that match the globs\n"
		 "(sys:name, sys:*, sys, name). Prints how many matched.\n",
	.opts = switch_opts,
};

static const struct opts_spec disable_opts = {
	.verb = "disable",
	.usage = (const char *const[]){ "tpoint disable -p PID GLOB...", NULL },
	.about = "Disable the events of process PID that match the globs\n"
		 "(sys:name, sys:*, sys, name). Prints how many matched.\n",
	.opts = switch_opts,
};

static int run(const char *verb, bool on, int argc, char **argv)
{
	struct opts o;
	struct ctl_conn conn;
	char err[512] = "", *text, list[8192] = "";
	pid_t pid = 0;
	int c, ret, refused;

	opts_start(&o, on ? &enable_opts : &disable_opts, argc, argv);
	while ((c = opts_next(&o)) != OPTS_END) {
		if (c != 'p')
			return opts_exit(c);
		pid = ctl_parse_one_pid(verb, o.value, pid);
		if (pid < 0)
			return EXIT_USAGE;
	}
	optind = o.ind;
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
