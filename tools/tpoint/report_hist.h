/* SPDX-License-Identifier: MIT */
/* tpoint report --hist: a hist: trigger's histogram over trace.dat files (report_hist.c). */
#ifndef TPOINT_REPORT_HIST_H
#define TPOINT_REPORT_HIST_H

#include <stdbool.h>
#include <stddef.h>

struct rsel;

/*
 * `hist` is "SYSTEM:EVENT:hist:keys=...[ if FILTER]", or several separated by ';'; prints the
 * histogram of each over the files' records, in one pass (JSON with `json`); with `sel`
 * (report_select.h), over the records it keeps. EXIT_OK, EXIT_FAIL or EXIT_USAGE, after
 * saying why.
 */
int report_hist(const char *verb, const char *hist, const char *const *files, size_t nr_files,
		bool json, struct rsel *sel);

#endif
