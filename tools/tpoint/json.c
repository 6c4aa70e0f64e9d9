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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert_backend.h"
#include "fmt/snapshot_fired.h"
#include "json.h"
#include "report_select.h"
#include "td_merge.h"
#include "tool.h"

/*
 * The output, gathered here and handed to stdio a buffer at a time (64 KiB for the JSON
 * lines): a line is some twenty pieces, and a stdio call for each cost more than all the
 * rest of the conversion.
 */
struct jout {
	FILE *f;
	size_t len, cap;
	char *buf;
};

static void jflush(struct jout *o)
{
	if (o->len)
		fwrite(o->buf, 1, o->len, o->f); /* its error is the stream's, seen by ferror() */
	o->len = 0;
}

static inline void jwrite(const void *p, size_t n, struct jout *o)
{
	if (o->len + n > o->cap) {
		jflush(o);
		if (n > o->cap) {
			fwrite(p, 1, n, o->f);
			return;
		}
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static inline void jputc(char c, struct jout *o)
{
	if (o->len == o->cap)
		jflush(o);
	o->buf[o->len++] = c;
}

static inline void jputs(const char *s, struct jout *o)
{
	jwrite(s, strlen(s), o);
}

__attribute__((format(printf, 2, 3))) static void jprintf(struct jout *o, const char *fmt, ...)
{
	char buf[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		jwrite(buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1, o);
}

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

/*
 * Text up to its first NUL (or n bytes), quoted: the one JSON string writer of the tool
 * (report --json, convert --to json, stat --json, top --json).
 *
 * Every line must parse, strictly, as JSON in UTF-8, whatever bytes a program or a file
 * name holds. A byte that is not part of valid UTF-8 is written as \u00XX, the Latin-1
 * character of that byte: it keeps the byte (U+FFFD would lose it), it is valid Unicode
 * (Python's surrogate escapes, \udcXX, are not, and strict parsers refuse them), and a name
 * in Latin-1 reads as itself. The one ambiguity, a parsed U+0080-U+00FF that was either
 * that character or a lone byte, is the price; report --json has always written this.
 * C1 controls (U+0080-U+009F) are escaped as well, as the same code point: JSON read on a
 * terminal then carries no control a terminal obeys.
 */
static void put_str(struct jout *f, const void *s, size_t n)
{
	const unsigned char *p = s;
	const unsigned char *nul = memchr(p, 0, n);

	if (nul)
		n = (size_t)(nul - p);
	jputc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		size_t l, run = i;

		/* the bytes that go out as they are, in one write: most text is all of them */
		while (run < n && p[run] >= 0x20 && p[run] < 0x7f && p[run] != '"' && p[run] != '\\')
			run++;
		if (run > i) {
			jwrite(p + i, run - i, f);
			i = run;
			continue;
		}
		if (c == '"' || c == '\\') {
			jputc('\\', f);
			jputc(c, f);
			i++;
		} else if (c == '\n') {
			jputs("\\n", f);
			i++;
		} else if (c == '\t') {
			jputs("\\t", f);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			jprintf(f, "\\u%04x", c);
			i++;
		} else if (c == 0xc2 && i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] < 0xa0) {
			/* a C1 control in UTF-8: the same code point, escaped */
			jprintf(f, "\\u%04x", p[i + 1]);
			i += 2;
		} else if ((l = utf8_len(p + i, n - i))) {
			jwrite(p + i, l, f);
			i += l;
		} else {
			/* a byte that is not UTF-8: its Latin-1 character, so the line parses */
			jprintf(f, "\\u%04x", c);
			i++;
		}
	}
	jputc('"', f);
}

void json_print_str(const char *s)
{
	char buf[512];
	struct jout o = { stdout, 0, sizeof(buf), buf };

	put_str(&o, s, strlen(s));
	jflush(&o);
}

/* A number in decimal, without printf's parsing of a format for every field. */
static void put_dec(struct jout *f, unsigned long long v, bool negative)
{
	char buf[24];
	size_t i = sizeof(buf);

	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (negative)
		buf[--i] = '-';
	jwrite(buf + i, sizeof(buf) - i, f);
}

static void put_int(struct jout *f, const struct conv_input *in, const unsigned char *p, uint32_t size,
		    bool is_signed)
{
	if (is_signed) {
		long long v = conv_sint(in, p, size);

		/* the magnitude of LLONG_MIN too: negated as unsigned */
		put_dec(f, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v, v < 0);
	} else {
		put_dec(f, (unsigned long long)conv_uint(in, p, size), false);
	}
}

static void put_ints(struct jout *f, const struct conv_input *in, const unsigned char *p,
		     uint32_t count, uint32_t elem, bool is_signed)
{
	jputc('[', f);
	for (uint32_t i = 0; i < count; i++) {
		if (i)
			jputc(',', f);
		put_int(f, in, p + (size_t)i * elem, elem, is_signed);
	}
	jputc(']', f);
}

static void put_fields(struct conv *cv, struct jout *f, struct conv_input *in, struct conv_event *ev,
		       const unsigned char *rec, uint32_t size)
{
	jputs("\"fields\":{", f);
	for (size_t i = 0; i < ev->nr_fields; i++) {
		const struct conv_field *fd = &ev->fields[i];
		uint32_t off, len;

		if (i)
			jputc(',', f);
		put_str(f, fd->name, strlen(fd->name));
		jputc(':', f);
		switch (fd->kind) {
		case CONV_INT:
			put_int(f, in, rec + fd->offset, fd->size, fd->is_signed);
			if (fd->syms) {
				char buf[512], key[300];
				const char *t = conv_sym_text(fd, conv_uint(in, rec + fd->offset,
									    fd->size),
							      buf, sizeof(buf));

				snprintf(key, sizeof(key), "%s_text", fd->name);
				jputc(',', f);
				put_str(f, key, strlen(key));
				jputc(':', f);
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
				jputs("null", f);
			} else if (fd->kind == CONV_STRING) {
				put_str(f, rec + off, len);
			} else {
				put_ints(f, in, rec + off, len / fd->elem_size, fd->elem_size,
					 fd->is_signed);
			}
			break;
		}
	}
	jputc('}', f);
}

/* Every input's CPUs (and instances) merged by time (td_merge.c): NULL when out of memory. */
static struct td_merge *merge_inputs(const struct conv *cv)
{
	struct td_merge *m = td_merge_new();

	for (size_t i = 0; m && i < cv->nr_in; i++)
		if (td_merge_add(m, &cv->in[i].td)) {
			td_merge_free(m);
			m = NULL;
		}
	if (m)
		td_merge_select(m, cv->keep, cv->keep_ctx);
	return m;
}

/*
 * What fired each input, if it is a snapshot trigger's file (its option, as `tpoint report`
 * shows it under cpus=): an array of nr_in, tid 0 where none did (no thread is 0).
 */
static struct snapshot_fired *fired_of_inputs(const struct conv *cv)
{
	struct snapshot_fired *fired = calloc(cv->nr_in, sizeof(*fired));

	for (size_t i = 0; fired && i < cv->nr_in; i++) {
		const struct td_option *o = tracedat_option(&cv->in[i].td, TD_OPT_TPOINT_SNAPSHOT);

		if (!o || tp_snapshot_fired_parse(o->data, o->size, &fired[i]))
			fired[i].tid = 0;
	}
	return fired;
}

/* Is this the record that fired its snapshot file? */
static bool fired_this(const struct snapshot_fired *f, const struct td_merge_rec *r, int pid,
		       const struct conv_event *ev)
{
	size_t n = strlen(ev->system);

	return f->tid && r->ts == f->ns && pid == (int)f->tid && !strncmp(f->event, ev->system, n) &&
	       f->event[n] == ':' && !strcmp(f->event + n + 1, ev->name);
}

int json_write(struct conv *cv, FILE *out, const char *outname)
{
	struct td_merge *m;
	struct td_merge_rec r;
	struct jout *f;
	struct snapshot_fired *fired;

	if (conv_check_pages(cv))
		return -1;
	m = merge_inputs(cv);
	f = malloc(sizeof(*f) + (1 << 16));
	fired = fired_of_inputs(cv);
	if (!m || !f || !fired) {
		td_merge_free(m);
		free(f);
		free(fired);
		tool_error(cv->verb, "out of memory");
		return -1;
	}
	f->f = out;
	f->len = 0;
	f->cap = 1 << 16;
	f->buf = (char *)(f + 1);
	while (td_merge_next(m, &r)) {
		struct conv_input *in = &cv->in[r.file];
		struct conv_event *ev = conv_event(cv, in, r.data, r.size);
		const char *comm;
		int pid;

		if (!ev)
			break;
		pid = conv_pid(in, r.data);
		comm = conv_comm(in, pid);
		jputs("{\"ts\":", f);
		put_dec(f, r.ts, false);
		jputs(",\"cpu\":", f);
		put_dec(f, r.cpu, false);
		jputs(",\"pid\":", f);
		put_dec(f, pid < 0 ? 0ULL - (unsigned long long)pid : (unsigned long long)pid,
			pid < 0);
		jputs(",\"comm\":", f);
		put_str(f, comm, strlen(comm));
		jputs(",\"system\":", f);
		put_str(f, ev->system, strlen(ev->system));
		jputs(",\"event\":", f);
		put_str(f, ev->name, strlen(ev->name));
		jputc(',', f);
		if (ev->raw || r.size < ev->min_size) {
			jputs("\"fields\":{},\"raw\":", f);
			put_ints(f, in, r.data, r.size, 1, false);
		} else {
			put_fields(cv, f, in, ev, r.data, r.size);
		}
		if (r.missed > 0)
			jprintf(f, ",\"dropped\":%lld", r.missed);
		else if (r.missed < 0)
			jputs(",\"dropped\":null", f);
		if (r.buffer) {
			const char *b = in->td.buffers[r.buffer].name;

			jputs(",\"buffer\":", f);
			put_str(f, b, strlen(b));
		}
		if (cv->nr_in > 1) {
			jputs(",\"file\":", f);
			put_str(f, in->file, strlen(in->file));
		}
		if (fired_this(&fired[r.file], &r, pid, ev))
			jputs(",\"snapshot_fired\":true", f);
		jputs("}\n", f);
		ev->count++;
		if (conv_tick(cv)) {
			td_merge_free(m);
			free(f);
			free(fired);
			return -1;
		}
		if (ferror(out))
			break;
	}
	td_merge_free(m);
	free(fired);
	conv_progress_end(cv);
	jflush(f);
	free(f);
	if (fflush(out) || ferror(out)) {
		tool_error(cv->verb, "%s: writing: %s", outname, strerror(errno));
		return -1;
	}
	return 0;
}

/* The selection compiled for the inputs' formats, and kept by the merge: 0, or -1 (said). */
static int report_select_inputs(struct conv *cv, struct rsel *sel)
{
	for (size_t i = 0; i < cv->nr_in; i++)
		if (rsel_add_file(sel, cv->verb, &cv->in[i].td, cv->in[i].file))
			return -1;
	cv->keep = rsel_keep;
	cv->keep_ctx = sel;
	return rsel_prepare(sel, cv->verb) ? -1 : 0;
}

int json_report(const char *verb, char **files, size_t nr, struct rsel *sel)
{
	struct conv cv;
	int ret;

	if (conv_open(&cv, verb, files, nr))
		return EXIT_FAIL;
	cv.progress = false; /* stdout is the report; its progress would only be in the way */
	if (sel && report_select_inputs(&cv, sel)) {
		conv_close(&cv);
		return EXIT_FAIL;
	}
	ret = json_write(&cv, stdout, "standard output");
	ret = ret || cv.problems ? EXIT_FAIL : EXIT_OK;
	/* nothing selected is nothing matched (said), whatever else went right */
	if (sel && rsel_end(sel, verb) != EXIT_OK)
		ret = EXIT_FAIL;
	conv_close(&cv);
	return ret;
}
