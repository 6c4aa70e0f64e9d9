/* SPDX-License-Identifier: MIT */
/*
 * A thread's record (struct thread_rec): what the writer (lib/writer.c) keeps of each thread
 * that traced, beside its TLS, and what the triggers read of it (their caches, the scratch
 * page, the synthetic records waiting). Types only: those who read a record stand apart
 * from the writer that makes it.
 */
#ifndef TPOINT_THREAD_REC_H
#define TPOINT_THREAD_REC_H

#include <stdint.h>
#include <sys/types.h>
#include <tpoint/tpoint.h>

/* The longest run of pages a stream takes from the free queue at once (reserve_take()). */
#define RESERVE_RUN_MAX 64u
/* A thread record's last few histogram tables, by trigger id (lib/trigger.c). */
#define TRIG_CACHE_WAYS 8
struct trig_cache {
	uint64_t id;
	void *node;
};

/* The page index of a scratch stream: the thread's own page, never published. */
#define TP_SCRATCH_PAGE UINT32_MAX
/* The same, for a record built there because tracing_on is off (see trigger_commit()). */
#define TP_SCRATCH_OFF_PAGE (UINT32_MAX - 1)
#define tp_stream_scratch(s) ((s)->page >= TP_SCRATCH_OFF_PAGE)

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
	struct trig_cache trig_cache[TRIG_CACHE_WAYS];
	/*
	 * Where an event with triggers is built when it has no page to go to (no recording,
	 * or the event is on for its triggers alone, or no free page): the triggers still see
	 * it, as the kernel's soft-disabled events are built in a per-CPU buffer.
	 */
	char *scratch;
	/* Synthetic records its hit made, written after its record (lib/synth_pending.h). */
	struct synth_pending *synth_pending;
};
/*
 * LIVE -> POKED -> LIVE: another thread is writing to this one's TLS (tp_writer_detach_all).
 * LIVE -> EXITING -> FREE: the thread is exiting; its TLS is about to go away.
 */
enum { THREAD_FREE = 0, THREAD_LIVE = 1, THREAD_POKED = 2, THREAD_EXITING = 3 };

#endif
