/* SPDX-License-Identifier: MIT */
/*
 * The writers' side: each thread's TLS state, its record of counters, and the slow paths of
 * tpoint_reserve() (no page yet, page full, CPU changed, nesting too deep) and of
 * tpoint_publish() (a long pause, a filter).
 *
 * The slow path may run inside a signal handler that interrupted this very thread anywhere,
 * including inside this file: it takes no lock, calls no malloc, and only touches the
 * stream of its own nesting level. Memory comes from mmap, which is async-signal-safe.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "filter.h"
#include "log.h"
#include "pool.h"
#include "registry.h"
#include "ringbuf.h"
#include "tracing_on.h"
#include "trigger_run.h"
#include "writer.h"

/*
 * What a stacktrace trigger calls after its event (lib/ustack_record.c's tp_ustack_record(),
 * set by its constructor): a pointer, as the stack's recorder stands above this file.
 */
void (*tp_record_stack_hook)(unsigned skip);
/* What a snapshot trigger calls after its event (lib/snapshot_trigger.c), the same way. */
void (*tp_snapshot_hook)(uint32_t index, uint64_t clock);
/* What writes a hit's synthetic records after its record (lib/synth_record.c). */
void (*tp_synth_flush_hook)(void);

/* Where every thread's reservations start (struct tpoint_tls): never written. */
static struct tpoint_stream unlinked_stream = { .next = &unlinked_stream };

TPOINT_EXPORT __thread struct tpoint_tls TPOINT_TLS __attribute__((tls_model("initial-exec"))) = {
	.top = &unlinked_stream,
};
static struct thread_rec *thread_head;
static pthread_key_t thread_key;
static bool thread_key_ok;

/* Counters of threads that have exited, so that totals survive them. */
static struct tpoint_counters exited[TPOINT_MAX_EVENTS];

struct thread_rec *tp_thread_list_head(void)
{
	return __atomic_load_n(&thread_head, __ATOMIC_ACQUIRE);
}

/*
 * Forget every stream's page and link the streams, the spare last and linked to itself (see
 * struct tpoint_tls). `top` is left alone: a level may be claimed right now.
 */
static void streams_clear(struct tpoint_tls *t)
{
	for (int level = 0; level <= TPOINT_MAX_NESTING; level++) {
		struct tpoint_stream *s = &t->stream[level];

		memset(s, 0, offsetof(struct tpoint_stream, next));
		s->next = level < TPOINT_MAX_NESTING ? s + 1 : s;
	}
}

static size_t counters_end(void)
{
	return ((sizeof(struct thread_rec) + 63) & ~63ul) +
	       TPOINT_MAX_EVENTS * sizeof(struct tpoint_counters);
}

/* The record, its counters, then its scratch page (struct thread_rec). */
static size_t rec_bytes(void)
{
	return counters_end() + TPOINT_PAGE_SIZE;
}

static struct thread_rec *thread_rec_new(void)
{
	/* mmap, not malloc: this may run in a signal handler. The counters are touched
	 * lazily, so a thread costs the pages of the events it actually counts. */
	char *mem = mmap(NULL, rec_bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	struct thread_rec *rec;

	if (mem == MAP_FAILED)
		return NULL;
	rec = (struct thread_rec *)(void *)mem;
	rec->counters = (struct tpoint_counters *)(void *)(mem + ((sizeof(*rec) + 63) & ~63ul));
	rec->scratch = mem + counters_end();
	rec->state = THREAD_LIVE;
	/* Release: the record is complete before others can find it. */
	rec->next = __atomic_load_n(&thread_head, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&thread_head, &rec->next, rec, true, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
	return rec;
}

static struct thread_rec *thread_rec_reuse(void)
{
	for (struct thread_rec *r = tp_thread_list_head(); r; r = r->next) {
		uint32_t expect = THREAD_FREE;

		if (__atomic_load_n(&r->state, __ATOMIC_RELAXED) == THREAD_FREE &&
		    __atomic_compare_exchange_n(&r->state, &expect, THREAD_LIVE, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return r;
	}
	return NULL;
}

static struct thread_rec *thread_attach(struct tpoint_tls *t)
{
	struct thread_rec *rec;
	sigset_t all, old;

	/*
	 * Signals wait until the thread is attached. A handler that traced in the middle of
	 * this would attach a record of its own and take pages with it, which the rest of
	 * this function would then forget: pages never retired, numbered twice, their
	 * records put out of order in the file. Once per thread, two system calls.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (t->thread) { /* a handler attached us between thread_get()'s test and here */
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return (struct thread_rec *)t->thread;
	}
	rec = thread_rec_reuse();
	if (!rec)
		rec = thread_rec_new();
	if (!rec) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return NULL;
	}
	rec->tid = (pid_t)syscall(SYS_gettid);
	rec->seq = 0;
	memset(rec->lost_pending, 0, sizeof(rec->lost_pending));
	memset(rec->stream_epoch, 0, sizeof(rec->stream_epoch));
	streams_clear(t);
	t->pid_word = (uint64_t)(uint32_t)rec->tid << 32;
	t->counters = rec->counters;
	t->thread = rec;
	/* Atomic: tp_writer_detach_all() and the filter's reclaim may read it meanwhile. */
	__atomic_store_n(&rec->tls, t, __ATOMIC_RELAXED);
	tpoint_barrier();
	/* Last: the counters are whole before a hit of this thread may count into them. */
	t->ncounters = TPOINT_MAX_EVENTS;
	if (thread_key_ok)
		pthread_setspecific(thread_key, rec);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rec;
}

static struct thread_rec *thread_get(struct tpoint_tls *t)
{
	if (__builtin_expect(t->thread != NULL, 1))
		return (struct thread_rec *)t->thread;
	return thread_attach(t);
}

static void count_overwritten(struct pool *pool, uint32_t idx);

/* The free pages a thread took ahead go back, e.g. when it exits. */
static void reserve_return(struct pool *pool, struct page_reserve *r)
{
	if (pool && r->epoch == pool->epoch && r->next < r->count)
		tp_pool_put_free_run(pool, r->pages + r->next, r->count - r->next);
	r->next = r->count = 0;
}

/* The stream has no page now: its next reservation fails the room check. */
static void stream_forget_page(struct tpoint_stream *s)
{
	s->wp = s->limit = NULL;
	s->commit = NULL;
}

static void retire_page(struct pool *pool, struct tpoint_stream *s)
{
	/* A page that cannot be queued is never drained: its records count as lost. */
	if (s->wp && !tp_stream_scratch(s) && !tp_pool_put_full(pool, s->page))
		count_overwritten(pool, s->page);
	stream_forget_page(s);
}

/* The full pages a stream held back go to the full queue with one CAS; a gone pool's are
 * forgotten with it. */
static void hand_in(struct pool *pool, struct page_reserve *r)
{
	if (pool && r->epoch == pool->epoch && r->nfull) {
		uint32_t queued = tp_pool_put_full_run(pool, r->full, r->nfull);

		for (uint32_t i = queued; i < r->nfull; i++)
			count_overwritten(pool, r->full[i]);
	}
	r->nfull = 0;
}

/*
 * In overwrite mode nothing takes a full page from the queue but a writer that found no free
 * one, and a snapshot or the recording's end look at pages being written as well. So there
 * a stream holds back the full pages of its run, still marked as being written, and hands
 * them in together when the run is used up: one contended CAS a run, where two writers
 * paid one a page each (and the cache line of the queue's tail, and of its cells, went back
 * and forth between their CPUs). Never more than a run. In the other modes the drain is
 * waiting for the page: it goes now, after those held back (they are older).
 */
static void retire_or_hold(struct pool *pool, struct page_reserve *r, struct tpoint_stream *s)
{
	const uint32_t max = sizeof(r->full) / sizeof(r->full[0]);

	if (tp_stream_scratch(s)) {
		stream_forget_page(s);
		return;
	}
	if (s->wp && r->epoch == pool->epoch && r->count > 1 && r->nfull < max &&
	    __atomic_load_n(&pool->mode, __ATOMIC_RELAXED) == TPOINT_MODE_OVERWRITE) {
		r->full[r->nfull++] = s->page;
		stream_forget_page(s);
		return;
	}
	hand_in(pool, r);
	retire_page(pool, s);
}

/*
 * n more in a counter of this thread's: like tpoint_count_one(), a store that other threads'
 * atomic loads may meet, with no read-modify-write (the thread alone writes it).
 */
static void counter_add(uint64_t *counter, uint64_t n)
{
	__atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

static void thread_exit(void *arg)
{
	struct thread_rec *rec = arg;
	struct tpoint_tls *t = &TPOINT_TLS;
	struct pool *pool = __atomic_load_n(&tp_active_pool, __ATOMIC_ACQUIRE);
	uint32_t live = THREAD_LIVE;

	/* Wait out a tp_writer_detach_all() that is writing to our TLS right now. */
	while (!__atomic_compare_exchange_n(&rec->state, &live, THREAD_EXITING, false,
					    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		live = THREAD_LIVE;

	/* Nothing else of this thread can trace now: hand its pages to the drain. */
	t->ncounters = 0;
	for (int level = 0; level < TPOINT_MAX_NESTING; level++) {
		hand_in(pool, &rec->reserve[level]);
		if (pool && rec->stream_epoch[level] == pool->epoch)
			retire_page(pool, &t->stream[level]);
		reserve_return(pool, &rec->reserve[level]);
	}
	for (uint32_t i = 0; i < TPOINT_MAX_EVENTS; i++) {
		struct tpoint_counters *c = &rec->counters[i];

		if (!(c->cond_skipped | c->filtered | c->recorded | c->lost))
			continue;
		__atomic_fetch_add(&exited[i].cond_skipped, c->cond_skipped, __ATOMIC_RELAXED);
		__atomic_fetch_add(&exited[i].filtered, c->filtered, __ATOMIC_RELAXED);
		__atomic_fetch_add(&exited[i].recorded, c->recorded, __ATOMIC_RELAXED);
		__atomic_fetch_add(&exited[i].lost, c->lost, __ATOMIC_RELAXED);
		/* Stores, not memset(): tp_counters_sum() may be reading them. */
		__atomic_store_n(&c->cond_skipped, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&c->filtered, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&c->recorded, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&c->lost, 0, __ATOMIC_RELAXED);
	}
	streams_clear(t); /* first: no page is left to commit into once the counters go */
	t->thread = NULL;
	t->counters = NULL;
	rec->tls = NULL;
	__atomic_store_n(&rec->state, THREAD_FREE, __ATOMIC_RELEASE);
}

void tp_writer_detach_all(void)
{
	for (struct thread_rec *r = tp_thread_list_head(); r; r = r->next) {
		uint32_t live = THREAD_LIVE;

		if (!__atomic_compare_exchange_n(&r->state, &live, THREAD_POKED, false,
						 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		/*
		 * The owner's reservations test `limit`; NULL sends its next event to the
		 * slow path, which sees that the page belongs to a stopped recording. If the
		 * owner is in its slow path right now, the worst is one extra page switch.
		 * No TLS yet: the thread is attaching (its record is live a moment before it
		 * knows its TLS), and its streams are cleared, with no page
		 * (tests/attach_race_test.c).
		 */
		struct tpoint_tls *t = __atomic_load_n(&r->tls, __ATOMIC_RELAXED);

		for (int level = 0; t && level < TPOINT_MAX_NESTING; level++)
			__atomic_store_n(&t->stream[level].limit, NULL, __ATOMIC_RELAXED);
		__atomic_store_n(&r->state, THREAD_LIVE, __ATOMIC_RELEASE);
	}
}

int tp_writer_init(void)
{
	int err = pthread_key_create(&thread_key, thread_exit);

	thread_key_ok = err == 0;
	return -err;
}

void tp_counters_sum(uint32_t index, struct tpoint_counters *out)
{
	out->cond_skipped = __atomic_load_n(&exited[index].cond_skipped, __ATOMIC_RELAXED);
	out->filtered = __atomic_load_n(&exited[index].filtered, __ATOMIC_RELAXED);
	out->recorded = __atomic_load_n(&exited[index].recorded, __ATOMIC_RELAXED);
	out->lost = __atomic_load_n(&exited[index].lost, __ATOMIC_RELAXED);
	/* Sums modulo 2^64: an overwriting thread moves another's records from recorded to
	 * lost, so one thread's "recorded" may wrap below zero; the total does not. */
	for (struct thread_rec *r = tp_thread_list_head(); r; r = r->next) {
		const struct tpoint_counters *c = &r->counters[index];

		out->cond_skipped += __atomic_load_n(&c->cond_skipped, __ATOMIC_RELAXED);
		out->filtered += __atomic_load_n(&c->filtered, __ATOMIC_RELAXED);
		out->recorded += __atomic_load_n(&c->recorded, __ATOMIC_RELAXED);
		out->lost += __atomic_load_n(&c->lost, __ATOMIC_RELAXED);
	}
}

void tp_writer_after_fork(void)
{
	struct tpoint_tls *t = &TPOINT_TLS;

	/* Only the forking thread exists in the child; it counts and writes anew. */
	for (struct thread_rec *r = tp_thread_list_head(); r; r = r->next) {
		memset(r->counters, 0, TPOINT_MAX_EVENTS * sizeof(struct tpoint_counters));
		memset(r->stream_epoch, 0, sizeof(r->stream_epoch));
		memset(r->reserve, 0, sizeof(r->reserve)); /* the parent's pages */
		r->state = r == t->thread ? THREAD_LIVE : THREAD_FREE;
		if (r != t->thread)
			r->tls = NULL;
	}
	memset(exited, 0, sizeof(exited));
	streams_clear(t);
	if (t->thread) {
		struct thread_rec *rec = t->thread;

		rec->tid = (pid_t)syscall(SYS_gettid);
		rec->seq = 0; /* the child's file numbers its pages from 0 */
		memset(rec->lost_pending, 0, sizeof(rec->lost_pending));
		t->pid_word = (uint64_t)(uint32_t)rec->tid << 32;
	}
}

static void count_lost_index(uint32_t index, uint64_t n)
{
	struct tpoint_tls *t = &TPOINT_TLS;

	if (index < TPOINT_MAX_EVENTS && thread_get(t))
		counter_add(&t->counters[index].lost, n);
}

/* Records that were committed, then overwritten or never drained: recorded -> lost. */
static void count_unrecorded_index(uint32_t index)
{
	struct tpoint_tls *t = &TPOINT_TLS;

	if (index < TPOINT_MAX_EVENTS && thread_get(t)) {
		tpoint_count_one(&t->counters[index].lost);
		counter_add(&t->counters[index].recorded, (uint64_t)-1);
	}
}

/*
 * Records too big for a page, per event: rare, so an atomic add of a process-wide count is
 * cheap enough, and the first of each event is said (TPOINT_DEBUG) with what the limit is.
 */
static uint64_t too_big[TPOINT_MAX_EVENTS];

uint64_t tp_writer_too_big(uint32_t index)
{
	return index < TPOINT_MAX_EVENTS ? __atomic_load_n(&too_big[index], __ATOMIC_RELAXED) : 0;
}

/* The one caller is the hit's size check (stages/6_hit.h): a record over TPOINT_MAX_PAYLOAD. */
TPOINT_EXPORT void tpoint_count_lost_v1(struct tpoint_event *ev)
{
	char name[2 * TPOINT_NAME_MAX + 2];

	count_lost_index(ev->index, 1);
	if (ev->index < TPOINT_MAX_EVENTS &&
	    __atomic_fetch_add(&too_big[ev->index], 1, __ATOMIC_RELAXED) == 0)
		tp_debug("event %s: a record larger than %u bytes (TPOINT_MAX_PAYLOAD, a page "
			 "less its headers) was dropped and counted as lost; a __string or "
			 "__dynamic_array that long is cut by nothing: shorten it in TP_fast_assign's "
			 "source", tp_registry_event_label(ev, name, sizeof(name)),
			 (unsigned)TPOINT_MAX_PAYLOAD);
}

TPOINT_EXPORT struct tpoint_counters *tpoint_counters_slow_v1(struct tpoint_event *ev)
{
	/* Where counts go when there is nowhere else: never read, harmlessly shared. */
	static struct tpoint_counters sink;
	struct tpoint_tls *t = &TPOINT_TLS;

	if (ev->index >= TPOINT_MAX_EVENTS || !thread_get(t))
		return &sink;
	return &t->counters[ev->index];
}

/*
 * The CPU a page of this thread is stamped with. Without rseq (a key of 0x7fffffff or more:
 * glibc could not register it, as under qemu-user) the fast path cannot see a migration,
 * so a page never was sure to hold one CPU's records; then a thread keeps the CPU it took
 * its first page of the recording on. Its records stay in one CPU buffer of the file, in
 * their order, even where the clock is too coarse to tell two apart: a reader merging CPU
 * buffers by time may put equal timestamps either way round, and pages stamped with
 * whatever sched_getcpu() said at the time put a thread's records out of order
 * (qemu-user's 62.5 MHz counter, tests/signal_test).
 */
static uint32_t page_cpu(struct thread_rec *rec, uint32_t key)
{
	return key < 0x7fffffffu ? key : rec->start_cpu;
}

static uint32_t current_cpu(uint32_t key)
{
	int cpu;

	if (key < 0x7fffffffu)
		return key;
	cpu = sched_getcpu();
	return cpu < 0 ? 0 : (uint32_t)cpu;
}

/*
 * Records of an overwritten (or lost) page count as lost, per event, exactly: all but those
 * the drain spooled of it already (a flush, a live reader). Taking over page_meta.spooled
 * first settles a race with a drain that is copying the page right now: either its claim
 * came first and we skip what it took, or its claim fails and it drops its copy.
 */
static void count_overwritten(struct pool *pool, uint32_t idx)
{
	const char *page = tp_pool_page(pool, idx);
	struct page_meta *m = &pool->meta[idx];
	uint64_t gen = __atomic_load_n(&m->gen, __ATOMIC_RELAXED);
	uint64_t old = __atomic_exchange_n(&m->spooled, (gen + 1) << 32, __ATOMIC_ACQ_REL);
	uint32_t commit = tp_page_commit(page);
	uint64_t off = (uint32_t)(old >> 32) == (uint32_t)gen ? (uint32_t)old : 0;

	if (off < commit)
		tp_writer_count_unrecorded(page + TPOINT_PAGE_HEADER + off, commit - off);
}

HIDDEN void tp_writer_count_unrecorded(const char *records, uint64_t len)
{
	for (uint64_t off = 0; off + 8 <= len;) {
		uint32_t w = *(const uint32_t *)(const void *)(records + off);
		uint32_t array = *(const uint32_t *)(const void *)(records + off + 4);

		if (tp_rb_type_len(w) == 0) { /* a record; else a time extend, the only other kind */
			uint16_t id = *(const uint16_t *)(const void *)(records + off + 8);

			if (id >= TPOINT_FIRST_ID)
				count_unrecorded_index(id - TPOINT_FIRST_ID);
		}
		off += tp_rb_record_len(w, array);
	}
}

/*
 * Overwrite mode, no free page: the oldest full pages, a run of them, become free pages of
 * the stream's reserve. Their records count as lost now, and the pages are marked free, so
 * that neither a snapshot nor a salvage of the pool takes them for pages with records; a
 * new generation makes a snapshot that is copying one right now drop its copy, as
 * take_page() does. The oldest, so it waits for a producer preempted inside its push
 * (tp_pool_take_oldest_full_run()) rather than drop events while older pages are kept. A
 * run, not a page at a time: two writers paid two trips to the shared queues a page
 * (docs/PERFORMANCE.md, "Measurements behind the design").
 */
static uint32_t take_back_run(struct pool *pool, uint32_t *pages, uint32_t want)
{
	uint32_t n = tp_pool_take_oldest_full_run(pool, pages, want);

	for (uint32_t i = 0; i < n; i++) {
		struct page_meta *m = &pool->meta[pages[i]];

		count_overwritten(pool, pages[i]);
		__atomic_store_n(&m->gen, m->gen + 1, __ATOMIC_RELAXED);
		__atomic_store_n(&m->state, PAGE_FREE, __ATOMIC_RELEASE);
	}
	return n;
}

/*
 * A free page for a stream: the next of those the stream took at once, or a run from the
 * free queue of the region of `cpu` (another region's when that one is empty): one page, or
 * one per 64 pages of pool up to RESERVE_RUN_MAX (64, for pools of 16 MiB and more) while
 * the queues hold more than half the pool. The bound keeps many threads from holding pages
 * that others need. In overwrite mode runs go on while there are free pages at all, and
 * then come from the oldest full pages (take_back_run()).
 *
 * A run is why: pages taken in a run are neighbours in memory (the drain returns them in
 * ascending order, and so the pool starts), and a writer that moves on to the page next to
 * its last one writes at the speed of memory. Jumping to a page anywhere in the pool costs
 * a TLB miss and the hardware prefetcher's lead. A run is also one trip to a shared queue
 * for many pages, a trip two writers pay for; 64 is where the second writer's cost stopped
 * falling (docs/PERFORMANCE.md, "Measurements behind the design"). A used-up
 * run's full pages, if the stream held them back (retire_or_hold()), are handed in first.
 * Per level, so that a signal handler never touches the reserve of the code it interrupted.
 */
static bool reserve_take(struct pool *pool, struct page_reserve *r, uint32_t cpu, uint32_t *idx)
{
	const uint32_t max = RESERVE_RUN_MAX;
	uint32_t want = 1;

	if (r->epoch == pool->epoch && r->next < r->count) {
		*idx = r->pages[r->next++];
		return true;
	}
	hand_in(pool, r);
	r->epoch = pool->epoch;
	r->next = r->count = 0;
	if (tp_pool_free_estimate(pool) > pool->npages / 2 ||
	    __atomic_load_n(&pool->mode, __ATOMIC_RELAXED) == TPOINT_MODE_OVERWRITE)
		want = pool->npages / 64 < max ? pool->npages / 64 + 1 : max;
	r->count = tp_pool_take_free_run(pool, cpu, r->pages, want);
	/* While tracing_on is off (a traceoff trigger), what the flight recorder holds stays. */
	if (!r->count && __atomic_load_n(&pool->mode, __ATOMIC_RELAXED) == TPOINT_MODE_OVERWRITE &&
	    tp_tracing_is_on())
		r->count = take_back_run(pool, r->pages, want);
	if (!r->count)
		return false;
	*idx = r->pages[r->next++];
	return true;
}

/*
 * Each recording numbers a thread's pages from 0, across its levels: a gap means a lost page.
 * rec->seq holds the recording's epoch (its low 32 bits) over the count, so that one CAS
 * both takes a number and starts the count anew for a new recording: a signal handler that
 * takes a page of another level in between can get neither the same number nor one of the
 * last recording's count, as a test of the epoch and a reset apart could give it. (The count
 * has 32 bits: 16 TiB of pages per thread and recording.)
 */
static uint64_t next_page_seq(struct thread_rec *rec, const struct pool *pool)
{
	uint32_t epoch = (uint32_t)pool->epoch;
	uint64_t word = __atomic_load_n(&rec->seq, __ATOMIC_RELAXED), next;

	do
		next = (uint32_t)(word >> 32) == epoch ? word + 1 : ((uint64_t)epoch << 32) + 1;
	while (!__atomic_compare_exchange_n(&rec->seq, &word, next, true, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED));
	return (uint32_t)(next - 1);
}

static bool take_page(struct pool *pool, struct thread_rec *rec, struct tpoint_stream *s,
		      uint32_t level, uint64_t now)
{
	uint32_t idx;
	uint32_t key = tpoint_arch_cpu_key();
	/* Whose region of the pool to take from first: a hint, so without rseq (no key) the
	 * CPU of the thread's first page does, as for page_cpu(), and costs no call. */
	uint32_t cpu = page_cpu(rec, key);
	struct page_meta *m;
	char *page;

	/* Relaxed: tpoint_set_mode() may switch a running recording's pool. */
	if (!reserve_take(pool, &rec->reserve[level], cpu, &idx) &&
	    (__atomic_load_n(&pool->mode, __ATOMIC_RELAXED) != TPOINT_MODE_BLOCK ||
	     !tp_pool_wait_free(pool, cpu, &idx)))
		return false;
	page = tp_pool_page(pool, idx);
	m = &pool->meta[idx];
	/*
	 * A new generation before the page changes: a snapshot that copies pages compares the
	 * generation before and after its copy (a seqlock), and the fence keeps the increment
	 * ahead of our writes to the page.
	 */
	__atomic_store_n(&m->gen, m->gen + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&m->spooled, (m->gen) << 32, __ATOMIC_RELAXED); /* nothing spooled yet */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*(uint64_t *)(void *)page = now;
	/* The commit word of an empty page: its first free byte is the first of its events. */
	__atomic_store_n((uint64_t *)(void *)(page + 8),
			 (uint64_t)(uintptr_t)(page + TPOINT_PAGE_HEADER), __ATOMIC_RELAXED);
	m->seq = next_page_seq(rec, pool);
	if (m->seq == 0)
		rec->start_cpu = current_cpu(key); /* the thread's first page of the recording */
	m->tid = (uint32_t)rec->tid;
	m->cpu = page_cpu(rec, key);
	m->level = level;
	m->lost_before = rec->lost_pending[level];
	/* Release: the page's identity is set before the drain may look at a WRITING page. */
	__atomic_store_n(&m->state, PAGE_WRITING, __ATOMIC_RELEASE);
	rec->lost_pending[level] = 0;
	rec->stream_epoch[level] = pool->epoch;
	s->wp = page + TPOINT_PAGE_HEADER;
	s->limit = page + TPOINT_PAGE_HEADER + TPOINT_PAGE_DATA_END;
	s->commit = (uint64_t *)(void *)(page + 8);
	s->last = now;
	s->cpu_key = key;
	s->page = idx;
	return true;
}

/* Let the claimed level `s` go, as tpoint_publish() does. */
static void release_level(struct tpoint_stream *s)
{
	tpoint_barrier();
	TPOINT_TLS.top = s;
}

/*
 * The thread's scratch page as the stream's room, for one record of an event with triggers
 * that has no page to go to: the record is built there, its triggers see it, and
 * trigger_commit() drops it and forgets the page. (A handler that interrupts the hit
 * between this and its reservation and records an event of its own into the same level
 * would count that record as recorded: a window of a few instructions, on a path that is
 * already losing records.)
 */
static struct tpoint_stream *scratch_room(struct tpoint_stream *s, struct thread_rec *rec)
{
	s->wp = rec->scratch + TPOINT_PAGE_HEADER;
	s->limit = rec->scratch + TPOINT_PAGE_HEADER + TPOINT_PAGE_DATA_END;
	s->commit = (uint64_t *)(void *)(rec->scratch + 8);
	s->cpu_key = tpoint_arch_cpu_key();
	s->page = TP_SCRATCH_PAGE;
	s->last = tpoint_arch_clock();
	return s;
}

/*
 * The slow path's work: claim the thread's current level (its streams linked on its
 * first record) and make room there for a record of `total` bytes: a page of this CPU.
 * Returns the stream, the level claimed; or NULL, the record counted as lost and the level
 * released.
 */
static struct tpoint_stream *claim_room(struct tpoint_event *ev, uint32_t total)
{
	struct tpoint_tls *t = &TPOINT_TLS;
	struct tpoint_stream *s = t->top;
	uint32_t level;
	struct thread_rec *rec;
	struct pool *pool;
	const struct trigger_gate *gate;
	const struct trigger_set *ts;
	bool soft;

	if (s == &unlinked_stream) {
		/* The thread's first record: link its streams, start at level 0. A handler that
		 * interrupts this does the same; linking twice is harmless. */
		streams_clear(t);
		s = &t->stream[0];
	}
	level = (uint32_t)(s - t->stream);
	/* Claim the level first, as the fast path does (see tpoint_reserve()). */
	t->top = s->next;
	tpoint_barrier();
	rec = thread_get(t);
	pool = __atomic_load_n(&tp_active_pool, __ATOMIC_ACQUIRE);
	if (!rec || level >= TPOINT_MAX_NESTING)
		goto drop;
	if (tp_stream_scratch(s))
		stream_forget_page(s); /* left by a hit that a handler interrupted */
	gate = tp_trigger_gate(__atomic_load_n((struct filter **)&ev->filter, __ATOMIC_ACQUIRE));
	ts = gate ? gate->ts : NULL;
	soft = ts && tp_trigger_soft(ts);
	if (!pool) {
		if (!ts)
			goto drop;
		if (!soft) /* a recording event with no recording: lost, as below */
			tpoint_count_one(&t->counters[ev->index].lost);
		stream_forget_page(s); /* of a recording that ended: not ours now */
		return scratch_room(s, rec);
	}
	if (rec->stream_epoch[level] != pool->epoch)
		/* The page is from a recording that ended: forget it, it is not ours now. */
		stream_forget_page(s);
	if (soft && !s->wp)
		return scratch_room(s, rec); /* not recorded: takes no page for it */
	if (s->wp && tpoint_arch_cpu_key() != s->cpu_key)
		/* migrated: a page holds one CPU's events */
		retire_or_hold(pool, &rec->reserve[level], s);
	if (s->wp && (uintptr_t)s->wp + total > (uintptr_t)s->limit)
		retire_or_hold(pool, &rec->reserve[level], s);
	if (!s->wp && (soft || !take_page(pool, rec, s, level, tpoint_arch_clock()))) {
		if (soft)
			return scratch_room(s, rec);
		if (!tp_tracing_is_on()) {
			/*
			 * tracing_on is off (a traceoff trigger) and an overwrite-mode pool gives
			 * no full page back (reserve_take()): no page for a record the file leaves
			 * out anyway. Counted as filtered, as the file counts the records of an
			 * off window. An event with triggers is built in the scratch page: its hit
			 * may fire traceon, and then trigger_commit() gives it a page, as that
			 * record is in the file.
			 */
			if (ts) {
				scratch_room(s, rec);
				s->page = TP_SCRATCH_OFF_PAGE;
				return s;
			}
			if (ev->index < TPOINT_MAX_EVENTS)
				tpoint_count_one(&t->counters[ev->index].filtered);
			tpoint_barrier();
			t->top = s;
			return NULL;
		}
		rec->lost_pending[level]++;
		if (ts) { /* lost, and counted so; its triggers still see it */
			tpoint_count_one(&t->counters[ev->index].lost);
			return scratch_room(s, rec);
		}
		goto drop;
	}
	return s;

drop:
	if (rec && ev->index < TPOINT_MAX_EVENTS)
		tpoint_count_one(&t->counters[ev->index].lost);
	tpoint_barrier();
	t->top = s;
	return NULL;
}

TPOINT_EXPORT int tpoint_make_room_v1(struct tpoint_event *ev, uint32_t total)
{
	struct tpoint_stream *s = claim_room(ev, total);

	if (!s)
		return 0;
	tpoint_barrier();
	TPOINT_TLS.top = s;
	return 1;
}

/*
 * The record at s->wp (`total` bytes, filled) goes to a new page, which starts at `now`: the
 * time extend it needed did not fit in this one. The new page is taken before the old one
 * is retired, as the record is copied from it: once retired, the drain may hand the old page
 * to another writer. False when there is no page to take: the record is lost, the stream
 * keeps its page.
 */
static bool move_to_new_page(struct tpoint_stream *s, uint32_t total, uint64_t now)
{
	struct tpoint_tls *t = &TPOINT_TLS;
	struct thread_rec *rec = t->thread;
	struct pool *pool = __atomic_load_n(&tp_active_pool, __ATOMIC_ACQUIRE);
	uint32_t level = (uint32_t)(s - t->stream);
	struct tpoint_stream old = *s;

	/* A page from a recording that ended meanwhile is not ours to retire. */
	if (!rec || !pool || rec->stream_epoch[level] != pool->epoch)
		return false;
	if (!take_page(pool, rec, s, level, now)) {
		*s = old;
		rec->lost_pending[level]++;
		return false;
	}
	memcpy(s->wp, old.wp, total);
	retire_or_hold(pool, &rec->reserve[level], &old);
	return true;
}

/*
 * A pause too long for the 27-bit delta of the record at s->wp: a time extend before it
 * carries the whole delta, and the record's own is 0. The record moves 8 bytes on, or to a
 * new page when the extend does not fit here. False: the record is lost.
 */
static bool extend_time(struct tpoint_stream *s, uint32_t total, uint64_t now)
{
	if ((uintptr_t)s->wp + 8 + total > (uintptr_t)s->limit)
		return move_to_new_page(s, total, now);
	memmove(s->wp + 8, s->wp, total);
	tp_rb_time_extend(now - s->last, (uint32_t *)(void *)s->wp);
	s->wp += 8;
	s->last = now;
	return true;
}

/* After a long pause: a time extend first (out of line, so that publish() saves no register). */
static __attribute__((noinline, cold)) void publish_late(struct tpoint_event *ev,
							 struct tpoint_stream *s, uint32_t total,
							 uint64_t now)
{
	if (!extend_time(s, total, now)) {
		if (ev->index < TPOINT_MAX_EVENTS)
			tpoint_count_one(&tpoint_counters_of(ev)->lost);
		release_level(s);
		return;
	}
	tpoint_stamp_publish(ev, s, s->wp, total, now, 0);
}

/* tpoint_publish() for the library's paths. */
static void publish(struct tpoint_event *ev, struct tpoint_stream *s, uint32_t size)
{
	uint32_t total = tpoint_record_total(size);
	uint64_t now = tpoint_arch_clock();
	uint64_t delta = now - s->last;

	if (__builtin_expect(tp_rb_delta_too_wide(delta), 0))
		publish_late(ev, s, total, now);
	else
		tpoint_stamp_publish(ev, s, s->wp, total, now, delta);
}

TPOINT_EXPORT void tpoint_commit_slow_v1(struct tpoint_event *ev, struct tpoint_stream *s,
					 uint32_t size)
{
	tpoint_common_header(ev, s->wp + TPOINT_RECORD_HEADER);
	publish(ev, s, size);
}

/*
 * A record that a filter rejected is dropped: its level goes back, and its bytes, never
 * published, are written over by the next record.
 */
static void drop_filtered(struct tpoint_event *ev, struct tpoint_stream *s)
{
	release_level(s);
	tpoint_count_one(&tpoint_counters_of(ev)->filtered);
}

/*
 * The scratch record at s, which fired traceon, to a page of the pool (tracing was off, so
 * its hit took none): true, the stream on the new page with the record copied; false, the
 * record lost, counted so.
 */
static bool scratch_to_page(struct tpoint_stream *s, uint32_t size)
{
	struct thread_rec *rec = TPOINT_TLS.thread;
	struct pool *pool = __atomic_load_n(&tp_active_pool, __ATOMIC_ACQUIRE);
	uint32_t level = (uint32_t)(s - TPOINT_TLS.stream);
	char *from = s->wp;

	stream_forget_page(s);
	if (pool && take_page(pool, rec, s, level, tpoint_arch_clock())) {
		memcpy(s->wp, from, tpoint_record_total(size));
		return true;
	}
	return false;
}

/*
 * A scratch record built there because tracing_on was off: moved to a page and published if
 * its hit fired traceon (and its filter passes: that record is in the file), else dropped,
 * counted as filtered (lost if it wanted a page and found none). Out of line: rare.
 */
static __attribute__((noinline, cold)) void commit_off_scratch(struct tpoint_event *ev,
							       struct tpoint_stream *s,
							       const struct filter *f,
							       char *entry, uint32_t size,
							       bool soft, unsigned fire)
{
	bool keep = (fire & TRIGGER_FIRE_TRACEON) && !soft &&
		    (!f || tp_filter_match_checked(f, entry, size));

	if (keep && scratch_to_page(s, size)) {
		publish(ev, s, size);
		return;
	}
	stream_forget_page(s);
	release_level(s);
	tpoint_count_one(keep ? &tpoint_counters_of(ev)->lost : &tpoint_counters_of(ev)->filtered);
}

/*
 * What the triggers of a hit ask once its record is published or dropped, as the kernel's
 * post-call triggers run after the commit or the discard.
 */
static __attribute__((noinline)) void after_commit(const struct tpoint_event *ev,
						    unsigned fire, uint64_t at)
{
	/* Off once its record has its time stamp: the record that fired it is in the file. */
	if (fire >> TRIGGER_FIRE_TRACEOFF_SHIFT)
		tp_tracing_stamp(fire >> TRIGGER_FIRE_TRACEOFF_SHIFT, tpoint_arch_clock());
	/* Asked of the snapshot writer, which ends the file at the record (`at`, if published). */
	if (fire & TRIGGER_FIRE_SNAPSHOT) {
		void (*snap)(uint32_t, uint64_t) = __atomic_load_n(&tp_snapshot_hook,
								   __ATOMIC_RELAXED);

		if (snap)
			snap(ev->index, at ? at : tpoint_arch_clock());
	}
	/* The level let go: each synthetic record the hit made is the next of this stream. */
	if (fire & TRIGGER_FIRE_SYNTH) {
		void (*flush)(void) = __atomic_load_n(&tp_synth_flush_hook, __ATOMIC_RELAXED);

		if (flush)
			flush();
	}
	if (fire & TRIGGER_FIRE_STACK) {
		void (*stack)(unsigned) = __atomic_load_n(&tp_record_stack_hook, __ATOMIC_RELAXED);

		if (stack)
			stack(0); /* last: a tail call, so that the walk starts in the program */
	}
}

/*
 * A hit of an event with triggers (its gate sent it here, from tpoint_filter_commit_v2()): the
 * triggers see the record first, as the kernel's event_triggers_call() runs
 * before its discard test; then it is dropped if it was built in the scratch page (counted
 * already if it was lost for want of a page) or its event is on for its triggers alone
 * (counted as filtered: no record kept), or judged and published as any filtered record.
 */
static __attribute__((noinline)) void trigger_commit(struct tpoint_event *ev,
						     struct tpoint_stream *s,
						     const struct filter *f,
						     const struct trigger_set *ts, char *entry,
						     uint32_t size)
{
	unsigned fire = 0;
	uint64_t at = 0; /* the record's clock, once published */
	bool soft;

	if (ts && TPOINT_TLS.thread)
		fire = tp_trigger_run(ts, TPOINT_TLS.thread, entry, size);
	soft = !ts || tp_trigger_soft(ts); /* after them: one may have switched this event */
	if (tp_stream_scratch(s)) {
		if (__builtin_expect(s->page == TP_SCRATCH_OFF_PAGE, 0)) {
			commit_off_scratch(ev, s, f, entry, size, soft, fire);
		} else {
			stream_forget_page(s); /* for this record only */
			release_level(s);
			if (soft)
				tpoint_count_one(&tpoint_counters_of(ev)->filtered);
		}
	} else if (soft || (f && !tp_filter_match_checked(f, entry, size))) {
		drop_filtered(ev, s);
	} else {
		publish(ev, s, size);
		at = s->last;
	}
	if (__builtin_expect(fire != 0, 0))
		after_commit(ev, fire, at);
}

/* Strings, or a record too short for the fast loop: out of line, reached by a tail call. */
static __attribute__((noinline)) void judge_checked(struct tpoint_event *ev,
						    struct tpoint_stream *s,
						    const struct filter *f, const void *rec,
						    uint32_t size)
{
	if (tp_filter_match_checked(f, rec, size))
		publish(ev, s, size);
	else
		drop_filtered(ev, s);
}

/*
 * Every filtered hit comes here. The numeric loop runs inline and everything else is a tail
 * call, so that the common case saves no register and makes no call that returns.
 */
TPOINT_EXPORT void tpoint_filter_commit_v2(struct tpoint_event *ev, struct tpoint_stream *s,
					   uint32_t size)
{
	char *entry = s->wp + TPOINT_RECORD_HEADER;
	/* Acquire: pairs with the release that published the compiled filter. */
	const struct filter *f = __atomic_load_n((struct filter **)&ev->filter, __ATOMIC_ACQUIRE);

	tpoint_common_header(ev, entry); /* a filter may test common_pid */
	/*
	 * The fast loop reads whole 8-byte words, and a record owns its payload rounded up to
	 * 8 bytes (tpoint_record_total()): the aligned word around its last field is its own.
	 * The verdict depends on the fields alone, whatever the padding holds.
	 */
	if (__builtin_expect(f && !filter_fits(f, (size + 7u) & ~7u), 0)) {
		const struct trigger_gate *gate = tp_trigger_gate(f);

		/* Both tail calls: the gate of an event with triggers, or a checked filter. */
		if (gate)
			trigger_commit(ev, s, gate->filter, gate->ts, entry, size);
		else
			judge_checked(ev, s, f, entry, size);
	} else if (!f || filter_match_fast(f, entry))
		publish(ev, s, size);
	else
		drop_filtered(ev, s);
}
