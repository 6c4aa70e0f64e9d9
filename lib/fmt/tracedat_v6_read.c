// SPDX-License-Identifier: MIT
/*
 * tracedat_v6_read - trace.dat version 6's metadata parsed and checked: see
 * tracedat_v6_read.h (and tracedat_v6.h for the grammar).
 *
 * Everything is checked once, against the file size: a reader that trusts sizes and offsets
 * found in a file is a reader that a damaged or hostile file can crash. All arithmetic on
 * values taken from the file is done in uint64_t against the bytes that remain, so no
 * addition can wrap.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracedat_v6.h"
#include "tracedat_v6_read.h"
#include "tracefs_format.h"

struct rd {
	struct tracedat *td;
	uint64_t off;
	char *err;
	size_t errlen;
	size_t formats_cap;
	uint64_t pages_end; /* where the pages must end: the file's size, or version 7's copy's */
};

int tp_tracedat_fail(const struct tracedat *td, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err || !errlen)
		return -1;
	n = snprintf(err, errlen, "%s: ", td->name ? td->name : "trace.dat");
	if (n < 0 || (size_t)n >= errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

#define fail(r, ...) tp_tracedat_fail((r)->td, (r)->err, (r)->errlen, __VA_ARGS__)

static uint64_t remaining(const struct rd *r)
{
	return r->td->size - r->off;
}

/* Checks that n bytes are left; what names them for the message. */
static int need(struct rd *r, uint64_t n, const char *what)
{
	if (n > remaining(r))
		return fail(r, "truncated: %s needs %" PRIu64 " bytes at offset %" PRIu64
			       ", file has %zu", what, n, r->off, r->td->size);
	return 0;
}

static int get_u16(struct rd *r, uint16_t *v, const char *what)
{
	if (need(r, 2, what))
		return -1;
	*v = tracedat_u16(r->td, r->td->data + r->off);
	r->off += 2;
	return 0;
}

static int get_u32(struct rd *r, uint32_t *v, const char *what)
{
	if (need(r, 4, what))
		return -1;
	*v = tracedat_u32(r->td, r->td->data + r->off);
	r->off += 4;
	return 0;
}

static int get_u64(struct rd *r, uint64_t *v, const char *what)
{
	if (need(r, 8, what))
		return -1;
	*v = tracedat_u64(r->td, r->td->data + r->off);
	r->off += 8;
	return 0;
}

/* A size-prefixed block: the size (4 or 8 bytes), then that many bytes. */
static int get_block(struct rd *r, unsigned int size_bytes, struct td_text *t, const char *what)
{
	uint64_t len;

	if (size_bytes == 8) {
		if (get_u64(r, &len, what))
			return -1;
	} else {
		uint32_t l32;

		if (get_u32(r, &l32, what))
			return -1;
		len = l32;
	}
	if (need(r, len, what))
		return -1;
	t->data = (const char *)r->td->data + r->off;
	t->len = (size_t)len;
	r->off += len;
	return 0;
}

/* A NUL-terminated string of at most max bytes (NUL excluded). */
static int get_string(struct rd *r, const char **s, size_t max, const char *what)
{
	const char *p = (const char *)r->td->data + r->off;
	uint64_t left = remaining(r);
	const char *nul = memchr(p, '\0', left < max + 1 ? left : max + 1);

	if (!nul) {
		if (left <= max)
			return fail(r, "truncated: %s at offset %" PRIu64 " has no terminating NUL",
				    what, r->off);
		return fail(r, "%s at offset %" PRIu64 " is longer than %zu bytes", what, r->off,
			    max);
	}
	*s = p;
	r->off += (uint64_t)(nul - p) + 1;
	return 0;
}

/* Names that end up in messages and on report lines: visible ASCII only. */
static bool visible_name(const char *s)
{
	for (; *s; s++)
		if (*s < 0x21 || *s > 0x7e)
			return false;
	return true;
}

static int expect(struct rd *r, const char *tag, size_t len, const char *what)
{
	if (need(r, len, what))
		return -1;
	if (memcmp(r->td->data + r->off, tag, len))
		return fail(r, "expected %s at offset %" PRIu64, what, r->off);
	r->off += len;
	return 0;
}

/* A field's offset and size in a text of the file (tp_tracefs_field_layout()). */
static int layout(const struct td_text *t, const char *name, unsigned long *offset,
		  unsigned long *size)
{
	return tp_tracefs_field_layout(t->data, t->len, name, offset, size);
}

static int parse_header_page(struct rd *r)
{
	struct tracedat *td = r->td;
	unsigned long ts_off, ts_size, c_off, c_size, d_off, d_size;

	if (!td->header_page.len)
		return fail(r, "header_page is empty (libtraceevent would then decode no event)");
	if (layout(&td->header_page, "timestamp", &ts_off, &ts_size) ||
	    layout(&td->header_page, "commit", &c_off, &c_size) ||
	    layout(&td->header_page, "data", &d_off, &d_size))
		return fail(r, "header_page lacks one of the fields timestamp, commit, data");
	if (ts_off != 0 || ts_size != 8)
		return fail(r, "header_page: timestamp is %lu bytes at %lu, expected 8 at 0",
			    ts_size, ts_off);
	if (c_off != 8 || (c_size != 4 && c_size != 8))
		return fail(r, "header_page: commit is %lu bytes at %lu, expected 4 or 8 at 8",
			    c_size, c_off);
	/* kbuffer puts the data right after the commit word, whatever the text says */
	if (d_off != 8 + c_size)
		return fail(r, "header_page: data is at offset %lu, expected %lu", d_off,
			    8 + c_size);
	td->kernel_long = (unsigned int)c_size;
	td->page_header = (unsigned int)d_off;
	return 0;
}

/* "name: NAME\nID: N\n" at the start of a format text. */
static int format_header(struct rd *r, struct td_format *f, const char *where)
{
	struct tracefs_header h;
	enum tracefs_header_error e = tp_tracefs_parse_header(f->text.data, f->text.len, &h);

	if (e == TRACEFS_HEADER_NO_NAME)
		return fail(r, "%s does not start with \"name: \"", where);
	if (e == TRACEFS_HEADER_BAD_NAME)
		return fail(r, "%s: bad \"name:\" line", where);
	f->name = strndup(h.name, h.name_len);
	if (!f->name)
		return fail(r, "out of memory");
	if (!visible_name(f->name))
		return fail(r, "%s: the event name has a byte that is not visible ASCII", where);
	if (e == TRACEFS_HEADER_NO_ID)
		return fail(r, "%s (%s): no \"ID:\" line after the name", where, f->name);
	if (e == TRACEFS_HEADER_BAD_ID)
		return fail(r, "%s (%s): bad ID (event ids are 0..65535)", where, f->name);
	f->id = (int)h.id;
	return 0;
}

/*
 * libtraceevent finds every record's event id and pid where the first format
 * it parsed puts common_type and common_pid: all formats must agree with the
 * kernel's trace_entry, or records would be read at the wrong place.
 */
static int check_common_fields(struct rd *r, const struct td_format *f, const char *where)
{
	unsigned long off, size;

	if (layout(&f->text, "common_type", &off, &size) || off != 0 || size != 2)
		return fail(r, "%s (%s): common_type is not 2 bytes at offset 0", where, f->name);
	if (layout(&f->text, "common_pid", &off, &size) || off != 4 || size != 4)
		return fail(r, "%s (%s): common_pid is not 4 bytes at offset 4", where, f->name);
	return 0;
}

static int add_format(struct rd *r, const char *system, size_t index, const char *kind)
{
	struct tracedat *td = r->td;
	struct td_format *f, *grown;
	char where[96];

	if (td->nr_formats == r->formats_cap) {
		size_t cap = r->formats_cap ? r->formats_cap * 2 : 64;

		grown = realloc(td->formats, cap * sizeof(*grown));
		if (!grown)
			return fail(r, "out of memory");
		td->formats = grown;
		r->formats_cap = cap;
	}
	f = &td->formats[td->nr_formats];
	memset(f, 0, sizeof(*f));
	f->system = system;
	td->nr_formats++;
	snprintf(where, sizeof(where), "%s format %zu of system '%.40s'", kind, index, system);
	if (get_block(r, 8, &f->text, where))
		return -1;
	/*
	 * libtraceevent's tokenizer takes a byte outside printable ASCII as the end
	 * of its input and goes on with a NULL token (a crash in 1.7.1); kernel
	 * format files are plain ASCII.
	 */
	for (size_t i = 0; i < f->text.len; i++) {
		unsigned char ch = (unsigned char)f->text.data[i];

		if ((ch < 0x20 || ch > 0x7e) && ch != '\t' && ch != '\n')
			return fail(r, "%s: byte 0x%02x at offset %zu of its text is not printable"
				       " ASCII", where, ch, i);
	}
	if (format_header(r, f, where))
		return -1;
	return check_common_fields(r, f, where);
}

static int cmp_format_id(const void *a, const void *b)
{
	const struct td_format *const *x = a, *const *y = b;

	return (*x)->id - (*y)->id;
}

/* Two formats with one id make one of them silently unusable (the last one wins in tep). */
static int check_unique_ids(struct rd *r)
{
	struct tracedat *td = r->td;
	const struct td_format **v;
	int ret = 0;

	if (td->nr_formats < 2)
		return 0;
	v = malloc(td->nr_formats * sizeof(*v));
	if (!v)
		return fail(r, "out of memory");
	for (size_t i = 0; i < td->nr_formats; i++)
		v[i] = &td->formats[i];
	qsort(v, td->nr_formats, sizeof(*v), cmp_format_id);
	for (size_t i = 1; i < td->nr_formats; i++) {
		if (v[i]->id == v[i - 1]->id) {
			ret = fail(r, "event id %d is used by both %s:%s and %s:%s", v[i]->id,
				   v[i - 1]->system, v[i - 1]->name, v[i]->system, v[i]->name);
			break;
		}
	}
	free(v);
	return ret;
}

static int read_formats(struct rd *r)
{
	struct tracedat *td = r->td;
	uint32_t count, systems;

	if (get_u32(r, &count, "the count of ftrace formats"))
		return -1;
	/* each entry takes at least its 8-byte size: bounds the loop by the file */
	if ((uint64_t)count * 8 > remaining(r))
		return fail(r, "truncated: %" PRIu32 " ftrace formats cannot fit in the %" PRIu64
			       " bytes left at offset %" PRIu64, count, remaining(r), r->off);
	for (uint32_t i = 0; i < count; i++)
		if (add_format(r, "ftrace", i, "ftrace"))
			return -1;
	td->nr_ftrace_formats = td->nr_formats;

	if (get_u32(r, &systems, "the count of event systems"))
		return -1;
	if ((uint64_t)systems * 5 > remaining(r))
		return fail(r, "truncated: %" PRIu32 " event systems cannot fit in the %" PRIu64
			       " bytes left at offset %" PRIu64, systems, remaining(r), r->off);
	for (uint32_t s = 0; s < systems; s++) {
		const char *system;
		uint32_t events;

		if (get_string(r, &system, 255, "an event system name"))
			return -1;
		if (!*system)
			return fail(r, "event system %" PRIu32 " has an empty name", s);
		if (!visible_name(system))
			return fail(r, "the name of event system %" PRIu32 " (offset %" PRIu64
				       ") has a byte that is not visible ASCII", s,
				    (uint64_t)(system - (const char *)td->data));
		if (get_u32(r, &events, "an event system's format count"))
			return -1;
		if ((uint64_t)events * 8 > remaining(r))
			return fail(r, "truncated: system '%s' has %" PRIu32 " formats, which cannot"
				       " fit in the %" PRIu64 " bytes left at offset %" PRIu64,
				    system, events, remaining(r), r->off);
		for (uint32_t e = 0; e < events; e++)
			if (add_format(r, system, e, "event"))
				return -1;
	}
	return check_unique_ids(r);
}

/*
 * Lines "<pid> <comm>\n", read as libtraceevent's tep_parse_saved_cmdlines()
 * does (sscanf "%d %m[^\n]", empty lines skipped); a line it would stop at
 * is an error here rather than the silent loss of the lines after it.
 */
static int read_cmdlines(struct rd *r)
{
	struct tracedat *td = r->td;
	const char *p = td->cmdlines_text.data, *end = p + td->cmdlines_text.len;
	size_t line = 0, cap = 0;

	if (memchr(p, '\0', td->cmdlines_text.len))
		return fail(r, "cmdlines text contains a NUL byte");
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *q = p;
		long long pid = 0;
		bool neg = false, digits = false;

		if (!eol)
			eol = end;
		line++;
		if (eol == p) {
			p = eol + 1;
			continue;
		}
		while (q < eol && isspace((unsigned char)*q))
			q++;
		if (q < eol && (*q == '-' || *q == '+'))
			neg = *q++ == '-';
		while (q < eol && isdigit((unsigned char)*q)) {
			pid = pid * 10 + (*q++ - '0');
			digits = true;
			if (pid > (long long)INT_MAX + 1)
				break;
		}
		if (neg)
			pid = -pid;
		if (!digits || pid > INT_MAX || pid < INT_MIN)
			return fail(r, "cmdlines line %zu: expected \"<pid> <comm>\"", line);
		while (q < eol && isspace((unsigned char)*q))
			q++;
		if (q == eol)
			return fail(r, "cmdlines line %zu: pid %lld has no comm", line, pid);
		if (td->nr_cmdlines == cap) {
			struct td_cmdline *grown;

			cap = cap ? cap * 2 : 16;
			grown = realloc(td->cmdlines, cap * sizeof(*grown));
			if (!grown)
				return fail(r, "out of memory");
			td->cmdlines = grown;
		}
		td->cmdlines[td->nr_cmdlines].pid = (int)pid;
		td->cmdlines[td->nr_cmdlines].comm = strndup(q, (size_t)(eol - q));
		if (!td->cmdlines[td->nr_cmdlines].comm)
			return fail(r, "out of memory");
		td->nr_cmdlines++;
		p = eol + 1;
	}
	return 0;
}

/* Calls fn on each non-empty line (as strtok(…, "\n") gives them); stops at an error. */
static int each_line(struct rd *r, const struct td_text *t,
		     int (*fn)(struct rd *r, const char *line, size_t len, size_t nr))
{
	const char *p = t->data, *end = t->data + t->len;
	size_t nr = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));

		if (!eol)
			eol = end;
		nr++;
		if (eol > p && fn(r, p, (size_t)(eol - p), nr))
			return -1;
		p = eol + 1;
	}
	return 0;
}

/*
 * kallsyms lines, "ADDRESS TYPE NAME[\t[MODULE]]", checked with the sscanf()
 * that libtraceevent's tep_parse_kallsyms() uses, which drops every line after
 * the first one it cannot read.
 */
static int kallsyms_line(struct rd *r, const char *line, size_t len, size_t nr)
{
	int func_start = 0, func_end = 0, mod_start = 0, mod_end = 0, n;
	unsigned long long addr;
	char buf[2048], ch;

	if (memchr(line, '\0', len))
		return fail(r, "kallsyms line %zu contains a NUL byte", nr);
	if (len >= sizeof(buf))
		return fail(r, "kallsyms line %zu is longer than %zu bytes", nr, sizeof(buf) - 1);
	memcpy(buf, line, len);
	buf[len] = '\0';
	n = sscanf(buf, "%16llx %c %n%*s%n%*1[\t][%n%*s%n", &addr, &ch, &func_start,
		   &func_end, &mod_start, &mod_end);
	if (n != 2 || !func_end)
		return fail(r, "kallsyms line %zu: expected \"ADDRESS TYPE NAME\"", nr);
	return 0;
}

/*
 * printk formats, "ADDRESS : \"format\"".  libtraceevent's
 * tep_parse_printk_formats() reads one byte past the first ':' without
 * looking, so a line must have a ':' with something after it.
 */
static int printk_line(struct rd *r, const char *line, size_t len, size_t nr)
{
	const char *colon = memchr(line, ':', len);

	if (memchr(line, '\0', len))
		return fail(r, "printk formats line %zu contains a NUL byte", nr);
	if (!colon || colon == line || (size_t)(colon - line) + 1 >= len)
		return fail(r, "printk formats line %zu: expected \"ADDRESS : FORMAT\"", nr);
	for (const char *p = line; p < colon; p++)
		if (!isxdigit((unsigned char)*p) && *p != 'x' && *p != 'X' && *p != ' ')
			return fail(r, "printk formats line %zu: the address is not hexadecimal",
				    nr);
	return 0;
}

/*
 * The current clock of a trace_clock text ("local global [mono] ...") is the
 * word between brackets; trace-cmd takes the first such word.
 */
static void parse_clock(struct tracedat *td, const char *text, size_t len)
{
	for (size_t i = 0; i < len && text[i]; i++) {
		size_t n = 0;

		if (text[i] != '[' || (i && text[i - 1] != ' '))
			continue;
		while (i < len && text[i] == '[')
			i++;
		while (i + n < len && text[i + n] && text[i + n] != ']' &&
		       !isspace((unsigned char)text[i + n]))
			n++;
		if (!n)
			return;
		if (n >= sizeof(td->clock))
			n = sizeof(td->clock) - 1;
		memcpy(td->clock, text + i, n);
		td->clock[n] = '\0';
		return;
	}
}

/* The clocks trace-cmd 3.1.6 prints as seconds (trace-input.c extract_trace_clock()). */
static bool clock_in_ns(const char *clock)
{
	static const char *const ns[] = { "local", "global", "uptime", "perf", "tsc2nsec", "tai" };

	if (!*clock || !strncmp(clock, "mono", 4))
		return true;
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		if (!strcmp(clock, ns[i]))
			return true;
	return false;
}

/* DATE and OFFSET hold an ASCII number read with strtoll(…, 0). */
static int option_number(struct rd *r, const struct td_option *o, const char *what,
			 long long *v)
{
	const char *s = (const char *)o->data;
	char *endp;

	if (!o->size || !memchr(s, '\0', o->size))
		return fail(r, "option %s at offset %" PRIu64 " is not a NUL-terminated number",
			    what, o->offset);
	errno = 0;
	*v = strtoll(s, &endp, 0);
	if (endp == s || errno)
		return fail(r, "option %s at offset %" PRIu64 ": '%.30s' is not a number", what,
			    o->offset, s);
	return 0;
}

static int read_options(struct rd *r)
{
	struct tracedat *td = r->td;
	size_t cap = 0;

	for (;;) {
		struct td_option *o;
		uint16_t id;
		uint32_t size;

		if (get_u16(r, &id, "an option id"))
			return -1;
		if (!id)
			break;
		if (get_u32(r, &size, "an option size") || need(r, size, "an option's data"))
			return -1;
		if (td->nr_options == cap) {
			struct td_option *grown;

			cap = cap ? cap * 2 : 8;
			grown = realloc(td->options, cap * sizeof(*grown));
			if (!grown)
				return fail(r, "out of memory");
			td->options = grown;
		}
		o = &td->options[td->nr_options++];
		o->id = id;
		o->size = size;
		o->data = td->data + r->off;
		o->offset = r->off;
		r->off += size;
	}
	return 0;
}

/* What the options say about CPUs and time, in file order as trace-cmd applies them. */
static int apply_options(struct rd *r)
{
	struct tracedat *td = r->td;
	long long v;

	for (size_t i = 0; i < td->nr_options; i++) {
		const struct td_option *o = &td->options[i];

		switch (o->id) {
		case TD_OPT_TRACECLOCK:
			parse_clock(td, (const char *)o->data, o->size);
			break;
		case TD_OPT_CPUCOUNT:
			if (o->size < 4)
				return fail(r, "option CPUCOUNT at offset %" PRIu64 " has %" PRIu32
					       " bytes, expected 4", o->offset, o->size);
			td->nr_cpus = tracedat_u32(td, o->data);
			break;
		case TD_OPT_TSC2NSEC:
			if (o->size < 16)
				return fail(r, "option TSC2NSEC at offset %" PRIu64 " has %" PRIu32
					       " bytes, expected 16", o->offset, o->size);
			td->tsc_mult = tracedat_u32(td, o->data);
			td->tsc_shift = tracedat_u32(td, o->data + 4);
			if (!td->tsc_mult || td->tsc_shift > 32)
				return fail(r, "option TSC2NSEC at offset %" PRIu64 ": mult %" PRIu32
					       " shift %" PRIu32 " cannot convert ticks", o->offset,
					    td->tsc_mult, td->tsc_shift);
			break;
		case TD_OPT_DATE:
			if (option_number(r, o, "DATE", &v))
				return -1;
			if (v > INT64_MAX / 1000 || v < INT64_MIN / 1000)
				return fail(r, "option DATE at offset %" PRIu64 " is out of range",
					    o->offset);
			td->ts_offset += (int64_t)v * 1000; /* microseconds */
			break;
		case TD_OPT_OFFSET:
			if (option_number(r, o, "OFFSET", &v))
				return -1;
			td->ts_offset += v;
			break;
		case TD_OPT_BUFFER: {
			const char *nul;

			if (o->size < 9 || !(nul = memchr(o->data + 8, '\0', o->size - 8)))
				return fail(r, "option BUFFER at offset %" PRIu64 " is not a u64 offset"
					       " and a NUL-terminated name", o->offset);
			if (nul - (const char *)o->data - 8 > 255 ||
			    !visible_name((const char *)o->data + 8))
				return fail(r, "option BUFFER at offset %" PRIu64 ": the buffer name is "
					       "longer than 255 bytes or not visible ASCII", o->offset);
			break;
		}
		default:
			break;
		}
	}
	return 0;
}

/* The per-CPU table of a flyrecord block: u64 offset, u64 size per CPU. */
static int read_cpu_table(struct rd *r, struct td_buffer *b)
{
	struct tracedat *td = r->td;

	if ((uint64_t)td->nr_cpus * 16 > remaining(r))
		return fail(r, "truncated: the flyrecord table of %" PRIu32 " CPUs needs %" PRIu64
			       " bytes at offset %" PRIu64 ", file has %zu", td->nr_cpus,
			    (uint64_t)td->nr_cpus * 16, r->off, td->size);
	b->cpus = calloc(td->nr_cpus ? td->nr_cpus : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return fail(r, "out of memory");
	for (uint32_t cpu = 0; cpu < td->nr_cpus; cpu++) {
		struct td_cpu *c = &b->cpus[cpu];

		get_u64(r, &c->offset, "a CPU offset");
		get_u64(r, &c->size, "a CPU size");
	}
	return 0;
}

static int check_cpu_ranges(struct rd *r, const struct td_buffer *b, uint64_t meta_end)
{
	struct tracedat *td = r->td;
	const char *bn = b->name;

	for (uint32_t cpu = 0; cpu < td->nr_cpus; cpu++) {
		const struct td_cpu *c = &b->cpus[cpu];

		if (!c->size)
			continue;
		if (c->offset > r->pages_end || c->size > r->pages_end - c->offset)
			return fail(r, "truncated: %s%sCPU %" PRIu32 " data needs %" PRIu64
				       " bytes at offset %" PRIu64 ", file has %" PRIu64,
				    *bn ? bn : "", *bn ? " " : "", cpu, c->size, c->offset,
				    r->pages_end);
		if (c->size % td->page_size)
			return fail(r, "%s%sCPU %" PRIu32 " data size %" PRIu64
				       " is not a multiple of the page size %" PRIu32,
				    *bn ? bn : "", *bn ? " " : "", cpu, c->size, td->page_size);
		if (c->offset < meta_end)
			return fail(r, "%s%sCPU %" PRIu32 " data at offset %" PRIu64
				       " overlaps the file's headers, which end at %" PRIu64,
				    *bn ? bn : "", *bn ? " " : "", cpu, c->offset, meta_end);
	}
	return 0;
}

struct range {
	uint64_t start, end;
	size_t buffer;
	uint32_t cpu;
};

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Two CPUs sharing pages would show the same events twice, or garbage. */
static int check_overlaps(struct rd *r)
{
	struct tracedat *td = r->td;
	struct range *v;
	size_t n = 0;
	int ret = 0;

	v = calloc(td->nr_buffers * (size_t)td->nr_cpus + 1, sizeof(*v));
	if (!v)
		return fail(r, "out of memory");
	for (size_t b = 0; b < td->nr_buffers; b++)
		for (uint32_t cpu = 0; cpu < td->nr_cpus; cpu++) {
			const struct td_cpu *c = &td->buffers[b].cpus[cpu];

			if (c->size)
				v[n++] = (struct range){ c->offset, c->offset + c->size, b, cpu };
		}
	qsort(v, n, sizeof(*v), cmp_range);
	for (size_t i = 1; i < n; i++) {
		if (v[i].start < v[i - 1].end) {
			ret = fail(r, "CPU %" PRIu32 " data at offset %" PRIu64
				      " overlaps CPU %" PRIu32 " data (%" PRIu64 "..%" PRIu64 ")%s%s",
				   v[i].cpu, v[i].start, v[i - 1].cpu, v[i - 1].start, v[i - 1].end,
				   v[i].buffer || v[i - 1].buffer ? " in buffer " : "",
				   v[i].buffer ? td->buffers[v[i].buffer].name :
				   td->buffers[v[i - 1].buffer].name);
			break;
		}
	}
	free(v);
	return ret;
}

static int add_buffer(struct rd *r, const char *name)
{
	struct tracedat *td = r->td;
	struct td_buffer *grown = realloc(td->buffers, (td->nr_buffers + 1) * sizeof(*grown));

	if (!grown)
		return fail(r, "out of memory");
	td->buffers = grown;
	memset(&grown[td->nr_buffers], 0, sizeof(*grown));
	grown[td->nr_buffers].name = strdup(name);
	if (!grown[td->nr_buffers].name)
		return fail(r, "out of memory");
	td->nr_buffers++;
	return 0;
}

/* v6 instances: a BUFFER option points at "flyrecord\0" and a table like the top one. */
static int read_instances(struct rd *r, uint64_t meta_end)
{
	struct tracedat *td = r->td;

	for (size_t i = 0; i < td->nr_options; i++) {
		const struct td_option *o = &td->options[i];
		const char *name = (const char *)o->data + 8;
		uint64_t at = tracedat_u64(td, o->data);
		struct rd sub = *r;
		char what[96];

		if (o->id != TD_OPT_BUFFER)
			continue;
		/* an unnamed BUFFER describes the top buffer; v6 readers ignore it */
		if (!*name)
			continue;
		if (at > td->size)
			return fail(r, "truncated: buffer '%.40s' starts at offset %" PRIu64
				       ", file has %zu", name, at, td->size);
		if (at < meta_end)
			return fail(r, "buffer '%.40s' at offset %" PRIu64 " overlaps the file's "
				       "headers, which end at %" PRIu64, name, at, meta_end);
		sub.off = at;
		snprintf(what, sizeof(what), "\"flyrecord\" of buffer '%.40s'", name);
		if (expect(&sub, "flyrecord", 10, what))
			return -1;
		if (add_buffer(r, name))
			return -1;
		if (read_cpu_table(&sub, &td->buffers[td->nr_buffers - 1]) ||
		    check_cpu_ranges(&sub, &td->buffers[td->nr_buffers - 1], meta_end))
			return -1;
	}
	return 0;
}

/* The first option with this id, or NULL (the tool's tracedat_option()). */
static const struct td_option *option_by_id(const struct tracedat *td, uint16_t id)
{
	for (size_t i = 0; i < td->nr_options; i++)
		if (td->options[i].id == id)
			return &td->options[i];
	return NULL;
}

static int parse(struct rd *r)
{
	struct tracedat *td = r->td;
	const char *version;
	struct td_text clock_text = { 0 };
	uint64_t meta_end;
	uint32_t cpus;

	if (td->size < 3 || memcmp(td->data, TD_MAGIC, 3))
		return fail(r, "not a trace-cmd file (bad magic)");
	r->off = 3;
	if (td->size < TD_MAGIC_LEN || memcmp(td->data, TD_MAGIC, TD_MAGIC_LEN))
		return fail(r, "not a trace-cmd file (no \"tracing\" after the magic)");
	r->off = TD_MAGIC_LEN;
	if (get_string(r, &version, 15, "the version string"))
		return -1;
	if (strcmp(version, TD_VERSION))
		return fail(r, "trace.dat version '%.15s' is not supported (tpoint reads versions 6 "
			       "and 7)", version);
	if (need(r, 6, "the endianness byte, long-size byte and page size"))
		return -1;
	if (td->data[r->off] > 1)
		return fail(r, "bad endianness byte %u at offset %" PRIu64 " (0 little, 1 big)",
			    td->data[r->off], r->off);
	td->big_endian = td->data[r->off] == 1;
	td->long_size = td->data[r->off + 1];
	if (td->long_size != 4 && td->long_size != 8)
		return fail(r, "bad long size %u at offset %" PRIu64 " (4 or 8)", td->long_size,
			    r->off + 1);
	r->off += 2;
	get_u32(r, &td->page_size, "the page size");
	if (td->page_size < TD6_PAGE_SIZE_MIN || td->page_size > TD6_PAGE_SIZE_MAX)
		return fail(r, "page size %" PRIu32 " is out of range (%u..%u)", td->page_size,
			    TD6_PAGE_SIZE_MIN, TD6_PAGE_SIZE_MAX);

	if (expect(r, "header_page", 12, "\"header_page\"") ||
	    get_block(r, 8, &td->header_page, "the header_page text") || parse_header_page(r))
		return -1;
	if (expect(r, "header_event", 13, "\"header_event\"") ||
	    get_block(r, 8, &td->header_event, "the header_event text"))
		return -1;
	if (read_formats(r))
		return -1;
	if (get_block(r, 4, &td->kallsyms, "the kallsyms text") ||
	    each_line(r, &td->kallsyms, kallsyms_line) ||
	    get_block(r, 4, &td->printk, "the printk formats text") ||
	    each_line(r, &td->printk, printk_line) ||
	    get_block(r, 8, &td->cmdlines_text, "the cmdlines text") || read_cmdlines(r))
		return -1;
	if (get_u32(r, &cpus, "the CPU count"))
		return -1;
	td->nr_cpus = cpus;

	if (need(r, 10, "\"options\" or \"flyrecord\""))
		return -1;
	if (!memcmp(td->data + r->off, "options  ", 10)) {
		r->off += 10;
		if (read_options(r) || apply_options(r))
			return -1;
	}
	if (need(r, 10, "\"flyrecord\""))
		return -1;
	if (!memcmp(td->data + r->off, "latency  ", 10))
		return fail(r, "latency-tracer files are not supported");
	if (expect(r, "flyrecord", 10, "\"flyrecord\""))
		return -1;
	if (add_buffer(r, "") || read_cpu_table(r, &td->buffers[0]))
		return -1;
	/* in v6 the clock text follows the table only when a TRACECLOCK option exists */
	if (option_by_id(td, TD_OPT_TRACECLOCK)) {
		if (get_block(r, 8, &clock_text, "the trace clock text"))
			return -1;
		parse_clock(td, clock_text.data, clock_text.len);
	}
	td->ts_in_ns = td->tsc_mult || clock_in_ns(td->clock);
	meta_end = r->off;

	if (check_cpu_ranges(r, &td->buffers[0], meta_end) || read_instances(r, meta_end) ||
	    check_overlaps(r))
		return -1;
	for (size_t b = 0; b < td->nr_buffers; b++)
		for (uint32_t cpu = 0; cpu < td->nr_cpus; cpu++)
			td->buffers[b].cpus[cpu].nr_pages = td->buffers[b].cpus[cpu].size /
							    td->page_size;
	return 0;
}

int tp_tracedat_parse_meta(struct tracedat *td, uint64_t pages_end, char *err, size_t errlen)
{
	struct rd r = { .td = td, .err = err, .errlen = errlen, .pages_end = pages_end };

	return parse(&r);
}




/* ---- the extent of a block, for the version 7 reader ---- */

struct walk {
	const unsigned char *p;
	size_t len, pos;
	bool be;
	struct td6_short *why;
};

static uint64_t walk_number(const struct walk *w, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v |= (uint64_t)w->p[w->pos + (w->be ? n - 1 - i : i)] << (8 * i);
	return v;
}

static int walk_need(struct walk *w, uint64_t n)
{
	if (n <= w->len - w->pos)
		return 0;
	*w->why = (struct td6_short){ .kind = TD6_SHORT_BYTES, .at = w->pos, .need = n };
	return -1;
}

/* A u32 or u64 size and that many bytes. */
static int walk_block(struct walk *w, unsigned int size_bytes)
{
	uint64_t n;

	if (walk_need(w, size_bytes))
		return -1;
	n = walk_number(w, size_bytes);
	w->pos += size_bytes;
	if (walk_need(w, n))
		return -1;
	w->pos += (size_t)n;
	return 0;
}

static int walk_tag(struct walk *w, const char *tag, size_t len)
{
	if (walk_need(w, len))
		return -1;
	if (memcmp(w->p + w->pos, tag, len)) {
		*w->why = (struct td6_short){ .kind = TD6_SHORT_TAG, .at = w->pos, .tag = tag };
		return -1;
	}
	w->pos += len;
	return 0;
}

static int walk_count(struct walk *w, uint32_t *n)
{
	if (walk_need(w, 4))
		return -1;
	*n = (uint32_t)walk_number(w, 4);
	w->pos += 4;
	return 0;
}

int tp_td6_block_length(enum td6_block b, const unsigned char *p, size_t len, bool big_endian,
		     size_t *blen, struct td6_short *why)
{
	struct walk w = { p, len, 0, big_endian, why };
	uint32_t n, events;
	int ret = 0;

	switch (b) {
	case TD6_HEADER_INFO:
		ret = walk_tag(&w, TD6_TAG_HEADER_PAGE, TD6_TAG_LEN(TD6_TAG_HEADER_PAGE)) ||
		      walk_block(&w, 8) ||
		      walk_tag(&w, TD6_TAG_HEADER_EVENT, TD6_TAG_LEN(TD6_TAG_HEADER_EVENT)) ||
		      walk_block(&w, 8);
		break;
	case TD6_FTRACE_EVENTS:
		ret = walk_count(&w, &n);
		for (uint32_t i = 0; !ret && i < n; i++)
			ret = walk_block(&w, TD6_FORMAT_SIZE_BYTES);
		break;
	case TD6_EVENT_FORMATS:
		ret = walk_count(&w, &n);
		for (uint32_t s = 0; !ret && s < n; s++) {
			if (!memchr(p + w.pos, '\0', len - w.pos)) {
				*why = (struct td6_short){ .kind = TD6_SHORT_NUL, .at = w.pos,
							   .system = s };
				return -1;
			}
			w.pos += strlen((const char *)p + w.pos) + 1;
			ret = walk_count(&w, &events);
			for (uint32_t e = 0; !ret && e < events; e++)
				ret = walk_block(&w, TD6_FORMAT_SIZE_BYTES);
		}
		break;
	case TD6_KALLSYMS:
		ret = walk_block(&w, TD6_KALLSYMS_SIZE_BYTES);
		break;
	case TD6_PRINTK:
		ret = walk_block(&w, TD6_PRINTK_SIZE_BYTES);
		break;
	case TD6_CMDLINES:
		ret = walk_block(&w, TD6_CMDLINES_SIZE_BYTES);
		break;
	}
	*blen = w.pos;
	return ret ? -1 : 0;
}
