// SPDX-License-Identifier: MIT
/*
 * trace.dat version 7, compressed, in one pass: see tracedat_v7.h.
 *
 * The file: the header (its last field, the offset of the options, patched at the end); the
 * metadata sections, each compressed whole; one BUFFER section holding every CPU's pages,
 * each CPU's from a page boundary, compressed TD7_PAGES_PER_CHUNK pages at a time; then the
 * one options section: the offsets of the metadata sections, the options handed in, and
 * option BUFFER with each CPU's offset and size. trace-cmd reads the sections wherever the
 * options say they are.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "growbuf.h"
#include "tracedat_format.h"
#include "tracedat_v7.h"

/* The section's string id when there is no STRINGS section: no description. */
#define TD7_NO_DESCRIPTION 0xffffffffu

struct td7_cpu {
	uint32_t cpu;
	uint64_t offset, size;
};

struct td7_writer {
	struct td7_io io;
	const struct tp_codec *codec;
	uint32_t page_size;
	uint64_t options_field; /* where the header's offset of the options is */
	struct tp_growbuf options; /* the options section's body */
	/* The CPU data. */
	uint64_t buffer_section;  /* the offset of the BUFFER section's header, or 0 */
	struct td7_cpu *cpus;
	uint32_t ncpus, cpus_cap;
	char *chunk;              /* TD7_PAGES_PER_CHUNK pages being filled */
	size_t chunk_used;
	char *out;                /* a chunk compressed */
	size_t out_cap;
	uint32_t nchunks;         /* of the present CPU */
	uint64_t in_bytes, out_bytes;
	int err;
};

static void put(struct td7_writer *t, const void *p, size_t n)
{
	t->io.write(t->io.ctx, p, n);
}

static void put_u16(struct td7_writer *t, uint16_t v) { put(t, &v, 2); }
static void put_u32(struct td7_writer *t, uint32_t v) { put(t, &v, 4); }
static void put_u64(struct td7_writer *t, uint64_t v) { put(t, &v, 8); }

static uint64_t here(struct td7_writer *t)
{
	return t->io.offset(t->io.ctx);
}

static int grow(void **buf, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*buf, n * elem);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = n;
	return 0;
}

/* A section's header: its size (the bytes after the header) patched by section_end(). */
static uint64_t section_begin(struct td7_writer *t, uint16_t id, uint16_t flags)
{
	uint64_t at = here(t);

	put_u16(t, id);
	put_u16(t, flags);
	put_u32(t, TD7_NO_DESCRIPTION);
	put_u64(t, 0);
	return at;
}

static void section_end(struct td7_writer *t, uint64_t at)
{
	uint64_t size = here(t) - at - 16;

	t->io.patch(t->io.ctx, at + 8, &size, 8);
}

/* n bytes compressed into t->out: its compressed size, or -1. */
static ssize_t squeeze(struct td7_writer *t, const void *p, size_t n)
{
	size_t bound = tp_codec_bound(t->codec, n);

	if (grow((void **)&t->out, &t->out_cap, bound, 1) < 0) {
		t->err = -ENOMEM;
		return -1;
	}
	ssize_t len = tp_codec_compress(t->codec, t->out, t->out_cap, p, n);

	if (len < 0 || (uint64_t)len > UINT32_MAX)
		t->err = -EIO;
	return t->err ? -1 : len;
}

struct td7_writer *tp_td7_start(const struct td7_io *io, const struct tp_codec *codec,
				uint32_t page_size)
{
	struct td7_writer *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->io = *io;
	t->codec = codec;
	t->page_size = page_size;
	t->chunk = malloc((size_t)page_size * TD7_PAGES_PER_CHUNK);
	if (!t->chunk) {
		free(t);
		return NULL;
	}
	put(t, TD_MAGIC, TD_MAGIC_LEN);
	put(t, "7", 2);
	put(t, "\0", 1);                          /* little endian */
	put(t, &(char){ (char)sizeof(long) }, 1); /* long size */
	put_u32(t, page_size);
	put(t, codec->name, strlen(codec->name) + 1);
	put(t, codec->version, strlen(codec->version) + 1);
	t->options_field = here(t);
	put_u64(t, 0);
	return t;
}

int tp_td7_option(struct td7_writer *t, uint16_t id, const void *data, uint32_t len)
{
	tp_growbuf_add(&t->options, &id, 2);
	tp_growbuf_add(&t->options, &len, 4);
	tp_growbuf_add(&t->options, data, len);
	return t->options.oom ? (t->err = -ENOMEM) : 0;
}

int tp_td7_section(struct td7_writer *t, uint16_t id, const void *body, size_t len)
{
	uint64_t at;
	ssize_t clen;

	if (len > UINT32_MAX)
		return t->err = -EFBIG;
	clen = squeeze(t, body, len);
	if (clen < 0)
		return t->err;
	at = section_begin(t, id, TD7_FLAG_COMPRESSED);
	put_u32(t, (uint32_t)clen);
	put_u32(t, (uint32_t)len);
	put(t, t->out, (size_t)clen);
	section_end(t, at);
	/* Its option, with the same id, holds its offset. */
	return tp_td7_option(t, id, &at, 8);
}

/* The pages gathered so far go out as one chunk. */
static void chunk_flush(struct td7_writer *t)
{
	ssize_t clen;

	if (!t->chunk_used || t->err)
		return;
	clen = squeeze(t, t->chunk, t->chunk_used);
	if (clen < 0)
		return;
	put_u32(t, (uint32_t)clen);
	put_u32(t, (uint32_t)t->chunk_used);
	put(t, t->out, (size_t)clen);
	t->in_bytes += t->chunk_used;
	t->out_bytes += 8 + (uint64_t)clen;
	t->nchunks++;
	t->chunk_used = 0;
}

/* The present CPU's last chunk out, its chunk count patched in and its size known. */
static void cpu_end(struct td7_writer *t)
{
	struct td7_cpu *c;

	if (!t->ncpus)
		return;
	c = &t->cpus[t->ncpus - 1];
	chunk_flush(t);
	t->io.patch(t->io.ctx, c->offset, &t->nchunks, 4);
	c->size = here(t) - c->offset;
}

static void pad_to_page(struct td7_writer *t)
{
	static const char zeros[256];
	uint64_t pad = (t->page_size - here(t) % t->page_size) % t->page_size;

	while (pad) {
		size_t n = pad < sizeof(zeros) ? (size_t)pad : sizeof(zeros);

		put(t, zeros, n);
		pad -= n;
	}
}

int tp_td7_cpu_data(struct td7_writer *t, uint32_t cpu, const void *pages, size_t len)
{
	const char *p = pages;
	size_t chunk_bytes = (size_t)t->page_size * TD7_PAGES_PER_CHUNK;

	if (t->err)
		return t->err;
	if (!t->buffer_section)
		t->buffer_section = section_begin(t, TD7_SEC_BUFFER, TD7_FLAG_COMPRESSED);
	if (!t->ncpus || t->cpus[t->ncpus - 1].cpu != cpu) {
		size_t cap = t->cpus_cap;

		cpu_end(t);
		if (grow((void **)&t->cpus, &cap, t->ncpus + 1, sizeof(*t->cpus)) < 0)
			return t->err = -ENOMEM;
		t->cpus_cap = (uint32_t)cap;
		pad_to_page(t);
		t->cpus[t->ncpus++] = (struct td7_cpu){ .cpu = cpu, .offset = here(t) };
		t->nchunks = 0;
		put_u32(t, 0); /* the count of chunks, patched by cpu_end() */
		t->out_bytes += 4;
	}
	while (len && !t->err) {
		size_t n = chunk_bytes - t->chunk_used;

		if (n > len)
			n = len;
		memcpy(t->chunk + t->chunk_used, p, n);
		t->chunk_used += n;
		p += n;
		len -= n;
		if (t->chunk_used == chunk_bytes)
			chunk_flush(t);
	}
	return t->err;
}

/* Option BUFFER: where the CPUs' data is, for the top buffer (name ""). */
static int buffer_option(struct td7_writer *t, const char *clock)
{
	size_t clen = strlen(clock) + 1;
	size_t len = 8 + 1 + clen + 4 + 4 + (size_t)t->ncpus * 20;
	char *b = malloc(len), *p = b;
	uint32_t page = t->page_size;
	int ret;

	if (!b)
		return t->err = -ENOMEM;
	memcpy(p, &t->buffer_section, 8);
	p += 8;
	*p++ = 0; /* the top buffer's name: "" */
	memcpy(p, clock, clen);
	p += clen;
	memcpy(p, &page, 4);
	memcpy(p + 4, &t->ncpus, 4);
	p += 8;
	for (uint32_t i = 0; i < t->ncpus; i++, p += 20) {
		memcpy(p, &t->cpus[i].cpu, 4);
		memcpy(p + 4, &t->cpus[i].offset, 8);
		memcpy(p + 12, &t->cpus[i].size, 8);
	}
	ret = tp_td7_option(t, TD_OPT_BUFFER, b, (uint32_t)len);
	free(b);
	return ret;
}

static void td7_free(struct td7_writer *t)
{
	free(t->options.p);
	free(t->cpus);
	free(t->chunk);
	free(t->out);
	free(t);
}

int tp_td7_finish(struct td7_writer *t, const char *clock, uint64_t *in_bytes,
		  uint64_t *out_bytes)
{
	int ret;

	if (!t->buffer_section)
		t->buffer_section = section_begin(t, TD7_SEC_BUFFER, TD7_FLAG_COMPRESSED);
	cpu_end(t);
	section_end(t, t->buffer_section);
	if (!t->err)
		buffer_option(t, clock);
	if (!t->err) {
		uint64_t at = section_begin(t, TD7_SEC_OPTIONS, 0);
		uint64_t next = 0; /* DONE: no further options section */

		put(t, t->options.p, t->options.len);
		put_u16(t, 0);
		put_u32(t, 8);
		put_u64(t, next);
		section_end(t, at);
		t->io.patch(t->io.ctx, t->options_field, &at, 8);
	}
	if (in_bytes)
		*in_bytes = t->in_bytes;
	if (out_bytes)
		*out_bytes = t->out_bytes;
	ret = t->err;
	td7_free(t);
	return ret;
}

void tp_td7_abort(struct td7_writer *t)
{
	if (t)
		td7_free(t);
}
