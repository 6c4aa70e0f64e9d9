/* SPDX-License-Identifier: MIT */
/*
 * Which records of trace.dat files `tpoint report` shows (text and --json alike): -e GLOBS
 * with the -f EXPR after it (the selection of `tpoint stream` and `record -p`, select.h: the
 * same globs, lib/globs.c, and the same filters, lib/filter.c, compiled against each file's
 * own format of each event), --pid, --cpu and --from/--to. A record is shown when every one
 * given keeps it:
 *
 * - -e: its event is one a glob selects, and it passes the -f of a group that selects it
 *   (select.h's rules: the groups' filters joined with ||; an event a -f does not compile
 *   for keeps all its records, and is named); a record no format describes is left out;
 * - --pid: its common_pid is one of the list's (the thread id the line shows);
 * - --cpu: its CPU is one of the list's (N or N-M items);
 * - --from S / --to S: from <= its time < to, S in seconds as the report prints times: with
 *   up to 6 decimals its time as printed (rounded to the microsecond), so that
 *   "--from T1 --to T2" keeps the lines printed from T1 up to those before T2; with 7 to 9,
 *   its time in nanoseconds (the "ts" of --json). Consecutive windows never share a line.
 *
 * The records left out go through the merge's keep hook (td_merge_select()), which moves
 * their loss marks to the next record kept on the same CPU.
 */
#ifndef TPOINT_REPORT_SELECT_H
#define TPOINT_REPORT_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fmt/selection.h"
#include "td_merge.h"
#include "tracedat_read.h"

/* The long-only options' ids (opts_next() returns them). */
enum { RSEL_OPT_PID = 300, RSEL_OPT_CPU, RSEL_OPT_FROM, RSEL_OPT_TO };

struct filter;

/* What a file's events are, once the selection is compiled for it. */
struct rsel_file {
	const char *name;
	const struct tracedat *td;
	bool *selected;		/* by event id, 65536; NULL: every id (no -e) */
	struct filter **filter; /* by event id: what its records must pass, or NULL */
	bool foreign_order;	/* the file's byte order is not this machine's */
	uint64_t kept;		/* records shown */
};

struct rsel {
	struct selection sel; /* the -e/-f groups */
	int32_t *pids;
	size_t nr_pids;
	struct { uint32_t lo, hi; } *cpus;
	size_t nr_cpus;
	bool has_from, has_to;
	uint64_t from, to;	 /* ns */
	bool from_exact, to_exact; /* ns as given; else to the microsecond, as printed */
	const char *from_text, *to_text;
	struct rsel_file *files;
	size_t nr_files;
};

/*
 * A selection option (-e, -f or one of RSEL_OPT_*) with its value: 0, or the exit status
 * after saying what is wrong (EXIT_USAGE for a bad value, naming it).
 */
int rsel_option(struct rsel *s, const char *verb, int opt, const char *value);
/* Was any selection option given? */
bool rsel_active(const struct rsel *s);
/* The checks that need no file (--from before --to): 0, or EXIT_USAGE (said). */
int rsel_finish(struct rsel *s, const char *verb);
/* The next file the records come from (td_merge_add()'s order): 0, or EXIT_FAIL (said). */
int rsel_add_file(struct rsel *s, const char *verb, const struct tracedat *td, const char *name);
/*
 * Compile the selection for the files added (their formats): every -e selects an event of
 * one of them, every -f compiles for one of the events its -e selects, no --cpu is past every
 * file's CPUs, the times are in nanoseconds where --from/--to are given. 0, or EXIT_FAIL
 * (said). The files must outlive the selection's use.
 */
int rsel_prepare(struct rsel *s, const char *verb);
/* The keep hook for td_merge_select(), with the rsel as its context. */
bool rsel_keep(void *rsel, const struct td_merge_rec *r);
/*
 * After the records: "FILE: no record selected (of N in the file)" for each file with records
 * none of which was kept (a file with none is the caller's to name). EXIT_OK, or EXIT_FAIL when
 * no record of any file was kept (nothing matched).
 */
int rsel_end(const struct rsel *s, const char *verb);
/* The records in a file (checked: tracedat_open(), or conv_check_pages()). */
uint64_t rsel_records(const struct tracedat *td);
void rsel_free(struct rsel *s);

#endif
