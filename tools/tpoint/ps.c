/* SPDX-License-Identifier: MIT */
/* tpoint ps: the instrumented processes of this user (of every user, for root). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "control_client.h"
#include "tpoint.h"

static void show(const char *path, pid_t pid, void *arg)
{
	struct ctl_conn c;
	char err[512] = "", *f[5] = { 0 }, *save = NULL;
	int *n = arg, i = 0;

	if (ctl_connect_path(path, pid, &c, err, sizeof(err)) < 0)
		return; /* gone, or not ours to see */
	for (char *t = strtok_r(c.hello, "\t", &save); t && i < 5; t = strtok_r(NULL, "\t", &save))
		f[i++] = t;
	if (i == 5) {
		if (!(*n)++)
			printf("%7s  %-16s %6s %7s  %s\n", "PID", "COMMAND", "EVENTS", "ENABLED",
			       "RECORDING");
		printf("%7s  %-16s %6s %7s  %s\n", f[0], f[1], f[2], f[3], f[4]);
	}
	ctl_close(&c);
}

int cmd_ps(int argc, char **argv)
{
	static const struct option opts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	int c, n = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			printf("usage: tpoint ps\n\nList the running processes that have tpoint events "
			       "(this user's; every user's for root):\npid, command, number of events, "
			       "events enabled, and where they record\n(none, memory, file:PATH, "
			       "spool:PATH).\n");
			return EXIT_OK;
		}
		fprintf(stderr, "usage: tpoint ps\n");
		return EXIT_USAGE;
	}
	if (optind < argc) {
		tool_error("ps", "unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	ctl_each_socket(show, &n);
	if (!n)
		fprintf(stderr, "tpoint ps: no process with tpoint events is running\n");
	return EXIT_OK;
}
