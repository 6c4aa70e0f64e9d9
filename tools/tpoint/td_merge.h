/* SPDX-License-Identifier: MIT */
/*
 * One cursor over trace.dat files: the records of every CPU of every buffer of every file
 * in one time line, each record checked by the file's reader (tracedat_read.c's cursor),
 * merged by lib/fmt/merge.c. What `tpoint report`, `report --json` and `convert --to json`
 * read, so that they show the same records in the same order. On equal times: the first
 * file given, then the first buffer (the top one), then the lowest CPU, as trace-cmd
 * report -i A -i B orders them (the tie rule: lib/fmt/merge.h).
 */
#ifndef TPOINT_TD_MERGE_H
#define TPOINT_TD_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracedat_read.h"

struct td_merge;

/* One record of the merged time line. */
struct td_merge_rec {
	size_t file;	 /* which of the files added, from 0 */
	size_t buffer;	 /* 0 the top buffer, else an instance */
	uint32_t cpu;
	uint64_t ts;	 /* ns, as trace-cmd shows them (tracedat_ts) */
	const unsigned char *data; /* the payload, common_type first */
	uint32_t size;
	long long missed; /* lost before it: 0 none, -1 an unknown number, else the count */
};

/*
 * Which records td_merge_next() hands out (a report's selection, report_select.h): true to
 * keep one. NULL keeps them all.
 */
typedef bool (*td_merge_keep_fn)(void *ctx, const struct td_merge_rec *r);

struct td_merge *td_merge_new(void);
/*
 * Only the records keep() keeps. A loss marked on a record left out is not lost with it: it
 * goes to the next record kept of the same CPU of the same buffer and file, added to its own
 * ("dropped" somewhere before it; an unknown number stays unknown), as `tpoint stream` does.
 */
void td_merge_select(struct td_merge *m, td_merge_keep_fn keep, void *ctx);
/* The next file, read whole: 0, or -1 out of memory. td must outlive the merge. */
int td_merge_add(struct td_merge *m, const struct tracedat *td);
/* 1 and *r filled with the earliest record left (valid until the next call), or 0 at the end. */
int td_merge_next(struct td_merge *m, struct td_merge_rec *r);
void td_merge_free(struct td_merge *m);

#endif
