// SPDX-License-Identifier: MIT
/*
 * tracedat_read - a strict reader of trace-cmd trace.dat version 6 files.
 *
 * Everything is checked once, at open time, against the file size: the metadata by the
 * parser of version 6's blocks (lib/fmt/tracedat_v6_read.c), the pages here. A reader that
 * trusts sizes and offsets found in a file is a reader that a damaged or hostile file can
 * crash.
 *
 * The event walk mirrors libtraceevent's kbuffer (kbuffer-parse.c), because
 * the report hands validated pages to kbuffer: every event this walk accepts
 * is one kbuffer decodes to the same record, and every event kbuffer could
 * misread (a negative length that would move it backwards, a length past the
 * commit) is refused here first.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmt/rb_record.h"
#include "fmt/tracefs_format.h"
#include "tracedat_read.h"
#include "tracedat_v7read.h"

/* A record shorter than the kernel's trace_entry cannot carry common_type and common_pid. */
#define COMMON_HEADER_SIZE 8

struct td_priv {
	void *map;	/* mmap of the file, or NULL */
	size_t map_len;
	void *copy;	/* malloc'd contents when the file could not be mapped */
	int fd;		/* tracedat_open_unchecked() of a mapped file: its pages are read */
	struct td7 *v7; /* version 7: its pages, read from the input (tracedat_v7read.h) */
	unsigned char *head; /* version 7: its version 6 equivalent up to the pages (td->data) */
	uint64_t size6;	/* version 7: the size of that version 6 equivalent */
};

/* One ring-buffer event of a page of the file (lib/fmt/rb_record.c checks its lengths). */
static const char *decode_event(const struct tracedat *td, const unsigned char *data,
				uint32_t commit, uint32_t off, struct tp_rb_rec *ev)
{
	return tp_rb_decode(data, commit, off, td->big_endian ? TP_RB_BIG_ENDIAN : 0, ev);
}

/*
 * The page header (lib/fmt/rb_record.c reads it): commit bytes, lost events and the page's
 * time stamp; NULL or the reason it is bad.
 */
static const char *page_header(const struct tracedat *td, const unsigned char *page,
			       uint32_t *commit, long long *missed, uint64_t *ts, char *why,
			       size_t whylen)
{
	struct tp_rb_page pg;
	enum tp_rb_page_fault fault = tp_rb_page_decode(page, td->page_size, td->kernel_long,
							 td->big_endian ? TP_RB_BIG_ENDIAN : 0, &pg);

	*missed = 0;
	if (fault != TP_RB_PAGE_LAYOUT)
		*commit = pg.commit;
	switch (fault) {
	case TP_RB_PAGE_LAYOUT: /* the parser refused such a header_page already */
		snprintf(why, whylen, "a page of %" PRIu32 " bytes with a %u-byte commit word",
			 td->page_size, td->kernel_long);
		return why;
	case TP_RB_PAGE_COMMIT_PAST:
		snprintf(why, whylen, "commit %" PRIu32 " exceeds the page (%" PRIu32
			 " data bytes)", pg.commit, td->page_size - pg.data);
		return why;
	case TP_RB_PAGE_COUNT_PAST:
		snprintf(why, whylen, "the lost-event count after commit %" PRIu32
			 " runs past the page", pg.commit);
		return why;
	case TP_RB_PAGE_OK:
		break;
	}
	*ts = pg.ts;
	if (pg.counted)
		*missed = pg.lost > LLONG_MAX ? LLONG_MAX : (long long)pg.lost;
	else if (pg.missed)
		*missed = -1;
	return NULL;
}

/* One page's header and events: NULL, or the reason in why. */
static const char *check_page(const struct tracedat *td, const unsigned char *page,
			      struct td_cpu *c, char *why, size_t whylen)
{
	const unsigned char *data = page + td->page_header;
	const char *bad;
	uint32_t commit, off = 0;
	long long missed;
	uint64_t ts;

	bad = page_header(td, page, &commit, &missed, &ts, why, whylen);
	if (bad)
		return bad;
	if (missed)
		c->nr_lost_pages++;
	while (off < commit) {
		struct tp_rb_rec ev;

		bad = decode_event(td, data, commit, off, &ev);
		if (bad) {
			snprintf(why, whylen, "event at offset %" PRIu32 " of the data: %s (commit %"
				 PRIu32 ")", off, bad, commit);
			return why;
		}
		if (tp_rb_is_data(&ev))
			c->nr_events++;
		off = ev.next;
	}
	return NULL;
}

static int page_fail(const struct tracedat *td, char *err, size_t errlen, size_t bi,
		     uint32_t cpu, uint64_t n, const char *bad)
{
	const struct td_buffer *b = &td->buffers[bi];

	return tp_tracedat_fail(td, err, errlen, "page %" PRIu64 " of %s%sCPU %" PRIu32 " (file offset %"
			PRIu64 "): %s", n, b->name[0] ? b->name : "", b->name[0] ? " " : "", cpu,
			b->cpus[cpu].offset + n * td->page_size, bad);
}

/* A version 7 page that could not be had (a chunk that does not decompress): why. */
static int page_missing(const struct tracedat *td, char *err, size_t errlen)
{
	const struct td_priv *priv = td->priv_;

	return tp_tracedat_fail(td, err, errlen, "version 7: %s", priv && priv->v7 ?
			td7_fault(priv->v7) : "a page is missing");
}

static int check_pages(struct tracedat *td, size_t bi, uint32_t cpu, char *err, size_t errlen)
{
	struct td_cpu *c = &td->buffers[bi].cpus[cpu];
	char why[128];

	c->nr_events = c->nr_lost_pages = 0;
	for (uint64_t n = 0; n < c->nr_pages; n++) {
		const unsigned char *page = tracedat_page(td, bi, cpu, n);
		const char *bad;

		if (!page)
			return page_missing(td, err, errlen);
		bad = check_page(td, page, c, why, sizeof(why));
		if (bad)
			return page_fail(td, err, errlen, bi, cpu, n, bad);
	}
	return 0;
}

int tracedat_page_begin(const struct tracedat *td, size_t buffer, uint32_t cpu, uint64_t n,
			const unsigned char *page, struct td_page *pg, char *err, size_t errlen)
{
	char why[128];
	const char *bad;

	memset(pg, 0, sizeof(*pg));
	bad = page_header(td, page, &pg->commit, &pg->missed, &pg->ts, why, sizeof(why));
	if (bad)
		return page_fail(td, err, errlen, buffer, cpu, n, bad);
	pg->data = page + td->page_header;
	pg->buffer = buffer;
	pg->cpu = cpu;
	pg->n = n;
	return 0;
}

int tracedat_page_next(const struct tracedat *td, struct td_page *pg, struct td_event *ev,
		       char *err, size_t errlen)
{
	while (pg->off < pg->commit) {
		struct tp_rb_rec raw;
		uint32_t off = pg->off;
		const char *bad = decode_event(td, pg->data, pg->commit, off, &raw);

		if (bad) {
			char why[128];

			snprintf(why, sizeof(why), "event at offset %" PRIu32 " of the data: %s "
				 "(commit %" PRIu32 ")", off, bad, pg->commit);
			return page_fail(td, err, errlen, pg->buffer, pg->cpu, pg->n, why);
		}
		tp_rb_apply_time(&raw, &pg->ts);
		pg->off = raw.next;
		if (!tp_rb_is_data(&raw))
			continue;
		ev->ts = pg->ts;
		ev->data = pg->data + raw.payload;
		ev->size = raw.size;
		ev->missed = off == 0 ? pg->missed : 0;
		return 1;
	}
	return 0;
}

int tracedat_check_pages(struct tracedat *td, char *err, size_t errlen)
{
	for (size_t b = 0; b < td->nr_buffers; b++)
		for (uint32_t cpu = 0; cpu < td->nr_cpus; cpu++)
			if (check_pages(td, b, cpu, err, errlen))
				return -1;
	return 0;
}

static int parse_v6(struct tracedat *td, const char *name, const void *data, size_t size,
		    uint64_t pages_end, struct td_priv *priv, bool unchecked, char *err,
		    size_t errlen)
{
	memset(td, 0, sizeof(*td));
	td->name = name;
	td->data = data;
	td->size = size;
	td->priv_ = priv; /* the pages are read through it */
	if (err && errlen)
		err[0] = '\0';
	if (tp_tracedat_parse_meta(td, pages_end, err, errlen) ||
	    (!unchecked && tracedat_check_pages(td, err, errlen))) {
		td->priv_ = NULL; /* the caller's to free */
		tracedat_close(td);
		return -1;
	}
	return 0;
}

/*
 * Version 7: its version 6 equivalent up to the pages made in memory (tracedat_v7read.c) and
 * checked as a version 6 file is; its pages read from the input, a chunk decompressed when a
 * page of it is asked for. The input stays the caller's (priv's) until tracedat_close().
 */
static int parse_v7(struct tracedat *td, const char *name, const void *data, size_t size,
		    struct td_priv *priv, bool unchecked, char *err, size_t errlen)
{
	char why[768];
	size_t head_len = 0;
	int ret;

	memset(td, 0, sizeof(*td));
	td->name = name;
	priv->v7 = td7_open(data, size, &priv->head, &head_len, &priv->size6, why, sizeof(why));
	if (!priv->v7)
		return tp_tracedat_fail(td, err, errlen, "version 7: %s", why);
	ret = parse_v6(td, name, priv->head, head_len, priv->size6, priv, unchecked, why,
		       sizeof(why));
	if (ret) {
		size_t skip = strlen(name) + 2; /* "NAME: " */
		const char *rest = strlen(why) > skip ? why + skip : why;

		td->name = name;
		if (!strncmp(rest, "version 7: ", 11))
			/* a chunk that does not decompress: said of the input */
			tp_tracedat_fail(td, err, errlen, "%s", rest);
		else
			/* said of the copy, whose offsets are not the input's */
			tp_tracedat_fail(td, err, errlen, "version 7, in its version 6 copy: %s", rest);
		td7_close(priv->v7);
		priv->v7 = NULL;
		free(priv->head);
		priv->head = NULL;
		return -1;
	}
	return 0;
}

static int parse_data(struct tracedat *td, const char *name, const void *data, size_t size,
		      struct td_priv *priv, bool unchecked, char *err, size_t errlen)
{
	if (td7_is_v7(data, size))
		return parse_v7(td, name, data, size, priv, unchecked, err, errlen);
	return parse_v6(td, name, data, size, size, priv, unchecked, err, errlen);
}

int tracedat_parse(struct tracedat *td, const char *name, const void *data, size_t size,
		   char *err, size_t errlen)
{
	struct td_priv *priv = calloc(1, sizeof(*priv));

	if (!priv) {
		memset(td, 0, sizeof(*td));
		td->name = name;
		return tp_tracedat_fail(td, err, errlen, "out of memory");
	}
	priv->fd = -1;
	if (parse_data(td, name, data, size, priv, false, err, errlen)) {
		free(priv);
		return -1;
	}
	return 0;
}

/* A regular file that cannot be mapped is read: no more than its size, from its start. */
static void *read_all(int fd, size_t size, size_t *len)
{
	char *buf = malloc(size ? size : 1);
	size_t n = 0;

	while (buf && n < size) {
		ssize_t got = pread(fd, buf + n, size - n, (off_t)n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break; /* cut short meanwhile: what was read is checked like the rest */
		n += (size_t)got;
	}
	*len = n;
	return buf;
}

static const char *file_kind(mode_t mode)
{
	return S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a FIFO" :
	       S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device" :
	       S_ISSOCK(mode) ? "a socket" : "not a file";
}

static int open_file(struct tracedat *td, const char *path, bool unchecked, char *err,
		     size_t errlen)
{
	struct td_priv *priv;
	struct stat st;
	void *data = NULL;
	size_t size = 0;
	int fd, ret;

	memset(td, 0, sizeof(*td));
	td->name = path;
	priv = calloc(1, sizeof(*priv));
	if (!priv)
		return tp_tracedat_fail(td, err, errlen, "out of memory");
	priv->fd = -1;
	/*
	 * A trace.dat is a regular file: a FIFO would be waited on (no writer) and a device read
	 * without end (/dev/zero), before its first bytes could be checked. O_NONBLOCK: the
	 * open itself must not wait for a FIFO's writer.
	 */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st)) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		free(priv);
		return tp_tracedat_fail(td, err, errlen, "cannot open: %s", strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		free(priv);
		return tp_tracedat_fail(td, err, errlen, "not a regular file (%s); a trace.dat file is "
				"expected", file_kind(st.st_mode));
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		close(fd);
		free(priv);
		return tp_tracedat_fail(td, err, errlen, "too large to map");
	}
	size = (size_t)st.st_size;
	if (size > 0) {
		data = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (data == MAP_FAILED)
			data = NULL;
		else {
			priv->map = data;
			priv->map_len = size;
		}
	}
	if (!data) {
		data = read_all(fd, size, &size);
		if (!data) {
			close(fd);
			free(priv);
			return tp_tracedat_fail(td, err, errlen, "out of memory");
		}
		priv->copy = data;
	}
	if (unchecked && priv->map)
		priv->fd = fd; /* its pages are read from it: see tracedat_read_pages() */
	else
		close(fd);
	ret = parse_data(td, path, data, size, priv, unchecked, err, errlen);
	if (ret) {
		if (priv->map)
			munmap(priv->map, priv->map_len);
		if (priv->fd >= 0)
			close(priv->fd);
		free(priv->copy);
		free(priv);
	}
	return ret;
}

int tracedat_open(struct tracedat *td, const char *path, char *err, size_t errlen)
{
	return open_file(td, path, false, err, errlen);
}

int tracedat_open_unchecked(struct tracedat *td, const char *path, char *err, size_t errlen)
{
	return open_file(td, path, true, err, errlen);
}

int tracedat_read_pages(const struct tracedat *td, size_t buffer, uint32_t cpu, uint64_t first,
			uint64_t n, void *buf, char *err, size_t errlen)
{
	const struct td_priv *priv = td->priv_;
	const struct td_cpu *c = &td->buffers[buffer].cpus[cpu];
	uint64_t off = c->offset + first * td->page_size;
	size_t len = (size_t)(n * td->page_size), done = 0;

	if (first > c->nr_pages || n > c->nr_pages - first)
		return tp_tracedat_fail(td, err, errlen, "pages %" PRIu64 "..%" PRIu64 " of CPU %" PRIu32
				" are past its %" PRIu64, first, first + n, cpu, c->nr_pages);
	if (priv && priv->v7)
		return td7_read(priv->v7, off, len, buf) ? page_missing(td, err, errlen) : 0;
	if (!priv || priv->fd < 0) {
		memcpy(buf, td->data + off, len);
		return 0;
	}
	while (done < len) {
		ssize_t got = pread(priv->fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return tp_tracedat_fail(td, err, errlen, "reading at offset %" PRIu64 ": %s",
					off + done, strerror(errno));
		if (!got)
			return tp_tracedat_fail(td, err, errlen, "cut short at offset %" PRIu64 " while "
					"being read", off + done);
		done += (size_t)got;
	}
	return 0;
}

void tracedat_close(struct tracedat *td)
{
	struct td_priv *priv = td->priv_;

	for (size_t i = 0; i < td->nr_formats; i++)
		free(td->formats[i].name);
	free(td->formats);
	for (size_t i = 0; i < td->nr_cmdlines; i++)
		free(td->cmdlines[i].comm);
	free(td->cmdlines);
	free(td->options);
	for (size_t i = 0; i < td->nr_buffers; i++) {
		free(td->buffers[i].name);
		free(td->buffers[i].cpus);
	}
	free(td->buffers);
	if (priv) {
		td7_close(priv->v7);
		free(priv->head);
		if (priv->map)
			munmap(priv->map, priv->map_len);
		if (priv->fd >= 0)
			close(priv->fd);
		free(priv->copy);
		free(priv);
	}
	memset(td, 0, sizeof(*td));
}

const struct td_option *tracedat_option(const struct tracedat *td, uint16_t id)
{
	for (size_t i = 0; i < td->nr_options; i++)
		if (td->options[i].id == id)
			return &td->options[i];
	return NULL;
}

int tracedat_check_print_fields(const struct td_format *f, char *why, size_t len)
{
	return tp_tracefs_check_print_fields(f->text.data, f->text.len, why, len);
}

const unsigned char *tracedat_page(const struct tracedat *td, size_t buffer, uint32_t cpu,
				   uint64_t n)
{
	const struct td_cpu *c;

	if (buffer >= td->nr_buffers || cpu >= td->nr_cpus)
		return NULL;
	c = &td->buffers[buffer].cpus[cpu];
	if (n >= c->nr_pages)
		return NULL;
	if (td->priv_ && ((const struct td_priv *)td->priv_)->v7)
		return td7_page(((const struct td_priv *)td->priv_)->v7,
				c->offset + n * td->page_size);
	return td->data + c->offset + n * td->page_size;
}

uint64_t tracedat_v6_size(const struct tracedat *td)
{
	const struct td_priv *priv = td->priv_;

	return priv && priv->v7 ? priv->size6 : td->size;
}

int tracedat_read_v6(const struct tracedat *td, uint64_t off, size_t len, void *buf,
		     char *err, size_t errlen)
{
	const struct td_priv *priv = td->priv_;
	unsigned char *to = buf;

	if (off > tracedat_v6_size(td) || len > tracedat_v6_size(td) - off)
		return tp_tracedat_fail(td, err, errlen, "bytes %" PRIu64 "..%" PRIu64 " are past its %"
				PRIu64, off, off + len, tracedat_v6_size(td));
	if (off < td->size) {
		size_t k = td->size - off < len ? (size_t)(td->size - off) : len;

		memcpy(to, td->data + off, k);
		to += k;
		off += k;
		len -= k;
	}
	if (len && td7_read(priv->v7, off, len, to))
		return page_missing(td, err, errlen);
	return 0;
}

/* (a * mul) >> shift without losing the top bits, as the kernel's mul_u64_u32_shr(). */
static uint64_t mul_shift(uint64_t a, uint32_t mul, uint32_t shift)
{
	return (uint64_t)(((unsigned __int128)a * mul) >> shift);
}

uint64_t tracedat_ts(const struct tracedat *td, uint64_t raw)
{
	if (td->tsc_mult)
		raw = mul_shift(raw, td->tsc_mult, td->tsc_shift);
	return raw + (uint64_t)td->ts_offset;
}

void tracedat_cursor_init(struct td_cursor *c, const struct tracedat *td, size_t buffer,
			  uint32_t cpu)
{
	memset(c, 0, sizeof(*c));
	c->td = td;
	c->buffer = buffer;
	c->cpu_nr = cpu;
	if (buffer < td->nr_buffers && cpu < td->nr_cpus)
		c->cpu = &td->buffers[buffer].cpus[cpu];
}

int tracedat_next_event(struct td_cursor *c, struct td_event *ev)
{
	const struct tracedat *td = c->td;
	char why[128];

	if (!c->cpu)
		return 0;
	for (;;) {
		const unsigned char *page, *data;
		struct tp_rb_rec raw;
		uint32_t off;

		if (!c->loaded) {
			if (c->page >= c->cpu->nr_pages)
				return 0;
			page = tracedat_page(td, c->buffer, c->cpu_nr, c->page);
			if (!page || page_header(td, page, &c->commit, &c->page_missed, &c->ts,
						 why, sizeof(why)))
				return 0; /* cannot happen after validation */
			c->off = 0;
			c->loaded = true;
		}
		if (c->off >= c->commit) {
			c->loaded = false;
			c->page++;
			continue;
		}
		page = tracedat_page(td, c->buffer, c->cpu_nr, c->page);
		data = page + td->page_header;
		off = c->off;
		if (decode_event(td, data, c->commit, off, &raw)) {
			c->loaded = false;
			c->page = c->cpu->nr_pages;
			return 0;
		}
		tp_rb_apply_time(&raw, &c->ts);
		c->off = raw.next;
		if (!tp_rb_is_data(&raw))
			continue;
		ev->ts = c->ts;
		ev->data = data + raw.payload;
		ev->size = raw.size;
		ev->missed = off == 0 ? c->page_missed : 0;
		return 1;
	}
}
