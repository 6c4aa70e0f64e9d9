/* SPDX-License-Identifier: MIT */
/* lib/writer.c: per-thread state (thread_rec.h), the slow path, the counters. */
#ifndef TPOINT_WRITER_H
#define TPOINT_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <tpoint/tpoint.h>
#include "hidden.h"
#include "thread_rec.h"

HIDDEN struct thread_rec *tp_thread_list_head(void);
/* Set once at start (ustack_record.c): what a stacktrace trigger records after its event. */
extern HIDDEN void (*tp_record_stack_hook)(unsigned skip);
/*
 * Set when the first synthetic event is defined (synth_events.c): writes the synthetic
 * records that the hit just committed made (TRIGGER_FIRE_SYNTH; lib/synth_record.c).
 */
extern HIDDEN void (*tp_synth_flush_hook)(void);
/*
 * Set when a snapshot trigger is first set (snapshot_trigger.c): asks for a snapshot after
 * event `index` fired one, `clock` its record's time (tpoint_arch_clock()). Never blocks.
 */
extern HIDDEN void (*tp_snapshot_hook)(uint32_t index, uint64_t clock);
/* Sum of every thread's counters (live and exited) for one event index. */
HIDDEN void tp_counters_sum(uint32_t index, struct tpoint_counters *out);
HIDDEN int tp_writer_init(void);
/* After a recording stopped: make every thread leave its page at its next event. */
HIDDEN void tp_writer_detach_all(void);
HIDDEN void tp_writer_after_fork(void);
/* Records of event `index` too big for a page, since the process started (also lost). */
HIDDEN uint64_t tp_writer_too_big(uint32_t index);
/*
 * Committed records that will never reach a file (`len` bytes of a page's records, whole
 * records only) move from recorded to lost, in the calling thread's counters: totals are
 * sums over threads, so they come out exact whoever counts.
 */
HIDDEN void tp_writer_count_unrecorded(const char *records, uint64_t len);

#endif
