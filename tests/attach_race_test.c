// SPDX-License-Identifier: MIT
/*
 * attach_race_test - a recording stopped while a thread attaches to the library (its first
 * event). The attaching thread's record is on the list of threads, marked live, a moment
 * before it knows its thread's TLS; tpoint_record_stop() walks that list and reset every
 * live thread's streams through its TLS, and dereferenced NULL: the host program crashed
 * in tpoint_record_stop() (seen in a program that started threads while it stopped and
 * started recordings, once in a few thousand stops).
 *
 * The moment is made certain: this program defines syscall(), which libtpoint calls for the
 * new thread's id in that very moment, and holds the attaching thread there until the main
 * thread has stopped the recording.
 */
#define _GNU_SOURCE
#include "testutil.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/syscall.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_life.h>

static pthread_t attacher;
static int attacher_started, attaching, stopped;

/* Every syscall() passes through; the attaching thread's gettid waits for the stop. */
long syscall(long n, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;

	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	va_start(ap, n);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (n == SYS_gettid && __atomic_load_n(&attacher_started, __ATOMIC_ACQUIRE) &&
	    pthread_equal(pthread_self(), attacher)) {
		uint64_t t0 = tu_mono_ns();

		__atomic_store_n(&attaching, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&stopped, __ATOMIC_ACQUIRE) &&
		       tu_mono_ns() - t0 < 10000000000ull)
			usleep(1000);
	}
	return real(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static void *first_event(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&attacher_started, __ATOMIC_ACQUIRE)) /* `attacher` is set */
		usleep(100);
	trace_life_emit(1, 1);
	return NULL;
}

int main(void)
{
	uint64_t t0;
	int ret;

	REQUIRE(tpoint_enable("tpt_life:life_emit") == 1, "the event enabled");
	ret = tpoint_record_start("attach.dat");
	REQUIRE(ret == 0, "tpoint_record_start: %s", strerror(-ret));
	REQUIRE(pthread_create(&attacher, NULL, first_event, NULL) == 0, "pthread_create");
	__atomic_store_n(&attacher_started, 1, __ATOMIC_RELEASE);
	t0 = tu_mono_ns();
	while (!__atomic_load_n(&attaching, __ATOMIC_ACQUIRE) && tu_mono_ns() - t0 < 10000000000ull)
		usleep(1000);
	CHECK(__atomic_load_n(&attaching, __ATOMIC_ACQUIRE),
	      "the new thread reached its attach (its gettid)");
	ret = tpoint_record_stop();
	CHECK(ret == 0, "tpoint_record_stop() while a thread attaches: %s",
	      ret ? strerror(-ret) : "done");
	__atomic_store_n(&stopped, 1, __ATOMIC_RELEASE);
	pthread_join(attacher, NULL);
	/* The thread attached whole: its next recording takes its events. */
	ret = tpoint_record_start("attach2.dat");
	REQUIRE(ret == 0, "tpoint_record_start again: %s", strerror(-ret));
	trace_life_emit(2, 2);
	CHECK(tpoint_record_stop() == 0, "the second recording stops");
	unlink("attach.dat");
	unlink("attach2.dat");
	return tu_finish();
}
