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
#include "growbuf.h"
#include "tracedat_format.h"
#include "tracedat_v7.h"
#include "fmt/tracedat_v6_read.h" /* TD6_PAGE_SIZE_MIN/MAX */
#include "tracedat_v7_internal.h"
#include "tracedat_v7read.h"

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
		return td7_fail(v, "option BUFFER at offset %" PRIu64 " is not a u64 offset, a name, a "
			       "clock and two u32", at);
	if (*name && !visible(name))
		return td7_fail(v, "option BUFFER at offset %" PRIu64 ": the buffer name is not "
			       "visible ASCII", at);
	page = td7_rd32(v, p + pos);
	n = td7_rd32(v, p + pos + 4);
	pos += 8;
	if (page != v->page_size)
		return td7_fail(v, "buffer '%s' (option BUFFER at offset %" PRIu64 ") has pages of %"
			       PRIu32 " bytes, the file's are %" PRIu32 ": not supported", name,
			    at, page, v->page_size);
	if ((uint64_t)n * 20 > len - pos)
		return td7_fail(v, "option BUFFER at offset %" PRIu64 " lists %" PRIu32 " CPUs but "
			       "has room for %zu", at, n, (len - pos) / 20);
	for (size_t i = 0; i < v->nbufs; i++)
		if (!strcmp(v->bufs[i].name, name))
			return td7_fail(v, "option BUFFER at offset %" PRIu64 ": a second buffer "
				       "named '%s'", at, name);
	grown = realloc(v->bufs, (v->nbufs + 1) * sizeof(*grown));
	if (!grown)
		return td7_fail(v, "out of memory");
	v->bufs = grown;
	b = &v->bufs[v->nbufs++];
	memset(b, 0, sizeof(*b));
	b->name = strdup(name);
	b->clock = strdup(clock);
	b->cpus = calloc(n ? n : 1, sizeof(*b->cpus));
	if (!b->name || !b->clock || !b->cpus)
		return td7_fail(v, "out of memory");
	b->section = td7_rd64(v, p);
	b->ncpus = n;
	for (uint32_t i = 0; i < n; i++, pos += 20) {
		struct cpu7 *c = &b->cpus[i];

		c->cpu = td7_rd32(v, p + pos);
		c->offset = td7_rd64(v, p + pos + 4);
		c->size = td7_rd64(v, p + pos + 12);
		if (c->cpu >= MAX_CPUS)
			return td7_fail(v, "option BUFFER at offset %" PRIu64 ": CPU %" PRIu32 " (at "
				       "most %u CPUs are read)", at, c->cpu, MAX_CPUS);
		for (uint32_t j = 0; j < i; j++)
			if (b->cpus[j].cpu == c->cpu)
				return td7_fail(v, "option BUFFER at offset %" PRIu64 " lists CPU %"
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

	if (td7_section_body(v, at, TD7_SEC_OPTIONS, "the options section", NULL, &b))
		return -1;
	for (;;) {
		uint64_t where = at + 16 + pos; /* for messages: exact when not compressed */
		uint16_t id;
		uint32_t size;
		const unsigned char *d;

		if (b.len - pos < 6) {
			td7_fail(v, "the options section at offset %" PRIu64 " ends without its DONE "
				"option", at);
			goto out;
		}
		id = td7_rd16(v, b.p + pos);
		size = td7_rd32(v, b.p + pos + 2);
		pos += 6;
		if (size > b.len - pos) {
			td7_fail(v, "truncated: option %u at offset %" PRIu64 " of the options section "
				"at %" PRIu64 " needs %" PRIu32 " bytes, %zu are left", id, where, at,
			     size, b.len - pos);
			goto out;
		}
		d = b.p + pos;
		pos += size;
		if (id == TD7_OPT_DONE) {
			if (size < 8) {
				td7_fail(v, "the DONE option of the options section at offset %" PRIu64
					" has %" PRIu32 " bytes, expected 8", at, size);
				goto out;
			}
			*next = td7_rd64(v, d);
			ret = 0;
			goto out;
		}
		if (id >= TD7_SEC_HEADER_INFO && id <= TD7_SEC_CMDLINES) {
			if (size < 8) {
				td7_fail(v, "option %s at offset %" PRIu64 " has %" PRIu32 " bytes, "
					"expected 8", td7_meta_name[id - TD7_SEC_HEADER_INFO], where, size);
				goto out;
			}
			v->has_meta[id - TD7_SEC_HEADER_INFO] = true;
			v->meta_off[id - TD7_SEC_HEADER_INFO] = td7_rd64(v, d);
			continue;
		}
		switch (id) {
		case TD_OPT_BUFFER:
			if (buffer_option(v, d, size, where))
				goto out;
			break;
		case TD7_OPT_BUFFER_TEXT:
			td7_fail(v, "option BUFFER_TEXT at offset %" PRIu64 ": latency-tracer files are"
				" not supported", where);
			goto out;
		case TD7_SEC_STRINGS:	   /* the sections' descriptions */
		case TD7_OPT_BTF_FILE:	   /* offsets of sections version 6 has no place for */
		case TD7_OPT_MODULES_FILE:
			break;
		default:
			if (td7_keep_option(v, id, d, size))
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
				return td7_fail(v, "the options sections loop: offset %" PRIu64
					       " comes twice", at);
		if (n == MAX_OPTION_SECTIONS)
			return td7_fail(v, "more than %d options sections", MAX_OPTION_SECTIONS);
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

	if (td7_need(v, c->offset, 4, "a CPU's count of chunks"))
		return -1;
	count = td7_rd32(v, v->data + c->offset);
	c->expanded = 0;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t csize, usize;

		if (!(i & (i - 1))) { /* 0, 1, 2, 4...: room for twice as many */
			struct chunk7 *grown = realloc(c->chunks, (i ? 2 * (size_t)i : 1) *
								 sizeof(*grown));

			if (!grown)
				return td7_fail(v, "out of memory");
			c->chunks = grown;
		}

		if (!td7_have(v, at, 8))
			return td7_fail(v, "truncated: chunk %" PRIu32 " of %" PRIu32 " of CPU %" PRIu32
				       " of buffer '%s' needs 8 bytes at offset %" PRIu64 ", file has "
				       "%zu", i, count, c->cpu, b->name, at, v->size);
		csize = td7_rd32(v, v->data + at);
		usize = td7_rd32(v, v->data + at + 4);
		if (!td7_have(v, at + 8, csize))
			return td7_fail(v, "truncated: chunk %" PRIu32 " of CPU %" PRIu32 " of buffer "
				       "'%s' needs %" PRIu32 " bytes at offset %" PRIu64 ", file has "
				       "%zu", i, c->cpu, b->name, csize, at + 8, v->size);
		if (usize > MAX_CHUNK && usize > (uint64_t)v->page_size * MAX_CHUNK_PAGES)
			return td7_fail(v, "chunk %" PRIu32 " of CPU %" PRIu32 " of buffer '%s' at "
				       "offset %" PRIu64 " claims %" PRIu32 " bytes uncompressed, more"
				       " than the %" PRIu64 " accepted", i, c->cpu, b->name, at, usize,
				    MAX_CHUNK > (uint64_t)v->page_size * MAX_CHUNK_PAGES ? MAX_CHUNK :
				    (uint64_t)v->page_size * MAX_CHUNK_PAGES);
		if (td7_declare(v, usize, at, "chunk %" PRIu32 " of CPU %" PRIu32 " of buffer '%s'", i,
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
		if (td7_need(v, at, 16, td7_meta_name[i]))
			return -1;
		n = td7_rd64(v, v->data + at + 8);
		if (td7_rd16(v, v->data + at + 2) & TD7_FLAG_COMPRESSED) {
			if (td7_need(v, at + 16, 8, td7_meta_name[i]))
				return -1;
			n = td7_rd32(v, v->data + at + 20);
		}
		if (td7_declare(v, n, at, "the %s section", td7_meta_name[i]))
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
		if (td7_section_body(v, b->section, TD7_SEC_BUFFER, what, &flags, NULL))
			return -1;
		b->compressed = flags & TD7_FLAG_COMPRESSED;
		if (b->compressed && !v->has_codec)
			return td7_fail(v, "%s at offset %" PRIu64 " is compressed, but the file names "
				       "no compression", what, b->section);
		for (uint32_t j = 0; j < b->ncpus; j++) {
			struct cpu7 *c = &b->cpus[j];

			if (!c->size)
				continue;
			if (!td7_have(v, c->offset, c->size))
				return td7_fail(v, "truncated: CPU %" PRIu32 " of buffer '%s' needs %"
					       PRIu64 " bytes at offset %" PRIu64 ", file has %zu",
					    c->cpu, b->name, c->size, c->offset, v->size);
			if (b->compressed) {
				if (scan_chunks(v, b, c))
					return -1;
			} else {
				if (td7_declare(v, c->size, c->offset, "CPU %" PRIu32 " of buffer '%s'",
					    c->cpu, b->name))
					return -1;
				c->expanded = c->size;
			}
			if (c->expanded % v->page_size)
				return td7_fail(v, "CPU %" PRIu32 " of buffer '%s' (offset %" PRIu64 ") "
					       "holds %" PRIu64 " bytes of pages, not a multiple of the "
					       "page size %" PRIu32, c->cpu, b->name, c->offset,
					    c->expanded, v->page_size);
			/* a page is read from one chunk: trace-cmd and tpoint write whole pages */
			for (uint32_t k = 0; k < c->nchunks; k++)
				if (c->chunks[k].usize % v->page_size)
					return td7_fail(v, "chunk %" PRIu32 " of CPU %" PRIu32 " of buffer "
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

	if (td7_need(v, pos, 6, "the endianness byte, long-size byte and page size"))
		return -1;
	if (v->data[pos] > 1)
		return td7_fail(v, "bad endianness byte %u at offset %zu (0 little, 1 big)",
			    v->data[pos], pos);
	v->be = v->data[pos] == 1;
	v->long_size = v->data[pos + 1];
	if (v->long_size != 4 && v->long_size != 8)
		return td7_fail(v, "bad long size %u at offset %zu (4 or 8)", v->long_size, pos + 1);
	v->page_size = td7_rd32(v, v->data + pos + 2);
	if (v->page_size < TD6_PAGE_SIZE_MIN || v->page_size > TD6_PAGE_SIZE_MAX)
		return td7_fail(v, "page size %" PRIu32 " is out of range (%u..%u)", v->page_size,
			    TD6_PAGE_SIZE_MIN, TD6_PAGE_SIZE_MAX);
	pos += 6;
	if (!(name = take_string(v->data, v->size, &pos, 63)) ||
	    !(version = take_string(v->data, v->size, &pos, 63)))
		return td7_fail(v, "the compression's name and version after offset %d are not two "
			       "strings of up to 63 bytes", TD_MAGIC_LEN + 8);
	snprintf(v->codec_name, sizeof(v->codec_name), "%s", name);
	if (td7_need(v, pos, 8, "the offset of the options"))
		return -1;
	*options = td7_rd64(v, v->data + pos);
	if (!strcmp(name, "none"))
		return 0;
	if (strcmp(name, TP_CODEC_ZSTD) && strcmp(name, TP_CODEC_ZLIB))
		return td7_fail(v, "compression '%.63s' is not supported (zstd, zlib or none)", name);
	if (tp_codec_open(&v->codec, name, 0, why, sizeof(why)))
		return td7_fail(v, "%s", why);
	v->has_codec = true;
	return 0;
}

static int cpu_count(struct v7 *v)
{
	const struct opt7 *o = td7_find_option(v, TD_OPT_CPUCOUNT);

	if (o && o->size >= 4) {
		uint32_t n = td7_rd32(v, o->data);

		if (n > MAX_CPUS)
			return td7_fail(v, "option CPUCOUNT says %" PRIu32 " CPUs, at most %u are read",
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
		return td7_fail(v, "out of memory");
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
		td7_fail(v, "not a trace.dat file of version 7");
		goto bad;
	}
	if (read_header(v, &options) || read_options(v, options) || count_meta(v) ||
	    check_buffers(v) || cpu_count(v) || td7_write_copy(v) || index_cpus(v))
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
