// SPDX-License-Identifier: MIT
/*
 * flush_cut_test - tpoint_flush() reads the spool while the drain thread goes on appending
 * to it, and must not take the drain's write in progress for damage. A write to a file
 * becomes visible a page at a time: a reader that looks in between sees the spool end in
 * the middle of a chunk. Under a loaded CI machine a flush once failed so (EIO, "the file
 * has N left") in stress_test.
 *
 * Here the moment is made certain rather than waited for: this program defines writev()
 * and open() themselves, so libtpoint's calls come here first. The drain thread's writes to
 * the spool stop halfway for a while (a short write, which the drain goes on from), and the
 * flush's open of the spool waits until one of them has stopped so. Every flush must then
 * succeed, and the file hold every record the counters say were recorded.
 */
#define _GNU_SOURCE
#include "testutil.h"
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/uio.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_flush.h>
#include "flush_hammer.h"

#define FLUSHES 6

static int armed;	    /* the drain's writes stop halfway */
static int halfway;	    /* a drain write is stopped halfway now */
static unsigned cut_reads; /* flushes that opened the spool while a write was halfway */

static bool is_drain_thread(void)
{
	char name[16] = "";

	return pthread_getname_np(pthread_self(), name, sizeof(name)) == 0 &&
	       !strcmp(name, "tpoint-drain");
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

static bool is_spool_fd(int fd)
{
	char link[64], path[4096];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return false;
	path[n] = 0;
	return ends_with(path, ".spool");
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	static ssize_t (*real)(int, const struct iovec *, int);
	struct iovec half[64];
	size_t total = 0, want, got = 0;
	int n = 0;
	ssize_t done;

	if (!real)
		real = (ssize_t (*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
	for (int i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	if (!__atomic_load_n(&armed, __ATOMIC_ACQUIRE) || total < 64 || !is_drain_thread() ||
	    !is_spool_fd(fd))
		return real(fd, iov, iovcnt);
	/* The first half, cut in the middle of whatever chunk is there. */
	want = total / 2;
	for (int i = 0; i < iovcnt && got < want && n < 64; i++, n++) {
		half[n] = iov[i];
		if (half[n].iov_len > want - got)
			half[n].iov_len = want - got;
		got += half[n].iov_len;
	}
	done = real(fd, half, n);
	if (done > 0) {
		__atomic_store_n(&halfway, 1, __ATOMIC_RELEASE);
		usleep(30000); /* the flush looks now */
		__atomic_store_n(&halfway, 0, __ATOMIC_RELEASE);
	}
	return done;
}

/* The flush's open of the spool waits until a drain write is halfway (2 s at most). */
int open(const char *path, int flags, ...)
{
	static int (*real)(const char *, int, ...);
	mode_t mode = 0;

	if (!real)
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	if (flags & O_CREAT) {
		va_list ap;

		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	if (__atomic_load_n(&armed, __ATOMIC_ACQUIRE) && !is_drain_thread() &&
	    ends_with(path, ".spool") && (flags & O_ACCMODE) == O_RDONLY) {
		uint64_t t0 = tu_mono_ns();

		while (!__atomic_load_n(&halfway, __ATOMIC_ACQUIRE) && tu_mono_ns() - t0 < 2000000000u)
			usleep(200);
		if (__atomic_load_n(&halfway, __ATOMIC_ACQUIRE))
			cut_reads++;
	}
	return real(path, flags, mode);
}

/* The same function under glibc's other name (x86-64 has one open for both). */
int open64(const char *path, int flags, ...) __attribute__((alias("open")));

/* What the library said, shown when a flush fails: its reason is the point of the test. */
static void log_to_stderr(int level, const char *msg, void *arg)
{
	(void)arg;
	if (level == 0)
		fprintf(stderr, "tpoint: error: %s\n", msg);
}

int main(void)
{
	const char *file = "cut.dat";
	uint64_t hits;
	int ret;

	tu_require_trace_cmd();
	tpoint_set_log(log_to_stderr, NULL);
	/* Unpacked: the drain's writes are the pages' size, and cut mid-chunk. */
	setenv("TPOINT_SPOOL_PACK", "0", 1);
	REQUIRE(tpoint_enable("tpt_flush:flush_hammer") == 1, "the event enabled");
	REQUIRE(tpoint_set_buffer_size((size_t)1 << 20) == 0, "a 1 MiB pool accepted");
	REQUIRE(tpoint_set_mode(TPOINT_MODE_DISCARD) == 0, "discard mode accepted");
	ret = tpoint_record_start(file);
	REQUIRE(ret == 0, "tpoint_record_start: %s", strerror(-ret));
	hammers_start(64); /* enough to keep the drain writing, not a gigabyte a flush */
	usleep(50000);
	__atomic_store_n(&armed, 1, __ATOMIC_RELEASE);
	for (int k = 0; k < FLUSHES; k++) {
		ret = tpoint_flush();
		CHECK(ret >= 0, "flush %d while the drain's write is halfway: %s", k,
		      ret < 0 ? strerror(-ret) : "done");
		usleep(10000);
	}
	__atomic_store_n(&armed, 0, __ATOMIC_RELEASE);
	CHECK(cut_reads > 0, "%u of %d flushes opened the spool with a write halfway", cut_reads,
	      FLUSHES);
	tu_note("%u of %d flushes read the spool with a write of the drain's halfway", cut_reads,
		FLUSHES);
	hammers_stop_and_count(file, &hits);
	unlink(file);
	return tu_finish();
}
