/* SPDX-License-Identifier: MIT */
/*
 * tpoint trigger -p PID -e EVENTS 'TRIGGER': the kernel's event triggers, for the events of
 * a running process (as `echo 'hist:keys=...' > events/sys/ev/trigger`, and '!hist:...' to
 * remove one). The process parses the trigger against each event and answers in the
 * kernel's words; `tpoint hist -p PID` reads the histograms.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "control_client.h"
#include "fmt/control_msg.h"
#include "glob.h"
#include "options.h"
#include "tool.h"

static void triggered(const char *event, pid_t pid)
{
	printf("trigger set on %s of process %d\n", event, (int)pid);
}

static void untriggered(const char *event, pid_t pid)
{
	printf("trigger removed from %s of process %d\n", event, (int)pid);
}

/*
 * A synthetic event's definition (-e synthetic_events), or a trigger on one
 * (-e synthetic:NAME): not in the process's list of events, sent as named.
 */
static int synthetic(struct ctl_conn *conn, pid_t pid, const char *event, const char *text)
{
	struct ctl_text req = { 0 };
	char err[1024], *reply = NULL;
	int ret = EXIT_OK;

	tp_ctl_filter_req_put(&req, &(struct ctl_filter_req){ event, text });
	if (req.oom) {
		tool_error("trigger", "out of memory");
		ret = EXIT_FAIL;
	} else if (ctl_request(conn, CTL_TRIGGER, req.buf, &reply, err, sizeof(err)) < 0) {
		tool_error("trigger", "%s", err);
		ret = EXIT_FAIL;
	} else if (!strcmp(event, "synthetic_events")) {
		printf("synthetic event %s in process %d\n", *text == '!' ? "removed" : "defined",
		       (int)pid);
	} else {
		(*text == '!' ? untriggered : triggered)(event, pid);
	}
	free(reply);
	tp_ctl_text_free(&req);
	return ret;
}

static const struct opts_spec trigger_opts = {
	.verb = "trigger",
	.usage = (const char *const[]){ "tpoint trigger -p PID -e EVENTS 'TRIGGER'", NULL },
	.about = "Set a trigger on EVENTS (sys:name, name, or globs as -e takes them) of a\n"
		 "running process, in the kernel's syntax; '!' before it removes it.\n"
		 "This version has the histograms of the kernel's hist triggers:\n"
		 "  hist:keys=F[,F...][:vals=F[,F...]][:sort=F[.descending]][:size=N]\n"
		 "      [:name=NAME] [:pause|:cont|:clear] [if FILTER]\n"
		 "with the modifiers .hex .execname .log2 .buckets=N .usecs .percent .graph\n"
		 ".sym; common_pid, common_cpu and common_timestamp are fields too; and\n"
		 "  stacktrace[:N] [if FILTER]\n"
		 "which records the thread's user stack after the event (N times at most);\n"
		 "  snapshot[:N] [if FILTER]\n"
		 "which writes what the process's buffers hold to a new PROGRAM-PID-N.dat in\n"
		 "its TPOINT_SNAPSHOT_DIR (else beside TPOINT_RECORD, else its working\n"
		 "directory), ending with the record that fired it;\n"
		 "  traceoff[:N] [if FILTER]    traceon[:N] [if FILTER]\n"
		 "which stop and start recording (the records between are left out of the\n"
		 "file); and\n"
		 "  enable_event:SYS:EVENT[:N] [if FILTER]\n"
		 "  disable_event:SYS:EVENT[:N] [if FILTER]\n"
		 "which switch another event of the process. A count is used only when the\n"
		 "state changes, as the kernel's. The event goes on for its trigger, recorded\n"
		 "or not. Read the histograms with 'tpoint hist -p PID', the counts with\n"
		 "'tpoint stat -p PID'.\n"
		 "Variables (ts0=common_timestamp.usecs), references ($ts0) and\n"
		 "onmatch(sys.event).trace(NAME,$lat) link hist triggers, as the kernel's;\n"
		 "define the synthetic event NAME first with -e synthetic_events 'NAME u64 lat'\n"
		 "('!NAME' removes it) and set its histogram with -e synthetic:NAME; it is\n"
		 "an event of the process too, recorded with 'tpoint record -p PID -e\n"
		 "synthetic:NAME'.\n"
		 "name=NAME shares one histogram between the events that name it.\n"
		 "Example: tpoint trigger -p 1234 -e app:request 'hist:keys=path:vals=bytes'\n",
	.opts = (const struct opt[]){
		OPT_PID("the process"),
		OPT_EVENTS("the events (globs, comma-separated)"),
		OPT_END,
	},
};

int cmd_trigger(int argc, char **argv)
{
	struct opts o;
	struct ctl_conn conn;
	char err[1024] = "";
	const char *events = NULL, *text;
	pid_t pid = 0;
	int c, ret;

	opts_start(&o, &trigger_opts, argc, argv);
	while ((c = opts_next(&o)) != OPTS_END) {
		switch (c) {
		case 'p':
			pid = ctl_parse_one_pid("trigger", o.value, pid);
			if (pid < 0)
				return EXIT_USAGE;
			break;
		case 'e':
			events = o.value;
			break;
		default:
			return opts_exit(c);
		}
	}
	optind = o.ind;
	if (!pid || !events || optind + 1 != argc) {
		tool_error("trigger", "usage: tpoint trigger -p PID -e EVENTS 'TRIGGER'");
		return EXIT_USAGE;
	}
	text = argv[optind];
	while (*text == ' ')
		text++;
	if (!*text) {
		tool_error("trigger", "an empty trigger: expected 'hist:keys=...', or '!hist:...' "
			   "to remove one");
		return EXIT_USAGE;
	}
	if (strchr(events, '\t') || strchr(text, '\t')) {
		tool_error("trigger", "tabs are not allowed in an event name or trigger");
		return EXIT_USAGE;
	}
	if (globs_check("trigger", events) < 0)
		return EXIT_USAGE;
	if (ctl_connect(pid, &conn, err, sizeof(err)) < 0) {
		tool_error("trigger", "%s", err);
		return EXIT_FAIL;
	}
	if (!strcmp(events, "synthetic_events") || !strncmp(events, "synthetic:", 10))
		ret = synthetic(&conn, pid, events, text);
	else
		ret = ctl_each_event("trigger", &conn, pid, events, CTL_TRIGGER, text,
				     *text == '!' ? untriggered : triggered);
	ctl_close(&conn);
	return ret;
}
