/* SPDX-License-Identifier: MIT */
/* tpoint report --hist: hist: triggers' histograms over trace.dat files (report_hist.c). */
#ifndef TPOINT_REPORT_HIST_H
#define TPOINT_REPORT_HIST_H

#include <stdbool.h>
#include <stddef.h>

struct rsel;

/* What --hist, --synthetic and --latency gave. */
struct report_hist_args {
	const char *hist;             /* "SYSTEM:EVENT:hist:keys=...[ if FILTER]", ';'-separated */
	const char *const *synthetic; /* --synthetic 'name type field[; type field...]' */
	size_t nsynthetic;
	const char *latency;          /* --latency SYS:START,SYS:END, or NULL */
	const char *key, *by;         /* --key FIELD, --by FIELD */
};

/*
 * Prints the histogram of each trigger of the list (and of --latency's) over the files'
 * records, in one pass (JSON with `json`); with `sel` (report_select.h), over the records it
 * keeps. EXIT_OK, EXIT_FAIL or EXIT_USAGE, after saying why.
 */
int report_hist(const char *verb, const struct report_hist_args *args, const char *const *files,
		size_t nr_files, bool json, struct rsel *sel);

#endif
