/* SPDX-License-Identifier: MIT */
/*
 * JSON lines (convert.h): one object per record, all inputs merged by time, for jq, Python
 * and pandas. The keys are documented in tpoint(1):
 *
 *	{"ts":NS,"cpu":N,"pid":N,"comm":"...","system":"...","event":"...","fields":{...}}
 *
 * with "dropped":N after a loss (null: an unknown number), "buffer":"NAME" for an instance's
 * records, "file":"NAME" when several files are read, and "raw":[bytes] instead of fields
 * for a record no format describes. Numbers are numbers, text is text (bytes that are not
 * UTF-8 become \u00XX, so every line parses), arrays are arrays, and a __print_symbolic or
 * __print_flags field also has "<field>_text", as the report shows it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "tool.h"

/* The length of the valid UTF-8 sequence at p (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	/* no overlong forms, no surrogates, nothing past U+10FFFF */
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/* Text up to its first NUL (or n bytes), quoted. */
static void put_str(FILE *f, const void *s, size_t n)
{
	const unsigned char *p = s;
	const unsigned char *nul = memchr(p, 0, n);

	if (nul)
		n = (size_t)(nul - p);
	putc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		size_t l;

		if (c == '"' || c == '\\') {
			putc('\\', f);
			putc(c, f);
			i++;
		} else if (c == '\n') {
			fputs("\\n", f);
			i++;
		} else if (c == '\t') {
			fputs("\\t", f);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			i++;
		} else if ((l = utf8_len(p + i, n - i))) {
			fwrite(p + i, 1, l, f);
			i += l;
		} else {
			/* a byte that is not UTF-8: its Latin-1 character, so the line parses */
			fprintf(f, "\\u%04x", c);
			i++;
		}
	}
	putc('"', f);
}

static void put_int(FILE *f, const struct conv_input *in, const unsigned char *p, uint32_t size,
		    bool is_signed)
{
	if (is_signed)
		fprintf(f, "%lld", conv_sint(in, p, size));
	else
		fprintf(f, "%llu", (unsigned long long)conv_uint(in, p, size));
}

static void put_ints(FILE *f, const struct conv_input *in, const unsigned char *p,
		     uint32_t count, uint32_t elem, bool is_signed)
{
	putc('[', f);
	for (uint32_t i = 0; i < count; i++) {
		if (i)
			putc(',', f);
		put_int(f, in, p + (size_t)i * elem, elem, is_signed);
	}
	putc(']', f);
}

static void put_fields(struct conv *cv, FILE *f, struct conv_input *in, struct conv_event *ev,
		       const unsigned char *rec, uint32_t size)
{
	fputs("\"fields\":{", f);
	for (size_t i = 0; i < ev->nr_fields; i++) {
		const struct conv_field *fd = &ev->fields[i];
		uint32_t off, len;

		if (i)
			putc(',', f);
		put_str(f, fd->name, strlen(fd->name));
		putc(':', f);
		switch (fd->kind) {
		case CONV_INT:
			put_int(f, in, rec + fd->offset, fd->size, fd->is_signed);
			if (fd->syms) {
				char buf[512], key[300];
				const char *t = conv_sym_text(fd, conv_uint(in, rec + fd->offset,
									    fd->size),
							      buf, sizeof(buf));

				snprintf(key, sizeof(key), "%s_text", fd->name);
				putc(',', f);
				put_str(f, key, strlen(key));
				putc(':', f);
				put_str(f, t, strlen(t));
			}
			break;
		case CONV_CHARS:
			put_str(f, rec + fd->offset, fd->count);
			break;
		case CONV_ARRAY:
		case CONV_BYTES:
			put_ints(f, in, rec + fd->offset, fd->count, fd->elem_size, fd->is_signed);
			break;
		case CONV_STRING:
		case CONV_SEQ:
			if (conv_loc(in, fd, rec, size, &off, &len)) {
				conv_problem(cv, in, ev, "event %s:%s: field %s points outside its "
					     "record; it converts as null", ev->system, ev->name,
					     fd->name);
				fputs("null", f);
			} else if (fd->kind == CONV_STRING) {
				put_str(f, rec + off, len);
			} else {
				put_ints(f, in, rec + off, len / fd->elem_size, fd->elem_size,
					 fd->is_signed);
			}
			break;
		}
	}
	putc('}', f);
}

int json_write(struct conv *cv, FILE *f, const char *outname)
{
	struct conv_merge *m;
	struct conv_rec r;

	if (conv_check_pages(cv))
		return -1;
	m = conv_merge_new(cv);
	if (!m) {
		tool_error(cv->verb, "out of memory");
		return -1;
	}
	while (conv_merge_next(m, &r)) {
		struct conv_event *ev = conv_event(cv, r.in, r.data, r.size);
		const char *comm;
		int pid;

		if (!ev)
			break;
		pid = conv_pid(r.in, r.data);
		comm = conv_comm(r.in, pid);
		fprintf(f, "{\"ts\":%" PRIu64 ",\"cpu\":%" PRIu32 ",\"pid\":%d,\"comm\":", r.ts,
			r.cpu, pid);
		put_str(f, comm, strlen(comm));
		fputs(",\"system\":", f);
		put_str(f, ev->system, strlen(ev->system));
		fputs(",\"event\":", f);
		put_str(f, ev->name, strlen(ev->name));
		putc(',', f);
		if (ev->raw || r.size < ev->min_size) {
			fputs("\"fields\":{},\"raw\":", f);
			put_ints(f, r.in, r.data, r.size, 1, false);
		} else {
			put_fields(cv, f, r.in, ev, r.data, r.size);
		}
		if (r.missed > 0)
			fprintf(f, ",\"dropped\":%lld", r.missed);
		else if (r.missed < 0)
			fputs(",\"dropped\":null", f);
		if (r.buffer) {
			const char *b = r.in->td.buffers[r.buffer].name;

			fputs(",\"buffer\":", f);
			put_str(f, b, strlen(b));
		}
		if (cv->nr_in > 1) {
			fputs(",\"file\":", f);
			put_str(f, r.in->file, strlen(r.in->file));
		}
		fputs("}\n", f);
		ev->count++;
		if (conv_tick(cv)) {
			conv_merge_free(m);
			return -1;
		}
		if (ferror(f))
			break;
	}
	conv_merge_free(m);
	conv_progress_end(cv);
	if (fflush(f) || ferror(f)) {
		tool_error(cv->verb, "%s: writing: %s", outname, strerror(errno));
		return -1;
	}
	return 0;
}

int json_report(const char *verb, char **files, size_t nr)
{
	struct conv cv;
	int ret;

	if (conv_open(&cv, verb, files, nr))
		return EXIT_FAIL;
	cv.progress = false; /* stdout is the report; its progress would only be in the way */
	ret = json_write(&cv, stdout, "standard output");
	ret = ret || cv.problems ? EXIT_FAIL : EXIT_OK;
	conv_close(&cv);
	return ret;
}
