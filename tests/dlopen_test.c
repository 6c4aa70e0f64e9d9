// SPDX-License-Identifier: MIT
/*
 * dlopen_test - events defined in a shared library (build/tests/libtp_plugin.so) across
 * dlopen, dlclose and dlopen again, while other threads keep hitting the main program's
 * events. "plugin:plugin_work" is enabled before the library exists; the library is closed
 * before the recording stops, so the file can only describe its events if the runtime kept
 * its own copy of their formats. trace-cmd must decode the plugin's records of both loads.
 * Then a second recording, with the library gone: plugin_idle, never selected, has its
 * format built from the copy of the library's records, which trace-cmd must read.
 */
#include "testutil.h"
#include <dlfcn.h>
#include <pthread.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_dlmain.h>

#define PER_THREAD 300
#define TICKERS 2

typedef int (*work_fn)(int phase, int thread, int n);
typedef int (*enabled_fn)(void);

static char lib_path[PATH_MAX + 32];
static void *lib;
static work_fn work;
static int stop_flag;
static int ticks[TICKERS];
static int work_calls_on; /* plugin calls made while its event was on */

static void load(void)
{
	enabled_fn en;

	lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
	REQUIRE(lib != NULL, "dlopen %s: %s", lib_path, dlerror());
	*(void **)&work = dlsym(lib, "plugin_work");
	*(void **)&en = dlsym(lib, "plugin_enabled");
	REQUIRE(work && en, "plugin symbols found");
	CHECK(en() == 1, "the plugin's event is on as soon as the library is loaded");
}

static void unload(void)
{
	CHECK(dlclose(lib) == 0, "dlclose: %s", dlerror());
	lib = NULL;
	work = NULL;
	/* Not a failure if a sanitizer keeps it mapped, but say so. */
	void *still = dlopen(lib_path, RTLD_NOW | RTLD_NOLOAD);

	tu_note("after dlclose the library is %s", still ? "still loaded" : "unloaded");
	if (still)
		dlclose(still);
}

struct job {
	int phase, thread;
};

static void *call_plugin(void *arg)
{
	struct job *j = (struct job *)arg;
	int on = work(j->phase, j->thread, PER_THREAD);

	__atomic_fetch_add(&work_calls_on, on, __ATOMIC_RELAXED);
	return NULL;
}

static void *ticker(void *arg)
{
	int t = (int)(intptr_t)arg;

	while (!__atomic_load_n(&stop_flag, __ATOMIC_RELAXED)) {
		struct timespec ts = { 0, 5000 };

		trace_main_tick(t, ticks[t]);
		ticks[t]++;
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void run_plugin(int phase, int nthreads)
{
	pthread_t th[4];
	struct job jobs[4];

	for (int i = 0; i < nthreads; i++) {
		jobs[i].phase = phase;
		jobs[i].thread = i;
		REQUIRE(pthread_create(&th[i], NULL, call_plugin, &jobs[i]) == 0, "pthread_create");
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
}

struct tally {
	int plugin[3][4]; /* per phase and thread: the next i expected */
	int plugin_lines, tick_lines, bad;
};

static int read_line(const struct tu_line *l, void *arg)
{
	struct tally *t = (struct tally *)arg;
	int phase, thread, i, th2, i2, k;
	char kind[8], msg[64], want[64];
	static const char *const kinds[] = { "zero", "one", "two" };

	if (!strcmp(l->name, "main_tick")) {
		if (sscanf(l->text, "thread=%d i=%d", &th2, &i2) != 2 && t->bad++ < 5)
			fprintf(stderr, "bad main_tick: %s\n", l->text);
		t->tick_lines++;
		return 0;
	}
	if (strcmp(l->name, "plugin_work") ||
	    sscanf(l->text, "phase=%d thread=%d i=%d kind=%7s msg=%63s", &phase, &thread, &i,
		   kind, msg) != 5 ||
	    phase < 1 || phase > 2 || thread < 0 || thread > 3) {
		if (t->bad++ < 5)
			fprintf(stderr, "not decoded: %s: %s\n", l->name, l->text);
		return 0;
	}
	k = i % 3;
	snprintf(want, sizeof(want), "p%d-t%d-%d", phase, thread, i);
	if (strcmp(kind, kinds[k]) || strcmp(msg, want) || i != t->plugin[phase][thread]) {
		if (t->bad++ < 5)
			fprintf(stderr, "wrong plugin record: %s\n", l->text);
		return 0;
	}
	t->plugin[phase][thread]++;
	t->plugin_lines++;
	return 0;
}

int main(void)
{
	char dir[PATH_MAX];
	pthread_t tickers[TICKERS];
	struct tpoint_event_stats st[64], ps, ts;
	struct tally tally;
	struct tu_report rep;
	int n, ret, entries = 0, ticks_total = 0;

	tu_require_trace_cmd();
	tu_self_dir(dir, sizeof(dir));
	snprintf(lib_path, sizeof(lib_path), "%s/libtp_plugin.so", dir);
	if (access(lib_path, R_OK))
		tu_skip("build/tests/libtp_plugin.so not built (TEST_LIBS)");

	n = tpoint_enable("plugin:plugin_work");
	CHECK(n == 0, "plugin:plugin_work matches nothing before dlopen (%d)", n);
	CHECK(tpoint_enable("tpt_dlmain:*") == 1, "main program's event enabled");
	ret = tpoint_record_start("dl.dat");
	REQUIRE(ret == 0, "tpoint_record_start: %s", strerror(-ret));

	load();
	run_plugin(1, 3);
	tu_note("load 1: 3 threads called into the plugin, %d events each", PER_THREAD);

	for (int i = 0; i < TICKERS; i++)
		REQUIRE(pthread_create(&tickers[i], NULL, ticker, (void *)(intptr_t)i) == 0,
			"pthread_create");
	unload(); /* while the tickers hit main_tick */
	load();
	run_plugin(2, 2);
	tu_note("load 2: 2 threads called into the plugin while 2 threads hit main_tick");
	unload(); /* again before the file is written: formats must be the runtime's copies */
	{
		struct timespec t = { 0, 20000000 };

		nanosleep(&t, NULL);
	}
	__atomic_store_n(&stop_flag, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < TICKERS; i++) {
		pthread_join(tickers[i], NULL);
		ticks_total += ticks[i];
	}
	ret = tpoint_record_stop();
	REQUIRE(ret == 0, "tpoint_record_stop: %s", strerror(-ret));

	/* One slot for the plugin's event across both loads, with exact counts. */
	n = tpoint_stats(st, 64);
	for (int i = 0; i < n && i < 64; i++)
		entries += !strcmp(st[i].system, "plugin") && !strcmp(st[i].name, "plugin_work");
	CHECK(entries == 1, "plugin:plugin_work has %d entries in tpoint_stats, want 1", entries);
	CHECK(tu_stats("plugin", "plugin_work", &ps) == 0, "stats for plugin_work");
	CHECK(tu_stats("tpt_dlmain", "main_tick", &ts) == 0, "stats for main_tick");
	CHECK(work_calls_on == 5 * PER_THREAD, "plugin calls while on: %d", work_calls_on);
	CHECK(ps.recorded + ps.lost == 5 * PER_THREAD,
	      "plugin_work recorded %" PRIu64 " + lost %" PRIu64 " != %d", ps.recorded, ps.lost,
	      5 * PER_THREAD);
	CHECK(ts.recorded + ts.lost == (uint64_t)ticks_total,
	      "main_tick recorded %" PRIu64 " + lost %" PRIu64 " != %d", ts.recorded, ts.lost,
	      ticks_total);

	ret = tu_check_events("dl.dat");
	CHECK(ret == 0, "trace-cmd report --check-events: exit %d", ret);
	memset(&tally, 0, sizeof(tally));
	REQUIRE(tu_report_each("dl.dat", read_line, &tally, &rep) == 0, "run trace-cmd");
	CHECK(rep.status == 0, "trace-cmd report exit %d", rep.status);
	CHECK(tally.bad == 0 && rep.malformed == 0 && rep.other == 0,
	      "%d records not decoded or wrong", tally.bad);
	CHECK((uint64_t)tally.plugin_lines == ps.recorded,
	      "file has %d plugin records, stats recorded %" PRIu64, tally.plugin_lines,
	      ps.recorded);
	CHECK((uint64_t)tally.tick_lines == ts.recorded,
	      "file has %d main_tick records, stats recorded %" PRIu64, tally.tick_lines,
	      ts.recorded);
	for (int t = 0; t < 3; t++)
		CHECK(tally.plugin[1][t] > 0, "load 1, thread %d: records decoded", t);
	for (int t = 0; t < 2; t++)
		CHECK(tally.plugin[2][t] > 0, "load 2, thread %d: records decoded", t);
	if (ps.lost == 0) {
		for (int t = 0; t < 3; t++)
			CHECK(tally.plugin[1][t] == PER_THREAD, "load 1, thread %d: all %d", t,
			      PER_THREAD);
		for (int t = 0; t < 2; t++)
			CHECK(tally.plugin[2][t] == PER_THREAD, "load 2, thread %d: all %d", t,
			      PER_THREAD);
	}
	tu_note("file: %d plugin records from both loads decoded by trace-cmd (lost %" PRIu64
		"), %d main_tick records of %d calls",
		tally.plugin_lines, ps.lost, tally.tick_lines, ticks_total);

	/* The library is gone: a recording still describes plugin_idle, from the copy. */
	ret = tpoint_record_start("dl2.dat");
	REQUIRE(ret == 0, "tpoint_record_start: %s", strerror(-ret));
	trace_main_tick(0, 0);
	ret = tpoint_record_stop();
	REQUIRE(ret == 0, "tpoint_record_stop: %s", strerror(-ret));
	{
		FILE *f = popen("trace-cmd report --events dl2.dat 2>&1", "r");
		char line[512];
		int named = 0, printed = 0;

		REQUIRE(f != NULL, "popen trace-cmd");
		while (fgets(line, sizeof(line), f)) {
			named |= strstr(line, "name: plugin_idle") != NULL;
			printed |= strstr(line, "\"idle for %u ticks\", REC->ticks") != NULL;
		}
		CHECK(pclose(f) == 0, "trace-cmd report --events dl2.dat");
		CHECK(named && printed, "plugin_idle's format, built after its library went, is in "
		      "the file (name %d, print fmt %d)", named, printed);
	}
	return tu_finish();
}
