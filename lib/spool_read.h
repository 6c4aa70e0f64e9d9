/* SPDX-License-Identifier: MIT */
/*
 * The spool reader (lib/spool_format.h): the one walk of a spool's chunks, the one decoding
 * of what each holds, the one iteration over records, and the one conversion of the raw
 * clock to CLOCK_MONOTONIC nanoseconds. Its users: the file writer (lib/tracedat.c, `tpoint
 * record` and --assemble), `tpoint stream` (tools/tpoint/stream.c) and the salvage of a
 * killed process's pages (lib/salvage.c, which walks the chunk headers of a file with
 * pread() and so uses tp_spool_chunk_span() and tp_spool_records_check() alone).
 *
 * A spool is the traced program's writing: nothing in it is trusted. Every size is checked
 * against the bytes there are before anything is read, and what cannot be read is said (a
 * line in the caller's buffer) and skipped.
 */
#ifndef TPOINT_SPOOL_READ_H
#define TPOINT_SPOOL_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clock.h"
#include "hidden.h"
#include "spool_format.h"

/*
 * Whether `len` bytes at `bytes` start with a spool header of this version: 0, or -1 with
 * the reason in `why` and the offset of what is wrong in *at.
 */
HIDDEN int tp_spool_header_check(const void *bytes, size_t len, size_t *at, char *why,
				 size_t whylen);

/* The bytes a chunk with this header takes, padding included, if `left` bytes (its header
 * included) hold it whole; else 0. */
static inline uint64_t tp_spool_chunk_span(const struct spool_chunk *c, uint64_t left)
{
	uint64_t span = sizeof(*c) + (((uint64_t)c->size + 7u) & ~(uint64_t)7u);

	return left >= sizeof(*c) && span <= left ? span : 0;
}

/*
 * The checksums (spool_format.h): of a file header, and of a chunk's header (its crc field
 * taken as 0) followed by its payload and padding, which may lie in two parts (a's alen
 * bytes, then b's blen). Writers store them, readers compare.
 */
HIDDEN uint32_t tp_spool_header_crc(const struct spool_file_header *h);
HIDDEN uint32_t tp_spool_chunk_crc(const struct spool_chunk *c, const void *a, size_t alen,
				   const void *b, size_t blen);

/*
 * Whether a chunk whose header is `c` and whose payload and padding are the span's rest, at
 * `body`, is as its writer wrote it: its size at most SPOOL_CHUNK_MAX (checked first; body
 * is not read then and may be NULL) and its checksum right. 0, or -1 with what is wrong in
 * `why`, the offset `off` of the chunk and `left`, the bytes from there on, put in it.
 */
HIDDEN int tp_spool_chunk_check(const struct spool_chunk *c, const void *body, uint64_t left,
				 char *why, size_t whylen);

/*
 * Whether the header of a chunk of records (SPOOL_RECORDS, SPOOL_PAGE, SPOOL_PAGE_PACKED) of
 * `size` payload bytes is sane: room for it, a CPU below SPOOL_MAX_CPUS, a page's range
 * that matches its bytes. 0, or -1 with the reason. `hdr` is NULL when size is too small.
 */
#define SPOOL_MAX_CPUS 4096u
HIDDEN int tp_spool_records_check(uint32_t type, const struct spool_records *hdr, uint32_t size,
				  char *why, size_t whylen);

/* What a chunk names, decoded and checked. */
struct spool_event_def { /* SPOOL_EVENT */
	uint16_t id;     /* at least TPOINT_FIRST_ID */
	const char *system, *name, *condition; /* printable ASCII */
	const char *format; /* the format text: printable ASCII, tabs, newlines; has "format:" */
};

struct spool_item {
	uint32_t type; /* enum spool_chunk_type */
	uint32_t size; /* of the payload */
	size_t off;    /* of the chunk's header in the bytes walked */
	const char *body;
	union {
		struct spool_event_def event;               /* SPOOL_EVENT */
		struct { uint32_t tid; const char *name; } comm; /* SPOOL_COMM */
		struct clock_sample clock;                  /* SPOOL_CLOCK */
		uint64_t synced;                            /* SPOOL_SYNCED */
		const struct spool_records *records;        /* SPOOL_RECORDS, SPOOL_PAGE(_PACKED) */
		size_t count; /* SPOOL_STATS, SPOOL_NOTES: struct spool_stat/spool_note at body;
			       * SPOOL_TRACING: clock readings after the u64 index at body */
	};
};

enum spool_step {
	SPOOL_STEP_CHUNK, /* a chunk whose payload is what its type says: *item */
	SPOOL_STEP_BAD,   /* a whole chunk whose payload is not, or of an unknown type: *item has
			   * its type, size and offset, `why` says what is wrong; skipped */
	SPOOL_STEP_END,   /* no byte after the last chunk */
	SPOOL_STEP_CUT,   /* bytes after the last whole chunk that are not one (`why`): a chunk
			   * still being written, or cut short; nothing after it can be found */
	SPOOL_STEP_DAMAGED, /* a chunk larger than any, or whose checksum is wrong (`why`, with
			     * its offset and the bytes from there to the end): nothing from
			     * there on is read, whatever more the file holds */
};

/*
 * The walk over a spool's bytes in memory: from `off` (the first chunk is at
 * sizeof(struct spool_file_header)), one chunk a call. `off` moves past each whole chunk; at
 * SPOOL_STEP_CUT and SPOOL_STEP_DAMAGED it stays where that chunk starts. `file_len`, if
 * not 0, is how many bytes the file has from where `bytes` starts (a reader may hold only a
 * window of it), for what is said of damage.
 */
struct spool_walk {
	const char *bytes;
	size_t len;
	size_t off;
	uint64_t file_len;
};
HIDDEN enum spool_step tp_spool_next(struct spool_walk *w, struct spool_item *item, char *why,
				     size_t whylen);

/* A chunk type's name, for what is said about it. */
HIDDEN const char *tp_spool_chunk_name(uint32_t type);

/*
 * The records of a SPOOL_RECORDS or a SPOOL_PAGE(_PACKED) chunk, one at a time: the drain
 * writes a page's bytes as they are or packed (cheapest for it), the salvage of a killed
 * process writes decoded records (SPOOL_RECORDS); readers take them all alike. A packed
 * chunk is unpacked into `unpacked` (SPOOL_UNPACKED_MAX bytes, the caller's), where the
 * records' payloads then are: they stay valid until it is reused.
 */
struct spool_iter {
	const char *p, *end;
	uint64_t clock; /* SPOOL_PAGE*: the running clock */
	int raw;
	bool damaged;   /* the chunk's header or packing is not right: no records */
};
HIDDEN void tp_spool_iter_init(struct spool_iter *it, uint32_t type, const char *body,
			       uint32_t size, char *unpacked);
/*
 * The next record: its clock, payload (at most TPOINT_MAX_PAYLOAD bytes, a multiple of 8) and
 * size; 0 at the end, or where the bytes are not ours: then p < end, or damaged, says so.
 */
HIDDEN int tp_spool_iter_next(struct spool_iter *it, uint64_t *clock, const char **data,
			      uint32_t *size);

/*
 * The records' raw clock to CLOCK_MONOTONIC ns, from the samples that pair them (SPOOL_CLOCK
 * chunks, and any a live reader takes itself): a straight line between the two samples
 * around the value; past either end, the line through the first and the last, the longest
 * baseline there is; with one sample, one tick a nanosecond from it (the rate is not known:
 * the order and the spacing of the records are kept); with none, or a spool whose clock is
 * CLOCK_MONOTONIC already ("mono"), the value itself.
 */
struct spool_clock {
	struct clock_sample *samples;
	size_t n, cap;
	size_t max;    /* 0, or at most this many kept: the first and the newer ones */
	bool identity; /* the records' clock is CLOCK_MONOTONIC ns */
	bool sorted;   /* samples in clock order, each clock once */
};
/* From a spool's header; `max` as above. */
HIDDEN void tp_spool_clock_init(struct spool_clock *c, const struct spool_file_header *h,
				size_t max);
/* A sample: 0, or -ENOMEM. */
HIDDEN int tp_spool_clock_add(struct spool_clock *c, struct clock_sample s);
HIDDEN uint64_t tp_spool_clock_ns(struct spool_clock *c, uint64_t raw);
HIDDEN void tp_spool_clock_free(struct spool_clock *c);

#endif
