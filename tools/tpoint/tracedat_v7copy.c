// SPDX-License-Identifier: MIT
/*
 * tracedat_v7copy - a version 7 file's version 6 copy (see tracedat_v7read.h): its metadata
 * blocks in version 6's order, written through the serialiser of version 6's blocks
 * (lib/fmt/tracedat_v6.h), its options and flyrecord tables, made in memory up to the first
 * page; and its pages, read by their offset in the copy from the input, a chunk
 * decompressed when a page of it is asked for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt/tracedat_v6.h"
#include "fmt/tracedat_v6_read.h"
#include "tracedat_v7_internal.h"
#include "tracedat_v7read.h"

/* ---- the copy ---- */

int td7_put(struct v7 *v, const void *p, size_t n)
{
	tp_growbuf_add(&v->head, p, n);
	v->out_off += n;
	return v->head.oom ? td7_fail(v, "out of memory") : 0;
}

int td7_put32(struct v7 *v, uint32_t x)
{
	unsigned char b[4];

	td7_wr32(v, b, x);
	return td7_put(v, b, 4);
}

int td7_put64(struct v7 *v, uint64_t x)
{
	unsigned char b[8];

	td7_wr64(v, b, x);
	return td7_put(v, b, 8);
}

int td7_put_zeros(struct v7 *v, uint64_t n)
{
	static const unsigned char zeros[4096];

	while (n) {
		size_t k = n < sizeof(zeros) ? (size_t)n : sizeof(zeros);

		if (td7_put(v, zeros, k))
			return -1;
		n -= k;
	}
	return 0;
}

/* The copy through the serialiser of version 6's blocks; td7_put()'s failure is the copy's. */
static void put_bytes(void *ctx, const void *p, size_t n)
{
	td7_put(ctx, p, n);
}

static struct td6_out copy_out(struct v7 *v)
{
	return (struct td6_out){ .write = put_bytes, .ctx = v, .big_endian = v->be };
}

/* 0, or -1 when a td7_put() since the copy began failed (its reason in err). */
static int copy_failed(struct v7 *v)
{
	return v->head.oom ? td7_fail(v, "out of memory") : 0;
}

/* Rewrites 8 bytes already put at offset at. */
int td7_patch64(struct v7 *v, uint64_t at, uint64_t x)
{
	if (at + 8 > v->head.len)
		return td7_fail(v, "out of memory");
	td7_wr64(v, (unsigned char *)v->head.p + at, x);
	return 0;
}

/* ---- metadata blocks: the bytes of a version 6 block at the start of a section ---- */

/* The length of the version 6 block that section id (16..21) holds (body b, at offset at). */
static int block_length(struct v7 *v, int id, const struct body *b, uint64_t at, size_t *len)
{
	const char *what = td7_meta_name[id - TD7_SEC_HEADER_INFO];
	struct td6_short why;

	if (!tp_td6_block_length((enum td6_block)(id - TD7_SEC_HEADER_INFO), b->p, b->len, v->be,
			      len, &why))
		return 0;
	switch (why.kind) {
	case TD6_SHORT_TAG:
		return td7_fail(v, "the %s section at offset %" PRIu64 ": expected \"%s\" at byte "
				"%zu", what, at, why.tag, why.at);
	case TD6_SHORT_NUL:
		return td7_fail(v, "truncated: the %s section at offset %" PRIu64 ": the name of "
				"system %" PRIu32 " has no NUL", what, at, why.system);
	default:
		return td7_fail(v, "truncated: the %s section at offset %" PRIu64 " needs %" PRIu64
				" bytes at byte %zu of its %zu", what, at, why.need, why.at, b->len);
	}
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
			return td7_fail(v, "no HEADER_INFO section (option 16): the page and record "
				       "layout is unknown");
		/* the empty block: a count or a size of 0 */
		return id == TD7_SEC_CMDLINES ? td7_put64(v, 0) : td7_put32(v, 0);
	}
	snprintf(what, sizeof(what), "the %s section", td7_meta_name[i]);
	if (td7_section_body(v, v->meta_off[i], (uint16_t)id, what, NULL, &b))
		return -1;
	ret = block_length(v, id, &b, v->meta_off[i], &len);
	if (!ret)
		ret = td7_put(v, b.p, len);
	free(b.owned);
	return ret;
}

/* ---- the copy, in version 6's order ---- */

const struct buf7 *td7_top_buffer(const struct v7 *v)
{
	for (size_t i = 0; i < v->nbufs; i++)
		if (!v->bufs[i].name[0])
			return &v->bufs[i];
	return NULL;
}

/* The flyrecord table of a buffer: u64 offset and size per CPU, for every CPU. */
static int put_table(struct v7 *v, const struct buf7 *b)
{
	struct td6_out o = copy_out(v);

	tp_td6_put_flyrecord(&o);
	for (uint32_t cpu = 0; cpu < v->ncpus; cpu++) {
		const struct cpu7 *c = NULL;

		for (uint32_t j = 0; b && j < b->ncpus; j++)
			if (b->cpus[j].cpu == cpu && b->cpus[j].expanded)
				c = &b->cpus[j];
		tp_td6_put_cpu_data(&o, c ? c->out : 0, c ? c->expanded : 0);
	}
	return copy_failed(v);
}

int td7_write_copy(struct v7 *v)
{
	const struct buf7 *top = td7_top_buffer(v);
	const struct opt7 *clock = td7_find_option(v, TD_OPT_TRACECLOCK);
	struct td6_out o = copy_out(v);
	char clock_opt[80];
	uint64_t data_at;

	tp_td6_put_file_header(&o, v->long_size, v->page_size);
	if (copy_failed(v))
		return -1;
	for (int id = TD7_SEC_HEADER_INFO; id <= TD7_SEC_CMDLINES; id++)
		if (put_meta(v, id))
			return -1;
	tp_td6_put_u32(&o, v->ncpus);
	tp_td6_put_options_start(&o);
	if (copy_failed(v))
		return -1;
	/* version 7 names the top buffer's clock in its BUFFER option; version 6 in TRACECLOCK */
	if (!clock && top && top->clock[0]) {
		int n = snprintf(clock_opt, sizeof(clock_opt), "[%s]", top->clock);

		if (td7_keep_option(v, TD_OPT_TRACECLOCK, (const unsigned char *)clock_opt,
				(uint32_t)n + 1))
			return -1;
		clock = td7_find_option(v, TD_OPT_TRACECLOCK);
	}
	for (size_t i = 0; i < v->nopts; i++) {
		const struct opt7 *opt = &v->opts[i];

		if (opt->id == TD_OPT_CPUCOUNT && opt->size >= 4) {
			/* the copy's tables have this many entries */
			tp_td6_put_u16(&o, opt->id);
			tp_td6_put_u32(&o, opt->size);
			tp_td6_put_u32(&o, v->ncpus);
			tp_td6_put_bytes(&o, opt->data + 4, opt->size - 4);
		} else {
			tp_td6_put_option(&o, opt->id, opt->data, opt->size);
		}
	}
	for (size_t i = 0; i < v->nbufs; i++) {
		struct buf7 *b = &v->bufs[i];
		size_t nlen = strlen(b->name) + 1;

		if (b == top)
			continue;
		tp_td6_put_u16(&o, TD_OPT_BUFFER);
		tp_td6_put_u32(&o, (uint32_t)(8 + nlen));
		b->table_patch = v->out_off;
		tp_td6_put_u64(&o, 0);
		tp_td6_put_bytes(&o, b->name, nlen);
	}
	tp_td6_put_options_end(&o);
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
		tp_td6_put_text(&o, 8, clock->data, strnlen((const char *)clock->data, clock->size));
		if (copy_failed(v))
			return -1;
	}
	for (size_t i = 0; i < v->nbufs; i++) {
		if (&v->bufs[i] == top)
			continue;
		if (td7_patch64(v, v->bufs[i].table_patch, v->out_off) || put_table(v, &v->bufs[i]))
			return -1;
	}
	return td7_put_zeros(v, (v->page_size - v->out_off % v->page_size) % v->page_size);
}

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
		td7_fail(v, "offset %" PRIu64 " of CPU %" PRIu32 " is in none of its chunks", rel,
		     c->cpu);
		return NULL;
	}
	c->cached = -1;
	if (k->usize > c->cache_cap) {
		free(c->cache);
		c->cache = malloc(k->usize);
		c->cache_cap = c->cache ? k->usize : 0;
		if (!c->cache) {
			td7_fail(v, "out of memory");
			return NULL;
		}
	}
	got = tp_codec_decompress(&v->codec, c->cache, k->usize, v->data + k->in, k->csize);
	if (got != (ssize_t)k->usize) {
		td7_fail(v, "chunk %" PRIu32 " of CPU %" PRIu32 " of buffer '%s' at offset %" PRIu64
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
		td7_fail(v, "offset %" PRIu64 " of its version 6 copy holds no pages", off);
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
		td7_fail(v, "the page at offset %" PRIu64 " of its version 6 copy is cut short", off);
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
