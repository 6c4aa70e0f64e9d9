/* SPDX-License-Identifier: MIT */
/*
 * tracedat_read - a strict reader of trace-cmd trace.dat version 6 files.
 *
 * The whole file is validated when it is opened: every section, every option,
 * the flyrecord table, every page header and every ring-buffer event in every
 * page.  After a successful open, walking the pages (with tracedat_next_event()
 * or with libtraceevent's kbuffer) cannot go out of bounds or loop, so the
 * renderer needs no checks of its own.  Any damage is reported as one line that
 * names the file, what is wrong and where.
 *
 * The layout is trace-cmd.dat.v6(5) (tpoint's part: docs/TRACEDAT-FORMAT.md), the v6 format as
 * trace-cmd 3.1.6 reads it.  Little and big endian files, kernel longs of 4 and
 * 8 bytes, any page size from 64 bytes to 128 MiB, and v6 instance buffers
 * (option BUFFER) are read.  Version 7 files (compressed or not) are read as
 * their version 6 equivalent (tracedat_v7read.h): td->data holds its bytes up to
 * the pages, made in memory, and each page is had through tracedat_page() or
 * tracedat_read_pages(), which decompress its chunk when it is asked for.  Beyond
 * the layout, the reader refuses what would make
 * libtraceevent 1.7.1 misread or crash: format texts that are not printable
 * ASCII, formats whose common_type/common_pid differ from the kernel's, two
 * formats with one id, kallsyms/printk/cmdlines lines it would stop at.
 *
 * Error convention: functions returning int give 0 on success and -1 on
 * failure, with the reason in the caller's buffer.
 */
#ifndef TPOINT_TRACEDAT_READ_H
#define TPOINT_TRACEDAT_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
/* The file's model (struct tracedat) and its metadata's parser; the option ids, the
 * ring-buffer constants (tracedat_format.h). */
#include "fmt/tracedat_v6_read.h"

/*
 * Open and validate the file at path.  On failure, err holds "PATH: reason"
 * (one line) and nothing needs closing.  Regular files are mapped, others
 * (pipes) read into memory.
 */
int tracedat_open(struct tracedat *td, const char *path, char *err, size_t errlen);

/*
 * tracedat_open() but for the pages: everything up to the page ranges is validated, the pages'
 * contents are not (nr_events and nr_lost_pages stay 0), so that a one-pass reader of a big
 * file does not walk it twice. Such a reader reads the pages with tracedat_read_pages() and
 * walks each with tracedat_page_begin() and tracedat_page_next(), which check what they give;
 * tracedat_check_pages() makes the file what tracedat_open() returns.
 */
int tracedat_open_unchecked(struct tracedat *td, const char *path, char *err, size_t errlen);
/* Every page checked and counted, as tracedat_open() does; 0, or -1 with the reason in err. */
int tracedat_check_pages(struct tracedat *td, char *err, size_t errlen);
struct td_event;
/* A page being read by tracedat_page_next(), which checks each record before it gives it. */
struct td_page {
	const unsigned char *data; /* the records, after the page header */
	uint32_t commit;	   /* their bytes */
	uint32_t off;		   /* the next one's */
	uint64_t ts;		   /* raw clock value of the last one given */
	long long missed;	   /* lost before the page: 0 none, -1 unknown, else the count */
	size_t buffer;		   /* which page, for the messages */
	uint32_t cpu;
	uint64_t n;
};
/*
 * Page n of a CPU, read into page (td->page_size bytes), its header checked: 0 and *pg set
 * to walk it, or -1 with the reason (naming the page) in err.
 */
int tracedat_page_begin(const struct tracedat *td, size_t buffer, uint32_t cpu, uint64_t n,
			const unsigned char *page, struct td_page *pg, char *err, size_t errlen);
/*
 * The page's next record, checked as tracedat_open() checks it: 1 and *ev filled (missed as
 * the cursor's), 0 at the page's end, or -1 with the reason (naming the page) in err.
 */
int tracedat_page_next(const struct tracedat *td, struct td_page *pg, struct td_event *ev,
		       char *err, size_t errlen);
/*
 * Pages [first, first + n) of a CPU into buf (n * page_size bytes): copied by pread(2) from
 * a file opened unchecked (in a VM, first touching a mapping costs far more than copying
 * from the page cache), else from td->data. 0, or -1 with the reason in err.
 */
int tracedat_read_pages(const struct tracedat *td, size_t buffer, uint32_t cpu, uint64_t first,
			uint64_t n, void *buf, char *err, size_t errlen);

/*
 * Validate the size bytes at data (which must stay valid until close), as
 * tracedat_open does for a file; name is used in messages.  For fuzzers and
 * tests.
 */
int tracedat_parse(struct tracedat *td, const char *name, const void *data, size_t size,
		   char *err, size_t errlen);

void tracedat_close(struct tracedat *td);

/*
 * Checks that every REC->name in the format's print fmt is one of its fields.
 * libtraceevent 1.7.1 crashes parsing __print_flags(REC->missing, ...) or
 * __print_symbolic(REC->missing, ...) (trace-cmd report does too) and prints
 * 0 for REC->missing elsewhere; such a format must not be given to it.
 * 0, or -1 with the reason in why.
 */
int tracedat_check_print_fields(const struct td_format *f, char *why, size_t len);

/* The first option with this id, or NULL. */
const struct td_option *tracedat_option(const struct tracedat *td, uint16_t id);

/*
 * Page n of a CPU in a buffer (already validated), or NULL if out of range. In a version 7
 * file it points into the chunk of that CPU decompressed last: valid until the next page of
 * another chunk of the same CPU and buffer is asked for (a walk of each CPU at a time, as the
 * cursors and report's merge do, holds one page of each).
 */
const unsigned char *tracedat_page(const struct tracedat *td, size_t buffer, uint32_t cpu,
				   uint64_t n);

/* The size of the version 6 file td reads (a version 7 file's version 6 equivalent). */
uint64_t tracedat_v6_size(const struct tracedat *td);
/* Bytes [off, off + len) of that version 6 file into buf: 0, or -1 with the reason in err. */
int tracedat_read_v6(const struct tracedat *td, uint64_t off, size_t len, void *buf,
		     char *err, size_t errlen);

/*
 * A raw clock value as trace-cmd shows it: TSC2NSEC applied, then the DATE
 * and OFFSET options added.
 */
uint64_t tracedat_ts(const struct tracedat *td, uint64_t raw);

/* One data record, as libtraceevent's kbuffer would give it. */
struct td_event {
	uint64_t ts;		   /* raw clock value (see tracedat_ts) */
	const unsigned char *data; /* payload: common_type first */
	uint32_t size;		   /* payload bytes, >= 8 */
	/*
	 * Events lost before this one: 0 none, -1 unknown count, else the
	 * count.  Set only on the page's first record when it starts the page,
	 * which is when trace-cmd shows it.
	 */
	long long missed;
};

/* Walks one CPU's records in file order. */
struct td_cursor {
	const struct tracedat *td;
	const struct td_cpu *cpu;
	size_t buffer;
	uint32_t cpu_nr;
	uint64_t page;	 /* the page being read */
	uint32_t off;	 /* offset of the next event in the page's data */
	uint32_t commit; /* data bytes of the page */
	uint64_t ts;
	long long page_missed;
	bool loaded;
};

void tracedat_cursor_init(struct td_cursor *c, const struct tracedat *td, size_t buffer,
			  uint32_t cpu);
/* 1 and *ev filled, or 0 at the end of the CPU's data. */
int tracedat_next_event(struct td_cursor *c, struct td_event *ev);

#endif
