/* SPDX-License-Identifier: MIT */
/* tracedat.c: spool files -> trace.dat v6, or v7 compressed. */
#ifndef TPOINT_TRACEDAT_H
#define TPOINT_TRACEDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hidden.h"

struct tracedat_event {
	char *system, *name, *condition;
	uint64_t hits, cond_skipped, filtered, recorded, lost;
	uint64_t too_big; /* of lost: records too big for a page */
	bool refused;     /* selected, but kept off: its print format cannot be rendered */
	bool kernel;      /* the kernel's (tracedat_extra), not a program's */
	int reg_error;    /* selected, but kept off: its TRACE_EVENT_FN reg() returned this */
	/*
	 * A process that recorded it ended without writing its counters (killed by a signal,
	 * _exit(), exec): its counts are unknown, and are left out of the file's statistics.
	 */
	bool uncounted;
};
struct tracedat_result {
	uint64_t events; /* records written */
	uint64_t lost;   /* lost, by the counters, or by the pages' marks if they say more */
	uint64_t lost_marked; /* of them, those the pages mark where they happened */
	struct tracedat_event *ev; /* every event the spools describe, with its counters */
	size_t nev;
	uint32_t big_cpu;        /* the CPU with the most records in the file, */
	uint64_t big_cpu_bytes;  /* and their bytes */
	/*
	 * "PATH: offset N: what\n" lines, or NULL: what of the spools could not be read (the
	 * file holds all the rest), and the spools that end without their end mark (a process
	 * killed, or a file cut short at a chunk's end: nothing says which).
	 */
	char *damage, *unfinished;
	size_t uncounted; /* spools whose process's counters are missing (see above) */
};
HIDDEN void tp_tracedat_result_free(struct tracedat_result *res);
/* What a reader of the file should know about its size, or NULL (trace-cmd's 2 GiB limit). */
HIDDEN const char *tp_tracedat_size_warning(const struct tracedat_result *res, char *buf,
					    size_t len);
HIDDEN int tp_tracedat_from_spools(const char *out_path, const char *const *spools, int nspools,
				   struct tracedat_result *res, char *err, size_t errlen);

/*
 * The same, with only what a consumer selected (tpoint record -p): `event` is asked once per
 * event of the spools, with its tracefs format text; false leaves it out of the file (its
 * format, counts and records), true keeps the records that pass *f (NULL: all; freed here).
 * A record left out by *f counts as filtered, no longer as recorded.
 */
struct filter;
struct tracedat_select {
	void *ctx;
	uint64_t since; /* CLOCK_MONOTONIC ns: older records are left out (what was in memory) */
	bool (*event)(void *ctx, const char *system, const char *name, const char *format,
		      struct filter **f);
};
HIDDEN int tp_tracedat_from_spools_select(const char *out_path, const char *const *spools,
					  int nspools, const struct tracedat_select *sel,
					  struct tracedat_result *res, char *err, size_t errlen);
/*
 * Records from elsewhere than a spool: the kernel's (tpoint record -k, tools/tpoint/kpages.c).
 * Its events keep their own ids (the kernel's, below TPOINT_FIRST_ID: never a program's),
 * system and format text, and their records their CPUs; next() hands out each CPU's records
 * in time order, and they are merged by time with the spools' records of that CPU. Their
 * counts go into the STATS option (recorded, and no per-event loss: the kernel counts its
 * losses per CPU, which `stats` carries as option TD_OPT_TPOINT_KERNEL).
 */
struct tracedat_extra_event {
	const char *system, *name;
	const char *format; /* the format text from "format:" on */
	uint16_t id;
	uint64_t recorded;  /* its records that next() hands out */
};
struct tracedat_extra_rec {
	uint64_t ns;         /* CLOCK_MONOTONIC */
	const char *data;    /* the payload, common_type first */
	uint32_t size;       /* a multiple of 8, at most TPOINT_MAX_PAYLOAD */
	uint64_t lost_before; /* records lost before this one, if known */
	bool lost_unknown;   /* records lost before this one, how many is not known */
};
struct tracedat_extra {
	const struct tracedat_extra_event *events;
	size_t nevents;
	uint32_t ncpus;
	void *ctx;
	/* CPU cpu's next record: 1, or 0 when it has no more. Called for each CPU in turn. */
	int (*next)(void *ctx, uint32_t cpu, struct tracedat_extra_rec *rec);
	const char *cmdlines; /* "PID COMM\n" lines for pids no spool names, or NULL */
	const char *stats;    /* the text of option TD_OPT_TPOINT_KERNEL, or NULL */
};
/*
 * A snapshot trigger's file (lib/snapshot_trigger.c): the event and the record that fired it,
 * said in option TD_OPT_TPOINT_SNAPSHOT; no record after that one goes into the file, so that
 * it holds what the buffers held when the trigger fired.
 */
struct tracedat_fired {
	const char *event; /* "system:name" */
	uint32_t tid;
	uint64_t clock;    /* the record's raw time (tpoint_arch_clock()), as the spool's */
};
/* What tp_tracedat_write() writes, from what. */
struct tp_codec;
struct tracedat_write_opts {
	const char *out_path;
	const char *const *spools; /* the processes' recordings */
	int nspools;
	const struct tracedat_select *sel;  /* NULL: everything the spools hold */
	const struct tracedat_extra *extra; /* NULL: no kernel records */
	const struct tp_codec *codec; /* NULL: version 6; else version 7 compressed with it */
	/*
	 * 0: each spool is read to its end. Else the last one is still being written (a flush,
	 * tp_spool_sync()) and is read up to here: what follows may be a write under way.
	 */
	uint64_t last_spool_synced;
	const struct tracedat_fired *fired; /* NULL: not a snapshot trigger's file */
};
HIDDEN int tp_tracedat_write(const struct tracedat_write_opts *o, struct tracedat_result *res,
			     char *err, size_t errlen);

#endif
