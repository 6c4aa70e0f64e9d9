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
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"
#include "pack.h"
#include "ringbuf.h"
#include "spool_format.h"

static struct spool {
	pthread_mutex_t io; /* one writer of the file at a time: the thread, flush or stop */
	pthread_t thread;
	bool thread_running;
	int thread_begun; /* tp_thread_begun() */
	bool stop;
	struct owned_fd file; /* the spool: checked before each write (ownfile.c) */
	char *path;           /* from / on: a daemon changes directory (session.c) */
	struct pool *pool;
	uint64_t *clock_at; /* per page: the running clock where its spooled part ends */
	char *buf;          /* chunks being put together: headers, names, formats, copies */
	size_t used;
	size_t seg_start;   /* buf bytes before this are in iov already */
	struct iovec *iov;  /* what the next write takes: parts of buf, and pool pages */
	uint32_t niov;
	size_t referenced;  /* bytes in iov that are pool pages, not buf */
	/* The records going out with the next write, wherever they are: if it fails, they
	 * count as lost. */
	struct iovec *records;
	uint32_t nrecords;
	off_t file_end;     /* the file up to here holds whole chunks */
	int error;
	uint32_t events_written;
	uint32_t *tids;     /* threads seen, in order: their names go in the file */
	size_t ntids, tids_cap;
	uint32_t *tid_set;  /* the same tids, hashed: a lookup per page, 1,000 threads or 1 */
	size_t tid_set_cap; /* a power of two, at least twice ntids */
	uint64_t last_clock_sample;
	uint32_t *to_free; /* drained pages waiting for the buffer to reach the file */
	uint32_t nto_free;
	bool live;         /* spool partly filled pages too, every LIVE_PERIOD */
	pack_fn packer;    /* packs pages that stay put (SPOOL_PAGE_PACKED), or NULL */
	bool snapshot;     /* a copy: records that fail to reach it are still in the pool */
	bool reader;       /* tp_spool_start_reader(): copies, never takes a page */
	uint64_t last_live;
	/* The drain thread, idle in overwrite mode: the mode changed, or stop. Waited on and
	 * signalled under io; zeroed, as after a fork, it is a default one, made anew. */
	pthread_cond_t wake;
	bool wake_ready;
	struct owned_fd room; /* room held for the last counts on a full disk */
} sp = { .io = PTHREAD_MUTEX_INITIALIZER, .file = { .fd = -1 }, .room = { .fd = -1 } };

/*
 * On a full disk the records stop reaching the file, but the counts that say how many were
 * lost must still get there: without them the file cannot say what it misses. A write that
 * fails cuts off what it put of its chunks, but it may have put nothing. So the spool holds
 * this much room of its file system from the start, in a file with no name, and gives it
 * back for the closing chunks (put_closing_chunks()): the counts of some 300 events and the
 * names of some 100 threads, the counts first.
 */
#define SPOOL_ROOM (16u << 10)

/* Best effort: a file system that allocates nothing ahead has nothing to hold. */
static void room_hold(void)
{
	size_t len = strlen(sp.path) + sizeof(".room");
	char *name = malloc(len);
	int fd;

	if (!name)
		return;
	snprintf(name, len, "%s.room", sp.path);
	fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		unlink(name);
		if (posix_fallocate(fd, 0, SPOOL_ROOM))
			close(fd);
		else
			tp_ownfd_adopt(&sp.room, fd); /* none on failure */
	}
	free(name);
}

/* The file has no name left: closing it frees its room (if the program did not close it). */
static void room_give_back(void)
{
	tp_ownfd_close(&sp.room);
}

/*
 * What goes to the file gathers here before one writev(): small chunks are put together in
 * sp.buf, and the records of pages the drain owns are not copied at all: the iovec points
 * into the pool page, and the kernel copies them into the file from there (or, where the
 * CPU packs fast, they are packed into sp.buf, a fifth to a quarter of their size). The
 * pages go back to the pool only once their records are in the file (a process killed in
 * between keeps them salvageable), so this much of the pool is held back at worst: 256 KiB
 * is 1/32 of the default pool. writev() from the pages cost the drain about a quarter less
 * CPU than a copy and write() (docs/PERFORMANCE.md, "Measurements behind the design").
 */
#define SPOOL_BUF (256u << 10)
#define SPOOL_IOV 1024u /* IOV_MAX on Linux; also the most page parts one write takes */

/* The part of buf not yet in iov becomes its next entry. */
static void close_segment(void)
{
	if (sp.used > sp.seg_start) {
		sp.iov[sp.niov++] = (struct iovec){ sp.buf + sp.seg_start, sp.used - sp.seg_start };
		sp.seg_start = sp.used;
	}
}

/*
 * Is the spool's descriptor still the file we opened? The program may have closed it, and
 * one of its own files may have the number now: a daemon starting up closes everything and
 * opens its log (tests/daemon_test.c). Then the spool is opened again by its name, if that
 * is still the same file, and writing goes on where it stopped; otherwise the records from
 * here on count as lost. Never a byte through a descriptor that is not ours.
 */
static bool spool_file_ours(void)
{
	int old = sp.file.fd, err;

	if (tp_ownfd_intact(&sp.file))
		return true;
	if (old < 0) {
		sp.error = EBADF; /* lost before, and said so then */
		return false;
	}
	err = tp_ownfd_reopen(&sp.file, sp.path, sp.file_end);
	if (!err) {
		tp_warn("spool %s: the program closed descriptor %d; writing on through %d", sp.path,
			old, sp.file.fd);
		return true;
	}
	sp.file.fd = -1; /* the number is the program's now: forgotten, not closed */
	sp.error = EBADF;
	tp_err("spool %s: the program closed descriptor %d and the file cannot be opened again "
	       "(%s); the records from here on count as lost", sp.path, old, strerror(-err));
	return false;
}

/* False when the file cannot take it (sp.error says why), now or since an earlier write. */
static bool write_all(void)
{
	struct iovec *v = sp.iov;
	uint32_t n = sp.niov;

	while (n && !sp.error && spool_file_ours()) {
		ssize_t done = writev(sp.file.fd, v, (int)n);

		if (done < 0 && errno == EINTR)
			continue;
		if (done <= 0) {
			sp.error = done < 0 ? errno : EIO;
			tp_err("spool %s: %s; the records from here on count as lost", sp.path,
			       strerror(sp.error));
			break;
		}
		sp.file_end += done;
		/* A short write (a full disk, a signal): go on from where it stopped. */
		while (n && (size_t)done >= v->iov_len) {
			done -= (ssize_t)v->iov_len;
			v++;
			n--;
		}
		if (n) {
			v->iov_base = (char *)v->iov_base + done;
			v->iov_len -= (size_t)done;
		}
	}
	return !sp.error;
}

/*
 * Ascending order by insertion: the drain takes full pages in the order writers filled them,
 * mostly ascending already, so this is close to one pass. glibc's qsort() is a merge sort
 * that calls memcpy() at every merge: with its comparisons it took a tenth of the drain's
 * samples in perf at full speed.
 */
static void sort_indices(uint32_t *v, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		uint32_t x = v[i], j = i;

		for (; j && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static void flush_buf(void)
{
	uint32_t nfree = sp.nto_free;
	off_t start = sp.file_end;

	close_segment();
	if (!write_all()) {
		/*
		 * The file keeps whole chunks only: what this write put of its chunks (a full
		 * disk takes part of them) is cut off again, and their records count as lost,
		 * as do those of every write after the first that failed. The room cut off is
		 * what a last, small chunk of counts needs (sync_locked()).
		 */
		if (sp.file_end != start && tp_ownfd_intact(&sp.file) &&
		    ftruncate(sp.file.fd, start) == 0 && lseek(sp.file.fd, start, SEEK_SET) == start)
			sp.file_end = start;
		if (!sp.snapshot) /* a snapshot's records are still in the pool */
			for (uint32_t i = 0; i < sp.nrecords; i++)
				tp_writer_count_unrecorded(sp.records[i].iov_base,
							   sp.records[i].iov_len);
	}
	sp.used = sp.seg_start = 0;
	sp.niov = 0;
	sp.referenced = 0;
	sp.nrecords = 0;
	/*
	 * The drained pages' records are in the file now (or counted lost): reuse the pages, in
	 * ascending order, so that a writer taking a run of them gets neighbours in memory
	 * (reserve_take() in writer.c). Two writers interleave their pages in the full queue.
	 */
	sort_indices(sp.to_free, nfree);
	tp_pool_put_free_run(sp.pool, sp.to_free, nfree);
	sp.nto_free = 0;
}

/* Room for a chunk of `size` bytes in buf and, when `ref`, a page part referenced after it. */
static void make_room(uint32_t size, uint32_t ref)
{
	size_t need = sizeof(struct spool_chunk) + ((size + 7u) & ~7u);

	/* Each chunk may close a segment and add a reference: two entries at most. */
	if (sp.used + need > SPOOL_BUF || sp.niov + 3 > SPOOL_IOV ||
	    sp.nrecords == SPOOL_IOV || (ref && sp.referenced + ref > SPOOL_BUF))
		flush_buf();
}

static void *chunk_begin(uint32_t type, uint32_t size)
{
	size_t need = sizeof(struct spool_chunk) + ((size + 7u) & ~7u);
	struct spool_chunk *c;

	make_room(size, 0);
	if (need > SPOOL_BUF)
		return NULL;
	c = (struct spool_chunk *)(void *)(sp.buf + sp.used);
	c->type = type;
	c->size = size;
	memset((char *)(c + 1) + size, 0, ((size + 7u) & ~7u) - size);
	sp.used += need;
	return c + 1;
}

static void put_clock_sample(void)
{
	struct clock_sample cs = tp_clock_sample_now();
	uint64_t *p = chunk_begin(SPOOL_CLOCK, 16);

	if (p) {
		p[0] = cs.clock;
		p[1] = cs.mono;
	}
	sp.last_clock_sample = cs.mono;
}

static void put_comm(uint32_t tid)
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
	char *p = chunk_begin(SPOOL_COMM, (uint32_t)(4 + len));

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
	for (size_t i = tid_slot(tid, sp.tid_set_cap); sp.tid_set[i];
	     i = (i + 1) & (sp.tid_set_cap - 1))
		if (sp.tid_set[i] == tid)
			return true;
	return false;
}

static void note_tid(uint32_t tid)
{
	if (sp.tid_set && tid_known(tid))
		return;
	if (sp.ntids == sp.tids_cap) {
		size_t cap = sp.tids_cap ? sp.tids_cap * 2 : 64;
		uint32_t *n = realloc(sp.tids, cap * sizeof(*n));
		uint32_t *set = calloc(2 * cap, sizeof(*set));

		if (!n || !set) {
			free(set);
			if (n)
				sp.tids = n;
			return;
		}
		for (size_t i = 0; i < sp.ntids; i++)
			tid_set_add(set, 2 * cap, n[i]);
		free(sp.tid_set);
		sp.tids = n;
		sp.tids_cap = cap;
		sp.tid_set = set;
		sp.tid_set_cap = 2 * cap;
	}
	tid_set_add(sp.tid_set, sp.tid_set_cap, tid);
	sp.tids[sp.ntids++] = tid;
	put_comm(tid);
}

static void put_new_events(void)
{
	tp_registry_lock();
	for (uint32_t i = sp.events_written; i < tp_registry_count(); i++) {
		struct event_slot *s = tp_registry_slot(i);
		size_t ls = strlen(s->system) + 1, ln = strlen(s->name) + 1;
		size_t lc = strlen(s->condition) + 1, lf = strlen(s->format) + 1;
		char *p = chunk_begin(SPOOL_EVENT, (uint32_t)(4 + ls + ln + lc + lf));

		if (!p)
			break;
		memcpy(p, &s->id, 2);
		memset(p + 2, 0, 2);
		p += 4;
		memcpy(p, s->system, ls);
		memcpy(p + ls, s->name, ln);
		memcpy(p + ls + ln, s->condition, lc);
		memcpy(p + ls + ln + lc, s->format, lf);
		sp.events_written = i + 1;
	}
	tp_registry_unlock();
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
	if (!sp.path)
		return;
	pthread_mutex_lock(&sp.io);
	put_new_events();
	/*
	 * Whatever the buffer holds goes out: the drain thread may have put the definitions
	 * there itself, a pass before, to be written with its next batch.
	 */
	if (sp.used && !sp.snapshot)
		flush_buf();
	pthread_mutex_unlock(&sp.io);
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
	out = k ? chunk_begin(SPOOL_NOTES, k * (uint32_t)sizeof(*out)) : NULL;
	if (out)
		memcpy(out, note, k * sizeof(*out));
	free(note);
}

static void put_stats(void)
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
	out = chunk_begin(SPOOL_STATS, (uint32_t)((size_t)n * sizeof(*out)));
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

/* Pages with fewer bytes go as they are: packing them would save next to nothing. */
#define PACK_MIN 256u

/*
 * A SPOOL_PAGE_PACKED chunk in buf: its header, then the page bytes packed (lib/pack.h),
 * with the lag in *lag. NULL when packing saves nothing: nothing is left in buf then. The
 * page is held back until the next flush as a referenced one is, so it counts as such.
 */
static struct spool_records *packed_chunk(const char *bytes, uint32_t len, uint32_t *lag)
{
	uint32_t bound = (uint32_t)sizeof(struct spool_records) + PACK_BOUND(len);
	struct spool_records *hdr;
	struct spool_chunk *c;
	size_t packed;

	make_room(bound, len);
	hdr = chunk_begin(SPOOL_PAGE_PACKED, bound);
	if (!hdr)
		return NULL;
	c = (struct spool_chunk *)(void *)hdr - 1;
	*lag = tp_pack_lag(bytes, len);
	packed = sp.packer((const uint8_t *)bytes, len, *lag, (uint8_t *)(hdr + 1));
	if (packed >= len) {
		sp.used = (size_t)((char *)c - sp.buf);
		return NULL;
	}
	/* The chunk shrinks to what was used; its padding is zeros, as chunk_begin() makes. */
	c->size = (uint32_t)(sizeof(*hdr) + packed);
	memset((char *)(hdr + 1) + packed, 0, ((c->size + 7u) & ~7u) - c->size);
	sp.used = (size_t)((char *)(c + 1) - sp.buf) + ((c->size + 7u) & ~7u);
	sp.referenced += len;
	return hdr;
}

/*
 * A chunk of page bytes: its header (struct spool_records) goes to buf, the page bytes after
 * it, when `stable` (the page stays put until the next flush), are packed if that pays, or
 * else referenced where they are; unstable ones are copied. Returns the header to fill in
 * (with the lag in *lag, 0 for bytes as they are), or NULL.
 */
static struct spool_records *page_chunk(const char *bytes, uint32_t len, bool stable,
					uint32_t *lag)
{
	struct spool_records *hdr;

	if (stable && sp.packer && len >= PACK_MIN && !(len & 7u) &&
	    (hdr = packed_chunk(bytes, len, lag)))
		return hdr;
	*lag = 0; /* as they are */
	if (!stable || (len & 7u)) { /* records are 8-byte multiples; anything else is copied */
		char *body = chunk_begin(SPOOL_PAGE, (uint32_t)sizeof(*hdr) + len);

		if (body)
			memcpy(body + sizeof(*hdr), bytes, len);
		return (struct spool_records *)(void *)body;
	}
	make_room((uint32_t)sizeof(*hdr), len);
	hdr = chunk_begin(SPOOL_PAGE, (uint32_t)sizeof(*hdr));
	if (!hdr)
		return NULL;
	/* The chunk's size counts the page bytes that follow it in the file. */
	((struct spool_chunk *)(void *)hdr - 1)->size += len;
	close_segment();
	if (len) {
		sp.iov[sp.niov++] = (struct iovec){ (void *)bytes, len };
		sp.referenced += len;
	}
	return hdr;
}

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
static void emit_records(const char *page, struct page_meta *m, uint64_t gen,
			 uint32_t from, uint64_t clock, uint64_t *clock_out, bool partial,
			 bool stable)
{
	/* Acquire: pairs with the writer's release of commit; the bytes below it are whole. */
	uint64_t commit = __atomic_load_n((const uint64_t *)(const void *)(page + 8),
					  __ATOMIC_ACQUIRE);
	const char *data = page + TPOINT_PAGE_HEADER;
	struct spool_records *hdr;
	uint32_t lag;

	*clock_out = clock;
	if (commit > TPOINT_PAGE_DATA_END || (from >= commit && (from || partial)))
		return;
	note_tid(m->tid);
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
	hdr = page_chunk(data + from, (uint32_t)(commit - from), stable, &lag);
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
			sp.used = (size_t)((char *)hdr - sizeof(struct spool_chunk) - sp.buf);
			return;
		}
		*clock_out = tp_page_clock_after((const char *)(hdr + 1), (uint32_t)(commit - from),
						 clock);
	}
	/* Where the records are until the write: in the page, or in the copy after hdr. */
	sp.records[sp.nrecords++] = (struct iovec){
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
	struct pool *p = sp.pool;
	struct page_meta *m = &p->meta[idx];
	const char *page = tp_pool_page(p, idx);
	uint64_t gen = __atomic_load_n(&m->gen, __ATOMIC_RELAXED);
	/* Where an earlier pass stopped in this use of the page: what our claims reached. */
	uint64_t spooled = __atomic_load_n(&m->spooled, __ATOMIC_RELAXED);
	uint32_t off = (uint32_t)(spooled >> 32) == (uint32_t)gen ? (uint32_t)spooled : 0;
	uint64_t clock = off ? sp.clock_at[idx] : *(const uint64_t *)(const void *)page;

	/*
	 * A page the drain took stays put until its records are in the file; so does a page
	 * still being written in discard or block mode (its writer only appends). In overwrite
	 * mode a writer may take a full page back at any time: its bytes are copied. The mode
	 * cannot change before the flush: tp_spool_set_mode() waits for sp.io, and whoever holds
	 * sp.io flushes what it took of pages being written before letting go.
	 */
	emit_records(page, m, gen, off, clock, &clock, !final,
		     final || __atomic_load_n(&p->mode, __ATOMIC_RELAXED) != TPOINT_MODE_OVERWRITE);
	if (final) {
		uint64_t commit = *(const uint64_t *)(const void *)(page + 8);

		/*
		 * Not free yet: its records are in our buffer, not in the file. Until they are,
		 * the page keeps them for whoever salvages a process killed in between. It stays
		 * marked full meanwhile: a pass of drain_partial() must find them spooled.
		 */
		__atomic_store_n(&m->spooled, (gen << 32) | (uint32_t)commit, __ATOMIC_RELAXED);
		sp.to_free[sp.nto_free++] = idx;
	}
	else
		sp.clock_at[idx] = clock;
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
	uint32_t max = all ? UINT32_MAX : tp_pool_full_estimate(sp.pool);
	uint32_t idx[DRAIN_TAKE], k;
	unsigned n = 0;

	while (n < max &&
	       (k = tp_pool_take_full_run(sp.pool, idx, max - n < DRAIN_TAKE ? max - n : DRAIN_TAKE))) {
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
	for (uint32_t i = 0; i < sp.pool->npages; i++) {
		uint32_t state = __atomic_load_n(&sp.pool->meta[i].state, __ATOMIC_ACQUIRE);

		if (state == PAGE_WRITING || (full && state == PAGE_FULL))
			drain_page(i, false);
	}
}

/* After a pass of drain_partial() begun at raw clock `clock`: the records before it are in. */
static void put_synced(uint64_t clock)
{
	uint64_t *p = chunk_begin(SPOOL_SYNCED, 8);

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
	tp_thread_begun(&sp.thread_begun);
	for (;;) {
		unsigned n = 0;

		pthread_mutex_lock(&sp.io);
		if (sp.stop) {
			pthread_mutex_unlock(&sp.io);
			break;
		}
		put_new_events();
		if (__atomic_load_n(&sp.pool->mode, __ATOMIC_RELAXED) != TPOINT_MODE_OVERWRITE &&
		    !sp.reader)
			n = drain_full(false);
		/*
		 * The drained pages wait for their records to reach the file. At full speed each
		 * pass finds the few pages filled during the last, and a write a pass (a system
		 * call costs a microsecond on this project's VM) took as long as everything else
		 * the drain does: so they are written out when a pass finds nothing more, when
		 * the buffer is full (make_room()), or when they are an eighth of the pool, lest
		 * a small pool run dry while its pages sit in our buffer.
		 */
		if (sp.nto_free && (!n || sp.nto_free >= sp.pool->npages / 8))
			flush_buf();
		if (sp.live && tp_mono_now() - sp.last_live > 50000000u) {
			/* A live reader wants records within 100 ms, full pages or not. */
			struct clock_sample begun = tp_clock_sample_now();

			drain_partial(true);
			put_synced(begun.clock);
			flush_buf();
			sp.last_live = tp_mono_now();
		}
		if (tp_mono_now() - sp.last_clock_sample > 100000000u) {
			put_clock_sample();
			flush_buf();
		}
		if (!n && !sp.live &&
		    __atomic_load_n(&sp.pool->mode, __ATOMIC_RELAXED) == TPOINT_MODE_OVERWRITE) {
			/*
			 * Overwrite mode: the pages stay in the pool, and nothing is due before the
			 * next clock sample. Wait for it, or for a change of mode or a stop
			 * (tp_spool_set_mode(), tp_spool_stop()): looking every millisecond would
			 * take the CPU from a writer a thousand times a second for nothing.
			 */
			uint64_t due = sp.last_clock_sample + 100000000u;
			struct timespec until = { (time_t)(due / 1000000000u),
						  (long)(due % 1000000000u) };

			pthread_cond_timedwait(&sp.wake, &sp.io, &until);
			pthread_mutex_unlock(&sp.io);
			continue;
		}
		drained += n;
		if (!n) {
			nap = drain_next_nap(nap, drained, sp.pool->npages);
			drained = 0;
		}
		pthread_mutex_unlock(&sp.io);
		if (!n) /* nothing found: sleep; pages found: look again at once */
			nanosleep(&(struct timespec){ 0, nap }, NULL);
	}
	return NULL;
}

static void spool_free_state(void)
{
	room_give_back();
	free(sp.buf);
	free(sp.iov);
	free(sp.clock_at);
	free(sp.tids);
	free(sp.tid_set);
	free(sp.path);
	free(sp.to_free);
	free(sp.records);
	sp.records = NULL;
	sp.buf = NULL;
	sp.iov = NULL;
	sp.clock_at = NULL;
	sp.tids = NULL;
	sp.tid_set = NULL;
	sp.path = NULL;
	sp.to_free = NULL;
	sp.ntids = sp.tids_cap = sp.tid_set_cap = 0;
}

/*
 * Packing pays wherever writing a page costs more than packing it (pack.h), even with the
 * portable packer. TPOINT_SPOOL_PACK=0 turns it off.
 */
static pack_fn spool_packer(void)
{
	const char *v = getenv("TPOINT_SPOOL_PACK");

	if (v && strcmp(v, "0") && strcmp(v, "1"))
		tp_err("TPOINT_SPOOL_PACK='%s': expected 0 or 1; packing where the CPU can", v);
	if (v && !strcmp(v, "0"))
		return NULL;
	return tp_pack_encoder();
}

/* The file, its header, the first clock sample and the formats: all but the thread. */
static int spool_open(struct pool *p, const char *path, bool live)
{
	struct spool_file_header h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SPOOL_MAGIC, sizeof(SPOOL_MAGIC));
	h.version = SPOOL_VERSION;
	h.pid = (uint32_t)getpid();
	snprintf(h.clock_name, sizeof(h.clock_name), "%s", TPOINT_ARCH_CLOCK_NAME);

	sp.path = strdup(path);
	sp.buf = malloc(SPOOL_BUF);
	sp.iov = calloc(SPOOL_IOV, sizeof(*sp.iov));
	sp.clock_at = calloc(p->npages, sizeof(*sp.clock_at));
	sp.to_free = calloc(p->npages, sizeof(*sp.to_free));
	sp.records = calloc(SPOOL_IOV, sizeof(*sp.records));
	sp.nto_free = 0;
	sp.nrecords = 0;
	sp.file_end = 0;
	if (!sp.path || !sp.buf || !sp.iov || !sp.clock_at || !sp.to_free || !sp.records) {
		spool_free_state();
		return -ENOMEM;
	}
	/* A regular file (or a FIFO read already), not through a link, never waiting. */
	char why[512];
	int fd = tp_output_open(path, OUTPUT_TRUNCATE | OUTPUT_FIFO, why, sizeof(why)), err;

	if (fd < 0 || (err = tp_ownfd_adopt(&sp.file, fd)) < 0) {
		err = fd < 0 ? fd : err;
		if (fd < 0)
			tp_err("spool: %s", why);
		spool_free_state();
		return err;
	}
	room_hold();
	sp.pool = p;
	sp.live = live;
	sp.packer = spool_packer();
	sp.snapshot = false;
	sp.reader = false;
	sp.error = 0;
	sp.stop = false;
	sp.events_written = 0;
	sp.ntids = 0;
	if (sp.tid_set)
		memset(sp.tid_set, 0, sp.tid_set_cap * sizeof(*sp.tid_set));
	memcpy(sp.buf, &h, sizeof(h));
	sp.used = sizeof(h);
	sp.seg_start = 0;
	sp.niov = 0;
	sp.referenced = 0;
	put_clock_sample();
	put_new_events();
	flush_buf();
	if (sp.error) {
		err = -sp.error;
		tp_ownfd_close(&sp.file);
		unlink(path);
		spool_free_state();
		return err;
	}
	return 0;
}

static int start(struct pool *p, const char *path, bool live, bool reader)
{
	sigset_t all, old;
	pthread_condattr_t attr;
	int err = spool_open(p, path, live);

	if (err)
		return err;
	sp.reader = reader;
	pthread_mutex_lock(&sp.io);
	if (!sp.wake_ready) { /* on the clock that tp_mono_now() reads */
		pthread_condattr_init(&attr);
		pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
		pthread_cond_init(&sp.wake, &attr);
		pthread_condattr_destroy(&attr);
		sp.wake_ready = true;
	}
	pthread_mutex_unlock(&sp.io);
	/* The drain thread takes no signal of the program's: they are meant for its threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	sp.thread_begun = 0;
	err = -pthread_create(&sp.thread, NULL, drain_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		tp_ownfd_close(&sp.file);
		unlink(path);
		spool_free_state();
		return err;
	}
	pthread_setname_np(sp.thread, "tpoint-drain");
	sp.thread_running = true;
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

/*
 * What closes a flush of the file: the threads' names, a clock sample and the counts, with
 * the end mark on the last one. After a failed write they are worth another try: they say
 * what was lost, and the room held for them (SPOOL_ROOM) or that of the cut-off chunks may
 * take them. The error stays the recording's.
 */
static void put_closing_chunks(bool final)
{
	int error = sp.error;

	sp.error = 0;
	if (error)
		room_give_back();
	put_clock_sample();
	put_stats();
	if (error) /* the counts in a write of their own: the disk may not take the names too */
		flush_buf();
	for (size_t i = 0; i < sp.ntids; i++)
		put_comm(sp.tids[i]); /* names may have changed since first seen */
	if (final)
		chunk_begin(SPOOL_END, 0);
	flush_buf();
	if (error)
		sp.error = error;
}

/* The end of a spool: its error, if any, or close()'s. */
static void spool_close(int *err)
{
	if (tp_ownfd_intact(&sp.file) && close(sp.file.fd) < 0 && !*err)
		*err = -errno;
	sp.file.fd = -1;
}

static void sync_locked(bool final)
{
	put_new_events();
	/* Full pages first: within a stream they come before the page being written. */
	if (!sp.reader)
		drain_full(final);
	drain_partial(sp.reader);
	flush_buf();
	put_closing_chunks(final);
}

int tp_spool_sync(void)
{
	int err;

	if (!sp.path)
		return -ENOENT;
	pthread_mutex_lock(&sp.io);
	sync_locked(false);
	err = -sp.error;
	pthread_mutex_unlock(&sp.io);
	return err;
}

int tp_spool_stop(void)
{
	int err;

	if (!sp.path)
		return -ENOENT;
	/* Writers waiting in block mode for a page go on without one (and count it lost). */
	if (!sp.reader)
		__atomic_store_n(&sp.pool->draining, false, __ATOMIC_RELAXED);
	pthread_mutex_lock(&sp.io);
	sp.stop = true;
	pthread_cond_signal(&sp.wake);
	pthread_mutex_unlock(&sp.io);
	if (sp.thread_running)
		pthread_join(sp.thread, NULL);
	sp.thread_running = false;
	pthread_mutex_lock(&sp.io);
	sync_locked(true);
	err = -sp.error;
	spool_close(&err);
	spool_free_state();
	pthread_mutex_unlock(&sp.io);
	return err;
}

/*
 * Copy what the pool holds into a spool of its own, without taking anything from the
 * writers: the pages stay where they are. A page is copied, then its generation is compared
 * with the one read before the copy: a page that a writer took in between (overwrite mode)
 * is left out, as its old contents are gone anyway.
 */
int tp_spool_snapshot(struct pool *p, const char *path)
{
	char *copy = malloc(TPOINT_PAGE_SIZE);
	int err;

	if (!copy)
		return -ENOMEM;
	pthread_mutex_lock(&sp.io);
	if (sp.path) {
		pthread_mutex_unlock(&sp.io);
		free(copy);
		return -EBUSY;
	}
	err = spool_open(p, path, false);
	if (err) {
		pthread_mutex_unlock(&sp.io);
		free(copy);
		return err;
	}
	sp.snapshot = true;
	for (uint32_t i = 0; i < p->npages; i++) {
		struct page_meta m;
		uint32_t state = __atomic_load_n(&p->meta[i].state, __ATOMIC_ACQUIRE);
		uint64_t gen = __atomic_load_n(&p->meta[i].gen, __ATOMIC_ACQUIRE);

		if (state != PAGE_FULL && state != PAGE_WRITING)
			continue;
		memcpy(&m, &p->meta[i], sizeof(m));
		memcpy(copy, tp_pool_page(p, i), TPOINT_PAGE_SIZE);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&p->meta[i].gen, __ATOMIC_RELAXED) != gen)
			continue;
		uint64_t clock;

		emit_records(copy, &m, gen, 0, *(uint64_t *)(void *)copy, &clock, false, false);
	}
	flush_buf();
	put_closing_chunks(true);
	err = -sp.error;
	spool_close(&err);
	spool_free_state();
	pthread_mutex_unlock(&sp.io);
	free(copy);
	return err;
}

void tp_spool_set_mode(struct pool *p, enum tpoint_mode mode)
{
	/* Under sp.io: see drain_page(), which decides per page whether to copy it. */
	pthread_mutex_lock(&sp.io);
	__atomic_store_n(&p->mode, mode, __ATOMIC_RELAXED);
	pthread_cond_signal(&sp.wake);
	pthread_mutex_unlock(&sp.io);
}

void tp_spool_set_live(bool live)
{
	pthread_mutex_lock(&sp.io);
	sp.live = live;
	pthread_cond_signal(&sp.wake);
	pthread_mutex_unlock(&sp.io);
}

const char *tp_spool_path(void)
{
	return sp.path;
}

void tp_spool_fork_prepare(void)
{
	if (sp.thread_running)
		tp_thread_wait_begun(&sp.thread_begun);
}

void tp_spool_after_fork(void)
{
	/* The parent's drain thread and file are not the child's. */
	tp_ownfd_close(&sp.file);
	spool_free_state();
	free(stats_base); /* the child counts from zero (tp_writer_after_fork()) */
	stats_base = NULL;
	nstats_base = 0;
	memset(&sp, 0, sizeof(sp));
	pthread_mutex_init(&sp.io, NULL);
	sp.file = OWNED_FD_NONE;
	sp.room = OWNED_FD_NONE;
}
