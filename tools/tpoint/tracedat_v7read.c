// SPDX-License-Identifier: MIT
/*
 * tracedat_v7read - version 7 read as its version 6 equivalent: see tracedat_v7read.h. The
 * layout read is trace-cmd.dat.v7(5) (and docs/TRACEDAT-FORMAT.md for what tpoint writes).
 *
 * Version 7 keeps version 6's blocks, only elsewhere: each metadata block is a section found
 * through an option holding its offset (HEADER_INFO 16 .. CMDLINES 21), compressed whole or
 * not; each buffer's pages are a BUFFER section described by option BUFFER (name, clock,
 * page size, and each CPU's offset and size), compressed in chunks; the options are in one
 * or more options sections chained by the DONE option's offset of the next. The copy puts
 * the blocks back in version 6's order, the options (but the version 7 ones) in its options
 * block, the instances as version 6 BUFFER options, and gives every CPU's pages an offset,
 * page-aligned after the flyrecord tables, as trace-cmd's version 6 writer does. Only the
 * copy's bytes up to there are made (in memory); a page is read by that offset from the
 * input, its chunk decompressed then (td7_page()).
 *
 * Every size and offset is checked against the input before use, so that a damaged file
 * is one error naming what is wrong and where, and a compressed size can ask for no more
 * memory than the caps below.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec.h"
#include "fmt/tracedat_v6.h"
#include "growbuf.h"
#include "tracedat_format.h"
#include "tracedat_v7.h"
#include "tracedat_v7read.h"

/*
 * The largest uncompressed metadata section and page chunk accepted (a kernel's kallsyms is
 * some MB; trace-cmd and tpoint compress 10 pages a chunk): what a damaged size may cost. A
 * chunk may hold 4 MiB or 64 pages, whichever is more: each CPU being read keeps one.
 */
#define MAX_SECTION (256u << 20)
#define MAX_CHUNK (4u << 20)
#define MAX_CHUNK_PAGES 64u
/* CPU numbers: the kernel's NR_CPUS is at most 8192; the copy's tables have one entry each. */
#define MAX_CPUS 65536u
/* Options sections chained by DONE: a loop in the chain stops here. */
#define MAX_OPTION_SECTIONS 4096
/* Same as the version 6 reader's. */
#define PAGE_SIZE_MIN 64u
#define PAGE_SIZE_MAX (1u << 27)
/*
 * A file's declared expansion (every section and chunk at its uncompressed size) may be at
 * most MAX_RATIO times the file, or MIN_BOUND whatever the ratio: zstd turns 43 KB into
 * 1 GiB of zeros, and the copy would fill $TMPDIR with them. Trace pages compress 5 to 30
 * times (tests/v7bomb.sh measures a recording of identical events); what is refused is
 * refused before anything is decompressed or written.
 */
#define MAX_RATIO 256u
#define MIN_BOUND (64ull << 20)

#define TD7_OPT_DONE 0
#define TD7_OPT_BUFFER_TEXT 22
#define TD7_OPT_BTF_FILE 23
#define TD7_OPT_MODULES_FILE 25
#define NR_META (TD7_SEC_CMDLINES - TD7_SEC_HEADER_INFO + 1)

static const char *const meta_name[NR_META] = {
	"HEADER_INFO", "FTRACE_EVENTS", "EVENT_FORMATS", "KALLSYMS", "PRINTK", "CMDLINES",
};

struct opt7 {
	uint16_t id;
	uint32_t size;
	unsigned char *data; /* a copy: the section it came from may be freed */
};

/* A compressed chunk of a CPU's pages. */
struct chunk7 {
	uint64_t in;	     /* offset of its compressed bytes in the input */
	uint32_t csize, usize;
	uint64_t out;	     /* offset of its pages among the CPU's */
};

struct cpu7 {
	uint32_t cpu;
	uint64_t offset, size; /* in the input */
	uint64_t expanded;     /* bytes of pages */
	uint64_t out;	       /* offset in the copy */
	const struct buf7 *buf;
	struct chunk7 *chunks; /* a compressed buffer's */
	uint32_t nchunks;
	/*
	 * The chunk read last, decompressed: a reader walks a CPU's pages in order, so one
	 * chunk each is what the walks of every CPU at once (report's merge) need.
	 */
	unsigned char *cache;
	size_t cache_cap;
	int64_t cached; /* its index, -1: none */
};

struct buf7 {
	char *name, *clock;
	uint64_t section; /* offset of its BUFFER section */
	bool compressed;
	struct cpu7 *cpus;
	uint32_t ncpus;
	uint64_t table_patch; /* instances: where the copy's BUFFER option holds its offset */
};

struct v7 {
	const unsigned char *data;
	size_t size;
	bool be;
	unsigned char long_size;
	uint32_t page_size;
	char codec_name[64];
	struct tp_codec codec;
	bool has_codec;

	bool has_meta[NR_META];
	uint64_t meta_off[NR_META];
	struct opt7 *opts;
	size_t nopts, opts_cap;
	struct buf7 *bufs;
	size_t nbufs;
	uint32_t ncpus;

	/* the copy: its bytes up to the first page, in memory; the pages stay in the input */
	struct tp_growbuf head;
	uint64_t out_off; /* bytes handed to put() */
	struct cpu7 **by_out; /* the CPUs with pages, in the copy's order */
	size_t nby_out;
	char fault[512];      /* why the last page could not be had */
	uint64_t declared; /* bytes the sections and chunks seen so far expand to */

	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3))) static int fail(struct v7 *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->err, v->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static uint16_t rd16(const struct v7 *v, const unsigned char *p)
{
	return v->be ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static uint32_t rd32(const struct v7 *v, const unsigned char *p)
{
	if (v->be)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t rd64(const struct v7 *v, const unsigned char *p)
{
	uint64_t a = rd32(v, p), b = rd32(v, p + 4);

	return v->be ? a << 32 | b : b << 32 | a;
}

static void wr32(const struct v7 *v, unsigned char *p, uint32_t x)
{
	for (int i = 0; i < 4; i++)
		p[v->be ? 3 - i : i] = (unsigned char)(x >> (8 * i));
}

static void wr64(const struct v7 *v, unsigned char *p, uint64_t x)
{
	for (int i = 0; i < 8; i++)
		p[v->be ? 7 - i : i] = (unsigned char)(x >> (8 * i));
}

/* Are n bytes there at offset off of the input? */
static bool have(const struct v7 *v, uint64_t off, uint64_t n)
{
	return off <= v->size && n <= v->size - off;
}

static int need(struct v7 *v, uint64_t off, uint64_t n, const char *what)
{
	if (!have(v, off, n))
		return fail(v, "truncated: %s needs %" PRIu64 " bytes at offset %" PRIu64
			       ", file has %zu", what, n, off, v->size);
	return 0;
}

/*
 * Counts n more bytes that the file declares it expands to; what and at (printf-style, then
 * its offset) name the section or chunk that would pass the bound, for the message.
 */
__attribute__((format(printf, 4, 5))) static int declare(struct v7 *v, uint64_t n, uint64_t at,
							  const char *fmt, ...)
{
	uint64_t bound = (uint64_t)v->size * MAX_RATIO;
	char what[320];
	va_list ap;

	if (bound < MIN_BOUND)
		bound = MIN_BOUND;
	v->declared = n > UINT64_MAX - v->declared ? UINT64_MAX : v->declared + n;
	if (v->declared <= bound)
		return 0;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return fail(v, "%s at offset %" PRIu64 " brings what the file declares uncompressed to %"
		       PRIu64 " bytes, %" PRIu64 " times its %zu (a decompression bomb?): refused, "
		       "at most %u times or %llu MiB is read", what, at, v->declared,
		    v->declared / (v->size ? v->size : 1), v->size, MAX_RATIO, MIN_BOUND >> 20);
}

/* ---- the copy ---- */

static int put(struct v7 *v, const void *p, size_t n)
{
	tp_growbuf_add(&v->head, p, n);
	v->out_off += n;
	return v->head.oom ? fail(v, "out of memory") : 0;
}

static int put32(struct v7 *v, uint32_t x)
{
	unsigned char b[4];

	wr32(v, b, x);
	return put(v, b, 4);
}

static int put64(struct v7 *v, uint64_t x)
{
	unsigned char b[8];

	wr64(v, b, x);
	return put(v, b, 8);
}

static int put_zeros(struct v7 *v, uint64_t n)
{
	static const unsigned char zeros[4096];

	while (n) {
		size_t k = n < sizeof(zeros) ? (size_t)n : sizeof(zeros);

		if (put(v, zeros, k))
			return -1;
		n -= k;
	}
	return 0;
}

/* The copy through the serialiser of version 6's blocks; put()'s failure is the copy's. */
static void put_bytes(void *ctx, const void *p, size_t n)
{
	put(ctx, p, n);
}

static struct td6_out copy_out(struct v7 *v)
{
	return (struct td6_out){ .write = put_bytes, .ctx = v, .big_endian = v->be };
}

/* 0, or -1 when a put() since the copy began failed (its reason in err). */
static int copy_failed(struct v7 *v)
{
	return v->head.oom ? fail(v, "out of memory") : 0;
}

/* Rewrites 8 bytes already put at offset at. */
static int patch64(struct v7 *v, uint64_t at, uint64_t x)
{
	if (at + 8 > v->head.len)
		return fail(v, "out of memory");
	wr64(v, (unsigned char *)v->head.p + at, x);
	return 0;
}

/* ---- sections ---- */

struct body {
	const unsigned char *p;
	size_t len;
	unsigned char *owned; /* decompressed: to free */
};

/*
 * A section's body at offset at, decompressed when its flags say so. what names it for the
 * messages.
 */
static int section_body(struct v7 *v, uint64_t at, uint16_t want_id, const char *what,
			uint16_t *flags_out, struct body *b)
{
	uint16_t id, flags;
	uint64_t size;
	uint32_t csize, usize;
	ssize_t got;

	if (b)
		memset(b, 0, sizeof(*b));
	if (need(v, at, 16, what))
		return -1;
	id = rd16(v, v->data + at);
	flags = rd16(v, v->data + at + 2);
	size = rd64(v, v->data + at + 8);
	if (id != want_id)
		return fail(v, "%s at offset %" PRIu64 " is a section of id %u, expected %u",
			    what, at, id, want_id);
	if (flags & ~TD7_FLAG_COMPRESSED)
		return fail(v, "%s at offset %" PRIu64 " has unknown flags 0x%x", what, at, flags);
	if (flags_out)
		*flags_out = flags;
	if (want_id == TD7_SEC_BUFFER)
		return 0; /* its CPUs' data is found through option BUFFER */
	if (!(flags & TD7_FLAG_COMPRESSED)) {
		if (need(v, at + 16, size, what))
			return -1;
		/* the metadata sections are counted before any is read: count_meta() */
		if (want_id == TD7_SEC_OPTIONS && declare(v, size, at, "%s", what))
			return -1;
		b->p = v->data + at + 16;
		b->len = (size_t)size;
		return 0;
	}
	if (!v->has_codec)
		return fail(v, "%s at offset %" PRIu64 " is compressed, but the file names no "
			       "compression", what, at);
	if (need(v, at + 16, 8, what))
		return -1;
	csize = rd32(v, v->data + at + 16);
	usize = rd32(v, v->data + at + 20);
	if (need(v, at + 24, csize, what))
		return -1;
	if (usize > MAX_SECTION)
		return fail(v, "%s at offset %" PRIu64 " claims %" PRIu32 " bytes uncompressed, "
			       "more than the %u accepted", what, at, usize, MAX_SECTION);
	if (want_id == TD7_SEC_OPTIONS && declare(v, usize, at, "%s", what))
		return -1;
	b->owned = malloc(usize ? usize : 1);
	if (!b->owned)
		return fail(v, "out of memory");
	got = tp_codec_decompress(&v->codec, b->owned, usize, v->data + at + 24, csize);
	if (got != (ssize_t)usize) {
		free(b->owned);
		b->owned = NULL;
		return fail(v, "%s at offset %" PRIu64 ": %s cannot decompress its %" PRIu32
			       " bytes into the %" PRIu32 " it declares", what, at, v->codec_name,
			    csize, usize);
	}
	b->p = b->owned;
	b->len = usize;
	return 0;
}

/* ---- options ---- */

static int keep_option(struct v7 *v, uint16_t id, const unsigned char *data, uint32_t size)
{
	struct opt7 *o;

	if (v->nopts == v->opts_cap) {
		size_t cap = v->opts_cap ? v->opts_cap * 2 : 16;
		struct opt7 *grown = realloc(v->opts, cap * sizeof(*grown));

		if (!grown)
			return fail(v, "out of memory");
		v->opts = grown;
		v->opts_cap = cap;
	}
	o = &v->opts[v->nopts];
	o->data = malloc(size ? size : 1);
	if (!o->data)
		return fail(v, "out of memory");
	memcpy(o->data, data, size);
	o->id = id;
	o->size = size;
	v->nopts++;
	return 0;
}

static bool visible(const char *s)
{
	for (; *s; s++)
		if (*s < 0x21 || *s > 0x7e)
			return false;
	return true;
}

/* A NUL-terminated string of p[*pos..len), at most max bytes; NULL if there is none. */
static const char *take_string(const unsigned char *p, size_t len, size_t *pos, size_t max)
{
	const unsigned char *nul;
	const char *s = (const char *)p + *pos;

	if (*pos >= len)
		return NULL;
	nul = memchr(p + *pos, '\0', len - *pos);
	if (!nul || (size_t)(nul - (p + *pos)) > max)
		return NULL;
	*pos = (size_t)(nul - p) + 1;
	return s;
}

/* Option BUFFER: u64 section, name, clock, u32 page size, u32 count, {u32 cpu, u64, u64}. */
static int buffer_option(struct v7 *v, const unsigned char *p, uint32_t len, uint64_t at)
{
	const char *name, *clock;
	struct buf7 *b, *grown;
	size_t pos = 8;
	uint32_t page, n;

	if (len < 8 || !(name = take_string(p, len, &pos, 255)) ||
	    !(clock = take_string(p, len, &pos, 63)) || len - pos < 8)
		return fail(v, "option BUFFER at offset %" PRIu64 " is not a u64 offset, a name, a "
			       "clock and two u32", at);
	if (*name && !visible(name))
		return fail(v, "option BUFFER at offset %" PRIu64 ": the buffer name is not "
			       "visible ASCII", at);
	page = rd32(v, p + pos);
	n = rd32(v, p + pos + 4);
	pos += 8;
	if (page != v->page_size)
		return fail(v, "buffer '%s' (option BUFFER at offset %" PRIu64 ") has pages of %"
			       PRIu32 " bytes, the file's are %" PRIu32 ": not supported", name,
			    at, page, v->page_size);
	if ((uint64_t)n * 20 > len - pos)
		return fail(v, "option BUFFER at offset %" PRIu64 " lists %" PRIu32 " CPUs but "
			       "has room for %zu", at, n, (len - pos) / 20);
	for (size_t i = 0; i < v->nbufs; i++)
		if (!strcmp(v->bufs[i].name, name))
			return fail(v, "option BUFFER at offset %" PRIu64 ": a second buffer "
				       "named '%s'", at, name);
	grown = realloc(v->bufs, (v->nbufs + 1) * sizeof(*grown));
	if (!grown)
		return fail(v, "out of memory");
	v->bufs = grown;
	b = &v->bufs[v->nbufs++];
	memset(b, 0, sizeof(*b));
	b->name = strdup(name);
	b->clock = strdup(clock);
	b->cpus = calloc(n ? n : 1, sizeof(*b->cpus));
	if (!b->name || !b->clock || !b->cpus)
		return fail(v, "out of memory");
	b->section = rd64(v, p);
	b->ncpus = n;
	for (uint32_t i = 0; i < n; i++, pos += 20) {
		struct cpu7 *c = &b->cpus[i];

		c->cpu = rd32(v, p + pos);
		c->offset = rd64(v, p + pos + 4);
		c->size = rd64(v, p + pos + 12);
		if (c->cpu >= MAX_CPUS)
			return fail(v, "option BUFFER at offset %" PRIu64 ": CPU %" PRIu32 " (at "
				       "most %u CPUs are read)", at, c->cpu, MAX_CPUS);
		for (uint32_t j = 0; j < i; j++)
			if (b->cpus[j].cpu == c->cpu)
				return fail(v, "option BUFFER at offset %" PRIu64 " lists CPU %"
					       PRIu32 " twice", at, c->cpu);
	}
	return 0;
}

/* One options section; *next gets the offset of the next one (0: none). */
static int options_section(struct v7 *v, uint64_t at, uint64_t *next)
{
	struct body b;
	size_t pos = 0;
	int ret = -1;

	if (section_body(v, at, TD7_SEC_OPTIONS, "the options section", NULL, &b))
		return -1;
	for (;;) {
		uint64_t where = at + 16 + pos; /* for messages: exact when not compressed */
		uint16_t id;
		uint32_t size;
		const unsigned char *d;

		if (b.len - pos < 6) {
			fail(v, "the options section at offset %" PRIu64 " ends without its DONE "
				"option", at);
			goto out;
		}
		id = rd16(v, b.p + pos);
		size = rd32(v, b.p + pos + 2);
		pos += 6;
		if (size > b.len - pos) {
			fail(v, "truncated: option %u at offset %" PRIu64 " of the options section "
				"at %" PRIu64 " needs %" PRIu32 " bytes, %zu are left", id, where, at,
			     size, b.len - pos);
			goto out;
		}
		d = b.p + pos;
		pos += size;
		if (id == TD7_OPT_DONE) {
			if (size < 8) {
				fail(v, "the DONE option of the options section at offset %" PRIu64
					" has %" PRIu32 " bytes, expected 8", at, size);
				goto out;
			}
			*next = rd64(v, d);
			ret = 0;
			goto out;
		}
		if (id >= TD7_SEC_HEADER_INFO && id <= TD7_SEC_CMDLINES) {
			if (size < 8) {
				fail(v, "option %s at offset %" PRIu64 " has %" PRIu32 " bytes, "
					"expected 8", meta_name[id - TD7_SEC_HEADER_INFO], where, size);
				goto out;
			}
			v->has_meta[id - TD7_SEC_HEADER_INFO] = true;
			v->meta_off[id - TD7_SEC_HEADER_INFO] = rd64(v, d);
			continue;
		}
		switch (id) {
		case TD_OPT_BUFFER:
			if (buffer_option(v, d, size, where))
				goto out;
			break;
		case TD7_OPT_BUFFER_TEXT:
			fail(v, "option BUFFER_TEXT at offset %" PRIu64 ": latency-tracer files are"
				" not supported", where);
			goto out;
		case TD7_SEC_STRINGS:	   /* the sections' descriptions */
		case TD7_OPT_BTF_FILE:	   /* offsets of sections version 6 has no place for */
		case TD7_OPT_MODULES_FILE:
			break;
		default:
			if (keep_option(v, id, d, size))
				goto out;
			break;
		}
	}
out:
	free(b.owned);
	return ret;
}

static int read_options(struct v7 *v, uint64_t first)
{
	uint64_t seen[64], at = first;
	int n = 0;

	while (at) {
		uint64_t next = 0;

		for (int i = 0; i < n && i < 64; i++)
			if (seen[i] == at)
				return fail(v, "the options sections loop: offset %" PRIu64
					       " comes twice", at);
		if (n == MAX_OPTION_SECTIONS)
			return fail(v, "more than %d options sections", MAX_OPTION_SECTIONS);
		if (n < 64)
			seen[n] = at;
		n++;
		if (options_section(v, at, &next))
			return -1;
		at = next;
	}
	return 0;
}

/* ---- the CPUs' data ---- */

/*
 * The chunks of a compressed CPU: their headers checked, c->expanded their pages' bytes. They
 * are bounded by the file, not by the CPU's size in option BUFFER: trace-cmd 3.1.6 writes
 * there 4 bytes less than its chunks take (without the count), and reads them all the same.
 */
static int scan_chunks(struct v7 *v, const struct buf7 *b, struct cpu7 *c)
{
	uint64_t at = c->offset + 4;
	uint32_t count;

	if (need(v, c->offset, 4, "a CPU's count of chunks"))
		return -1;
	count = rd32(v, v->data + c->offset);
	c->expanded = 0;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t csize, usize;

		if (!(i & (i - 1))) { /* 0, 1, 2, 4...: room for twice as many */
			struct chunk7 *grown = realloc(c->chunks, (i ? 2 * (size_t)i : 1) *
								 sizeof(*grown));

			if (!grown)
				return fail(v, "out of memory");
			c->chunks = grown;
		}

		if (!have(v, at, 8))
			return fail(v, "truncated: chunk %" PRIu32 " of %" PRIu32 " of CPU %" PRIu32
				       " of buffer '%s' needs 8 bytes at offset %" PRIu64 ", file has "
				       "%zu", i, count, c->cpu, b->name, at, v->size);
		csize = rd32(v, v->data + at);
		usize = rd32(v, v->data + at + 4);
		if (!have(v, at + 8, csize))
			return fail(v, "truncated: chunk %" PRIu32 " of CPU %" PRIu32 " of buffer "
				       "'%s' needs %" PRIu32 " bytes at offset %" PRIu64 ", file has "
				       "%zu", i, c->cpu, b->name, csize, at + 8, v->size);
		if (usize > MAX_CHUNK && usize > (uint64_t)v->page_size * MAX_CHUNK_PAGES)
			return fail(v, "chunk %" PRIu32 " of CPU %" PRIu32 " of buffer '%s' at "
				       "offset %" PRIu64 " claims %" PRIu32 " bytes uncompressed, more"
				       " than the %" PRIu64 " accepted", i, c->cpu, b->name, at, usize,
				    MAX_CHUNK > (uint64_t)v->page_size * MAX_CHUNK_PAGES ? MAX_CHUNK :
				    (uint64_t)v->page_size * MAX_CHUNK_PAGES);
		if (declare(v, usize, at, "chunk %" PRIu32 " of CPU %" PRIu32 " of buffer '%s'", i,
			    c->cpu, b->name))
			return -1;
		c->chunks[i] = (struct chunk7){ at + 8, csize, usize, c->expanded };
		c->nchunks = i + 1;
		c->expanded += usize;
		at += 8 + (uint64_t)csize;
	}
	return 0;
}

/* The metadata sections' uncompressed sizes, counted before any is decompressed. */
static int count_meta(struct v7 *v)
{
	for (int i = 0; i < NR_META; i++) {
		uint64_t at = v->meta_off[i], n;

		if (!v->has_meta[i])
			continue;
		if (need(v, at, 16, meta_name[i]))
			return -1;
		n = rd64(v, v->data + at + 8);
		if (rd16(v, v->data + at + 2) & TD7_FLAG_COMPRESSED) {
			if (need(v, at + 16, 8, meta_name[i]))
				return -1;
			n = rd32(v, v->data + at + 20);
		}
		if (declare(v, n, at, "the %s section", meta_name[i]))
			return -1;
	}
	return 0;
}

static int check_buffers(struct v7 *v)
{
	for (size_t i = 0; i < v->nbufs; i++) {
		struct buf7 *b = &v->bufs[i];
		uint16_t flags = 0;
		char what[320];

		snprintf(what, sizeof(what), "the BUFFER section of buffer '%s'", b->name);
		if (section_body(v, b->section, TD7_SEC_BUFFER, what, &flags, NULL))
			return -1;
		b->compressed = flags & TD7_FLAG_COMPRESSED;
		if (b->compressed && !v->has_codec)
			return fail(v, "%s at offset %" PRIu64 " is compressed, but the file names "
				       "no compression", what, b->section);
		for (uint32_t j = 0; j < b->ncpus; j++) {
			struct cpu7 *c = &b->cpus[j];

			if (!c->size)
				continue;
			if (!have(v, c->offset, c->size))
				return fail(v, "truncated: CPU %" PRIu32 " of buffer '%s' needs %"
					       PRIu64 " bytes at offset %" PRIu64 ", file has %zu",
					    c->cpu, b->name, c->size, c->offset, v->size);
			if (b->compressed) {
				if (scan_chunks(v, b, c))
					return -1;
			} else {
				if (declare(v, c->size, c->offset, "CPU %" PRIu32 " of buffer '%s'",
					    c->cpu, b->name))
					return -1;
				c->expanded = c->size;
			}
			if (c->expanded % v->page_size)
				return fail(v, "CPU %" PRIu32 " of buffer '%s' (offset %" PRIu64 ") "
					       "holds %" PRIu64 " bytes of pages, not a multiple of the "
					       "page size %" PRIu32, c->cpu, b->name, c->offset,
					    c->expanded, v->page_size);
			/* a page is read from one chunk: trace-cmd and tpoint write whole pages */
			for (uint32_t k = 0; k < c->nchunks; k++)
				if (c->chunks[k].usize % v->page_size)
					return fail(v, "chunk %" PRIu32 " of CPU %" PRIu32 " of buffer "
						       "'%s' at offset %" PRIu64 " holds %" PRIu32 " bytes,"
						       " not whole pages of %" PRIu32 ": not supported",
						    k, c->cpu, b->name, c->chunks[k].in - 8,
						    c->chunks[k].usize, v->page_size);
			c->buf = b;
			c->cached = -1;
			if (c->cpu + 1 > v->ncpus)
				v->ncpus = c->cpu + 1;
		}
	}
	return 0;
}

/* ---- metadata blocks: the bytes of a version 6 block at the start of a section ---- */

struct walk {
	struct v7 *v;
	const struct body *b;
	size_t pos;
	const char *what;
	uint64_t at;
};

static int walk_need(struct walk *w, uint64_t n)
{
	if (n > w->b->len - w->pos)
		return fail(w->v, "truncated: the %s section at offset %" PRIu64 " needs %" PRIu64
				  " bytes at byte %zu of its %zu", w->what, w->at, n, w->pos,
			    w->b->len);
	return 0;
}

/* A u32 or u64 length and that many bytes. */
static int walk_block(struct walk *w, int size_bytes)
{
	uint64_t len;

	if (walk_need(w, (uint64_t)size_bytes))
		return -1;
	len = size_bytes == 8 ? rd64(w->v, w->b->p + w->pos) : rd32(w->v, w->b->p + w->pos);
	w->pos += (size_t)size_bytes;
	if (walk_need(w, len))
		return -1;
	w->pos += (size_t)len;
	return 0;
}

static int walk_tag(struct walk *w, const char *tag, size_t len)
{
	if (walk_need(w, len))
		return -1;
	if (memcmp(w->b->p + w->pos, tag, len))
		return fail(w->v, "the %s section at offset %" PRIu64 ": expected \"%s\" at byte "
				  "%zu", w->what, w->at, tag, w->pos);
	w->pos += len;
	return 0;
}

static int walk_count(struct walk *w, uint32_t *n)
{
	if (walk_need(w, 4))
		return -1;
	*n = rd32(w->v, w->b->p + w->pos);
	w->pos += 4;
	return 0;
}

/* The length of the version 6 block that section id (16..21) holds. */
static int block_length(struct v7 *v, int id, const struct body *b, uint64_t at, size_t *len)
{
	struct walk w = { v, b, 0, meta_name[id - TD7_SEC_HEADER_INFO], at };
	uint32_t n, events;
	int ret = 0;

	switch (id) {
	case TD7_SEC_HEADER_INFO:
		ret = walk_tag(&w, "header_page", 12) || walk_block(&w, 8) ||
		      walk_tag(&w, "header_event", 13) || walk_block(&w, 8);
		break;
	case TD7_SEC_FTRACE_EVENTS:
		ret = walk_count(&w, &n);
		for (uint32_t i = 0; !ret && i < n; i++)
			ret = walk_block(&w, 8);
		break;
	case TD7_SEC_EVENT_FORMATS:
		ret = walk_count(&w, &n);
		for (uint32_t s = 0; !ret && s < n; s++) {
			if (!memchr(b->p + w.pos, '\0', b->len - w.pos))
				return fail(v, "truncated: the %s section at offset %" PRIu64 ": the "
					       "name of system %" PRIu32 " has no NUL", w.what, at, s);
			w.pos += strlen((const char *)b->p + w.pos) + 1;
			ret = walk_count(&w, &events);
			for (uint32_t e = 0; !ret && e < events; e++)
				ret = walk_block(&w, 8);
		}
		break;
	case TD7_SEC_KALLSYMS:
	case TD7_SEC_PRINTK:
		ret = walk_block(&w, 4);
		break;
	case TD7_SEC_CMDLINES:
		ret = walk_block(&w, 8);
		break;
	}
	*len = w.pos;
	return ret ? -1 : 0;
}

static int put_meta(struct v7 *v, int id)
{
	int i = id - TD7_SEC_HEADER_INFO;
	char what[64];
	struct body b;
	size_t len = 0;
	int ret;

	if (!v->has_meta[i]) {
		if (id == TD7_SEC_HEADER_INFO)
			return fail(v, "no HEADER_INFO section (option 16): the page and record "
				       "layout is unknown");
		/* the empty block: a count or a size of 0 */
		return id == TD7_SEC_CMDLINES ? put64(v, 0) : put32(v, 0);
	}
	snprintf(what, sizeof(what), "the %s section", meta_name[i]);
	if (section_body(v, v->meta_off[i], (uint16_t)id, what, NULL, &b))
		return -1;
	ret = block_length(v, id, &b, v->meta_off[i], &len);
	if (!ret)
		ret = put(v, b.p, len);
	free(b.owned);
	return ret;
}

/* ---- the copy, in version 6's order ---- */

static const struct buf7 *top_buffer(const struct v7 *v)
{
	for (size_t i = 0; i < v->nbufs; i++)
		if (!v->bufs[i].name[0])
			return &v->bufs[i];
	return NULL;
}

static const struct opt7 *find_option(const struct v7 *v, uint16_t id)
{
	for (size_t i = 0; i < v->nopts; i++)
		if (v->opts[i].id == id)
			return &v->opts[i];
	return NULL;
}

/* The flyrecord table of a buffer: u64 offset and size per CPU, for every CPU. */
static int put_table(struct v7 *v, const struct buf7 *b)
{
	struct td6_out o = copy_out(v);

	td6_put_flyrecord(&o);
	for (uint32_t cpu = 0; cpu < v->ncpus; cpu++) {
		const struct cpu7 *c = NULL;

		for (uint32_t j = 0; b && j < b->ncpus; j++)
			if (b->cpus[j].cpu == cpu && b->cpus[j].expanded)
				c = &b->cpus[j];
		td6_put_cpu_data(&o, c ? c->out : 0, c ? c->expanded : 0);
	}
	return copy_failed(v);
}

static int write_copy(struct v7 *v)
{
	const struct buf7 *top = top_buffer(v);
	const struct opt7 *clock = find_option(v, TD_OPT_TRACECLOCK);
	struct td6_out o = copy_out(v);
	char clock_opt[80];
	uint64_t data_at;

	td6_put_file_header(&o, v->long_size, v->page_size);
	if (copy_failed(v))
		return -1;
	for (int id = TD7_SEC_HEADER_INFO; id <= TD7_SEC_CMDLINES; id++)
		if (put_meta(v, id))
			return -1;
	td6_put_u32(&o, v->ncpus);
	td6_put_options_start(&o);
	if (copy_failed(v))
		return -1;
	/* version 7 names the top buffer's clock in its BUFFER option; version 6 in TRACECLOCK */
	if (!clock && top && top->clock[0]) {
		int n = snprintf(clock_opt, sizeof(clock_opt), "[%s]", top->clock);

		if (keep_option(v, TD_OPT_TRACECLOCK, (const unsigned char *)clock_opt,
				(uint32_t)n + 1))
			return -1;
		clock = find_option(v, TD_OPT_TRACECLOCK);
	}
	for (size_t i = 0; i < v->nopts; i++) {
		const struct opt7 *opt = &v->opts[i];

		if (opt->id == TD_OPT_CPUCOUNT && opt->size >= 4) {
			/* the copy's tables have this many entries */
			td6_put_u16(&o, opt->id);
			td6_put_u32(&o, opt->size);
			td6_put_u32(&o, v->ncpus);
			td6_put_bytes(&o, opt->data + 4, opt->size - 4);
		} else {
			td6_put_option(&o, opt->id, opt->data, opt->size);
		}
	}
	for (size_t i = 0; i < v->nbufs; i++) {
		struct buf7 *b = &v->bufs[i];
		size_t nlen = strlen(b->name) + 1;

		if (b == top)
			continue;
		td6_put_u16(&o, TD_OPT_BUFFER);
		td6_put_u32(&o, (uint32_t)(8 + nlen));
		b->table_patch = v->out_off;
		td6_put_u64(&o, 0);
		td6_put_bytes(&o, b->name, nlen);
	}
	td6_put_options_end(&o);
	if (copy_failed(v))
		return -1;

	/* Where each CPU's pages go: after the tables, page-aligned, top buffer first. */
	data_at = v->out_off + TD6_TAG_LEN(TD6_TAG_FLYRECORD) + (uint64_t)v->ncpus * 16;
	if (clock)
		data_at += 8 + strnlen((const char *)clock->data, clock->size);
	for (size_t i = 0; i < v->nbufs; i++)
		if (&v->bufs[i] != top)
			data_at += TD6_TAG_LEN(TD6_TAG_FLYRECORD) + (uint64_t)v->ncpus * 16;
	data_at = (data_at + v->page_size - 1) / v->page_size * v->page_size;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < v->nbufs; i++) {
			struct buf7 *b = &v->bufs[i];

			if ((b == top) != (pass == 0))
				continue;
			for (uint32_t j = 0; j < b->ncpus; j++) {
				b->cpus[j].out = data_at;
				data_at += b->cpus[j].expanded;
			}
		}
	}

	if (put_table(v, top))
		return -1;
	if (clock) {
		td6_put_text(&o, 8, clock->data, strnlen((const char *)clock->data, clock->size));
		if (copy_failed(v))
			return -1;
	}
	for (size_t i = 0; i < v->nbufs; i++) {
		if (&v->bufs[i] == top)
			continue;
		if (patch64(v, v->bufs[i].table_patch, v->out_off) || put_table(v, &v->bufs[i]))
			return -1;
	}
	return put_zeros(v, (v->page_size - v->out_off % v->page_size) % v->page_size);
}

int td7_is_v7(const void *data, size_t size)
{
	return size >= TD_MAGIC_LEN + 2 && !memcmp(data, TD_MAGIC, TD_MAGIC_LEN) &&
	       !memcmp((const char *)data + TD_MAGIC_LEN, "7", 2);
}

static int read_header(struct v7 *v, uint64_t *options)
{
	size_t pos = TD_MAGIC_LEN + 2;
	const char *name, *version;
	char why[256];

	if (need(v, pos, 6, "the endianness byte, long-size byte and page size"))
		return -1;
	if (v->data[pos] > 1)
		return fail(v, "bad endianness byte %u at offset %zu (0 little, 1 big)",
			    v->data[pos], pos);
	v->be = v->data[pos] == 1;
	v->long_size = v->data[pos + 1];
	if (v->long_size != 4 && v->long_size != 8)
		return fail(v, "bad long size %u at offset %zu (4 or 8)", v->long_size, pos + 1);
	v->page_size = rd32(v, v->data + pos + 2);
	if (v->page_size < PAGE_SIZE_MIN || v->page_size > PAGE_SIZE_MAX)
		return fail(v, "page size %" PRIu32 " is out of range (%u..%u)", v->page_size,
			    PAGE_SIZE_MIN, PAGE_SIZE_MAX);
	pos += 6;
	if (!(name = take_string(v->data, v->size, &pos, 63)) ||
	    !(version = take_string(v->data, v->size, &pos, 63)))
		return fail(v, "the compression's name and version after offset %d are not two "
			       "strings of up to 63 bytes", TD_MAGIC_LEN + 8);
	snprintf(v->codec_name, sizeof(v->codec_name), "%s", name);
	if (need(v, pos, 8, "the offset of the options"))
		return -1;
	*options = rd64(v, v->data + pos);
	if (!strcmp(name, "none"))
		return 0;
	if (strcmp(name, TP_CODEC_ZSTD) && strcmp(name, TP_CODEC_ZLIB))
		return fail(v, "compression '%.63s' is not supported (zstd, zlib or none)", name);
	if (tp_codec_open(&v->codec, name, 0, why, sizeof(why)))
		return fail(v, "%s", why);
	v->has_codec = true;
	return 0;
}

static int cpu_count(struct v7 *v)
{
	const struct opt7 *o = find_option(v, TD_OPT_CPUCOUNT);

	if (o && o->size >= 4) {
		uint32_t n = rd32(v, o->data);

		if (n > MAX_CPUS)
			return fail(v, "option CPUCOUNT says %" PRIu32 " CPUs, at most %u are read",
				    n, MAX_CPUS);
		if (n > v->ncpus)
			v->ncpus = n;
	}
	if (!v->ncpus)
		v->ncpus = 1;
	return 0;
}

static int cmp_out(const void *a, const void *b)
{
	const struct cpu7 *x = *(const struct cpu7 *const *)a, *y = *(const struct cpu7 *const *)b;

	return x->out < y->out ? -1 : x->out > y->out;
}

/* The CPUs with pages, by their offset in the copy: what td7_page() looks offsets up in. */
static int index_cpus(struct v7 *v)
{
	size_t n = 0;

	for (size_t i = 0; i < v->nbufs; i++)
		n += v->bufs[i].ncpus;
	v->by_out = calloc(n ? n : 1, sizeof(*v->by_out));
	if (!v->by_out)
		return fail(v, "out of memory");
	for (size_t i = 0; i < v->nbufs; i++)
		for (uint32_t j = 0; j < v->bufs[i].ncpus; j++)
			if (v->bufs[i].cpus[j].expanded)
				v->by_out[v->nby_out++] = &v->bufs[i].cpus[j];
	qsort(v->by_out, v->nby_out, sizeof(*v->by_out), cmp_out);
	return 0;
}

void td7_close(struct td7 *t)
{
	struct v7 *v = (struct v7 *)t;

	if (!v)
		return;
	for (size_t i = 0; i < v->nopts; i++)
		free(v->opts[i].data);
	free(v->opts);
	for (size_t i = 0; i < v->nbufs; i++) {
		for (uint32_t j = 0; v->bufs[i].cpus && j < v->bufs[i].ncpus; j++) {
			free(v->bufs[i].cpus[j].chunks);
			free(v->bufs[i].cpus[j].cache);
		}
		free(v->bufs[i].name);
		free(v->bufs[i].clock);
		free(v->bufs[i].cpus);
	}
	free(v->bufs);
	free(v->by_out);
	free(v->head.p);
	if (v->has_codec)
		tp_codec_close(&v->codec);
	free(v);
}

struct td7 *td7_open(const void *data, size_t size, unsigned char **head, size_t *head_len,
		     uint64_t *size6, char *err, size_t errlen)
{
	struct v7 *v = calloc(1, sizeof(*v));
	uint64_t options = 0, end;

	if (!v) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	v->data = data;
	v->size = size;
	v->err = err;
	v->errlen = errlen;
	if (!td7_is_v7(data, size)) {
		fail(v, "not a trace.dat file of version 7");
		goto bad;
	}
	if (read_header(v, &options) || read_options(v, options) || count_meta(v) ||
	    check_buffers(v) || cpu_count(v) || write_copy(v) || index_cpus(v))
		goto bad;
	end = v->out_off;
	if (v->nby_out)
		end = v->by_out[v->nby_out - 1]->out + v->by_out[v->nby_out - 1]->expanded;
	*head = (unsigned char *)v->head.p;
	*head_len = v->head.len;
	*size6 = end;
	v->head.p = NULL;
	v->err = v->fault;
	v->errlen = sizeof(v->fault);
	return (struct td7 *)v;
bad:
	td7_close((struct td7 *)v);
	return NULL;
}

/* The CPU whose pages hold offset off of the copy, or NULL. */
static struct cpu7 *cpu_at(const struct v7 *v, uint64_t off)
{
	size_t lo = 0, hi = v->nby_out;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct cpu7 *c = v->by_out[mid];

		if (off < c->out)
			hi = mid;
		else if (off - c->out >= c->expanded)
			lo = mid + 1;
		else
			return c;
	}
	return NULL;
}

/* The chunk of c that holds byte rel of its pages, decompressed into c->cache. */
static const struct chunk7 *load_chunk(struct v7 *v, struct cpu7 *c, uint64_t rel)
{
	const struct chunk7 *k;
	uint32_t lo = 0, hi = c->nchunks;
	ssize_t got;

	if (c->cached >= 0) {
		k = &c->chunks[c->cached];
		if (rel >= k->out && rel - k->out < k->usize)
			return k;
	}
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		k = &c->chunks[mid];
		if (rel < k->out)
			hi = mid;
		else if (rel - k->out >= k->usize)
			lo = mid + 1;
		else
			break;
	}
	if (lo >= hi) {
		fail(v, "offset %" PRIu64 " of CPU %" PRIu32 " is in none of its chunks", rel,
		     c->cpu);
		return NULL;
	}
	c->cached = -1;
	if (k->usize > c->cache_cap) {
		free(c->cache);
		c->cache = malloc(k->usize);
		c->cache_cap = c->cache ? k->usize : 0;
		if (!c->cache) {
			fail(v, "out of memory");
			return NULL;
		}
	}
	got = tp_codec_decompress(&v->codec, c->cache, k->usize, v->data + k->in, k->csize);
	if (got != (ssize_t)k->usize) {
		fail(v, "chunk %" PRIu32 " of CPU %" PRIu32 " of buffer '%s' at offset %" PRIu64
			": %s cannot decompress its %" PRIu32 " bytes into the %" PRIu32 " it "
			"declares", (uint32_t)(k - c->chunks), c->cpu, c->buf->name, k->in - 8,
		     v->codec_name, k->csize, k->usize);
		return NULL;
	}
	c->cached = k - c->chunks;
	return k;
}

/* n bytes of the pages at offset off of the copy, all in one CPU's chunk (or input). */
static const unsigned char *pages_at(struct v7 *v, uint64_t off, uint64_t *room)
{
	struct cpu7 *c = cpu_at(v, off);
	const struct chunk7 *k;
	uint64_t rel;

	if (!c) {
		fail(v, "offset %" PRIu64 " of its version 6 copy holds no pages", off);
		return NULL;
	}
	rel = off - c->out;
	if (!c->buf->compressed) {
		*room = c->expanded - rel;
		return v->data + c->offset + rel;
	}
	k = load_chunk(v, c, rel);
	if (!k)
		return NULL;
	*room = k->usize - (rel - k->out);
	return c->cache + (rel - k->out);
}

const unsigned char *td7_page(struct td7 *t, uint64_t off)
{
	struct v7 *v = (struct v7 *)t;
	uint64_t room;
	const unsigned char *p = pages_at(v, off, &room);

	if (p && room < v->page_size) {
		fail(v, "the page at offset %" PRIu64 " of its version 6 copy is cut short", off);
		return NULL;
	}
	return p;
}

int td7_read(struct td7 *t, uint64_t off, size_t len, void *buf)
{
	struct v7 *v = (struct v7 *)t;
	unsigned char *to = buf;

	while (len) {
		uint64_t room;
		const unsigned char *p = pages_at(v, off, &room);
		size_t k;

		if (!p)
			return -1;
		k = room < len ? (size_t)room : len;
		memcpy(to, p, k);
		to += k;
		off += k;
		len -= k;
	}
	return 0;
}

const char *td7_fault(const struct td7 *t)
{
	return ((const struct v7 *)t)->fault;
}
