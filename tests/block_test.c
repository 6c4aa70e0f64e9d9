/* SPDX-License-Identifier: MIT */
/*
 * block_test - block mode (TPOINT_MODE_BLOCK) against a drain that works, one that is
 * stuck, and one that comes back. The spool is a FIFO whose reader the test controls:
 *
 *	1. the reader reads: two threads emit far more than the 64 KiB pool holds, and
 *	   nothing is lost; they waited for the drain instead;
 *	2. the reader stops: the drain blocks in write() once the pipe is full, and the
 *	   writers must not hang: after 100 ms without a free page they drop (and count),
 *	   and go on at full speed;
 *	3. the reader reads again: the drain frees pages, and writers wait again rather
 *	   than drop.
 *
 * recorded + lost = calls, exactly, all along. The recording is never completed (its spool
 * is a pipe), so the test ends with _exit().
 *
 * A recording of the program's own spools into a directory the library makes, whose names
 * nobody can know beforehand (lib/session.c): so the test records as `tpoint record` has a
 * process record, into TPOINT_SPOOL_DIR/PID.spool, and runs itself again by exec (the same
 * pid) once the FIFO is there, with the reader's end open.
 */
#include "testutil.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_api.h>

#define SPOOL_DIR "spool.d"
#define PER_THREAD 200000

static int fifo_fd = -1;
static int reader_paused, reader_stop; /* set by main, read by the reader: atomics */
static uint64_t bytes_read;

/* Reads the spool and throws it away, unless paused. */
static void *reader(void *arg)
{
	static char buf[1 << 16];

	(void)arg;
	while (!__atomic_load_n(&reader_stop, __ATOMIC_RELAXED)) {
		if (__atomic_load_n(&reader_paused, __ATOMIC_RELAXED)) {
			usleep(1000);
			continue;
		}
		ssize_t n = read(fifo_fd, buf, sizeof(buf));

		if (n > 0)
			__atomic_add_fetch(&bytes_read, (uint64_t)n, __ATOMIC_RELAXED);
		else
			usleep(200);
	}
	return NULL;
}

static void *emitter(void *arg)
{
	int base = *(int *)arg;

	for (int i = 0; i < PER_THREAD; i++)
		trace_api_tick(base + i);
	return NULL;
}

/* Two threads emit PER_THREAD events each; returns the seconds it took. */
static double emit_both(void)
{
	pthread_t th[2];
	int base[2] = { 0, 1000000 };
	uint64_t t0 = tu_mono_ns();

	for (int i = 0; i < 2; i++)
		REQUIRE(pthread_create(&th[i], NULL, emitter, &base[i]) == 0, "pthread_create");
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	return (double)(tu_mono_ns() - t0) / 1e9;
}

static void counts(uint64_t *recorded, uint64_t *lost)
{
	struct tpoint_event_stats st;

	REQUIRE(tu_stats("tpt_api", "api_tick", &st) == 0, "stats know api_tick");
	*recorded = st.recorded;
	*lost = st.lost;
}

int main(int argc, char **argv)
{
	char spool[64], fdtext[16];
	pthread_t rd;
	uint64_t r0, l0, r1, l1, r2, l2, r3, l3;
	double secs;

	snprintf(spool, sizeof(spool), "%s/%d.spool", SPOOL_DIR, (int)getpid());
	if (argc < 2 || strcmp(argv[1], "spooling")) {
		mkdir(SPOOL_DIR, 0700);
		unlink(spool);
		REQUIRE(mkfifo(spool, 0600) == 0, "mkfifo %s: %s", spool, strerror(errno));
		/* Opened for reading first, so that the library's open for writing does not wait. */
		fifo_fd = open(spool, O_RDONLY | O_NONBLOCK);
		REQUIRE(fifo_fd >= 0, "open %s: %s", spool, strerror(errno));
		snprintf(fdtext, sizeof(fdtext), "%d", fifo_fd);
		setenv("BLOCK_TEST_FIFO", fdtext, 1);
		setenv("TPOINT_SPOOL_DIR", SPOOL_DIR, 1);
		setenv("TPOINT_MODE", "block", 1);
		setenv("TPOINT_BUFFER_SIZE", "64K", 1);
		setenv("TPOINT_EVENTS", "tpt_api:api_tick", 1);
		execl("/proc/self/exe", argv[0], "spooling", (char *)NULL);
		REQUIRE(0, "exec /proc/self/exe: %s", strerror(errno));
	}
	fifo_fd = atoi(getenv("BLOCK_TEST_FIFO") ? getenv("BLOCK_TEST_FIFO") : "-1");
	REQUIRE(fifo_fd > 2, "the FIFO's reading end across exec");
	REQUIRE(pthread_create(&rd, NULL, reader, NULL) == 0, "reader thread");
	CHECK(tpoint_set_mode(TPOINT_MODE_BLOCK) == 0, "block mode accepted");

	/* 1. A drain that works: nothing lost. */
	counts(&r0, &l0);
	secs = emit_both();
	counts(&r1, &l1);
	CHECK(r1 - r0 == 2 * PER_THREAD && l1 == l0, "working drain: recorded %llu of %d, "
	      "lost %llu", (unsigned long long)(r1 - r0), 2 * PER_THREAD,
	      (unsigned long long)(l1 - l0));
	CHECK(__atomic_load_n(&bytes_read, __ATOMIC_RELAXED) > (64u << 10) * 4,
	      "the events went through the pool many times over: %llu bytes read",
	      (unsigned long long)bytes_read);
	tu_note("working drain: %d events in %.2f s, none lost, %llu bytes through the FIFO",
		2 * PER_THREAD, secs, (unsigned long long)bytes_read);

	/* 2. A stuck drain: the writers drop after 100 ms and do not hang. */
	__atomic_store_n(&reader_paused, 1, __ATOMIC_RELAXED);
	usleep(20000);
	secs = emit_both();
	counts(&r2, &l2);
	CHECK(r2 - r1 + l2 - l1 == 2 * PER_THREAD, "stuck drain: recorded %llu + lost %llu = "
	      "%d calls", (unsigned long long)(r2 - r1), (unsigned long long)(l2 - l1),
	      2 * PER_THREAD);
	CHECK(l2 - l1 > PER_THREAD, "stuck drain: most are dropped, %llu",
	      (unsigned long long)(l2 - l1));
	/* Not a speed: writers that waited for the stuck drain would wait for ever (a few
	 * tenths of a second here; a busy machine's many times that). */
	CHECK(secs < 60.0, "stuck drain: the writers went on, %.2f s for %d events", secs,
	      2 * PER_THREAD);
	tu_note("stuck drain: %d events in %.2f s, %llu lost", 2 * PER_THREAD, secs,
		(unsigned long long)(l2 - l1));

	/*
	 * 3. The drain comes back: writers wait for it again. Until it has freed a page, the
	 * pool stays taken for stuck and events are dropped: how long that takes is the
	 * machine's business (under TSan beside other tests, more than 200 ms), so the main
	 * thread records one event at a time until one is recorded rather than dropped.
	 */
	__atomic_store_n(&reader_paused, 0, __ATOMIC_RELAXED);
	int probes = 0;

	do {
		counts(&r2, &l2);
		if (probes++)
			usleep(10000);
		trace_api_tick(-1);
		counts(&r3, &l3);
	} while (r3 == r2 && probes < 6000);
	CHECK(r3 == r2 + 1, "drain back: the drain freed a page after %d probes", probes);
	counts(&r2, &l2);
	secs = emit_both();
	counts(&r3, &l3);
	CHECK(r3 - r2 == 2 * PER_THREAD && l3 == l2, "drain back: recorded %llu of %d, lost %llu",
	      (unsigned long long)(r3 - r2), 2 * PER_THREAD, (unsigned long long)(l3 - l2));
	tu_note("drain back: %d events in %.2f s, none lost", 2 * PER_THREAD, secs);

	/* The spool is a pipe: the recording cannot be completed into a file. */
	unlink(spool);
	rmdir(SPOOL_DIR);
	int rc = tu_finish();

	fflush(NULL);
	_exit(rc);
}
