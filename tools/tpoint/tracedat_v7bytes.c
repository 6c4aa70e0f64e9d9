// SPDX-License-Identifier: MIT
/*
 * tracedat_v7bytes - the checked reads of a version 7 file that both halves of its reader
 * use (tracedat_v7_internal.h): its integers in the file's byte order, bounds against the
 * input, the bound on what it declares uncompressed, a section's body (decompressed), and
 * the options kept. Below tracedat_v7read.c (the sections and buffers) and
 * tracedat_v7copy.c (the version 6 copy), so that neither calls the other back.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "tracedat_v7.h"
#include "tracedat_v7_internal.h"

const char *const td7_meta_name[NR_META] = {
	"HEADER_INFO", "FTRACE_EVENTS", "EVENT_FORMATS", "KALLSYMS", "PRINTK", "CMDLINES",
};

int td7_fail(struct v7 *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->err, v->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

uint16_t td7_rd16(const struct v7 *v, const unsigned char *p)
{
	return v->be ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

uint32_t td7_rd32(const struct v7 *v, const unsigned char *p)
{
	if (v->be)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

uint64_t td7_rd64(const struct v7 *v, const unsigned char *p)
{
	uint64_t a = td7_rd32(v, p), b = td7_rd32(v, p + 4);

	return v->be ? a << 32 | b : b << 32 | a;
}

void td7_wr32(const struct v7 *v, unsigned char *p, uint32_t x)
{
	for (int i = 0; i < 4; i++)
		p[v->be ? 3 - i : i] = (unsigned char)(x >> (8 * i));
}

void td7_wr64(const struct v7 *v, unsigned char *p, uint64_t x)
{
	for (int i = 0; i < 8; i++)
		p[v->be ? 7 - i : i] = (unsigned char)(x >> (8 * i));
}

/* Are n bytes there at offset off of the input? */
bool td7_have(const struct v7 *v, uint64_t off, uint64_t n)
{
	return off <= v->size && n <= v->size - off;
}

int td7_need(struct v7 *v, uint64_t off, uint64_t n, const char *what)
{
	if (!td7_have(v, off, n))
		return td7_fail(v, "truncated: %s needs %" PRIu64 " bytes at offset %" PRIu64
			       ", file has %zu", what, n, off, v->size);
	return 0;
}

/*
 * Counts n more bytes that the file declares it expands to; what and at (printf-style, then
 * its offset) name the section or chunk that would pass the bound, for the message.
 */
int td7_declare(struct v7 *v, uint64_t n, uint64_t at, const char *fmt, ...)
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
	return td7_fail(v, "%s at offset %" PRIu64 " brings what the file declares uncompressed to %"
		       PRIu64 " bytes, %" PRIu64 " times its %zu (a decompression bomb?): refused, "
		       "at most %u times or %llu MiB is read", what, at, v->declared,
		    v->declared / (v->size ? v->size : 1), v->size, MAX_RATIO, MIN_BOUND >> 20);
}

/* ---- sections ---- */


/*
 * A section's body at offset at, decompressed when its flags say so. what names it for the
 * messages.
 */
int td7_section_body(struct v7 *v, uint64_t at, uint16_t want_id, const char *what,
		     uint16_t *flags_out, struct body *b)
{
	uint16_t id, flags;
	uint64_t size;
	uint32_t csize, usize;
	ssize_t got;

	if (b)
		memset(b, 0, sizeof(*b));
	if (td7_need(v, at, 16, what))
		return -1;
	id = td7_rd16(v, v->data + at);
	flags = td7_rd16(v, v->data + at + 2);
	size = td7_rd64(v, v->data + at + 8);
	if (id != want_id)
		return td7_fail(v, "%s at offset %" PRIu64 " is a section of id %u, expected %u",
			    what, at, id, want_id);
	if (flags & ~TD7_FLAG_COMPRESSED)
		return td7_fail(v, "%s at offset %" PRIu64 " has unknown flags 0x%x", what, at, flags);
	if (flags_out)
		*flags_out = flags;
	if (want_id == TD7_SEC_BUFFER)
		return 0; /* its CPUs' data is found through option BUFFER */
	if (!(flags & TD7_FLAG_COMPRESSED)) {
		if (td7_need(v, at + 16, size, what))
			return -1;
		/* the metadata sections are counted before any is read: count_meta() */
		if (want_id == TD7_SEC_OPTIONS && td7_declare(v, size, at, "%s", what))
			return -1;
		b->p = v->data + at + 16;
		b->len = (size_t)size;
		return 0;
	}
	if (!v->has_codec)
		return td7_fail(v, "%s at offset %" PRIu64 " is compressed, but the file names no "
			       "compression", what, at);
	if (td7_need(v, at + 16, 8, what))
		return -1;
	csize = td7_rd32(v, v->data + at + 16);
	usize = td7_rd32(v, v->data + at + 20);
	if (td7_need(v, at + 24, csize, what))
		return -1;
	if (usize > MAX_SECTION)
		return td7_fail(v, "%s at offset %" PRIu64 " claims %" PRIu32 " bytes uncompressed, "
			       "more than the %u accepted", what, at, usize, MAX_SECTION);
	if (want_id == TD7_SEC_OPTIONS && td7_declare(v, usize, at, "%s", what))
		return -1;
	b->owned = malloc(usize ? usize : 1);
	if (!b->owned)
		return td7_fail(v, "out of memory");
	got = tp_codec_decompress(&v->codec, b->owned, usize, v->data + at + 24, csize);
	if (got != (ssize_t)usize) {
		free(b->owned);
		b->owned = NULL;
		return td7_fail(v, "%s at offset %" PRIu64 ": %s cannot decompress its %" PRIu32
			       " bytes into the %" PRIu32 " it declares", what, at, v->codec_name,
			    csize, usize);
	}
	b->p = b->owned;
	b->len = usize;
	return 0;
}

/* ---- options ---- */

const struct opt7 *td7_find_option(const struct v7 *v, uint16_t id)
{
	for (size_t i = 0; i < v->nopts; i++)
		if (v->opts[i].id == id)
			return &v->opts[i];
	return NULL;
}

int td7_keep_option(struct v7 *v, uint16_t id, const unsigned char *data, uint32_t size)
{
	struct opt7 *o;

	if (v->nopts == v->opts_cap) {
		size_t cap = v->opts_cap ? v->opts_cap * 2 : 16;
		struct opt7 *grown = realloc(v->opts, cap * sizeof(*grown));

		if (!grown)
			return td7_fail(v, "out of memory");
		v->opts = grown;
		v->opts_cap = cap;
	}
	o = &v->opts[v->nopts];
	o->data = malloc(size ? size : 1);
	if (!o->data)
		return td7_fail(v, "out of memory");
	memcpy(o->data, data, size);
	o->id = id;
	o->size = size;
	v->nopts++;
	return 0;
}
