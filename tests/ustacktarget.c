// SPDX-License-Identifier: MIT
/*
 * tests/ustack.sh's program, built with frame pointers: a known call chain
 * stack_a() -> stack_b() -> stack_c() records an event and its user stack
 * (tpoint_record_user_stack()), from the main thread, from a signal handler (on the
 * thread's stack and on an alternate one), from 16 threads at once, and through frame
 * pointers made corrupt on purpose.
 *
 *	ustacktarget chain | signal | threads N | corrupt | fork | loop SECONDS
 *
 * Prints "frames N" for each stack the chain recorded (the callers tpoint_record_user_stack()
 * returned), so that the test knows what the file must hold.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <tpoint/tpoint.h>

#define CREATE_TRACE_POINTS
#include "trace/events/tpt_ustack.h"

/* Each function does something after its call, so that no call is a tail call. */
static volatile int sink;

__attribute__((noinline)) static int stack_c(int where)
{
	int n;

	trace_ustack_hit(where);
	n = tpoint_record_user_stack();
	sink++;
	return n;
}

__attribute__((noinline)) static int stack_b(int where)
{
	int n = stack_c(where);

	sink++;
	return n;
}

__attribute__((noinline)) static int stack_a(int where)
{
	int n = stack_b(where);

	sink++;
	return n;
}

static volatile sig_atomic_t handler_frames = -1;

static void on_signal(int sig)
{
	(void)sig;
	handler_frames = stack_a(2);
}

/* The signal arrives in the middle of a chain of the program's own. */
__attribute__((noinline)) static void signal_d(void)
{
	raise(SIGUSR1);
	sink++;
}

__attribute__((noinline)) static void signal_e(void)
{
	signal_d();
	sink++;
}

static void run_signal(int onstack)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = onstack ? SA_ONSTACK : 0;
	sigemptyset(&sa.sa_mask);
	if (onstack) {
		stack_t ss = { .ss_size = 64 << 10 };

		ss.ss_sp = mmap(NULL, ss.ss_size, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (ss.ss_sp == MAP_FAILED || sigaltstack(&ss, NULL) < 0) {
			perror("sigaltstack");
			exit(1);
		}
	}
	sigaction(SIGUSR1, &sa, NULL);
	handler_frames = -1;
	signal_e();
	printf("frames %d\n", (int)handler_frames);
}

static pthread_barrier_t start;

static void *thread_main(void *arg)
{
	long rounds = (long)(intptr_t)arg;
	int least = 8;

	pthread_barrier_wait(&start);
	for (long i = 0; i < rounds; i++) {
		int n = stack_a(3);

		if (n < least)
			least = n;
	}
	return (void *)(intptr_t)least;
}

static void run_threads(int nthreads, long rounds)
{
	pthread_t t[64];

	if (nthreads > 64)
		nthreads = 64;
	pthread_barrier_init(&start, NULL, (unsigned)nthreads);
	for (int i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, thread_main, (void *)(intptr_t)rounds);
	for (int i = 0; i < nthreads; i++) {
		void *least;

		pthread_join(t[i], &least);
		printf("thread least %d\n", (int)(intptr_t)least);
	}
}

/*
 * The frame pointer this function saved for its caller replaced with `bad` while the stack
 * is recorded, and put back before it returns (its epilogue reads it).
 */
__attribute__((noinline)) static int corrupt_frame(uintptr_t bad)
{
	/* volatile: the compiler must not drop the store that puts it back, in memory that is
	 * no object of the program's */
	volatile uintptr_t *fp = __builtin_frame_address(0);
	uintptr_t saved = fp[0];
	int n;

	fp[0] = bad;
	__asm__ __volatile__("" ::: "memory");
	trace_ustack_hit(4);
	n = tpoint_record_user_stack();
	__asm__ __volatile__("" ::: "memory");
	fp[0] = saved;
	return n;
}

static void run_corrupt(void)
{
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	/* A readable page of garbage, above and below the stack alike: frames that chain. */
	uintptr_t *junk = malloc(4096);
	void *gone = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	for (int i = 0; i < 512; i++)
		junk[i] = (uintptr_t)&junk[(i * 7 + 3) % 512] | (i & 1);
	printf("corrupt %d\n", corrupt_frame(here + (64u << 20))); /* past the stack's top */
	printf("corrupt %d\n", corrupt_frame(here + 3)); /* not aligned */
	printf("corrupt %d\n", corrupt_frame((uintptr_t)gone)); /* mapped, not readable */
	printf("corrupt %d\n", corrupt_frame((uintptr_t)junk)); /* readable garbage */
	printf("corrupt %d\n", corrupt_frame(UINTPTR_MAX - 7)); /* the end of the space */
	printf("corrupt %d\n", corrupt_frame(8)); /* the first page */

	/* Garbage above the frame, in the stack: three frames up, then back down to the first
	 * (a loop the walk must cut), each with a return address that is nothing. */
	uintptr_t up[8];

	for (int i = 0; i < 8; i += 2) {
		up[i] = (uintptr_t)&up[i + 2];
		up[i + 1] = 0x1000 + (uintptr_t)i;
	}
	up[6] = (uintptr_t)&up[0];
	printf("corrupt %d\n", corrupt_frame((uintptr_t)up));
	sink += (int)up[7];
	free(junk);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "chain";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "chain")) {
		printf("frames %d\n", stack_a(1));
	} else if (!strcmp(mode, "signal")) {
		run_signal(0);
		run_signal(1);
	} else if (!strcmp(mode, "threads")) {
		run_threads(argc > 2 ? atoi(argv[2]) : 16, argc > 3 ? atol(argv[3]) : 100);
	} else if (!strcmp(mode, "corrupt")) {
		run_corrupt();
	} else if (!strcmp(mode, "fork")) {
		/* A stack in the parent, then one in a child, whose mappings are its own. */
		pid_t child;
		int status;

		printf("frames %d\n", stack_a(6));
		child = fork();
		if (child == 0) {
			printf("frames %d\n", stack_a(7));
			exit(0);
		}
		if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			return 1;
	} else if (!strcmp(mode, "loop")) {
		/* For tpoint record -p: a stack every 10 ms for the seconds asked. */
		int rounds = (argc > 2 ? atoi(argv[2]) : 3) * 100;

		printf("ready %d\n", (int)getpid());
		for (int i = 0; i < rounds; i++) {
			stack_a(5);
			usleep(10000);
		}
	} else {
		fprintf(stderr, "usage: ustacktarget chain|signal|threads [N [ROUNDS]]|corrupt|fork|loop [S]\n");
		return 2;
	}
	return 0;
}
