/* SPDX-License-Identifier: MIT */
/*
 * tpoint ps: the instrumented processes of this user (of every user, for root).
 *
 * Each row is the kernel's word where it can be: the pid is the socket's peer (checked by
 * ctl_connect()), the name is /proc/PID/comm; only the counts and the recording come from
 * the process's answer. Everything printed is escaped, since a process (or any user, as
 * root sees them) chooses its name and its answer: no terminal control sequence gets out.
 * Each process has 2 s to begin its answer, 2 s more to complete it, and 4 KiB.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "control_client.h"
#include "fmt/control_msg.h"
#include "escape.h"
#include "options.h"
#include "tool.h"

#define PS_TIMEOUT_MS 2000
#define PS_MAX_REPLY 4096

/* A count the process said, into buf; "?" when it said none, or one of over 10 digits. */
static const char *number_or_what(long long v, char buf[12])
{
	if (v < 0 || v > 9999999999LL)
		return "?";
	snprintf(buf, 12, "%lld", v);
	return buf;
}

static void show(pid_t pid, void *arg)
{
	struct ctl_conn c;
	char err[512] = "", comm[64], ecomm[300], erec[1100];
	char nev[12], nen[12];
	struct ctl_hello hello;
	int *n = arg, ret;

	ret = ctl_connect_timed(pid, PS_TIMEOUT_MS, PS_MAX_REPLY, &c, err, sizeof(err));
	ctl_proc_comm(pid, comm, sizeof(comm));
	text_escaped(comm, ecomm, sizeof(ecomm));
	if (ret < 0) {
		/* Gone, or not ours to see: nothing to say. A process that would not answer: say. */
		if (ret != -ENOENT && ret != -ECONNREFUSED && ret != -ESRCH && ret != -EACCES)
			fprintf(stderr, "tpoint ps: process %d (%s) did not answer: %s\n", (int)pid,
				ecomm, text_escaped(err, erec, sizeof(erec)));
		return;
	}
	tp_ctl_hello_parse(c.hello, &hello);
	if (!(*n)++)
		printf("%7s  %-16s %6s %7s  %s\n", "PID", "COMMAND", "EVENTS", "ENABLED", "RECORDING");
	printf("%7d  %-16s %6s %7s  %s\n", (int)pid, ecomm, number_or_what(hello.events, nev),
	       number_or_what(hello.enabled, nen),
	       hello.recording ? text_escaped(hello.recording, erec, sizeof(erec)) : "?");
	ctl_close(&c);
}

static const struct opts_spec ps_opts = {
	.verb = "ps",
	.usage = (const char *const[]){ "tpoint ps", NULL },
	.about = "List the running processes that have tpoint events (this user's; every user's "
		 "for root):\npid, command, number of events, events enabled, and where they record\n"
		 "(none, memory, file:PATH, spool:PATH).\n",
	.opts = (const struct opt[]){ OPT_END },
};

int cmd_ps(int argc, char **argv)
{
	struct opts o;
	int c, n = 0;

	opts_start(&o, &ps_opts, argc, argv);
	if ((c = opts_next(&o)) != OPTS_END)
		return opts_exit(c);
	if (o.ind < argc) {
		tool_error("ps", "unexpected argument '%s'", argv[o.ind]);
		return EXIT_USAGE;
	}
	ctl_each_process(show, &n);
	if (!n)
		tool_warn("ps", "no process with tpoint events is running");
	return EXIT_OK;
}
