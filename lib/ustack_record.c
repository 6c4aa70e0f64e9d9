/* SPDX-License-Identifier: MIT */
/*
 * ustack_record - a user stack recorded as the kernel records one: an ftrace:user_stack
 * record in the calling thread's current stream, right after what the thread recorded last
 * (the event a `stacktrace` trigger fired on), then the mappings that name it
 * (lib/ustack_maps.c). tpoint_record_user_stack() is the public form, as the kernel's
 * trace_dump_stack() is for its own code.
 *
 * Built with frame pointers (Makefile): the walk starts in these functions' frames.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "pool.h"
#include "ustack.h"

#define CREATE_TRACE_POINTS
#include "ustack_event.h"

/*
 * The process's id, kept: getpid() is a system call (1.5 us on this project's VM), and a
 * child after fork() forgets it (pthread_atfork(), set up at load, not in a handler).
 */
static pid_t tgid;

static void forget_tgid(void)
{
	__atomic_store_n(&tgid, 0, __ATOMIC_RELAXED);
}

__attribute__((constructor)) static void ustack_record_init(void)
{
	pthread_atfork(NULL, NULL, forget_tgid);
}

static unsigned current_tgid(void)
{
	pid_t p = __atomic_load_n(&tgid, __ATOMIC_RELAXED);

	if (!p) {
		p = getpid();
		__atomic_store_n(&tgid, p, __ATOMIC_RELAXED);
	}
	return (unsigned)p;
}

/*
 * Walk and record from the frame of the function this is inlined in, whose return address
 * is left out with `skip` more; the rest of the array is 0, which ends the stack for
 * readers, as the kernel's does.
 */
static inline __attribute__((always_inline)) unsigned record_stack(unsigned skip)
{
	uintptr_t pcs[TP_USTACK_DEPTH] = { 0 };
	unsigned n;

	if (!__atomic_load_n(&tp_active_pool, __ATOMIC_ACQUIRE))
		return 0; /* nothing records: nothing to walk for */
	n = tp_ustack_walk(pcs, TP_USTACK_DEPTH, skip + 1);
	__tpoint_emit_filtered_user_stack(current_tgid(), (const unsigned long *)pcs,
					  &TPOINT_EVENT_SYM(user_stack));
	tp_ustack_maps_note(pcs, n, current_tgid());
	return n;
}

__attribute__((noinline)) void tp_ustack_record(unsigned skip)
{
	record_stack(skip);
	tpoint_barrier(); /* no tail call: the walk starts in this frame */
}

__attribute__((noinline)) int tpoint_record_user_stack(void)
{
	int n;

	if (!trace_user_stack_enabled())
		return 0;
	n = (int)record_stack(0);
	tpoint_barrier();
	return n;
}
