/* SPDX-License-Identifier: MIT */
/*
 * The page pool's queues on their own (lib/pool.c): runs of pages taken with one CAS come
 * in queue order, a run never takes more than is there, full pages come out in the order
 * they were handed in (a run of them with one CAS, or one by one), and threads that take
 * runs and single pages, hand them in as full pages, take full ones back and free them, all
 * at once, never get the same page twice nor lose one unsaid. (A thread preempted in the
 * middle of a pop may hold a cell while the others go a whole lap round the ring: a page
 * put back then waits for it, 10 ms at most, and then leaves the pool, said by a warning
 * for the free queue and by what tp_pool_put_full() and tp_pool_put_full_run() return for the
 * full one. Before that wait, this small pool lost pages so in 3 of 10 runs on a 2-CPU
 * machine, up to 61 of its 64.)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tpoint/tpoint.h>
#include "pool.h"
#include "testutil.h"


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
	uint32_t cpu = seed; /* each thread its own region first, where the pool has regions */
	uint32_t run[16], page;

	pthread_barrier_wait(&start);
	for (int i = 0; i < ROUNDS && !__atomic_load_n(&failed, __ATOMIC_RELAXED); i++) {
		uint32_t want = 1 + (uint32_t)rand_r(&seed) % 16, n;

		if (want == 16) /* now and then the single pop the drain and block mode use */
			n = tp_pool_take_free(&pool, cpu, &run[0]);
		else
			n = tp_pool_take_free_run(&pool, cpu, run, want);
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
			uint32_t queued = tp_pool_put_full_run(&pool, run, n);

			__atomic_fetch_add(&left_pool, n - queued, __ATOMIC_RELAXED);
		} else {
			for (uint32_t k = 0; k < n; k++)
				if (!tp_pool_put_full(&pool, run[k]))
					__atomic_fetch_add(&left_pool, 1, __ATOMIC_RELAXED);
		}
		/* The drain, or an overwriting writer, takes full pages and frees them. */
		for (uint32_t k = 0; k < n && tp_pool_take_full(&pool, &page); k++) {
			if (page >= pool.npages)
				fail("a full page index outside the pool", page);
			else if (__atomic_exchange_n(&owned[page], 1, __ATOMIC_RELAXED))
				fail("a full page taken by two threads at once", page);
			else if (__atomic_load_n(&pool.meta[page].state, __ATOMIC_RELAXED) !=
				 PAGE_FULL)
				fail("a page from the full queue not marked full", page);
			__atomic_store_n(&owned[page], 0, __ATOMIC_RELAXED);
			tp_pool_put_free(&pool, page);
		}
	}
	return NULL;
}

/* Threads race: every page stays in exactly one place. */
static void race(void)
{
	pthread_t th[THREADS];
	uint32_t n, page;

	left_pool = 0;
	memset(owned, 0, pool.npages);
	pthread_barrier_init(&start, NULL, THREADS);
	for (int t = 0; t < THREADS; t++)
		CHECK(pthread_create(&th[t], NULL, churn, (void *)(uintptr_t)(t + 1)) == 0,
		      "pthread_create");
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	pthread_barrier_destroy(&start);
	CHECK(!failed, "the threads saw a page twice or out of the pool");
	memset(owned, 0, pool.npages);
	for (n = 0; tp_pool_take_free(&pool, 0, &page) || tp_pool_take_full(&pool, &page); n++) {
		CHECK(page < pool.npages && !owned[page], "page %u twice in the queues", page);
		owned[page] = 1;
	}
	CHECK(n + left_pool == pool.npages, "%u pages back in the queues and %u said to have "
	      "left the pool, of %u", n, left_pool, pool.npages);
	if (left_pool)
		printf("pool_test: %u pages left the pool while a thread held a cell\n", left_pool);
}

/*
 * A pool of a region per CPU: a writer takes its CPU's region first, then the next one's;
 * a page goes back to its own region, whoever frees it.
 */
static void regions(void)
{
	uint32_t run[64], page, n = 0, taken = 12;

	CHECK(tp_pool_create(&pool, 1024 * TPOINT_PAGE_SIZE, TPOINT_MODE_DISCARD) == 0,
	      "tp_pool_create");
	if (pool.nregions < 2) {
		printf("pool_test: regions not tested: one CPU online, so the pool is one region\n");
		tp_pool_destroy(&pool);
		return;
	}
	uint32_t rp = pool.region_pages, last = pool.nregions - 1;

	CHECK(pool.nregions <= POOL_MAX_REGIONS && rp >= 256, "%u regions of %u pages",
	      pool.nregions, rp);
	CHECK(tp_pool_take_free_run(&pool, 0, run, 4) == 4 && run[0] == 0 && run[3] == 3,
	      "CPU 0 takes region 0's first pages: %u", run[0]);
	CHECK(tp_pool_take_free_run(&pool, 1, run, 4) == 4 && run[0] == rp && run[3] == rp + 3,
	      "CPU 1 takes region 1's first pages: %u", run[0]);
	CHECK(tp_pool_take_free_run(&pool, pool.nregions, run, 4) == 4 && run[0] == 4,
	      "CPU %u takes region 0's next pages, as CPU 0: %u", pool.nregions, run[0]);
	/* The last region, emptied; then its CPU takes the next region's: region 0's. */
	while ((n = tp_pool_take_free_run(&pool, last, run, 64)) > 0 && run[0] >= last * rp)
		taken += n;
	taken += n;
	CHECK(taken == 12 + pool.npages - last * rp - (last == 1 ? 4 : 0) + n,
	      "CPU %u took its region's %u pages first", last, taken - 12 - n);
	CHECK(n && run[0] == 8, "CPU %u, its region empty, takes region 0's: page %u", last,
	      run[0]);
	/* A page of the last region goes back there, whoever frees it. */
	tp_pool_put_free(&pool, last * rp + 5);
	CHECK(tp_pool_take_free(&pool, last, &page) && page == last * rp + 5,
	      "CPU %u takes its region's freed page back first: %u", last, page);
	CHECK(tp_pool_free_estimate(&pool) == pool.npages - taken,
	      "the free estimate counts every region's pages: %u of %u",
	      tp_pool_free_estimate(&pool), pool.npages - taken);
	tp_pool_destroy(&pool);
}

int main(void)
{
	uint32_t run[16], page;
	uint32_t n, got;

	tpoint_set_log(count_left, NULL);
	CHECK(tp_pool_create(&pool, 64 * TPOINT_PAGE_SIZE, TPOINT_MODE_DISCARD) == 0,
	      "tp_pool_create");
	CHECK(pool.nregions == 1, "a pool of 64 pages is one region, not %u", pool.nregions);
	owned = calloc(1024, 1);
	if (!owned)
		return 1;

	/* A fresh pool hands out its pages in order, a run at a time. */
	CHECK(tp_pool_take_free_run(&pool, 0, run, 16) == 16, "a run of 16 from a fresh pool");
	for (uint32_t k = 0; k < 16; k++)
		CHECK(run[k] == k, "run[%u] is page %u", k, run[k]);
	CHECK(tp_pool_take_free_run(&pool, 0, run, 3) == 3 && run[0] == 16 && run[2] == 18,
	      "the next run of 3 starts at page %u", run[0]);
	/* What is left, and no more; then nothing. */
	for (n = 19; (got = tp_pool_take_free_run(&pool, 0, run, 16)) > 0; n += got)
		CHECK(got == 16 || n + got == pool.npages, "a run of %u with %u pages left", got,
		      pool.npages - n);
	CHECK(n == pool.npages, "runs took %u pages of %u", n, pool.npages);
	CHECK(tp_pool_take_free_run(&pool, 0, run, 16) == 0, "a run from an empty queue");
	CHECK(!tp_pool_take_free(&pool, 0, &page), "a page from an empty queue");
	/* Back in the queue's order: taken in that order. */
	for (uint32_t k = 0; k < pool.npages; k++)
		tp_pool_put_free(&pool, (k * 7) % pool.npages); /* 64 pages: 7 is coprime */
	CHECK(tp_pool_take_free_run(&pool, 0, run, 4) == 4, "a run of 4 after putting all back");
	for (uint32_t k = 0; k < 4; k++)
		CHECK(run[k] == (k * 7) % pool.npages, "run[%u] is page %u", k, run[k]);
	/* Full pages come out in the order they were handed in, as a run or one by one. */
	CHECK(tp_pool_take_free(&pool, 0, &run[4]), "one more page");
	CHECK(tp_pool_put_full_run(&pool, run, 4) == 4, "a run of 4 full pages handed in");
	CHECK(tp_pool_put_full(&pool, run[4]), "one full page after the run");
	for (uint32_t k = 0; k < 5; k++) {
		uint32_t want = run[k];

		CHECK(tp_pool_take_full(&pool, &page) && page == want, "full page %u is %u", k,
		      page);
		CHECK(pool.meta[page].state == PAGE_FULL, "page %u marked full", page);
		tp_pool_put_free(&pool, page);
	}
	CHECK(!tp_pool_take_full(&pool, &page), "a page from an empty full queue");
	/* Overwrite mode takes the oldest full pages back a run at a time, and no more. */
	CHECK(tp_pool_take_free_run(&pool, 0, run, 5) == 5, "five free pages");
	CHECK(tp_pool_put_full_run(&pool, run, 5) == 5, "handed in as full");
	{
		uint32_t back[8];

		CHECK(tp_pool_take_full_run(&pool, back, 3) == 3 && back[0] == run[0] &&
		      back[2] == run[2], "the oldest 3 full pages taken back at once");
		CHECK(tp_pool_take_full_run(&pool, back + 3, 8) == 2 && back[3] == run[3] &&
		      back[4] == run[4], "then the 2 left, of 8 asked for");
		CHECK(tp_pool_take_full_run(&pool, back, 8) == 0, "a run from an empty full queue");
		for (uint32_t k = 0; k < 5; k++)
			tp_pool_put_free(&pool, back[k]);
	}

	race();
	tp_pool_destroy(&pool);
	regions();
	/* The race again, over regions (where there are CPUs for them): threads take from
	 * their own and each other's, and free pages into whichever region they belong to. */
	CHECK(tp_pool_create(&pool, 1024 * TPOINT_PAGE_SIZE, TPOINT_MODE_DISCARD) == 0,
	      "tp_pool_create");
	race();
	tp_pool_destroy(&pool);
	free(owned);
	return tu_finish();
}
