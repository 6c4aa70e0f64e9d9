/* SPDX-License-Identifier: MIT */
/*
 * tpoint stat -p PID [-e GLOB] [--interval SECONDS] [--json]: the counters of a running
 * process's events: hits, those its condition skipped (with the condition's source text, the
 * seed article's open problem), filtered out, recorded, lost. With --interval, rates.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "control_client.h"
#include "control_proto.h"
#include "glob.h"
#include "tpoint.h"

struct row {
	char event[160];
	unsigned long long v[5]; /* hits, cond_skipped, filtered, recorded, lost */
	char condition[1024];
	unsigned long long usdt; /* USDT probes attached (the semaphore) */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Parse the STATS text; returns the number of rows, -1 when malformed. */
static int parse(char *text, const char *globs, struct row **rows)
{
	int n = 0;
	char *save = NULL;

	*rows = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[8], *fs = line;
		int k = 0;

		/* Split at each tab, empty fields kept: the condition may be "". */
		while (fs && k < 8)
			f[k++] = strsep(&fs, "\t");
		if (k < 6)
			return -1;
		if (globs && !globs_select_event(globs, f[0]))
			continue;
		struct row *r = realloc(*rows, (size_t)(n + 1) * sizeof(**rows));

		if (!r)
			return -1;
		*rows = r;
		r = &r[n++];
		snprintf(r->event, sizeof(r->event), "%s", f[0]);
		for (int i = 0; i < 5; i++)
			r->v[i] = strtoull(f[1 + i], NULL, 10);
		snprintf(r->condition, sizeof(r->condition), "%s", k >= 7 ? f[6] : "");
		r->usdt = k == 8 ? strtoull(f[7], NULL, 10) : 0;
	}
	return n;
}

/*
 * The events the process refused (their print format cannot be rendered: they stay off
 * whatever enables them), from its CTL_LIST text: "system:name\twhy\n"..., or NULL.
 */
static char *refused_events(struct ctl_conn *conn)
{
	char err[256], *text = NULL, *save = NULL, *out = NULL;
	size_t len = 0;

	if (ctl_request(conn, CTL_LIST, NULL, &text, err, sizeof(err)) < 0)
		return NULL;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *f[6] = { 0 }, *p = l, *grown;

		for (int i = 0; i < 6 && p; i++) {
			f[i] = p;
			p = strchr(p, '\t');
			if (p)
				*p++ = 0;
		}
		if (!f[5] || !*f[5] || !(grown = realloc(out, len + strlen(f[1]) + strlen(f[5]) + 3)))
			continue;
		out = grown;
		len += (size_t)sprintf(out + len, "%s\t%s\n", f[1], f[5]);
	}
	free(text);
	return out;
}

/* Why `event` stays off, from refused_events(), into buf; NULL if it does not. */
static const char *refused_why(const char *refused, const char *event, char *buf, size_t len)
{
	size_t n = strlen(event);

	for (const char *l = refused; l && *l;) {
		const char *eol = strchr(l, '\n');

		if (!eol)
			break;
		if (!strncmp(l, event, n) && l[n] == '\t') {
			snprintf(buf, len, "%.*s", (int)(eol - l - n - 1), l + n + 1);
			return buf;
		}
		l = eol + 1;
	}
	return NULL;
}

static const char *refused; /* of the process being shown */

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
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
static void print_rows(const struct row *r, int n, const struct row *prev, int nprev,
		       double secs, double since, bool json)
{
	double now = clock_secs(CLOCK_REALTIME);

	static const char *const key[5] = { "hits", "condition_skipped", "filtered", "recorded",
					    "lost" };

	if (!json)
		printf("%-40s %12s %12s %12s %12s %12s  %s\n", "EVENT",
		       prev ? "HITS/s" : "HITS", prev ? "COND-SKIP/s" : "COND-SKIPPED",
		       prev ? "FILTERED/s" : "FILTERED", prev ? "RECORDED/s" : "RECORDED",
		       prev ? "LOST/s" : "LOST", "CONDITION");
	for (int i = 0; i < n; i++) {
		double v[5];
		const struct row *p = NULL;

		for (int j = 0; prev && j < nprev; j++)
			if (!strcmp(prev[j].event, r[i].event))
				p = &prev[j];
		for (int k = 0; k < 5; k++)
			v[k] = prev ? (double)(r[i].v[k] - (p ? p->v[k] : 0)) / secs
				    : (double)r[i].v[k];
		if (json) {
			printf("{\"event\": ");
			json_str(r[i].event);
			printf(", \"condition\": ");
			json_str(r[i].condition);
			for (int k = 0; k < 5; k++)
				printf(prev ? ", \"%s\": %.1f" : ", \"%s\": %.0f", key[k], v[k]);
			char why[512];

			if (refused_why(refused, r[i].event, why, sizeof(why))) {
				printf(", \"refused\": ");
				json_str(why);
			}
			printf(", \"usdt\": %llu, \"time\": %.6f", r[i].usdt, now);
			if (prev)
				printf(", \"interval\": %.6f", since);
			printf("}\n");
		} else {
			char why[512];

			printf("%-40s %12.0f %12.0f %12.0f %12.0f %12.0f  %s\n", r[i].event, v[0], v[1],
			       v[2], v[3], v[4], r[i].condition);
			if (refused_why(refused, r[i].event, why, sizeof(why)))
				printf("  refused: stays off, libtraceevent cannot render its "
				       "TP_printk: %s\n", why);
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
	unsigned long long sites = 0, checked = 0;
	char err[256], *text = NULL, *reason = NULL;

	if (ctl_request(conn, CTL_JUMP, NULL, &text, err, sizeof(err)) < 0)
		return;
	if (sscanf(text, "%llu\t%llu\t%m[^\n]", &sites, &checked, &reason) >= 2 && sites) {
		if (!checked)
			printf("jump labels: %llu sites, patched (a NOP while off)\n", sites);
		else
			printf("jump labels: %llu sites, %llu keep their checked path (a jump and a "
			       "load while off): %s\n", sites, checked, reason ? reason : "");
	}
	free(reason);
	free(text);
}

int cmd_stat(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "events", required_argument, NULL, 'e' },
		{ "interval", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *globs = NULL;
	double interval = 0;
	bool json = false;
	pid_t pid = 0;
	struct ctl_conn conn;
	char err[512] = "", *text, *end;
	struct row *rows = NULL, *prev = NULL;
	int c, n, nprev = 0, ret = EXIT_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:e:i:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pid = ctl_parse_pid("stat", optarg);
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
		case 'h':
			printf("usage: tpoint stat -p PID [-e GLOB[,GLOB...]] [--interval SECONDS] "
			       "[--json]\n\nThe counters of the events of process PID: hits, hits its "
			       "condition skipped\n(with the condition's text), filtered out, recorded, "
			       "lost. With --interval,\nthe rates over each interval until Ctrl-C or the "
			       "process ends. --json prints\none object per event and line, with the keys "
			       "event, condition, hits,\ncondition_skipped, filtered, recorded, lost, usdt (USDT "
			       "probes attached).\n");
			return EXIT_OK;
		default:
			fprintf(stderr, "usage: tpoint stat -p PID [-e GLOB] [--interval S] [--json]\n");
			return EXIT_USAGE;
		}
	}
	if (!pid || optind < argc) {
		tool_error("stat", "usage: tpoint stat -p PID [-e GLOB] [--interval S] [--json]");
		return EXIT_USAGE;
	}
	if (ctl_connect(pid, &conn, err, sizeof(err)) < 0) {
		tool_error("stat", "%s", err);
		return EXIT_FAIL;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	refused = refused_events(&conn);
	double start = 0, taken = 0, prev_taken = 0;

	for (bool first = true; !stop; first = false) {
		prev_taken = taken;
		taken = clock_secs(CLOCK_MONOTONIC);
		if (first)
			start = taken;
		if (ctl_request(&conn, CTL_STATS, NULL, &text, err, sizeof(err)) < 0) {
			if (first) {
				tool_error("stat", "%s", err);
				ret = EXIT_FAIL;
			}
			break; /* the process ended: the last interval was printed */
		}
		n = parse(text, globs, &rows);
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
	free((char *)refused);
	ctl_close(&conn);
	return ret;
}
