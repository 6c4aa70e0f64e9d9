/* SPDX-License-Identifier: MIT */
/*
 * tracedat_out - the output file being written: through a buffer, checked before each
 * write to still be the file opened (the program recorded may close it: ownfile.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "filter.h"
#include "growbuf.h"
#include "ringbuf.h"
#include "tracedat_format.h"
#include "tracedat_v7.h"
#include "tracedat_writer.h"

/* ---- writing ---- */


/*
 * Still the file we opened? A program writing its recording at exit may have closed the
 * descriptor from another thread, or opened a file of its own that took the number: then
 * the file is opened again by its name, if it still is the same file.
 */
bool tp_tdw_out_file_ours(struct out_file *f)
{
	int dfd;

	if (tp_ownfd_intact(&f->file))
		return true;
	if (f->file.fd >= 0 && f->place && (dfd = tp_outplace_dir(f->place)) >= 0 &&
	    tp_ownfd_reopen_at(&f->file, dfd, f->name, (off_t)f->done) == 0)
		return true;
	f->file.fd = -1; /* not ours: forgotten, never closed */
	f->error = EBADF;
	return false;
}

static void out_write_through(struct out_file *f, const char *p, size_t len)
{
	while (len && !f->error && tp_tdw_out_file_ours(f)) {
		ssize_t n = write(f->file.fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			f->error = n < 0 ? errno : EIO;
			return;
		}
		p += n;
		len -= (size_t)n;
		f->done += (uint64_t)n;
	}
}

void tp_tdw_out_flush(struct out_file *f)
{
	out_write_through(f, f->buf, f->used);
	f->used = 0;
}

void tp_tdw_out_write(struct out_file *f, const void *buf, size_t len)
{
	f->off += len;
	if (f->mem) {
		tp_growbuf_add(f->mem, buf, len);
		return;
	}
	if (!f->buf) {
		out_write_through(f, buf, len);
		return;
	}
	if (f->used + len > OUT_BUF)
		tp_tdw_out_flush(f);
	if (len >= OUT_BUF) {
		out_write_through(f, buf, len);
		return;
	}
	memcpy(f->buf + f->used, buf, len);
	f->used += len;
}

/* Bytes written before, written again (offsets and sizes known only later). */
void tp_tdw_out_patch(struct out_file *f, uint64_t off, const void *p, size_t len)
{
	tp_tdw_out_flush(f);
	if (!f->error && tp_tdw_out_file_ours(f) && pwrite(f->file.fd, p, len, (off_t)off) != (ssize_t)len)
		f->error = errno ? errno : EIO;
}

static void out_bytes(void *ctx, const void *p, size_t n)
{
	tp_tdw_out_write(ctx, p, n);
}

/* The file through the serialiser of version 6's blocks (lib/fmt/tracedat_v6.h). */
struct td6_out tp_tdw_out_v6(struct out_file *f)
{
	return (struct td6_out){ .write = out_bytes, .ctx = f };
}

void tp_tdw_out_pad_to_page(struct out_file *f)
{
	static const char zeros[TPOINT_PAGE_SIZE];
	uint64_t pad = (TPOINT_PAGE_SIZE - f->off % TPOINT_PAGE_SIZE) % TPOINT_PAGE_SIZE;

	tp_tdw_out_write(f, zeros, (size_t)pad);
}

/* The version 7 writer's io: the file, through its buffer. */
void tp_tdw_out_td7_write(void *ctx, const void *p, size_t n)
{
	tp_tdw_out_write(ctx, p, n);
}

void tp_tdw_out_td7_patch(void *ctx, uint64_t off, const void *p, size_t n)
{
	tp_tdw_out_patch(ctx, off, p, n);
}

uint64_t tp_tdw_out_td7_offset(void *ctx)
{
	return ((struct out_file *)ctx)->off;
}

