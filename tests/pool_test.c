/* SPDX-License-Identifier: MIT */
/*
 * The page pool's queues on their own (lib/pool.c): runs of pages taken with one CAS come
 * in queue order, a run never takes more than is there, full pages come out in the order
 * they were handed in (a run of them with one CAS, or one by one), and threads that take
 * runs and single pages, hand them in as full pages, take full ones back and free them, all
 * at once, never get the same page twice nor lose one unsaid. (A thread preempted in the
 * middle of a pop may hold a cell while the others go a whole lap round the ring: a page
 * put back then waits for it, 10 ms at most, and then leaves the pool, said by a warning
 * for the free queue and by what pool_put_full() and pool_put_full_run() return for the
 * full one. Before that wait, this small pool lost pages so in 3 of 10 runs on a 2-CPU
 * machine, up to 61 of its 64.)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "testutil.h"

struct pool *tp_active_pool; /* pool.c's block mode looks at it; writer.c defines it */

#define THREADS 4
#define ROUNDS 1000000

static struct pool pool;
static uint8_t *owned; /* 1 while a thread holds the page */
static int failed;
static uint32_t left_pool; /* pages that left the pool, as the warnings say */
static pthread_barrier_t start;

static void fail(const char *what, uint32_t page)
{
	if (!__atomic_exchange_n(&failed, 1, __ATOMIC_RELAXED))
		fprintf(stderr, "pool_test: %s (page %u)\n", what, page);
}

static void count_left(int level, const char *msg, void *arg)
{
	(void)level;
	(void)arg;
	if (strstr(msg, "left the pool"))
		__atomic_fetch_add(&left_pool, 1, __ATOMIC_RELAXED);
	else
		fprintf(stderr, "pool_test: unexpected message: %s\n", msg);
}

static void *churn(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	uint32_t run[16], page;

	pthread_barrier_wait(&start);
	for (int i = 0; i < ROUNDS && !__atomic_load_n(&failed, __ATOMIC_RELAXED); i++) {
		uint32_t want = 1 + (uint32_t)rand_r(&seed) % 16, n;

		if (want == 16) /* now and then the single pop the drain and block mode use */
			n = pool_take_free(&pool, &run[0]);
		else
			n = pool_take_free_run(&pool, run, want);
		if (n > want)
			fail("a run longer than asked for", run[0]);
		for (uint32_t k = 0; k < n; k++) {
			if (run[k] >= pool.npages)
				fail("a page index outside the pool", run[k]);
			else if (__atomic_exchange_n(&owned[run[k]], 1, __ATOMIC_RELAXED))
				fail("a page taken by two threads at once", run[k]);
		}
		for (uint32_t k = 0; k < n; k++)
			__atomic_store_n(&owned[run[k]], 0, __ATOMIC_RELAXED);
		/* Full now: handed in as a run or one by one, as writers do. */
		if (n && rand_r(&seed) % 2) {
			uint32_t queued = pool_put_full_run(&pool, run, n);

			__atomic_fetch_add(&left_pool, n - queued, __ATOMIC_RELAXED);
		} else {
			for (uint32_t k = 0; k < n; k++)
				if (!pool_put_full(&pool, run[k]))
					__atomic_fetch_add(&left_pool, 1, __ATOMIC_RELAXED);
		}
		/* The drain, or an overwriting writer, takes full pages and frees them. */
		for (uint32_t k = 0; k < n && pool_take_full(&pool, &page); k++) {
			if (page >= pool.npages)
				fail("a full page index outside the pool", page);
			else if (__atomic_exchange_n(&owned[page], 1, __ATOMIC_RELAXED))
				fail("a full page taken by two threads at once", page);
			else if (__atomic_load_n(&pool.meta[page].state, __ATOMIC_RELAXED) !=
				 PAGE_FULL)
				fail("a page from the full queue not marked full", page);
			__atomic_store_n(&owned[page], 0, __ATOMIC_RELAXED);
			pool_put_free(&pool, page);
		}
	}
	return NULL;
}

int main(void)
{
	uint32_t run[16], page;
	pthread_t th[THREADS];
	uint32_t n, got;

	tpoint_set_log(count_left, NULL);
	CHECK(pool_create(&pool, 64 * TPOINT_PAGE_SIZE, TPOINT_MODE_DISCARD) == 0, "pool_create");
	owned = calloc(pool.npages, 1);
	if (!owned)
		return 1;

	/* A fresh pool hands out its pages in order, a run at a time. */
	CHECK(pool_take_free_run(&pool, run, 16) == 16, "a run of 16 from a fresh pool");
	for (uint32_t k = 0; k < 16; k++)
		CHECK(run[k] == k, "run[%u] is page %u", k, run[k]);
	CHECK(pool_take_free_run(&pool, run, 3) == 3 && run[0] == 16 && run[2] == 18,
	      "the next run of 3 starts at page %u", run[0]);
	/* What is left, and no more; then nothing. */
	for (n = 19; (got = pool_take_free_run(&pool, run, 16)) > 0; n += got)
		CHECK(got == 16 || n + got == pool.npages, "a run of %u with %u pages left", got,
		      pool.npages - n);
	CHECK(n == pool.npages, "runs took %u pages of %u", n, pool.npages);
	CHECK(pool_take_free_run(&pool, run, 16) == 0, "a run from an empty queue");
	CHECK(!pool_take_free(&pool, &page), "a page from an empty queue");
	/* Back in the queue's order: taken in that order. */
	for (uint32_t k = 0; k < pool.npages; k++)
		pool_put_free(&pool, (k * 7) % pool.npages); /* 64 pages: 7 is coprime */
	CHECK(pool_take_free_run(&pool, run, 4) == 4, "a run of 4 after putting all back");
	for (uint32_t k = 0; k < 4; k++)
		CHECK(run[k] == (k * 7) % pool.npages, "run[%u] is page %u", k, run[k]);
	/* Full pages come out in the order they were handed in, as a run or one by one. */
	CHECK(pool_take_free(&pool, &run[4]), "one more page");
	CHECK(pool_put_full_run(&pool, run, 4) == 4, "a run of 4 full pages handed in");
	CHECK(pool_put_full(&pool, run[4]), "one full page after the run");
	for (uint32_t k = 0; k < 5; k++) {
		uint32_t want = run[k];

		CHECK(pool_take_full(&pool, &page) && page == want, "full page %u is %u", k, page);
		CHECK(pool.meta[page].state == PAGE_FULL, "page %u marked full", page);
		pool_put_free(&pool, page);
	}
	CHECK(!pool_take_full(&pool, &page), "a page from an empty full queue");
	/* Overwrite mode takes the oldest full pages back a run at a time, and no more. */
	CHECK(pool_take_free_run(&pool, run, 5) == 5, "five free pages");
	CHECK(pool_put_full_run(&pool, run, 5) == 5, "handed in as full");
	{
		uint32_t back[8];

		CHECK(pool_take_full_run(&pool, back, 3) == 3 && back[0] == run[0] &&
		      back[2] == run[2], "the oldest 3 full pages taken back at once");
		CHECK(pool_take_full_run(&pool, back + 3, 8) == 2 && back[3] == run[3] &&
		      back[4] == run[4], "then the 2 left, of 8 asked for");
		CHECK(pool_take_full_run(&pool, back, 8) == 0, "a run from an empty full queue");
		for (uint32_t k = 0; k < 5; k++)
			pool_put_free(&pool, back[k]);
	}

	/* Threads race: every page stays in exactly one place. */
	pthread_barrier_init(&start, NULL, THREADS);
	for (int t = 0; t < THREADS; t++)
		CHECK(pthread_create(&th[t], NULL, churn, (void *)(uintptr_t)(t + 1)) == 0,
		      "pthread_create");
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	CHECK(!failed, "the threads saw a page twice or out of the pool");
	memset(owned, 0, pool.npages);
	for (n = 0; pool_take_free(&pool, &page) || pool_take_full(&pool, &page); n++) {
		CHECK(page < pool.npages && !owned[page], "page %u twice in the queues", page);
		owned[page] = 1;
	}
	CHECK(n + left_pool == pool.npages, "%u pages back in the queues and %u said to have "
	      "left the pool, of %u", n, left_pool, pool.npages);
	if (left_pool)
		printf("pool_test: %u pages left the pool while a thread held a cell\n", left_pool);
	pool_destroy(&pool);
	free(owned);
	return tu_finish();
}
