/* SPDX-License-Identifier: MIT */
/* Library-internal declarations shared by the files of lib/. Nothing here is exported. */
#ifndef TPOINT_INTERNAL_H
#define TPOINT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <tpoint/tpoint.h>

#define HIDDEN __attribute__((visibility("hidden")))

/*
 * Defined in session.c, whose constructor reads TPOINT_EVENTS and TPOINT_RECORD. The
 * registry, which every instrumented object calls, refers to it, so that a program linked
 * with libtpoint.a gets session.o and that constructor even when it calls nothing of it.
 */
HIDDEN extern const char session_linked;

/* Per-thread counters are one array of this many slots, mapped lazily. */
#define TPOINT_MAX_EVENTS 4096u

/* ---- jump.c ---- */
/* The jump-label sites of `ev` follow its enable word (call after changing the word). */
HIDDEN void jump_event_changed(struct tpoint_event *ev);
HIDDEN void jump_fork_prepare(void);
HIDDEN void jump_fork_parent(void);
HIDDEN void jump_fork_child(void);

/* ---- log.c ---- */
HIDDEN void tp_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define tp_err(...) tp_log(0, __VA_ARGS__)
#define tp_warn(...) tp_log(1, __VA_ARGS__)
#define tp_debug(...) tp_log(2, __VA_ARGS__)
HIDDEN void log_init_from_env(void);

/* ---- clock.c: the hot path's clock and CLOCK_MONOTONIC nanoseconds ---- */
struct clock_sample {
	uint64_t clock; /* tpoint_arch_clock() */
	uint64_t mono;  /* CLOCK_MONOTONIC, ns */
};
HIDDEN struct clock_sample clock_sample_now(void);
HIDDEN uint64_t mono_now(void);

/* ---- registry.c ---- */
struct event_slot {
	struct tpoint_event *ev; /* NULL while the object that defines it is unloaded */
	char system[TPOINT_NAME_MAX];
	char name[TPOINT_NAME_MAX];
	char *condition;         /* source text, "" if none */
	char *format;            /* tracefs format text */
	uint16_t id;
	bool record;             /* wanted state of TPOINT_ENABLED_RECORD */
	bool broken;             /* print format libtraceevent cannot render: never enabled */
};
/* The registry lock guards the slot table; the drain thread takes it to read formats. */
HIDDEN void registry_lock(void);
HIDDEN void registry_unlock(void);
HIDDEN uint32_t registry_count(void);
HIDDEN struct event_slot *registry_slot(uint32_t index); /* under the lock */
HIDDEN struct event_slot *registry_slot_by_id(uint16_t id);  /* under the lock */
/* Recording on/off for every event whose slot says record. */
HIDDEN void registry_apply_recording(bool on);
HIDDEN int registry_enable_patterns(const char *patterns, bool on, bool from_env);
HIDDEN int registry_enabled_count(void);
struct registry_mark;
HIDDEN struct registry_mark *registry_mark(void);
/* Undo every enable and pattern since the mark; frees it. */
HIDDEN void registry_restore(struct registry_mark *m);
/* Set (or, with "", clear) the filter of "system:name" or "name"; err says why not. */
HIDDEN int registry_set_filter(const char *event, const char *expr, char *err, size_t errlen);
/* The same for "system:name" whether or not it is registered yet (TPOINT_FILTER). */
HIDDEN int registry_want_filter(const char *event, const char *expr, char *err, size_t errlen);
/* Texts of the control protocol (control_proto.h), malloc'ed into *buf. */
HIDDEN void registry_describe(char **buf, size_t *len);
HIDDEN void registry_formats(char **buf, size_t *len);
HIDDEN void registry_stats_text(char **buf, size_t *len);
/* Patterns of TPOINT_EVENTS that matched no event, for the message at the end. */
HIDDEN void registry_report_unmatched(void);
HIDDEN void registry_after_fork(void);

/* ---- pool.c: the pages, shared memory, and the queues between writers and the drain ---- */
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

/* Regions of a pool with a free queue each: one per CPU, up to this many (pool.c). */
#define POOL_MAX_REGIONS 16u

struct pool {
	int memfd;
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
HIDDEN int pool_create(struct pool *p, size_t bytes, enum tpoint_mode mode);
HIDDEN void pool_destroy(struct pool *p);
/* After a recording: give the pages' memory and the descriptor back, keep the mapping. */
HIDDEN void pool_release_memory(struct pool *p);
HIDDEN char *pool_page(const struct pool *p, uint32_t index);
/*
 * Free pages, from the region of `cpu` (a CPU number, or any number a thread keeps) first,
 * then from the others: one page, or a run of up to `max` of one region's (how many).
 */
HIDDEN bool pool_take_free(struct pool *p, uint32_t cpu, uint32_t *index);
HIDDEN uint32_t pool_take_free_run(struct pool *p, uint32_t cpu, uint32_t *index, uint32_t max);
/* About how many pages the free queues hold (racy: for heuristics only). */
HIDDEN uint32_t pool_free_estimate(const struct pool *p);
/* The same for the full queue. */
HIDDEN uint32_t pool_full_estimate(const struct pool *p);
HIDDEN bool pool_take_full(struct pool *p, uint32_t *index);
/* The oldest full pages, up to `max` with one CAS: how many. */
HIDDEN uint32_t pool_take_full_run(struct pool *p, uint32_t *index, uint32_t max);
/* Block mode: wait for a free page while the drain runs; false when it did not come. */
HIDDEN bool pool_wait_free(struct pool *p, uint32_t cpu, uint32_t *index);
HIDDEN void pool_put_free(struct pool *p, uint32_t index);
/* The same for `n` pages, each back to its region's queue (a region's neighbours together). */
HIDDEN void pool_put_free_run(struct pool *p, const uint32_t *index, uint32_t n);
/* false: the page could not be queued and left the pool (its records are not drained). */
HIDDEN bool pool_put_full(struct pool *p, uint32_t index);
/* The same for `n` pages in one go: how many were queued, from the first on. */
HIDDEN uint32_t pool_put_full_run(struct pool *p, const uint32_t *index, uint32_t n);

/* The pool writers use; NULL while nothing records. Published with release. */
extern HIDDEN struct pool *tp_active_pool;

/* ---- writer.c: per-thread state ---- */
/* The longest run of pages a stream takes from the free queue at once (reserve_take()). */
#define RESERVE_RUN_MAX 64u
struct thread_rec {
	struct thread_rec *next; /* all records ever made; never unlinked */
	uint32_t state;          /* THREAD_FREE, THREAD_LIVE, ... */
	pid_t tid;
	struct tpoint_tls *tls;  /* the thread's TLS, while LIVE */
	struct tpoint_counters *counters; /* TPOINT_MAX_EVENTS slots */
	uint64_t lost_pending[TPOINT_MAX_NESTING];
	/* The pool each stream's page is from, by epoch: pool addresses get reused. */
	uint64_t stream_epoch[TPOINT_MAX_NESTING];
	uint64_t seq;            /* recording epoch << 32 | pages taken in it (next_page_seq()) */
	uint32_t start_cpu;      /* without rseq, the CPU of all its pages (page_cpu()) */
	struct page_reserve {    /* free pages taken at once, per level (reserve_take()) */
		uint64_t epoch;  /* of the pool they are from */
		uint32_t next, count;
		uint32_t pages[RESERVE_RUN_MAX];
		uint32_t nfull;  /* full pages held back, to be handed in at once (retire_or_hold()) */
		uint32_t full[RESERVE_RUN_MAX];
	} reserve[TPOINT_MAX_NESTING];
};
/*
 * LIVE -> POKED -> LIVE: another thread is writing to this one's TLS (writer_detach_all).
 * LIVE -> EXITING -> FREE: the thread is exiting; its TLS is about to go away.
 */
enum { THREAD_FREE = 0, THREAD_LIVE = 1, THREAD_POKED = 2, THREAD_EXITING = 3 };
HIDDEN struct thread_rec *thread_list_head(void);
/* Sum of every thread's counters (live and exited) for one event index. */
HIDDEN void counters_sum(uint32_t index, struct tpoint_counters *out);
HIDDEN int writer_init(void);
/* After a recording stopped: make every thread leave its page at its next event. */
HIDDEN void writer_detach_all(void);
HIDDEN void writer_after_fork(void);
/* Count `n` records of event `index` as lost (overwritten) on behalf of this thread. */
HIDDEN void writer_count_lost_index(uint32_t index, uint64_t n);
/*
 * Committed records that will never reach a file (`len` bytes of a page's records, whole
 * records only) move from recorded to lost, in the calling thread's counters: totals are
 * sums over threads, so they come out exact whoever counts.
 */
HIDDEN void writer_count_unrecorded(const char *records, uint64_t len);

/* ---- spool.c: the drain thread and the spool file ---- */
/* live: also spool partly filled pages every 50 ms, for a reader that follows the file. */
HIDDEN int spool_start(struct pool *p, const char *spool_path, bool live);
/* Drain what is queued and what the writers' current pages hold, then sync the spool. */
HIDDEN int spool_sync(void);
HIDDEN int spool_stop(void);
/* Write what the pool holds now into a spool of its own, leaving the pages in place.
 * -EBUSY while a spool runs (its own sync is the way then). */
HIDDEN int spool_snapshot(struct pool *p, const char *path);
HIDDEN const char *spool_path(void);
HIDDEN void spool_set_live(bool live);
HIDDEN void spool_set_mode(struct pool *p, enum tpoint_mode mode);
HIDDEN void spool_after_fork(void);
/* A recording begins: the counts its spools carry are from here on. */
HIDDEN void spool_mark_stats(void);

/* ---- tracedat.c: spool files -> trace.dat v6 ---- */
struct tracedat_event {
	char *system, *name, *condition;
	uint64_t hits, cond_skipped, filtered, recorded, lost;
};
struct tracedat_result {
	uint64_t events; /* records written */
	uint64_t lost;   /* lost, by the counters, or by the pages' marks if they say more */
	struct tracedat_event *ev; /* every event the spools describe, with its counters */
	size_t nev;
	uint32_t big_cpu;        /* the CPU with the most records in the file, */
	uint64_t big_cpu_bytes;  /* and their bytes */
	/*
	 * "PATH: offset N: what\n" lines, or NULL: what of the spools could not be read (the
	 * file holds all the rest), and the spools that end without their end mark (a process
	 * killed, or a file cut short at a chunk's end: nothing says which).
	 */
	char *damage, *unfinished;
};
HIDDEN void tracedat_result_free(struct tracedat_result *res);
/* What a reader of the file should know about its size, or NULL (trace-cmd's 2 GiB limit). */
HIDDEN const char *tracedat_size_warning(const struct tracedat_result *res, char *buf,
					 size_t len);
HIDDEN int tracedat_from_spools(const char *out_path, const char *const *spools, int nspools,
				struct tracedat_result *res, char *err, size_t errlen);

/* ---- session.c ---- */
HIDDEN bool session_recording(void);
/* "none", "memory", "file:PATH" or "spool:PATH", for `tpoint ps`. */
HIDDEN const char *session_describe(void);
/* Make sure enabled events have somewhere to go: an in-memory pool if nothing records. */
HIDDEN int session_ensure_recording(void);
/*
 * Record for a client (tpoint record -p / stream): the events matching `patterns`, spooled to
 * `spool`. *memfd and `info` ("npages\tpage_size\tmeta_offset") let the client salvage the
 * pages if this process dies. Returns the number of events enabled, or -errno
 * (-EBUSY: something records already).
 */
HIDDEN int session_attach(const char *spool, const char *patterns, enum tpoint_mode mode,
			  size_t pool_size, bool live, int *memfd, char *info, size_t infolen);
/* The client is done (keep: complete the spool) or gone (drop the spool); events revert. */
HIDDEN int session_detach(bool keep);
/* Write the recording's current contents into a spool; `path` gets the spool to read. */
HIDDEN int session_snapshot(const char *dir, char *path, size_t pathlen);

/* ---- control.c ---- */
HIDDEN void control_start(void);
HIDDEN void control_after_fork(void);

#endif
