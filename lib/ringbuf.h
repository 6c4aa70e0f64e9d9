/* SPDX-License-Identifier: MIT */
/*
 * The page reader of the runtime: the records of tpoint's own ring-buffer pages. The record
 * codec itself (headers, time extends, the trusted tp_rb_next() used here and the strict
 * decoder for bytes from outside) is lib/fmt/rb_record.h; this header still brings it to its
 * users in lib/ (lib/writer.c, lib/pack.c, lib/spool_read.c, lib/tracedat.c).
 */
#ifndef TPOINT_RINGBUF_H
#define TPOINT_RINGBUF_H

#include <stddef.h>
#include <stdint.h>
#include "fmt/rb_record.h"

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
