/* SPDX-License-Identifier: MIT */
/*
 * The kernel's side of `tpoint record -k`: a private tracefs instance (kinstance.h) with the
 * selected events and filters, its per-CPU ring buffers read as raw pages (trace_pipe_raw)
 * by a thread of ours while the recording runs, into one file per CPU in the recording's
 * directory of ours; at the end, those pages as a tracedat_extra for the trace.dat writer
 * (kpages.c), so that the kernel's records and the program's go into one file.
 */
#ifndef TPOINT_KRECORD_H
#define TPOINT_KRECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "fmt/selection.h"
#include "tracedat.h"

struct krecord;

/*
 * Everything checked and made, tracing still off: the instance (stale ones of killed
 * recorders removed first), clock mono, the events of every group of -k GLOBS, each with
 * the -f after it (the kernel's filter on its events), or none. NULL with why in err:
 * nothing is left behind.
 */
struct krecord *krec_setup(const struct selection *k, char *err, size_t errlen);
/* --kernel-pids: only these processes' kernel events, and their children's. */
int krec_set_pids(struct krecord *kr, const pid_t *pids, size_t n, char *err, size_t errlen);
/*
 * The pages go into a private directory beside the file `near` (.tpoint-kernel.XXXXXX, one
 * kernel-cpuN.pages a CPU; removed by krec_free()); tracing on, the reader thread running.
 */
int krec_start(struct krecord *kr, const char *near, char *err, size_t errlen);
/* Tracing off; the thread reads what is left and stops; the kernel's counts are taken. */
void krec_stop(struct krecord *kr);
/* The recorded pages for tp_tracedat_write(); valid until krec_free(). */
int krec_extra(struct krecord *kr, struct tracedat_extra *x, char *err, size_t errlen);
/* What the kernel recorded and lost, after the file is written. */
void krec_summary(struct krecord *kr);
/* The instance removed, everything freed (NULL is fine). */
void krec_free(struct krecord *kr);

#endif
