/* SPDX-License-Identifier: MIT */
/*
 * The ring-buffer record codec: the kernel's record headers (type_len, time delta, array) and
 * time extends, as tpoint writes them and reads them back. One place for every user: the
 * writer's slow path (lib/writer.c; the hot path writes its data header with
 * tpoint_record_header(), include/tpoint/event.h, which this shares), the packer
 * (lib/pack.c), the page reader (lib/ringbuf.c, lib/spool_read.c) and the trace.dat writer
 * (lib/tracedat.c). The constants are lib/tracedat_format.h's.
 *
 * tpoint writes two kinds of record, each 8-byte aligned:
 *	data		u32 delta << 5 | 0, u32 length + 4, then the payload (a multiple of 8)
 *	time extend	u32 (delta & 0x7ffffff) << 5 | 30, u32 delta >> 27: the delta is added to
 *			the running clock, and the next record's own delta counts from there
 * The tool's reader of any trace.dat (tools/tpoint/tracedat_read.c) also reads the kernel's
 * other forms, as libtraceevent's kbuffer does.
 */
#ifndef TPOINT_RINGBUF_H
#define TPOINT_RINGBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <tpoint/event.h>
#include "tracedat_format.h"

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

/* ---- the page reader (lib/ringbuf.c) ---- */

/*
 * Decode the records of one ring-buffer page (its data area), bytes `from` up to `commit`,
 * into spool records at `out` (room for 2 * (commit - from) bytes is enough: a page record of
 * 8 + n bytes becomes 16 + n). *clock is the running clock at `from` and is advanced; the
 * offset where decoding stopped goes to *stopped (commit, unless the page holds something
 * that is not a tpoint record). Returns the bytes written to out. The salvage of a killed
 * process writes its SPOOL_RECORDS chunks with it.
 */
__attribute__((visibility("hidden"))) size_t tp_page_decode(const char *data, uint32_t from,
							    uint32_t commit, uint64_t *clock,
							    char *out, uint32_t *stopped);

/* The running clock after `len` bytes of a page's records, from its value before them. */
__attribute__((visibility("hidden"))) uint64_t tp_page_clock_after(const char *bytes, uint32_t len,
								   uint64_t clock);

#endif
