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
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "pool.h"
#include "procmaps.h"
#include "ustack.h"
#include "writer.h"

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
	/* A stacktrace trigger records the stack after its event (lib/writer.c). */
	__atomic_store_n(&tp_record_stack_hook, tp_ustack_record, __ATOMIC_RELAXED);
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
 * The library's own code, when it is an object of its own (libtpoint.so): the frames of
 * its functions (the trigger's path, built with or without frame pointers, tail calls or
 * not) are left out of a stack, which starts in the program. Linked into the program
 * (libtpoint.a), its code is the program's: nothing is left out but `skip`. Learned once,
 * from /proc/self/maps and /proc/self/exe; a thread that finds another learning it leaves
 * nothing out this time.
 */
static uintptr_t lib_lo, lib_hi;
static int lib_state; /* 0 not learned, 1 being learned, 2 learned */

struct lib_ctx {
	uintptr_t pc;
	struct tp_map m;
	bool found;
};

static bool find_lib(void *ctx, const struct tp_map *m)
{
	struct lib_ctx *c = ctx;

	if (c->pc < m->lo || c->pc >= m->hi)
		return true;
	c->m = *m;
	c->found = true;
	return false;
}

static void learn_lib(void)
{
	int expect = 0;
	struct lib_ctx c = { .pc = (uintptr_t)&tp_ustack_record };
	char exe[TP_MAPS_PATH_MAX];
	ssize_t n;

	if (!__atomic_compare_exchange_n(&lib_state, &expect, 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (tp_maps_each(find_lib, &c) == 0 && c.found && c.m.executable && n > 0 &&
	    ((exe[n] = '\0'), strcmp(exe, c.m.path) != 0)) {
		lib_lo = c.m.lo;
		lib_hi = c.m.hi;
	}
	__atomic_store_n(&lib_state, 2, __ATOMIC_RELEASE);
}

static bool in_lib(uintptr_t pc)
{
	return __atomic_load_n(&lib_state, __ATOMIC_ACQUIRE) == 2 && pc >= lib_lo && pc < lib_hi;
}

/* Frames of the library's own a stack may start with: the trigger's path. */
#define LIB_FRAMES_MAX 8

/*
 * Walk and record from the frame of the function this is inlined in, whose return address
 * is left out, then the library's frames, then `skip` more; the rest of the array is 0,
 * which ends the stack for readers, as the kernel's does.
 */
static inline __attribute__((always_inline)) unsigned record_stack(unsigned skip)
{
	uintptr_t all[TP_USTACK_DEPTH + LIB_FRAMES_MAX] = { 0 }, pcs[TP_USTACK_DEPTH] = { 0 };
	unsigned n, first = 0, kept = 0;

	if (!__atomic_load_n(&tp_active_pool, __ATOMIC_ACQUIRE))
		return 0; /* nothing records: nothing to walk for */
	if (!__atomic_load_n(&lib_state, __ATOMIC_RELAXED))
		learn_lib();
	n = tp_ustack_walk(all, TP_USTACK_DEPTH + LIB_FRAMES_MAX, 1);
	while (first < n && first < LIB_FRAMES_MAX && in_lib(all[first]))
		first++;
	first += skip;
	for (; first < n && kept < TP_USTACK_DEPTH; first++)
		pcs[kept++] = all[first];
	__tpoint_emit_filtered_user_stack(current_tgid(), (const unsigned long *)pcs,
					  &TPOINT_EVENT_SYM(user_stack));
	tp_ustack_maps_note(pcs, kept, current_tgid());
	return kept;
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
