/* SPDX-License-Identifier: MIT */
/* One control connection per instrumented process, kept open, asked for CTL_STATS a refresh. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "control_client.h"
#include "fmt/control_msg.h"
#include "top_events.h"

/* A process that does not answer within this costs top one refresh, not more. */
#define TOP_CTL_TIMEOUT_MS 1000

struct proc_stats {
	pid_t pid;
	char comm[16];
	struct ctl_conn conn;
	struct stat_row *rows, *prev;
	int nrows, nprev;
	double taken, prev_taken;
	bool present;
};

struct events_view {
	const pid_t *pids;
	int npids;
	struct proc_stats *procs;
	int nprocs, cap;
	struct events_row *rows;
	int nrows;
	char error[512];
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

static void connect_to(pid_t pid, void *arg)
{
	struct events_view *v = arg;
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
	if (ctl_connect_timed(pid, TOP_CTL_TIMEOUT_MS, 0, &p->conn, err, sizeof(err)) < 0) {
		if (v->npids)
			snprintf(v->error, sizeof(v->error), "%s", err);
		return;
	}
	ctl_proc_comm(pid, p->comm, sizeof(p->comm));
	v->nprocs++;
}

static void drop(struct events_view *v, int i)
{
	ctl_close(&v->procs[i].conn);
	free(v->procs[i].rows);
	free(v->procs[i].prev);
	v->procs[i] = v->procs[--v->nprocs];
}

int events_refresh(struct events_view *v, struct events_row **out)
{
	int total = 0;

	v->error[0] = 0;
	for (int i = 0; i < v->nprocs; i++)
		v->procs[i].present = false;
	if (v->npids)
		for (int i = 0; i < v->npids; i++)
			connect_to(v->pids[i], v);
	else
		ctl_each_process(connect_to, v);
	for (int i = 0; i < v->nprocs; i++) {
		struct proc_stats *p = &v->procs[i];
		char err[256], *text = NULL;

		if (!p->present || ctl_request(&p->conn, CTL_STATS, NULL, &text, err,
					      sizeof(err)) < 0) {
			drop(v, i--); /* it ended */
			continue;
		}
		free(p->prev);
		p->prev = p->rows;
		p->nprev = p->nrows;
		p->prev_taken = p->taken;
		p->taken = now_secs();
		p->nrows = stat_rows_parse(text, NULL, &p->rows);
		free(text);
		if (p->nrows < 0) {
			p->rows = NULL;
			drop(v, i--); /* malformed: not worth showing */
			continue;
		}
		total += p->nrows;
	}
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
						  .now = &p->rows[e], .has_rate = p->prev != NULL };
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
	free(v->procs);
	free(v->rows);
	free(v);
}
