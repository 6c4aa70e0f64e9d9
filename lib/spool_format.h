/* SPDX-License-Identifier: MIT */
/*
 * The spool: what the drain thread appends while a program records, and what becomes
 * trace.dat at the end. A sequence of chunks, each complete in itself, so that a spool cut
 * short by a crash or SIGKILL is still readable up to its last whole chunk.
 *
 *	file header	struct spool_file_header
 *	chunks		struct spool_chunk + payload, padded to 8 bytes
 *
 * Records keep the hot path's raw clock; SPOOL_CLOCK chunks pair it with CLOCK_MONOTONIC.
 * SPOOL_PAGE chunks hold ring-buffer records (lib/fmt/rb_record.h, lib/tracedat_format.h).
 * Read by lib/spool_read.h, the one reader: the file writer, `tpoint stream` and the salvage.
 * Version 3: the drain writes pages' bytes as they are (SPOOL_PAGE) instead of decoding them.
 * Version 4: or packed (SPOOL_PAGE_PACKED, lib/pack.h), where the CPU packs fast enough.
 * Version 5: packed a word at a time, with a length for each instead of a bit for each byte;
 * on every CPU, in plain C where it has no vector packer (the same bytes either way).
 * Version 6: a CRC32C (lib/crc32c.h) in the file header and in each chunk's header. A spool
 * handed to root's tool is another user's writing, and one flipped bit made a different
 * file with no word said; now no damage goes unseen, and a reader stops at the first
 * damaged chunk: its size may be the damaged part, so nothing after it can be found.
 * A new chunk type needs no new version (SPOOL_SYNCED, SPOOL_NOTES came within 5): a reader
 * skips a type it does not know. A changed layout of a known one does.
 */
#ifndef TPOINT_SPOOL_FORMAT_H
#define TPOINT_SPOOL_FORMAT_H

#include <stdbool.h>
#include <stdint.h>

#define SPOOL_MAGIC "TPSPOOL"
#define SPOOL_VERSION 6

struct spool_file_header {
	char magic[8]; /* SPOOL_MAGIC with its NUL */
	uint32_t version;
	uint32_t pid;
	char clock_name[16]; /* TPOINT_ARCH_CLOCK_NAME */
	uint32_t crc;      /* CRC32C of this header with crc 0 (since version 6) */
	uint32_t reserved; /* 0 */
};

enum spool_chunk_type {
	SPOOL_EVENT = 1,   /* u16 id, u16 0, then system\0 name\0 condition\0 format\0 */
	SPOOL_COMM = 2,    /* u32 tid, then comm\0 */
	SPOOL_CLOCK = 3,   /* u64 raw clock, u64 CLOCK_MONOTONIC ns */
	SPOOL_RECORDS = 4, /* struct spool_records, then spool_record + payload, ... */
	SPOOL_STATS = 5,   /* struct spool_stat[] */
	SPOOL_END = 6,     /* the recording ended cleanly */
	SPOOL_PAGE = 7,    /* struct spool_records, then the page's own bytes start_off..end_off */
	SPOOL_PAGE_PACKED = 8, /* struct spool_records, then those bytes packed (lib/pack.h)
				* with the lag in .lag */
	/*
	 * u64 raw clock: every record committed before that reading is in a chunk before this
	 * one (a live spool writes one after each pass). A live reader prints up to it in time
	 * order; the file writer checks its size and passes over it.
	 */
	SPOOL_SYNCED = 9,
	SPOOL_NOTES = 10,  /* struct spool_note[]: per event, what the counts do not say; the
			    * last one counts */
	/*
	 * u64 index, then u64 raw clocks: the process's tracing_on switches from that index
	 * on (lib/tracing_on.h: off at even indexes, on at odd ones); the records between an
	 * off and the next on are left out of the trace.dat.
	 */
	SPOOL_TRACING = 11,
};

/*
 * What a reader takes (lib/spool_read.c): a chunk whose size runs past the bytes there are
 * hides everything after it, and so does one larger than SPOOL_CHUNK_MAX or whose checksum
 * is not right (damage: the rest of the file is not read); a whole chunk whose payload is not what its type says is
 * skipped, and so is one of an unknown type. An event chunk's id is at least TPOINT_FIRST_ID
 * and its texts printable ASCII (the format also tabs and newlines, and a "format:" line);
 * a thread name chunk has a NUL after the tid; clock and synced chunks are 16 and 8 bytes;
 * counts and notes whole structs; a chunk of records has its header, a CPU below 4096, and a
 * SPOOL_PAGE's start_off..end_off is as long as its bytes.
 */
struct spool_chunk {
	uint32_t type;
	uint32_t size; /* payload bytes, without this header and without the padding */
	uint32_t crc;  /* CRC32C of this header with crc 0, the payload and its padding */
	uint32_t reserved; /* 0 */
};

/*
 * The most payload a chunk has: the writer's buffer takes whole chunks of 256 KiB at most
 * (lib/spool_out.c), and a page referenced after one adds a page. A chunk that says more is
 * damage, found before its bytes are read: a reader holds a chunk whole, and a file may
 * claim anything (one sparse file of a gigabyte of zeros cost nothing to make).
 */
#define SPOOL_CHUNK_MAX (1u << 20)

struct spool_records {
	uint32_t cpu;
	uint32_t tid;
	uint32_t level;
	uint32_t start_off;   /* the records came from bytes start_off..end_off of the page */
	uint64_t seq;         /* page order within the thread's pages */
	uint64_t lost_before; /* events of this stream lost just before these */
	uint64_t gen;         /* the page's generation: which use of the page this was */
	uint32_t end_off;
	uint32_t lag;         /* SPOOL_PAGE_PACKED: the packing's lag; else 0 */
	uint64_t clock;       /* SPOOL_PAGE*: the page's running clock at start_off */
};

/* The most bytes a SPOOL_PAGE(_PACKED) chunk unpacks to: a page's data area, rounded up. */
#define SPOOL_UNPACKED_MAX 4096u

struct spool_record {
	uint64_t clock;
	uint32_t size; /* payload bytes (common header included), a multiple of 8 */
	uint32_t reserved;
};

/* An event the runtime refused, or whose records were too big for a page. */
#define SPOOL_NOTE_REFUSED 1u /* its print format cannot be rendered: it stays off */
#define SPOOL_NOTE_REG_FAILED 2u /* its TRACE_EVENT_FN reg() returned reg_error: it stays off */
struct spool_note {
	uint16_t id;
	uint16_t flags;   /* SPOOL_NOTE_* */
	int32_t reg_error; /* SPOOL_NOTE_REG_FAILED: what reg() returned; else 0 */
	uint64_t too_big; /* records larger than TPOINT_MAX_PAYLOAD: dropped, counted lost */
};

struct spool_stat {
	uint16_t id;
	uint16_t reserved[3];
	uint64_t cond_skipped;
	uint64_t filtered;
	uint64_t recorded;
	uint64_t lost;
};

#endif
