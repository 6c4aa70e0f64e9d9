/* SPDX-License-Identifier: MIT */
/*
 * Grouping and ordering of the dirty rows (top_group.h): the kept rows sorted by their group
 * and, within it, by the sort key; then the groups summed and sorted by the same key.
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "top_group.h"

const char *const group_by_names[] = { "pid", "comm", "file" };

/* qsort() has no context argument: the one ordering under way. */
static const struct group_opts *sorting;
static const struct dirty_row *sort_rows;

bool group_by_parse(const char *word, enum group_by *by)
{
	for (int i = 0; i < 3; i++)
		if (!strcmp(word, group_by_names[i])) {
			*by = (enum group_by)i;
			return true;
		}
	return false;
}

/* The --limit values the screen's keys step through; 0 (all) is beyond the last. */
static const int limit_steps[] = { 1, 5, 10, 20, 50, 100 };
#define NSTEPS ((int)(sizeof(limit_steps) / sizeof(limit_steps[0])))

int group_limit_step(int limit, int dir)
{
	if (dir > 0) {
		for (int i = 0; i < NSTEPS && limit; i++)
			if (limit_steps[i] > limit)
				return limit_steps[i];
		return 0;
	}
	for (int i = NSTEPS - 1; i >= 0; i--)
		if (!limit || limit_steps[i] < limit)
			return limit_steps[i];
	return limit_steps[0];
}

enum group_by group_by_next(enum group_by by)
{
	return by == BY_PID ? BY_COMM : by == BY_COMM ? BY_FILE : BY_PID;
}

bool group_keeps(const struct group_opts *o, const struct dirty_row *r)
{
	if (!r->shown || r->idle >= IDLE_REFRESHES)
		return false;
	if (o->comm_glob && fnmatch(o->comm_glob, r->comm, 0))
		return false;
	return !o->path_glob || (r->path && !fnmatch(o->path_glob, r->path, 0));
}

static bool folded(const struct group_opts *o, const struct dirty_row *r)
{
	return o->by == BY_PID && r->gone >= FOLD_AFTER;
}

static int cmp_num(double a, double b)
{
	return a > b ? -1 : a < b;
}

static int cmp_int(long long a, long long b)
{
	return (a > b) - (a < b);
}

static const char *path_key(const struct dirty_row *r)
{
	return r->path ? r->path : "~";
}

/* Which group a row is in: 0 when the same as the other's. */
static int cmp_group_key(const struct dirty_row *x, const struct dirty_row *y)
{
	int c;

	switch (sorting->by) {
	case BY_PID:
		c = cmp_int(folded(sorting, x), folded(sorting, y));
		if (c || folded(sorting, x))
			return c ? c : strcmp(x->comm, y->comm);
		return cmp_int(x->pid, y->pid);
	case BY_COMM:
		return strcmp(x->comm, y->comm);
	case BY_FILE:
		c = strcmp(x->dev, y->dev);
		return c ? c : cmp_int((long long)x->ino, (long long)y->ino);
	}
	return 0;
}

static int cmp_row(const void *a, const void *b)
{
	const struct dirty_row *x = &sort_rows[*(const int *)a], *y = &sort_rows[*(const int *)b];
	int c = cmp_group_key(x, y);

	if (c)
		return c;
	if (sorting->sort == SORT_RATE)
		c = cmp_num(x->rate, y->rate);
	else if (sorting->sort == SORT_TOTAL)
		c = cmp_num((double)x->events, (double)y->events);
	else if (sorting->sort == SORT_NAME)
		c = sorting->by == BY_FILE ? strcmp(x->comm, y->comm) :
					     strcmp(path_key(x), path_key(y));
	if (!c)
		c = cmp_int(x->pid, y->pid);
	if (!c)
		c = cmp_int(x->tid, y->tid);
	return c ? c : cmp_int((long long)x->ino, (long long)y->ino);
}

static int cmp_group(const void *a, const void *b)
{
	const struct dirty_group *x = a, *y = b;
	int c = 0;

	if (sorting->sort == SORT_RATE)
		c = cmp_num(x->rate, y->rate);
	else if (sorting->sort == SORT_TOTAL)
		c = cmp_num((double)x->events, (double)y->events);
	else if (sorting->sort == SORT_NAME)
		c = sorting->by == BY_FILE ? strcmp(path_key(x->key), path_key(y->key)) :
					     strcmp(x->comm, y->comm);
	if (!c)
		c = cmp_int(x->exited, y->exited);
	if (!c)
		c = cmp_int(x->key->pid, y->key->pid);
	return c ? c : strcmp(x->comm, y->comm);
}

int group_dirty(const struct group_opts *o, const struct dirty_row *rows, int n, int *index,
		struct dirty_group *groups)
{
	int nindex = 0, ng = 0;

	for (int i = 0; i < n; i++)
		if (group_keeps(o, &rows[i]))
			index[nindex++] = i;
	sorting = o;
	sort_rows = rows;
	if (nindex > 1)
		qsort(index, (size_t)nindex, sizeof(*index), cmp_row);
	for (int i = 0; i < nindex; i++) {
		const struct dirty_row *r = &rows[index[i]];
		struct dirty_group *g = ng ? &groups[ng - 1] : NULL;

		if (!g || cmp_group_key(g->key, r)) {
			g = &groups[ng++];
			*g = (struct dirty_group){ .exited = folded(o, r), .key = r, .comm = r->comm,
						   .first = i };
		}
		bool new_process = true;

		for (int k = g->first; k < i && new_process; k++)
			new_process = rows[index[k]].pid != r->pid;
		g->processes += new_process;
		g->rate += r->rate;
		g->events += r->events;
		g->nrows++;
		if (o->by == BY_PID && r->pid == r->tid && !g->exited)
			g->comm = r->comm; /* the main thread names the process */
	}
	for (int i = 0; i < ng; i++)
		groups[i].shown_rows = o->limit && groups[i].nrows > o->limit ? o->limit :
										   groups[i].nrows;
	if (ng > 1)
		qsort(groups, (size_t)ng, sizeof(*groups), cmp_group);
	return ng;
}
