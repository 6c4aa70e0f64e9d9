/* SPDX-License-Identifier: MIT */
/*
 * What the tests of tpoint_flush() share (flush_test.c, flush_cut_test.c): threads that hit
 * tpt_flush:flush_hammer until told to stop, and the end of a run, where every call must be
 * recorded or counted lost and the file must hold every record counted. Include it after
 * the event with CREATE_TRACE_POINTS.
 */
#ifndef TPOINT_TEST_FLUSH_HAMMER_H
#define TPOINT_TEST_FLUSH_HAMMER_H

#include <pthread.h>

#define THREADS 2

static volatile int stop_flag;
static uint64_t calls[THREADS];
static pthread_t hammers[THREADS];
/* Calls between naps of 100 us, or 0 for none: a flush's test of bounds wants full speed,
 * one of timing enough to keep the drain writing, not a gigabyte a flush. */
static unsigned hammer_burst;

static void *hammer(void *arg)
{
	uint64_t *n = arg, i = 0;

	while (!__atomic_load_n(&stop_flag, __ATOMIC_RELAXED)) {
		trace_flush_hammer(i, i * 7);
		i++;
		if (hammer_burst && i % hammer_burst == 0)
			usleep(100);
	}
	*n = i;
	return NULL;
}

static void hammers_start(unsigned burst)
{
	hammer_burst = burst;
	for (int i = 0; i < THREADS; i++)
		REQUIRE(pthread_create(&hammers[i], NULL, hammer, &calls[i]) == 0, "pthread_create");
}

static int count_line(const struct tu_line *l, void *arg)
{
	if (!strcmp(l->name, "flush_hammer"))
		(*(uint64_t *)arg)++;
	return 0;
}

/*
 * The hammers stopped, the recording stopped, and the counts checked: recorded + lost =
 * calls, and trace-cmd reads as many records in `file` as were recorded. The calls go to
 * *hits; the number of records in the file is returned.
 */
static uint64_t hammers_stop_and_count(const char *file, uint64_t *hits_out)
{
	struct tpoint_event_stats st;
	uint64_t hits = 0, in_file = 0;
	struct tu_report rep;
	int ret;

	__atomic_store_n(&stop_flag, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(hammers[i], NULL);
		hits += calls[i];
	}
	ret = tpoint_record_stop();
	REQUIRE(ret == 0, "tpoint_record_stop: %s", strerror(-ret));
	CHECK(tu_stats("tpt_flush", "flush_hammer", &st) == 0, "stats know flush_hammer");
	CHECK(st.recorded + st.lost == hits, "recorded %" PRIu64 " + lost %" PRIu64 " = %" PRIu64
	      " calls", st.recorded, st.lost, hits);
	REQUIRE(tu_report_each(file, count_line, &in_file, &rep) == 0, "run trace-cmd report");
	CHECK(in_file == st.recorded, "the file has %" PRIu64 " records, stats say %" PRIu64,
	      in_file, st.recorded);
	*hits_out = hits;
	return in_file;
}

#endif
