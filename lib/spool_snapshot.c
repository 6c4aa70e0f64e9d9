/* SPDX-License-Identifier: MIT */
/* A snapshot: what the pool holds now, copied into a spool of its own, the pages left in place. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "spool.h"

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
