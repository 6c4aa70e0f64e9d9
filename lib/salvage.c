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
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"
#include "spool_format.h"

struct seen {
	uint32_t tid;
	uint64_t seq, gen;
	uint32_t end;
};

static int append(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen)
{
	struct spool_chunk c = { type, (uint32_t)(alen + blen) };
	static const char zeros[8];
	size_t pad = ((alen + blen + 7) & ~(size_t)7) - (alen + blen);

	if (write(fd, &c, sizeof(c)) != (ssize_t)sizeof(c) || write(fd, a, alen) != (ssize_t)alen ||
	    (blen && write(fd, b, blen) != (ssize_t)blen) ||
	    (pad && write(fd, zeros, pad) != (ssize_t)pad))
		return -EIO;
	return 0;
}

int spool_salvage(const char *path, const char *pool, size_t pool_len, uint32_t npages,
		  size_t meta_off, uint64_t *added, char *err, size_t errlen)
{
	/* A spool is a regular file of ours: nothing else is written through a link. */
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	struct seen *seen = NULL;
	size_t nseen = 0, good = sizeof(struct spool_file_header);
	char *out = NULL, *scratch = NULL;
	struct stat st;
	char *map;
	int ret = 0;

	*added = 0;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (size_t)st.st_size < good) {
		snprintf(err, errlen, "%s: no spool of ours to add to", path);
		if (fd >= 0)
			close(fd);
		return -ENOENT;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		close(fd);
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (memcmp(map, SPOOL_MAGIC, sizeof(SPOOL_MAGIC))) {
		munmap(map, (size_t)st.st_size);
		close(fd);
		snprintf(err, errlen, "%s: not a spool", path);
		return -EINVAL;
	}
	/* What the spool holds, up to its last whole chunk. */
	while (good + sizeof(struct spool_chunk) <= (size_t)st.st_size) {
		const struct spool_chunk *c = (const void *)(map + good);
		size_t padded = ((size_t)c->size + 7) & ~(size_t)7;

		if (padded > (size_t)st.st_size - good - sizeof(*c))
			break;
		if ((c->type == SPOOL_RECORDS || c->type == SPOOL_PAGE ||
		     c->type == SPOOL_PAGE_PACKED) &&
		    c->size >= sizeof(struct spool_records)) {
			const struct spool_records *r = (const void *)(c + 1);
			struct seen *n = realloc(seen, (nseen + 1) * sizeof(*n));

			if (n) {
				seen = n;
				seen[nseen++] = (struct seen){ r->tid, r->seq, r->gen, r->end_off };
			}
		}
		good += sizeof(*c) + padded;
	}
	munmap(map, (size_t)st.st_size);
	if (ftruncate(fd, (off_t)good) < 0 || lseek(fd, (off_t)good, SEEK_SET) < 0) {
		ret = -errno;
		goto out;
	}
	out = malloc(2 * TPOINT_PAGE_SIZE);
	scratch = malloc(2 * TPOINT_PAGE_SIZE);
	if (!out || !scratch) {
		ret = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < npages; i++) {
		const struct page_meta *m =
			(const void *)(pool + meta_off + (size_t)i * sizeof(struct page_meta));
		const char *page = pool + (size_t)i * TPOINT_PAGE_SIZE;
		uint64_t commit, clock;
		uint32_t from = 0, stopped;
		size_t used;

		if ((const char *)(m + 1) > pool + pool_len)
			break;
		if (m->state != PAGE_FULL && m->state != PAGE_WRITING)
			continue;
		memcpy(&commit, page + 8, 8);
		memcpy(&clock, page, 8);
		if (commit > TPOINT_PAGE_DATA_END)
			continue;
		for (size_t k = 0; k < nseen; k++)
			if (seen[k].tid == m->tid && seen[k].seq == m->seq && seen[k].gen == m->gen &&
			    seen[k].end > from)
				from = seen[k].end;
		if (from >= commit)
			continue;
		/* The running clock at `from`: walk what the spool already has. */
		page_decode(page + TPOINT_PAGE_HEADER, 0, from, &clock, scratch, &stopped);
		used = page_decode(page + TPOINT_PAGE_HEADER, from, (uint32_t)commit, &clock,
				   out, &stopped);
		struct spool_records hdr = { .cpu = m->cpu, .tid = m->tid, .level = m->level,
					     .start_off = from, .seq = m->seq,
					     .lost_before = from ? 0 : m->lost_before, .gen = m->gen,
					     .end_off = stopped };

		if (used && append(fd, SPOOL_RECORDS, &hdr, sizeof(hdr), out, used) < 0) {
			ret = -EIO;
			goto out;
		}
		for (const char *p = out; p + sizeof(struct spool_record) <= out + used;) {
			const struct spool_record *r = (const void *)p;

			(*added)++;
			p += sizeof(*r) + r->size;
		}
	}
	struct clock_sample cs = clock_sample_now(); /* the clock is the machine's, not its */

	ret = append(fd, SPOOL_CLOCK, &cs, sizeof(cs), NULL, 0);
out:
	if (ret < 0)
		snprintf(err, errlen, "salvaging %s: %s", path, strerror(-ret));
	free(out);
	free(scratch);
	free(seen);
	close(fd);
	return ret;
}

int spool_salvage_memfd(const char *path, int memfd, uint32_t npages, size_t meta_off,
			uint64_t *added, char *err, size_t errlen)
{
	struct stat st;
	void *m;
	int ret;

	*added = 0;
	if (fstat(memfd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size < meta_off + (size_t)npages * sizeof(struct page_meta)) {
		snprintf(err, errlen, "%s: the pool passed is not one", path);
		return -EINVAL;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, memfd, 0);
	if (m == MAP_FAILED) {
		ret = -errno;
		snprintf(err, errlen, "%s: mapping its pool: %s", path, strerror(-ret));
		return ret;
	}
	ret = spool_salvage(path, m, (size_t)st.st_size, npages, meta_off, added, err, errlen);
	munmap(m, (size_t)st.st_size);
	return ret;
}
