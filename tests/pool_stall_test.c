/* SPDX-License-Identifier: MIT */
/*
 * A producer preempted inside a push of the full queue, between its CAS of the tail and its
 * release of the cell (lib/pool.c), holds a cell that no consumer can pass. In overwrite
 * mode the writers behind it found "empty", though the queue held pages, and dropped their
 * events for as long as it stayed off the CPU, while their pages queued before stayed, the
 * newest to be kept: a thread's kept records had a gap (tests/stress_test under ASan, about
 * one run of the 64 KiB overwrite case in 170; 20318 records dropped in that one).
 *
 * The preempted producer is made here, deterministically: the test claims a cell itself (the
 * tail's CAS, as mpmc_push_run() does it) and fills it later. tp_pool_take_oldest_full_run(),
 * what a writer of overwrite mode takes back pages with, must wait for the cell, not report
 * an empty queue: alone, it gives up after its bound (10 ms) and no sooner; with the cell
 * filled by another thread meanwhile, it returns that page, and the queue's order is kept.
 * The file includes lib/pool.c to reach the queue's cells.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/pool.c"
#include "testutil.h"


static struct pool pool;
static uint64_t claimed;      /* the position of the cell the "preempted producer" holds */
static uint32_t stalled_page; /* what it fills the cell with */

/* The first half of mpmc_push_run(): the tail moves past a cell nobody has filled yet. */
static uint64_t claim_cell(struct mpmc_queue *q)
{
	uint64_t pos = __atomic_load_n(&q->tail, __ATOMIC_RELAXED);

	while (!__atomic_compare_exchange_n(&q->tail, &pos, pos + 1, false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
	return pos;
}

/* The second half: the producer is back on a CPU. */
static void fill_cell(struct mpmc_queue *q, uint64_t pos, uint32_t value)
{
	struct mpmc_cell *c = &q->cells[pos & q->mask];

	__atomic_store_n(&c->value, value, __ATOMIC_RELAXED);
	__atomic_store_n(&c->seq, pos + 1, __ATOMIC_RELEASE);
}

static void *producer_resumes(void *arg)
{
	(void)arg;
	/* Some time off the CPU, shorter than the consumer's bound of 10 ms. */
	nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	fill_cell(pool.full_q, claimed, stalled_page);
	return NULL;
}

int main(void)
{
	uint32_t pages[16], n = 0, got[16];
	pthread_t th;
	uint64_t t0, waited;

	REQUIRE(tp_pool_make(&pool, 16 * TPOINT_PAGE_SIZE, TPOINT_MODE_OVERWRITE, false) == 0,
		"a pool of 16 pages");
	while (n < 16 && tp_pool_take_free(&pool, 0, &pages[n]))
		n++;
	REQUIRE(n == 16, "all 16 pages taken, got %u", n);

	/* Full: pages 0-3 queued; a producer claims the next cell with page 4 and stalls;
	 * pages 5-7 are queued behind it. */
	REQUIRE(tp_pool_put_full_run(&pool, pages, 4) == 4, "pages 0-3 queued");
	claimed = claim_cell(pool.full_q);
	stalled_page = pages[4];
	REQUIRE(tp_pool_put_full_run(&pool, pages + 5, 3) == 3, "pages 5-7 queued");

	/* The oldest four are taken back; the stalled cell is now at the head. */
	CHECK(tp_pool_take_oldest_full_run(&pool, got, 8) == 4 && got[0] == pages[0] &&
	      got[3] == pages[3], "the four pages before the stalled cell, in order");

	/* Nobody fills the cell: a writer waits its bound, then goes without a page. */
	t0 = tu_mono_ns();
	n = tp_pool_take_oldest_full_run(&pool, got, 1);
	waited = tu_mono_ns() - t0;
	CHECK(n == 0, "no page while the head cell stays unfilled, got %u", n);
	CHECK(waited >= 5000000, "waited %.3f ms for the stalled producer before giving up "
	      "(want the bound, 10 ms; at once, the writers behind it dropped their events)",
	      (double)waited / 1e6);

	/* The producer comes back meanwhile: the writer gets its page, then the rest in order. */
	REQUIRE(pthread_create(&th, NULL, producer_resumes, NULL) == 0, "pthread_create");
	n = 0;
	for (int tries = 0; tries < 100 && !n; tries++) /* each try waits 10 ms at most */
		n = tp_pool_take_oldest_full_run(&pool, got, 1);
	pthread_join(th, NULL);
	CHECK(n == 1 && got[0] == stalled_page, "the stalled producer's page (%u) once it is "
	      "filled, got %u pages, the first %u", stalled_page, n, n ? got[0] : 0);
	CHECK(tp_pool_take_oldest_full_run(&pool, got, 8) == 3 && got[0] == pages[5] &&
	      got[2] == pages[7], "then the three queued behind it, in order");
	CHECK(tp_pool_take_oldest_full_run(&pool, got, 8) == 0, "nothing from an empty queue");
	tp_pool_destroy(&pool);
	return tu_finish();
}
