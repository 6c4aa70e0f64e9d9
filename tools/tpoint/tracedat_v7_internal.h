/* SPDX-License-Identifier: MIT */
/*
 * tracedat_v7_internal - what the two halves of the version 7 reader share: the model of a
 * file read (its options, buffers, CPUs and chunks), the checked reads of its bytes, and
 * the messages. tracedat_v7read.c reads the sections, options and buffers and checks them;
 * tracedat_v7copy.c makes the version 6 copy of the metadata (through lib/fmt/tracedat_v6.h)
 * and gives its pages, a chunk decompressed when asked for. Not for other files.
 */
#ifndef TPOINT_TRACEDAT_V7_INTERNAL_H
#define TPOINT_TRACEDAT_V7_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "codec.h"
#include "growbuf.h"
#include "tracedat_v7.h"

/*
 * The largest uncompressed metadata section and page chunk accepted (a kernel's kallsyms is
 * some MB; trace-cmd and tpoint compress 10 pages a chunk): what a damaged size may cost. A
 * chunk may hold 4 MiB or 64 pages, whichever is more: each CPU being read keeps one.
 */
#define MAX_SECTION (256u << 20)
#define MAX_CHUNK (4u << 20)
#define MAX_CHUNK_PAGES 64u
/* CPU numbers: the kernel's NR_CPUS is at most 8192; the copy's tables have one entry each. */
#define MAX_CPUS 65536u
/* Options sections chained by DONE: a loop in the chain stops here. */
#define MAX_OPTION_SECTIONS 4096
/*
 * A file's declared expansion (every section and chunk at its uncompressed size) may be at
 * most MAX_RATIO times the file, or MIN_BOUND whatever the ratio: zstd turns 43 KB into
 * 1 GiB of zeros, and the copy would fill $TMPDIR with them. Trace pages compress 5 to 30
 * times (tests/v7bomb.sh measures a recording of identical events); what is refused is
 * refused before anything is decompressed or written.
 */
#define MAX_RATIO 256u
#define MIN_BOUND (64ull << 20)

#define TD7_OPT_DONE 0
#define TD7_OPT_BUFFER_TEXT 22
#define TD7_OPT_BTF_FILE 23
#define TD7_OPT_MODULES_FILE 25
#define NR_META (TD7_SEC_CMDLINES - TD7_SEC_HEADER_INFO + 1)

extern const char *const td7_meta_name[NR_META];

struct opt7 {
	uint16_t id;
	uint32_t size;
	unsigned char *data; /* a copy: the section it came from may be freed */
};

/* A compressed chunk of a CPU's pages. */
struct chunk7 {
	uint64_t in;	     /* offset of its compressed bytes in the input */
	uint32_t csize, usize;
	uint64_t out;	     /* offset of its pages among the CPU's */
};

struct cpu7 {
	uint32_t cpu;
	uint64_t offset, size; /* in the input */
	uint64_t expanded;     /* bytes of pages */
	uint64_t out;	       /* offset in the copy */
	const struct buf7 *buf;
	struct chunk7 *chunks; /* a compressed buffer's */
	uint32_t nchunks;
	/*
	 * The chunk read last, decompressed: a reader walks a CPU's pages in order, so one
	 * chunk each is what the walks of every CPU at once (report's merge) need.
	 */
	unsigned char *cache;
	size_t cache_cap;
	int64_t cached; /* its index, -1: none */
};

struct buf7 {
	char *name, *clock;
	uint64_t section; /* offset of its BUFFER section */
	bool compressed;
	struct cpu7 *cpus;
	uint32_t ncpus;
	uint64_t table_patch; /* instances: where the copy's BUFFER option holds its offset */
};

struct v7 {
	const unsigned char *data;
	size_t size;
	bool be;
	unsigned char long_size;
	uint32_t page_size;
	char codec_name[64];
	struct tp_codec codec;
	bool has_codec;

	bool has_meta[NR_META];
	uint64_t meta_off[NR_META];
	struct opt7 *opts;
	size_t nopts, opts_cap;
	struct buf7 *bufs;
	size_t nbufs;
	uint32_t ncpus;

	/* the copy: its bytes up to the first page, in memory; the pages stay in the input */
	struct tp_growbuf head;
	uint64_t out_off; /* bytes handed to td7_put() */
	struct cpu7 **by_out; /* the CPUs with pages, in the copy's order */
	size_t nby_out;
	char fault[512];      /* why the last page could not be had */
	uint64_t declared; /* bytes the sections and chunks seen so far expand to */

	char *err;
	size_t errlen;
};


/* A section's body: in the input, or decompressed (owned, to free). */
struct body {
	const unsigned char *p;
	size_t len;
	unsigned char *owned; /* decompressed: to free */
};

/* One line into v->err; returns -1. */
__attribute__((format(printf, 2, 3))) int td7_fail(struct v7 *v, const char *fmt, ...);
/* Numbers in the file's byte order. */
uint16_t td7_rd16(const struct v7 *v, const unsigned char *p);
uint32_t td7_rd32(const struct v7 *v, const unsigned char *p);
uint64_t td7_rd64(const struct v7 *v, const unsigned char *p);
void td7_wr32(const struct v7 *v, unsigned char *p, uint32_t x);
void td7_wr64(const struct v7 *v, unsigned char *p, uint64_t x);
/* Are n bytes there at offset off of the input? td7_need() says what is not, of what. */
bool td7_have(const struct v7 *v, uint64_t off, uint64_t n);
int td7_need(struct v7 *v, uint64_t off, uint64_t n, const char *what);
/* Counts n more bytes the file declares uncompressed; refuses a decompression bomb. */
__attribute__((format(printf, 4, 5))) int td7_declare(struct v7 *v, uint64_t n, uint64_t at,
						       const char *fmt, ...);
/* The body of the section at offset at, decompressed when its flags say so. */
int td7_section_body(struct v7 *v, uint64_t at, uint16_t want_id, const char *what,
		     uint16_t *flags_out, struct body *b);
/* An option kept for the copy (a copy of its data). */
int td7_keep_option(struct v7 *v, uint16_t id, const unsigned char *data, uint32_t size);
const struct opt7 *td7_find_option(const struct v7 *v, uint16_t id);
const struct buf7 *td7_top_buffer(const struct v7 *v);

/* The copy (tracedat_v7copy.c): bytes put at its end, and the copy made whole. */
int td7_put(struct v7 *v, const void *p, size_t n);
int td7_put32(struct v7 *v, uint32_t x);
int td7_put64(struct v7 *v, uint64_t x);
int td7_put_zeros(struct v7 *v, uint64_t n);
int td7_patch64(struct v7 *v, uint64_t at, uint64_t x);
int td7_write_copy(struct v7 *v);

#endif
