/* SPDX-License-Identifier: MIT */
/*
 * The inputs of a conversion (convert.h): each trace.dat validated, each event format turned
 * into typed fields, the progress line. (Merged by time: td_merge.h, which json.c reads.)
 *
 * The field types come from libtraceevent's parse of the format text (size, signedness,
 * array, dynamic, string), the display base and the __print_symbolic/__print_flags values
 * from its parse of the print fmt. libtraceevent's handle lives only while one input's
 * formats are parsed (the renderer's guard is one per process): what the writers need is
 * copied out.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>

#include "convert_backend.h"
#include "printf_conv.h"
#include "tool.h"

#define NR_IDS 0x10000

const char *conv_sym_text(const struct conv_field *f, unsigned long long v, char *buf,
			  size_t len)
{
	size_t n = 0;
	bool any = false;

	buf[0] = '\0';
	if (f->symbolic) {
		for (size_t i = 0; i < f->nr_syms; i++)
			if (f->syms[i].value == v)
				return f->syms[i].str;
		snprintf(buf, len, "0x%llx", v);
		return buf;
	}
	/* libtraceevent's order: each flag in turn, a value 0 only when nothing is set */
	for (size_t i = 0; i < f->nr_syms; i++) {
		unsigned long long fv = f->syms[i].value;

		if (!v && !fv) {
			snprintf(buf, len, "%s", f->syms[i].str);
			return buf;
		}
		if (fv && (v & fv) == fv) {
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s",
					      any && f->delim ? f->delim : "", f->syms[i].str);
			any = true;
			v &= ~fv;
			if (n >= len)
				return buf;
		}
	}
	if (v)
		snprintf(buf + n, n < len ? len - n : 0, "%s0x%llx", any && f->delim ? f->delim : "",
			 v);
	return buf;
}

/* ---- event formats into fields ------------------------------------------------------- */

/* The bytes of a C element type as formats name them; 0 when not an integer type. */
static uint32_t type_size(const char *t, size_t n, unsigned int long_size)
{
	static const struct {
		const char *name;
		uint32_t size; /* 0: the file's long */
	} types[] = {
		{ "char", 1 }, { "signed char", 1 }, { "unsigned char", 1 }, { "u8", 1 },
		{ "s8", 1 }, { "__u8", 1 }, { "__s8", 1 }, { "bool", 1 }, { "_Bool", 1 },
		{ "uint8_t", 1 }, { "int8_t", 1 },
		{ "short", 2 }, { "unsigned short", 2 }, { "u16", 2 }, { "s16", 2 },
		{ "__u16", 2 }, { "__s16", 2 }, { "uint16_t", 2 }, { "int16_t", 2 },
		{ "int", 4 }, { "unsigned int", 4 }, { "unsigned", 4 }, { "u32", 4 }, { "s32", 4 },
		{ "__u32", 4 }, { "__s32", 4 }, { "uint32_t", 4 }, { "int32_t", 4 }, { "pid_t", 4 },
		{ "long long", 8 }, { "unsigned long long", 8 }, { "u64", 8 }, { "s64", 8 },
		{ "__u64", 8 }, { "__s64", 8 }, { "uint64_t", 8 }, { "int64_t", 8 },
		{ "long", 0 }, { "unsigned long", 0 }, { "size_t", 0 }, { "ssize_t", 0 },
		{ "cpumask_t", 0 }, { "struct cpumask", 0 },
	};

	while (n && t[n - 1] == ' ')
		n--;
	if (n > 6 && !strncmp(t, "const ", 6)) {
		t += 6;
		n -= 6;
	}
	if (n && t[n - 1] == '*')
		return long_size;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strlen(types[i].name) == n && !strncmp(types[i].name, t, n))
			return types[i].size ? types[i].size : long_size;
	return 0;
}

/* "char" alone (or signed/const): text, as C programs put it in char arrays. */
static bool is_char_type(const char *t, size_t n)
{
	while (n && t[n - 1] == ' ')
		n--;
	if (n > 6 && !strncmp(t, "const ", 6)) {
		t += 6;
		n -= 6;
	}
	return (n == 4 && !strncmp(t, "char", 4)) || (n == 11 && !strncmp(t, "signed char", 11));
}

/* The field a print argument names, through casts; NULL for anything else. */
static const char *arg_field(const struct tep_print_arg *a)
{
	while (a && a->type == TEP_PRINT_TYPE)
		a = a->typecast.item;
	if (a && a->type == TEP_PRINT_FIELD)
		return a->field.name;
	return NULL;
}

static struct conv_field *field_named(struct conv_event *ce, const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < ce->nr_fields; i++)
		if (!strcmp(ce->fields[i].name, name))
			return &ce->fields[i];
	return NULL;
}

/* A __print_symbolic/__print_flags list of one field: the values it knows. */
static int take_syms(struct conv_field *f, const struct tep_print_flag_sym *list,
		     const char *delim, bool flags)
{
	size_t n = 0, k = 0;

	if (f->syms || f->kind != CONV_INT)
		return 0; /* the first use decides */
	for (const struct tep_print_flag_sym *s = list; s && n < 4096; s = s->next)
		n++;
	f->syms = calloc(n ? n : 1, sizeof(*f->syms));
	if (!f->syms)
		return -1;
	for (const struct tep_print_flag_sym *s = list; s && k < n; s = s->next) {
		char *end;
		unsigned long long v;

		if (!s->value || !s->str)
			continue;
		v = strtoull(s->value, &end, 0);
		if (end == s->value || *end)
			continue; /* not a number libtraceevent could resolve: left out */
		f->syms[k].value = v;
		f->syms[k].str = strdup(s->str);
		if (!f->syms[k].str)
			return -1;
		k++;
	}
	f->nr_syms = k;
	f->symbolic = !flags;
	f->flags = flags;
	if (flags)
		f->base = 16; /* bits read best in hex */
	if (flags && delim) {
		f->delim = strdup(delim);
		if (!f->delim)
			return -1;
	}
	return 0;
}

static int find_syms_list(struct conv_event *ce, const struct tep_print_arg *a, int depth);

/* What one print argument says of the fields it shows, and of those below it. */
static int find_syms(struct conv_event *ce, const struct tep_print_arg *a, int depth)
{
	if (a && depth < 64) {
		switch (a->type) {
		case TEP_PRINT_SYMBOL: {
			struct conv_field *f = field_named(ce, arg_field(a->symbol.field));

			if (f && take_syms(f, a->symbol.symbols, NULL, false))
				return -1;
			break;
		}
		case TEP_PRINT_FLAGS: {
			struct conv_field *f = field_named(ce, arg_field(a->flags.field));

			if (f && take_syms(f, a->flags.flags, a->flags.delim, true))
				return -1;
			break;
		}
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR: {
			/* __print_hex(): bytes shown in hex */
			const struct tep_print_arg *h = a->hex.field;
			struct conv_field *f = field_named(ce, h && h->type == TEP_PRINT_DYNAMIC_ARRAY &&
							       h->dynarray.field ?
							       h->dynarray.field->name : arg_field(h));

			if (f && f->kind != CONV_STRING && f->kind != CONV_CHARS)
				f->base = 16;
			break;
		}
		case TEP_PRINT_FUNC:
			if (find_syms_list(ce, a->func.args, depth + 1))
				return -1;
			break;
		case TEP_PRINT_OP:
			if (find_syms(ce, a->op.left, depth + 1) ||
			    find_syms(ce, a->op.right, depth + 1))
				return -1;
			break;
		case TEP_PRINT_TYPE:
			if (find_syms(ce, a->typecast.item, depth + 1))
				return -1;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* An argument list: the print fmt's, or a function's; only these chain by next. */
static int find_syms_list(struct conv_event *ce, const struct tep_print_arg *a, int depth)
{
	for (int n = 0; a && n < 1000; a = a->next, n++)
		if (find_syms(ce, a, depth))
			return -1;
	return 0;
}

/* The base each conversion of the print fmt shows its field in (%x: 16, %o: 8). */
static void find_bases(struct conv_event *ce, const struct tep_event *ev)
{
	const char *p = ev->print_fmt.format;
	const struct tep_print_arg *a = ev->print_fmt.args;

	while (p && *p) {
		struct conv_field *f;
		struct tp_printf_conv pc;
		char conv;

		if (*p != '%') {
			p++;
			continue;
		}
		pc = tp_printf_conv_parse(p, p + strlen(p));
		if (pc.c == '%') {
			p += 2;
			continue;
		}
		for (unsigned i = 0; i < pc.stars; i++)
			a = a ? a->next : NULL;
		p += pc.spec;
		conv = pc.c;
		if (conv)
			p++;
		if (conv == 'p')
			while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))
				p++;
		f = field_named(ce, arg_field(a));
		if (f && f->kind != CONV_STRING && f->kind != CONV_CHARS) {
			if (conv == 'x' || conv == 'X' || conv == 'p')
				f->base = 16;
			else if (conv == 'o')
				f->base = 8;
		}
		a = a ? a->next : NULL;
	}
}

static int build_event(struct conv_event *ce, struct tep_event *ev, unsigned int long_size)
{
	struct tep_format_field *tf;
	size_t n = 0;

	for (tf = ev->format.fields; tf; tf = tf->next)
		n++;
	ce->fields = calloc(n ? n : 1, sizeof(*ce->fields));
	if (!ce->fields)
		return -1;
	for (tf = ev->format.fields; tf; tf = tf->next) {
		struct conv_field *f = &ce->fields[ce->nr_fields];
		const char *t = tf->type;
		const char *br = strchr(t, '[');
		size_t tl = br ? (size_t)(br - t) : strlen(t);

		if (tf->offset < 0 || tf->size <= 0)
			continue;
		f->name = strdup(tf->name);
		if (!f->name)
			return -1;
		ce->nr_fields++;
		f->offset = (uint32_t)tf->offset;
		f->size = (uint32_t)tf->size;
		f->is_signed = tf->flags & TEP_FIELD_IS_SIGNED;
		f->base = (tf->flags & TEP_FIELD_IS_POINTER) ? 16 : 10;
		if (f->offset + f->size > ce->min_size)
			ce->min_size = f->offset + f->size;
		if (tf->flags & TEP_FIELD_IS_DYNAMIC) {
			static const char *const locs[] = { "__data_loc ", "__rel_loc " };

			f->relative = tf->flags & TEP_FIELD_IS_RELATIVE;
			for (size_t i = 0; i < 2; i++) {
				size_t l = strlen(locs[i]);

				if (!strncmp(t, locs[i], l)) {
					t += l;
					tl -= l;
				}
			}
			f->elem_size = f->size == 4 ? type_size(t, tl, long_size) : 0;
			if (f->size != 4) {
				/* a location word is 4 bytes; anything else is bytes */
				f->kind = CONV_BYTES;
				f->elem_size = 1;
				f->count = f->size;
			} else if (is_char_type(t, tl)) {
				f->kind = CONV_STRING;
				f->elem_size = 1;
			} else {
				f->kind = CONV_SEQ;
				if (!f->elem_size)
					f->elem_size = 1;
				if (f->elem_size == 1 && !(tf->flags & TEP_FIELD_IS_SIGNED))
					f->base = 16;
			}
		} else if ((tf->flags & TEP_FIELD_IS_ARRAY) && tf->arraylen > 0) {
			uint32_t es = f->size / (uint32_t)tf->arraylen;

			if (es == 1 && is_char_type(t, tl)) {
				f->kind = CONV_CHARS;
				f->elem_size = 1;
				f->count = f->size;
			} else if (es * (uint32_t)tf->arraylen == f->size &&
				   (es == 1 || es == 2 || es == 4 || es == 8) &&
				   type_size(t, tl, long_size) == es) {
				f->kind = CONV_ARRAY;
				f->elem_size = es;
				f->count = (uint32_t)tf->arraylen;
			} else {
				f->kind = CONV_BYTES;
				f->elem_size = 1;
				f->count = f->size;
			}
		} else if ((f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) &&
			   strncmp(t, "struct ", 7) && strncmp(t, "union ", 6)) {
			f->kind = CONV_INT;
			f->elem_size = f->size;
		} else {
			f->kind = CONV_BYTES;
			f->elem_size = 1;
			f->count = f->size;
			f->base = 16;
		}
	}
	find_bases(ce, ev);
	return find_syms_list(ce, ev->print_fmt.args, 0);
}

static void event_free(struct conv_event *ce)
{
	if (!ce)
		return;
	for (size_t i = 0; i < ce->nr_fields; i++) {
		for (size_t k = 0; k < ce->fields[i].nr_syms; k++)
			free(ce->fields[i].syms[k].str);
		free(ce->fields[i].syms);
		free(ce->fields[i].delim);
		free(ce->fields[i].name);
	}
	free(ce->fields);
	free(ce->system);
	free(ce->name);
	free(ce);
}

static struct conv_event *event_new(int id, const char *system, const char *name)
{
	struct conv_event *ce = calloc(1, sizeof(*ce));

	if (!ce)
		return NULL;
	ce->id = id;
	ce->system = strdup(system);
	ce->name = strdup(name);
	if (!ce->system || !ce->name) {
		event_free(ce);
		return NULL;
	}
	return ce;
}

static char *text_dup(const struct td_text *t)
{
	char *s = malloc(t->len + 1);

	if (s) {
		memcpy(s, t->data, t->len);
		s[t->len] = '\0';
	}
	return s;
}

static int by_pid(const void *a, const void *b)
{
	const struct td_cmdline *x = *(const struct td_cmdline *const *)a;
	const struct td_cmdline *y = *(const struct td_cmdline *const *)b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int input_open(struct conv *cv, struct conv_input *in)
{
	struct tracedat *td = &in->td;
	struct renderer rd;
	char err[512];
	int ret = -1;

	/* the pages are checked as they are read: by the CTF writer, or conv_check_pages() */
	if (tracedat_open_unchecked(td, in->file, err, sizeof(err))) {
		tool_error(cv->verb, "%s", err);
		return -1;
	}
	in->events = calloc(NR_IDS, sizeof(*in->events));
	in->comms = calloc(td->nr_cmdlines + 1, sizeof(*in->comms));
	if (!in->events || !in->comms)
		goto oom;
	for (size_t i = 0; i < td->nr_cmdlines; i++)
		in->comms[i] = &td->cmdlines[i];
	in->nr_comms = td->nr_cmdlines;
	qsort(in->comms, in->nr_comms, sizeof(*in->comms), by_pid);
	for (size_t b = 0; b < td->nr_buffers; b++)
		for (uint32_t c = 0; c < td->nr_cpus; c++)
			cv->total_pages += td->buffers[b].cpus[c].nr_pages;

	if (render_init(&rd, cv->verb, in->file, td->big_endian, (int)td->long_size,
			td->page_size))
		goto oom_rd;
	{
		char *hp = text_dup(&td->header_page);

		if (!hp)
			goto oom_rd;
		tep_parse_header_page(rd.tep, hp, td->header_page.len, (int)td->long_size);
		free(hp);
	}
	for (size_t i = 0; i < td->nr_formats; i++) {
		const struct td_format *f = &td->formats[i];
		struct conv_event *ce;
		struct tep_event *ev;

		if (f->id < 0 || f->id >= NR_IDS || in->events[f->id])
			continue;
		if (render_add_format(&rd, f->id, f->system, f->name, f->text.data, f->text.len))
			goto oom_rd;
		ce = event_new(f->id, f->system, f->name);
		if (!ce)
			goto oom_rd;
		in->events[f->id] = ce;
		ev = rd.events[f->id].parse_failed ? NULL : tep_find_event(rd.tep, f->id);
		if (!ev) {
			ce->raw = true;
			continue;
		}
		if (build_event(ce, ev, td->long_size))
			goto oom_rd;
	}
	ret = 0;
oom_rd:
	render_free(&rd);
	if (!ret)
		return 0;
oom:
	tool_error(cv->verb, "out of memory");
	return -1;
}

int conv_open(struct conv *cv, const char *verb, char **files, size_t nr)
{
	memset(cv, 0, sizeof(*cv));
	cv->verb = verb;
	cv->in = calloc(nr + 1, sizeof(*cv->in)); /* a zeroed entry ends the list */
	if (!cv->in) {
		tool_error(verb, "out of memory");
		return -1;
	}
	cv->progress = isatty(STDERR_FILENO);
	for (size_t i = 0; i < nr; i++) {
		cv->in[i].file = files[i];
		cv->in[i].index = (unsigned int)i;
		if (input_open(cv, &cv->in[i])) {
			conv_close(cv);
			return -1;
		}
		cv->nr_in++;
	}
	return 0;
}

int conv_check_pages(struct conv *cv)
{
	char err[512];

	cv->total = 0;
	for (size_t i = 0; i < cv->nr_in; i++) {
		struct tracedat *td = &cv->in[i].td;

		if (tracedat_check_pages(td, err, sizeof(err))) {
			tool_error(cv->verb, "%s", err);
			return -1;
		}
		for (size_t b = 0; b < td->nr_buffers; b++)
			for (uint32_t c = 0; c < td->nr_cpus; c++)
				cv->total += td->buffers[b].cpus[c].nr_events;
	}
	return 0;
}

void conv_close(struct conv *cv)
{
	for (size_t i = 0; cv->in && i <= cv->nr_in; i++) {
		struct conv_input *in = &cv->in[i];

		if (!in->file)
			break;
		for (size_t id = 0; in->events && id < NR_IDS; id++)
			event_free(in->events[id]);
		free(in->events);
		free(in->comms);
		if (i < cv->nr_in)
			tracedat_close(&in->td);
	}
	free(cv->in);
	cv->in = NULL;
	cv->nr_in = 0;
}

void conv_problem(struct conv *cv, struct conv_input *in, struct conv_event *ev,
		  const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	cv->problems++;
	if (ev) {
		if (ev->said)
			return;
		ev->said = true;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tool_error(cv->verb, "%s: %s", in->file, msg);
}

struct conv_event *conv_event(struct conv *cv, struct conv_input *in, const unsigned char *rec,
			      uint32_t size)
{
	int id = (int)tracedat_u16(&in->td, rec);
	struct conv_event *ce = in->events[id];

	if (!ce) {
		char name[32];

		snprintf(name, sizeof(name), "id_%d", id);
		ce = event_new(id, "unknown", name);
		if (!ce)
			return NULL;
		ce->raw = true;
		in->events[id] = ce;
		conv_problem(cv, in, ce, "records with event id %d have no format; they convert "
			     "as unknown:%s, their bytes", id, name);
	} else if (ce->raw && !ce->said) {
		conv_problem(cv, in, ce, "event %s:%s: libtraceevent cannot parse its format; "
			     "its records convert as their bytes", ce->system, ce->name);
	}
	if (!ce->raw && size < ce->min_size)
		conv_problem(cv, in, ce, "event %s:%s: a record of %u bytes is shorter than its "
			     "format's %u; such records convert as their bytes", ce->system,
			     ce->name, size, ce->min_size);
	return ce;
}

const char *conv_comm(const struct conv_input *in, int pid)
{
	size_t lo = 0, hi = in->nr_comms;

	if (!pid)
		return "<idle>";
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int p = in->comms[mid]->pid;

		if (p == pid)
			return in->comms[mid]->comm;
		if (p < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return "<...>";
}

/* ---- progress ------------------------------------------------------------------------ */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

void conv_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Whether a signal asked to stop (said), else the progress line redrawn when it is time. */
static bool progress(struct conv *cv)
{
	double t;

	if (stop_signal) {
		conv_progress_end(cv);
		tool_error(cv->verb, "stopped by %s; nothing written", strsignal(stop_signal));
		return true;
	}
	if (!cv->progress)
		return false;
	t = now();
	if (!cv->next_progress) {
		/* a short conversion says nothing: the line starts after a second */
		cv->next_progress = t + 1;
		return false;
	}
	if (t < cv->next_progress)
		return false;
	cv->next_progress = t + 0.25;
	cv->drawn = true;
	if (cv->total)
		fprintf(stderr, "\rtpoint %s: %llu of %llu events (%.0f%%)", cv->verb,
			(unsigned long long)cv->done, (unsigned long long)cv->total,
			100.0 * (double)cv->done / (double)cv->total);
	else /* read page by page: how far is said in pages */
		fprintf(stderr, "\rtpoint %s: %llu events (%.0f%%)", cv->verb,
			(unsigned long long)cv->done, cv->total_pages ? 100.0 *
			(double)cv->pages_done / (double)cv->total_pages : 100.0);
	return false;
}

bool conv_tick(struct conv *cv)
{
	cv->done++;
	if (!stop_signal && (!cv->progress || (cv->done & 0xffff)))
		return false;
	return progress(cv);
}

bool conv_tick_page(struct conv *cv, uint64_t records)
{
	cv->done += records;
	cv->pages_done++;
	if (!stop_signal && (!cv->progress || (cv->pages_done & 0xff)))
		return false;
	return progress(cv);
}

void conv_progress_end(struct conv *cv)
{
	if (cv->drawn)
		fprintf(stderr, "\r\033[K");
	cv->drawn = false;
}
