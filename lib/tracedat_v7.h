/* SPDX-License-Identifier: MIT */
/*
 * tracedat_v7.c: trace.dat version 7 with compressed sections, written in one pass (the
 * layout: docs/TRACEDAT-FORMAT.md). Its caller hands it what a version 6 file holds, block
 * by block: the writer of recordings (lib/tracedat.c) as it makes them, `tpoint convert`
 * from a file it read.
 *
 * The order of calls: tp_td7_start(); tp_td7_section() for each metadata block and
 * tp_td7_option() for each option, in any order; then the CPUs' pages with tp_td7_cpu_data(),
 * CPU by CPU in increasing order; tp_td7_finish(). Errors are the io's (its write and
 * patch keep them) or -ENOMEM.
 */
#ifndef TPOINT_TRACEDAT_V7_H
#define TPOINT_TRACEDAT_V7_H

#include <stddef.h>
#include <stdint.h>
#include "codec.h"
#include "hidden.h"

/* Section ids of version 7: the options ids that hold the sections' offsets. */
#define TD7_SEC_OPTIONS 0
#define TD7_SEC_BUFFER 3      /* a buffer's CPU data (option BUFFER describes it) */
#define TD7_SEC_STRINGS 15
#define TD7_SEC_HEADER_INFO 16 /* "header_page\0" u64 len text "header_event\0" u64 len text */
#define TD7_SEC_FTRACE_EVENTS 17
#define TD7_SEC_EVENT_FORMATS 18
#define TD7_SEC_KALLSYMS 19
#define TD7_SEC_PRINTK 20
#define TD7_SEC_CMDLINES 21
#define TD7_FLAG_COMPRESSED 1
/* The pages of a CPU's data are compressed this many at a time (as trace-cmd does). */
#define TD7_PAGES_PER_CHUNK 10

struct td7_io {
	void *ctx;
	void (*write)(void *ctx, const void *p, size_t n);
	/* Rewrite n bytes at offset off, already written (and flushed by it if it buffers). */
	void (*patch)(void *ctx, uint64_t off, const void *p, size_t n);
	uint64_t (*offset)(void *ctx); /* bytes written so far */
};

struct td7_writer;

HIDDEN struct td7_writer *tp_td7_start(const struct td7_io *io, const struct tp_codec *codec,
				       uint32_t page_size);
/* A metadata block as version 6 has it (its body, after nothing: no size of its own). */
HIDDEN int tp_td7_section(struct td7_writer *t, uint16_t id, const void *body, size_t len);
HIDDEN int tp_td7_option(struct td7_writer *t, uint16_t id, const void *data, uint32_t len);
/* More pages of CPU cpu (len a multiple of the page size); CPUs in increasing order. */
HIDDEN int tp_td7_cpu_data(struct td7_writer *t, uint32_t cpu, const void *pages, size_t len);
/* The last CPU's pages out, the options (with BUFFER for the pages, clock `clock`), the header's
 * offset of them patched; frees t. The data written per CPU: bytes in, bytes out. */
HIDDEN int tp_td7_finish(struct td7_writer *t, const char *clock, uint64_t *in_bytes,
			 uint64_t *out_bytes);
/* Stops without a file (an error elsewhere): frees t. */
HIDDEN void tp_td7_abort(struct td7_writer *t);

#endif
