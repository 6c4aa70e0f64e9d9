/* SPDX-License-Identifier: MIT */
/*
 * tpoint top [-d SECONDS] [-n COUNT] [--json] [-p PID]... [--dirty | --events]: the PowerTOP
 * view, live. Who dirties which file (the kernel's writeback event, root only: top_dirty.c),
 * and the rates of every instrumented process's events (its control socket: top_events.c).
 * On a terminal an ncurses screen with keys; otherwise plain text, or one JSON object per
 * refresh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <curses.h>
#include "control_client.h"
#include "escape.h"
#include "json.h"
#include "stat_rows.h"
#include "top_dirty.h"
#include "top_events.h"
#include "top_group.h"
#include "options.h"
#include "tool.h"

#define MAX_PIDS 64
#define DRAIN_MS 100 /* the kernel's buffers are read this often, whatever -d is */
#define POLL_SECS 0.1 /* processes started since are looked for this often (events view) */

struct top {
	double delay;
	long count;
	bool json, curses, want_dirty, want_events;
	pid_t pids[MAX_PIDS];
	int npids;
	enum sort_key sort;

	struct dirty_view *dirty;
	char dirty_why[512];
	struct events_view *events;
	struct dirty_row *drows;
	int ndrows;
	struct events_row *erows;
	int nerows;
	double secs; /* the last refresh's span */

	struct group_opts group; /* --by, --limit, --comm, --path */
	int *index;              /* the dirty rows shown, group by group (top_group.h) */
	struct dirty_group *groups;
	int ngroups, shown_groups;
	bool *row_shown;         /* by row: within the groups and rows shown */

	int line; /* the next screen line (curses) */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_secs(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One line of the text view, to stdout or to the screen. */
static void out(struct top *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(struct top *t, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (!t->curses) {
		puts(line);
		return;
	}
	if (t->line < LINES)
		mvaddnstr(t->line, 0, line, COLS);
	t->line++;
}

/* ---- sorting ---- */

static enum sort_key sort_by;

static int cmp_num(double a, double b)
{
	return a > b ? -1 : a < b;
}

static int cmp_erow(const void *a, const void *b)
{
	const struct events_row *x = a, *y = b;
	int c = 0;

	if (sort_by == SORT_RATE)
		c = cmp_num(x->rate[STAT_HITS], y->rate[STAT_HITS]);
	else if (sort_by == SORT_TOTAL)
		c = cmp_num((double)x->now->v[STAT_HITS], (double)y->now->v[STAT_HITS]);
	else if (sort_by == SORT_NAME)
		c = strcmp(x->now->event, y->now->event);
	if (!c)
		c = (x->pid > y->pid) - (x->pid < y->pid);
	return c ? c : strcmp(x->now->event, y->now->event);
}

/* The dirty rows to show, grouped and in order (top_group.c), and which of them are shown. */
static void order_dirty(struct top *t)
{
	size_t n = (size_t)t->ndrows + 1;

	free(t->index);
	free(t->groups);
	free(t->row_shown);
	t->index = malloc(n * sizeof(*t->index));
	t->groups = malloc(n * sizeof(*t->groups));
	t->row_shown = calloc(n, sizeof(*t->row_shown));
	t->ngroups = t->shown_groups = 0;
	if (!t->index || !t->groups || !t->row_shown)
		return;
	t->group.sort = t->sort;
	t->ngroups = group_dirty(&t->group, t->drows, t->ndrows, t->index, t->groups);
	t->shown_groups = t->group.limit && t->ngroups > t->group.limit ? t->group.limit :
									  t->ngroups;
	for (int g = 0; g < t->shown_groups; g++)
		for (int i = 0; i < t->groups[g].shown_rows; i++)
			t->row_shown[t->index[t->groups[g].first + i]] = true;
}

/* ---- the text view (and the screen's) ---- */

static void file_name(const struct dirty_row *r, char *buf, size_t len)
{
	char esc[1024];

	if (r->path)
		snprintf(buf, len, "%s", text_escaped(r->path, esc, sizeof(esc)));
	else
		snprintf(buf, len, "dev %s ino %llu", text_escaped(r->dev, esc, sizeof(esc)),
			 r->ino);
}

static void show_group(struct top *t, const struct dirty_group *g)
{
	char comm[80], file[1100], flags[512], what[64];
	const struct dirty_row *k = g->key;

	snprintf(what, sizeof(what), "%d file%s", g->nrows, g->nrows == 1 ? "" : "s");
	if (t->group.by == BY_PID && !g->exited) {
		out(t, "%7d %7s %-16s %9.1f %10llu  %s", (int)k->pid, "",
		    text_escaped(g->comm, comm, sizeof(comm)), g->rate, g->events, what);
	} else if (t->group.by != BY_FILE) {
		out(t, "%7s %7s %-16s %9.1f %10llu  %s, %d %sprocess%s", g->exited ? "exited" : "",
		    "", text_escaped(g->comm, comm, sizeof(comm)), g->rate, g->events, what,
		    g->processes, g->exited ? "exited " : "", g->processes == 1 ? "" : "es");
	} else {
		unsigned long all = 0;

		for (int i = g->first; i < g->first + g->nrows; i++)
			all |= t->drows[t->index[i]].flags;
		file_name(k, file, sizeof(file));
		dirty_flag_names(t->dirty, all, flags, sizeof(flags));
		snprintf(what, sizeof(what), "%d process%s", g->processes,
			 g->processes == 1 ? "" : "es");
		out(t, "%7s %7s %-16s %9.1f %10llu  %s [%s]", "", "", what, g->rate, g->events,
		    file, flags);
	}
	for (int i = g->first; i < g->first + g->shown_rows; i++) {
		const struct dirty_row *r = &t->drows[t->index[i]];
		char pid[16] = "";

		if (t->group.by != BY_PID || g->exited)
			snprintf(pid, sizeof(pid), "%d", (int)r->pid);
		if (t->group.by == BY_FILE) {
			out(t, "%7s %7d %-16s %9.1f %10llu", pid, (int)r->tid,
			    text_escaped(r->comm, comm, sizeof(comm)), r->rate, r->events);
			continue;
		}
		file_name(r, file, sizeof(file));
		dirty_flag_names(t->dirty, r->flags, flags, sizeof(flags));
		out(t, "%7s %7d %-16s %9.1f %10llu  %s [%s]", pid, (int)r->tid,
		    text_escaped(r->comm, comm, sizeof(comm)), r->rate, r->events, file, flags);
	}
	if (g->shown_rows < g->nrows)
		out(t, "%17s %-16s %9s %10s  (%d more, --limit %d)", "", "", "", "",
		    g->nrows - g->shown_rows, t->group.limit);
}

static void show_dirty(struct top *t)
{
	char names[1024], esc[4 * sizeof(names)];

	if (!t->dirty) {
		out(t, "Dirty files: not shown: %s", t->dirty_why);
		return;
	}
	out(t, "Dirty files (writeback:%s, %s)%s%.0llu", dirty_event_name(t->dirty),
	    dirty_filter(t->dirty), dirty_lost(t->dirty) ? ", lost by the kernel: " : "",
	    dirty_lost(t->dirty));
	dirty_names(t->dirty, names, sizeof(names));
	out(t, "%s", text_escaped(names, esc, sizeof(esc)));
	out(t, "%7s %7s %-16s %9s %10s  %s", "PID", "TID", "COMM", "DIRTY/s", "TOTAL",
	    t->group.by == BY_FILE ? "FILE [FLAGS], then its processes" : "FILE [FLAGS]");
	for (int g = 0; g < t->shown_groups; g++)
		show_group(t, &t->groups[g]);
	if (t->shown_groups < t->ngroups)
		out(t, "(%d more %s, --limit %d)", t->ngroups - t->shown_groups,
		    t->group.by == BY_FILE ? "files" : t->group.by == BY_COMM ? "commands" :
		    "processes", t->group.limit);
}

/* An events row --comm keeps and --limit leaves room for (shown counts those shown). */
static bool event_shown(struct top *t, const struct events_row *r, int *shown)
{
	if (t->group.comm_glob && fnmatch(t->group.comm_glob, r->comm, 0))
		return false;
	if (t->group.limit && *shown >= t->group.limit)
		return false;
	++*shown;
	return true;
}

static void show_events(struct top *t)
{
	char comm[80], event[700];
	const char *err = events_error(t->events);

	sort_by = t->sort;
	if (t->nerows > 1) /* qsort() wants a base even for nothing to sort */
		qsort(t->erows, (size_t)t->nerows, sizeof(*t->erows), cmp_erow);
	out(t, "Program events (control sockets)%s%s", err ? ": " : "", err ? err : "");
	out(t, "%7s %-16s %-32s %10s %11s %10s %10s %8s", "PID", "COMM", "EVENT", "HITS/s",
	    "COND-SKIP/s", "FILTERED/s", "RECORDED/s", "LOST/s");
	for (int i = 0, shown = 0; i < t->nerows; i++) {
		const struct events_row *r = &t->erows[i];

		if (!event_shown(t, r, &shown))
			continue;
		out(t, "%7d %-16s %-32s %10.1f %11.1f %10.1f %10.1f %8.1f", (int)r->pid,
		    text_escaped(r->comm, comm, sizeof(comm)),
		    text_escaped(r->now->event, event, sizeof(event)), r->rate[STAT_HITS],
		    r->rate[STAT_COND_SKIPPED], r->rate[STAT_FILTERED], r->rate[STAT_RECORDED],
		    r->rate[STAT_LOST]);
	}
}

static const char *const sort_names[] = { "rate", "total", "pid", "name" };

static void show_text(struct top *t)
{
	time_t now = time(NULL);
	char when[32];

	strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
	if (t->curses) {
		erase();
		t->line = 0;
		out(t, "tpoint top  %s  every %g s  sorted by %s   keys: r rate  t total  p pid  "
		    "n name  d dirty  e events  q quit", when, t->delay, sort_names[t->sort]);
	} else {
		out(t, "tpoint top  %s  every %g s", when, t->delay);
	}
	if (t->want_dirty) {
		out(t, "%s", "");
		show_dirty(t);
	}
	if (t->want_events) {
		out(t, "%s", "");
		show_events(t);
	}
	if (t->curses)
		refresh();
	else
		out(t, "%s", "");
	fflush(stdout);
}

/* ---- JSON ---- */

/* "by", "groups" (as the text view's group lines), "more_groups": beyond --limit. */
static void json_groups(struct top *t)
{
	printf(", \"by\": \"%s\", \"groups\": [", group_by_names[t->group.by]);
	for (int i = 0; i < t->shown_groups; i++) {
		const struct dirty_group *g = &t->groups[i];

		printf("%s{\"pid\": ", i ? ", " : "");
		if (t->group.by == BY_PID && !g->exited)
			printf("%d", (int)g->key->pid);
		else
			printf("null");
		printf(", \"comm\": ");
		if (t->group.by != BY_FILE)
			json_print_str(g->comm);
		else
			printf("null");
		printf(", \"path\": ");
		if (t->group.by == BY_FILE && g->key->path)
			json_print_str(g->key->path);
		else
			printf("null");
		printf(", \"exited\": %s, \"processes\": %d, \"rows\": %d, \"events\": %llu, "
		       "\"rate\": %.1f}", g->exited ? "true" : "false", g->processes, g->nrows,
		       g->events, g->rate);
	}
	printf("], \"more_groups\": %d", t->ngroups - t->shown_groups);
}

static void show_json(struct top *t)
{
	char flags[512];
	bool first = true;

	printf("{\"time\": %.6f, \"interval\": %.6f, \"dirty\": [", now_secs(CLOCK_REALTIME),
	       t->secs);
	for (int i = 0; t->dirty && t->want_dirty && t->row_shown && i < t->ndrows; i++) {
		const struct dirty_row *r = &t->drows[i];
		size_t plen = r->path ? strlen(r->path) : 0;

		if (!t->row_shown[i])
			continue;
		printf("%s{\"pid\": %d, \"tid\": %d, \"comm\": ", first ? "" : ", ", (int)r->pid,
		       (int)r->tid);
		first = false;
		json_print_str(r->comm);
		printf(", \"path\": ");
		if (r->path)
			json_print_str(r->path);
		else
			printf("null");
		printf(", \"deleted\": %s, \"dev\": ",
		       plen > 10 && !strcmp(r->path + plen - 10, " (deleted)") ? "true" : "false");
		json_print_str(r->dev);
		dirty_flag_names(t->dirty, r->flags, flags, sizeof(flags));
		printf(", \"ino\": %llu, \"events\": %llu, \"rate\": %.1f, \"flags\": ", r->ino,
		       r->events, r->rate);
		json_print_str(flags);
		printf(", \"renamed\": %s, \"exited\": %s}",
		       plen > 10 && !strcmp(r->path + plen - 10, " (renamed)") ? "true" : "false",
		       r->gone ? "true" : "false");
	}
	printf("]");
	if (t->dirty && t->want_dirty)
		json_groups(t);
	if (t->want_dirty && !t->dirty) {
		printf(", \"dirty_error\": ");
		json_print_str(t->dirty_why);
	} else if (t->dirty) {
		printf(", \"dirty_lost\": %llu", dirty_lost(t->dirty));
		printf(", ");
		dirty_names_json(t->dirty);
	}
	printf(", \"events\": [");
	if (t->group.limit && t->nerows > 1) { /* the first N by the sort key, as the text view shows */
		sort_by = t->sort;
		qsort(t->erows, (size_t)t->nerows, sizeof(*t->erows), cmp_erow);
	}
	for (int i = 0, shown = 0; t->want_events && i < t->nerows; i++) {
		const struct events_row *r = &t->erows[i];

		if (!event_shown(t, r, &shown))
			continue;
		printf("%s{\"pid\": %d, \"comm\": ", shown > 1 ? ", " : "", (int)r->pid);
		json_print_str(r->comm);
		printf(", \"event\": ");
		json_print_str(r->now->event);
		printf(", \"condition\": ");
		json_print_str(r->now->condition);
		for (int k = 0; k < STAT_NCOUNTERS; k++)
			printf(", \"%s\": %.1f", stat_keys[k], r->rate[k]);
		printf(", \"total_hits\": %llu, \"ended\": %s}", r->now->v[STAT_HITS],
		       r->ended ? "true" : "false");
	}
	printf("]");
	if (t->want_events && events_error(t->events)) {
		printf(", \"events_error\": ");
		json_print_str(events_error(t->events));
	}
	printf("}\n");
	fflush(stdout);
}

static void show(struct top *t)
{
	if (t->dirty)
		order_dirty(t);
	if (t->json)
		show_json(t);
	else
		show_text(t);
}

/* A key pressed on the screen; true when it asks to quit. */
static bool key(struct top *t, int ch)
{
	switch (ch) {
	case 'q': case 'Q':
		return true;
	case 'r': t->sort = SORT_RATE; break;
	case 't': t->sort = SORT_TOTAL; break;
	case 'p': t->sort = SORT_PID; break;
	case 'n': t->sort = SORT_NAME; break;
	case 'd':
		t->want_dirty = !t->want_dirty || !t->want_events;
		break;
	case 'e':
		t->want_events = !t->want_events || !t->want_dirty;
		break;
	case 'b': t->group.by = group_by_next(t->group.by); break;
	case '+': t->group.limit = group_limit_step(t->group.limit, 1); break;
	case '-': t->group.limit = group_limit_step(t->group.limit, -1); break;
	default:
		return false;
	}
	show(t);
	return false;
}

/* Until `until` (monotonic seconds): drain the kernel's buffers, take keys. */
static void wait_until(struct top *t, double until)
{
	double next_poll = 0;

	for (double now; !stop && (now = now_secs(CLOCK_MONOTONIC)) < until;) {
		double left = until - now;
		int ms = left * 1000 < DRAIN_MS ? (int)(left * 1000) + 1 : DRAIN_MS;

		if (t->dirty)
			dirty_drain(t->dirty);
		if (t->want_events && now >= next_poll) {
			events_poll(t->events);
			next_poll = now + POLL_SECS;
		}
		if (t->curses) {
			timeout(ms);
			int ch = getch();

			if (ch != ERR && key(t, ch))
				stop = 1;
		} else {
			struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

			nanosleep(&ts, NULL);
		}
	}
}

static const struct opts_spec top_opts = {
	.verb = "top",
	.usage = (const char *const[]){
		"tpoint top [-d SECONDS] [-n COUNT] [--json] [-p PID[,PID]...]... [--dirty | --events]",
		"          [--by pid|comm|file] [--limit N] [--comm GLOB] [--path GLOB]", NULL },
	.about = "The PowerTOP view, live. Who dirties which file (root: the kernel's writeback\n"
		 "event, filtered to I_DIRTY_SYNC, I_DIRTY_DATASYNC, I_DIRTY_PAGES), and the rates of\n"
		 "the events of every instrumented process (over their control sockets).\n",
	.opts = (const struct opt[]){
		{ 'd', 'd', "delay", OPT_VALUE, "SECONDS", "refresh every SECONDS (default 2)", 0 },
		{ 'n', 'n', "count", OPT_VALUE, "COUNT", "stop after COUNT refreshes", 0 },
		OPT_JSON("one JSON object per refresh, with arrays dirty and events"),
		OPT_PID("only these processes (repeatable, or comma-separated)"),
		{ 'B', 0, "by", OPT_VALUE, "pid|comm|file", "group the dirty files by process (with\n"
		  "its files, the default), by command, or by file\n(with its processes)", 0 },
		{ 'L', 0, "limit", OPT_VALUE, "N", "at most N groups, N rows in each, N events", 0 },
		{ 'C', 0, "comm", OPT_VALUE, "GLOB", "only processes whose name matches GLOB", 0 },
		{ 'P', 0, "path", OPT_VALUE, "GLOB", "only files whose path matches GLOB ('*' matches\n"
		  "'/' too)", 0 },
		{ 'D', 0, "dirty", OPT_NO_VALUE, NULL, "only the dirty files", 0 },
		{ 'E', 0, "events", OPT_NO_VALUE, NULL, "only the program events", 0 },
		OPT_END,
	},
	.after = "On a terminal: r, t, p, n sort by rate, total, pid, name; d and e show or hide\n"
		 "a view; b groups by pid, comm, file in turn; + and - step --limit through 1, 5,\n"
		 "10, 20, 50, 100 and all; q quits. A process gone for a refresh is folded into\n"
		 "one \"exited\" row per command (--by pid).\n",
};
/* -p PID[,PID...]: each as ctl_parse_pid() takes it. */
static int parse_pids(struct top *t, const char *list)
{
	char one[32];

	for (const char *p = list;; p += strcspn(p, ",") + 1) {
		size_t len = strcspn(p, ",");

		if (t->npids == MAX_PIDS) {
			tool_error("top", "-p: at most %d processes", MAX_PIDS);
			return -1;
		}
		if (len >= sizeof(one))
			len = sizeof(one) - 1;
		memcpy(one, p, len);
		one[len] = 0;
		t->pids[t->npids] = ctl_parse_pid("top", one);
		if (t->pids[t->npids++] < 0)
			return -1;
		if (!p[len])
			return 0;
	}
}

static int parse_args(struct top *t, int argc, char **argv)
{
	struct opts o;
	bool only_dirty = false, only_events = false;
	char *end;
	int c;

	opts_start(&o, &top_opts, argc, argv);
	while ((c = opts_next(&o)) != OPTS_END) {
		const char *optarg = o.value;

		switch (c) {
		case 'd':
			t->delay = strtod(optarg, &end);
			if (end == optarg || *end || !(t->delay >= 0.1) || t->delay > 3600) {
				tool_error("top", "-d '%s': expected seconds between refreshes, "
					   "from 0.1 to 3600", optarg);
				return -1;
			}
			break;
		case 'n':
			errno = 0;
			t->count = strtol(optarg, &end, 10);
			if (end == optarg || *end || errno || t->count <= 0) {
				tool_error("top", "-n '%s': expected a number of refreshes, 1 or more",
					   optarg);
				return -1;
			}
			break;
		case 'j':
			t->json = true;
			break;
		case 'p':
			if (parse_pids(t, optarg) < 0)
				return -1;
			break;
		case 'B':
			if (!group_by_parse(optarg, &t->group.by)) {
				tool_error("top", "--by '%s': expected pid, comm or file", optarg);
				return -1;
			}
			break;
		case 'L': {
			errno = 0;
			long limit = strtol(optarg, &end, 10);

			if (end == optarg || *end || errno || limit <= 0 || limit > 1000000) {
				tool_error("top", "--limit '%s': expected a number of rows, from 1 to "
					   "1000000", optarg);
				return -1;
			}
			t->group.limit = (int)limit;
			break;
		}
		case 'C':
		case 'P':
			if (!*optarg) {
				tool_error("top", "--%s '': expected a glob like 'dd*'",
					   c == 'C' ? "comm" : "path");
				return -1;
			}
			*(c == 'C' ? &t->group.comm_glob : &t->group.path_glob) = optarg;
			break;
		case 'D':
			only_dirty = true;
			break;
		case 'E':
			only_events = true;
			break;
		default:
			return c == OPTS_HELP ? 1 : -1;
		}
	}
	optind = o.ind;
	if (optind < argc) {
		tool_error("top", "unexpected argument '%s'", argv[optind]);
		opts_usage(&top_opts, stderr);
		return -1;
	}
	if (only_dirty && only_events) {
		tool_error("top", "--dirty and --events: give one, or neither for both views");
		return -1;
	}
	t->want_dirty = !only_events;
	t->want_events = !only_dirty;
	return 0;
}

int cmd_top(int argc, char **argv)
{
	struct top t = { .delay = 2 };
	struct sigaction sa = { .sa_handler = on_signal };
	int ret = parse_args(&t, argc, argv);

	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	/* Before ncurses: it leaves handlers it finds in place, and the instance must go. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (t.want_dirty) {
		t.dirty = dirty_open(t.pids, t.npids, t.dirty_why, sizeof(t.dirty_why));
		if (!t.dirty && !t.want_events) {
			tool_error("top", "%s", t.dirty_why);
			return EXIT_FAIL;
		}
	}
	t.events = events_open(t.pids, t.npids);
	if (!t.events) {
		dirty_close(t.dirty);
		tool_error("top", "out of memory");
		return EXIT_FAIL;
	}
	if (!t.json && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO) && getenv("TERM")) {
		/*
		 * ncurses draws the bytes of a name by the locale's character set: in the "C"
		 * locale a UTF-8 name would show as ~X~@. LC_CTYPE only, for the screen only:
		 * numbers keep their "C" form (LC_NUMERIC), and the text and JSON views, which
		 * escape by bytes, are not touched.
		 */
		setlocale(LC_CTYPE, "");
		if (newterm(NULL, stdout, stdin)) {
			t.curses = true;
			cbreak();
			noecho();
			curs_set(0);
			keypad(stdscr, TRUE);
		} else {
			setlocale(LC_CTYPE, "C");
		}
	}
	/* The first sample: every rate shown is over a whole refresh. */
	double last = now_secs(CLOCK_MONOTONIC);

	if (t.want_events)
		t.nerows = events_refresh(t.events, &t.erows);
	for (long n = 0; !stop && (!t.count || n < t.count); n++) {
		wait_until(&t, last + t.delay);
		if (stop)
			break;
		double now = now_secs(CLOCK_MONOTONIC);

		t.secs = now - last;
		last = now;
		if (t.dirty) {
			dirty_drain(t.dirty);
			t.ndrows = dirty_refresh(t.dirty, t.secs, &t.drows);
		}
		if (t.want_events)
			t.nerows = events_refresh(t.events, &t.erows);
		show(&t);
	}
	if (t.curses)
		endwin();
	free(t.index);
	free(t.groups);
	free(t.row_shown);
	dirty_close(t.dirty);
	events_close(t.events);
	return EXIT_OK;
}
