/* SPDX-License-Identifier: MIT */
/*
 * What a spool needs besides records, in chunks of their own: pairs of clock readings, the
 * names of the threads whose pages it holds, the definitions of the events, and the counts
 * (with what they do not say: events refused, records too big for a page).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "clock.h"
#include "log.h"
#include "ownfile.h"
#include "pool.h"
#include "registry.h"
#include "spool.h"
#include "spool_context.h"
#include "spool_format.h"
#include "tracing_on.h"
#include "writer.h"

void tp_spool_put_clock_sample(void)
{
	struct clock_sample cs = tp_clock_sample_now();
	uint64_t *p = tp_spool_chunk_begin(SPOOL_CLOCK, 16);

	if (p) {
		p[0] = cs.clock;
		p[1] = cs.mono;
	}
	sp->last_clock_sample = cs.mono;
}

void tp_spool_put_comm(uint32_t tid)
{
	char path[64], comm[64] = "";
	int fd;
	ssize_t n = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%u/comm", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC); /* the thread is gone */
	if (fd >= 0) {
		n = read(fd, comm, sizeof(comm) - 1);
		close(fd);
	}
	if (n <= 0)
		n = 0;
	comm[n] = 0;
	comm[strcspn(comm, "\n")] = 0;
	if (!comm[0])
		snprintf(comm, sizeof(comm), "<%u>", tid);
	size_t len = strlen(comm) + 1;
	char *p = tp_spool_chunk_begin(SPOOL_COMM, (uint32_t)(4 + len));

	if (p) {
		memcpy(p, &tid, 4);
		memcpy(p + 4, comm, len);
	}
}

/* Multiplicative hashing: tids are dense small numbers, the high bits spread them. */
static size_t tid_slot(uint32_t tid, size_t cap)
{
	return (size_t)((tid * 2654435761u) & (uint32_t)(cap - 1));
}

static bool tid_set_add(uint32_t *set, size_t cap, uint32_t tid)
{
	size_t i = tid_slot(tid, cap);

	while (set[i] && set[i] != tid) /* tid 0 is no thread: it marks a free slot */
		i = (i + 1) & (cap - 1);
	if (set[i])
		return false;
	set[i] = tid;
	return true;
}

static bool tid_known(uint32_t tid)
{
	for (size_t i = tid_slot(tid, sp->tid_set_cap); sp->tid_set[i];
	     i = (i + 1) & (sp->tid_set_cap - 1))
		if (sp->tid_set[i] == tid)
			return true;
	return false;
}

void tp_spool_note_tid(uint32_t tid)
{
	if (sp->tid_set && tid_known(tid))
		return;
	if (sp->ntids == sp->tids_cap) {
		size_t cap = sp->tids_cap ? sp->tids_cap * 2 : 64;
		uint32_t *n = realloc(sp->tids, cap * sizeof(*n));
		uint32_t *set = calloc(2 * cap, sizeof(*set));

		if (!n || !set) {
			free(set);
			if (n)
				sp->tids = n;
			return;
		}
		for (size_t i = 0; i < sp->ntids; i++)
			tid_set_add(set, 2 * cap, n[i]);
		free(sp->tid_set);
		sp->tids = n;
		sp->tids_cap = cap;
		sp->tid_set = set;
		sp->tid_set_cap = 2 * cap;
	}
	tid_set_add(sp->tid_set, sp->tid_set_cap, tid);
	sp->tids[sp->ntids++] = tid;
	tp_spool_put_comm(tid);
}

void tp_spool_put_new_events(void)
{
	tp_registry_lock();
	for (uint32_t i = sp->events_written; i < tp_registry_count(); i++) {
		struct event_slot *s = tp_registry_slot(i);
		size_t ls = strlen(s->system) + 1, ln = strlen(s->name) + 1;
		size_t lc = strlen(s->condition) + 1, lf = strlen(s->format) + 1;
		char *p = tp_spool_chunk_begin(SPOOL_EVENT, (uint32_t)(4 + ls + ln + lc + lf));

		if (!p)
			break;
		memcpy(p, &s->id, 2);
		memset(p + 2, 0, 2);
		p += 4;
		memcpy(p, s->system, ls);
		memcpy(p + ls, s->name, ln);
		memcpy(p + ls + ln, s->condition, lc);
		memcpy(p + ls + ln + lc, s->format, lf);
		sp->events_written = i + 1;
	}
	tp_registry_unlock();
}

void tp_spool_put_tracing(void)
{
	uint64_t batch[512], total;
	uint32_t n;

	while ((n = tp_tracing_log(sp->tracing_written, batch, 512, &total)) > 0) {
		uint64_t *p = tp_spool_chunk_begin(SPOOL_TRACING, 8 + n * 8u);

		if (!p)
			return;
		p[0] = sp->tracing_written;
		memcpy(p + 1, batch, n * 8u);
		sp->tracing_written += n;
	}
	if (total > TP_TRACING_LOG_MAX && sp->tracing_written == TP_TRACING_LOG_MAX) {
		sp->tracing_written++; /* said once a spool */
		tp_notice("tracing_on switched more than %u times: the later switches are not "
			  "applied to the file", TP_TRACING_LOG_MAX);
	}
}

/*
 * Events registered while a spool records (a module loaded; or the program's own, after a
 * recording that the environment started in the library's constructor): their definitions
 * go to the file now, not at the drain's next pass, so that a process ending before that
 * pass (exec, _exit(), a kill) leaves a spool that names the events of the records a
 * salvage adds from its pool. The caller holds the session's mutex, under which spools
 * start and stop.
 */
void tp_spool_put_events(void)
{
	if (!sp->path)
		return;
	pthread_mutex_lock(&sp->io);
	tp_spool_put_new_events();
	/*
	 * Whatever the buffer holds goes out: the drain thread may have put the definitions
	 * there itself, a pass before, to be written with its next batch.
	 */
	if (sp->used && !sp->snapshot)
		tp_spool_flush();
	pthread_mutex_unlock(&sp->io);
}

/*
 * The counters when the recording began: a spool's counts are the recording's own, not the
 * process's since it started (a process recorded twice by tpoint record -p, say).
 */
static struct tpoint_event_stats *stats_base;
static int nstats_base;
static uint64_t too_big_base[TPOINT_MAX_EVENTS];

void tp_spool_mark_stats(void)
{
	int n = tpoint_stats(NULL, 0);
	struct tpoint_event_stats *st = n > 0 ? calloc((size_t)n, sizeof(*st)) : NULL;

	for (uint32_t i = 0; i < TPOINT_MAX_EVENTS; i++)
		too_big_base[i] = tp_writer_too_big(i);
	free(stats_base);
	stats_base = st;
	nstats_base = st ? tpoint_stats(st, n) : 0;
	if (nstats_base > n)
		nstats_base = n; /* events registered in between start from zero */
}

void tp_spool_stats_forget(void)
{
	free(stats_base);
	stats_base = NULL;
	nstats_base = 0;
}

/*
 * What the counts do not say, in one chunk (the last one counts): events refused, records
 * too big for a page (since the recording began).
 */
static void put_notes(uint32_t n)
{
	struct spool_note *note = calloc(n ? n : 1, sizeof(*note)), *out;
	uint32_t k = 0;

	if (!note)
		return;
	tp_registry_lock();
	for (uint32_t i = 0; i < n && i < TPOINT_MAX_EVENTS; i++) {
		struct event_slot *s = tp_registry_slot(i);
		/* selected by the recording: its own or an attached client's (record -p) */
		bool selected = s && (s->record || s->client);
		bool refused = selected && s->broken;
		bool reg_failed = selected && !s->broken && s->fn_failed;
		uint64_t big = tp_writer_too_big(i) - too_big_base[i];

		if (refused || reg_failed || big)
			note[k++] = (struct spool_note){
				(uint16_t)(TPOINT_FIRST_ID + i),
				refused ? SPOOL_NOTE_REFUSED : reg_failed ? SPOOL_NOTE_REG_FAILED : 0,
				reg_failed ? s->fn_error : 0, big };
	}
	tp_registry_unlock();
	out = k ? tp_spool_chunk_begin(SPOOL_NOTES, k * (uint32_t)sizeof(*out)) : NULL;
	if (out)
		memcpy(out, note, k * sizeof(*out));
	free(note);
}

void tp_spool_put_stats(void)
{
	int n = tpoint_stats(NULL, 0);
	struct tpoint_event_stats *st;
	struct spool_stat *out;

	if (n <= 0)
		return;
	st = calloc((size_t)n, sizeof(*st));
	if (!st)
		return;
	n = tpoint_stats(st, n) < n ? tpoint_stats(st, n) : n;
	for (int i = 0; i < n && i < nstats_base; i++) {
		st[i].cond_skipped -= stats_base[i].cond_skipped;
		st[i].filtered -= stats_base[i].filtered;
		st[i].recorded -= stats_base[i].recorded;
		st[i].lost -= stats_base[i].lost;
	}
	out = tp_spool_chunk_begin(SPOOL_STATS, (uint32_t)((size_t)n * sizeof(*out)));
	for (int i = 0; out && i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].id = (uint16_t)(TPOINT_FIRST_ID + i);
		out[i].cond_skipped = st[i].cond_skipped;
		out[i].filtered = st[i].filtered;
		out[i].recorded = st[i].recorded;
		out[i].lost = st[i].lost;
	}
	free(st);
	put_notes((uint32_t)n);
}

/* The file, its header, the first clock sample and the formats: all but the thread. */
int tp_spool_open(struct pool *p, const char *path, bool live)
{
	int err = tp_spool_open_file(p, path, live);

	if (err)
		return err;
	tp_spool_put_clock_sample();
	tp_spool_put_new_events();
	tp_spool_flush();
	if (sp->error) {
		err = -sp->error;
		tp_ownfd_close(&sp->file);
		unlink(path);
		tp_spool_free_state();
		return err;
	}
	return 0;
}

/*
 * What closes a flush of the file: the threads' names, a clock sample and the counts, with
 * the end mark on the last one. After a failed write they are worth another try: they say
 * what was lost, and the room held for them (SPOOL_ROOM) or that of the cut-off chunks may
 * take them. The error stays the recording's.
 */
void tp_spool_put_closing_chunks(bool final)
{
	int error = sp->error;

	sp->error = 0;
	if (error)
		tp_spool_room_give_back();
	tp_spool_put_clock_sample();
	tp_spool_put_tracing();
	tp_spool_put_stats();
	if (error) /* the counts in a write of their own: the disk may not take the names too */
		tp_spool_flush();
	for (size_t i = 0; i < sp->ntids; i++)
		tp_spool_put_comm(sp->tids[i]); /* names may have changed since first seen */
	if (final)
		tp_spool_chunk_begin(SPOOL_END, 0);
	tp_spool_flush();
	if (error)
		sp->error = error;
}
