/* SPDX-License-Identifier: MIT */
/* A snapshot: what the pool holds now, copied into a spool of its own, the pages left in place. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "drain.h"
#include "ownfile.h"
#include "pool.h"
#include "spool.h"
#include "spool_snapshot.h"

/*
 * Copy what the pool holds into a spool of its own, without taking anything from the
 * writers: the pages stay where they are. A page is copied, then its generation is compared
 * with the one read before the copy: a page that a writer took in between (overwrite mode)
 * is left out, as its old contents are gone anyway.
 */
int tp_spool_snapshot(struct pool *p, const char *path)
{
	char *copy = malloc(TPOINT_PAGE_SIZE);
	int err;

	if (!copy)
		return -ENOMEM;
	pthread_mutex_lock(&sp->io);
	if (sp->path) {
		pthread_mutex_unlock(&sp->io);
		free(copy);
		return -EBUSY;
	}
	err = tp_spool_open(p, path, false);
	if (err) {
		pthread_mutex_unlock(&sp->io);
		free(copy);
		return err;
	}
	sp->snapshot = true;
	for (uint32_t i = 0; i < p->npages; i++) {
		struct page_meta m;
		uint32_t state = __atomic_load_n(&p->meta[i].state, __ATOMIC_ACQUIRE);
		uint64_t gen = __atomic_load_n(&p->meta[i].gen, __ATOMIC_ACQUIRE);

		if (state != PAGE_FULL && state != PAGE_WRITING)
			continue;
		memcpy(&m, &p->meta[i], sizeof(m));
		memcpy(copy, tp_pool_page(p, i), TPOINT_PAGE_SIZE);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&p->meta[i].gen, __ATOMIC_RELAXED) != gen)
			continue;
		uint64_t clock;

		tp_spool_emit_records(copy, &m, gen, 0, *(uint64_t *)(void *)copy, &clock, false,
				      false);
	}
	tp_spool_flush();
	tp_spool_put_closing_chunks(true);
	err = -sp->error;
	tp_spool_close(&err);
	tp_spool_free_state();
	pthread_mutex_unlock(&sp->io);
	free(copy);
	return err;
}

/*
 * A snapshot while a spool runs: the spool up to date, then its bytes copied into the
 * snapshot's file. The client reads only the file it made (tools/tpoint/snapshot.c), never
 * one the process names, so the spool's own name is no answer. Under the io mutex, the
 * file holds whole chunks up to file_end.
 */
int tp_spool_snapshot_copy(const char *path)
{
	char why[512], *buf;
	struct stat st;
	off_t at = 0;
	int in = -1, out, err;

	err = tp_spool_sync(NULL);
	if (err)
		return err;
	out = tp_output_open(path, OUTPUT_TRUNCATE, why, sizeof(why));
	if (out < 0)
		return out;
	buf = malloc(1u << 16);
	pthread_mutex_lock(&sp->io);
	/* The spool is written through a write-only descriptor: read through one of its own,
	 * of the same file. */
	if (sp->path)
		in = open(sp->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (!buf)
		err = -ENOMEM;
	else if (in < 0 || fstat(in, &st) < 0 || st.st_dev != sp->file.dev ||
		 st.st_ino != sp->file.ino)
		err = -ESTALE;
	while (!err && at < sp->file_end) {
		size_t want = sp->file_end - at < (1 << 16) ? (size_t)(sp->file_end - at) : 1u << 16;
		ssize_t n = pread(in, buf, want, at);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || write(out, buf, (size_t)n) != n)
			err = n < 0 ? -errno : -EIO;
		else
			at += n;
	}
	pthread_mutex_unlock(&sp->io);
	if (in >= 0)
		close(in);
	if (close(out) < 0 && !err)
		err = -errno;
	free(buf);
	return err;
}
