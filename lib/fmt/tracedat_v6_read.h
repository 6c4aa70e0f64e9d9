/* SPDX-License-Identifier: MIT */
/*
 * tracedat_v6_read - trace.dat version 6's metadata, parsed and checked: the model of a
 * file (struct tracedat) and the one parser of the block grammar that tracedat_v6.h names.
 *
 * The file is untrusted: every size and offset is checked against the bytes that remain
 * (in uint64_t, so that no sum wraps) before it is used, and every text is checked for what
 * would make libtraceevent 1.7.1 misread or crash (format texts that are not printable
 * ASCII, formats whose common_type/common_pid differ from the kernel's, two formats with one
 * id, kallsyms/printk/cmdlines lines it would stop at). A damaged file is one line that
 * names the file, what is wrong and where.
 *
 * Its caller is the tool's reader (tools/tpoint/tracedat_read.c), which maps or reads the
 * file, makes a version 7 file's version 6 equivalent (tracedat_v7read.c), and checks and
 * walks the pages this parser found. Only libc.
 */
#ifndef TPOINT_FMT_TRACEDAT_V6_READ_H
#define TPOINT_FMT_TRACEDAT_V6_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tracedat_format.h" /* the option ids (TD_OPT_*), the ring-buffer constants */

/* Smallest page that holds a page header and an event; largest the commit field can count. */
#define TD6_PAGE_SIZE_MIN 64u
#define TD6_PAGE_SIZE_MAX (1u << 27)

/* A run of bytes inside the file; not NUL-terminated. */
struct td_text {
	const char *data;
	size_t len;
};

/* One event format (the text of a tracefs "format" file). */
struct td_format {
	const char *system; /* NUL-terminated, points into the file; "ftrace" for ftrace formats */
	struct td_text text;
	char *name;	    /* the "name:" line, owned by the reader */
	int id;		    /* the "ID:" line */
};

struct td_cmdline {
	int pid;
	char *comm; /* owned by the reader */
};

struct td_option {
	uint16_t id;
	uint32_t size;
	const unsigned char *data; /* points into the file */
	uint64_t offset;	   /* file offset of the data */
};

/* One CPU's pages in one buffer. */
struct td_cpu {
	uint64_t offset;    /* file offset of the first page; meaningless when size is 0 */
	uint64_t size;	    /* bytes of page data, a multiple of the page size; 0 = none */
	uint64_t nr_pages;  /* size / page size */
	uint64_t nr_events; /* data records, counted while validating */
	uint64_t nr_lost_pages; /* pages that say events were lost before them */
};

/* The top buffer (name "") or an instance (option BUFFER). */
struct td_buffer {
	char *name;	     /* owned by the reader */
	struct td_cpu *cpus; /* nr_cpus entries */
};

struct tracedat {
	const char *name;	   /* the file name used in messages */
	/* the whole file; version 7: its version 6 equivalent up to the pages */
	const unsigned char *data;
	size_t size;

	bool big_endian;
	unsigned int long_size;	  /* the file's "long" byte: tep long size */
	uint32_t page_size;
	unsigned int kernel_long; /* size of a page's commit word (header_page "commit") */
	unsigned int page_header; /* bytes before a page's data: 8 + kernel_long */

	struct td_text header_page;
	struct td_text header_event;
	struct td_format *formats; /* ftrace formats first, then the event systems' */
	size_t nr_formats;
	size_t nr_ftrace_formats;
	struct td_text kallsyms;
	struct td_text printk;
	struct td_text cmdlines_text;
	struct td_cmdline *cmdlines;
	size_t nr_cmdlines;

	uint32_t nr_cpus; /* after the CPUCOUNT option, as trace-cmd does */
	struct td_option *options; /* in file order */
	size_t nr_options;

	/*
	 * The trace clock: the name between brackets in the TRACECLOCK option
	 * and in the clock text after the flyrecord table (the latter wins),
	 * "" when the file names no clock.
	 */
	char clock[64];
	/*
	 * Timestamps are nanoseconds (printed as seconds) rather than raw
	 * clock units: no clock, a clock trace-cmd knows to be in ns, or TSC2NSEC.
	 */
	bool ts_in_ns;
	uint32_t tsc_mult, tsc_shift; /* TSC2NSEC; mult 0 = none */
	int64_t ts_offset;	      /* DATE (us, x1000) + OFFSET (ns) */

	struct td_buffer *buffers; /* [0] is the top buffer, then the instances */
	size_t nr_buffers;

	void *priv_; /* the reader's own allocations */
};

/*
 * The metadata of td->data (td->size bytes; td->name names it in messages), up to the pages:
 * the header, the blocks, the options and the flyrecord tables of every buffer, with each
 * CPU's page range checked against pages_end (the file's size, or a version 7 file's
 * version 6 size) and the others'. The pages themselves are not read. 0, or -1 with
 * "NAME: reason" in err; what was allocated is in td either way.
 */
int tp_tracedat_parse_meta(struct tracedat *td, uint64_t pages_end, char *err, size_t errlen);

/* The metadata blocks, in file order; version 7 holds each in a section of its own. */
enum td6_block {
	TD6_HEADER_INFO,
	TD6_FTRACE_EVENTS,
	TD6_EVENT_FORMATS,
	TD6_KALLSYMS,
	TD6_PRINTK,
	TD6_CMDLINES,
};
/* Where the walk of a block stopped short, for the caller's message. */
struct td6_short {
	enum { TD6_SHORT_BYTES, TD6_SHORT_TAG, TD6_SHORT_NUL } kind;
	size_t at;       /* the byte of the block it stopped at */
	uint64_t need;   /* TD6_SHORT_BYTES: the bytes needed there */
	const char *tag; /* TD6_SHORT_TAG: the tag expected there */
	uint32_t system; /* TD6_SHORT_NUL: the system whose name has no NUL */
};
/*
 * The length of block b at the start of p[0, len) (numbers in the big_endian order), its
 * sizes and counts followed but its texts not read: 0 and *blen, or -1 and *why. What the
 * version 7 reader cuts its sections' version 6 blocks with.
 */
int tp_td6_block_length(enum td6_block b, const unsigned char *p, size_t len, bool big_endian,
		     size_t *blen, struct td6_short *why);

/* "NAME: " and the message into err (the reader's form of every error); returns -1. */
__attribute__((format(printf, 4, 5))) int tp_tracedat_fail(const struct tracedat *td, char *err,
							  size_t errlen, const char *fmt, ...);

/* Whether the file's numbers need their bytes swapped here. */
static inline bool tracedat_swapped(const struct tracedat *td)
{
	return td->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
}

/*
 * Numbers in the file's byte order; p must have the bytes. Inline: the walks of the pages and
 * the conversions load a few from every record.
 */
static inline uint16_t tracedat_u16(const struct tracedat *td, const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return tracedat_swapped(td) ? __builtin_bswap16(v) : v;
}

static inline uint32_t tracedat_u32(const struct tracedat *td, const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return tracedat_swapped(td) ? __builtin_bswap32(v) : v;
}

static inline uint64_t tracedat_u64(const struct tracedat *td, const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return tracedat_swapped(td) ? __builtin_bswap64(v) : v;
}

#endif
