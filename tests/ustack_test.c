// SPDX-License-Identifier: MIT
/*
 * ustack_test - the user stack walk (lib/ustack.c) and the recording a `stacktrace` trigger
 * calls (tp_ustack_record()), linked with libtpoint.a to reach them, built with frame
 * pointers: the callers in order, skip, the depth bound, the reads (direct inside the
 * stack, through the system call outside it), a function built without a frame pointer,
 * and tp_ustack_record() recording while ftrace:user_stack is off.
 *
 *	ustack_test		the checks; exit 0 when all pass
 *	ustack_test bench N	ns per walk of 8 frames and per frame read through
 *				process_vm_readv(), N rounds (no check: figures)
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <tpoint/tpoint.h>

#include "ustack.h"

static int checks, failures;
static volatile int sink;

static void check(bool ok, const char *what)
{
	checks++;
	if (!ok)
		failures++;
	printf("%s: %s\n", ok ? "ok" : "FAIL", what);
}

/* Where each function of the chain is: a return address is inside its caller (main is
 * longer). */
#define FN_SPAN 256

__attribute__((noinline)) static unsigned walk_c(uintptr_t *pcs, unsigned max, unsigned skip)
{
	unsigned n = tp_ustack_walk(pcs, max, skip);

	sink++;
	return n;
}

__attribute__((noinline)) static unsigned walk_b(uintptr_t *pcs, unsigned max, unsigned skip)
{
	unsigned n = walk_c(pcs, max, skip);

	sink++;
	return n;
}

__attribute__((noinline)) static unsigned walk_a(uintptr_t *pcs, unsigned max, unsigned skip)
{
	unsigned n = walk_b(pcs, max, skip);

	sink++;
	return n;
}

int main(int argc, char **argv);

static bool inside(uintptr_t pc, void *fn)
{
	return pc > (uintptr_t)fn && pc < (uintptr_t)fn + (fn == (void *)main ? 4096 : FN_SPAN);
}

__attribute__((noinline)) static unsigned deep(int levels, uintptr_t *pcs)
{
	unsigned n = levels ? deep(levels - 1, pcs) : tp_ustack_walk(pcs, TP_USTACK_DEPTH, 0);

	sink++;
	return n;
}

/* Built without a frame pointer: what the walk gets there (the first caller, always). */
__attribute__((noinline, optimize("omit-frame-pointer"))) static unsigned nofp(uintptr_t *pcs)
{
	unsigned n = tp_ustack_walk(pcs, TP_USTACK_DEPTH, 0);

	sink++;
	return n;
}

/*
 * A frame pointer into memory that is no stack: a chain of frames in a mapping, which the
 * walk does not follow (a chain does not leave its stack), with no system call.
 */
static uintptr_t *elsewhere;

__attribute__((noinline)) static unsigned corrupt_walk(uintptr_t *pcs)
{
	volatile uintptr_t *fp = __builtin_frame_address(0);
	uintptr_t saved = fp[0];
	unsigned n;

	fp[0] = (uintptr_t)elsewhere;
	__asm__ __volatile__("" ::: "memory");
	n = tp_ustack_walk(pcs, TP_USTACK_DEPTH, 0);
	__asm__ __volatile__("" ::: "memory");
	fp[0] = saved;
	return n;
}

/*
 * A thread whose first walk is in a signal handler on an alternate stack: it knows that
 * stack only, so the frames of the thread's own, where the chain goes on, are read through
 * process_vm_readv().
 */
static struct tp_ustack_reads alt_before, alt_after;
static unsigned alt_n;
static uintptr_t alt_pcs[TP_USTACK_DEPTH];

static void on_alt(int sig)
{
	(void)sig;
	tp_ustack_reads(&alt_before);
	alt_n = walk_a(alt_pcs, TP_USTACK_DEPTH, 0);
	tp_ustack_reads(&alt_after);
}

__attribute__((noinline)) static void *thread_alt(void *arg)
{
	stack_t ss = { .ss_size = 64 << 10 };
	struct sigaction sa;

	(void)arg;
	ss.ss_sp = mmap(NULL, ss.ss_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alt;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR2, &sa, NULL);
	pthread_kill(pthread_self(), SIGUSR2);
	sink++;
	return NULL;
}

/* Records of an event, by the counters. */
static uint64_t recorded(const char *system, const char *name)
{
	struct tpoint_event_stats st[64];
	int n = tpoint_stats(st, 64);

	for (int i = 0; i < n && i < 64; i++)
		if (!strcmp(st[i].system, system) && !strcmp(st[i].name, name))
			return st[i].recorded;
	return 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int bench(long rounds)
{
	uintptr_t pcs[TP_USTACK_DEPTH], buf[2];
	struct iovec local = { buf, sizeof(buf) }, remote = { pcs, sizeof(buf) };
	double t0 = now_ns();

	for (long i = 0; i < rounds; i++)
		deep(12, pcs);
	double t1 = now_ns();

	for (long i = 0; i < rounds; i++)
		walk_a(pcs, 1, 0);
	double t2 = now_ns();

	for (long i = 0; i < rounds; i++)
		process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	double t3 = now_ns();

	printf("walk of 8 frames: %.1f ns; of 1 frame: %.1f ns; per frame: %.1f ns\n",
	       (t1 - t0) / rounds, (t2 - t1) / rounds, ((t1 - t0) - (t2 - t1)) / rounds / 7);
	printf("a frame through process_vm_readv(): %.1f ns\n", (t3 - t2) / rounds);

	/* A whole stack recorded, as a trigger records it (the file thrown away). */
	if (tpoint_record_start("ustack-bench.dat") < 0)
		return 1;
	struct tp_ustack_reads b0, b1;

	tp_ustack_reads(&b0);
	double t4 = now_ns();

	for (long i = 0; i < rounds; i++)
		tp_ustack_record(0);
	double t5 = now_ns();

	tp_ustack_reads(&b1);
	tpoint_record_stop();
	unlink("ustack-bench.dat");
	printf("   reads a stack: %.2f direct, %.2f through the system call, %.2f refused\n",
	       (double)(b1.direct - b0.direct) / rounds, (double)(b1.syscall - b0.syscall) / rounds,
	       (double)(b1.refused - b0.refused) / rounds);
	printf("tp_ustack_record() (a stack of %u): %.1f ns\n", walk_a(pcs, TP_USTACK_DEPTH, 0) - 3,
	       (t5 - t4) / rounds);
	return 0;
}

int main(int argc, char **argv)
{
	uintptr_t pcs[TP_USTACK_DEPTH + 2];
	struct tp_ustack_reads r0, r1;
	unsigned n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 2 && !strcmp(argv[1], "bench"))
		return bench(atol(argv[2]));

	memset(pcs, 0, sizeof(pcs));
	n = walk_a(pcs, TP_USTACK_DEPTH, 0);
	check(n >= 4 && inside(pcs[0], walk_c) && inside(pcs[1], walk_b) && inside(pcs[2], walk_a) &&
	      inside(pcs[3], main), "callers innermost first: walk_c, walk_b, walk_a, main");
	memset(pcs, 0, sizeof(pcs));
	n = walk_a(pcs, TP_USTACK_DEPTH, 2);
	check(n >= 2 && inside(pcs[0], walk_a) && inside(pcs[1], main), "skip 2: walk_a, main first");
	n = walk_a(pcs, 2, 0);
	check(n == 2 && inside(pcs[1], walk_b), "max 2: two callers");

	memset(pcs, 0, sizeof(pcs));
	n = deep(20, pcs);
	check(n == TP_USTACK_DEPTH && pcs[TP_USTACK_DEPTH] == 0 && inside(pcs[7], deep),
	      "20 levels deep: 8 callers, no more written");

	tp_ustack_reads(&r0);
	walk_a(pcs, TP_USTACK_DEPTH, 0);
	tp_ustack_reads(&r1);
	check(r1.direct > r0.direct && r1.syscall == r0.syscall,
	      "frames on the thread's stack are read directly, with no system call");

	memset(pcs, 0, sizeof(pcs));
	n = nofp(pcs);
	/* Its own caller (main) is missing from the rest: the frame pointer it left alone
	 * is main's, whose frame holds the return into main's caller. */
	check(n >= 1 && inside(pcs[0], nofp), "no frame pointer: the first caller is still right");
	printf("   without a frame pointer: %u callers, the second %s main\n", n,
	       n > 1 && inside(pcs[1], main) ? "in" : "not in");

	/* A chain that leaves its stack is not followed. */
	struct tp_ustack_reads rr[2];

	elsewhere = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	elsewhere[0] = (uintptr_t)&elsewhere[4];
	elsewhere[1] = 0x2000;
	tp_ustack_reads(&rr[0]);
	memset(pcs, 0, sizeof(pcs));
	n = corrupt_walk(pcs);
	tp_ustack_reads(&rr[1]);
	check(n == 2 && inside(pcs[1], main) && rr[1].syscall == rr[0].syscall,
	      "a frame pointer out of the stack ends the walk, with no system call");

	/* Out of an alternate stack, onto the thread's, not known yet: through the system call. */
	pthread_t th;

	pthread_create(&th, NULL, thread_alt, NULL);
	pthread_join(th, NULL);
	printf("   from the alternate stack: %u callers, %llu read through the system call\n", alt_n,
	       (unsigned long long)(alt_after.syscall - alt_before.syscall));
	if (getenv("TPOINT_TEST_EMULATED")) /* qemu-user: no process_vm_readv(), the walk stops */
		check(alt_n >= 4 && inside(alt_pcs[3], on_alt),
		      "from an alternate stack (emulated: the handler's frames only)");
	else
		check(alt_n >= 6 && inside(alt_pcs[3], on_alt) &&
		      alt_after.syscall > alt_before.syscall,
		      "from an alternate stack onto the thread's: read through process_vm_readv()");

	/* The trigger's call: records while ftrace:user_stack is off. */
	struct tpoint_event_stats st[64];
	int nst, i;
	uint64_t before = 0, after = 0;

	if (tpoint_record_start("ustack.dat") < 0) {
		check(false, "a recording starts");
		return 1;
	}
	check(tpoint_record_user_stack() == 0, "the public call records nothing while the event is off");
	nst = tpoint_stats(st, 64);
	for (i = 0; i < nst && i < 64; i++)
		if (!strcmp(st[i].system, "ftrace") && !strcmp(st[i].name, "user_stack"))
			before = st[i].recorded;
	tp_ustack_record(0);
	tp_ustack_record(0);
	nst = tpoint_stats(st, 64);
	for (i = 0; i < nst && i < 64; i++)
		if (!strcmp(st[i].system, "ftrace") && !strcmp(st[i].name, "user_stack")) {
			after = st[i].recorded;
			check(!st[i].enabled, "ftrace:user_stack is still off");
		}
	check(after == before + 2, "tp_ustack_record() records (the trigger's way), counted");
	uint64_t maps0 = recorded("tpoint", "user_stack_map");

	check(maps0 > 0, "the first stack wrote the mappings");
	tp_ustack_maps_refresh();
	check(recorded("tpoint", "user_stack_map") == 2 * maps0,
	      "tp_ustack_maps_refresh() writes them again (for a snapshot)");
	check(tpoint_record_stop() == 0, "the recording ends");
	if (tpoint_record_start("ustack2.dat") < 0) {
		check(false, "a second recording starts");
		return 1;
	}
	maps0 = recorded("tpoint", "user_stack_map");
	tp_ustack_maps_refresh();
	check(recorded("tpoint", "user_stack_map") == maps0,
	      "a recording without stacks: tp_ustack_maps_refresh() writes nothing");
	check(tpoint_record_stop() == 0, "the second recording ends");

	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
