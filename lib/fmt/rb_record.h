/* SPDX-License-Identifier: MIT */
/*
 * The ring-buffer record codec: the kernel's record headers (type_len, time delta, array),
 * time extends, absolute time stamps and padding, in one place for every reader and writer.
 * Needs only libc; linked into the library and the tool (lib/fmt/).
 *
 * A record starts with a u32 whose low TPOINT_TYPE_LEN_BITS bits are type_len and whose
 * TPOINT_DELTA_BITS above are the time delta (a big-endian kernel puts type_len on top):
 *	type_len 0		u32 array[0] = payload length + 4, then the payload (rounded up to 4)
 *	type_len 1..28		a payload of type_len * 4 bytes right after the header word
 *	29 padding		u32 array[0]: bytes to skip, counted from array[0] itself; with a
 *				delta of 0 in a live kernel page, the rest of the page
 *	30 time extend		u32 array[0]: the delta's bits above TPOINT_DELTA_BITS, added to the
 *				running clock
 *	31 time stamp		u32 array[0]: an absolute time's bits above TPOINT_DELTA_BITS
 *
 * Two decoders:
 *  - trusted (tp_rb_next and the field helpers, inline): for the pages tpoint wrote itself,
 *    in the runtime's reader (lib/ringbuf.c, lib/spool_read.c, lib/pack.c, lib/writer.c's
 *    slow path). It knows only tpoint's two forms (type_len 0 data, time extends) and
 *    stops at anything else. The hot path writes its data header with
 *    tpoint_record_header() (include/tpoint/event.h), which stays there, inline.
 *  - strict (tp_rb_decode): for bytes from outside (a trace.dat file, a kernel page), every
 *    form the kernel writes, every length checked against the page's commit, decoded as
 *    libtraceevent's kbuffer decodes it (so that what is checked is what it renders).
 * The encoder: tp_rb_time_extend(); the data header is tpoint_record_header().
 * The page header before the records (time stamp, commit and its lost-event flags, the
 * lost-event count after the records) is read, strictly, by tp_rb_page_decode().
 */
#ifndef TPOINT_FMT_RB_RECORD_H
#define TPOINT_FMT_RB_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <tpoint/event.h>
#include "tracedat_format.h"

/* ---- the encoder, and the trusted decoder of tpoint's own pages ---- */

/* A time extend carrying `delta` (wider than TPOINT_DELTA_BITS), as its two u32s. */
static inline void tp_rb_time_extend(uint64_t delta, uint32_t out[2])
{
	out[0] = (uint32_t)((delta & TPOINT_DELTA_MAX) << TPOINT_TYPE_LEN_BITS) |
		 RB_TYPE_TIME_EXTEND;
	out[1] = (uint32_t)(delta >> TPOINT_DELTA_BITS);
}

/* Does a delta need a time extend before the record? */
static inline int tp_rb_delta_too_wide(uint64_t delta)
{
	return (delta >> TPOINT_DELTA_BITS) != 0;
}

/* The fields of a record header's first u32. */
static inline uint32_t tp_rb_type_len(uint32_t word)
{
	return word & RB_TYPE_LEN_MASK;
}

static inline uint32_t tp_rb_delta(uint32_t word)
{
	return word >> TPOINT_TYPE_LEN_BITS;
}

/* The clock ticks a time extend adds, from its two u32s. */
static inline uint64_t tp_rb_extend_delta(uint32_t word, uint32_t array)
{
	return ((uint64_t)array << TPOINT_DELTA_BITS) + tp_rb_delta(word);
}

/*
 * The bytes a record of tpoint's takes, header included, from its two u32s: a data record's
 * length + 4 (type_len 0), else 8 (a time extend). No check: for pages tpoint wrote itself.
 */
static inline uint32_t tp_rb_record_len(uint32_t word, uint32_t array)
{
	return tp_rb_type_len(word) == 0 ? array + 4u : 8u;
}

/*
 * One data record of the bytes at *p, before `end`, after any time extends, which advance
 * *clock; the data record's delta advances it too. 1 with its payload and size (a multiple
 * of 8, at most TPOINT_MAX_PAYLOAD), *p moved past it; 0 at the end, or where the bytes are
 * not a record of tpoint's form (then *p stays on them: stop rather than pass garbage on).
 */
static inline int tp_rb_next(const char **p, const char *end, uint64_t *clock, const char **data,
			     uint32_t *size)
{
	while (*p + 8 <= end) {
		uint32_t w, arr;

		memcpy(&w, *p, 4);
		memcpy(&arr, *p + 4, 4);
		if (tp_rb_type_len(w) == RB_TYPE_TIME_EXTEND) {
			*clock += tp_rb_extend_delta(w, arr);
			*p += 8;
			continue;
		}
		/* tpoint's records: 8-byte aligned, and a page holds them. */
		if (tp_rb_type_len(w) != 0 || arr < 12 || arr - 4 > (size_t)(end - *p) - 8 ||
		    arr - 4 > TPOINT_MAX_PAYLOAD || (arr - 4) % 8)
			return 0;
		*clock += tp_rb_delta(w);
		*size = arr - 4;
		*data = *p + 8;
		*p += 8 + *size;
		return 1;
	}
	return 0;
}

/* ---- the strict decoder, for bytes from outside ---- */

/* tp_rb_decode's flags */
#define TP_RB_BIG_ENDIAN 1u   /* the page was written by a big-endian kernel */
#define TP_RB_PAD_ENDS_PAGE 2u /* padding with a delta of 0 is the rest of the page (live pages) */

/* The bits of the page's time stamp that a time stamp record leaves as they were. */
#define TP_RB_TS_MSB (0xf8ULL << 56)

/* One record, decoded as kbuffer's translate_data() does. */
struct tp_rb_rec {
	unsigned int type_len; /* 0..RB_TYPE_DATA_MAX data, else RB_TYPE_PADDING/_TIME_* */
	uint64_t delta;	       /* time delta (a time extend's whole), or a time stamp's value */
	uint32_t payload;      /* a data record's payload: its offset and bytes */
	uint32_t size;
	uint32_t next;	       /* offset of the record after it */
};

/*
 * The record at offset `off` of a page's data (commit bytes): NULL and *rec filled, or the
 * reason it is not a record whose every byte lies before commit (a data record's payload
 * is at least the 8-byte common header). flags: TP_RB_*.
 */
const char *tp_rb_decode(const unsigned char *data, uint32_t commit, uint32_t off,
			 unsigned int flags, struct tp_rb_rec *rec);

/* Does the record carry an event? (Else it is padding, a time extend or a time stamp.) */
static inline bool tp_rb_is_data(const struct tp_rb_rec *rec)
{
	return rec->type_len <= RB_TYPE_DATA_MAX;
}

/* The running clock after the record, from its value before it (as kbuffer keeps it). */
static inline void tp_rb_apply_time(const struct tp_rb_rec *rec, uint64_t *ts)
{
	if (rec->type_len == RB_TYPE_TIME_STAMP)
		*ts = rec->delta | (*ts & TP_RB_TS_MSB);
	else
		*ts += rec->delta;
}

/* ---- the page header, for pages from outside ---- */

/*
 * A page: u64 time stamp, a long (4 or 8 bytes, as the kernel's) of commit and flags, the
 * records (commit bytes), and when RB_MISSED_STORED is set, a long after them: the count of
 * events lost before the page.
 */
struct tp_rb_page {
	uint64_t ts;	  /* the page's time stamp: the clock before its first record */
	uint32_t data;	  /* offset of the records: the header's size, 8 + the long size */
	uint32_t commit;  /* bytes of records */
	bool missed;	  /* events were lost before the page (RB_MISSED_EVENTS) */
	bool counted;	  /* ... and their count is `lost` (RB_MISSED_STORED, inside the page) */
	uint64_t lost;	  /* that count as stored (a 4-byte long's zero-extended) */
};

/* What tp_rb_page_decode found; each reader picks its own policy for each. */
enum tp_rb_page_fault {
	TP_RB_PAGE_OK = 0,
	TP_RB_PAGE_LAYOUT,	 /* a long size other than 4 or 8, or a page smaller than its
				    header: nothing is filled */
	TP_RB_PAGE_COMMIT_PAST,	 /* commit is more than the page holds after its header; ts,
				    data and commit are filled, the records are not to be read */
	TP_RB_PAGE_COUNT_PAST,	 /* the lost-event count said to follow the records runs past
				    the page: all is filled, missed set and counted not */
};

/*
 * The header of a page of page_size bytes whose longs are long_size bytes, in the byte
 * order flags say (TP_RB_BIG_ENDIAN): *pg filled as the result says. Reads nothing outside
 * the page_size bytes at page.
 */
enum tp_rb_page_fault tp_rb_page_decode(const unsigned char *page, uint32_t page_size,
					unsigned int long_size, unsigned int flags,
					struct tp_rb_page *pg);

#endif
