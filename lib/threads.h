/* SPDX-License-Identifier: MIT */
/* The library's own threads and fork(). */
#ifndef TPOINT_THREADS_H
#define TPOINT_THREADS_H

#include <time.h>

/*
 * The library's own threads say they have begun, as their first statement, and fork()
 * waits for that (the *_fork_prepare() above): a thread still starting may be inside the
 * allocator (ASan's thread start-up allocates; glibc's takes no lock there), and a child
 * forked at that moment inherits the allocator's lock held, for ever. Bounded: a thread
 * that has not begun after a second is not waited for.
 */
static inline void tp_thread_begun(int *begun)
{
	__atomic_store_n(begun, 1, __ATOMIC_RELEASE);
}

static inline void tp_thread_wait_begun(const int *begun)
{
	for (int i = 0; i < 10000 && !__atomic_load_n(begun, __ATOMIC_ACQUIRE); i++)
		nanosleep(&(struct timespec){ 0, 100000 }, NULL);
}

#endif
