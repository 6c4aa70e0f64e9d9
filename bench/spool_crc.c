// SPDX-License-Identifier: MIT
/*
 * spool_crc - what the spool chunks' checksum (lib/crc32c.h, spool version 6) costs the drain,
 * per page. The drain's work on a full page, done as it does it: the page packed
 * (lib/pack.h, where the CPU packs fast) or referenced as it is, its chunk gathered into a
 * 256 KiB buffer, and the buffer written to a file in $TMPDIR; timed with and without the
 * CRC32C of each chunk, whose cost is then given per page and as a share of the rest, in
 * CPU time.
 * Pages of 40-byte records, now and then a 72-byte one, as a thread writes them.
 *
 *	spool_crc [PAGES [REPS]]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "../lib/crc32c.h"
#include "../lib/pack.h"
#include "median.h"

#define PAGE 4080u        /* a page's data area (TPOINT_PAGE_DATA_END - header) */
#define BUF (256u << 10)  /* the drain's buffer (lib/spool_out.c, SPOOL_BUF) */
#define HDR 72u           /* a chunk's header and its struct spool_records */
#define NPAGES 64u        /* distinct pages cycled through */

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void fill_page(uint8_t *b)
{
	static uint64_t i;
	uint32_t off = 0;

	memset(b, 0, PAGE);
	while (off + 16 <= PAGE) {
		uint32_t total = (next() & 15) ? 40 : 72, w[2];

		if (off + total > PAGE)
			total = (PAGE - off) & ~7u;
		if (total < 16)
			break;
		w[0] = (uint32_t)((30 + (next() & 7)) << 5);
		w[1] = total - 4;
		memcpy(b + off, w, 8);
		uint64_t f[8] = { (1234ull << 32) | 42, i, i * 3, i ^ 0x5a5a5a5a, i, i, i, i };

		memcpy(b + off + 8, f, total - 8);
		off += total;
		i++;
	}
}

static double now_ns(void)
{
	struct timespec t;

	/* The thread's CPU time, the write's system time included: the drain's cost, not the
	 * time other work on a busy machine takes from it. */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static uint8_t pages[NPAGES][PAGE];
static uint8_t buf[BUF + PACK_BOUND(PAGE) + HDR];
static uint32_t sink;

/* The drain's work on `n` pages: ns per page. */
static double drain(int fd, unsigned n, pack_fn pack, crc32c_fn crc)
{
	struct iovec iov[1024];
	size_t used = 0, refd = 0;
	int niov = 0;
	double t0 = now_ns();

	if (lseek(fd, 0, SEEK_SET) < 0 || ftruncate(fd, 0) < 0)
		exit(1);
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *p = pages[i % NPAGES];
		uint8_t *h = buf + used;
		size_t body;

		memset(h, 0, HDR);
		if (pack) {
			body = pack(p, PAGE, tp_pack_lag((const char *)p, PAGE), h + HDR);
			body = (body + 7) & ~(size_t)7;
			if (crc)
				sink += crc(crc(0, h, HDR), h + HDR, body);
			used += HDR + body;
		} else {
			/* The header in the buffer, the page referenced where it is. */
			if (crc)
				sink += crc(crc(0, h, HDR), p, PAGE);
			used += HDR;
			iov[niov++] = (struct iovec){ h, HDR };
			iov[niov++] = (struct iovec){ (void *)p, PAGE };
			refd += PAGE;
		}
		if (used + HDR + PACK_BOUND(PAGE) > BUF || refd + PAGE > BUF || niov + 2 > 1024 ||
		    i + 1 == n) {
			if (pack) {
				if (write(fd, buf, used) != (ssize_t)used)
					exit(1);
			} else if (writev(fd, iov, niov) < 0) {
				exit(1);
			}
			used = refd = 0;
			niov = 0;
		}
	}
	return (now_ns() - t0) / n;
}

static double median(double *v, int reps)
{
	double med, min, max;

	bench_summarise(v, reps, &med, &min, &max);
	return med;
}

/*
 * Without, with the CRC, with the portable one: alternated within each repetition, so that
 * a machine busy with other work slows all three alike; the cost is the median of each
 * repetition's difference.
 */
static void measure(int fd, unsigned n, int reps, pack_fn pack, double *without, double *crc,
		    double *portable)
{
	double w[BENCH_MAX_REPS], c[BENCH_MAX_REPS], p[BENCH_MAX_REPS];

	drain(fd, n, pack, tp_crc32c); /* warm: the file's pages, the caches, the table */
	drain(fd, n, pack, tp_crc32c_portable);
	for (int r = 0; r < reps; r++) {
		w[r] = drain(fd, n, pack, NULL);
		c[r] = drain(fd, n, pack, tp_crc32c);
		p[r] = drain(fd, n, pack, tp_crc32c_portable);
		c[r] -= w[r];
		p[r] -= w[r];
	}
	*without = median(w, reps);
	*crc = median(c, reps);
	*portable = median(p, reps);
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 20000;
	int reps = argc > 2 ? atoi(argv[2]) : 15;
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char path[4096];
	crc32c_fn arch = tp_crc32c_arch();
	pack_fn packer = tp_pack_encoder();
	int fd;

	if (reps < 1 || reps > BENCH_MAX_REPS || !n)
		return 2;
	snprintf(path, sizeof(path), "%s/tpoint-spool-crc.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	unlink(path);
	for (unsigned i = 0; i < NPAGES; i++)
		fill_page(pages[i]);
	printf("== the spool chunks' CRC32C in the drain, per 4 KiB page (%u pages, median of %d, "
	       "file in %s) ==\n", n, reps, dir);
	printf("crc32c: %s\n", arch ? "the CPU's instruction" : "portable (table)");
	for (int packed = 1; packed >= 0; packed--) {
		pack_fn p = packed ? packer : NULL;
		double without, crc, portable;

		measure(fd, n, reps, p, &without, &crc, &portable);
		printf("%-7s drain %6.0f ns/page without the crc; crc %5.0f ns/page (%4.1f %% of "
		       "it); portable crc %5.0f ns/page (%4.1f %%)\n", packed ? "packed" : "as is",
		       without, crc, 100 * crc / without, portable, 100 * portable / without);
	}
	close(fd);
	return sink == 42 ? 3 : 0;
}
