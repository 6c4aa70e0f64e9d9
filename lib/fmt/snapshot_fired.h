/* SPDX-License-Identifier: MIT */
/*
 * What fired a snapshot trigger's file: the text of its trace.dat option
 * TD_OPT_TPOINT_SNAPSHOT (docs/TRACEDAT-FORMAT.md), "SYSTEM:EVENT<tab>NS<tab>TID\n" and a
 * NUL, NS the record's time as the file's records are stamped. Written by the trace.dat
 * writer (lib/tracedat_meta.c), read by `tpoint report` (its header line, and the JSON key
 * "snapshot_fired" on that record). Pure: libc only.
 */
#ifndef TPOINT_FMT_SNAPSHOT_FIRED_H
#define TPOINT_FMT_SNAPSHOT_FIRED_H

#include <stddef.h>
#include <stdint.h>

#define SNAPSHOT_FIRED_EVENT_MAX 160 /* "system:event" and its NUL, at most */

struct snapshot_fired {
	char event[SNAPSHOT_FIRED_EVENT_MAX]; /* "system:event" */
	uint64_t ns;
	uint32_t tid;
};

/* The option's bytes, NUL included, into buf: their count, or 0 if they do not fit. */
size_t tp_snapshot_fired_format(char *buf, size_t len, const struct snapshot_fired *f);
/* The option's bytes: 0, or -1 when they are not that text (a damaged or foreign option). */
int tp_snapshot_fired_parse(const void *data, size_t size, struct snapshot_fired *out);

#endif
