/* SPDX-License-Identifier: MIT */
/*
 * Spool files -> trace.dat version 6, laid out as docs/TRACEDAT-FORMAT.md describes (the
 * format is trace-cmd's, trace-cmd.dat.v6(5); that page says which part of it tpoint writes),
 * or version 7 with compressed sections (tracedat_v7.c) when a codec is given.
 *
 * Each spool is one process's recording. Records are merged per CPU in time order, with a
 * k-way merge over the (process, thread, nesting level) streams, whose records are already
 * in order; timestamps become CLOCK_MONOTONIC nanoseconds (trace clock "mono", which the
 * kernel can use too, so that user and kernel events line up); events lost before a page are
 * marked on the output page as the kernel does (trace-cmd shows "[N EVENTS DROPPED]").
 * Event ids that two processes use for different events are renumbered.
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
#include "fmt/tracedat_v6.h"
#include "growbuf.h"
#include "internal.h"
#include "ringbuf.h"
#include "spool_read.h"
#include "tracedat_format.h"
#include "tracedat_v7.h"

struct out_event {
	char *system, *name, *condition;
	const char *format_body; /* the format text from "format:" on */
	uint16_t id;             /* in the output file */
	struct spool_stat stat;
	bool dropped;            /* not selected (tracedat_select): nothing of it goes out */
	struct filter *filter;   /* what its records must pass (tracedat_select), or NULL */
	uint64_t too_big;        /* records too big for a page (in stat.lost too) */
	bool refused;            /* selected, but its print format keeps it off */
	bool kernel;             /* from tracedat_extra: no spool's event, whatever its name */
	int reg_error;           /* selected, but its reg() returned this (non-zero): off */
	bool uncounted;          /* a spool naming it has no counters: its counts are unknown */

	/*
	 * What each record of it must hold, by its format (format_bounds()): its fields up to
	 * fixed_end, and the bytes its first __data_loc/__rel_loc fields point at. A record
	 * that does not is one `tpoint report` would call corrupt: left out, and said.
	 */
	uint32_t fixed_end;
	uint8_t nlocs;
	struct { uint16_t off; bool rel; } locs[8];
};

struct stream_chunk {
	const struct spool_records *hdr;
	uint32_t type; /* SPOOL_PAGE, SPOOL_PAGE_PACKED or SPOOL_RECORDS */
	uint32_t size; /* of the chunk's body, its header included */
	uint32_t spool;
	uint32_t stream; /* index of its (spool, tid, level) stream */
	uint32_t order;  /* position in the spool */
	bool gap_before; /* pages of its thread before it are missing (overwritten) */
};

struct spool_in {
	const char *path;
	char *map;
	size_t len;
	bool copied; /* map is a copy in the heap (read_copy()), not a mapping */
	uint64_t unknown_ids; /* records whose event id no SPOOL_EVENT chunk names: dropped */
	uint64_t misfits;     /* records that do not hold what their format says: dropped */
	size_t misfit_off;    /* the chunk of the first of them */
	uint16_t misfit_id;   /* and its event's output id */
	size_t unknown_off;   /* the chunk of the first of them */
	uint16_t unknown_id;
	struct spool_clock clock; /* its raw clock to CLOCK_MONOTONIC ns */
	uint16_t *idmap; /* spool id - TPOINT_FIRST_ID -> output id */
	size_t nidmap;
};

struct writer_state {
	struct spool_in *in;
	int nin;
	struct out_event *events;
	size_t nevents, events_cap;
	size_t nspool_events; /* of them, the spools' (the rest: the kernel's, tracedat_extra) */
	/*
	 * While the spools' events are mapped (map_event()): an open-addressing index of the
	 * spools' events by system and name, and the output ids taken. A spool may name up to the
	 * whole id space: a scan of the events for each would make reading it quadratic.
	 */
	uint32_t *name_index; /* event index + 1, or 0 for an empty slot */
	size_t name_index_size; /* a power of two, at least twice nevents */
	uint64_t ids_taken[(UINT16_MAX + 1) / 64];
	struct stream_chunk *chunks;
	size_t nchunks;
	struct comm { uint32_t tid; char comm[64]; } *comms;
	size_t ncomms;
	uint32_t ncpus;
	char *err;
	size_t errlen;
	const struct tracedat_select *sel;
	const struct tracedat_extra *extra;
	const struct tp_codec *codec; /* version 7 compressed with it, or NULL: version 6 */
	struct td7_writer *td7;
	uint64_t cpu_pages; /* the pages write_cpu() wrote last */
	struct out_event **by_id; /* with a selection: output id -> event (build_by_id()) */
	/*
	 * What the spools hold that cannot be read ("PATH: offset N: what\n" lines), and spools
	 * that end without their end mark: the caller decides what they mean (tracedat_result).
	 */
	char *damage, *unfinished;
	size_t ndamage, nunfinished;
	size_t uncounted; /* spools without their process's counters */
};

/* At most this many lines of each kind are kept; the rest are counted. */
#define PROBLEM_LINES 16

static void add_line(char **text, size_t *count, const char *path, size_t off,
		     const char *fmt, va_list ap)
{
	char what[256], *n;
	size_t len = *text ? strlen(*text) : 0;
	int add;

	if ((*count)++ >= PROBLEM_LINES)
		return;
	vsnprintf(what, sizeof(what), fmt, ap);
	add = snprintf(NULL, 0, "%s: offset %zu: %s\n", path, off, what);
	n = add > 0 ? realloc(*text, len + (size_t)add + 1) : NULL;
	if (!n)
		return;
	snprintf(n + len, (size_t)add + 1, "%s: offset %zu: %s\n", path, off, what);
	*text = n;
}

/* Bytes of spool s at file offset off cannot be read: said, and the recording goes on. */
__attribute__((format(printf, 4, 5)))
static void damaged(struct writer_state *w, const struct spool_in *s, size_t off,
		    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_line(&w->damage, &w->ndamage, s->path, off, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 4, 5)))
static void unfinished(struct writer_state *w, const struct spool_in *s, size_t off,
		       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_line(&w->unfinished, &w->nunfinished, s->path, off, fmt, ap);
	va_end(ap);
}

/* The lines kept, and how many more there were, for the result. */
static char *problem_text(char *text, size_t count)
{
	size_t len = text ? strlen(text) : 0;
	char *n;

	if (count <= PROBLEM_LINES)
		return text;
	n = realloc(text, len + 64);
	if (!n)
		return text;
	snprintf(n + len, 64, "... and %zu more\n", count - PROBLEM_LINES);
	return n;
}

static int fail(struct writer_state *w, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err, w->errlen, fmt, ap);
	va_end(ap);
	return err;
}

/* Raw clock -> CLOCK_MONOTONIC ns, as every reader of a spool converts it (spool_read.h). */
static uint64_t to_ns(struct spool_in *s, uint64_t c)
{
	return tp_spool_clock_ns(&s->clock, c);
}

/* The output file's event ids: TPOINT_FIRST_ID and up, one an event. */
#define OUT_IDS_MAX ((size_t)UINT16_MAX + 1 - TPOINT_FIRST_ID)

static size_t name_hash(const char *sys, const char *name)
{
	size_t h = 14695981039346656037ull; /* FNV-1a over "sys\0name" */

	for (const char *p = sys;; p++) {
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
		if (!*p)
			break;
	}
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

/* The index slot of that system and name: the event's, or the empty one it would take. */
static uint32_t *name_slot(struct writer_state *w, const char *sys, const char *name)
{
	size_t mask = w->name_index_size - 1, i = name_hash(sys, name) & mask;

	for (;; i = (i + 1) & mask) {
		uint32_t *slot = &w->name_index[i];
		const struct out_event *e = *slot ? &w->events[*slot - 1] : NULL;

		if (!e || (!strcmp(e->system, sys) && !strcmp(e->name, name)))
			return slot;
	}
}

/* Room for one more event in the index: 0, or -ENOMEM. */
static int name_index_grow(struct writer_state *w)
{
	size_t size = w->name_index_size ? w->name_index_size : 64;

	if (2 * (w->nevents + 1) <= w->name_index_size)
		return 0;
	while (2 * (w->nevents + 1) > size)
		size *= 2;
	uint32_t *index = calloc(size, sizeof(*index));

	if (!index)
		return -ENOMEM;
	free(w->name_index);
	w->name_index = index;
	w->name_index_size = size;
	for (size_t i = 0; i < w->nevents; i++)
		if (!w->events[i].kernel)
			*name_slot(w, w->events[i].system, w->events[i].name) = (uint32_t)i + 1;
	return 0;
}

static bool id_taken(const struct writer_state *w, uint16_t id)
{
	return w->ids_taken[id / 64] >> (id % 64) & 1;
}

/* A thread's latest name wins: trace-cmd shows either of two lines for one pid. */
static void add_cmdline(struct writer_state *w, uint32_t tid, const char *comm)
{
	size_t i;

	for (i = 0; i < w->ncomms; i++)
		if (w->comms[i].tid == tid)
			break;
	if (i == w->ncomms) {
		struct comm *n = realloc(w->comms, (w->ncomms + 1) * sizeof(*n));

		if (!n)
			return;
		w->comms = n;
		w->ncomms++;
	}
	w->comms[i].tid = tid;
	snprintf(w->comms[i].comm, sizeof(w->comms[i].comm), "%s", comm);
}

/* A record's bounds from the event's format text: each "field:" line's offset and size. */
static void format_bounds(struct out_event *e)
{
	for (const char *p = e->format_body; p && (p = strstr(p, "field:"));) {
		const char *nl = strchr(p, '\n');
		const char *o = strstr(p, "offset:"), *z = strstr(p, "size:"), *type = p + 6;
		unsigned long off, size;

		if (!o || !z || (nl && (o > nl || z > nl)))
			break;
		off = strtoul(o + 7, NULL, 10);
		size = strtoul(z + 5, NULL, 10);
		if (off > TPOINT_MAX_PAYLOAD || size > TPOINT_MAX_PAYLOAD)
			break;
		if (off + size > e->fixed_end)
			e->fixed_end = (uint32_t)(off + size);
		while (*type == ' ' || *type == '\t')
			type++;
		if (size == 4 && e->nlocs < sizeof(e->locs) / sizeof(e->locs[0]) &&
		    (!strncmp(type, "__data_loc ", 11) || !strncmp(type, "__rel_loc ", 10))) {
			e->locs[e->nlocs].off = (uint16_t)off;
			e->locs[e->nlocs++].rel = type[2] == 'r';
		}
		p = nl;
	}
}

/* Does a record of `size` bytes hold what its event's format says it does? */
static bool record_fits(const struct out_event *e, const char *data, uint32_t size)
{
	if (size < e->fixed_end)
		return false;
	for (uint8_t i = 0; i < e->nlocs; i++) {
		uint32_t v, start;

		memcpy(&v, data + e->locs[i].off, 4);
		/* __data_loc: offset in the record; __rel_loc: from the end of the field. */
		start = (v & 0xffff) + (e->locs[i].rel ? e->locs[i].off + 4u : 0);
		if (start + (v >> 16) > size)
			return false;
	}
	return true;
}

/*
 * An event a spool names (checked by the reader): 0, -ENOMEM, or -ENOSPC when the spools
 * name more distinct events than the file has ids for.
 */
static int map_event(struct writer_state *w, struct spool_in *s, const struct spool_event_def *d)
{
	uint16_t id = d->id;
	const char *sys = d->system, *name = d->name, *cond = d->condition, *fmt = d->format;
	const char *body = strstr(fmt, "format:");
	struct out_event *e;
	uint32_t *named;

	if (name_index_grow(w) < 0)
		return -ENOMEM;
	named = name_slot(w, sys, name);
	if (*named) {
		e = &w->events[*named - 1];
	} else {
		if (w->nspool_events == OUT_IDS_MAX)
			return -ENOSPC;
		if (w->nevents == w->events_cap) {
			size_t cap = w->events_cap ? 2 * w->events_cap : 64;
			struct out_event *n = realloc(w->events, cap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			w->events = n;
			w->events_cap = cap;
		}
		e = &w->events[w->nevents];
		memset(e, 0, sizeof(*e));
		e->system = strdup(sys);
		e->name = strdup(name);
		e->condition = strdup(cond);
		e->format_body = body;
		format_bounds(e);
		if (!e->system || !e->name || !e->condition)
			return -ENOMEM;
		if (w->sel)
			e->dropped = !w->sel->event(w->sel->ctx, sys, name, fmt, &e->filter);
		/* The spool's own id if it is free, else the next free one (there is one). */
		uint16_t out = id;

		while (id_taken(w, out))
			out = out == UINT16_MAX ? (uint16_t)TPOINT_FIRST_ID : (uint16_t)(out + 1);
		w->ids_taken[out / 64] |= 1ull << (out % 64);
		e->id = out;
		w->nevents++;
		w->nspool_events++;
		*named = (uint32_t)w->nevents;
	}
	size_t slot = (size_t)(id - TPOINT_FIRST_ID);

	if (slot >= s->nidmap) {
		uint16_t *m = realloc(s->idmap, (slot + 1) * sizeof(*m));

		if (!m)
			return -ENOMEM;
		memset(m + s->nidmap, 0, (slot + 1 - s->nidmap) * sizeof(*m));
		s->idmap = m;
		s->nidmap = slot + 1;
	}
	s->idmap[slot] = e->id;
	return 0;
}

/* The file's id of a spool's event id; 0 if no SPOOL_EVENT chunk of the spool names it. */
static uint16_t out_id(const struct spool_in *s, uint16_t id)
{
	size_t slot = (size_t)(id - TPOINT_FIRST_ID);

	if (id < TPOINT_FIRST_ID || slot >= s->nidmap)
		return 0;
	return s->idmap[slot];
}

static struct out_event *event_by_out_id(struct writer_state *w, uint16_t id)
{
	for (size_t i = 0; i < w->nevents; i++)
		if (w->events[i].id == id)
			return &w->events[i];
	return NULL;
}

struct stream_key {
	uint32_t spool, tid, level;
};

/* The events of tracedat_extra, with their own ids: first, so that no spool's takes them. */
static int add_extra_events(struct writer_state *w)
{
	const struct tracedat_extra *x = w->extra;
	struct out_event *n;

	if (!x->nevents)
		return 0;
	n = realloc(w->events, (w->nevents + x->nevents) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	w->events = n;
	w->events_cap = w->nevents + x->nevents;
	for (size_t i = 0; i < x->nevents; i++) {
		struct out_event *e = &w->events[w->nevents];

		memset(e, 0, sizeof(*e));
		e->system = strdup(x->events[i].system);
		e->name = strdup(x->events[i].name);
		e->condition = strdup("");
		e->format_body = x->events[i].format;
		e->id = x->events[i].id;
		w->ids_taken[e->id / 64] |= 1ull << (e->id % 64);
		e->stat.recorded = x->events[i].recorded;
		e->kernel = true;
		w->nevents++;
		if (!e->system || !e->name || !e->condition)
			return -ENOMEM;
	}
	return 0;
}

/* The extra's "PID COMM" lines, for the pids the spools do not name. */
static void add_extra_cmdlines(struct writer_state *w, const char *text)
{
	while (text && *text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		char line[128], *sp;
		unsigned long tid;
		size_t i;

		snprintf(line, sizeof(line), "%.*s", (int)len, text);
		text += len + (nl != NULL);
		tid = strtoul(line, &sp, 10);
		if (sp == line || *sp != ' ' || !tid || tid > UINT32_MAX)
			continue;
		for (i = 0; i < w->ncomms && w->comms[i].tid != tid; i++)
			;
		if (i == w->ncomms)
			add_cmdline(w, (uint32_t)tid, sp + 1);
	}
}

/*
 * A spool that another user owns (root's tpoint record -p lends the spool to the traced
 * process's user) is copied, not mapped: its owner could truncate it while it is read, and a
 * mapped page past the new end is a SIGBUS in the reader. It is read a window at a time and
 * walked as it comes, up to the first damage (spool_read.h): its size is the owner's to
 * choose, and one truncate() makes a gigabyte of zeros, every 16 bytes of which would be
 * a damaged chunk. So the copy holds the whole chunks before the damage and at most a
 * window more, whatever the file's size. *len becomes what was read; NULL when out of
 * memory.
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
		n = pread(fd, m + got, COPY_WINDOW, (off_t)got);
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
 * cannot be read is said (damaged()) with its offset and skipped, and the rest is read. Only
 * running out of memory stops the whole file.
 */
static int read_spool(struct writer_state *w, uint32_t si)
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
		damaged(w, s, 0, "cannot open: %s", strerror(errno));
		return 0;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		damaged(w, s, 0, "not a regular file");
		return 0;
	}
	if (st.st_size < (off_t)sizeof(struct spool_file_header)) {
		close(fd);
		damaged(w, s, 0, "%lld bytes, too short for a spool's header (%zu bytes)",
			(long long)st.st_size, sizeof(struct spool_file_header));
		return 0;
	}
	s->len = (size_t)st.st_size;
	s->copied = st.st_uid != geteuid();
	s->map = s->copied ? read_copy(fd, (uint64_t)st.st_size, &s->len)
			   : mmap(NULL, s->len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (!s->map)
		return fail(w, -ENOMEM, "out of memory");
	if (s->map == MAP_FAILED) {
		s->map = NULL;
		damaged(w, s, 0, "cannot map: %s", strerror(errno));
		return 0;
	}
	if (tp_spool_header_check(s->map, s->len, &at, why, sizeof(why))) {
		damaged(w, s, at, "%s", why);
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
			damaged(w, s, c.off, "%s", why);
			walking = false;
			ended = true; /* whether it had its end mark is not known: not said again */
			continue;
		case SPOOL_STEP_CUT:
			/* Nothing after it can be found: the rest of the file is not read. */
			damaged(w, s, c.off, "%s", why);
			walking = false;
			continue;
		case SPOOL_STEP_BAD:
			damaged(w, s, c.off, "%s", why);
			continue;
		case SPOOL_STEP_CHUNK:
			break;
		}
		switch (c.type) {
		case SPOOL_EVENT:
			switch (map_event(w, s, &c.event)) {
			case -ENOMEM:
				goto nomem;
			case -ENOSPC: /* its records are then of an event no chunk names */
				damaged(w, s, c.off, "event %s:%s: the file has no id left for it "
					"(%zu distinct events at most)", c.event.system, c.event.name,
					OUT_IDS_MAX);
				break;
			}
			break;
		case SPOOL_COMM:
			add_cmdline(w, c.comm.tid, c.comm.name);
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
			n = realloc(w->chunks, (w->nchunks + 1) * sizeof(*n));
			if (!n)
				goto nomem;
			w->chunks = n;
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
		unfinished(w, s, walk.off, "no end mark: the process was killed, "
			   "or the file was cut short");
	/*
	 * No counters: the process ended before it wrote them (killed by a signal, _exit(), an
	 * exec). Its share of each of its events' counts is unknown, and so is their sum: the
	 * counts of those events are not given, rather than given short.
	 */
	if (!last_stats_count) {
		bool any = false;

		for (size_t i = 0; i < s->nidmap; i++) {
			struct out_event *e = s->idmap[i] ? event_by_out_id(w, s->idmap[i]) : NULL;

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
		e = event_by_out_id(w, out_id(s, stat.id));
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
		e = event_by_out_id(w, out_id(s, note.id));
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
	return fail(w, -ENOMEM, "out of memory");
}

/* ---- writing ---- */

/*
 * The file being written, through a buffer: the records go out a 4 KiB page at a time, and a
 * write() a page (200 K of them for 20 M events, at a microsecond or more each on this
 * project's VM) was a good part of the time `tpoint record` takes to finish the file.
 */
#define OUT_BUF (256u << 10)

struct out_file {
	struct owned_fd file; /* checked before each write: the program may close it (ownfile.c) */
	const char *path;     /* its name, to open it again */
	uint64_t done;        /* bytes in the file */
	uint64_t off; /* bytes written so far, the buffered ones included */
	int error;
	char *buf;    /* OUT_BUF bytes, or NULL: then every write goes straight out */
	size_t used;
	struct tp_growbuf *mem; /* no file: a block of metadata gathered here (version 7) */
};

/*
 * Still the file we opened? A program writing its recording at exit may have closed the
 * descriptor from another thread, or opened a file of its own that took the number: then
 * the file is opened again by its name, if it still is the same file.
 */
static bool out_file_ours(struct out_file *f)
{
	if (tp_ownfd_intact(&f->file))
		return true;
	if (f->file.fd >= 0 && tp_ownfd_reopen(&f->file, f->path, (off_t)f->done) == 0)
		return true;
	f->file.fd = -1; /* not ours: forgotten, never closed */
	f->error = EBADF;
	return false;
}

static void out_write_through(struct out_file *f, const char *p, size_t len)
{
	while (len && !f->error && out_file_ours(f)) {
		ssize_t n = write(f->file.fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			f->error = n < 0 ? errno : EIO;
			return;
		}
		p += n;
		len -= (size_t)n;
		f->done += (uint64_t)n;
	}
}

static void out_flush(struct out_file *f)
{
	out_write_through(f, f->buf, f->used);
	f->used = 0;
}

static void out_write(struct out_file *f, const void *buf, size_t len)
{
	f->off += len;
	if (f->mem) {
		tp_growbuf_add(f->mem, buf, len);
		return;
	}
	if (!f->buf) {
		out_write_through(f, buf, len);
		return;
	}
	if (f->used + len > OUT_BUF)
		out_flush(f);
	if (len >= OUT_BUF) {
		out_write_through(f, buf, len);
		return;
	}
	memcpy(f->buf + f->used, buf, len);
	f->used += len;
}

/* Bytes written before, written again (offsets and sizes known only later). */
static void out_patch(struct out_file *f, uint64_t off, const void *p, size_t len)
{
	out_flush(f);
	if (!f->error && out_file_ours(f) && pwrite(f->file.fd, p, len, (off_t)off) != (ssize_t)len)
		f->error = errno ? errno : EIO;
}

static void out_bytes(void *ctx, const void *p, size_t n)
{
	out_write(ctx, p, n);
}

/* The file through the serialiser of version 6's blocks (lib/fmt/tracedat_v6.h). */
static struct td6_out out_v6(struct out_file *f)
{
	return (struct td6_out){ .write = out_bytes, .ctx = f };
}

static void out_pad_to_page(struct out_file *f)
{
	static const char zeros[TPOINT_PAGE_SIZE];
	uint64_t pad = (TPOINT_PAGE_SIZE - f->off % TPOINT_PAGE_SIZE) % TPOINT_PAGE_SIZE;

	out_write(f, zeros, (size_t)pad);
}

/* Output id -> event, for the selection's judgement of each record; again after a sort. */
static void build_by_id(struct writer_state *w)
{
	if (!w->by_id)
		return;
	memset(w->by_id, 0, 0x10000 * sizeof(*w->by_id));
	for (size_t i = 0; i < w->nevents; i++)
		w->by_id[w->events[i].id] = &w->events[i];
}

/* Does the record of output id `id` go into the file? */
static bool selected(const struct writer_state *w, uint16_t id, const char *data, uint32_t size)
{
	const struct out_event *e = w->by_id ? w->by_id[id] : NULL;

	return !e || (!e->dropped && (!e->filter || filter_match(e->filter, data, size)));
}

/*
 * The records the selection's filters leave out count as filtered: the counts go into the
 * file before the records do, so they are judged once ahead.
 */
static void count_filtered(struct writer_state *w)
{
	char *unpacked = malloc(SPOOL_UNPACKED_MAX);

	for (size_t i = 0; unpacked && i < w->nchunks; i++) {
		const struct stream_chunk *ch = &w->chunks[i];
		struct spool_iter it;
		const char *data;
		uint64_t clock;
		uint32_t size;
		uint16_t id;

		tp_spool_iter_init(&it, ch->type, (const char *)ch->hdr, ch->size, unpacked);
		while (tp_spool_iter_next(&it, &clock, &data, &size)) {
			struct out_event *e;

			memcpy(&id, data, 2);
			e = w->by_id[out_id(&w->in[ch->spool], id)];
			if (!e || e->dropped || !e->filter || filter_match(e->filter, data, size) ||
			    to_ns(&w->in[ch->spool], clock) < w->sel->since)
				continue;
			e->stat.filtered++;
			if (e->stat.recorded)
				e->stat.recorded--;
		}
	}
	free(unpacked);
}

static int cmp_event(const void *a, const void *b)
{
	const struct out_event *x = a, *y = b;
	int c = strcmp(x->system, y->system);

	return c ? c : (x->id > y->id) - (x->id < y->id);
}

/*
 * The metadata, block by block: version 6 writes them one after another, version 7 one
 * section each (the same bytes, compressed).
 */
static void block_header_info(struct writer_state *w, struct out_file *f)
{
	struct td6_out o = out_v6(f);

	(void)w;
	td6_put_header_info(&o, td6_tpoint_header_page, td6_tpoint_header_page_len,
			    td6_tpoint_header_event, td6_tpoint_header_event_len);
}

/* No ftrace formats, kallsyms or printk formats: a count or size of 0. */
static void block_empty(struct writer_state *w, struct out_file *f)
{
	struct td6_out o = out_v6(f);

	(void)w;
	td6_put_u32(&o, 0);
}

/* Event systems: events sorted by system (sort_events()), each system once. */
static void block_event_formats(struct writer_state *w, struct out_file *f)
{
	struct td6_out o = out_v6(f);
	uint32_t nsys = 0;
	const char *last = NULL;

	for (size_t i = 0; i < w->nevents; i++)
		if (!w->events[i].dropped && (!last || strcmp(w->events[i].system, last))) {
			nsys++;
			last = w->events[i].system;
		}
	td6_put_u32(&o, nsys);
	for (size_t i = 0; i < w->nevents;) {
		size_t j = i, kept = 0;

		while (j < w->nevents && !strcmp(w->events[j].system, w->events[i].system))
			kept += !w->events[j++].dropped;
		if (!kept) {
			i = j;
			continue;
		}
		td6_put_system(&o, w->events[i].system, (uint32_t)kept);
		for (; i < j; i++) {
			if (w->events[i].dropped)
				continue;
			char head[TPOINT_NAME_MAX + 32];
			int n = snprintf(head, sizeof(head), "name: %s\nID: %u\n", w->events[i].name,
					 w->events[i].id);

			td6_put_format2(&o, head, (size_t)n, w->events[i].format_body,
					strlen(w->events[i].format_body));
		}
	}
}

static void block_cmdlines(struct writer_state *w, struct out_file *f)
{
	struct td6_out o = out_v6(f);
	size_t cmdlines_len = 0;
	char line[128];

	for (size_t i = 0; i < w->ncomms; i++)
		cmdlines_len += (size_t)snprintf(line, sizeof(line), "%u %s\n", w->comms[i].tid,
						 w->comms[i].comm);
	td6_put_u64(&o, cmdlines_len);
	for (size_t i = 0; i < w->ncomms; i++)
		out_write(f, line, (size_t)snprintf(line, sizeof(line), "%u %s\n", w->comms[i].tid,
						    w->comms[i].comm));
}

typedef void (*option_fn)(void *ctx, uint16_t id, const void *data, uint32_t len);

/* The options: the clock, and tpoint's counters and notes (tracedat_format.h). */
static void each_option(struct writer_state *w, option_fn option, void *ctx)
{
	option(ctx, TD_OPT_TRACECLOCK, "[mono]", sizeof("[mono]"));

	/* "system:name\thits\tcond_skipped\tfiltered\trecorded\tlost\tcondition\n"... */
	size_t cap = 1, len = 0;
	char *stats = NULL;

	for (size_t i = 0; i < w->nevents; i++)
		cap += 2 * TPOINT_NAME_MAX + 120 + strlen(w->events[i].condition);
	stats = malloc(cap);
	if (stats) {
		for (size_t i = 0; i < w->nevents; i++) {
			const struct out_event *e = &w->events[i];
			const struct spool_stat *st = &e->stat;

			if (e->dropped || e->uncounted) /* no line: a reader shows them unknown */
				continue;
			len += (size_t)snprintf(stats + len, cap - len,
						"%s:%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%s\n",
						e->system, e->name,
						(unsigned long long)(st->cond_skipped + st->filtered +
								     st->recorded + st->lost),
						(unsigned long long)st->cond_skipped,
						(unsigned long long)st->filtered,
						(unsigned long long)st->recorded,
						(unsigned long long)st->lost, e->condition);
		}
		stats[len] = 0;
		option(ctx, TD_OPT_TPOINT_STATS, stats, (uint32_t)len + 1);
		/* The notes, in the same buffer (they are shorter), if any event has one. */
		len = 0;
		for (size_t i = 0; i < w->nevents; i++) {
			const struct out_event *e = &w->events[i];

			if (e->too_big || e->refused)
				len += (size_t)snprintf(stats + len, cap - len, "%s:%s\t%llu\t%d\n",
							e->system, e->name,
							(unsigned long long)e->too_big, e->refused);
			else if (e->reg_error)
				len += (size_t)snprintf(stats + len, cap - len,
							"%s:%s\t%llu\treg %d\n", e->system,
							e->name, (unsigned long long)e->too_big,
							e->reg_error);
		}
		if (len)
			option(ctx, TD_OPT_TPOINT_NOTES, stats, (uint32_t)len + 1);
		free(stats);
	}
	if (w->extra && w->extra->stats)
		option(ctx, TD_OPT_TPOINT_KERNEL, w->extra->stats,
		       (uint32_t)strlen(w->extra->stats) + 1);
}

static void sort_events(struct writer_state *w)
{
	if (w->nevents > 1) /* qsort() wants a base even for nothing to sort */
		qsort(w->events, w->nevents, sizeof(*w->events), cmp_event);
}

static void option_v6(void *ctx, uint16_t id, const void *data, uint32_t len)
{
	td6_put_option(ctx, id, data, len);
}

static void write_metadata_v6(struct writer_state *w, struct out_file *f)
{
	struct td6_out o = out_v6(f);

	td6_put_file_header(&o, sizeof(long), TPOINT_PAGE_SIZE);
	block_header_info(w, f);
	block_empty(w, f); /* ftrace formats */
	sort_events(w);
	block_event_formats(w, f);
	block_empty(w, f); /* kallsyms */
	block_empty(w, f); /* printk formats */
	block_cmdlines(w, f);
	td6_put_u32(&o, w->ncpus);
	td6_put_options_start(&o);
	each_option(w, option_v6, &o);
	td6_put_options_end(&o);
}

/* The version 7 writer's io: the file, through its buffer. */
static void td7_write(void *ctx, const void *p, size_t n)
{
	out_write(ctx, p, n);
}

static void td7_patch(void *ctx, uint64_t off, const void *p, size_t n)
{
	out_patch(ctx, off, p, n);
}

static uint64_t td7_offset(void *ctx)
{
	return ((struct out_file *)ctx)->off;
}

static void option_v7(void *ctx, uint16_t id, const void *data, uint32_t len)
{
	tp_td7_option(ctx, id, data, len);
}

/* One block gathered in memory, then written as its section. */
static int section_v7(struct writer_state *w, uint16_t id,
		      void (*block)(struct writer_state *w, struct out_file *f))
{
	struct tp_growbuf m = { 0 };
	struct out_file f = { .file = OWNED_FD_NONE, .mem = &m };
	int ret;

	block(w, &f);
	ret = m.oom ? -ENOMEM : tp_td7_section(w->td7, id, m.p, m.len);
	free(m.p);
	return ret;
}

static int write_metadata_v7(struct writer_state *w)
{
	uint32_t ncpus = w->ncpus;
	int ret;

	sort_events(w);
	ret = section_v7(w, TD7_SEC_HEADER_INFO, block_header_info);
	if (!ret)
		ret = section_v7(w, TD7_SEC_FTRACE_EVENTS, block_empty);
	if (!ret)
		ret = section_v7(w, TD7_SEC_EVENT_FORMATS, block_event_formats);
	if (!ret)
		ret = section_v7(w, TD7_SEC_KALLSYMS, block_empty);
	if (!ret)
		ret = section_v7(w, TD7_SEC_PRINTK, block_empty);
	if (!ret)
		ret = section_v7(w, TD7_SEC_CMDLINES, block_cmdlines);
	if (!ret)
		ret = tp_td7_option(w->td7, TD_OPT_CPUCOUNT, &ncpus, 4);
	if (!ret)
		each_option(w, option_v7, w->td7);
	return ret;
}

/* One CPU's output: pages in the kernel's layout, filled in time order. */
struct page_out {
	char page[TPOINT_PAGE_SIZE];
	uint32_t used;
	uint64_t last_ns;
	uint64_t lost; /* to mark on the page being filled */
	bool lost_unknown; /* events were lost, how many is not known */
	bool open;
	struct out_file *f;
	struct td7_writer *td7; /* version 7: the pages go to it, compressed */
	uint32_t cpu;
	uint64_t events;
	uint64_t pages;
};

static void page_close(struct page_out *po)
{
	uint64_t commit = po->used;

	if (!po->open)
		return;
	if (po->lost) {
		/* The count goes right after the data. */
		commit |= RB_MISSED_EVENTS | RB_MISSED_STORED;
		memcpy(po->page + TPOINT_PAGE_HEADER + po->used, &po->lost, 8);
	} else if (po->lost_unknown) {
		commit |= RB_MISSED_EVENTS; /* alone: "[EVENTS DROPPED]" */
	}
	memcpy(po->page + 8, &commit, 8);
	if (po->td7)
		tp_td7_cpu_data(po->td7, po->cpu, po->page, TPOINT_PAGE_SIZE);
	else
		out_write(po->f, po->page, TPOINT_PAGE_SIZE);
	po->pages++;
	po->open = false;
	po->lost = 0;
	po->lost_unknown = false;
}

static void page_add(struct page_out *po, uint64_t ns, const char *payload, uint32_t size,
		     uint16_t id, uint64_t lost_before, bool lost_unknown)
{
	uint64_t delta;
	uint32_t need = 8 + size;

	if ((lost_before || lost_unknown) && po->open)
		page_close(po); /* the mark says: lost before this page */
	if (ns < po->last_ns)
		ns = po->last_ns; /* a clock sample's rounding must not run time backwards */
	delta = po->open ? ns - po->last_ns : 0;
	if (tp_rb_delta_too_wide(delta))
		need += 8;
	if (po->open && po->used + need > TPOINT_PAGE_DATA_END)
		page_close(po);
	if (!po->open) {
		memset(po->page, 0, sizeof(po->page));
		memcpy(po->page, &ns, 8);
		po->used = 0;
		po->open = true;
		delta = 0;
	}
	po->lost += lost_before;
	po->lost_unknown |= lost_unknown;
	char *d = po->page + TPOINT_PAGE_HEADER + po->used;

	if (tp_rb_delta_too_wide(delta)) {
		uint32_t ext[2];

		tp_rb_time_extend(delta, ext);
		memcpy(d, ext, 8);
		d += 8;
		po->used += 8;
		delta = 0;
	}
	uint64_t hdr = tpoint_record_header(delta, 8 + size);

	memcpy(d, &hdr, 8);
	memcpy(d + 8, payload, size);
	memcpy(d + 8, &id, 2); /* the file's id for this event */
	po->used += 8 + size;
	po->last_ns = ns;
	po->events++;
}

struct cursor {
	const struct stream_chunk **chunks; /* this stream's chunks on this CPU, in order */
	size_t n, at;
	bool started;         /* it is inside chunks[at] */
	struct spool_iter it; /* where in chunks[at] */
	char *unpacked;       /* SPOOL_UNPACKED_MAX bytes if the stream has packed chunks */
	const char *data;     /* the current record: its payload, size and time */
	uint32_t size;
	uint64_t ns;
	uint64_t lost_before;
	bool gap_before;
	uint32_t tie;
	bool extra;   /* tracedat_extra's records of CPU `cpu`, not chunks */
	uint32_t cpu;
};

/* Where a chunk starts in its spool, for what is said about it. */
static size_t chunk_offset(const struct writer_state *w, const struct stream_chunk *ch)
{
	return (size_t)((const char *)ch->hdr - w->in[ch->spool].map) - sizeof(struct spool_chunk);
}

/* A chunk's records have been read: all of them, or what stopped the reading is said. */
static void chunk_read_to_end(struct writer_state *w, const struct stream_chunk *ch,
			      const struct spool_iter *it)
{
	const struct spool_in *s = &w->in[ch->spool];
	const char *type = tp_spool_chunk_name(ch->type);

	if (it->damaged)
		damaged(w, s, chunk_offset(w, ch), "%s chunk of %u bytes (bytes %u..%u of a page): "
			"%s, its records are not read", type, ch->size, ch->hdr->start_off,
			ch->hdr->end_off, ch->type == SPOOL_PAGE_PACKED ? "does not unpack" :
			"no room for its header");
	else if (it->p < it->end) {
		size_t len = ch->type == SPOOL_PAGE_PACKED ?
				     (size_t)(ch->hdr->end_off - ch->hdr->start_off) :
				     ch->size - sizeof(*ch->hdr);
		size_t left = (size_t)(it->end - it->p);

		damaged(w, s, chunk_offset(w, ch), "%s chunk of %u bytes: no record at byte %zu "
			"of its %zu bytes of records, the last %zu are not read", type, ch->size,
			len - left, len, left);
	}
}

static bool cursor_load(struct writer_state *w, struct cursor *c)
{
	if (c->extra) {
		struct tracedat_extra_rec r;

		if (w->extra->next(w->extra->ctx, c->cpu, &r) != 1)
			return false;
		c->data = r.data;
		c->size = r.size;
		c->ns = r.ns;
		c->lost_before += r.lost_before;
		c->gap_before |= r.lost_unknown;
		return true;
	}
	while (c->at < c->n) {
		const struct stream_chunk *ch = c->chunks[c->at];
		uint64_t clock;

		if (!c->started) {
			tp_spool_iter_init(&c->it, ch->type, (const char *)ch->hdr, ch->size,
					   c->unpacked);
			c->started = true;
			/* Added: a record left out (tracedat_select) passes its marks on. */
			c->lost_before += ch->hdr->lost_before;
			c->gap_before |= ch->gap_before;
		}
		if (tp_spool_iter_next(&c->it, &clock, &c->data, &c->size)) {
			c->ns = to_ns(&w->in[ch->spool], clock);
			return true;
		}
		chunk_read_to_end(w, ch, &c->it);
		c->at++;
		c->started = false;
	}
	return false;
}

static bool cursor_less(const struct cursor *a, const struct cursor *b)
{
	return a->ns < b->ns || (a->ns == b->ns && a->tie < b->tie);
}

static void heap_down(struct cursor **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < n && cursor_less(h[l], h[m]))
			m = l;
		if (l + 1 < n && cursor_less(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct cursor *t = h[i];

		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static int cmp_chunk(const void *a, const void *b)
{
	const struct stream_chunk *x = *(const struct stream_chunk *const *)a;
	const struct stream_chunk *y = *(const struct stream_chunk *const *)b;

	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->hdr->seq != y->hdr->seq)
		return x->hdr->seq < y->hdr->seq ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static int write_cpu(struct writer_state *w, struct out_file *f, uint32_t cpu, uint64_t *events,
		     uint64_t *lost)
{
	const struct stream_chunk **list;
	struct cursor *cur, **heap;
	size_t n = 0, ncur = 0, nheap = 0;
	struct page_out *po;
	int err = 0;

	bool extra = w->extra && cpu < w->extra->ncpus;

	for (size_t i = 0; i < w->nchunks; i++)
		n += w->chunks[i].hdr->cpu == cpu;
	if (!n && !extra)
		return 0;
	list = malloc((n ? n : 1) * sizeof(*list));
	cur = calloc(n + 1, sizeof(*cur));
	heap = malloc((n + 1) * sizeof(*heap));
	po = calloc(1, sizeof(*po));
	if (!list || !cur || !heap || !po) {
		free(list);
		free(cur);
		free(heap);
		free(po);
		return -ENOMEM;
	}
	n = 0;
	for (size_t i = 0; i < w->nchunks; i++)
		if (w->chunks[i].hdr->cpu == cpu)
			list[n++] = &w->chunks[i];
	qsort(list, n, sizeof(*list), cmp_chunk);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && list[j]->stream == list[i]->stream)
			j++;
		cur[ncur] = (struct cursor){ .chunks = &list[i], .n = j - i, .tie = (uint32_t)ncur };
		for (size_t k = i; k < j && !cur[ncur].unpacked; k++)
			if (list[k]->type == SPOOL_PAGE_PACKED &&
			    !(cur[ncur].unpacked = malloc(SPOOL_UNPACKED_MAX))) {
				err = -ENOMEM;
				goto out;
			}
		if (cursor_load(w, &cur[ncur]))
			heap[nheap++] = &cur[ncur];
		ncur++;
		i = j;
	}
	if (extra) {
		cur[ncur] = (struct cursor){ .extra = true, .cpu = cpu, .tie = (uint32_t)ncur };
		if (cursor_load(w, &cur[ncur]))
			heap[nheap++] = &cur[ncur];
		ncur++;
	}
	for (size_t i = nheap; i-- > 0;)
		heap_down(heap, nheap, i);

	po->f = f;
	po->td7 = w->td7;
	po->cpu = cpu;
	while (nheap) {
		struct cursor *c = heap[0];
		const struct stream_chunk *ch = c->extra ? NULL : c->chunks[c->at];
		uint16_t id;
		struct spool_in *s = ch ? &w->in[ch->spool] : NULL;
		uint16_t file_id;

		memcpy(&id, c->data, 2);
		if (c->extra) {
			/* The kernel's: its ids and losses are its own (option KERNEL counts them). */
			page_add(po, c->ns, c->data, c->size, id, c->lost_before, c->gap_before);
			c->lost_before = 0;
			c->gap_before = false;
			if (!cursor_load(w, c))
				heap[0] = heap[--nheap];
			heap_down(heap, nheap, 0);
			continue;
		}
		file_id = out_id(s, id);
		if (!file_id) {
			if (!s->unknown_ids++) { /* a reader could not tell what it is */
				s->unknown_off = chunk_offset(w, ch);
				s->unknown_id = id;
			}
		} else if (w->by_id[file_id] && !record_fits(w->by_id[file_id], c->data, c->size)) {
			if (!s->misfits++) {
				s->misfit_off = chunk_offset(w, ch);
				s->misfit_id = file_id;
			}
		} else if ((!w->sel || c->ns >= w->sel->since) &&
			   selected(w, file_id, c->data, c->size)) {
			page_add(po, c->ns, c->data, c->size, file_id, c->lost_before,
				 c->gap_before);
			*lost += c->lost_before;
			c->lost_before = 0;
			c->gap_before = false;
		}
		if (!cursor_load(w, c))
			heap[0] = heap[--nheap];
		heap_down(heap, nheap, 0);
	}
	page_close(po);
	*events += po->events;
	w->cpu_pages = po->pages;
out:
	for (size_t i = 0; i < n + 1; i++) /* calloc'd: cursors not made have none */
		free(cur[i].unpacked);
	free(list);
	free(cur);
	free(heap);
	free(po);
	return err;
}

static int cmp_thread_seq(const void *a, const void *b)
{
	const struct stream_chunk *x = *(const struct stream_chunk *const *)a;
	const struct stream_chunk *y = *(const struct stream_chunk *const *)b;

	if (x->spool != y->spool)
		return x->spool < y->spool ? -1 : 1;
	if (x->hdr->tid != y->hdr->tid)
		return x->hdr->tid < y->hdr->tid ? -1 : 1;
	if (x->hdr->seq != y->hdr->seq)
		return x->hdr->seq < y->hdr->seq ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/*
 * A thread numbers its pages 0, 1, 2, ... across its nesting levels and CPUs. A number
 * missing from the spool is a page that was overwritten (flight-recorder mode) or lost:
 * the next page of the thread carries the mark, as the kernel marks its pages.
 */
static int mark_gaps(struct writer_state *w)
{
	const struct stream_chunk **v = malloc((w->nchunks ? w->nchunks : 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < w->nchunks; i++)
		v[i] = &w->chunks[i];
	qsort(v, w->nchunks, sizeof(*v), cmp_thread_seq);
	for (size_t i = 0; i < w->nchunks; i++) {
		const struct stream_chunk *c = v[i];
		bool first = i == 0 || v[i - 1]->spool != c->spool || v[i - 1]->hdr->tid != c->hdr->tid;
		uint64_t expect = first ? 0 : v[i - 1]->hdr->seq + 1;

		if (!first && v[i - 1]->hdr->seq == c->hdr->seq)
			continue; /* more of the same page */
		if (c->hdr->seq > expect)
			((struct stream_chunk *)c)->gap_before = true;
	}
	free(v);
	return 0;
}

int tp_tracedat_from_spools(const char *out_path, const char *const *spools, int nspools,
			    struct tracedat_result *res, char *err, size_t errlen)
{
	return tp_tracedat_from_spools_select(out_path, spools, nspools, NULL, res, err, errlen);
}

int tp_tracedat_from_spools_select(const char *out_path, const char *const *spools, int nspools,
				   const struct tracedat_select *sel, struct tracedat_result *res,
				   char *err, size_t errlen)
{
	return tp_tracedat_write(out_path, spools, nspools, sel, NULL, NULL, res, err, errlen);
}

int tp_tracedat_write(const char *out_path, const char *const *spools, int nspools,
		      const struct tracedat_select *sel, const struct tracedat_extra *extra,
		      const struct tp_codec *codec, struct tracedat_result *res, char *err,
		      size_t errlen)
{
	struct writer_state w = { .err = err, .errlen = errlen, .ncpus = 1, .sel = sel,
				  .extra = extra, .codec = codec };
	struct out_file f = { .file = OWNED_FD_NONE };
	uint64_t table_off, *table = NULL, counted = 0;
	char *tmp = NULL;
	int ret = 0, fd;

	memset(res, 0, sizeof(*res));
	if (errlen)
		err[0] = 0;
	/* Only a regular file is replaced: not a device node, a FIFO, a link (ownfile.c). */
	ret = tp_output_check(out_path, err, errlen);
	if (ret)
		return ret;
	w.in = calloc((size_t)(nspools > 0 ? nspools : 1), sizeof(*w.in));
	if (!w.in)
		return fail(&w, -ENOMEM, "out of memory");
	w.nin = nspools;
	if (extra && add_extra_events(&w) < 0)
		ret = fail(&w, -ENOMEM, "out of memory");
	if (extra && extra->ncpus > w.ncpus)
		w.ncpus = extra->ncpus;
	for (int i = 0; i < nspools && !ret; i++) {
		w.in[i].path = spools[i];
		ret = read_spool(&w, (uint32_t)i);
	}
	if (!ret && extra)
		add_extra_cmdlines(&w, extra->cmdlines);
	if (!ret && mark_gaps(&w) < 0)
		ret = fail(&w, -ENOMEM, "out of memory");
	/* Output id -> event: for the selection, and for each record's check of its format. */
	if (!ret && !(w.by_id = calloc(0x10000, sizeof(*w.by_id))))
		ret = fail(&w, -ENOMEM, "out of memory");
	if (ret)
		goto out;
	build_by_id(&w);
	if (sel)
		count_filtered(&w);

	/*
	 * Write beside the target and rename: a reader never sees half a file. The name is
	 * new, made with O_EXCL: nothing that is there already (a link planted in a shared
	 * directory) is opened, truncated or removed.
	 */
	size_t tmplen = strlen(out_path) + 32;

	tmp = malloc(tmplen);
	if (!tmp) {
		ret = fail(&w, -ENOMEM, "out of memory");
		goto out;
	}
	fd = tp_output_create_tmp(out_path, tmp, tmplen);
	if (fd < 0) {
		free(tmp);
		tmp = NULL; /* not ours to remove */
		ret = fail(&w, fd, "%s: %s", out_path, strerror(-fd));
		goto out;
	}
	ret = tp_ownfd_adopt(&f.file, fd);
	if (ret) {
		ret = fail(&w, ret, "%s: %s", out_path, strerror(-ret));
		goto out;
	}
	f.path = tmp;
	f.buf = malloc(OUT_BUF);
	if (w.codec) {
		struct td7_io io = { &f, td7_write, td7_patch, td7_offset };

		w.td7 = tp_td7_start(&io, w.codec, TPOINT_PAGE_SIZE);
		ret = w.td7 ? write_metadata_v7(&w) : -ENOMEM;
		if (ret) {
			fail(&w, ret, "%s: %s", out_path, strerror(-ret));
			goto out;
		}
	} else {
		write_metadata_v6(&w, &f);
		struct td6_out o = out_v6(&f);

		td6_put_flyrecord(&o);
		table_off = f.off;
		table = calloc(w.ncpus, 16);
		if (!table) {
			ret = fail(&w, -ENOMEM, "out of memory");
			goto out;
		}
		/* the CPUs' offsets and sizes: patched in when their pages are written */
		for (uint32_t cpu = 0; cpu < w.ncpus; cpu++)
			td6_put_cpu_data(&o, 0, 0);
		td6_put_text(&o, 8, "[mono]", sizeof("[mono]") - 1);
		out_pad_to_page(&f);
	}
	build_by_id(&w); /* the events are sorted now */
	for (uint32_t cpu = 0; cpu < w.ncpus && !f.error; cpu++) {
		uint64_t start = f.off, bytes;

		w.cpu_pages = 0;
		ret = write_cpu(&w, &f, cpu, &res->events, &res->lost);
		if (ret) {
			fail(&w, ret, "out of memory");
			goto out;
		}
		bytes = w.cpu_pages * TPOINT_PAGE_SIZE;
		if (table) {
			table[2 * cpu] = f.off > start ? start : 0;
			table[2 * cpu + 1] = f.off - start;
		}
		if (bytes > res->big_cpu_bytes) {
			res->big_cpu = cpu;
			res->big_cpu_bytes = bytes;
		}
	}
	if (w.td7) {
		ret = tp_td7_finish(w.td7, "mono", NULL, NULL);
		w.td7 = NULL;
		if (ret && !f.error) {
			fail(&w, ret, "%s: %s", out_path, strerror(-ret));
			goto out;
		}
		ret = 0;
	}
	out_flush(&f);
	if (table && !f.error && out_file_ours(&f) &&
	    pwrite(f.file.fd, table, (size_t)w.ncpus * 16, (off_t)table_off) != (ssize_t)w.ncpus * 16)
		f.error = errno ? errno : EIO;
	if (f.error) {
		ret = fail(&w, -f.error, "%s: %s", out_path, f.error == EBADF ?
			   "the program closed the descriptor it was being written through" :
			   strerror(f.error));
		goto out;
	}
	fd = f.file.fd;
	f.file.fd = -1;
	if (close(fd) < 0) {
		ret = fail(&w, -errno, "%s: %s", out_path, strerror(errno));
		goto out;
	}
	/* Once more: what was a file when we began may have become something else. */
	ret = tp_output_check(out_path, err, errlen);
	if (ret)
		goto out;
	ret = tp_output_rename(tmp, out_path);
	if (ret < 0) {
		ret = fail(&w, ret, "%s: %s", out_path, strerror(-ret));
		goto out;
	}
	for (int i = 0; i < w.nin; i++)
		if (w.in[i].unknown_ids)
			damaged(&w, &w.in[i], w.in[i].unknown_off, "%llu records of event ids that "
				"no event chunk names (the first: id %u, in this chunk) are left out",
				(unsigned long long)w.in[i].unknown_ids, w.in[i].unknown_id);
	for (int i = 0; i < w.nin; i++) {
		const struct out_event *e = event_by_out_id(&w, w.in[i].misfit_id);

		if (w.in[i].misfits && e)
			damaged(&w, &w.in[i], w.in[i].misfit_off, "%llu records of event %s:%s "
				"shorter than its format's %u bytes, or with a string or array past "
				"their end (the first in this chunk) are left out",
				(unsigned long long)w.in[i].misfits, e->system, e->name, e->fixed_end);
	}
	res->damage = problem_text(w.damage, w.ndamage);
	res->unfinished = problem_text(w.unfinished, w.nunfinished);
	w.damage = w.unfinished = NULL;
	res->ev = calloc(w.nevents ? w.nevents : 1, sizeof(*res->ev));
	for (size_t i = 0; res->ev && i < w.nevents; i++) {
		struct tracedat_event *d = &res->ev[res->nev];
		const struct out_event *e = &w.events[i];

		if (e->dropped)
			continue;
		/* The strings move to the result. */
		d->system = e->system;
		d->name = e->name;
		d->condition = e->condition;
		w.events[i].system = w.events[i].name = w.events[i].condition = NULL;
		d->cond_skipped = e->stat.cond_skipped;
		d->filtered = e->stat.filtered;
		d->recorded = e->stat.recorded;
		d->lost = e->stat.lost;
		d->hits = d->cond_skipped + d->filtered + d->recorded + d->lost;
		d->too_big = e->too_big;
		d->refused = e->refused;
		d->kernel = e->kernel;
		d->reg_error = e->reg_error;
		d->uncounted = e->uncounted;
		counted += d->lost;
		res->nev++;
	}
	/*
	 * The pages' marks tell of records dropped for want of room; the counters of every loss
	 * (overwritten, or cut off by a full disk too). A process killed before it wrote its
	 * counters leaves only its marks.
	 */
	res->lost_marked = res->lost;
	if (counted > res->lost)
		res->lost = counted;
	res->uncounted = w.uncounted;
out:
	tp_td7_abort(w.td7);
	tp_ownfd_close(&f.file);
	if (ret && tmp)
		unlink(tmp);
	free(f.buf);
	free(tmp);
	free(table);
	for (int i = 0; i < w.nin; i++) {
		if (w.in[i].copied)
			free(w.in[i].map);
		else if (w.in[i].map)
			munmap(w.in[i].map, w.in[i].len);
		tp_spool_clock_free(&w.in[i].clock);
		free(w.in[i].idmap);
	}
	free(w.in);
	for (size_t i = 0; i < w.nevents; i++) {
		free(w.events[i].system);
		free(w.events[i].name);
		free(w.events[i].condition);
		tp_filter_free(w.events[i].filter);
	}
	free(w.events);
	free(w.name_index);
	free(w.by_id);
	free(w.chunks);
	free(w.comms);
	free(w.damage);
	free(w.unfinished);
	return ret;
}

/*
 * trace-cmd (3.1.6 here, 3.4 too) maps a CPU's records in pieces of the largest power of two
 * of pages within the largest CPU's size, a size it keeps in an int: from 2 GiB on that
 * overflows, the mapping fails, and `trace-cmd report` stops early without a word (of 120 M
 * records in one CPU's 4.8 GB it printed 6.6 M). The file is right; say so, and what reads
 * it all.
 */
const char *tp_tracedat_size_warning(const struct tracedat_result *res, char *buf, size_t len)
{
	if (res->big_cpu_bytes < (1ull << 31))
		return NULL;
	snprintf(buf, len, "CPU %u holds %llu MiB of records; trace-cmd (3.4 and before) and "
		 "KernelShark, through its libtracecmd, read no more than 2 GiB of one CPU's "
		 "records and stop there, without an error; `tpoint report` reads them all",
		 res->big_cpu, (unsigned long long)(res->big_cpu_bytes >> 20));
	return buf;
}

void tp_tracedat_result_free(struct tracedat_result *res)
{
	for (size_t i = 0; i < res->nev; i++) {
		free(res->ev[i].system);
		free(res->ev[i].name);
		free(res->ev[i].condition);
	}
	free(res->ev);
	res->ev = NULL;
	res->nev = 0;
	free(res->damage);
	free(res->unfinished);
	res->damage = res->unfinished = NULL;
}
