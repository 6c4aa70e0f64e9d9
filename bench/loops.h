/* SPDX-License-Identifier: MIT */
/*
 * The loops that hotpath.c and peers/peers.c both time, so that `make bench` and
 * `make bench-peers` measure the same code: the empty loop, and tpoint's 3 x u64 and string
 * events. Each is noinline, so that a case is one piece of code, timed as a whole; they take
 * timing.h's loop_fn arguments, and no per-thread state. The record floors stay in their
 * programs: each sizes its buffer to its own pool and threads.
 *
 * Include it after timing.h and trace/events/bench.h.
 */
#ifndef BENCH_LOOPS_H
#define BENCH_LOOPS_H

/* Argument values that cost one cycle or so to form, as a real call site's would. */
#define ARG_B(i) ((i) * 3)
#define ARG_C(i) ((i) ^ 0x5a5a5a5aull)

/* 31 characters and the NUL: the 32 bytes the string events carry. */
static const char str32[] = "/var/lib/tpoint/bench/file.0001";
_Static_assert(sizeof(str32) == 32, "the string case records 32 bytes");

static __attribute__((noinline)) void loop_empty(uint64_t n, int tid)
{
	(void)tid;
	for (uint64_t i = 0; i < n; i++)
		sink(i);
}

/* Enabled or disabled: the same code, only the event's enable word differs. */
static __attribute__((noinline)) void loop_u64x3(uint64_t n, int tid)
{
	(void)tid;
	for (uint64_t i = 0; i < n; i++) {
		trace_bench_u64x3(i, ARG_B(i), ARG_C(i));
		sink(i);
	}
}

static __attribute__((noinline)) void loop_str(uint64_t n, int tid)
{
	const char *s = str32;

	(void)tid;
	for (uint64_t i = 0; i < n; i++) {
		/* Launder the pointer: the call must look as if it could record any string. */
		__asm__ __volatile__("" : "+r"(s));
		trace_bench_str(s);
		sink(i);
	}
}

#endif
