/* SPDX-License-Identifier: MIT */
/*
 * One control connection per instrumented process, kept open, asked for CTL_STATS a refresh;
 * processes started since are found between refreshes (events_poll()).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "control_client.h"
#include "fmt/control_msg.h"
#include "top_events.h"

/* A process that does not answer within this costs top one refresh, not more. */
#define TOP_CTL_TIMEOUT_MS 1000
/* Between refreshes, less: a stuck process must not hold the poll. */
#define POLL_CTL_TIMEOUT_MS 50
/* A new process is asked this many polls for its socket (the library makes it at start). */
#define RETRY_TRIES 5
#define RETRY_MAX 256

struct proc_stats {
	pid_t pid;
	char comm[16];
	struct ctl_conn conn;
	struct stat_row *rows, *prev;
	int nrows, nprev;
	double taken, prev_taken;
	bool present;
	bool ended; /* gone at this refresh: its last counters shown once more */
	bool started; /* found between refreshes (events_poll()), not yet seen at one */
	bool gone_since_poll; /* started, and no longer answered a poll */
	bool from_zero; /* its rates this refresh are from zero over the span */
};

struct events_view {
	const pid_t *pids;
	int npids;
	struct proc_stats *procs;
	int nprocs, cap;
	struct events_row *rows;
	int nrows;
	char error[512];
	pid_t *seen, *seen_next; /* the pids in /proc at the last poll, and now */
	int nseen, cap_seen;
	struct { pid_t pid; int tries; } retry[RETRY_MAX]; /* new, without a socket yet */
	int nretry;
	double last_refresh;
};

static double now_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct events_view *events_open(const pid_t *pids, int npids)
{
	struct events_view *v = calloc(1, sizeof(*v));

	if (v) {
		v->pids = pids;
		v->npids = npids;
	}
	return v;
}

static void connect_timed(pid_t pid, struct events_view *v, int timeout_ms)
{
	char err[512];

	for (int i = 0; i < v->nprocs; i++)
		if (v->procs[i].pid == pid) {
			v->procs[i].present = true;
			return;
		}
	if (v->nprocs == v->cap) {
		int cap = v->cap ? 2 * v->cap : 16;
		struct proc_stats *grown = realloc(v->procs, (size_t)cap * sizeof(*grown));

		if (!grown)
			return;
		v->procs = grown;
		v->cap = cap;
	}
	struct proc_stats *p = &v->procs[v->nprocs];

	*p = (struct proc_stats){ .pid = pid, .present = true };
	if (ctl_connect_timed(pid, timeout_ms, 0, &p->conn, err, sizeof(err)) < 0) {
		if (v->npids)
			snprintf(v->error, sizeof(v->error), "%s", err);
		return;
	}
	ctl_proc_comm(pid, p->comm, sizeof(p->comm));
	v->nprocs++;
}

static void connect_to(pid_t pid, void *arg)
{
	connect_timed(pid, arg, TOP_CTL_TIMEOUT_MS);
}

static void drop(struct events_view *v, int i)
{
	ctl_close(&v->procs[i].conn);
	free(v->procs[i].rows);
	free(v->procs[i].prev);
	v->procs[i] = v->procs[--v->nprocs];
}

/* Its counters now, as p->rows (the ones before in p->prev). -1 when it cannot answer. */
static int sample(struct proc_stats *p)
{
	char err[256], *text = NULL;

	if (ctl_request(&p->conn, CTL_STATS, NULL, &text, err, sizeof(err)) < 0)
		return -1;
	free(p->prev);
	p->prev = p->rows;
	p->nprev = p->nrows;
	p->prev_taken = p->taken;
	p->taken = now_secs();
	p->nrows = stat_rows_parse(text, NULL, &p->rows);
	free(text);
	if (p->nrows < 0) {
		p->rows = NULL;
		return -1;
	}
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* A new process without a socket yet: asked again at the next polls (the newest first). */
static void retry_later(struct events_view *v, pid_t pid)
{
	int at = v->nretry;

	if (v->nretry == RETRY_MAX) { /* full: the one asked most often goes */
		for (int i = at = 0; i < v->nretry; i++)
			if (v->retry[i].tries > v->retry[at].tries)
				at = i;
	} else {
		v->nretry++;
	}
	v->retry[at].pid = pid;
	v->retry[at].tries = 1;
}

/*
 * Processes that started since the last poll: connected to and sampled now, so that one
 * that ends before the refresh still shows its events. Only the new pids of /proc are
 * tried, so a poll costs a read of /proc's directory, not of every process.
 */
void events_poll(struct events_view *v)
{
	DIR *d = v->npids ? NULL : opendir("/proc");
	struct dirent *e;
	int n = 0, known = v->nprocs;

	while (d && (e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (pid <= 0 || *end)
			continue;
		if (n == v->cap_seen) {
			int cap = v->cap_seen ? 2 * v->cap_seen : 1024;
			pid_t *a = realloc(v->seen, (size_t)cap * sizeof(*a));
			pid_t *b = a ? realloc(v->seen_next, (size_t)cap * sizeof(*b)) : NULL;

			if (a)
				v->seen = a;
			if (!b)
				break;
			v->seen_next = b;
			v->cap_seen = cap;
		}
		v->seen_next[n++] = (pid_t)pid;
	}
	if (d)
		closedir(d);
	if (n > 1)
		qsort(v->seen_next, (size_t)n, sizeof(pid_t), cmp_pid);
	/* the first poll only learns what is there: the refresh before it connected to those */
	for (int i = 0; i < v->nretry; i++) {
		int before = v->nprocs;

		connect_timed(v->retry[i].pid, v, POLL_CTL_TIMEOUT_MS);
		if (v->nprocs > before || ++v->retry[i].tries >= RETRY_TRIES)
			v->retry[i--] = v->retry[--v->nretry];
	}
	for (int i = 0; v->seen && v->nseen && i < n; i++) {
		int before = v->nprocs;

		if (bsearch(&v->seen_next[i], v->seen, (size_t)v->nseen, sizeof(pid_t), cmp_pid))
			continue;
		connect_timed(v->seen_next[i], v, POLL_CTL_TIMEOUT_MS);
		if (v->nprocs == before)
			retry_later(v, v->seen_next[i]);
	}
	pid_t *t = v->seen;

	v->seen = v->seen_next;
	v->seen_next = t;
	v->nseen = n;
	for (int i = known; i < v->nprocs; i++) {
		v->procs[i].started = true;
		if (sample(&v->procs[i]) < 0)
			drop(v, i--);
		else
			v->procs[i].conn.timeout_ms = TOP_CTL_TIMEOUT_MS; /* the refresh's */
	}
	/*
	 * The ones started in this span, asked again: what a short program did up to its end
	 * (its events may not even be registered at its first sample). One that no longer
	 * answers keeps its last counters for the refresh.
	 */
	for (int i = 0; i < known; i++) {
		struct proc_stats *p = &v->procs[i];

		if (p->started && !p->gone_since_poll && sample(p) < 0)
			p->gone_since_poll = true;
	}
}

int events_refresh(struct events_view *v, struct events_row **out)
{
	int total = 0;
	double now = now_secs();

	v->error[0] = 0;
	/*
	 * The first time, before the processes are looked for: learns the pids there, so that
	 * the polls connect to the ones started since, even while this looks (it reads every
	 * process's environment, which takes a while on a busy machine).
	 */
	if (!v->last_refresh)
		events_poll(v);
	for (int i = 0; i < v->nprocs; i++) {
		if (v->procs[i].ended) {
			drop(v, i--); /* shown once after it ended */
		} else {
			v->procs[i].present = false;
			v->procs[i].from_zero = false;
		}
	}
	if (v->npids)
		for (int i = 0; i < v->npids; i++)
			connect_to(v->pids[i], v);
	else
		ctl_each_process(connect_to, v);
	for (int i = 0; i < v->nprocs; i++) {
		struct proc_stats *p = &v->procs[i];
		bool gone = !p->present || p->gone_since_poll || sample(p) < 0;

		if (gone && p->started && p->rows) {
			/*
			 * Started and ended within this refresh's span: its counters when last
			 * asked, from zero, over the span.
			 */
			p->ended = true;
			free(p->prev);
			p->prev = NULL;
			p->nprev = 0;
			p->prev_taken = v->last_refresh;
			p->taken = now;
			total += p->nrows;
			continue;
		}
		if (gone) {
			drop(v, i--); /* it ended */
			continue;
		}
		if (p->started) { /* started in the span: from zero over it, as above */
			free(p->prev);
			p->prev = NULL;
			p->nprev = 0;
			p->prev_taken = v->last_refresh;
			p->started = false;
			p->from_zero = true;
		}
		total += p->nrows;
	}
	v->last_refresh = now;
	struct events_row *rows = realloc(v->rows, (size_t)(total ? total : 1) * sizeof(*rows));

	if (!rows)
		return 0;
	v->rows = rows;
	v->nrows = 0;
	for (int i = 0; i < v->nprocs; i++) {
		struct proc_stats *p = &v->procs[i];
		double secs = p->taken - p->prev_taken;

		for (int e = 0; e < p->nrows; e++) {
			const struct stat_row *before = p->prev ?
				stat_rows_find(p->prev, p->nprev, p->rows[e].event) : NULL;
			struct events_row *r = &rows[v->nrows++];

			*r = (struct events_row){ .pid = p->pid, .comm = p->comm,
						  .now = &p->rows[e], .ended = p->ended,
						  .has_rate = p->prev != NULL || p->ended ||
							      p->from_zero };
			for (int k = 0; k < STAT_NCOUNTERS && r->has_rate && secs > 0; k++)
				r->rate[k] = (double)(p->rows[e].v[k] - (before ? before->v[k] : 0)) /
					     secs;
		}
	}
	*out = v->rows;
	return v->nrows;
}

const char *events_error(struct events_view *v)
{
	return v->error[0] ? v->error : NULL;
}

void events_close(struct events_view *v)
{
	if (!v)
		return;
	while (v->nprocs)
		drop(v, 0);
	free(v->seen);
	free(v->seen_next);
	free(v->procs);
	free(v->rows);
	free(v);
}
