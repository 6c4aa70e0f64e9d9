/* SPDX-License-Identifier: MIT */
/*
 * ustack - the calling thread's user stack: its return addresses by a frame-pointer walk
 * (lib/ustack.c), and their recording as the kernel records a user stack trace, an
 * ftrace:user_stack record (lib/ustack_record.c), named by the mappings recorded with it
 * (lib/ustack_maps.c).
 */
#ifndef TPOINT_USTACK_H
#define TPOINT_USTACK_H

#include <stdint.h>
#include "hidden.h"

/*
 * The frames a record holds: the kernel's user_stack record has 8 (`unsigned long
 * caller[8]`, FTRACE_STACK_ENTRIES' counterpart for user stacks), and a reader of its
 * format expects exactly that array.
 */
#define TP_USTACK_DEPTH 8

/*
 * Up to `max` return addresses of the calling thread, innermost first, into pcs: the first
 * is the address its caller returns to, less the `skip` innermost. Walks the frame-pointer
 * chain, reading a frame only where the thread's stack is known to be mapped (its
 * mapping, found once per thread and stack) or, elsewhere, through process_vm_readv(),
 * which fails instead of faulting. Stops at the first frame that is not above the one
 * before, outside the stack of the one before (but once, out of an alternate signal
 * stack), not aligned, or not readable. Async-signal-safe. Returns the count.
 */
HIDDEN unsigned tp_ustack_walk(uintptr_t *pcs, unsigned max, unsigned skip);

/* The walk's reads, for the tests and the bench: frames read from a known stack, through
 * the system call, and refused. */
struct tp_ustack_reads {
	uint64_t direct, syscall, refused;
};
HIDDEN void tp_ustack_reads(struct tp_ustack_reads *out);

/*
 * Record the calling thread's user stack into its current stream, as an ftrace:user_stack
 * record right after whatever it recorded last: what a `stacktrace` trigger does, after
 * the event's record is published and its level released (the kernel's post-trigger:
 * called with the level claimed, the stack goes to the next level's stream, as a signal
 * handler's records do, before the event). The library's own frames are left out when it
 * is libtpoint.so (up to 8: the stack starts where the program called the event), then
 * `skip` more. Recorded whether or not ftrace:user_stack is enabled, counted (and lost) as
 * that event's records. Nothing while no recording is on. Async-signal-safe.
 */
HIDDEN void tp_ustack_record(unsigned skip);

/*
 * After a stack was recorded: the process's executable mappings of files, as
 * tpoint:user_stack_map records, when a reader could not name these pcs from those already
 * recorded (lib/ustack_maps.c): the first stack of a recording, a pc in no mapping known (a
 * library loaded since; at most every 10 ms), or a second since they were last written (a
 * flight recorder keeps the last ones only). One thread writes them at a time; `tgid` is
 * the process's.
 */
HIDDEN void tp_ustack_maps_note(const uintptr_t *pcs, unsigned n, unsigned tgid);

/*
 * The mappings written again now, if this recording holds stacks: for a snapshot of a
 * flight recorder, whose oldest pages (and the mappings written with the first stacks) are
 * gone, to call before it copies the pages. Async-signal-safe.
 */
HIDDEN void tp_ustack_maps_refresh(void);

#endif
