/* SPDX-License-Identifier: MIT */
/*
 * A process's event counters as its control socket sends them (CTL_STATS), parsed: shared by
 * `tpoint stat` and the program-events view of `tpoint top`.
 */
#ifndef TPOINT_STAT_ROWS_H
#define TPOINT_STAT_ROWS_H

enum { STAT_HITS, STAT_COND_SKIPPED, STAT_FILTERED, STAT_RECORDED, STAT_LOST, STAT_NCOUNTERS };

/* The JSON keys of the counters, in the order above (tpoint stat --json, tpoint top --json). */
extern const char *const stat_keys[STAT_NCOUNTERS];

struct stat_row {
	char event[160];
	unsigned long long v[STAT_NCOUNTERS];
	char condition[1024];
	unsigned long long usdt; /* USDT probes attached (the semaphore) */
};

/*
 * Parse the STATS text (cut up in place), keeping the events `globs` selects (NULL: all).
 * Returns the number of rows in *rows (malloc'ed), -1 when malformed.
 */
int stat_rows_parse(char *text, const char *globs, struct stat_row **rows);

/* The row of `event` in rows[0..n), or NULL. */
const struct stat_row *stat_rows_find(const struct stat_row *rows, int n, const char *event);

#endif
