/* SPDX-License-Identifier: MIT */
/*
 * tracedat_v7read - trace.dat version 7 (trace-cmd.dat.v7(5): sections found through options,
 * compressed with zstd or zlib or not at all) read as the version 6 file that holds the same
 * metadata, options and pages. The strict version 6 reader (tracedat_read.c) checks that
 * version 6 equivalent as it checks any file.
 *
 * Only its bytes up to the first page are made, in memory (the metadata, the options and the
 * flyrecord tables: bounded by the metadata sections). The pages stay in the input: a page is
 * found by its offset in the version 6 equivalent, and its compressed chunk decompressed
 * when it is asked for, one chunk kept per CPU. Nothing is expanded on disk, and a file that
 * declares more than a sane ratio of its size uncompressed is refused before anything is
 * decompressed (a decompression bomb).
 */
#ifndef TPOINT_TRACEDAT_V7READ_H
#define TPOINT_TRACEDAT_V7READ_H

#include <stddef.h>
#include <stdint.h>

struct td7;

/* Is this file (its first size bytes) a version 7 trace.dat? */
int td7_is_v7(const void *data, size_t size);

/*
 * Reads the version 7 file at data (size bytes, which must stay valid until td7_close()):
 * *head gets the version 6 equivalent's bytes up to its first page (malloc'd, *head_len
 * bytes, the caller's to free), *size6 the size of the whole version 6 equivalent. The
 * handle, or NULL with one line in err that says what is wrong and at which offset of the
 * input.
 */
struct td7 *td7_open(const void *data, size_t size, unsigned char **head, size_t *head_len,
		     uint64_t *size6, char *err, size_t errlen);

/*
 * The page at offset off of the version 6 equivalent: its bytes, valid until the next
 * td7_page() or td7_read() of the same CPU of the same buffer, or td7_close(). NULL when it
 * cannot be had (td7_fault() says why: a chunk that does not decompress to its size).
 */
const unsigned char *td7_page(struct td7 *t, uint64_t off);

/* Bytes [off, off + len) of the pages of the version 6 equivalent into buf: 0, or -1. */
int td7_read(struct td7 *t, uint64_t off, size_t len, void *buf);

/* Why the last td7_page() or td7_read() failed (one line, offsets of the input). */
const char *td7_fault(const struct td7 *t);

void td7_close(struct td7 *t);

#endif
