// SPDX-License-Identifier: MIT
/*
 * usdttarget - a program whose events bpftrace, perf and gdb attach to as USDT probes, for
 * tests/usdt.sh and tests/usdt_stress.sh. Built twice: with load-and-branch call sites, and
 * with -DTPOINT_JUMP_LABEL (usdttarget_jump). It links libtp_jumplib.so (a probe in a shared
 * library) and dlopens libtp_plugin.so from the directory named by its first argument (a
 * probe in a dlopened one).
 *
 * Commands on stdin, one a line, each answered by one line on stdout once done, so that a
 * script knows exactly which hits fell into its window:
 *	hits N		N calls of trace_usdt_cond(i, i * 7, "s<i>"), i = 0..N-1 (a third of
 *			them pass its condition); also usdt_kinds and usdt_wide once each
 *	lib N		N calls of libtp_jumplib.so's event
 *	open | close	dlopen / dlclose libtp_plugin.so
 *	plugin N	N calls of its event (while open)
 *	word		the enable word of usdt_cond: the library's bits | semaphore << 16
 *	stress		two threads start hitting usdt_cond (tpoint_trace(), any i)
 *	unstress	they stop; answers with the number of hits they made
 *	quit
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "trace/events/tpt_usdt.h"

int jumplib_hit(int v);

static void *plugin;
static int (*plugin_work)(int phase, int thread, int n);
static int stress_stop;

static void hits(int n)
{
	struct tpt_usdt_pair pair = { 1, 2 };
	char s[32];

	for (int i = 0; i < n; i++) {
		snprintf(s, sizeof(s), "s%d", i);
		trace_usdt_cond(i, i * 7L, s);
	}
	trace_usdt_kinds(-3, 65000, -5000000000LL, &pair, pair, 2.5, true, 200);
	trace_usdt_wide(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13);
}

static void *stress_thread(void *arg)
{
	unsigned long *n = arg;

	while (!__atomic_load_n(&stress_stop, __ATOMIC_RELAXED)) {
		tpoint_trace(usdt_cond, (int)(*n % 1000), (long)*n, "stress");
		/* A pause now and then: bpftrace and tpoint need the 2 CPUs of CI too. */
		if (++*n % 4096 == 0) {
			struct timespec ts = { 0, 100 * 1000 };

			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

static pthread_t stress_threads[2];
static unsigned long stress_hits[2];
static int stressing;

static void stress(bool on)
{
	if (on && !stressing) {
		__atomic_store_n(&stress_stop, 0, __ATOMIC_RELAXED);
		for (int i = 0; i < 2; i++) {
			stress_hits[i] = 0;
			pthread_create(&stress_threads[i], NULL, stress_thread, &stress_hits[i]);
		}
		stressing = 1;
		printf("stress\n");
	} else if (!on) {
		__atomic_store_n(&stress_stop, 1, __ATOMIC_RELAXED);
		for (int i = 0; stressing && i < 2; i++)
			pthread_join(stress_threads[i], NULL);
		stressing = 0;
		printf("unstress %lu\n", stress_hits[0] + stress_hits[1]);
	}
}

int main(int argc, char **argv)
{
	char line[256], path[4096];
	int n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %d\n", (int)getpid());
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "hits %d", &n) == 1) {
			hits(n);
			printf("hits %d\n", n);
		} else if (sscanf(line, "lib %d", &n) == 1) {
			for (int i = 0; i < n; i++)
				jumplib_hit(i);
			printf("lib %d\n", n);
		} else if (!strcmp(line, "open\n")) {
			snprintf(path, sizeof(path), "%s/libtp_plugin.so", argc > 1 ? argv[1] : ".");
			plugin = dlopen(path, RTLD_NOW);
			*(void **)&plugin_work = plugin ? dlsym(plugin, "plugin_work") : NULL;
			printf("open %s\n", plugin_work ? "ok" : dlerror());
		} else if (!strcmp(line, "close\n")) {
			if (plugin)
				dlclose(plugin);
			plugin = NULL;
			plugin_work = NULL;
			printf("close\n");
		} else if (sscanf(line, "plugin %d", &n) == 1) {
			if (plugin_work)
				plugin_work(1, 0, n);
			printf("plugin %d\n", n);
		} else if (!strcmp(line, "word\n")) {
			printf("word %#x\n", __atomic_load_n(&TPOINT_EVENT_SYM(usdt_cond).enabled,
							     __ATOMIC_RELAXED));
		} else if (!strcmp(line, "stress\n")) {
			stress(true);
		} else if (!strcmp(line, "unstress\n")) {
			stress(false);
		} else if (!strcmp(line, "quit\n")) {
			break;
		} else {
			printf("? %s", line);
		}
	}
	printf("bye\n");
	return 0;
}
