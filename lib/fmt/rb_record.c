// SPDX-License-Identifier: MIT
/*
 * The strict decoder of ring-buffer records (lib/fmt/rb_record.h): for trace.dat files
 * (tools/tpoint/tracedat_read.c) and the kernel's pages (tools/tpoint/kpages.c), whose bytes
 * are not ours. Every length is checked against the page's commit before it is used, and
 * the commit against the page, by tp_rb_page_decode() (also for tools/tpoint/top_dirty.c).
 */
#include "rb_record.h"

static uint32_t get_u32(const unsigned char *p, bool big_endian)
{
	uint32_t v;

	memcpy(&v, p, 4);
	if (big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		v = __builtin_bswap32(v);
	return v;
}

static uint64_t get_u64(const unsigned char *p, bool big_endian)
{
	uint64_t v;

	memcpy(&v, p, 8);
	if (big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		v = __builtin_bswap64(v);
	return v;
}

/* A long of the page's kernel: 4 bytes read as an unsigned u32, else 8. */
static uint64_t get_long(const unsigned char *p, unsigned int long_size, bool big_endian)
{
	return long_size == 8 ? get_u64(p, big_endian) : get_u32(p, big_endian);
}

enum tp_rb_page_fault tp_rb_page_decode(const unsigned char *page, uint32_t page_size,
					unsigned int long_size, unsigned int flags,
					struct tp_rb_page *pg)
{
	bool big = flags & TP_RB_BIG_ENDIAN;
	uint32_t room;
	uint64_t word;

	if ((long_size != 4 && long_size != 8) || page_size < 8 + long_size)
		return TP_RB_PAGE_LAYOUT;
	pg->data = 8 + long_size;
	room = page_size - pg->data;
	pg->ts = get_u64(page, big);
	word = get_long(page + 8, long_size, big);
	pg->commit = (uint32_t)(word & RB_COMMIT_MASK);
	pg->missed = word & RB_MISSED_EVENTS;
	pg->counted = false;
	pg->lost = 0;
	if (pg->commit > room)
		return TP_RB_PAGE_COMMIT_PAST;
	if (pg->missed && (word & RB_MISSED_STORED)) {
		if (long_size > room - pg->commit)
			return TP_RB_PAGE_COUNT_PAST;
		pg->lost = get_long(page + pg->data + pg->commit, long_size, big);
		pg->counted = true;
	}
	return TP_RB_PAGE_OK;
}

const char *tp_rb_decode(const unsigned char *data, uint32_t commit, uint32_t off,
			 unsigned int flags, struct tp_rb_rec *rec)
{
	bool big = flags & TP_RB_BIG_ENDIAN;
	uint32_t word, array0 = 0;
	uint64_t end;

	if ((uint64_t)off + 4 > commit)
		return "the event header runs past the commit";
	word = get_u32(data + off, big);
	if (big) {
		rec->type_len = word >> TPOINT_DELTA_BITS;
		rec->delta = word & TPOINT_DELTA_MAX;
	} else {
		rec->type_len = word & RB_TYPE_LEN_MASK;
		rec->delta = word >> TPOINT_TYPE_LEN_BITS;
	}
	if (rec->type_len == 0 || rec->type_len >= RB_TYPE_PADDING) {
		if ((uint64_t)off + 8 > commit)
			return "the event's length word runs past the commit";
		array0 = get_u32(data + off + 4, big);
	}
	switch (rec->type_len) {
	case RB_TYPE_PADDING:
		if (!rec->delta && (flags & TP_RB_PAD_ENDS_PAGE)) {
			/* the kernel's tail padding: its length may not be written */
			rec->next = commit;
			return NULL;
		}
		/* the length counts from array[0] itself, so it covers at least array[0] */
		if (array0 < 4)
			return "padding shorter than its own length word";
		end = (uint64_t)off + 4 + array0;
		if (end > commit)
			return "padding runs past the commit";
		rec->next = (uint32_t)end;
		return NULL;
	case RB_TYPE_TIME_EXTEND:
		rec->delta += (uint64_t)array0 << TPOINT_DELTA_BITS;
		rec->next = off + 8;
		return NULL;
	case RB_TYPE_TIME_STAMP:
		rec->delta |= (uint64_t)array0 << TPOINT_DELTA_BITS;
		rec->next = off + 8;
		return NULL;
	case 0:
		if (array0 < 4)
			return "a data event's length is smaller than its length word";
		rec->size = ((array0 - 4) + 3) & ~3u;
		rec->payload = off + 8;
		break;
	default:
		rec->size = rec->type_len * 4;
		rec->payload = off + 4;
		break;
	}
	end = (uint64_t)rec->payload + rec->size;
	if (end > commit)
		return "the event runs past the commit";
	if (rec->size < 8)
		return "a record shorter than the 8-byte common header";
	rec->next = (uint32_t)end;
	return NULL;
}
