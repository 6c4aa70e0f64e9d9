/* SPDX-License-Identifier: MIT */
/*
 * synth_pending.h - the synthetic records a hit made, kept on its thread until its own
 * record is committed, and then written by lib/synth_record.c (from the writer's
 * after_commit(), as the kernel's post-call triggers run after the commit): so a synthetic
 * record is the next record of the firing thread's stream, after the record that made it,
 * on the same clock. One queue per thread record, mapped at its first synthetic record and
 * kept for the record's next threads: nothing allocates after that.
 */
#ifndef TPOINT_SYNTH_PENDING_H
#define TPOINT_SYNTH_PENDING_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <tpoint/event.h>
#include "hist_set.h"

/* Synthetic records one hit can leave (its triggers' actions, and theirs); more are lost. */
#define SYNTH_PENDING_MAX 8

/*
 * A ring: n and head only grow (q[i % SYNTH_PENDING_MAX]), so that a signal handler that
 * queues and writes records between a hit and its flush leaves no record to write twice
 * (one that it interrupted as it was being queued may be lost).
 */
struct synth_pending {
	unsigned n;    /* queued, ever */
	unsigned head; /* written already, ever (lib/synth_record.c) */
	struct {
		struct tpoint_event *ev; /* a synthetic event's descriptor: never freed */
		uint32_t size;
		uint64_t rec[HIST_SYNTH_REC_MAX / 8 + 1];
	} q[SYNTH_PENDING_MAX];
};

/*
 * Queue one record of `ev` (`size` bytes from common_type) in *slot's queue, mapped on first
 * use (mmap: async-signal-safe). False when it was not queued: the caller counts it lost.
 */
static inline int tp_synth_pending_add(struct synth_pending **slot, struct tpoint_event *ev,
				       const void *rec, uint32_t size)
{
	struct synth_pending *p = *slot;
	unsigned n;

	if (!p) {
		void *m = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			return 0;
		p = *slot = m;
	}
	n = p->n;
	if (n - p->head == SYNTH_PENDING_MAX || size > sizeof(p->q[0].rec))
		return 0;
	p->q[n % SYNTH_PENDING_MAX].ev = ev;
	p->q[n % SYNTH_PENDING_MAX].size = size;
	memcpy(p->q[n % SYNTH_PENDING_MAX].rec, rec, size);
	__asm__ __volatile__("" ::: "memory"); /* filled before a handler could see it */
	p->n = n + 1;
	return 1;
}

#endif
