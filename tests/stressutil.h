/* SPDX-License-Identifier: MIT */
/*
 * stressutil.h - records that prove themselves intact, for stress_test and signal_test.
 *
 * A writer fills a tpt_stress record from (tid, seq, val): a pad string whose length and
 * letters follow from seq and val, and a checksum over all of it. A reader recomputes the
 * checksum from the text trace-cmd printed, so a torn record, two records mixed, a field of
 * one thread in another's record or a string cut short all show. Async-signal-safe: only
 * arithmetic and stores.
 */
#ifndef TPOINT_STRESSUTIL_H
#define TPOINT_STRESSUTIL_H

#include "testutil.h"

#define SU_PAD_MAX 320

static TU_UNUSED uint32_t su_pad_len(uint64_t seq, uint64_t val)
{
	/* Mostly short; now and then long, so that records straddle pages unevenly. */
	if (seq % 61 == 60)
		return 300;
	return (uint32_t)((seq * 7 + val) % 40);
}

static TU_UNUSED uint64_t su_sum(uint32_t tid, uint64_t seq, uint64_t val, const char *pad,
				 uint32_t len)
{
	uint64_t h = tu_mix(tu_mix(tu_mix(0x7470, tid), seq), val);

	for (uint32_t i = 0; i < len; i++)
		h = tu_mix(h, (unsigned char)pad[i]);
	return tu_mix(h, len);
}

/* Fill pad (SU_PAD_MAX + 1 bytes) and return the checksum. */
static TU_UNUSED uint64_t su_make(uint32_t tid, uint64_t seq, uint64_t val, char *pad)
{
	uint32_t len = su_pad_len(seq, val);

	for (uint32_t i = 0; i < len; i++)
		pad[i] = (char)('a' + (seq + val + i) % 26);
	pad[len] = 0;
	return su_sum(tid, seq, val, pad, len);
}

struct su_rec {
	uint32_t tid;
	uint64_t seq, val, sum;
};

/*
 * Parse "tid=%u seq=%llu val=%llu sum=%llu pad=<...>" and check it: the checksum, the pad's
 * letters, and that the tid in the payload is the common_pid trace-cmd showed. 0 when intact;
 * otherwise -1 with *why set.
 */
static TU_UNUSED int su_check(const struct tu_line *l, struct su_rec *r, const char **why)
{
	unsigned tid;
	unsigned long long seq, val, sum;
	int pos = -1;
	const char *pad, *end;
	uint32_t len;

	if (sscanf(l->text, "tid=%u seq=%llu val=%llu sum=%llu pad=<%n", &tid, &seq, &val, &sum,
		   &pos) != 4 || pos < 0) {
		*why = "text does not parse";
		return -1;
	}
	pad = l->text + pos;
	end = strrchr(pad, '>');
	if (!end || end[1]) {
		*why = "pad not closed";
		return -1;
	}
	len = (uint32_t)(end - pad);
	r->tid = tid;
	r->seq = seq;
	r->val = val;
	r->sum = sum;
	if (len != su_pad_len(seq, val)) {
		*why = "pad length wrong";
		return -1;
	}
	for (uint32_t i = 0; i < len; i++)
		if (pad[i] != (char)('a' + (seq + val + i) % 26)) {
			*why = "pad letters wrong";
			return -1;
		}
	if (su_sum(tid, seq, val, pad, len) != sum) {
		*why = "checksum mismatch";
		return -1;
	}
	if ((int)tid != l->tid) {
		*why = "payload tid differs from the record's common_pid";
		return -1;
	}
	return 0;
}

/*
 * A known limit (lib/pool.c, push_patiently()): a thread preempted inside a queue operation
 * makes the bounded MPMC ring look full to a producer that has gone a whole lap; the
 * producer waits for it, 10 ms at most, and then drops the page ("page N left the pool"),
 * which shrinks the pool for good. A signal handler that interrupted that very thread waits
 * in vain. The library logs it; the tests listen, and only when it happened do they count
 * an inexact total as this rather than a new bug.
 */
#define POOL_LEAK_BUG "lib/pool.c push_patiently() drops a page when a preempted consumer " \
		      "makes the MPMC ring look full for 10 ms"

static uint64_t su_pool_leaks;
/*
 * Block mode takes a drain that freed nothing for 100 ms as stuck, and drops (counted) until
 * it moves again: on a loaded machine that happens. The library says so; the tests count it.
 */
static uint64_t su_block_stalls;

/* The library's last error, for a check that fails to show why (a flush's damage). */
static char su_last_error[512];

static TU_UNUSED void su_log(int level, const char *msg, void *arg)
{
	(void)arg;
	/* May run in a signal handler or a writer's slow path: count and copy, print nothing. */
	if (level == 0) {
		size_t i = 0;

		for (; msg[i] && i < sizeof(su_last_error) - 1; i++)
			su_last_error[i] = msg[i];
		su_last_error[i] = 0;
	}
	if (strstr(msg, "left the pool"))
		__atomic_fetch_add(&su_pool_leaks, 1, __ATOMIC_RELAXED);
	if (strstr(msg, "block mode: no page written out"))
		__atomic_fetch_add(&su_block_stalls, 1, __ATOMIC_RELAXED);
}

static TU_UNUSED void su_listen(void)
{
	tpoint_set_log(su_log, NULL);
}

#define CHECK_EXACT(leaks_before, cond, ...)                                                 \
	do {                                                                                 \
		if (__atomic_load_n(&su_pool_leaks, __ATOMIC_RELAXED) != (leaks_before))     \
			CHECK_KNOWN_BUG(POOL_LEAK_BUG, cond, __VA_ARGS__);                   \
		else                                                                         \
			CHECK(cond, __VA_ARGS__);                                            \
	} while (0)

#endif /* TPOINT_STRESSUTIL_H */
