/* SPDX-License-Identifier: MIT */
/*
 * tpoint stat -p PID [-e GLOB] [--interval SECONDS] [--json]: the counters of a running
 * process's events: hits, those its condition skipped (with the condition's source text, the
 * seed article's open problem), filtered out, recorded, lost. With --interval, rates.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "control_client.h"
#include "fmt/control_msg.h"
#include "escape.h"
#include "glob.h"
#include "json.h"
#include "stat_rows.h"
#include "options.h"
#include "tool.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static struct ctl_refusals refused; /* of the process being shown */

/* The events' triggers (CTL_LIST's rows that have some), fetched with each sample. */
static struct {
	char *text;
	struct ctl_event_row *row;
	size_t n;
} triggers;

static void triggers_get(struct ctl_conn *conn)
{
	char err[256], *cur;
	struct ctl_event_row row;

	free(triggers.text);
	free(triggers.row);
	memset(&triggers, 0, sizeof(triggers));
	if (ctl_request(conn, CTL_LIST, NULL, &triggers.text, err, sizeof(err)) < 0)
		return; /* the process ended: the counters' request says so */
	for (cur = triggers.text; tp_ctl_event_row_next(&cur, &row);) {
		struct ctl_event_row *grown;

		if (!*row.triggers ||
		    !(grown = realloc(triggers.row, (triggers.n + 1) * sizeof(*grown))))
			continue;
		triggers.row = grown;
		triggers.row[triggers.n++] = row;
	}
}

/*
 * The event's triggers, one a line as the kernel's trigger file lists them (a command's
 * remaining count, ":count=N" or ":unlimited", and how often it fired, "(fired N)"), or a
 * JSON array of {"trigger", "fired", "left"} (null where the line says none; left -1:
 * unlimited), key "triggers".
 */
static void print_triggers(const char *event, bool json)
{
	const char *list = NULL;

	for (size_t i = 0; i < triggers.n && !list; i++)
		if (!strcmp(triggers.row[i].event, event))
			list = triggers.row[i].triggers;
	if (!list) /* JSON: no key (the rows of events without triggers stay as they were) */
		return;
	if (json)
		printf(", \"triggers\": [");
	for (const char *p = list, *end; *p; p = *end ? end + 2 : end) {
		char one[1024];
		size_t len;

		end = strstr(p, "; ");
		if (!end)
			end = p + strlen(p);
		len = (size_t)(end - p) < sizeof(one) - 1 ? (size_t)(end - p) : sizeof(one) - 1;
		memcpy(one, p, len);
		one[len] = 0;
		if (!json) {
			fputs("  trigger: ", stdout);
			text_put(stdout, one);
			putchar('\n');
			continue;
		}
		const char *fired = strstr(one, " (fired "), *cut = strstr(one, " if ");
		const char *count = strstr(one, ":count=");

		printf("%s{\"trigger\": ", p == list ? "" : ", ");
		json_print_str(one);
		if (fired)
			printf(", \"fired\": %llu", strtoull(fired + 8, NULL, 10));
		else
			printf(", \"fired\": null");
		if (count && (!cut || count < cut))
			printf(", \"left\": %lld}", strtoll(count + 7, NULL, 10));
		else if (strstr(one, ":unlimited") && (!cut || strstr(one, ":unlimited") < cut))
			printf(", \"left\": -1}");
		else
			printf(", \"left\": null}");
	}
	if (json)
		printf("]");
}

static double clock_secs(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * secs: the time the rates are over (measured, not the nominal interval); `since`: seconds
 * from the first sample to this one, for --interval. A JSON object carries when it was taken
 * ("time", Unix seconds) and, with --interval, where in the run ("interval", as perf stat -j).
 */
static void print_rows(const struct stat_row *r, int n, const struct stat_row *prev, int nprev,
		       double secs, double since, bool json)
{
	double now = clock_secs(CLOCK_REALTIME);

	if (!json)
		printf("%-40s %12s %12s %12s %12s %12s  %s\n", "EVENT",
		       prev ? "HITS/s" : "HITS", prev ? "COND-SKIP/s" : "COND-SKIPPED",
		       prev ? "FILTERED/s" : "FILTERED", prev ? "RECORDED/s" : "RECORDED",
		       prev ? "LOST/s" : "LOST", "CONDITION");
	for (int i = 0; i < n; i++) {
		double v[5];
		const struct stat_row *p = prev ? stat_rows_find(prev, nprev, r[i].event) : NULL;
		const struct ctl_event_row *off = ctl_refusals_find(&refused, r[i].event);

		for (int k = 0; k < 5; k++)
			v[k] = prev ? (double)(r[i].v[k] - (p ? p->v[k] : 0)) / secs
				    : (double)r[i].v[k];
		if (json) {
			printf("{\"event\": ");
			json_print_str(r[i].event);
			printf(", \"condition\": ");
			json_print_str(r[i].condition);
			for (int k = 0; k < 5; k++)
				printf(prev ? ", \"%s\": %.1f" : ", \"%s\": %.0f", stat_keys[k], v[k]);
			if (off) {
				printf(", \"refused\": ");
				json_print_str(off->refused);
			}
			print_triggers(r[i].event, true);
			printf(", \"usdt\": %llu, \"time\": %.6f", r[i].usdt, now);
			if (prev)
				printf(", \"interval\": %.6f", since);
			printf("}\n");
		} else {
			char ev[4 * sizeof(r[i].event)];

			/* the process's own words: escaped on a terminal */
			printf("%-40s %12.0f %12.0f %12.0f %12.0f %12.0f  ",
			       text_for(stdout, r[i].event, ev, sizeof(ev)), v[0], v[1], v[2], v[3],
			       v[4]);
			text_put(stdout, r[i].condition);
			putchar('\n');
			print_triggers(r[i].event, false);
			if (off) {
				char text[600];

				ctl_refusal_text(off, text, sizeof(text));
				fputs("  refused: stays off, ", stdout);
				text_put(stdout, text);
				putchar('\n');
			}
			if (r[i].usdt)
				printf("  usdt: %llu probe%s attached (bpftrace, perf, ...)\n",
				       r[i].usdt, r[i].usdt == 1 ? "" : "s");
		}
	}
	fflush(stdout);
}

/*
 * One line on the process's jump-label sites, if it has any: whether they are patched, or
 * why some keep their checked path. A process of an older library answers with an error,
 * and then there is nothing to say.
 */
static void print_jump_labels(struct ctl_conn *conn)
{
	char err[256], *text = NULL;
	struct ctl_jump j;

	if (ctl_request(conn, CTL_JUMP, NULL, &text, err, sizeof(err)) < 0)
		return;
	if (tp_ctl_jump_parse(text, &j) == 0 && j.sites) {
		if (!j.checked) {
			printf("jump labels: %llu sites, patched (a NOP while off)\n", j.sites);
		} else {
			printf("jump labels: %llu sites, %llu keep their checked path (a jump and a "
			       "load while off): ", j.sites, j.checked);
			text_put(stdout, j.reason);
			putchar('\n');
		}
	}
	free(text);
}

static const struct opts_spec stat_opts = {
	.verb = "stat",
	.usage = (const char *const[]){
		"tpoint stat -p PID [-e GLOB[,GLOB...]] [--interval SECONDS] [--json]", NULL },
	.about = "The counters of the events of process PID: hits, hits its condition skipped\n"
		 "(with the condition's text), filtered out, recorded, lost. With --interval,\n"
		 "the rates over each interval until Ctrl-C or the process ends. An event's\n"
		 "triggers follow it, a line each: a command's remaining count (:count=N or\n"
		 ":unlimited) and how often it fired. --json prints one object per event and\n"
		 "line, with the keys event, condition, hits, condition_skipped, filtered,\n"
		 "recorded, lost, triggers (trigger, fired, left), usdt (USDT probes attached).\n",
	.opts = (const struct opt[]){
		OPT_PID("the process"),
		OPT_EVENTS("only the events these globs select, comma-separated"),
		/* -i is the input file in trace-cmd and in report: --interval has no letter */
		{ 'i', 0, "interval", OPT_VALUE, "SECONDS", "the rates over each interval", 'i' },
		OPT_JSON("one JSON object per event and line"),
		OPT_END,
	},
};

int cmd_stat(int argc, char **argv)
{
	struct opts o;
	const char *globs = NULL;
	double interval = 0;
	bool json = false;
	pid_t pid = 0;
	struct ctl_conn conn;
	char err[512] = "", *text, *end;
	struct stat_row *rows = NULL, *prev = NULL;
	int c, n, nprev = 0, ret = EXIT_OK;

	opts_start(&o, &stat_opts, argc, argv);
	while ((c = opts_next(&o)) != OPTS_END) {
		const char *optarg = o.value;

		switch (c) {
		case 'p':
			pid = ctl_parse_one_pid("stat", optarg, pid);
			if (pid < 0)
				return EXIT_USAGE;
			break;
		case 'e':
			if (globs_check("stat", optarg) < 0)
				return EXIT_USAGE;
			globs = optarg;
			break;
		case 'i':
			interval = strtod(optarg, &end);
			if (*end || !(interval > 0) || interval > 86400) {
				tool_error("stat", "--interval '%s': expected seconds, like 1 or 0.5",
					   optarg);
				return EXIT_USAGE;
			}
			break;
		case 'j':
			json = true;
			break;
		default:
			return opts_exit(c);
		}
	}
	if (!pid || o.ind < argc) {
		tool_error("stat", "usage: tpoint stat -p PID [-e GLOB] [--interval S] [--json]");
		return EXIT_USAGE;
	}
	if (ctl_connect(pid, &conn, err, sizeof(err)) < 0) {
		tool_error("stat", "%s", err);
		return EXIT_FAIL;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ctl_refusals_get(&conn, &refused);
	double start = 0, taken = 0, prev_taken = 0;

	for (bool first = true; !stop; first = false) {
		prev_taken = taken;
		taken = clock_secs(CLOCK_MONOTONIC);
		if (first)
			start = taken;
		triggers_get(&conn);
		if (ctl_request(&conn, CTL_STATS, NULL, &text, err, sizeof(err)) < 0) {
			if (first) {
				tool_error("stat", "%s", err);
				ret = EXIT_FAIL;
			}
			break; /* the process ended: the last interval was printed */
		}
		n = stat_rows_parse(text, globs, &rows);
		free(text);
		if (n < 0) {
			tool_error("stat", "process %d sent malformed statistics", (int)pid);
			ret = EXIT_FAIL;
			break;
		}
		if (first && n == 0 && globs) {
			tool_error("stat", "'%s' matches no event of process %d", globs, (int)pid);
			ret = EXIT_FAIL;
			break;
		}
		if (!interval) {
			print_rows(rows, n, NULL, 0, 0, 0, json);
			if (!json)
				print_jump_labels(&conn);
			break;
		}
		if (!first)
			print_rows(rows, n, prev, nprev, taken - prev_taken, taken - start, json);
		free(prev);
		prev = rows;
		nprev = n;
		rows = NULL;
		struct timespec ts = { (time_t)interval,
				       (long)((interval - (double)(time_t)interval) * 1e9) };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !stop)
			;
	}
	free(rows);
	free(prev);
	ctl_refusals_free(&refused);
	free(triggers.text);
	free(triggers.row);
	ctl_close(&conn);
	return ret;
}
