/* SPDX-License-Identifier: MIT */
/* Library-internal declarations shared by the files of lib/. Nothing here is exported. */
#ifndef TPOINT_INTERNAL_H
#define TPOINT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <tpoint/tpoint.h>
#include "clock.h"
#include "handover.h"
#include "hidden.h"
#include "ownfile.h"
#include "poolsize.h"
#include "salvage.h"
#include "tracedat.h"

/*
 * Defined in session.c, whose constructor reads TPOINT_EVENTS and TPOINT_RECORD. The
 * registry, which every instrumented object calls, refers to it, so that a program linked
 * with libtpoint.a gets session.o and that constructor even when it calls nothing of it.
 */
HIDDEN extern const char tp_session_linked;

/* Per-thread counters are one array of this many slots, mapped lazily. */
#define TPOINT_MAX_EVENTS 4096u

/* ---- jump.c ---- */
/* The jump-label sites of `ev` follow its enable word (call after changing the word). */
HIDDEN void tp_jump_event_changed(struct tpoint_event *ev);
/* Sites follow the USDT semaphores too (polled); whether the process has any sites. */
HIDDEN bool tp_jump_follow_words(void);
/* How often the control thread calls it while there are sites, in milliseconds. */
#define TP_JUMP_FOLLOW_MS 200
HIDDEN void tp_jump_fork_prepare(void);
HIDDEN void tp_jump_fork_parent(void);
HIDDEN void tp_jump_fork_child(void);

/* ---- log.c ---- */
HIDDEN void tp_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define tp_err(...) tp_log(0, __VA_ARGS__)
#define tp_warn(...) tp_log(1, __VA_ARGS__)
#define tp_debug(...) tp_log(2, __VA_ARGS__)
/*
 * Said even without TPOINT_DEBUG, to the log callback, else stderr: only about a recording
 * asked for by name that the library refuses to make, or that can hold nothing.
 */
HIDDEN void tp_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
HIDDEN void tp_log_init_from_env(void);
/* getenv() of TPOINT_* and XDG_RUNTIME_DIR: NULL in a setuid/setcap program (AT_SECURE). */
HIDDEN const char *tp_getenv(const char *name);

/* ---- registry.c, patterns.c, event_filter.c, control_text.c: the events and their state ---- */
struct event_slot {
	struct tpoint_event *ev; /* NULL while the object that defines it is unloaded */
	/*
	 * Its records and their names: in its object while it is loaded, then in the copy
	 * its object left (struct meta_copy, lib/registry.c); the records NULL and the names
	 * "?" if that copy failed.
	 */
	const struct tpoint_meta_class *class_meta;
	const struct tpoint_meta_event *meta;
	const char *system;
	const char *name;
	struct meta_copy *meta_copy;
	/* Built on first need (tp_registry_slot(), tp_registry_slot_prepare()), not at registration: */
	char *condition;         /* source text, "" if none */
	char *format;            /* tracefs format text */
	char *refused;           /* why, when broken (tpoint list -p, stat -p, the spool) */
	/* TRACE_EVENT_FN: copies of the descriptor's reg/unreg, and where they stand (fn_*). */
	int (*reg)(void);
	void (*unreg)(void);
	int fn_error;            /* what the last failed reg() returned, 0 if none */
	uint16_t id;
	/* The flags last, packed: a slot is 104 bytes (a program of 3,000 events writes 76
	 * pages of them as it starts). */
	bool prepared;           /* condition, format and the print check are done */
	bool record;             /* wanted state of TPOINT_ENABLED_RECORD */
	bool client;             /* an attached client records it too (tp_registry_set_client()) */
	bool broken;             /* print format libtraceevent cannot render: never enabled
				  * (known once prepared) */
	bool refusal_said;       /* the refusal was said on stderr, once */
	bool fn_on;              /* reg() succeeded and unreg() has not run since */
	bool fn_busy;            /* a thread runs reg() or unreg() now, without the lock */
	bool fn_failed;          /* reg() failed; not called again until the event is off */
};
/* The registry lock guards the slot table; the drain thread takes it to read formats. */
HIDDEN void tp_registry_lock(void);
/*
 * The reg()/unreg() calls of TRACE_EVENT_FN events switched since the last run. Called with
 * no library lock held, by every entry point that may switch an event (the C API, probes,
 * module (un)registration, the control thread after each request): the function may take
 * any of them.
 */
HIDDEN void tp_registry_run_fn_calls(void);
HIDDEN void tp_registry_unlock(void);
HIDDEN uint32_t tp_registry_count(void);
/* Under the lock; the slot comes prepared (its format built, its print format checked). */
HIDDEN struct event_slot *tp_registry_slot(uint32_t index);
/* Events (or, of an unknown ABI, objects) refused for the ABI they were built for; *abi the
 * last such ABI. */
HIDDEN uint32_t tp_registry_refused_by_abi(unsigned *abi);
/* "system:name" of a registered event (else its address) for a message, without the lock. */
HIDDEN const char *tp_registry_event_label(const struct tpoint_event *ev, char *buf, size_t len);
/* Recording on/off for every event whose slot says record. */
HIDDEN void tp_registry_apply_recording(bool on);
/* Is any registered event enabled (and recordable)? Then something must record it. */
HIDDEN bool tp_registry_wants_recording(void);
HIDDEN int tp_registry_enable_patterns(const char *patterns, bool on, bool from_env);
HIDDEN int tp_registry_enabled_count(void);
/*
 * The events an attached client (tpoint record -p, tpoint stream) records besides the
 * process's own: comma-separated globs, or NULL for none. Kept apart from the patterns, so
 * that what the process enables or disables meanwhile stays when the client goes. Returns
 * the number of events the globs match, or -EINVAL.
 */
HIDDEN int tp_registry_set_client(const char *globs);
/* Set (or, with "", clear) the filter of "system:name" or "name"; err says why not. */
HIDDEN int tp_registry_set_filter(const char *event, const char *expr, char *err, size_t errlen);
/* The same for "system:name" or "name", registered yet or not (TPOINT_FILTER). */
HIDDEN int tp_registry_want_filter(const char *event, const char *expr, char *err, size_t errlen);
/* Texts of the control protocol (fmt/control_msg.h), malloc'ed into *buf. */
HIDDEN void tp_registry_describe(char **buf, size_t *len);
HIDDEN void tp_registry_formats(char **buf, size_t *len);
HIDDEN void tp_registry_stats_text(char **buf, size_t *len);
/* Patterns of TPOINT_EVENTS that matched no event, for the message at the end. */
HIDDEN void tp_registry_report_unmatched(void);
/* TPOINT_RECORD wrote `file` with no event enabled: say so, once, and why (tp_notice()). */
HIDDEN void tp_registry_say_nothing_enabled(const char *file);
HIDDEN void tp_registry_after_fork(void);

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
 * LIVE -> POKED -> LIVE: another thread is writing to this one's TLS (tp_writer_detach_all).
 * LIVE -> EXITING -> FREE: the thread is exiting; its TLS is about to go away.
 */
enum { THREAD_FREE = 0, THREAD_LIVE = 1, THREAD_POKED = 2, THREAD_EXITING = 3 };
HIDDEN struct thread_rec *tp_thread_list_head(void);
/* Sum of every thread's counters (live and exited) for one event index. */
HIDDEN void tp_counters_sum(uint32_t index, struct tpoint_counters *out);
HIDDEN int tp_writer_init(void);
/* After a recording stopped: make every thread leave its page at its next event. */
HIDDEN void tp_writer_detach_all(void);
HIDDEN void tp_writer_after_fork(void);
/* Count `n` records of event `index` as lost (overwritten) on behalf of this thread. */
HIDDEN void tp_writer_count_lost_index(uint32_t index, uint64_t n);
/* Records of event `index` too big for a page, since the process started (also lost). */
HIDDEN uint64_t tp_writer_too_big(uint32_t index);
/*
 * Committed records that will never reach a file (`len` bytes of a page's records, whole
 * records only) move from recorded to lost, in the calling thread's counters: totals are
 * sums over threads, so they come out exact whoever counts.
 */
HIDDEN void tp_writer_count_unrecorded(const char *records, uint64_t len);

/* ---- drain.c, spool_out.c, spool_context.c, spool_snapshot.c: the spool file ---- */
/* live: also spool partly filled pages every 50 ms, for a reader that follows the file. */
HIDDEN int tp_spool_start(struct pool *p, const char *path, bool live);
/* A new, empty spool at `path`: created exclusively, mode 0600, checked to be ours alone.
 * 0, or -errno with why. */
HIDDEN int tp_spool_create(const char *path, char *why, size_t whylen);
/*
 * A live spool of a pool that something else owns (the in-memory flight recorder): it copies
 * what writers commit, full pages and pages being written alike, and never takes a page,
 * so the pool keeps everything a snapshot would show. Stopped with tp_spool_stop().
 */
HIDDEN int tp_spool_start_reader(struct pool *p, const char *path);
/* Drain what is queued and what the writers' current pages hold, then sync the spool. */
HIDDEN int tp_spool_sync(void);
HIDDEN int tp_spool_stop(void);
/* Write what the pool holds now into a spool of its own, leaving the pages in place.
 * -EBUSY while a spool runs (its own sync is the way then). */
HIDDEN int tp_spool_snapshot(struct pool *p, const char *path);
/* While a spool runs: bring it up to date and copy it whole into `path` (the snapshot's
 * file, which the client made: it reads no other). */
HIDDEN int tp_spool_snapshot_copy(const char *path);
HIDDEN const char *tp_spool_path(void);
HIDDEN void tp_spool_set_live(bool live);
HIDDEN void tp_spool_set_mode(struct pool *p, enum tpoint_mode mode);
HIDDEN void tp_spool_fork_prepare(void);
HIDDEN void tp_spool_after_fork(void);
/* A recording begins: the counts its spools carry are from here on. */
/* Newly registered events' definitions, into the spool now (session mutex held). */
HIDDEN void tp_spool_put_events(void);
HIDDEN void tp_spool_mark_stats(void);

/* ---- session.c ---- */
HIDDEN bool tp_session_recording(void);
/* "none", "memory", "file:PATH" or "spool:PATH", for `tpoint ps`. */
HIDDEN const char *tp_session_describe(void);
/* Make sure enabled events have somewhere to go: an in-memory pool if nothing records. */
HIDDEN int tp_session_ensure_recording(void);
/* The same, if an event is enabled (tpoint_enable(), TPOINT_EVENTS, a registration). */
HIDDEN void tp_session_keep_enabled(void);
/*
 * Record for a client (tpoint record -p / stream): the events matching `patterns`, spooled to
 * `spool`. *memfd and *info (fmt/control_msg.h) let the client salvage the pages if this
 * process dies. Returns the number of events enabled, or -errno (-EBUSY: something records
 * already).
 */
struct ctl_attach_reply;
HIDDEN int tp_session_attach(const char *spool, const char *patterns, enum tpoint_mode mode,
			     size_t pool_size, bool live, int *memfd,
			     struct ctl_attach_reply *info);
/* The client is done (keep: complete the spool) or gone (drop the spool); events revert. */
HIDDEN int tp_session_detach(bool keep);
/* Write the recording's current contents into a spool; `path` gets the spool to read. */
HIDDEN int tp_session_snapshot(const char *dir, char *path, size_t pathlen);

/* ---- control.c ---- */
HIDDEN void tp_control_start(void);
HIDDEN void tp_control_fork_prepare(void);
HIDDEN void tp_control_after_fork(void);

/*
 * A public out-struct into a caller's copy of `size` bytes (tpoint_stats_sized()): what both
 * know, then zeroes for fields the caller's newer header has and this library does not.
 */
static inline void tp_copy_sized(void *dst, size_t size, const void *src, size_t have)
{
	memcpy(dst, src, size < have ? size : have);
	if (size > have)
		memset((char *)dst + have, 0, size - have);
}

/*
 * The library's own threads say they have begun, as their first statement, and fork()
 * waits for that (the *_fork_prepare() above): a thread still starting may be inside the
 * allocator (ASan's thread start-up allocates; glibc's takes no lock there), and a child
 * forked at that moment inherits the allocator's lock held, for ever. Bounded: a thread
 * that has not begun after a second is not waited for.
 */
static inline void tp_thread_begun(int *begun)
{
	__atomic_store_n(begun, 1, __ATOMIC_RELEASE);
}

static inline void tp_thread_wait_begun(const int *begun)
{
	for (int i = 0; i < 10000 && !__atomic_load_n(begun, __ATOMIC_ACQUIRE); i++)
		nanosleep(&(struct timespec){ 0, 100000 }, NULL);
}

#endif
