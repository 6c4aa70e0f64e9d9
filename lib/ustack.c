/* SPDX-License-Identifier: MIT */
/*
 * ustack - the calling thread's user stack, by its frame-pointer chain (x86-64 and arm64
 * alike: a frame starts with the caller's frame pointer, then the return address).
 *
 * A frame pointer may be anything: code built without frame pointers uses the register for
 * data, a corrupt stack holds garbage. So no frame is read unless it is known to be mapped:
 * inside the mapping of the stack the walk runs on (found in /proc/self/maps once per
 * thread and stack, kept in the thread's TLS), or else read through process_vm_readv(),
 * which returns EFAULT where a load would fault. The chain must go up the stack it is on
 * (each frame above the one before: no loop; none outside it), but once, out of a signal
 * handler's alternate stack (which the walk knows, from when it learned that stack). So
 * the system call reads only where the walk knows no stack (no /proc) or leaves an
 * alternate stack for one it has not learned yet: it costs 1-10 us a frame on this
 * project's VM, a frame read directly some 10 ns.
 *
 * Async-signal-safe: system calls and the thread's own TLS only. A handler that interrupts
 * the walk while it learns its thread's stack finds the ranges being changed and reads
 * through the system call instead.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "procmaps.h"
#include "ustack.h"

#define FRAME_BYTES (2 * sizeof(uintptr_t)) /* the caller's frame pointer, the return address */

struct range {
	uintptr_t lo, hi;
	bool alt; /* the thread's alternate signal stack when it was learned */
};

/*
 * The thread's stacks known to be mapped, the newest first: its own and, say, a signal
 * handler's alternate stack. `seq` is odd while they change; the thread alone writes them,
 * and a handler that finds it odd neither reads nor changes them.
 */
struct known_stacks {
	unsigned seq;
	struct range r[2];
	struct tp_ustack_reads reads;
};
static __thread struct known_stacks known __attribute__((tls_model("initial-exec")));

#define barrier() __asm__ __volatile__("" ::: "memory")

/* A copy of the known ranges; none while they change under us. */
static void known_copy(struct range out[2])
{
	unsigned seq = known.seq;

	barrier();
	if (seq & 1) {
		memset(out, 0, 2 * sizeof(*out));
		return;
	}
	memcpy(out, known.r, 2 * sizeof(*out));
	barrier();
	if (known.seq != seq)
		memset(out, 0, 2 * sizeof(*out));
}

static bool in_range(const struct range r[2], uintptr_t p, size_t len)
{
	for (int i = 0; i < 2; i++)
		if (p >= r[i].lo && p < r[i].hi && r[i].hi - p >= len)
			return true;
	return false;
}

/* Does the chain leave the known stack fp is on for next? */
static bool leaves_known(const struct range r[2], uintptr_t fp, uintptr_t next)
{
	for (int i = 0; i < 2; i++)
		if (fp >= r[i].lo && fp < r[i].hi)
			return next < r[i].lo || next >= r[i].hi;
	return false;
}

/* Is fp on an alternate signal stack, and next off it: a handler's frame to the code it
 * interrupted? Known when the stack was learned: no system call on the walk's way. */
static bool leaves_altstack(const struct range r[2], uintptr_t fp, uintptr_t next)
{
	for (int i = 0; i < 2; i++)
		if (fp >= r[i].lo && fp < r[i].hi)
			return r[i].alt && (next < r[i].lo || next >= r[i].hi);
	return false;
}

struct find_ctx {
	uintptr_t sp;
	struct range found;
};

static bool find_mapping(void *ctx, const struct tp_map *m)
{
	struct find_ctx *f = ctx;

	if (f->sp < m->lo || f->sp >= m->hi)
		return true;
	if (m->readable)
		f->found = (struct range){ m->lo, m->hi, false };
	return false;
}

/* Learn the mapping that holds sp (the walk's own frame): one read of /proc/self/maps. */
static void learn_stack(uintptr_t sp)
{
	struct find_ctx f = { .sp = sp };

	if (known.seq & 1)
		return; /* we interrupted our thread learning it: leave it be */
	stack_t ss;

	if (tp_maps_each(find_mapping, &f) < 0 || !f.found.hi)
		return;
	f.found.alt = sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK) &&
		      sp - (uintptr_t)ss.ss_sp < ss.ss_size;
	known.seq++;
	barrier();
	known.r[1] = known.r[0];
	known.r[0] = f.found;
	barrier();
	known.seq++;
}

/* Our own memory through the kernel, which says EFAULT where a load would fault. */
static bool read_checked(uintptr_t p, uintptr_t out[2])
{
	struct iovec local = { out, FRAME_BYTES };
	struct iovec remote = { (void *)p, FRAME_BYTES };

	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)FRAME_BYTES;
}

/*
 * Not instrumented by AddressSanitizer: a frame pointer that a function built without them
 * left may point anywhere in the stack, a redzone of an instrumented frame included, which
 * is mapped memory and harmless to read.
 */
__attribute__((no_sanitize_address)) static bool read_frame(const struct range r[2], uintptr_t fp,
							    uintptr_t out[2])
{
	if (in_range(r, fp, FRAME_BYTES)) {
		const volatile uintptr_t *f = (const volatile uintptr_t *)fp;

		out[0] = f[0];
		out[1] = f[1];
		known.reads.direct++;
		return true;
	}
	if (read_checked(fp, out)) {
		known.reads.syscall++;
		return true;
	}
	known.reads.refused++;
	return false;
}

/* The known range a whole frame at fp is in, as [lo, last] of its frames' addresses; or
 * the empty [1, 0]. */
static void range_of(const struct range r[2], uintptr_t fp, uintptr_t *lo, uintptr_t *last)
{
	*lo = 1;
	*last = 0;
	for (int i = 0; i < 2; i++)
		if (fp >= r[i].lo && fp < r[i].hi && r[i].hi - fp >= FRAME_BYTES) {
			*lo = r[i].lo;
			*last = r[i].hi - FRAME_BYTES;
			return;
		}
}

/*
 * The common frame: on the range the walk is on, read directly, and the next one above it on
 * the same range. Anything else (a first frame elsewhere, a chain that leaves its range or
 * an alternate stack) takes read_frame() and the checks of the loop below. Not instrumented
 * by AddressSanitizer, for read_frame()'s reason.
 */
__attribute__((noinline, no_sanitize_address)) unsigned tp_ustack_walk(uintptr_t *pcs,
								       unsigned max,
								       unsigned skip)
{
	uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
	struct range r[2];
	bool crossed = false;
	unsigned n = 0;
	uintptr_t lo, last; /* the range fp is on: a frame at [lo, last] is whole in it */

	known_copy(r);
	if (!in_range(r, fp, FRAME_BYTES)) {
		learn_stack(fp);
		known_copy(r);
	}
	range_of(r, fp, &lo, &last);
	while (n < max) {
		uintptr_t frame[2];

		if (fp & (sizeof(uintptr_t) - 1))
			break;
		if (fp >= lo && fp <= last) {
			const volatile uintptr_t *f = (const volatile uintptr_t *)fp;

			frame[0] = f[0];
			frame[1] = f[1];
			known.reads.direct++;
		} else if (!read_frame(r, fp, frame)) {
			break;
		}
		if (!frame[1])
			break;
		if (skip)
			skip--;
		else
			pcs[n++] = frame[1];
		/*
		 * Up the stack it is on, or once out of a handler's alternate stack: never a
		 * loop, and no system call for a frame pointer that a function built without
		 * them left (code that uses the register for data, libc's start of main): a
		 * chain does not leave its stack. The outermost frame's is 0 (_start clears it).
		 */
		if (!frame[0])
			break;
		if (frame[0] > fp && frame[0] >= lo && frame[0] <= last) {
			fp = frame[0]; /* the common way: up the same range */
			continue;
		}
		if ((frame[0] <= fp || leaves_known(r, fp, frame[0])) &&
		    (crossed || !(crossed = leaves_altstack(r, fp, frame[0]))))
			break;
		fp = frame[0];
		range_of(r, fp, &lo, &last);
	}
	return n;
}

void tp_ustack_reads(struct tp_ustack_reads *out)
{
	*out = known.reads;
}
