/* SPDX-License-Identifier: MIT */
/*
 * Reading a ring-buffer page as tpoint writes it: 8-byte data records (type_len 0 with an
 * explicit length) and time extends. The drain thread spools pages as they are; readers of
 * the spool walk them here, and the tool decodes the pages of a process that was killed.
 */
#include <string.h>
#include <tpoint/event.h>
#include "pack.h"
#include "spool_format.h"

/* One record of page bytes at *p: 1 with it, after any time extends; 0 at end or garbage. */
static int page_next(const char **p, const char *end, uint64_t *clock, const char **data,
		     uint32_t *size)
{
	while (*p + 8 <= end) {
		uint32_t w, arr;

		memcpy(&w, *p, 4);
		memcpy(&arr, *p + 4, 4);
		if ((w & 31) == 30) { /* time extend */
			*clock += ((uint64_t)arr << TPOINT_DELTA_BITS) + (w >> 5);
			*p += 8;
			continue;
		}
		/* tpoint's records: 8-byte aligned, and a page holds them. */
		if ((w & 31) != 0 || arr < 12 || arr - 4 > (size_t)(end - *p) - 8 ||
		    arr - 4 > TPOINT_MAX_PAYLOAD || (arr - 4) % 8)
			return 0; /* not ours: stop rather than pass garbage on */
		*clock += w >> 5;
		*size = arr - 4;
		*data = *p + 8;
		*p += 8 + *size;
		return 1;
	}
	return 0;
}

void tp_spool_iter_init(struct spool_iter *it, uint32_t type, const char *body, uint32_t size,
			char *unpacked)
{
	const struct spool_records *h = (const void *)body;

	it->p = body + sizeof(*h);
	it->end = body + size;
	it->raw = type == SPOOL_PAGE || type == SPOOL_PAGE_PACKED;
	it->damaged = false;
	if (size < sizeof(*h)) {
		it->p = it->end;
		it->damaged = true;
		return;
	}
	it->clock = h->clock;
	if (type == SPOOL_PAGE_PACKED) {
		uint32_t n = h->end_off - h->start_off;

		/* Damaged (a range no page has, a packing of something else): no records. */
		if (!unpacked || h->end_off < h->start_off || n > SPOOL_UNPACKED_MAX ||
		    tp_pack_decode((const uint8_t *)it->p, size - sizeof(*h), n, h->lag,
				   (uint8_t *)unpacked) < 0) {
			it->p = it->end;
			it->damaged = true;
			return;
		}
		it->p = unpacked;
		it->end = unpacked + n;
	}
}

int tp_spool_iter_next(struct spool_iter *it, uint64_t *clock, const char **data, uint32_t *size)
{
	const struct spool_record *r = (const void *)it->p;

	if (it->raw) {
		if (!page_next(&it->p, it->end, &it->clock, data, size))
			return 0;
		*clock = it->clock;
		return 1;
	}
	if (it->p + sizeof(*r) > it->end || r->size < 8 ||
	    r->size > (size_t)(it->end - it->p) - sizeof(*r) || r->size > TPOINT_MAX_PAYLOAD ||
	    r->size % 8)
		return 0; /* damaged: what follows cannot be found */
	*clock = r->clock;
	*data = it->p + sizeof(*r);
	*size = r->size;
	it->p += sizeof(*r) + r->size;
	return 1;
}

uint64_t tp_page_clock_after(const char *bytes, uint32_t len, uint64_t clock)
{
	const char *p = bytes, *payload;
	uint32_t size;

	while (page_next(&p, bytes + len, &clock, &payload, &size))
		;
	return clock;
}

size_t tp_page_decode(const char *data, uint32_t from, uint32_t commit, uint64_t *clock, char *out,
		      uint32_t *stopped)
{
	const char *p = data + from, *payload;
	size_t used = 0;
	uint32_t size;

	if (commit > TPOINT_PAGE_DATA_END || from > commit)
		commit = from; /* not a page of ours: never read past it */
	while (page_next(&p, data + commit, clock, &payload, &size)) {
		struct spool_record r = { *clock, size, 0 };

		memcpy(out + used, &r, sizeof(r));
		memcpy(out + used + sizeof(r), payload, size);
		used += sizeof(r) + size;
	}
	*stopped = (uint32_t)(p - data);
	return used;
}
