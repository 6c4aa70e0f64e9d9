/* SPDX-License-Identifier: MIT */
/* tpoint report --hist: a hist: trigger's histogram over trace.dat files (report_hist.c). */
#ifndef TPOINT_REPORT_HIST_H
#define TPOINT_REPORT_HIST_H

#include <stdbool.h>
#include <stddef.h>

/*
 * `hist` is "SYSTEM:EVENT:hist:keys=...[ if FILTER]"; prints the histogram of that event over
 * the files' records (JSON with `json`). EXIT_OK, EXIT_FAIL or EXIT_USAGE, after saying why.
 */
int report_hist(const char *verb, const char *hist, const char *const *files, size_t nr_files,
		bool json);

#endif
