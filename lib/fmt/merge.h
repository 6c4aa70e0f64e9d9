/* SPDX-License-Identifier: MIT */
/*
 * The time-ordered merge: records of several sources, each read in its own order, handed
 * on earliest first. One merge for every consumer: the assembler (lib/tracedat.c, a CPU's
 * threads and the kernel's records into that CPU's pages), `tpoint report`, `report --json`
 * and `convert` (tools/tpoint/td_merge.c: the CPUs of every buffer of every file), and the
 * reorder buffer of `tpoint stream` (tools/tpoint/stream.c). Needs only libc.
 *
 * THE TIE RULE. Records with equal time stamps come in the order of their sources' `tie`
 * numbers, lowest first; a source's own records keep their order. Every consumer numbers
 * its sources in the order trace-cmd reads them (tracecmd_iterate_events_multi(): the
 * first file, then the first buffer, then the lowest CPU), so that with equal times
 *	report, report --json, convert	file on the command line, then buffer (the top one
 *					first, instances in the file's order), then CPU
 *	the assembler			a CPU's streams by stream number (the order of the
 *					spools, then of the threads in them), the kernel's last
 *	stream				the order the records were read in
 * Equal (time, tie) pairs never meet: each source has its own number.
 */
#ifndef TPOINT_FMT_MERGE_H
#define TPOINT_FMT_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A source's current record, as the merge orders it: embedded in the consumer's source. */
struct tp_merge_src {
	uint64_t ns;  /* its time */
	uint64_t tie; /* the source's number: on equal times, the lower first */
};

/* Does a's record come before b's? The one statement of the tie rule. */
static inline bool tp_merge_before(const struct tp_merge_src *a, const struct tp_merge_src *b)
{
	return a->ns < b->ns || (a->ns == b->ns && a->tie < b->tie);
}

/* The sources that have a record, in a binary heap (earliest at the top). */
struct tp_merge {
	struct tp_merge_src **heap;
	size_t n, cap;
};

/* Room for max sources to start with (it grows): 0, or -1 out of memory. */
int tp_merge_init(struct tp_merge *m, size_t max);
/* A source with a record (its ns and tie set) joins: 0, or -1 out of memory. */
int tp_merge_add(struct tp_merge *m, struct tp_merge_src *s);
/* The source whose record comes next, or NULL when none has one left. */
static inline struct tp_merge_src *tp_merge_top(const struct tp_merge *m)
{
	return m->n ? m->heap[0] : NULL;
}
/*
 * The top source has been read: it moved to its next record (has: its ns is that record's)
 * or has none left (!has: it leaves the merge).
 */
void tp_merge_advanced(struct tp_merge *m, bool has);
void tp_merge_free(struct tp_merge *m);

#endif
