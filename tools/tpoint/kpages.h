/* SPDX-License-Identifier: MIT */
/*
 * The kernel's ring-buffer pages as a recording kept them (one file of raw pages per CPU, as
 * trace_pipe_raw hands them out), read back record by record for the trace.dat writer
 * (tracedat_extra's next()). Every record form the kernel writes is read: data records of
 * either header form, padding, time extends and absolute time stamps; the pages' lost-events
 * marks become the records' lost_before. Pages are the kernel's writing, but a page that does
 * not decode is skipped from the bad record on, and counted, rather than trusted.
 */
#ifndef TPOINT_KPAGES_H
#define TPOINT_KPAGES_H

#include <stdint.h>
#include "tracedat.h"

struct kpages;

/* DIR/kernel-cpuN.pages for N < ncpus (a missing one is empty), pages of page_size bytes. */
struct kpages *kpages_open(const char *dir, int ncpus, int page_size, char *err, size_t errlen);
/* tracedat_extra's next(): ctx is the struct kpages. */
int kpages_next(void *ctx, uint32_t cpu, struct tracedat_extra_rec *rec);
/* Back to every CPU's first record. */
void kpages_rewind(struct kpages *kp);
/* Records per event id (count[id], 65536 entries), by one pass over every page. */
void kpages_count(struct kpages *kp, uint64_t *count);
/* Pages that did not decode to their end; pages marked with events lost before them. */
uint64_t kpages_bad(const struct kpages *kp);
uint64_t kpages_lost_marks(const struct kpages *kp);
void kpages_close(struct kpages *kp);

#endif
