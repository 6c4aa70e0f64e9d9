/* SPDX-License-Identifier: MIT */
/*
 * The drain thread: takes full pages from the pool, appends their records to the spool file
 * and gives the pages back, so that a program can record for as long as the disk allows.
 * It also notes what the file needs besides records: event formats, thread names, and pairs
 * of clock readings. In overwrite mode it leaves the pages alone (they are the flight
 * recorder) until the recording stops.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "clock.h"
#include "drain.h"
#include "ownfile.h"
#include "pool.h"
#include "ringbuf.h"
#include "spool.h"
#include "spool_format.h"
#include "threads.h"

/*
 * Claim a page's records from `from` up to `commit` for the spool; false when a writer took
 * the page back meanwhile, and counted them lost (count_overwritten() in writer.c).
 */
static bool claim_records(struct page_meta *m, uint64_t gen, uint32_t from, uint64_t commit)
{
	uint64_t claimed = (gen << 32) | from;

	return __atomic_compare_exchange_n(&m->spooled, &claimed, (gen << 32) | commit, false,
					   __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

/*
 * Append a page's bytes from `from` up to its commit word, as they are (SPOOL_PAGE): the
 * readers walk the records, so the drain spends nothing on them. `clock` is the page's
 * running clock at `from`.
 *
 * partial: the page is still being written. Its next part starts where this one ends (the
 * clock there goes to *clock_out), and its records are claimed from page_meta.spooled, as
 * a writer in overwrite mode may take the page back meanwhile and count them lost: what
 * the claim loses is left out. Otherwise the page is whole: one that holds nothing (its
 * only record was filtered out) still gets a chunk, so that its number is seen and the
 * reader does not take it for a lost page.
 * stable: nobody rewrites the page before the next flush, so its bytes need no copy.
 */
void tp_spool_emit_records(const char *page, struct page_meta *m, uint64_t gen,
			 uint32_t from, uint64_t clock, uint64_t *clock_out, bool partial,
			 bool stable)
{
	uint64_t commit = tp_page_commit(page); /* the bytes below it are whole */
	const char *data = page + TPOINT_PAGE_HEADER;
	struct spool_records *hdr;
	uint32_t lag;

	*clock_out = clock;
	if (commit > TPOINT_PAGE_DATA_END || (from >= commit && (from || partial)))
		return;
	tp_spool_note_tid(m->tid);
	/*
	 * A stable page is claimed before its bytes are handed on; a copy is claimed after
	 * it is made, so that a copy torn by a writer who took the page meanwhile is dropped.
	 * The clock at the end goes with the claim: the next part starts where it ends.
	 */
	if (partial && stable) {
		if (!claim_records(m, gen, from, commit))
			return;
		*clock_out = tp_page_clock_after(data + from, (uint32_t)(commit - from), clock);
	}
	hdr = tp_spool_page_chunk(data + from, (uint32_t)(commit - from), stable, &lag);
	if (!hdr)
		return;
	*hdr = (struct spool_records){
		.cpu = m->cpu, .tid = m->tid, .level = m->level, .start_off = from,
		.seq = m->seq, .lost_before = from == 0 ? m->lost_before : 0,
		.gen = gen, .end_off = (uint32_t)commit, .lag = lag, .clock = clock,
	};
	if (partial && !stable) {
		if (!claim_records(m, gen, from, commit)) {
			/* The copy is the last thing in the buffer: take it back. */
			sp->used = (size_t)((char *)hdr - sizeof(struct spool_chunk) - sp->buf);
			return;
		}
		*clock_out = tp_page_clock_after((const char *)(hdr + 1), (uint32_t)(commit - from),
						 clock);
	}
	/* Where the records are until the write: in the page, or in the copy after hdr. */
	sp->records[sp->nrecords++] = (struct iovec){
		stable ? (void *)(data + from) : (void *)(hdr + 1), commit - from
	};
}

/*
 * Append the records of pool page `idx` from where an earlier call stopped. `final`: the
 * page is full and its writer gone, so it goes back to the free queue once its records are
 * in the file.
 */
static void drain_page(uint32_t idx, bool final)
{
	struct pool *p = sp->pool;
	struct page_meta *m = &p->meta[idx];
	const char *page = tp_pool_page(p, idx);
	uint64_t gen = __atomic_load_n(&m->gen, __ATOMIC_RELAXED);
	/* Where an earlier pass stopped in this use of the page: what our claims reached. */
	uint64_t spooled = __atomic_load_n(&m->spooled, __ATOMIC_RELAXED);
	uint32_t off = (uint32_t)(spooled >> 32) == (uint32_t)gen ? (uint32_t)spooled : 0;
	uint64_t clock = off ? sp->clock_at[idx] : *(const uint64_t *)(const void *)page;

	/*
	 * A page the drain took stays put until its records are in the file; so does a page
	 * still being written in discard or block mode (its writer only appends). In overwrite
	 * mode a writer may take a full page back at any time: its bytes are copied. The mode
	 * cannot change before the flush: tp_spool_set_mode() waits for sp->io, and whoever holds
	 * sp->io flushes what it took of pages being written before letting go.
	 */
	tp_spool_emit_records(page, m, gen, off, clock, &clock, !final,
		     final || __atomic_load_n(&p->mode, __ATOMIC_RELAXED) != TPOINT_MODE_OVERWRITE);
	if (final) {
		uint64_t commit = tp_page_commit(page);

		/*
		 * Not free yet: its records are in our buffer, not in the file. Until they are,
		 * the page keeps them for whoever salvages a process killed in between. It stays
		 * marked full meanwhile: a pass of drain_partial() must find them spooled.
		 */
		__atomic_store_n(&m->spooled, (gen << 32) | (uint32_t)commit, __ATOMIC_RELAXED);
		sp->to_free[sp->nto_free++] = idx;
	}
	else
		sp->clock_at[idx] = clock;
}

/* Full pages taken at once: one CAS of the full queue for a run, not one a page. */
#define DRAIN_TAKE 64u

/*
 * The full pages queued now. `all` takes those queued meanwhile too, for the stop, when no
 * writer is left to queue more; otherwise no more than were there at the start: writers
 * queue pages as fast as they fill them, and a flush that chased them (overwrite mode, with
 * nothing else draining, two threads hammering a 16 MiB pool) took up to 12 s and spooled
 * hundreds of MiB. The drain thread comes straight back for the rest.
 */
static unsigned drain_full(bool all)
{
	uint32_t max = all ? UINT32_MAX : tp_pool_full_estimate(sp->pool);
	uint32_t idx[DRAIN_TAKE], k;
	unsigned n = 0;

	while (n < max &&
	       (k = tp_pool_take_full_run(sp->pool, idx,
					  max - n < DRAIN_TAKE ? max - n : DRAIN_TAKE))) {
		for (uint32_t i = 0; i < k; i++)
			drain_page(idx[i], true);
		n += k;
	}
	return n;
}

/*
 * What the pages being written hold; with `full`, the full pages still in the pool too: a
 * full page the drain has not taken (it filled since drain_full(), or it stays, for a
 * reader) is read where it is, as a page being written is, so that after a live pass every
 * record committed before it began is spooled (SPOOL_SYNCED). Not for a flush in overwrite
 * mode: there writers fill and queue pages as fast as it reads them.
 */
static void drain_partial(bool full)
{
	for (uint32_t i = 0; i < sp->pool->npages; i++) {
		uint32_t state = __atomic_load_n(&sp->pool->meta[i].state, __ATOMIC_ACQUIRE);

		if (state == PAGE_WRITING || (full && state == PAGE_FULL))
			drain_page(i, false);
	}
}

/* After a pass of drain_partial() begun at raw clock `clock`: the records before it are in. */
static void put_synced(uint64_t clock)
{
	uint64_t *p = tp_spool_chunk_begin(SPOOL_SYNCED, 8);

	if (p)
		*p = clock;
}

/*
 * How long the drain sleeps when it found nothing to drain. What writers fill meanwhile must
 * fit in the pool, with room to spare for a sleep that the machine stretches: at 94 M events
 * a second one thread fills 3.7 MB a millisecond, nearly half of the default pool. But each
 * wake-up costs the drain's CPU, and passes over fewer pages cost it more per event. So the
 * sleep adapts: halved when the pages found since the last one were more than a quarter of
 * the pool, doubled (up to a millisecond) when they were less than a sixteenth. The
 * figures: docs/PERFORMANCE.md, "The drain's sleep".
 */
#define DRAIN_NAP_MIN_NS 50000L
#define DRAIN_NAP_MAX_NS 1000000L

static long drain_next_nap(long nap, unsigned drained, uint32_t npages)
{
	if (drained > npages / 4)
		return nap / 2 > DRAIN_NAP_MIN_NS ? nap / 2 : DRAIN_NAP_MIN_NS;
	if (drained < npages / 16)
		return nap * 2 < DRAIN_NAP_MAX_NS ? nap * 2 : DRAIN_NAP_MAX_NS;
	return nap;
}

static void *drain_thread(void *arg)
{
	long nap = DRAIN_NAP_MAX_NS;
	unsigned drained = 0; /* pages, since the last sleep */

	(void)arg;
	tp_thread_begun(&sp->thread_begun);
	for (;;) {
		unsigned n = 0;

		pthread_mutex_lock(&sp->io);
		if (sp->stop) {
			pthread_mutex_unlock(&sp->io);
			break;
		}
		tp_spool_put_new_events();
		tp_spool_put_tracing();
		if (__atomic_load_n(&sp->pool->mode, __ATOMIC_RELAXED) != TPOINT_MODE_OVERWRITE &&
		    !sp->reader)
			n = drain_full(false);
		/*
		 * The drained pages wait for their records to reach the file. At full speed each
		 * pass finds the few pages filled during the last, and a write a pass (a system
		 * call costs a microsecond on this project's VM) took as long as everything else
		 * the drain does: so they are written out when a pass finds nothing more, when
		 * the buffer is full (spool_out.c), or when they are an eighth of the pool, lest
		 * a small pool run dry while its pages sit in our buffer.
		 */
		if (sp->nto_free && (!n || sp->nto_free >= sp->pool->npages / 8))
			tp_spool_flush();
		if (sp->live && tp_mono_now() - sp->last_live > 50000000u) {
			/* A live reader wants records within 100 ms, full pages or not. */
			struct clock_sample begun = tp_clock_sample_now();

			tp_spool_put_tracing(); /* a reader knows the windows up to the mark */
			drain_partial(true);
			put_synced(begun.clock);
			tp_spool_flush();
			sp->last_live = tp_mono_now();
		}
		if (tp_mono_now() - sp->last_clock_sample > 100000000u) {
			tp_spool_put_clock_sample();
			tp_spool_flush();
		}
		if (!n && !sp->live &&
		    __atomic_load_n(&sp->pool->mode, __ATOMIC_RELAXED) == TPOINT_MODE_OVERWRITE) {
			/*
			 * Overwrite mode: the pages stay in the pool, and nothing is due before the
			 * next clock sample. Wait for it, or for a change of mode or a stop
			 * (tp_spool_set_mode(), tp_spool_stop()): looking every millisecond would
			 * take the CPU from a writer a thousand times a second for nothing.
			 */
			uint64_t due = sp->last_clock_sample + 100000000u;
			struct timespec until = { (time_t)(due / 1000000000u),
						  (long)(due % 1000000000u) };

			pthread_cond_timedwait(&sp->wake, &sp->io, &until);
			pthread_mutex_unlock(&sp->io);
			continue;
		}
		drained += n;
		if (!n) {
			nap = drain_next_nap(nap, drained, sp->pool->npages);
			drained = 0;
		}
		pthread_mutex_unlock(&sp->io);
		if (!n) /* nothing found: sleep; pages found: look again at once */
			nanosleep(&(struct timespec){ 0, nap }, NULL);
	}
	return NULL;
}

static int start(struct pool *p, const char *path, bool live, bool reader)
{
	sigset_t all, old;
	pthread_condattr_t attr;
	int err = tp_spool_open(p, path, live);

	if (err)
		return err;
	sp->reader = reader;
	pthread_mutex_lock(&sp->io);
	if (!sp->wake_ready) { /* on the clock that tp_mono_now() reads */
		pthread_condattr_init(&attr);
		pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
		pthread_cond_init(&sp->wake, &attr);
		pthread_condattr_destroy(&attr);
		sp->wake_ready = true;
	}
	pthread_mutex_unlock(&sp->io);
	/* The drain thread takes no signal of the program's: they are meant for its threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	sp->thread_begun = 0;
	err = -pthread_create(&sp->thread, NULL, drain_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		tp_ownfd_close(&sp->file);
		unlink(path);
		tp_spool_free_state();
		return err;
	}
	pthread_setname_np(sp->thread, "tpoint-drain");
	sp->thread_running = true;
	/* Block mode may wait for us, unless we give no page back. */
	if (!reader)
		__atomic_store_n(&p->draining, true, __ATOMIC_RELAXED);
	return 0;
}

int tp_spool_start(struct pool *p, const char *path, bool live)
{
	return start(p, path, live, false);
}

int tp_spool_start_reader(struct pool *p, const char *path)
{
	return start(p, path, true, true);
}

static void sync_locked(bool final)
{
	tp_spool_put_new_events();
	/* Full pages first: within a stream they come before the page being written. */
	if (!sp->reader)
		drain_full(final);
	drain_partial(sp->reader);
	tp_spool_flush();
	tp_spool_put_closing_chunks(final);
}

int tp_spool_sync(uint64_t *synced)
{
	int err;

	if (!sp->path)
		return -ENOENT;
	pthread_mutex_lock(&sp->io);
	sync_locked(false);
	err = -sp->error;
	if (synced)
		*synced = (uint64_t)sp->file_end;
	pthread_mutex_unlock(&sp->io);
	return err;
}

int tp_spool_stop(void)
{
	int err;

	if (!sp->path)
		return -ENOENT;
	/* Writers waiting in block mode for a page go on without one (and count it lost). */
	if (!sp->reader)
		__atomic_store_n(&sp->pool->draining, false, __ATOMIC_RELAXED);
	pthread_mutex_lock(&sp->io);
	sp->stop = true;
	pthread_cond_signal(&sp->wake);
	pthread_mutex_unlock(&sp->io);
	if (sp->thread_running)
		pthread_join(sp->thread, NULL);
	sp->thread_running = false;
	pthread_mutex_lock(&sp->io);
	sync_locked(true);
	err = -sp->error;
	tp_spool_close(&err);
	tp_spool_free_state();
	pthread_mutex_unlock(&sp->io);
	return err;
}

void tp_spool_set_mode(struct pool *p, enum tpoint_mode mode)
{
	/* Under sp->io: see drain_page(), which decides per page whether to copy it. */
	pthread_mutex_lock(&sp->io);
	__atomic_store_n(&p->mode, mode, __ATOMIC_RELAXED);
	pthread_cond_signal(&sp->wake);
	pthread_mutex_unlock(&sp->io);
}

void tp_spool_set_live(bool live)
{
	pthread_mutex_lock(&sp->io);
	sp->live = live;
	pthread_cond_signal(&sp->wake);
	pthread_mutex_unlock(&sp->io);
}

void tp_spool_fork_prepare(void)
{
	if (sp->thread_running)
		tp_thread_wait_begun(&sp->thread_begun);
}
