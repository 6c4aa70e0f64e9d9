/* SPDX-License-Identifier: MIT */
/* lib/pool.c: the pages, shared memory, and the queues between writers and the drain. */
#ifndef TPOINT_POOL_H
#define TPOINT_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tpoint/tpoint.h>
#include "hidden.h"
#include "ownfile.h"

struct page_meta {
	uint32_t tid;
	uint32_t cpu;
	uint32_t level;
	uint32_t state;      /* PAGE_FREE, PAGE_WRITING, PAGE_FULL */
	uint64_t lost_before; /* events of this stream lost just before the page */
	uint64_t seq;        /* order of the page within its stream */
	uint64_t gen;        /* bumped each time a writer takes the page */
	/*
	 * Who owns the records of a page being written: (gen << 32) | the bytes that the drain
	 * has already spooled of this use of the page. The drain claims more by CAS; a writer
	 * taking the page back in overwrite mode swaps in the next generation, so that each
	 * record is counted once, as recorded (in the spool) or lost (overwritten).
	 */
	uint64_t spooled;
};
enum { PAGE_FREE = 0, PAGE_WRITING = 1, PAGE_FULL = 2 };

/*
 * The head of the pool's page metadata, after its pages in the memfd. Another process reads
 * the metadata (tpoint record -p salvages the pages of a process that died; the image after
 * an exec adopts the pool), possibly one of another tpoint version: it checks this header
 * before it trusts anything after it (tp_spool_salvage_fd()). The struct page_meta array
 * begins header_size bytes after it.
 */
struct pool_meta_header {
	char magic[8];        /* POOL_META_MAGIC */
	uint32_t version;     /* POOL_META_VERSION: the layout of struct page_meta */
	uint32_t header_size; /* POOL_META_HEADER_SIZE */
	uint32_t meta_size;   /* sizeof(struct page_meta) */
	uint32_t npages;
	uint32_t page_size;   /* TPOINT_PAGE_SIZE */
	uint32_t reserved;
};
#define POOL_META_MAGIC "tpmeta\n"
#define POOL_META_VERSION 1u
#define POOL_META_HEADER_SIZE 64u

/* Regions of a pool with a free queue each: one per CPU, up to this many (pool.c). */
#define POOL_MAX_REGIONS 16u

struct pool {
	struct owned_fd memfd; /* for a client that salvages the pages (tp_session_attach()) */
	char *base;       /* npages pages */
	size_t size;
	uint32_t npages;
	struct page_meta *meta;
	uint32_t nregions;     /* free queues: one per region of the pool (pool.c) */
	uint32_t region_pages; /* pages of a region; the last has the rest */
	struct mpmc_queue *free_q[POOL_MAX_REGIONS];
	struct mpmc_queue *full_q;
	enum tpoint_mode mode;
	uint64_t epoch; /* unique per pool made in this process, never 0 */
	bool draining;  /* a drain thread gives pages back: block mode may wait for it */
	bool stalled;   /* block mode: a writer waited in vain; nobody waits until a page is freed */
};
HIDDEN int tp_pool_create(struct pool *p, size_t bytes, enum tpoint_mode mode);
/* The same; populate: fault the whole pool in now (tp_pool_create() does), else as it fills. */
HIDDEN int tp_pool_make(struct pool *p, size_t bytes, enum tpoint_mode mode, bool populate);
/* Where the page metadata (its struct pool_meta_header) begins in the memfd. */
static inline size_t tp_pool_meta_offset(const struct pool *p)
{
	return (size_t)p->npages * TPOINT_PAGE_SIZE;
}
HIDDEN void tp_pool_destroy(struct pool *p);
/* After a recording: give the pages' memory and the descriptor back, keep the mapping. */
HIDDEN void tp_pool_release_memory(struct pool *p);
HIDDEN char *tp_pool_page(const struct pool *p, uint32_t index);
/*
 * The bytes of events a pool page holds, from its commit word: the address of the page's
 * first free byte as its writer saw it (tpoint_stamp_publish()), of which the low 12 bits
 * are the page header and the events before it (pages are page-aligned in every mapping).
 * More than TPOINT_PAGE_DATA_END for a word that is no page's: a page never taken is all 0.
 */
static inline uint32_t tp_page_commit_bytes(uint64_t word)
{
	return (uint32_t)(word & (TPOINT_PAGE_SIZE - 1)) - TPOINT_PAGE_HEADER;
}
/* The same, read from a page in the pool. Acquire: pairs with the writer's release of it,
 * so that the bytes below it are whole. */
static inline uint32_t tp_page_commit(const char *page)
{
	return tp_page_commit_bytes(
		__atomic_load_n((const uint64_t *)(const void *)(page + 8), __ATOMIC_ACQUIRE));
}
/*
 * Free pages, from the region of `cpu` (a CPU number, or any number a thread keeps) first,
 * then from the others: one page, or a run of up to `max` of one region's (how many).
 */
HIDDEN bool tp_pool_take_free(struct pool *p, uint32_t cpu, uint32_t *index);
HIDDEN uint32_t tp_pool_take_free_run(struct pool *p, uint32_t cpu, uint32_t *index, uint32_t max);
/* About how many pages the free queues hold (racy: for heuristics only). */
HIDDEN uint32_t tp_pool_free_estimate(const struct pool *p);
/* The same for the full queue. */
HIDDEN uint32_t tp_pool_full_estimate(const struct pool *p);
HIDDEN bool tp_pool_take_full(struct pool *p, uint32_t *index);
/* The oldest full pages, up to `max` with one CAS: how many. */
HIDDEN uint32_t tp_pool_take_full_run(struct pool *p, uint32_t *index, uint32_t max);
HIDDEN uint32_t tp_pool_take_oldest_full_run(struct pool *p, uint32_t *index, uint32_t max);
/* Block mode: wait for a free page while the drain runs; false when it did not come. */
HIDDEN bool tp_pool_wait_free(struct pool *p, uint32_t cpu, uint32_t *index);
HIDDEN void tp_pool_put_free(struct pool *p, uint32_t index);
/* The same for `n` pages, each back to its region's queue (a region's neighbours together). */
HIDDEN void tp_pool_put_free_run(struct pool *p, const uint32_t *index, uint32_t n);
/* false: the page could not be queued and left the pool (its records are not drained). */
HIDDEN bool tp_pool_put_full(struct pool *p, uint32_t index);
/* The same for `n` pages in one go: how many were queued, from the first on. */
HIDDEN uint32_t tp_pool_put_full_run(struct pool *p, const uint32_t *index, uint32_t n);

/* The pool writers use; NULL while nothing records. Published with release. */
extern HIDDEN struct pool *tp_active_pool;

#endif
