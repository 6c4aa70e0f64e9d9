// SPDX-License-Identifier: MIT
/*
 * tpoint convert --to v6|v7 - trace.dat between its two versions.
 *
 * --to v6: the file as the reader holds it after its checks: a version 6 file is copied, a
 * version 7 one is its version 6 copy (tracedat_v7read.c), uncompressed, the pages
 * page-aligned as trace-cmd maps them.
 *
 * --to v7: the reader's blocks handed to the writer of version 7 (lib/tracedat_v7.h), the
 * metadata blocks as they were, every option but the version 6 ones that describe the
 * layout, the pages CPU by CPU, compressed. The writer makes one buffer little-endian: a
 * file with instances or in big-endian order is refused rather than changed.
 *
 * Both go through conv_write_file(): a temporary name beside OUT, renamed when complete.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec.h"
#include "convert_backend.h"
#include "fmt/tracedat_v6.h"
#include "growbuf.h"
#include "tool.h"
#include "tracedat_v7.h"

#define VERB "convert"
/* Pages handed to the writer at a time (and the progress line's step). */
#define PAGES_AT_ONCE 256

struct out7 {
	int fd;
	const char *name;
	uint64_t off;	     /* bytes written so far, the buffer's included */
	unsigned char buf[1 << 16];
	size_t used;
	int error;	     /* the first errno */
};

static void out7_flush(struct out7 *o)
{
	size_t done = 0;

	while (!o->error && done < o->used) {
		ssize_t n = pwrite(o->fd, o->buf + done, o->used - done,
				   (off_t)(o->off - o->used + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			o->error = n < 0 ? errno : EIO;
		else
			done += (size_t)n;
	}
	o->used = 0;
}

static void out7_write(void *ctx, const void *p, size_t n)
{
	struct out7 *o = ctx;
	const unsigned char *b = p;

	while (n) {
		size_t k = sizeof(o->buf) - o->used;

		if (k > n)
			k = n;
		memcpy(o->buf + o->used, b, k);
		o->used += k;
		o->off += k;
		b += k;
		n -= k;
		if (o->used == sizeof(o->buf))
			out7_flush(o);
	}
}

static void out7_patch(void *ctx, uint64_t off, const void *p, size_t n)
{
	struct out7 *o = ctx;

	out7_flush(o);
	if (!o->error && pwrite(o->fd, p, n, (off_t)off) != (ssize_t)n)
		o->error = errno ? errno : EIO;
}

static uint64_t out7_offset(void *ctx)
{
	return ((struct out7 *)ctx)->off;
}

/* Metadata blocks are gathered in growbuf.h buffers, numbers little-endian (the writer's). */
static void block_add(void *ctx, const void *p, size_t n)
{
	tp_growbuf_add(ctx, p, n);
}

static void block_text(const struct td6_out *o, unsigned int size_bytes, const struct td_text *t)
{
	tp_td6_put_text(o, size_bytes, t->data, t->len);
}

/* The version 6 block of metadata section id, rebuilt from what the reader kept. */
static void build_block(const struct tracedat *td, uint16_t id, struct tp_growbuf *b)
{
	struct td6_out o = { .write = block_add, .ctx = b };
	size_t i, n;

	switch (id) {
	case TD7_SEC_HEADER_INFO:
		tp_td6_put_header_info(&o, td->header_page.data, td->header_page.len,
				    td->header_event.data, td->header_event.len);
		break;
	case TD7_SEC_FTRACE_EVENTS:
		tp_td6_put_u32(&o, (uint32_t)td->nr_ftrace_formats);
		for (i = 0; i < td->nr_ftrace_formats; i++)
			block_text(&o, TD6_FORMAT_SIZE_BYTES, &td->formats[i].text);
		break;
	case TD7_SEC_EVENT_FORMATS:
		/* the systems as the file listed them: a run of formats shares its name's bytes */
		n = 0;
		for (i = td->nr_ftrace_formats; i < td->nr_formats; i++)
			if (i == td->nr_ftrace_formats ||
			    td->formats[i].system != td->formats[i - 1].system)
				n++;
		tp_td6_put_u32(&o, (uint32_t)n);
		for (i = td->nr_ftrace_formats; i < td->nr_formats;) {
			const char *system = td->formats[i].system;
			size_t j = i;

			while (j < td->nr_formats && td->formats[j].system == system)
				j++;
			tp_td6_put_system(&o, system, (uint32_t)(j - i));
			for (; i < j; i++)
				block_text(&o, TD6_FORMAT_SIZE_BYTES, &td->formats[i].text);
		}
		break;
	case TD7_SEC_KALLSYMS:
		block_text(&o, TD6_KALLSYMS_SIZE_BYTES, &td->kallsyms);
		break;
	case TD7_SEC_PRINTK:
		block_text(&o, TD6_PRINTK_SIZE_BYTES, &td->printk);
		break;
	case TD7_SEC_CMDLINES:
		block_text(&o, TD6_CMDLINES_SIZE_BYTES, &td->cmdlines_text);
		break;
	}
}

/* Options of version 6 that version 7 says otherwise (its sections and buffers): not copied. */
static bool layout_option(uint16_t id)
{
	return id == 0 || id == TD_OPT_BUFFER || (id >= TD7_SEC_STRINGS && id <= 23) || id == 25;
}

struct v7_job {
	struct tracedat td;
	const char *in;
	struct tp_codec codec;
};

static int write_v7(int fd, const char *out, void *arg)
{
	struct v7_job *job = arg;
	const struct tracedat *td = &job->td;
	struct out7 *o = calloc(1, sizeof(*o));
	struct td7_io io = { o, out7_write, out7_patch, out7_offset };
	struct conv cv = { .verb = VERB, .progress = isatty(STDERR_FILENO) };
	struct td7_writer *w;
	unsigned char *pages = NULL;
	char err[1024];
	int ret = 0;

	if (!o) {
		tool_error(VERB, "out of memory");
		return -1;
	}
	o->fd = fd;
	o->name = out;
	w = tp_td7_start(&io, &job->codec, td->page_size);
	if (!w) {
		free(o);
		tool_error(VERB, "out of memory");
		return -1;
	}
	if (td->long_size != sizeof(long)) {
		/* the header's long size, byte 13: the file's, not this host's */
		unsigned char ls = (unsigned char)td->long_size;

		out7_patch(o, TD_MAGIC_LEN + 3, &ls, 1);
	}
	for (uint16_t id = TD7_SEC_HEADER_INFO; !ret && id <= TD7_SEC_CMDLINES; id++) {
		struct tp_growbuf b = { 0 };

		build_block(td, id, &b);
		ret = b.oom ? -ENOMEM : tp_td7_section(w, id, b.p, b.len);
		free(b.p);
	}
	if (!ret && !tracedat_option(td, TD_OPT_CPUCOUNT))
		ret = tp_td7_option(w, TD_OPT_CPUCOUNT, &td->nr_cpus, 4);
	for (size_t i = 0; !ret && i < td->nr_options; i++)
		if (!layout_option(td->options[i].id))
			ret = tp_td7_option(w, td->options[i].id, td->options[i].data,
					    td->options[i].size);
	for (uint32_t cpu = 0; !ret && cpu < td->nr_cpus; cpu++)
		cv.total += td->buffers[0].cpus[cpu].nr_pages;
	pages = malloc((size_t)PAGES_AT_ONCE * td->page_size);
	if (!pages)
		ret = -ENOMEM;
	for (uint32_t cpu = 0; !ret && cpu < td->nr_cpus; cpu++) {
		const struct td_cpu *c = &td->buffers[0].cpus[cpu];

		for (uint64_t p = 0; !ret && p < c->nr_pages; p += PAGES_AT_ONCE) {
			uint64_t n = c->nr_pages - p < PAGES_AT_ONCE ? c->nr_pages - p :
								       PAGES_AT_ONCE;

			/* copied: a version 7 input's pages are in its chunks, not in a row */
			if (tracedat_read_pages(td, 0, cpu, p, n, pages, err, sizeof(err))) {
				tool_error(VERB, "%s", err);
				tp_td7_abort(w);
				free(pages);
				free(o);
				return -1;
			}
			ret = tp_td7_cpu_data(w, cpu, pages, (size_t)(n * td->page_size));
			cv.done += n - 1;
			if (!ret && conv_tick(&cv)) {
				tp_td7_abort(w);
				free(pages);
				free(o);
				return -1;
			}
		}
	}
	free(pages);
	conv_progress_end(&cv);
	if (ret) {
		tp_td7_abort(w);
	} else {
		ret = tp_td7_finish(w, td->clock[0] ? td->clock : "local", NULL, NULL);
		out7_flush(o);
	}
	if (!ret && o->error)
		ret = -o->error;
	if (ret)
		tool_error(VERB, "%s: %s", out, ret == -ENOMEM ? "out of memory" :
			   ret == -EIO ? "compression failed" : strerror(-ret));
	free(o);
	return ret ? -1 : 0;
}

/* The version 6 file is the reader's own: every byte as it holds them (a version 7 input's
 * version 6 equivalent, its pages decompressed a chunk at a time). */
static int write_v6(int fd, const char *out, void *arg)
{
	const struct tracedat *td = arg;
	uint64_t total = tracedat_v6_size(td), done = 0;
	size_t step = 1u << 20;
	char *buf = malloc(step), err[1024];

	if (!buf) {
		tool_error(VERB, "out of memory");
		return -1;
	}
	while (done < total) {
		size_t k = total - done < step ? (size_t)(total - done) : step, put = 0;

		if (tracedat_read_v6(td, done, k, buf, err, sizeof(err))) {
			tool_error(VERB, "%s", err);
			free(buf);
			return -1;
		}
		while (put < k) {
			ssize_t n = write(fd, buf + put, k - put);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				tool_error(VERB, "%s: writing: %s", out, n < 0 ? strerror(errno) :
					   "short write");
				free(buf);
				return -1;
			}
			put += (size_t)n;
		}
		done += k;
	}
	free(buf);
	return 0;
}

int convert_tracedat(const char *in, const char *to, const char *compress, const char *out,
		     bool force)
{
	struct v7_job job = { .in = in };
	char err[1024];
	const char *name;
	int level, ret;

	if (!strcmp(to, "v7")) {
		if (tp_codec_parse(compress ? compress : "", &name, &level, err, sizeof(err))) {
			tool_error(VERB, "--compress=%s: %s", compress, err);
			return EXIT_USAGE;
		}
		if (tp_codec_open(&job.codec, name, level, err, sizeof(err))) {
			tool_error(VERB, "%s", err);
			return EXIT_FAIL;
		}
	}
	if (tracedat_open(&job.td, in, err, sizeof(err))) {
		tool_error(VERB, "%s", err);
		ret = EXIT_FAIL;
	} else if (!strcmp(to, "v6")) {
		ret = conv_write_file(out, force, write_v6, &job.td) ? EXIT_FAIL : EXIT_OK;
	} else if (job.td.big_endian) {
		tool_error(VERB, "%s: big-endian; --to v7 writes little-endian files only", in);
		ret = EXIT_FAIL;
	} else if (job.td.nr_buffers > 1) {
		tool_error(VERB, "%s: has buffer instances ('%s'...); --to v7 writes the top buffer "
			   "only", in, job.td.buffers[1].name);
		ret = EXIT_FAIL;
	} else {
		ret = conv_write_file(out, force, write_v7, &job) ? EXIT_FAIL : EXIT_OK;
	}
	if (job.td.data)
		tracedat_close(&job.td);
	if (job.codec.lib)
		tp_codec_close(&job.codec);
	return ret;
}
