// SPDX-License-Identifier: MIT
/*
 * flush_test - tpoint_flush() writes out what the pool holds when it is called, not what
 * writers add while it runs. Two threads hammer an event into a 4 MiB pool in overwrite
 * mode, where nothing but a flush drains the pool, and the main thread flushes ten times:
 * each flush may grow the spool by the pool and what frames it, no more. A flush that took
 * full pages until the queue ran dry chased the writers (they queue pages as fast as they
 * fill them): with a 16 MiB pool it spooled up to 226 MiB and took up to 12 s. The spool
 * is written unpacked (TPOINT_SPOOL_PACK=0), so its growth counts pages. Then trace-cmd
 * reads the file, and the counts add up.
 */
#include "testutil.h"
#include <glob.h>
#include <pthread.h>
#include <sys/stat.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_flush.h>
#include "flush_hammer.h"

#define POOL ((size_t)4 << 20)
#define FLUSHES 10
/* Besides the pages: chunk headers, a page's worth per stream being written, the formats,
 * clock samples and thread names. Generous, and still far below what a chase spools. */
#define SLACK ((size_t)1 << 20)

/* The spool is in a directory of its own beside the file: FILE.spool.XXXXXX/FILE.spool. */
static long long spool_size(const char *spool)
{
	struct stat st;
	long long size = -1;
	glob_t g;

	if (glob(spool, 0, NULL, &g) == 0 && g.gl_pathc == 1 && stat(g.gl_pathv[0], &st) == 0)
		size = (long long)st.st_size;
	globfree(&g);
	return size;
}

int main(void)
{
	const char *file = "flush.dat", *spool = "flush.dat.spool.*/flush.dat.spool";
	long long grew_most = 0;
	uint64_t hits, in_file;
	int ret;

	tu_require_trace_cmd();
	setenv("TPOINT_SPOOL_PACK", "0", 1);
	REQUIRE(tpoint_enable("tpt_flush:flush_hammer") == 1, "the event enabled");
	REQUIRE(tpoint_set_buffer_size(POOL) == 0, "a 4 MiB pool accepted");
	REQUIRE(tpoint_set_mode(TPOINT_MODE_OVERWRITE) == 0, "overwrite mode accepted");
	ret = tpoint_record_start(file);
	REQUIRE(ret == 0, "tpoint_record_start: %s", strerror(-ret));
	hammers_start(0);
	usleep(100000); /* the pool wraps */
	for (int k = 0; k < FLUSHES; k++) {
		long long before = spool_size(spool), after;
		uint64_t t0 = tu_mono_ns();

		ret = tpoint_flush();
		after = spool_size(spool);
		CHECK(ret >= 0, "flush %d: %s", k, ret < 0 ? strerror(-ret) : "done");
		CHECK(before >= 0 && after >= before, "flush %d: the spool is there and grows", k);
		CHECK(after - before <= (long long)(POOL + SLACK),
		      "flush %d: the spool grew by %lld KiB, the pool holds %zu KiB", k,
		      (after - before) >> 10, POOL >> 10);
		tu_note("flush %d: %lld KiB spooled in %.1f ms", k, (after - before) >> 10,
			(double)(tu_mono_ns() - t0) / 1e6);
		if (after - before > grew_most)
			grew_most = after - before;
		usleep(20000);
	}
	in_file = hammers_stop_and_count(file, &hits);
	tu_note("largest flush: %lld KiB; %" PRIu64 " calls, %" PRIu64 " in the file",
		grew_most >> 10, hits, in_file);
	unlink(file);
	unlink(spool);
	return tu_finish();
}
