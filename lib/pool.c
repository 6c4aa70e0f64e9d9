/* SPDX-License-Identifier: MIT */
/*
 * The page pool: a memfd holding every page the process may fill, so that memory is bounded
 * whatever the number of threads, and so that another process can map the pages. Pages move
 * between lock-free queues: free (writers take, the drain returns) and full (writers hand
 * in, the drain takes; in overwrite mode writers also take the oldest back). In block mode
 * a writer that finds no free page waits for the drain to return one.
 *
 * The free pages are kept per region: the pool is cut into one region per CPU (fewer when
 * the pool is small, see pool_regions()), a page goes back to its own region's queue, and a
 * writer takes from the region of the CPU it runs on before any other. So two writers on
 * two CPUs write apart in memory, as two processes would, instead of taking turns at the
 * pages of one queue (docs/DECISIONS.md, "Free pages by region").
 *
 * The queues are bounded MPMC rings with a sequence number per cell (D. Vyukov's design):
 * a push or pop is one CAS on the ring's head or tail plus acquire/release on the cell. No
 * lock, so a signal handler on a thread interrupted inside a queue operation can still use
 * the queue; it may see the interrupted cell as not ready and report "empty" or "full",
 * which costs one page switch at worst, never a deadlock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "clock.h"
#include "log.h"
#include "ownfile.h"
#include "pool.h"

struct pool *tp_active_pool;

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14: older C libraries do not define it */
#endif

struct mpmc_cell {
	uint64_t seq;
	uint32_t value;
};

struct mpmc_queue {
	uint64_t mask;
	/* Head and tail on their own cache lines: producers and consumers do not share. */
	uint64_t tail __attribute__((aligned(64)));
	uint64_t head __attribute__((aligned(64)));
	struct mpmc_cell cells[] __attribute__((aligned(64)));
};

static struct mpmc_queue *mpmc_create(uint32_t capacity)
{
	uint64_t n = 1;
	struct mpmc_queue *q;

	while (n < capacity)
		n <<= 1;
	q = aligned_alloc(64, (sizeof(*q) + n * sizeof(struct mpmc_cell) + 63) & ~(size_t)63);
	if (!q)
		return NULL;
	q->mask = n - 1;
	q->head = q->tail = 0;
	for (uint64_t i = 0; i < n; i++)
		q->cells[i].seq = i;
	return q;
}

/*
 * Put up to `n` values into consecutive cells with one CAS of the tail: as many as there are
 * free cells from the tail on (0 when the ring looks full). A cell says pos when it is free
 * for the lap of pos, and only a producer that moved the tail past it changes that, so the
 * cells checked before the CAS are still free once it succeeds. A writer that hands in a
 * run of full pages this way pays one contended CAS for the run.
 */
static uint32_t mpmc_push_run(struct mpmc_queue *q, const uint32_t *values, uint32_t n)
{
	uint64_t pos = __atomic_load_n(&q->tail, __ATOMIC_RELAXED);

	for (;;) {
		uint64_t seq = 0;
		uint32_t k = 0;

		/* Acquire: pairs with the consumers' release of these cells. */
		while (k < n) {
			seq = __atomic_load_n(&q->cells[(pos + k) & q->mask].seq, __ATOMIC_ACQUIRE);
			if (seq != pos + k)
				break;
			k++;
		}
		if (!k) {
			if ((int64_t)(seq - pos) < 0)
				return 0; /* full, or its next cell not released yet */
			pos = __atomic_load_n(&q->tail, __ATOMIC_RELAXED); /* others filled it */
			continue;
		}
		if (__atomic_compare_exchange_n(&q->tail, &pos, pos + k, true, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED)) {
			for (uint32_t i = 0; i < k; i++) {
				struct mpmc_cell *c = &q->cells[(pos + i) & q->mask];

				/* Relaxed atomic: a consumer may read it speculatively (below). */
				__atomic_store_n(&c->value, values[i], __ATOMIC_RELAXED);
				/* Release: the value is visible before the cell says "ready". */
				__atomic_store_n(&c->seq, pos + i + 1, __ATOMIC_RELEASE);
			}
			return k;
		}
	}
}

static bool mpmc_push(struct mpmc_queue *q, uint32_t value)
{
	return mpmc_push_run(q, &value, 1) == 1;
}

/*
 * Take up to `max` values from consecutive cells with one CAS of the head: those ready from
 * the head on, at least one. A writer that takes its pages this way gets a run of the
 * queue's order, so that pages pushed in ascending order (tp_spool_flush()) reach it
 * as neighbours in memory; and two writers pay one contended CAS per run, not per page.
 */
static uint32_t mpmc_pop_run(struct mpmc_queue *q, uint32_t *values, uint32_t max)
{
	uint64_t pos = __atomic_load_n(&q->head, __ATOMIC_RELAXED);

	for (;;) {
		uint64_t seq = 0;
		uint32_t n = 0;

		/*
		 * Acquire: pairs with the producers' release; the values are then visible. A
		 * cell says pos + 1 once filled for the lap of pos, and then nothing changes it
		 * but a consumer that moved the head past it: the values are read before the
		 * CAS, which keeps them if it succeeds. That leaves only the releases between
		 * the claim and the cells' reuse, a window as short as a single pop's, in
		 * which a producer a whole lap ahead finds the ring full (push_patiently()).
		 */
		while (n < max) {
			struct mpmc_cell *c = &q->cells[(pos + n) & q->mask];

			seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
			if (seq != pos + n + 1)
				break;
			/*
			 * Relaxed atomic: should another consumer take the cell first, a producer
			 * may be writing it right now; the CAS below then fails and drops what was
			 * read (a plain mov either way, on x86-64 and arm64).
			 */
			values[n++] = __atomic_load_n(&c->value, __ATOMIC_RELAXED);
		}
		if (!n) {
			if ((int64_t)(seq - (pos + 1)) < 0)
				return 0; /* empty, or its next value not written yet */
			pos = __atomic_load_n(&q->head, __ATOMIC_RELAXED); /* others took it */
			continue;
		}
		if (__atomic_compare_exchange_n(&q->head, &pos, pos + n, true, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED)) {
			/* Release: our reads of the values happen before the cells' reuse. */
			for (uint32_t i = 0; i < n; i++)
				__atomic_store_n(&q->cells[(pos + i) & q->mask].seq,
						 pos + i + q->mask + 1, __ATOMIC_RELEASE);
			return n;
		}
	}
}

static bool mpmc_pop(struct mpmc_queue *q, uint32_t *value)
{
	return mpmc_pop_run(q, value, 1) == 1;
}

/*
 * As many regions as CPUs, up to POOL_MAX_REGIONS, each of POOL_REGION_MIN_PAGES at least;
 * a small pool is one region. A writer whose region is empty looks through the others in
 * turn, so more regions cost more when the whole pool is taken; the bound keeps that short.
 */
#define POOL_REGION_MIN_PAGES 256u

static uint32_t pool_regions(uint32_t npages)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint32_t n = cpus > 1 ? (uint32_t)cpus : 1;

	if (n > POOL_MAX_REGIONS)
		n = POOL_MAX_REGIONS;
	if (n > npages / POOL_REGION_MIN_PAGES)
		n = npages / POOL_REGION_MIN_PAGES;
	return n ? n : 1;
}

/* The region page `index` belongs to; the last one takes what the division leaves. */
static uint32_t region_of(const struct pool *p, uint32_t index)
{
	uint32_t r = index / p->region_pages;

	return r < p->nregions ? r : p->nregions - 1;
}

_Static_assert(sizeof(struct pool_meta_header) <= POOL_META_HEADER_SIZE &&
	       POOL_META_HEADER_SIZE % 8 == 0, "the page metadata follows the header, aligned");

int tp_pool_create(struct pool *p, size_t bytes, enum tpoint_mode mode)
{
	return tp_pool_make(p, bytes, mode, true);
}

int tp_pool_make(struct pool *p, size_t bytes, enum tpoint_mode mode, bool populate)
{
	uint32_t npages = (uint32_t)(bytes / TPOINT_PAGE_SIZE);
	size_t meta_bytes, total;
	int fd, err;

	memset(p, 0, sizeof(*p));
	p->memfd = OWNED_FD_NONE;
	if (npages < 16)
		return -EINVAL;
	meta_bytes = (POOL_META_HEADER_SIZE + (size_t)npages * sizeof(struct page_meta) +
		      TPOINT_PAGE_SIZE - 1) & ~(size_t)(TPOINT_PAGE_SIZE - 1);
	total = (size_t)npages * TPOINT_PAGE_SIZE + meta_bytes;

	fd = memfd_create("tpoint-pool", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = tp_ownfd_adopt(&p->memfd, fd);
	if (err)
		return err;
	/* Another thread of the program may close descriptors meanwhile (ownfile.c). */
	if (!tp_ownfd_intact(&p->memfd)) {
		errno = EBADF;
		goto fail;
	}
	if (ftruncate(p->memfd.fd, (off_t)total) < 0)
		goto fail;
	p->base = tp_ownfd_intact(&p->memfd) ?
		mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, p->memfd.fd, 0) : MAP_FAILED;
	if (p->base == MAP_FAILED) {
		p->base = NULL;
		goto fail;
	}
	p->size = total;
	/*
	 * Fault the pool in now rather than in the writers' hot path: a first touch of a shmem
	 * page costs a microsecond or more (allocate, zero, map), spread over the hundred-odd
	 * records the page holds: without this, an event cost three to four times as much
	 * (docs/PERFORMANCE.md, "Measurements behind the design"). It also tells now, not with a
	 * SIGBUS in a writer, that the memory is not there. Kernels before 5.14 lack
	 * MADV_POPULATE_WRITE: touch each page instead. A pool kept in memory only (events
	 * enabled, nothing recording to a file) is faulted in as it fills, and may never be.
	 */
	if (populate && madvise(p->base, total, MADV_POPULATE_WRITE) < 0) {
		if (errno != EINVAL)
			goto fail;
		for (size_t off = 0; off < total; off += TPOINT_PAGE_SIZE)
			((volatile char *)p->base)[off] = 0;
	}
	p->npages = npages;
	{
		struct pool_meta_header h = { POOL_META_MAGIC, POOL_META_VERSION,
					      POOL_META_HEADER_SIZE, sizeof(struct page_meta),
					      npages, TPOINT_PAGE_SIZE, 0 };

		memcpy(p->base + tp_pool_meta_offset(p), &h, sizeof(h));
	}
	p->meta = (struct page_meta *)(void *)(p->base + tp_pool_meta_offset(p) +
					       POOL_META_HEADER_SIZE);
	p->mode = mode;
	{
		static uint64_t epochs;

		p->epoch = __atomic_add_fetch(&epochs, 1, __ATOMIC_RELAXED);
	}
	p->nregions = pool_regions(npages);
	p->region_pages = npages / p->nregions;
	/*
	 * Twice the pages: a ring only looks full when a consumer stalled between claiming a
	 * cell and releasing it a whole lap ago, which this makes practically impossible.
	 */
	p->full_q = mpmc_create(2 * npages);
	if (!p->full_q)
		goto no_memory;
	for (uint32_t r = 0; r < p->nregions; r++) {
		uint32_t pages = r + 1 < p->nregions ? p->region_pages :
			npages - r * p->region_pages;

		if (!(p->free_q[r] = mpmc_create(2 * pages)))
			goto no_memory;
	}
	for (uint32_t i = 0; i < npages; i++)
		mpmc_push(p->free_q[region_of(p, i)], i);
	return 0;
no_memory:
	errno = ENOMEM;
fail:
	err = errno ? -errno : -EBADF;
	tp_pool_destroy(p);
	return err;
}

void tp_pool_destroy(struct pool *p)
{
	if (p->base)
		munmap(p->base, p->size);
	tp_ownfd_close(&p->memfd);
	for (uint32_t r = 0; r < POOL_MAX_REGIONS; r++)
		free(p->free_q[r]);
	free(p->full_q);
	memset(p, 0, sizeof(*p));
	p->memfd = OWNED_FD_NONE;
}

void tp_pool_release_memory(struct pool *p)
{
	/*
	 * The mapping stays (a writer preempted inside a record may still store to it: it gets
	 * a fresh zero page), but the memory goes back to the system now, and the descriptor.
	 * Through the mapping, not the descriptor: the program may have closed that, and its
	 * number may be one of the program's files now (a punched hole there once turned a
	 * daemon's log into NUL bytes; tests/daemon_test.c). MADV_REMOVE on a shared mapping
	 * of a memfd punches the hole in the memfd itself.
	 */
	if (p->base)
		madvise(p->base, p->size, MADV_REMOVE);
	tp_ownfd_close(&p->memfd);
}

char *tp_pool_page(const struct pool *p, uint32_t index)
{
	return p->base + (size_t)index * TPOINT_PAGE_SIZE;
}

uint32_t tp_pool_take_free_run(struct pool *p, uint32_t cpu, uint32_t *index, uint32_t max)
{
	uint32_t home = cpu % p->nregions, n = 0;

	for (uint32_t i = 0; i < p->nregions && !n; i++)
		n = mpmc_pop_run(p->free_q[(home + i) % p->nregions], index, max);
	return n;
}

bool tp_pool_take_free(struct pool *p, uint32_t cpu, uint32_t *index)
{
	return tp_pool_take_free_run(p, cpu, index, 1) == 1;
}

static uint32_t mpmc_length_estimate(const struct mpmc_queue *q)
{
	uint64_t tail = __atomic_load_n(&q->tail, __ATOMIC_RELAXED);
	uint64_t head = __atomic_load_n(&q->head, __ATOMIC_RELAXED);

	return tail > head ? (uint32_t)(tail - head) : 0;
}

uint32_t tp_pool_free_estimate(const struct pool *p)
{
	uint32_t n = 0;

	for (uint32_t r = 0; r < p->nregions; r++)
		n += mpmc_length_estimate(p->free_q[r]);
	return n;
}

uint32_t tp_pool_full_estimate(const struct pool *p)
{
	return mpmc_length_estimate(p->full_q);
}

bool tp_pool_take_full(struct pool *p, uint32_t *index)
{
	return mpmc_pop(p->full_q, index);
}

uint32_t tp_pool_take_full_run(struct pool *p, uint32_t *index, uint32_t max)
{
	return mpmc_pop_run(p->full_q, index, max);
}

/*
 * Overwrite mode: the oldest full pages, for a writer that found no free one. Between its
 * CAS of the tail and its release of the cell, a producer holds a cell that consumers cannot
 * pass: preempted there, it made every writer behind it find "empty", though the queue held
 * pages, and drop its events (lost) for as long as it stayed off the CPU, while their pages
 * queued before stayed in the pool, the newest to be kept: the kept records of a thread had
 * a gap (tests/stress_test under ASan; tests/pool_stall_test). So while the queue holds
 * values its head one is awaited, as push_patiently() awaits a consumer: yields, then short
 * sleeps, which give the producer the CPU, for 10 ms at most (it may be the very thread this
 * signal handler interrupted). A queue that is empty says so at once.
 */
uint32_t tp_pool_take_oldest_full_run(struct pool *p, uint32_t *index, uint32_t max)
{
	const struct timespec nap = { 0, 50000 };

	for (int i = 0;; i++) {
		uint32_t n = mpmc_pop_run(p->full_q, index, max);

		if (n || i == 64 + 200 || !mpmc_length_estimate(p->full_q))
			return n;
		if (i < 64)
			sched_yield();
		else
			nanosleep(&nap, NULL);
	}
}

/*
 * A ring never holds more than npages entries, but a consumer preempted between claiming a
 * cell and releasing it makes the ring look full to a producer that has gone a whole lap.
 * Yielding lets that consumer finish, if it shares our CPU; then short sleeps, which let the
 * scheduler run it wherever it waits, for 10 ms at most. If it still does not (it may be the
 * thread this signal handler interrupted), the caller is told how many went in, and the
 * rest leave the pool. (64 yields alone let 4 threads churning a 64-page pool on 2 CPUs
 * lose up to 61 of its pages in a run of tests/pool_test.)
 */
static uint32_t push_patiently(struct mpmc_queue *q, const uint32_t *values, uint32_t n)
{
	const struct timespec nap = { 0, 50000 };
	uint32_t done = 0;

	for (int i = 0; i < 64 + 200 && done < n;) {
		uint32_t k = mpmc_push_run(q, values + done, n - done);

		done += k;
		if (!k) {
			if (i < 64)
				sched_yield();
			else
				nanosleep(&nap, NULL);
			i++;
		}
	}
	return done;
}

/* How long block mode waits for the drain before it takes the drain for stuck. */
#define BLOCK_MAX_WAIT_NS 100000000ull

/*
 * Block mode. Sleep rather than spin: on a machine with fewer CPUs than busy threads, a
 * spinning writer takes the CPU that the drain needs. 50 us is about what the drain takes
 * to write out the 256 KiB it frees at once at full speed. Async-signal-safe (nanosleep,
 * clock_gettime), so a signal handler that traces may wait too; it returns as soon as the
 * recording stops or the drain goes away.
 */
bool tp_pool_wait_free(struct pool *p, uint32_t cpu, uint32_t *index)
{
	const struct timespec nap = { 0, 50000 };
	uint64_t since = tp_mono_now();

	while (__atomic_load_n(&p->draining, __ATOMIC_RELAXED) &&
	       !__atomic_load_n(&p->stalled, __ATOMIC_RELAXED) &&
	       __atomic_load_n(&tp_active_pool, __ATOMIC_ACQUIRE) == p) {
		nanosleep(&nap, NULL);
		if (tp_pool_take_free(p, cpu, index))
			return true;
		if (tp_mono_now() - since > BLOCK_MAX_WAIT_NS) {
			tp_warn("block mode: no page written out for %llu ms; events are dropped "
				"until the drain frees one", BLOCK_MAX_WAIT_NS / 1000000);
			__atomic_store_n(&p->stalled, true, __ATOMIC_RELAXED);
		}
	}
	return false;
}

void tp_pool_put_free_run(struct pool *p, const uint32_t *index, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		__atomic_store_n(&p->meta[index[i]].state, PAGE_FREE, __ATOMIC_RELAXED);
	/* Each stretch of one region's pages in one push: one CAS of its queue, not one a page. */
	for (uint32_t i = 0, k; i < n; i += k) {
		uint32_t r = region_of(p, index[i]), done;

		for (k = 1; i + k < n && region_of(p, index[i + k]) == r; k++)
			;
		done = push_patiently(p->free_q[r], index + i, k);
		if (done < k)
			tp_warn("%u pages left the pool: the free queue looked full", k - done);
	}
	if (__atomic_load_n(&p->stalled, __ATOMIC_RELAXED))
		__atomic_store_n(&p->stalled, false, __ATOMIC_RELAXED); /* the drain moves again */
}

void tp_pool_put_free(struct pool *p, uint32_t index)
{
	tp_pool_put_free_run(p, &index, 1);
}

uint32_t tp_pool_put_full_run(struct pool *p, const uint32_t *index, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		__atomic_store_n(&p->meta[index[i]].state, PAGE_FULL, __ATOMIC_RELAXED);
	return push_patiently(p->full_q, index, n);
}

bool tp_pool_put_full(struct pool *p, uint32_t index)
{
	return tp_pool_put_full_run(p, &index, 1) == 1;
}
