/* SPDX-License-Identifier: MIT */
/*
 * The dirty rows of tpoint top as the user asked to see them: kept by -p, --comm and --path,
 * grouped by process, command or file (--by), processes gone for a refresh folded into one
 * "exited" group per command, groups and their rows sorted, at most --limit of each. Pure:
 * the text and JSON views both print what it orders.
 */
#ifndef TPOINT_TOP_GROUP_H
#define TPOINT_TOP_GROUP_H

#include <stdbool.h>
#include "top_dirty.h"

enum group_by { BY_PID, BY_COMM, BY_FILE };
enum sort_key { SORT_RATE, SORT_TOTAL, SORT_PID, SORT_NAME };

/* A process gone this many refreshes is folded: shown once on its own, then folded. */
#define FOLD_AFTER 2
/* A file not dirtied for this many refreshes leaves the view. */
#define IDLE_REFRESHES 10

struct group_opts {
	enum group_by by;
	enum sort_key sort;
	int limit;             /* groups, and rows in a group; 0: all */
	const char *comm_glob; /* fnmatch(3) globs; NULL: all */
	const char *path_glob; /* a row with no path never matches */
};

struct dirty_group {
	bool exited;           /* processes gone, folded (by pid only) */
	const struct dirty_row *key; /* its first row: the pid, comm or file it stands for */
	const char *comm;      /* the process's (its main thread's) name */
	double rate;
	unsigned long long events;
	int first, nrows;      /* its rows: index[first .. first + nrows) */
	int shown_rows;        /* of them, within the limit */
	int processes;         /* distinct processes among its rows */
};

/* Is the row kept by the options (not idle, -p, --comm, --path)? */
bool group_keeps(const struct group_opts *o, const struct dirty_row *r);
/*
 * Order rows[0..n): index[] (n entries) gets the kept rows, group by group; groups[] (n
 * entries) the groups, sorted. Returns the number of groups (all, however many --limit shows:
 * the caller shows min(limit, that)).
 */
int group_dirty(const struct group_opts *o, const struct dirty_row *rows, int n, int *index,
		struct dirty_group *groups);
/*
 * The screen's keys: --limit one step up (dir > 0) or down through 1, 5, 10, 20, 50, 100 and
 * all (0), from whatever it was; --by pid, comm, file in turn.
 */
int group_limit_step(int limit, int dir);
enum group_by group_by_next(enum group_by by);
/* The --by word's value; false when it is none of pid, comm, file. */
bool group_by_parse(const char *word, enum group_by *by);
extern const char *const group_by_names[];

#endif
