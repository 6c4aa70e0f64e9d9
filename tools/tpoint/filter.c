/* SPDX-License-Identifier: MIT */
/*
 * tpoint filter -p PID EVENTS 'EXPR' | --clear: the kernel's event filter, for the events of
 * a running process that EVENTS names (sys:name, name, or globs as -e takes them). The
 * process compiles the expression for each and answers with what is wrong.
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

/*
 * Send `type` (CTL_FILTER or CTL_TRIGGER) with `text` for every event of the process that
 * `events` selects. Each is answered alone: an event without the text's fields is named
 * and skipped, the others get it, and done() says so. An event that matches nothing lists
 * the process's events.
 */
int ctl_each_event(const char *verb, struct ctl_conn *conn, pid_t pid, const char *events,
		   uint32_t type, const char *expr, void (*done)(const char *event, pid_t pid))
{
	char err[1024], *text = NULL, *cur, *known = NULL;
	struct ctl_event_row row;
	size_t known_len = 0;
	int set = 0, failed = 0;
	/* One event named: the process's message names it already. */
	bool one = !strpbrk(events, "*?[,");

	if (ctl_request(conn, CTL_LIST, NULL, &text, err, sizeof(err)) < 0) {
		tool_error(verb, "process %d: %s", (int)pid, err);
		return EXIT_FAIL;
	}
	for (cur = text; tp_ctl_event_row_next(&cur, &row);) {
		const char *name = row.event;
		struct ctl_text req = { 0 };
		char *reply = NULL, *grown;

		grown = realloc(known, known_len + strlen(name) + 3);
		if (grown) {
			known = grown;
			known_len += (size_t)sprintf(known + known_len, "%s%s", known_len ? ", " : "",
						     name);
		}
		if (!globs_select_event(events, name))
			continue;
		tp_ctl_filter_req_put(&req, &(struct ctl_filter_req){ name, expr });
		if (req.oom) {
			tp_ctl_text_free(&req);
			continue;
		}
		if (ctl_request(conn, type, req.buf, &reply, err, sizeof(err)) < 0) {
			if (one)
				tool_error(verb, "%s", err);
			else
				tool_error(verb, "%s skipped: %s", name, err);
			failed++;
		} else {
			done(name, pid);
			set++;
		}
		free(reply);
		tp_ctl_text_free(&req);
	}
	free(text);
	if (!set && !failed)
		tool_error(verb, "no event '%s' in process %d; its events: %s", events,
			   (int)pid, known ? known : "none");
	else if (set && failed)
		tool_error(verb, "%d event%s done, %d skipped (named above)", set,
			   set == 1 ? "" : "s", failed);
	free(known);
	return set ? EXIT_OK : EXIT_FAIL;
}

static void filtering(const char *event, pid_t pid)
{
	printf("filtering %s of process %d\n", event, (int)pid);
}

static void unfiltered(const char *event, pid_t pid)
{
	printf("cleared the filter of %s of process %d\n", event, (int)pid);
}

static const struct opts_spec filter_opts = {
	.verb = "filter",
	.usage = (const char *const[]){ "tpoint filter -p PID EVENTS 'EXPR'",
					"tpoint filter -p PID EVENTS --clear", NULL },
	.about = "Keep only the records of EVENTS (sys:name, name, sys:*, sys or other\n"
		 "globs, comma-separated, as -e takes them) for which EXPR holds;\n"
		 "an event without EXPR's fields is named and skipped,\n"
		 "in the kernel's filter syntax: fields compared with == != < <= > >= &,\n"
		 "strings with == != ~ (glob), joined with && || ! and parentheses;\n"
		 "common_pid is a field too. Example: 'flags & 3 && ino > 100'.\n",
	.opts = (const struct opt[]){
		OPT_PID("the process"),
		{ 'c', 0, "clear", OPT_NO_VALUE, NULL, "remove the filter of EVENTS", 0 },
		OPT_END,
	},
};

int cmd_filter(int argc, char **argv)
{
	struct opts o;
	struct ctl_conn conn;
	char err[1024] = "";
	bool clear = false;
	pid_t pid = 0;
	int c, ret;

	opts_start(&o, &filter_opts, argc, argv);
	while ((c = opts_next(&o)) != OPTS_END) {
		switch (c) {
		case 'p':
			pid = ctl_parse_one_pid("filter", o.value, pid);
			if (pid < 0)
				return EXIT_USAGE;
			break;
		case 'c':
			clear = true;
			break;
		default:
			return opts_exit(c);
		}
	}
	optind = o.ind;
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
	if (globs_check("filter", argv[optind]) < 0)
		return EXIT_USAGE;
	if (ctl_connect(pid, &conn, err, sizeof(err)) < 0) {
		tool_error("filter", "%s", err);
		return EXIT_FAIL;
	}
	ret = ctl_each_event("filter", &conn, pid, argv[optind], CTL_FILTER,
			     clear ? "" : argv[optind + 1], clear ? unfiltered : filtering);
	ctl_close(&conn);
	return ret;
}
