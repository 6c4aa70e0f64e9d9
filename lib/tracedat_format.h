/* SPDX-License-Identifier: MIT */
/*
 * The ids and constants of the files tpoint writes and reads, besides the spool's own
 * (lib/spool_format.h): trace.dat version 6 (docs/TRACEDAT-FORMAT.md) and the kernel's
 * ring-buffer pages, the layout of tpoint's pool pages, of SPOOL_PAGE chunks and of the
 * pages of trace.dat alike. Each is defined here and nowhere else: the file writer
 * (lib/tracedat.c), the record codec (lib/fmt/rb_record.h) and the tool's strict reader
 * (tools/tpoint/tracedat_read.c) take them from here.
 */
#ifndef TPOINT_TRACEDAT_FORMAT_H
#define TPOINT_TRACEDAT_FORMAT_H

#include <tpoint/event.h> /* TPOINT_TYPE_LEN_BITS, TPOINT_DELTA_BITS: the record header */

/* ---- trace.dat ---- */

/* The file starts with these 10 bytes, then the version as a NUL-terminated string. */
#define TD_MAGIC "\x17\x08\x44" "tracing"
#define TD_MAGIC_LEN 10
#define TD_VERSION "6"

/* Option ids of the options block (u16 id, u32 size, data; id 0 ends it). */
#define TD_OPT_DATE 1
#define TD_OPT_BUFFER 3
#define TD_OPT_TRACECLOCK 4
#define TD_OPT_OFFSET 7
#define TD_OPT_CPUCOUNT 8
#define TD_OPT_TIME_SHIFT 13
#define TD_OPT_TSC2NSEC 14
/*
 * tpoint's own ("tp" in ASCII); trace-cmd skips options it does not know.
 * STATS: "system:name\thits\tcond_skipped\tfiltered\trecorded\tlost\tcondition\n"..., a NUL.
 * NOTES: what the counts do not say, "system:name\ttoo_big\trefused\n"..., a NUL; refused is
 * 0, 1 (its print format cannot be rendered) or "reg N" (its reg() returned N).
 */
#define TD_OPT_TPOINT_STATS 0x7470
#define TD_OPT_TPOINT_NOTES 0x7471
/*
 * KERNEL: the kernel's own counts of a recording with kernel events (tpoint record -k), one
 * line per CPU, "cpu\tentries\toverrun\tcommit_overrun\tdropped\tread\n" (per_cpu/cpuN/stats
 * of its tracefs instance at the end), then a NUL.
 */
#define TD_OPT_TPOINT_KERNEL 0x7472
/*
 * SNAPSHOT: a snapshot trigger's file, what fired it: "system:name\tns\ttid\n" and a NUL,
 * ns the firing record's time (CLOCK_MONOTONIC, as the records'), tid its thread.
 */
#define TD_OPT_TPOINT_SNAPSHOT 0x7473

/*
 * The file's id of ftrace:user_stack, the user stacks the library records (lib/ustack.h),
 * written in the ftrace formats as the kernel's own: the kernel's TRACE_USER_STACK (from
 * 2.6.30 to 6.12; the kernel's events start above its ftrace types, spools' at
 * TPOINT_FIRST_ID). The next id stays free: trace-cmd gives user_stack's id + 1 to a
 * blktrace event of its own (tracecmd_blk_hack()), which took over the event that had it.
 */
#define TD_ID_USER_STACK 12
#define TD_ID_AFTER_USER_STACK 13

/* ---- ring-buffer pages: u64 time stamp, u64 commit, then the records ---- */

/* The commit word: the bytes of records, and flags above them. */
#define RB_COMMIT_MASK ((1u << 27) - 1)
#define RB_MISSED_EVENTS (1ull << 31) /* events were lost before this page */
#define RB_MISSED_STORED (1ull << 30) /* ... and their count is the long after the records */

/*
 * A record's first u32: type_len in its low TPOINT_TYPE_LEN_BITS bits, the time delta in the
 * TPOINT_DELTA_BITS above (named in include/tpoint/event.h, for the hot path that writes
 * them). type_len 0: a data record whose length + 4 is the u32 that follows; 1..28: a data
 * record of type_len * 4 bytes; 29..31 below.
 */
#define RB_TYPE_LEN_MASK ((1u << TPOINT_TYPE_LEN_BITS) - 1)
#define RB_TYPE_DATA_MAX 28
#define RB_TYPE_PADDING 29     /* u32 length from itself: bytes to skip */
#define RB_TYPE_TIME_EXTEND 30 /* u32 array: the delta's bits above TPOINT_DELTA_BITS */
#define RB_TYPE_TIME_STAMP 31  /* u32 array: an absolute time's bits above TPOINT_DELTA_BITS */

#endif
