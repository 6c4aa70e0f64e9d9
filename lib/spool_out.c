/* SPDX-License-Identifier: MIT */
/*
 * The spool file being written: the buffer where its chunks gather before one writev(), the
 * write itself, the file checked to be ours before each write, the chunks of page bytes
 * (packed, referenced or copied), and a full disk, which must still take the counts that say
 * what it lost. One spool at a time: the state is tp_spool (spool.h), which the drain thread
 * (drain.c) and a snapshot (spool_snapshot.c) fill through these functions, under its io mutex.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "env.h"
#include "log.h"
#include "ownfile.h"
#include "pack.h"
#include "pool.h"
#include "spool.h"
#include "spool_format.h"
#include "spool_out.h"
#include "spool_read.h"
#include "writer.h"

_Static_assert(SPOOL_CHUNK_MAX >= (256u << 10) + TPOINT_PAGE_SIZE,
	       "a reader takes the largest chunk the writer makes");

struct spool tp_spool = {
	.io = PTHREAD_MUTEX_INITIALIZER, .file = { .fd = -1 }, .room = { .fd = -1 }
};

/*
 * On a full disk the records stop reaching the file, but the counts that say how many were
 * lost must still get there: without them the file cannot say what it misses. A write that
 * fails cuts off what it put of its chunks, but it may have put nothing. So the spool holds
 * this much room of its file system from the start, in a file with no name, and gives it
 * back for the closing chunks (tp_spool_put_closing_chunks()): the counts of some 300 events
 * and the names of some 100 threads, the counts first.
 */
#define SPOOL_ROOM (16u << 10)

/* Best effort: a file system that allocates nothing ahead has nothing to hold. */
static void room_hold(void)
{
	size_t len = strlen(sp->path) + sizeof(".room");
	char *name = malloc(len);
	int fd;

	if (!name)
		return;
	snprintf(name, len, "%s.room", sp->path);
	fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		unlink(name);
		if (posix_fallocate(fd, 0, SPOOL_ROOM))
			close(fd);
		else
			tp_ownfd_adopt(&sp->room, fd); /* none on failure */
	}
	free(name);
}

/* The file has no name left: closing it frees its room (if the program did not close it). */
void tp_spool_room_give_back(void)
{
	tp_ownfd_close(&sp->room);
}

/*
 * What goes to the file gathers here before one writev(): small chunks are put together in
 * sp->buf, and the records of pages the drain owns are not copied at all: the iovec points
 * into the pool page, and the kernel copies them into the file from there (or, where the
 * CPU packs fast, they are packed into sp->buf, a fifth to a quarter of their size). The
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
	if (sp->used > sp->seg_start) {
		sp->iov[sp->niov++] = (struct iovec){ sp->buf + sp->seg_start,
							sp->used - sp->seg_start };
		sp->seg_start = sp->used;
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
	int old = sp->file.fd, err;

	if (tp_ownfd_intact(&sp->file))
		return true;
	if (old < 0) {
		sp->error = EBADF; /* lost before, and said so then */
		return false;
	}
	err = tp_ownfd_reopen(&sp->file, sp->path, sp->file_end);
	if (!err) {
		tp_warn("spool %s: the program closed descriptor %d; writing on through %d",
			sp->path, old, sp->file.fd);
		return true;
	}
	sp->file.fd = -1; /* the number is the program's now: forgotten, not closed */
	sp->error = EBADF;
	tp_err("spool %s: the program closed descriptor %d and the file cannot be opened again "
	       "(%s); the records from here on count as lost", sp->path, old, strerror(-err));
	return false;
}

/* False when the file cannot take it (sp->error says why), now or since an earlier write. */
static bool write_all(void)
{
	struct iovec *v = sp->iov;
	uint32_t n = sp->niov;

	while (n && !sp->error && spool_file_ours()) {
		ssize_t done = writev(sp->file.fd, v, (int)n);

		if (done < 0 && errno == EINTR)
			continue;
		if (done <= 0) {
			sp->error = done < 0 ? errno : EIO;
			tp_err("spool %s: %s; the records from here on count as lost", sp->path,
			       strerror(sp->error));
			break;
		}
		sp->file_end += done;
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
	return !sp->error;
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

/*
 * The checksum of the last chunk begun, now that it is whole: its callers fill its body
 * after tp_spool_chunk_begin() returns, and a page chunk's header (drain.c) after its bytes
 * are referenced or packed. So it is put in when the next chunk begins, or at the flush. A
 * chunk taken back meanwhile (the buffer cut back to its start) has none to get.
 */
static void seal_chunk(void)
{
	struct spool_chunk *c;
	size_t body;

	if (!sp->unsealed)
		return;
	sp->unsealed = false;
	if (sp->unsealed_off >= sp->used)
		return;
	c = (struct spool_chunk *)(void *)(sp->buf + sp->unsealed_off);
	body = (((size_t)c->size + 7u) & ~(size_t)7u) - sp->unsealed_ref_len;
	c->crc = tp_spool_chunk_crc(c, c + 1, body, sp->unsealed_ref, sp->unsealed_ref_len);
}

void tp_spool_flush(void)
{
	uint32_t nfree = sp->nto_free;
	off_t start = sp->file_end;

	seal_chunk();
	close_segment();
	if (!write_all()) {
		/*
		 * The file keeps whole chunks only: what this write put of its chunks (a full
		 * disk takes part of them) is cut off again, and their records count as lost,
		 * as do those of every write after the first that failed. The room cut off is
		 * what a last, small chunk of counts needs (sync_locked() in drain.c).
		 */
		if (sp->file_end != start && tp_ownfd_intact(&sp->file) &&
		    ftruncate(sp->file.fd, start) == 0 &&
		    lseek(sp->file.fd, start, SEEK_SET) == start)
			sp->file_end = start;
		if (!sp->snapshot) /* a snapshot's records are still in the pool */
			for (uint32_t i = 0; i < sp->nrecords; i++)
				tp_writer_count_unrecorded(sp->records[i].iov_base,
							   sp->records[i].iov_len);
	}
	sp->used = sp->seg_start = 0;
	sp->niov = 0;
	sp->referenced = 0;
	sp->nrecords = 0;
	/*
	 * The drained pages' records are in the file now (or counted lost): reuse the pages, in
	 * ascending order, so that a writer taking a run of them gets neighbours in memory
	 * (reserve_take() in writer.c). Two writers interleave their pages in the full queue.
	 */
	sort_indices(sp->to_free, nfree);
	tp_pool_put_free_run(sp->pool, sp->to_free, nfree);
	sp->nto_free = 0;
}

/* Room for a chunk of `size` bytes in buf and, when `ref`, a page part referenced after it. */
static void make_room(uint32_t size, uint32_t ref)
{
	size_t need = sizeof(struct spool_chunk) + ((size + 7u) & ~7u);

	/* Each chunk may close a segment and add a reference: two entries at most. */
	if (sp->used + need > SPOOL_BUF || sp->niov + 3 > SPOOL_IOV ||
	    sp->nrecords == SPOOL_IOV || (ref && sp->referenced + ref > SPOOL_BUF))
		tp_spool_flush();
}

void *tp_spool_chunk_begin(uint32_t type, uint32_t size)
{
	size_t need = sizeof(struct spool_chunk) + ((size + 7u) & ~7u);
	struct spool_chunk *c;

	seal_chunk();
	make_room(size, 0);
	if (need > SPOOL_BUF)
		return NULL;
	c = (struct spool_chunk *)(void *)(sp->buf + sp->used);
	*c = (struct spool_chunk){ .type = type, .size = size };
	memset((char *)(c + 1) + size, 0, ((size + 7u) & ~7u) - size);
	sp->unsealed = true;
	sp->unsealed_off = sp->used;
	sp->unsealed_ref = NULL;
	sp->unsealed_ref_len = 0;
	sp->used += need;
	return c + 1;
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
	hdr = tp_spool_chunk_begin(SPOOL_PAGE_PACKED, bound);
	if (!hdr)
		return NULL;
	c = (struct spool_chunk *)(void *)hdr - 1;
	*lag = tp_pack_lag(bytes, len);
	packed = sp->packer((const uint8_t *)bytes, len, *lag, (uint8_t *)(hdr + 1));
	if (packed >= len) {
		sp->used = (size_t)((char *)c - sp->buf);
		return NULL;
	}
	/* The chunk shrinks to what was used; its padding is zeros, as tp_spool_chunk_begin()
	 * makes. */
	c->size = (uint32_t)(sizeof(*hdr) + packed);
	memset((char *)(hdr + 1) + packed, 0, ((c->size + 7u) & ~7u) - c->size);
	sp->used = (size_t)((char *)(c + 1) - sp->buf) + ((c->size + 7u) & ~7u);
	sp->referenced += len;
	return hdr;
}

/*
 * A chunk of page bytes: its header (struct spool_records) goes to buf, the page bytes after
 * it, when `stable` (the page stays put until the next flush), are packed if that pays, or
 * else referenced where they are; unstable ones are copied. Returns the header to fill in
 * (with the lag in *lag, 0 for bytes as they are), or NULL.
 */
struct spool_records *tp_spool_page_chunk(const char *bytes, uint32_t len, bool stable,
					uint32_t *lag)
{
	struct spool_records *hdr;

	if (stable && sp->packer && len >= PACK_MIN && !(len & 7u) &&
	    (hdr = packed_chunk(bytes, len, lag)))
		return hdr;
	*lag = 0; /* as they are */
	if (!stable || (len & 7u)) { /* records are 8-byte multiples; anything else is copied */
		char *body = tp_spool_chunk_begin(SPOOL_PAGE, (uint32_t)sizeof(*hdr) + len);

		if (body)
			memcpy(body + sizeof(*hdr), bytes, len);
		return (struct spool_records *)(void *)body;
	}
	make_room((uint32_t)sizeof(*hdr), len);
	hdr = tp_spool_chunk_begin(SPOOL_PAGE, (uint32_t)sizeof(*hdr));
	if (!hdr)
		return NULL;
	/* The chunk's size counts the page bytes that follow it in the file. */
	((struct spool_chunk *)(void *)hdr - 1)->size += len;
	close_segment();
	if (len) {
		sp->iov[sp->niov++] = (struct iovec){ (void *)bytes, len };
		sp->referenced += len;
		sp->unsealed_ref = bytes; /* stays put until the flush, after the seal */
		sp->unsealed_ref_len = len;
	}
	return hdr;
}

void tp_spool_free_state(void)
{
	tp_spool_room_give_back();
	free(sp->buf);
	free(sp->iov);
	free(sp->clock_at);
	free(sp->tids);
	free(sp->tid_set);
	free(sp->path);
	free(sp->to_free);
	free(sp->records);
	sp->records = NULL;
	sp->buf = NULL;
	sp->iov = NULL;
	sp->clock_at = NULL;
	sp->tids = NULL;
	sp->tid_set = NULL;
	sp->path = NULL;
	sp->to_free = NULL;
	sp->ntids = sp->tids_cap = sp->tid_set_cap = 0;
}

/*
 * Packing pays wherever writing a page costs more than packing it (pack.h), even with the
 * portable packer. TPOINT_SPOOL_PACK=0 turns it off.
 */
static pack_fn spool_packer(void)
{
	if (!tp_env_spool_pack())
		return NULL;
	return tp_pack_encoder();
}

int tp_spool_create(const char *path, char *why, size_t whylen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct stat st;

	if (fd < 0) {
		snprintf(why, whylen, "cannot create its spool %s: %s", path, strerror(errno));
		return -errno;
	}
	/* Belt and braces: what O_EXCL made is a new file of ours, with this name alone. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    st.st_uid != geteuid()) {
		snprintf(why, whylen, "its spool %s is not a new file of this process's user",
			 path);
		close(fd);
		return -EEXIST;
	}
	close(fd);
	return 0;
}

/* The file and its header, in the buffer (spool_context.c's tp_spool_open() goes on). */
int tp_spool_open_file(struct pool *p, const char *path, bool live)
{
	struct spool_file_header h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, SPOOL_MAGIC, sizeof(SPOOL_MAGIC));
	h.version = SPOOL_VERSION;
	h.pid = (uint32_t)getpid();
	snprintf(h.clock_name, sizeof(h.clock_name), "%s", TPOINT_ARCH_CLOCK_NAME);
	h.crc = tp_spool_header_crc(&h);

	sp->path = strdup(path);
	sp->buf = malloc(SPOOL_BUF);
	sp->iov = calloc(SPOOL_IOV, sizeof(*sp->iov));
	sp->clock_at = calloc(p->npages, sizeof(*sp->clock_at));
	sp->to_free = calloc(p->npages, sizeof(*sp->to_free));
	sp->records = calloc(SPOOL_IOV, sizeof(*sp->records));
	sp->nto_free = 0;
	sp->nrecords = 0;
	sp->file_end = 0;
	if (!sp->path || !sp->buf || !sp->iov || !sp->clock_at || !sp->to_free || !sp->records) {
		tp_spool_free_state();
		return -ENOMEM;
	}
	/* A regular file (or a FIFO read already), not through a link, never waiting. */
	char why[512];
	int fd = tp_output_open(path, OUTPUT_TRUNCATE | OUTPUT_FIFO, why, sizeof(why)), err;

	struct stat st;

	/* A regular file with another name could be read through that name: not ours. */
	if (fd >= 0 && (fstat(fd, &st) < 0 || (S_ISREG(st.st_mode) && st.st_nlink != 1))) {
		snprintf(why, sizeof(why), "%s has %lu names: another one could read the "
			 "recording", path, (unsigned long)st.st_nlink);
		close(fd);
		fd = -EMLINK;
	}
	if (fd < 0 || (err = tp_ownfd_adopt(&sp->file, fd)) < 0) {
		err = fd < 0 ? fd : err;
		if (fd < 0)
			tp_err("spool: %s", why);
		tp_spool_free_state();
		return err;
	}
	room_hold();
	sp->pool = p;
	sp->live = live;
	sp->packer = spool_packer();
	sp->snapshot = false;
	sp->reader = false;
	sp->error = 0;
	sp->stop = false;
	sp->events_written = 0;
	sp->tracing_written = 0;
	sp->ntids = 0;
	if (sp->tid_set)
		memset(sp->tid_set, 0, sp->tid_set_cap * sizeof(*sp->tid_set));
	memcpy(sp->buf, &h, sizeof(h));
	sp->used = sizeof(h);
	sp->unsealed = false;
	sp->seg_start = 0;
	sp->niov = 0;
	sp->referenced = 0;
	return 0;
}

/* The end of a spool: its error, if any, or close()'s. */
void tp_spool_close(int *err)
{
	if (tp_ownfd_intact(&sp->file) && close(sp->file.fd) < 0 && !*err)
		*err = -errno;
	sp->file.fd = -1;
}

void tp_spool_after_fork(void)
{
	/* The parent's drain thread and file are not the child's. */
	tp_ownfd_close(&sp->file);
	tp_spool_free_state();
	memset(sp, 0, sizeof(*sp));
	pthread_mutex_init(&sp->io, NULL);
	sp->file = OWNED_FD_NONE;
	sp->room = OWNED_FD_NONE;
}
