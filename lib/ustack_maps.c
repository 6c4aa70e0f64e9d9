/* SPDX-License-Identifier: MIT */
/*
 * ustack_maps - the mappings that name a user stack's addresses, recorded with the stacks:
 * each executable mapping of a file as a tpoint:user_stack_map record (start, end, file
 * offset, path), so that a reader turns an address into a file and an offset in it, then a
 * symbol, with the process's mappings as they were, whether the process still runs or not.
 * Records, not a trace.dat option: they reach every file a recording makes (TPOINT_RECORD,
 * tpoint record, a snapshot, a stream, a salvaged pool) with no change to any format.
 *
 * Async-signal-safe: /proc/self/maps read with system calls (lib/procmaps.c), the records
 * written as any event's. A thread that finds another writing them goes on without.
 */
#define _GNU_SOURCE
#include <time.h>
#include <unistd.h>
#include "pool.h"
#include "procmaps.h"
#include "ustack.h"

#define CREATE_TRACE_POINTS
#include "ustack_map_event.h"

/* Written again at most this often for a pc in no mapping known; always after this long. */
#define RESCAN_UNKNOWN_NS 10000000ull
#define RESCAN_ALWAYS_NS 1000000000ull

/* The executable mappings last written: what a file's reader can name. Relaxed atomics: a
 * thread that tests a pc while they change sees a range more or less, which costs a scan
 * more or less. */
#define KNOWN_MAX 256
static struct { uintptr_t lo, hi; } known_exec[KNOWN_MAX];
static unsigned nknown;
static uint64_t written_epoch; /* the pool's (recording's) they were written for */
static unsigned written_tgid;  /* and the process's: a fork child writes its own */
static uint64_t written_ns;
static int writing;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool known_pc(uintptr_t pc)
{
	unsigned n = __atomic_load_n(&nknown, __ATOMIC_ACQUIRE);

	for (unsigned i = 0; i < n && i < KNOWN_MAX; i++)
		if (pc >= __atomic_load_n(&known_exec[i].lo, __ATOMIC_RELAXED) &&
		    pc < __atomic_load_n(&known_exec[i].hi, __ATOMIC_RELAXED))
			return true;
	return false;
}

struct write_ctx {
	unsigned tgid;
	unsigned n;
};

static bool write_mapping(void *ctx, const struct tp_map *m)
{
	struct write_ctx *w = ctx;

	if (!m->executable || m->path[0] != '/')
		return true;
	__tpoint_emit_filtered_user_stack_map(w->tgid, m->lo, m->hi, (unsigned long)m->pgoff,
					      m->path, &TPOINT_EVENT_SYM(user_stack_map));
	if (w->n < KNOWN_MAX) {
		__atomic_store_n(&known_exec[w->n].lo, m->lo, __ATOMIC_RELAXED);
		__atomic_store_n(&known_exec[w->n].hi, m->hi, __ATOMIC_RELAXED);
		w->n++;
	}
	return true;
}

/* The mappings written now, unless another thread (or the code this handler interrupted)
 * is writing them. */
static void write_maps(const struct pool *pool, unsigned tgid, uint64_t now)
{
	struct write_ctx w = { .tgid = tgid };

	if (__atomic_exchange_n(&writing, 1, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&nknown, 0, __ATOMIC_RELEASE);
	if (tp_maps_each(write_mapping, &w) == 0) {
		__atomic_store_n(&nknown, w.n, __ATOMIC_RELEASE);
		__atomic_store_n(&written_epoch, pool->epoch, __ATOMIC_RELAXED);
		__atomic_store_n(&written_tgid, tgid, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&written_ns, now, __ATOMIC_RELAXED);
	__atomic_store_n(&writing, 0, __ATOMIC_RELEASE);
}

void tp_ustack_maps_note(const uintptr_t *pcs, unsigned n, unsigned tgid)
{
	struct pool *pool = __atomic_load_n(&tp_active_pool, __ATOMIC_ACQUIRE);
	uint64_t now = now_ns(), last = __atomic_load_n(&written_ns, __ATOMIC_RELAXED);
	bool unknown = false;

	if (!pool)
		return;
	for (unsigned i = 0; i < n && !unknown; i++)
		unknown = !known_pc(pcs[i]);
	if (__atomic_load_n(&written_epoch, __ATOMIC_RELAXED) == pool->epoch &&
	    __atomic_load_n(&written_tgid, __ATOMIC_RELAXED) == tgid && now - last < RESCAN_ALWAYS_NS && !(unknown && now - last >= RESCAN_UNKNOWN_NS))
		return;
	write_maps(pool, tgid, now);
}

void tp_ustack_maps_refresh(void)
{
	struct pool *pool = __atomic_load_n(&tp_active_pool, __ATOMIC_ACQUIRE);

	/* Only a recording that holds stacks: the first stack wrote them for this pool. */
	if (pool && __atomic_load_n(&written_epoch, __ATOMIC_RELAXED) == pool->epoch)
		write_maps(pool, (unsigned)getpid(), now_ns());
}
