/* SPDX-License-Identifier: MIT */
/*
 * Salvage: the pages a process left in its pool when it ended without completing its spool
 * (killed, ended with _exit(), or replaced by exec), appended to that spool from the pool's
 * memfd. The tool does it for a process it recorded (tpoint record -p, or a process of
 * tpoint record -- CMD), the library for a forked child (at the recording process's exit)
 * and for the image before an exec (the next image adopts its pool).
 *
 * Records already in the spool are not added twice: a spool chunk names the page use it came
 * from (thread, page sequence, generation) and where in the page it ended.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "clock.h"
#include "crc32c.h"
#include "pool.h"
#include "ringbuf.h"
#include "salvage.h"
#include "spool_read.h"

struct seen {
	uint32_t tid;
	uint64_t seq, gen;
	uint32_t end;
};

/* All of len at off, or false: a short file is damage, not an error to retry. */
static bool read_at(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return true;
}

static int append(int fd, uint64_t *at, uint32_t type, const void *a, size_t alen,
		  const void *b, size_t blen)
{
	struct spool_chunk c = { type, (uint32_t)(alen + blen), 0, 0 };
	static const char zeros[8];
	size_t pad = ((alen + blen + 7) & ~(size_t)7) - (alen + blen);
	struct iovec iov[4] = { { &c, sizeof(c) }, { (void *)a, alen }, { (void *)b, blen },
				{ (void *)zeros, pad } };
	size_t total = sizeof(c) + alen + blen + pad;
	uint32_t crc = tp_spool_chunk_crc(&c, a, alen, b, blen);

	c.crc = tp_crc32c(crc, zeros, pad);

	if (pwritev(fd, iov, 4, (off_t)*at) != (ssize_t)total)
		return -EIO;
	*at += total;
	return 0;
}

/* The pool's metadata is of the layout we read, for as many pages as we were told. */
static int check_meta_header(int pool_fd, uint64_t pool_len, uint32_t npages, uint64_t meta_off,
			     const char *name, char *err, size_t errlen)
{
	struct pool_meta_header h;

	if (meta_off > pool_len || pool_len - meta_off < POOL_META_HEADER_SIZE ||
	    !read_at(pool_fd, &h, sizeof(h), meta_off) ||
	    memcmp(h.magic, POOL_META_MAGIC, sizeof(h.magic))) {
		snprintf(err, errlen, "%s: its pool's memory holds no tpoint page metadata", name);
		return -EINVAL;
	}
	if (h.version != POOL_META_VERSION || h.header_size != POOL_META_HEADER_SIZE ||
	    h.meta_size != sizeof(struct page_meta) || h.page_size != TPOINT_PAGE_SIZE) {
		snprintf(err, errlen, "%s: its pool's page metadata is version %u (%u-byte "
			 "entries, %u-byte pages), this tpoint reads version %u: the pages are "
			 "not salvaged", name, h.version, h.meta_size, h.page_size,
			 POOL_META_VERSION);
		return -EPROTO;
	}
	if (h.npages != npages || (uint64_t)npages * sizeof(struct page_meta) >
					  pool_len - meta_off - POOL_META_HEADER_SIZE) {
		snprintf(err, errlen, "%s: its pool's metadata is for %u pages, not %u", name,
			 h.npages, npages);
		return -EINVAL;
	}
	return 0;
}

/*
 * Both files were written by the process, so both are input to check, not to trust: the
 * spool is walked with every chunk size checked against the file, the pool read with
 * pread() within its size and never mapped (another holder could shrink it: SIGBUS), and
 * only the two descriptors are read and written, never a path.
 */
int tp_spool_salvage_fd(int spool_fd, const char *name, int pool_fd, uint64_t pool_len,
			uint32_t npages, uint64_t meta_off, uint64_t *added, char *err,
			size_t errlen)
{
	struct seen *seen = NULL;
	size_t nseen = 0, cap = 0;
	uint64_t good = sizeof(struct spool_file_header), size;
	char *out = NULL, *scratch = NULL, *page = NULL, *chunk = NULL;
	struct spool_file_header h;
	char why[256];
	struct stat st;
	bool said = false; /* err holds the reason already */
	bool ended = false; /* the spool has its end mark: the pool holds nothing it lacks */
	size_t at;
	int ret = 0;

	*added = 0;
	if (fstat(spool_fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < good) {
		snprintf(err, errlen, "%s: the process died before its spool began", name);
		return -ENOENT;
	}
	if (!read_at(spool_fd, &h, sizeof(h), 0))
		snprintf(why, sizeof(why), "its header cannot be read");
	else if (!tp_spool_header_check(&h, sizeof(h), &at, why, sizeof(why)))
		why[0] = 0;
	if (why[0]) {
		snprintf(err, errlen, "%s: %s", name, why);
		return -EINVAL;
	}
	size = (uint64_t)st.st_size;
	/* One chunk at a time, checked whole: the largest there is. */
	chunk = malloc(SPOOL_CHUNK_MAX + 8);
	if (!chunk) {
		ret = -ENOMEM;
		goto out;
	}
	/* What the spool holds, up to its last whole chunk (the walk of spool_read.c's). */
	while (good + sizeof(struct spool_chunk) <= size) {
		struct spool_chunk c;
		struct spool_records r;
		uint64_t span;

		if (!read_at(spool_fd, &c, sizeof(c), good))
			break;
		span = c.size <= SPOOL_CHUNK_MAX ? tp_spool_chunk_span(&c, size - good) : 0;
		if (!span && c.size <= SPOOL_CHUNK_MAX)
			break; /* the last chunk, cut short by the end: cut off */
		if (!span || !read_at(spool_fd, chunk, span - sizeof(c), good + sizeof(c)) ||
		    tp_spool_chunk_check(&c, chunk, size - good, why, sizeof(why))) {
			/*
			 * Damage, not a write cut short: whatever follows it stays as it is, and
			 * nothing is added after what no reader gets past.
			 */
			if (!span)
				tp_spool_chunk_check(&c, NULL, size - good, why, sizeof(why));
			snprintf(err, errlen, "%s: offset %llu: %s; its pool's pages are not "
				 "added", name, (unsigned long long)good, why);
			ret = -EINVAL;
			said = true;
			goto out;
		}
		ended |= c.type == SPOOL_END;
		memcpy(&r, chunk, c.size >= sizeof(r) ? sizeof(r) : 0);
		if ((c.type == SPOOL_RECORDS || c.type == SPOOL_PAGE ||
		     c.type == SPOOL_PAGE_PACKED) &&
		    c.size >= sizeof(r) &&
		    !tp_spool_records_check(c.type, &r, c.size, why, sizeof(why))) {
			if (nseen == cap) {
				size_t ncap = cap ? 2 * cap : 256;
				struct seen *n = realloc(seen, ncap * sizeof(*n));

				if (!n) {
					ret = -ENOMEM;
					goto out;
				}
				seen = n;
				cap = ncap;
			}
			seen[nseen++] = (struct seen){ r.tid, r.seq, r.gen, r.end_off };
		}
		good += span;
	}
	if (ftruncate(spool_fd, (off_t)good) < 0) {
		ret = -errno;
		goto out;
	}
	out = malloc(2 * TPOINT_PAGE_SIZE);
	scratch = malloc(2 * TPOINT_PAGE_SIZE);
	page = malloc(TPOINT_PAGE_SIZE);
	if (!out || !scratch || !page) {
		ret = -ENOMEM;
		goto out;
	}
	/*
	 * A recording that ended wrote every record out before its end mark, and then gave the
	 * pool's memory back (tp_pool_release_memory()): there is nothing to take from it, and
	 * no metadata left to read.
	 */
	if (ended)
		goto out;
	if (pool_fd >= 0) {
		ret = check_meta_header(pool_fd, pool_len, npages, meta_off, name, err, errlen);
		said = ret != 0;
		if (ret)
			goto out;
		meta_off += POOL_META_HEADER_SIZE;
	}
	for (uint32_t i = 0; pool_fd >= 0 && meta_off <= pool_len && i < npages; i++) {
		struct page_meta m;
		uint64_t meta_at = meta_off + (uint64_t)i * sizeof(m);
		uint64_t page_at = (uint64_t)i * TPOINT_PAGE_SIZE;
		uint64_t word, commit, clock;
		uint32_t from = 0, stopped;
		size_t used;

		if (meta_at + sizeof(m) > pool_len || page_at + TPOINT_PAGE_SIZE > pool_len ||
		    !read_at(pool_fd, &m, sizeof(m), meta_at))
			break;
		if (m.state != PAGE_FULL && m.state != PAGE_WRITING)
			continue;
		if (!read_at(pool_fd, page, TPOINT_PAGE_SIZE, page_at))
			break;
		memcpy(&word, page + 8, 8);
		commit = tp_page_commit_bytes(word);
		memcpy(&clock, page, 8);
		if (commit > TPOINT_PAGE_DATA_END)
			continue;
		for (size_t k = 0; k < nseen; k++)
			if (seen[k].tid == m.tid && seen[k].seq == m.seq && seen[k].gen == m.gen &&
			    seen[k].end > from)
				from = seen[k].end;
		if (from >= commit)
			continue;
		/* The running clock at `from`: walk what the spool already has. */
		tp_page_decode(page + TPOINT_PAGE_HEADER, 0, from, &clock, scratch, &stopped);
		used = tp_page_decode(page + TPOINT_PAGE_HEADER, from, (uint32_t)commit, &clock,
				      out, &stopped);
		struct spool_records hdr = { .cpu = m.cpu, .tid = m.tid, .level = m.level,
					     .start_off = from, .seq = m.seq,
					     .lost_before = from ? 0 : m.lost_before, .gen = m.gen,
					     .end_off = stopped };

		if (used && append(spool_fd, &good, SPOOL_RECORDS, &hdr, sizeof(hdr), out,
				   used) < 0) {
			ret = -EIO;
			goto out;
		}
		for (const char *p = out; p + sizeof(struct spool_record) <= out + used;) {
			const struct spool_record *r = (const void *)p;

			(*added)++;
			p += sizeof(*r) + r->size;
		}
	}
	struct clock_sample cs = tp_clock_sample_now(); /* the clock is the machine's, not its */

	ret = append(spool_fd, &good, SPOOL_CLOCK, &cs, sizeof(cs), NULL, 0);
out:
	if (ret < 0 && !said)
		snprintf(err, errlen, "salvaging %s: %s", name, strerror(-ret));
	free(out);
	free(scratch);
	free(page);
	free(chunk);
	free(seen);
	return ret;
}

int tp_spool_salvage_memfd(const char *path, int memfd, uint32_t npages, size_t meta_off,
			   uint64_t *added, char *err, size_t errlen)
{
	/* A spool is a regular file of ours: nothing else is written through a link. */
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	struct stat st, pst;
	int ret;

	*added = 0;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s: no spool of ours to add to", path);
		if (fd >= 0)
			close(fd);
		return -ENOENT;
	}
	if (fstat(memfd, &pst) < 0 || !S_ISREG(pst.st_mode)) {
		snprintf(err, errlen, "%s: the pool passed is not one", path);
		close(fd);
		return -EINVAL;
	}
	ret = tp_spool_salvage_fd(fd, path, memfd, (uint64_t)pst.st_size, npages, meta_off, added,
				  err, errlen);
	close(fd);
	return ret;
}
