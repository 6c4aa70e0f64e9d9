/* SPDX-License-Identifier: MIT */
/*
 * tracedat_ingest - each spool read (mapped, or copied when another user owns it): its
 * chunks checked and indexed by stream, its events mapped, its clock, counters and notes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "filter.h"
#include "growbuf.h"
#include "ringbuf.h"
#include "tracedat_format.h"
#include "tracedat_v7.h"
#include "tracedat_writer.h"

/* Raw clock -> CLOCK_MONOTONIC ns, as every reader of a spool converts it (spool_read.h). */
uint64_t tp_tdw_to_ns(struct spool_in *s, uint64_t c)
{
	return tp_spool_clock_ns(&s->clock, c);
}

struct stream_key {
	uint32_t spool, tid, level;
};

/*
 * A spool that another user owns (root's tpoint record -p lends the spool to the traced
 * process's user) is copied, not mapped: its owner could truncate it while it is read, and a
 * mapped page past the new end is a SIGBUS in the reader. It is read a window at a time and
 * walked as it comes, up to the first damage (spool_read.h): its size is the owner's to
 * choose, and one truncate() makes a gigabyte of zeros, every 16 bytes of which would be
 * a damaged chunk. So the copy holds the whole chunks before the damage and at most a
 * window more, whatever the file's size, and nothing past file_len (the size it had, or
 * what of a spool still being written is whole). *len becomes what was read; NULL when
 * out of memory.
 */
#define COPY_WINDOW (1u << 20)

static char *read_copy(int fd, uint64_t file_len, size_t *len)
{
	struct spool_walk walk = { .off = sizeof(struct spool_file_header),
				   .file_len = file_len };
	size_t got = 0, cap = 0, at;
	char *m = NULL, why[256];
	bool header = false;

	for (;;) {
		struct spool_item c;
		enum spool_step step = SPOOL_STEP_CHUNK;
		ssize_t n;

		if (cap - got < COPY_WINDOW) {
			size_t ncap = cap ? 2 * cap : 2 * COPY_WINDOW;
			char *nm = realloc(m, ncap);

			if (!nm) {
				free(m);
				return NULL;
			}
			m = nm;
			cap = ncap;
		}
		if (got >= file_len) /* grown since: a write under way, not ours to read */
			break;
		n = pread(fd, m + got, file_len - got < COPY_WINDOW ? (size_t)(file_len - got)
								     : COPY_WINDOW, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) /* the end, or cut short meanwhile: what there was */
			break;
		got += (size_t)n;
		if (!header && got >= sizeof(struct spool_file_header)) {
			if (tp_spool_header_check(m, got, &at, why, sizeof(why)))
				break; /* said by the caller's check */
			header = true;
		}
		if (!header)
			continue;
		walk.bytes = m;
		walk.len = got;
		while (step == SPOOL_STEP_CHUNK || step == SPOOL_STEP_BAD)
			step = tp_spool_next(&walk, &c, why, sizeof(why));
		if (step == SPOOL_STEP_DAMAGED) /* said by the caller's walk */
			break;
	}
	*len = got;
	return m;
}

/*
 * A spool is the traced program's writing: anything in it may be damaged, or made to look
 * like a spool. Everything is checked against the file's size before it is used; what
 * cannot be read is said (tp_tdw_damaged()) with its offset and skipped, and the rest is read. Only
 * running out of memory stops the whole file.
 */
int tp_tdw_read_spool(struct writer_state *w, uint32_t si)
{
	struct spool_in *s = &w->in[si];
	struct stat st;
	/*
	 * Not a FIFO's writer to wait for, nor a link to follow out of the directory; but a
	 * reader holding the spool open names it /proc/self/fd/N (tools/tpoint/attach.c, the
	 * spool it made and kept), a link to its own descriptor's file, which is followed.
	 */
	bool own_fd = !strncmp(s->path, "/proc/self/fd/", 14);
	int fd = open(s->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (own_fd ? 0 : O_NOFOLLOW));
	struct stream_key *keys = NULL;
	size_t nkeys = 0, at;
	uint32_t order = 0;
	const char *last_stats = NULL, *last_notes = NULL;
	size_t last_stats_count = 0, last_notes_count = 0;
	bool ended = false, walking = true;
	struct spool_walk walk;
	char why[256];

	if (fd < 0) {
		tp_tdw_damaged(w, s, 0, "cannot open: %s", strerror(errno));
		return 0;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		tp_tdw_damaged(w, s, 0, "not a regular file");
		return 0;
	}
	if (st.st_size < (off_t)sizeof(struct spool_file_header)) {
		close(fd);
		tp_tdw_damaged(w, s, 0, "%lld bytes, too short for a spool's header (%zu bytes)",
			(long long)st.st_size, sizeof(struct spool_file_header));
		return 0;
	}
	/* A spool still being written: its writer's next chunks may be there in part. */
	if (s->synced && (uint64_t)st.st_size > s->synced)
		st.st_size = (off_t)s->synced;
	s->len = (size_t)st.st_size;
	s->copied = st.st_uid != geteuid();
	s->map = s->copied ? read_copy(fd, (uint64_t)st.st_size, &s->len)
			   : mmap(NULL, s->len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (!s->map)
		return tp_tdw_writer_fail(w, -ENOMEM, "out of memory");
	if (s->map == MAP_FAILED) {
		s->map = NULL;
		tp_tdw_damaged(w, s, 0, "cannot map: %s", strerror(errno));
		return 0;
	}
	if (tp_spool_header_check(s->map, s->len, &at, why, sizeof(why))) {
		tp_tdw_damaged(w, s, at, "%s", why);
		return 0;
	}
	tp_spool_clock_init(&s->clock, (const struct spool_file_header *)(void *)s->map, 0);

	walk = (struct spool_walk){ s->map, s->len, sizeof(struct spool_file_header),
				    (uint64_t)st.st_size };
	while (walking) {
		struct spool_item c;

		switch (tp_spool_next(&walk, &c, why, sizeof(why))) {
		case SPOOL_STEP_END:
			walking = false;
			continue;
		case SPOOL_STEP_DAMAGED: /* one line for all of it: nothing after it is read */
			tp_tdw_damaged(w, s, c.off, "%s", why);
			walking = false;
			ended = true; /* whether it had its end mark is not known: not said again */
			continue;
		case SPOOL_STEP_CUT:
			/* Nothing after it can be found: the rest of the file is not read. */
			tp_tdw_damaged(w, s, c.off, "%s", why);
			walking = false;
			continue;
		case SPOOL_STEP_BAD:
			tp_tdw_damaged(w, s, c.off, "%s", why);
			continue;
		case SPOOL_STEP_CHUNK:
			break;
		}
		switch (c.type) {
		case SPOOL_EVENT:
			switch (tp_tdw_map_event(w, s, &c.event)) {
			case -ENOMEM:
				goto nomem;
			case -ENOSPC: /* its records are then of an event no chunk names */
				tp_tdw_damaged(w, s, c.off, "event %s:%s: the file has no id left for it "
					"(%zu distinct events at most)", c.event.system, c.event.name,
					OUT_IDS_MAX);
				break;
			}
			break;
		case SPOOL_COMM:
			tp_tdw_add_cmdline(w, c.comm.tid, c.comm.name);
			break;
		case SPOOL_CLOCK:
			if (tp_spool_clock_add(&s->clock, c.clock) < 0)
				goto nomem;
			break;
		case SPOOL_STATS: /* each is a complete snapshot: the last one counts */
			last_stats = c.body;
			last_stats_count = c.count;
			break;
		case SPOOL_NOTES:
			last_notes = c.body;
			last_notes_count = c.count;
			break;
		case SPOOL_TRACING:
			if (tp_tracing_windows_add(&s->tracing, c.body, c.count) < 0)
				goto nomem;
			break;
		case SPOOL_SYNCED: /* for a live reader (tools/tpoint/stream.c) */
			break;
		case SPOOL_END:
			ended = true;
			break;
		case SPOOL_RECORDS:
		case SPOOL_PAGE:
		case SPOOL_PAGE_PACKED: {
			const struct spool_records *r = c.records;
			struct stream_chunk *n;
			size_t k;

			for (k = 0; k < nkeys; k++)
				if (keys[k].tid == r->tid && keys[k].level == r->level)
					break;
			if (k == nkeys) {
				struct stream_key *nk = realloc(keys, (nkeys + 1) * sizeof(*nk));

				if (!nk)
					goto nomem;
				keys = nk;
				keys[nkeys++] = (struct stream_key){ si, r->tid, r->level };
			}
			if (w->nchunks == w->chunks_cap) {
				/* Doubled, not one more: a copy a chunk was quadratic (minutes
				 * under ASan for a spool of 10,000 pages at exit). */
				size_t cap = w->chunks_cap ? 2 * w->chunks_cap : 256;

				n = realloc(w->chunks, cap * sizeof(*n));
				if (!n)
					goto nomem;
				w->chunks = n;
				w->chunks_cap = cap;
			}
			n = w->chunks;
			n[w->nchunks++] = (struct stream_chunk){
				r, c.type, c.size, si,
				(uint32_t)(si << 20) + (uint32_t)k, order++, false
			};
			if (r->cpu + 1 > w->ncpus)
				w->ncpus = r->cpu + 1;
			break;
		}
		}
	}
	free(keys);
	if (!ended)
		tp_tdw_unfinished(w, s, walk.off, "no end mark: the process was killed, "
			   "or the file was cut short");
	/*
	 * No counters: the process ended before it wrote them (killed by a signal, _exit(), an
	 * exec). Its share of each of its events' counts is unknown, and so is their sum: the
	 * counts of those events are not given, rather than given short.
	 */
	if (!last_stats_count) {
		bool any = false;

		for (size_t i = 0; i < s->nidmap; i++) {
			struct out_event *e = s->idmap[i] ? tp_tdw_event_by_out_id(w, s->idmap[i]) : NULL;

			if (e && !e->kernel) {
				e->uncounted = true;
				any = true;
			}
		}
		w->uncounted += any;
	}
	for (size_t i = 0; i < last_stats_count; i++) {
		struct spool_stat stat;
		struct out_event *e;

		memcpy(&stat, last_stats + i * sizeof(stat), sizeof(stat));
		e = tp_tdw_event_by_out_id(w, tp_tdw_out_id(s, stat.id));
		if (e) { /* summed over the processes of the recording */
			e->stat.cond_skipped += stat.cond_skipped;
			e->stat.filtered += stat.filtered;
			e->stat.recorded += stat.recorded;
			e->stat.lost += stat.lost;
		}
	}
	for (size_t i = 0; i < last_notes_count; i++) {
		struct spool_note note;
		struct out_event *e;

		memcpy(&note, last_notes + i * sizeof(note), sizeof(note));
		e = tp_tdw_event_by_out_id(w, tp_tdw_out_id(s, note.id));
		if (e) {
			e->too_big += note.too_big;
			e->refused |= (note.flags & SPOOL_NOTE_REFUSED) != 0;
			if (note.flags & SPOOL_NOTE_REG_FAILED)
				e->reg_error = note.reg_error;
		}
	}
	return 0;
nomem:
	free(keys);
	return tp_tdw_writer_fail(w, -ENOMEM, "out of memory");
}
