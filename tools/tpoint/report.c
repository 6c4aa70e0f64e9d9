// SPDX-License-Identifier: MIT
/*
 * tpoint report - print the events of a trace.dat file, as trace-cmd report does.
 *
 * The file is validated by tracedat_read first, so that a damaged file gives
 * one clear line and exit status 1 instead of the silence, garbage or crash
 * that a trusting reader would give.  The events are then rendered with
 * libtraceevent, the library trace-cmd uses, through the same calls that
 * trace-cmd 3.1.6 makes (tracecmd/trace-read.c, trace_show_data()), so that
 * every line is the one trace-cmd prints for the same file.
 *
 * What libtraceevent cannot render is never passed over in silence: a format
 * it cannot parse, a record it prints as [FAILED TO PARSE], a record whose id
 * has no format, a record too short for its format, or a warning it gives
 * while printing, is said once per event on stderr, and the exit status is 1.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <event-utils.h>
#include <kbuffer.h>
#include <trace-seq.h>

#include <tpoint/event.h>
#include "tep_guard.h"
#include "tpoint.h"
#include "tracedat_read.h"

#define VERB "report"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tpoint report [-i FILE] [--stats] [FILE]\n"
		"\n"
		"Print the events of a trace.dat file (default trace.dat), all CPUs merged by\n"
		"time, one line each, as 'trace-cmd report' prints them.\n"
		"\n"
		"  -i FILE      the file to read (as with trace-cmd)\n"
		"  --stats      per event: hits, skipped by condition, filtered, recorded,\n"
		"               lost and the condition, as tpoint stored them; and the\n"
		"               records found in the file\n"
		"  -h, --help   this text\n"
		"\n"
		"The file is checked first; a damaged file gives one line saying what is wrong\n"
		"and where. Events libtraceevent cannot render are named on stderr.\n"
		"Exit status: 0 all events rendered, 1 damaged file or events not rendered,\n"
		"2 usage error.\n");
}

/*
 * libtraceevent's messages.  tep_vprint() is the library's documented hook
 * (a weak symbol, event-utils.h): while the report runs, its warnings are kept
 * so that they can be said once, next to the event they concern; otherwise
 * they go where the library would send them.
 */
static struct {
	bool capture;
	char text[512];
	size_t len;
} tep_log;

int tep_vprint(const char *name, enum tep_loglevel level, bool print_err, const char *fmt,
	       va_list ap)
{
	int saved = errno;
	char line[256];
	size_t n;

	if (!tep_log.capture)
		return __tep_vprint(name, level, print_err, fmt, ap);
	if (level > TEP_LOG_WARNING)
		return saved;
	vsnprintf(line, sizeof(line), fmt, ap);
	/* one line per message: libtraceevent's own messages carry newlines and tabs */
	for (char *p = line; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
	n = strlen(line);
	while (n && line[n - 1] == ' ')
		line[--n] = '\0';
	if (n && tep_log.len < sizeof(tep_log.text) - 1) {
		int w = snprintf(tep_log.text + tep_log.len, sizeof(tep_log.text) - tep_log.len,
				 "%s%s", tep_log.len ? "; " : "", line);

		if (w > 0)
			tep_log.len += (size_t)w;
		if (tep_log.len >= sizeof(tep_log.text))
			tep_log.len = sizeof(tep_log.text) - 1;
	}
	return saved;
}

static void tep_log_clear(void)
{
	tep_log.len = 0;
	tep_log.text[0] = '\0';
}

/* What the report knows about each event id, for its messages. */
struct event_note {
	const struct td_format *fmt; /* NULL: no format has this id */
	char *parse_msg;	     /* what libtraceevent said while parsing it */
	bool parse_failed;
	char *unsafe;		     /* why libtraceevent must not print it, or NULL */
	bool crashed;		     /* libtraceevent trapped on it: never call it again */
	bool said;		     /* a problem with this id was already reported */
};

struct report {
	const char *file;
	struct tracedat td;
	struct tep_handle *tep;
	struct tep_plugin_list *plugins;
	struct event_note *notes; /* indexed by event id, 65536 entries */
	unsigned char *scratch;	  /* a record copy with a zeroed tail */
	size_t scratch_size;
	int problems; /* events not rendered faithfully */
};

struct stream {
	size_t buffer;
	uint32_t cpu;
	const struct td_cpu *c;
	struct kbuffer *kbuf;
	uint64_t page;
	bool has; /* rec is valid */
	struct tep_record rec;
};

static char *dup_text(const struct td_text *t)
{
	char *s = malloc(t->len + 1);

	if (s) {
		memcpy(s, t->data, t->len);
		s[t->len] = '\0';
	}
	return s;
}

static const char *event_label(const struct report *r, int id, char *buf, size_t len)
{
	const struct td_format *f = r->notes[id].fmt;

	if (f)
		snprintf(buf, len, "%s:%s", f->system, f->name);
	else
		snprintf(buf, len, "id %d", id);
	return buf;
}

/* A record's time for messages, as the report line shows it. */
static const char *record_time(const struct report *r, const struct tep_record *rec, char *buf,
			       size_t len)
{
	if (r->td.ts_in_ns)
		snprintf(buf, len, "%llu.%06llu", rec->ts / 1000000000ULL,
			 (rec->ts % 1000000000ULL) / 1000ULL);
	else
		snprintf(buf, len, "%llu", rec->ts);
	return buf;
}

static void problem(struct report *r, int id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Says a rendering problem once per event id; every one makes the exit status 1. */
static void problem(struct report *r, int id, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	r->problems++;
	if (id >= 0 && id <= 0xffff) {
		if (r->notes[id].said)
			return;
		r->notes[id].said = true;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tool_error(VERB, "%s: %s", r->file, msg);
}

/*
 * The last line of defence.  libtraceevent 1.7.1 divides by a value from the
 * record without looking (a print fmt "REC->a / REC->b" and a record with b = 0
 * is SIGFPE, in trace-cmd too), and it trusts the shape of what it parsed in
 * places the checks below may not foresee.  Its calls run under this guard: a
 * trap jumps back here, the event is marked and never handed to it again, and
 * the report goes on and ends with exit status 1.  Nothing of the library's
 * state is reused after a trap except what other events need, which is read
 * only; the memory it held at that moment is leaked on purpose.
 */

/*
 * Shapes of a parsed print fmt that libtraceevent 1.7.1 prints by following
 * a pointer it never set (event-parse.c, print_str_arg(), eval_num_arg()):
 * __print_hex()/__print_array() of something that is not a field, a ?: whose
 * right side is not a ':', a __get_cpumask() of no field; and names of fields
 * that do not exist, which it prints as 0 or nothing without a word.
 */
static const char *unsafe_list(struct tep_event *ev, struct tep_print_arg *a, int depth,
			       char *why, size_t len);

static const char *unsafe_arg(struct tep_event *ev, struct tep_print_arg *a, int depth, char *why,
			      size_t len)
{
	const char *bad;

	if (!a)
		return NULL;
	if (depth > 200)
		return "print fmt nested too deeply";
	{
		switch (a->type) {
		case TEP_PRINT_FIELD:
			if (!a->field.field && !tep_find_any_field(ev, a->field.name)) {
				snprintf(why, len, "the print fmt uses REC->%.60s, which is not a field",
					 a->field.name ? a->field.name : "?");
				return why;
			}
			break;
		case TEP_PRINT_FLAGS:
			if ((bad = unsafe_arg(ev, a->flags.field, depth + 1, why, len)))
				return bad;
			break;
		case TEP_PRINT_SYMBOL:
			if ((bad = unsafe_arg(ev, a->symbol.field, depth + 1, why, len)))
				return bad;
			break;
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR:
		case TEP_PRINT_INT_ARRAY: {
			struct tep_print_arg *f = a->type == TEP_PRINT_INT_ARRAY ?
							  a->int_array.field : a->hex.field;

			if (!f || (f->type != TEP_PRINT_FIELD && f->type != TEP_PRINT_DYNAMIC_ARRAY))
				return "__print_hex() or __print_array() of something that is not "
				       "a field";
			if ((bad = unsafe_arg(ev, f, depth + 1, why, len)))
				return bad;
			if (a->type == TEP_PRINT_INT_ARRAY) {
				if ((bad = unsafe_arg(ev, a->int_array.count, depth + 1, why, len)) ||
				    (bad = unsafe_arg(ev, a->int_array.el_size, depth + 1, why, len)))
					return bad;
			} else if ((bad = unsafe_arg(ev, a->hex.size, depth + 1, why, len))) {
				return bad;
			}
			break;
		}
		case TEP_PRINT_TYPE:
			if ((bad = unsafe_arg(ev, a->typecast.item, depth + 1, why, len)))
				return bad;
			break;
		case TEP_PRINT_STRING:
			if (!a->string.field && !tep_find_any_field(ev, a->string.string)) {
				snprintf(why, len, "the print fmt uses __get_str(%.60s), which is not "
					 "a field", a->string.string ? a->string.string : "?");
				return why;
			}
			break;
		case TEP_PRINT_BITMASK:
		case TEP_PRINT_CPUMASK:
			if (!a->bitmask.field && !tep_find_any_field(ev, a->bitmask.bitmask)) {
				snprintf(why, len, "the print fmt uses a bitmask %.60s, which is not a "
					 "field", a->bitmask.bitmask ? a->bitmask.bitmask : "?");
				return why;
			}
			break;
		case TEP_PRINT_DYNAMIC_ARRAY:
		case TEP_PRINT_DYNAMIC_ARRAY_LEN:
			if (!a->dynarray.field)
				return "a dynamic array of no field";
			if ((bad = unsafe_arg(ev, a->dynarray.index, depth + 1, why, len)))
				return bad;
			break;
		case TEP_PRINT_OP:
			if (!a->op.op)
				return "an operator without a name";
			if (a->op.op[0] == '?' &&
			    (!a->op.right || a->op.right->type != TEP_PRINT_OP ||
			     !a->op.right->op.op || strcmp(a->op.right->op.op, ":")))
				return "a ?: without its ':'";
			if ((bad = unsafe_arg(ev, a->op.left, depth + 1, why, len)) ||
			    (bad = unsafe_arg(ev, a->op.right, depth + 1, why, len)))
				return bad;
			break;
		case TEP_PRINT_FUNC:
			if ((bad = unsafe_list(ev, a->func.args, depth + 1, why, len)))
				return bad;
			break;
		default:
			break;
		}
	}
	return NULL;
}

/* An argument list: the print fmt's, or a function's; only these chain by next. */
static const char *unsafe_list(struct tep_event *ev, struct tep_print_arg *a, int depth,
			       char *why, size_t len)
{
	const char *bad;
	int n = 0;

	for (; a; a = a->next) {
		if (++n > 1000)
			return "print fmt with too many arguments";
		if ((bad = unsafe_arg(ev, a, depth, why, len)))
			return bad;
	}
	return NULL;
}

static int setup_tep(struct report *r)
{
	struct tracedat *td = &r->td;
	char *text;

	r->tep = tep_alloc();
	if (!r->tep)
		return -1;
	/* the same plugins trace-cmd loads: they print sched_switch and friends */
	r->plugins = tep_load_plugins(r->tep);
	tep_set_file_bigendian(r->tep, td->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(r->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
					       TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(r->tep, (int)td->long_size);

	text = dup_text(&td->header_page);
	if (!text)
		return -1;
	tep_parse_header_page(r->tep, text, td->header_page.len, (int)td->long_size);
	free(text);

	for (size_t i = 0; i < td->nr_formats; i++) {
		const struct td_format *f = &td->formats[i];
		struct event_note *n = &r->notes[f->id];
		enum tep_errno err;
		struct tep_event *ev;
		char why[160];
		int sig;

		n->fmt = f;
		if (tracedat_check_print_fields(f, why, sizeof(why))) {
			n->parse_failed = true;
			n->parse_msg = strdup(why);
			continue;
		}
		tep_log_clear();
		err = 0;
		sig = guarded_parse(r->tep, f->text.data, f->text.len, f->system, &err);
		if (sig) {
			n->crashed = true;
			n->parse_failed = true;
			snprintf(why, sizeof(why), "libtraceevent stopped with %s while parsing it",
				 guard_signal_name(sig));
			n->unsafe = strdup(why);
			continue;
		}
		ev = tep_find_event(r->tep, f->id);
		if (ev && !err && !(ev->flags & TEP_EVENT_FL_FAILED)) {
			const char *unsafe = unsafe_list(ev, ev->print_fmt.args, 0, why, sizeof(why));

			if (unsafe)
				n->unsafe = strdup(unsafe);
		}
		if (err || !ev || (ev->flags & TEP_EVENT_FL_FAILED)) {
			why[0] = '\0';
			n->parse_failed = true;
			if (err)
				tep_strerror(r->tep, err, why, sizeof(why));
			if (tep_log.len || *why)
				n->parse_msg = strdup(tep_log.len ? tep_log.text : why);
		}
	}
	tep_log_clear();

	if (td->kallsyms.len) {
		text = dup_text(&td->kallsyms);
		if (!text)
			return -1;
		tep_parse_kallsyms(r->tep, text);
		free(text);
	}
	if (td->printk.len) {
		text = dup_text(&td->printk);
		if (!text)
			return -1;
		tep_parse_printk_formats(r->tep, text);
		free(text);
	}
	/* the reader checked that every line is one tep_parse_saved_cmdlines() takes */
	text = dup_text(&td->cmdlines_text);
	if (!text)
		return -1;
	tep_parse_saved_cmdlines(r->tep, text);
	free(text);
	tep_set_cpus(r->tep, (int)td->nr_cpus);
	tep_log_clear();
	return 0;
}

/* Loads the stream's next record, from this page or the ones after it. */
static void stream_fill(struct report *r, struct stream *s, void *data, unsigned long long ts)
{
	while (!data) {
		const unsigned char *page;

		if (s->page >= s->c->nr_pages) {
			s->has = false;
			return;
		}
		page = tracedat_page(&r->td, s->buffer, s->cpu, s->page++);
		/* kbuffer only reads the page; the reader checked every event in it */
		kbuffer_load_subbuffer(s->kbuf, (void *)page);
		data = kbuffer_read_event(s->kbuf, &ts);
	}
	memset(&s->rec, 0, sizeof(s->rec));
	s->rec.ts = tracedat_ts(&r->td, ts);
	s->rec.size = kbuffer_event_size(s->kbuf);
	s->rec.data = data;
	s->rec.cpu = (int)s->cpu;
	s->rec.missed_events = kbuffer_missed_events(s->kbuf);
	s->has = true;
}

static void stream_advance(struct report *r, struct stream *s)
{
	unsigned long long ts = 0;
	void *data = kbuffer_next_event(s->kbuf, &ts);

	stream_fill(r, s, data, ts);
}

/* Pads the event name to 20 columns, as trace-cmd's print_event_name() does. */
static void print_event_name(struct trace_seq *s, const struct tep_event *ev)
{
	const char *name = ev ? ev->name : "(NULL)";
	size_t len = strlen(name);

	trace_seq_printf(s, " %s: ", name);
	if (len < 20)
		trace_seq_printf(s, "%*s", (int)(20 - len), "");
}

static void show_record(struct report *r, struct tep_record *rec, const char *prefix, int width)
{
	struct tracedat *td = &r->td;
	struct tep_event *ev;
	int id;
	struct trace_seq s;
	char label[160], why[256], when[48];
	const char *bad = NULL;
	size_t need;

	/*
	 * libtraceevent gets a copy with a zeroed tail: a string without its NUL
	 * ends in the tail, not past the last page of the file.
	 */
	need = (size_t)rec->size + td->page_size;
	if (need > r->scratch_size) {
		unsigned char *grown = realloc(r->scratch, need);

		if (!grown) {
			problem(r, -1, "out of memory");
			return;
		}
		r->scratch = grown;
		r->scratch_size = need;
	}
	memcpy(r->scratch, rec->data, (size_t)rec->size);
	memset(r->scratch + rec->size, 0, r->scratch_size - (size_t)rec->size);
	rec->data = r->scratch;
	/* the reader checked that every format has common_type at 0, 2 bytes */
	ev = tep_find_event_by_record(r->tep, rec);
	id = (int)tep_read_number(r->tep, rec->data, 2);

	if (prefix)
		printf(*prefix ? "%*s: " : "%*s  ", width, prefix);
	trace_seq_init(&s);
	if (rec->missed_events > 0)
		trace_seq_printf(&s, "CPU:%d [%lld EVENTS DROPPED]\n", rec->cpu,
				 rec->missed_events);
	else if (rec->missed_events < 0)
		trace_seq_printf(&s, "CPU:%d [EVENTS DROPPED]\n", rec->cpu);

	if (!ev) {
		const struct event_note *n = &r->notes[id];
		const char *msg = n->parse_msg ? n->parse_msg : n->unsafe;

		if (n->fmt && n->parse_failed)
			problem(r, id, "event %s: libtraceevent cannot parse its format%s%s; its "
				"records print as [UNKNOWN EVENT]", event_label(r, id, label,
				sizeof(label)), msg ? ": " : "", msg ? msg : "");
		else
			problem(r, id, "records with event id %d have no format; they print as "
				"[UNKNOWN EVENT]", id);
	} else {
		bad = guard_check_fields(r->tep, ev, rec, why, sizeof(why));
		if (bad)
			problem(r, id, "event %s: the record on CPU %d at %s is corrupt: %s; it "
				"prints as [CORRUPT RECORD]", event_label(r, id, label,
				sizeof(label)), rec->cpu, record_time(r, rec, when, sizeof(when)),
				bad);
	}

	tep_log_clear();
	tep_print_event(r->tep, &s, rec, "%16s-%-5d [%03d]", TEP_PRINT_COMM, TEP_PRINT_PID,
			TEP_PRINT_CPU);
	tep_print_event(r->tep, &s, rec, td->ts_in_ns ? " %6.1000d:" : "%12d:",
			TEP_PRINT_TIME);
	print_event_name(&s, ev);
	need = s.len; /* where the event's own text starts */
	if (bad) {
		trace_seq_printf(&s, "[CORRUPT RECORD]");
	} else if (!ev) {
		tep_print_event(r->tep, &s, rec, "%s", TEP_PRINT_INFO);
	} else if (r->notes[id].crashed) {
		trace_seq_printf(&s, "[FAILED TO PRINT]");
	} else if (r->notes[id].unsafe) {
		problem(r, id, "event %s: libtraceevent cannot print it safely: %s; its records "
			"print as [FAILED TO PARSE] and their fields",
			event_label(r, id, label, sizeof(label)), r->notes[id].unsafe);
		trace_seq_printf(&s, "[FAILED TO PARSE]");
		tep_print_fields(&s, rec->data, rec->size, ev);
	} else {
		struct trace_seq info;
		int sig;

		trace_seq_init(&info);
		sig = guarded_info(r->tep, &info, rec);
		if (sig) {
			/*
			 * A division traps in arithmetic, between seq writes: the seq is
			 * whole.  After a bad access it may not be: leave it.
			 */
			if (sig == SIGFPE)
				trace_seq_destroy(&info);
			r->notes[id].crashed = true;
			problem(r, id, "event %s: libtraceevent stopped with %s while printing "
				"the record on CPU %d at %s; its records print as [FAILED TO "
				"PRINT]", event_label(r, id, label, sizeof(label)),
				guard_signal_name(sig), rec->cpu, record_time(r, rec, when, sizeof(when)));
			trace_seq_printf(&s, "[FAILED TO PRINT]");
		} else {
			trace_seq_terminate(&info);
			trace_seq_puts(&s, info.buffer);
			trace_seq_destroy(&info);
		}
	}
	trace_seq_terminate(&s);
	if (ev && !bad && !r->notes[id].crashed && !r->notes[id].unsafe) {
		if (!strncmp(s.buffer + need, "[FAILED TO PARSE]", 17)) {
			const struct event_note *n = &r->notes[id];

			problem(r, id, "event %s: libtraceevent cannot parse its format%s%s; its "
				"records print as [FAILED TO PARSE]",
				event_label(r, id, label, sizeof(label)),
				n->parse_msg ? ": " : "", n->parse_msg ? n->parse_msg : "");
		} else if (tep_log.len) {
			problem(r, id, "event %s: libtraceevent: %s; its records may print wrong "
				"values", event_label(r, id, label, sizeof(label)), tep_log.text);
		}
	}
	tep_log_clear();
	if (s.len && s.buffer[s.len - 1] == '\n')
		s.len--;
	trace_seq_do_printf(&s);
	trace_seq_destroy(&s);
	printf("\n");
}

/* Formats that failed to parse but that no record uses: named, not counted. */
static void note_unused_failures(struct report *r)
{
	char list[512];
	size_t len = 0, n = 0;

	list[0] = '\0';
	for (size_t i = 0; i < r->td.nr_formats; i++) {
		const struct td_format *f = &r->td.formats[i];
		const struct event_note *note = &r->notes[f->id];

		if (!note->parse_failed || note->said)
			continue;
		n++;
		if (len < sizeof(list) - 64)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s:%s",
						n > 1 ? ", " : "", f->system, f->name);
		else if (len < sizeof(list) - 5 && list[len - 1] != '.')
			len += (size_t)snprintf(list + len, sizeof(list) - len, ", ...");
	}
	if (n)
		tool_error(VERB, "%s: note: %zu event format%s that no record uses could not be "
			   "parsed by libtraceevent: %s", r->file, n, n > 1 ? "s" : "", list);
}

static int render(struct report *r)
{
	struct tracedat *td = &r->td;
	struct stream *streams;
	size_t nr = 0, shown = 0;
	int width = 0;
	bool instances = td->nr_buffers > 1;

	streams = calloc(td->nr_buffers * (size_t)td->nr_cpus + 1, sizeof(*streams));
	if (!streams)
		return -1;
	for (size_t b = 0; b < td->nr_buffers; b++) {
		const char *base = strrchr(td->buffers[b].name, '/');
		int w;

		/* trace-cmd pads the buffer names to the longest base name */
		base = base ? base + 1 : td->buffers[b].name;
		w = (int)strlen(base);
		if (w > width)
			width = w;
		for (uint32_t cpu = 0; cpu < td->nr_cpus; cpu++) {
			struct stream *s = &streams[nr];

			if (!td->buffers[b].cpus[cpu].nr_pages)
				continue;
			s->buffer = b;
			s->cpu = cpu;
			s->c = &td->buffers[b].cpus[cpu];
			s->kbuf = kbuffer_alloc(td->kernel_long == 8 ? KBUFFER_LSIZE_8 :
								     KBUFFER_LSIZE_4,
						td->big_endian ? KBUFFER_ENDIAN_BIG :
								 KBUFFER_ENDIAN_LITTLE);
			if (!s->kbuf)
				goto oom;
			nr++;
			stream_fill(r, s, NULL, 0);
		}
	}

	printf("cpus=%" PRIu32 "\n", td->nr_cpus);
	for (;;) {
		struct stream *next = NULL;
		const char *prefix = NULL;

		/* the earliest record; on a tie the first buffer and lowest CPU, as trace-cmd */
		for (size_t i = 0; i < nr; i++)
			if (streams[i].has && (!next || streams[i].rec.ts < next->rec.ts))
				next = &streams[i];
		if (!next)
			break;
		if (instances) {
			const char *name = td->buffers[next->buffer].name;
			const char *base = strrchr(name, '/');

			prefix = base ? base + 1 : name;
		}
		{
			/* show_record points rec->data at its copy: keep kbuffer's pointer */
			struct tep_record rec = next->rec;

			show_record(r, &rec, prefix, width);
			shown++;
		}
		stream_advance(r, next);
	}
	/* An empty report is not an answer: say it, and the usual cause. */
	if (!shown)
		tool_error(VERB, "%s: no events in this file (was any event enabled while it "
			   "recorded? TPOINT_EVENTS or -e select them)", r->file);
	for (size_t i = 0; i < nr; i++)
		kbuffer_free(streams[i].kbuf);
	free(streams);
	return 0;
oom:
	for (size_t i = 0; i < nr; i++)
		kbuffer_free(streams[i].kbuf);
	free(streams);
	return -1;
}

/* ---- --stats ------------------------------------------------------------ */

struct stat_row {
	char *event;	     /* system:name */
	uint64_t v[5];	     /* hits, cond_skipped, filtered, recorded, lost */
	bool has_stats;
	uint64_t in_file;    /* records found in the data */
	char *condition;
};

struct stat_table {
	struct stat_row *rows;
	size_t nr, cap;
};

static struct stat_row *stat_row(struct stat_table *t, const char *event)
{
	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->rows[i].event, event))
			return &t->rows[i];
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct stat_row *grown = realloc(t->rows, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		t->rows = grown;
		t->cap = cap;
	}
	memset(&t->rows[t->nr], 0, sizeof(t->rows[0]));
	t->rows[t->nr].event = strdup(event);
	if (!t->rows[t->nr].event)
		return NULL;
	return &t->rows[t->nr++];
}

static bool parse_u64(const char *s, size_t len, uint64_t *v)
{
	uint64_t x = 0;

	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return true;
}

/* "system:name\thits\tcond_skipped\tfiltered\trecorded\tlost\tcondition\n"..., then a NUL. */
static int parse_stats(struct report *r, const struct td_option *o, struct stat_table *t)
{
	const char *p = (const char *)o->data, *end;
	size_t line = 0;

	if (!o->size || o->data[o->size - 1] != '\0' || memchr(p, '\0', o->size - 1)) {
		tool_error(VERB, "%s: tpoint statistics (option 0x%x at offset %" PRIu64 ") do not "
			   "end with their only NUL", r->file, o->id, o->offset);
		return -1;
	}
	end = p + o->size - 1;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *f[7], *fe[7];
		struct stat_row *row;
		int n = 0;

		line++;
		if (!eol) {
			tool_error(VERB, "%s: tpoint statistics line %zu does not end with a newline",
				   r->file, line);
			return -1;
		}
		/* six tabs: the condition, last, keeps any tab of its own */
		f[0] = p;
		for (const char *q = p; q < eol && n < 6; q++) {
			if (*q == '\t') {
				fe[n] = q;
				f[++n] = q + 1;
			}
		}
		fe[n] = eol;
		if (n != 6 || fe[0] == f[0] || !memchr(f[0], ':', (size_t)(fe[0] - f[0]))) {
			tool_error(VERB, "%s: tpoint statistics line %zu: expected \"system:name\\t"
				   "hits\\tcond_skipped\\tfiltered\\trecorded\\tlost\\tcondition\"",
				   r->file, line);
			return -1;
		}
		{
			char *name = strndup(f[0], (size_t)(fe[0] - f[0]));

			row = name ? stat_row(t, name) : NULL;
			free(name);
		}
		if (!row)
			return -1;
		if (row->has_stats) {
			tool_error(VERB, "%s: tpoint statistics line %zu: %s appears twice", r->file,
				   line, row->event);
			return -1;
		}
		for (int i = 0; i < 5; i++) {
			if (!parse_u64(f[i + 1], (size_t)(fe[i + 1] - f[i + 1]), &row->v[i])) {
				static const char *const names[] = { "hits", "cond_skipped",
								      "filtered", "recorded", "lost" };

				tool_error(VERB, "%s: tpoint statistics line %zu: %s is not a "
					   "number", r->file, line, names[i]);
				return -1;
			}
		}
		row->condition = strndup(f[6], (size_t)(fe[6] - f[6]));
		if (!row->condition)
			return -1;
		row->has_stats = true;
		p = eol + 1;
	}
	return 0;
}

/* Lost events as the page headers say, which is what the report shows. */
struct lost_total {
	unsigned long long counted;
	unsigned long long unknown; /* pages that lost an unknown number */
};

static int count_records(struct report *r, struct stat_table *t, struct lost_total *lost)
{
	struct tracedat *td = &r->td;
	uint64_t *counts = calloc(0x10000, sizeof(*counts));
	char label[300];

	if (!counts)
		return -1;
	for (size_t b = 0; b < td->nr_buffers; b++) {
		for (uint32_t cpu = 0; cpu < td->nr_cpus; cpu++) {
			struct td_cursor c;
			struct td_event ev;

			tracedat_cursor_init(&c, td, b, cpu);
			while (tracedat_next_event(&c, &ev) == 1) {
				counts[tracedat_u16(td, ev.data)]++;
				if (ev.missed > 0)
					lost->counted += (unsigned long long)ev.missed;
				else if (ev.missed < 0)
					lost->unknown++;
			}
		}
	}
	for (int id = 0; id <= 0xffff; id++) {
		struct stat_row *row;

		if (!counts[id])
			continue;
		if (r->notes[id].fmt)
			snprintf(label, sizeof(label), "%s:%s", r->notes[id].fmt->system,
				 r->notes[id].fmt->name);
		else
			snprintf(label, sizeof(label), "(unknown id %d)", id);
		row = stat_row(t, label);
		if (!row) {
			free(counts);
			return -1;
		}
		row->in_file += counts[id];
	}
	free(counts);
	return 0;
}

/*
 * What the counters do not say (tpoint's notes option): events kept off because their print
 * format cannot be rendered, and lost records that were too big for a page. A line each.
 */
static void show_notes(struct report *r)
{
	const struct td_option *o = tracedat_option(&r->td, TD_OPT_TPOINT_NOTES);
	const char *p, *end;

	if (!o || !o->size || o->data[o->size - 1] != '\0')
		return;
	p = (const char *)o->data;
	end = p + o->size - 1;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		char line[512], *t1, *t2;
		unsigned long long big;

		if (!eol || (size_t)(eol - p) >= sizeof(line))
			return;
		memcpy(line, p, (size_t)(eol - p));
		line[eol - p] = 0;
		p = eol + 1;
		t1 = strchr(line, '\t');
		t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		if (!t2)
			return;
		*t1 = *t2 = 0;
		big = strtoull(t1 + 1, NULL, 10);
		if (big)
			printf("%s: too big: %llu lost record%s larger than a page holds (%u bytes, "
			       "TPOINT_MAX_PAYLOAD)\n", line, big, big == 1 ? " was" : "s were",
			       (unsigned)TPOINT_MAX_PAYLOAD);
		if (!strcmp(t2 + 1, "1"))
			printf("%s: refused: it stayed off, libtraceevent cannot render its TP_printk "
			       "('tpoint list --check' names the problem)\n", line);
	}
}

static int show_stats(struct report *r)
{
	const struct td_option *o = tracedat_option(&r->td, TD_OPT_TPOINT_STATS);
	static const char *const head[] = { "hits", "cond-skipped", "filtered", "recorded",
					    "lost", "in-file" };
	struct stat_table t = { 0 };
	struct lost_total lost = { 0 };
	int ret = EXIT_FAIL;
	int w[7];
	char num[32];

	if (o && parse_stats(r, o, &t))
		goto out;
	if (!o)
		printf("%s: no tpoint statistics in this file; counting the records in it\n",
		       r->file);
	if (count_records(r, &t, &lost))
		goto out;

	w[0] = 5;
	for (int i = 0; i < 6; i++)
		w[i + 1] = (int)strlen(head[i]);
	for (size_t i = 0; i < t.nr; i++) {
		int l = (int)strlen(t.rows[i].event);

		if (l > w[0])
			w[0] = l;
		for (int k = 0; k < 6; k++) {
			l = snprintf(num, sizeof(num), "%" PRIu64,
				     k < 5 ? t.rows[i].v[k] : t.rows[i].in_file);
			if (l > w[k + 1])
				w[k + 1] = l;
		}
	}
	if (o) {
		printf("%-*s", w[0], "event");
		for (int k = 0; k < 6; k++)
			printf("  %*s", w[k + 1], head[k]);
		printf("  condition\n");
	} else {
		printf("%-*s  %*s\n", w[0], "event", w[6], head[5]);
	}
	for (size_t i = 0; i < t.nr; i++) {
		const struct stat_row *row = &t.rows[i];

		printf("%-*s", w[0], row->event);
		if (o) {
			for (int k = 0; k < 5; k++) {
				if (row->has_stats)
					printf("  %*" PRIu64, w[k + 1], row->v[k]);
				else
					printf("  %*s", w[k + 1], "-");
			}
		}
		printf("  %*" PRIu64, w[6], row->in_file);
		if (o && row->condition && *row->condition)
			printf("  %s", row->condition);
		printf("\n");
	}
	uint64_t in_file = 0;

	for (size_t i = 0; i < t.nr; i++)
		in_file += t.rows[i].in_file;
	show_notes(r);
	if (!in_file)
		printf("no events in this file\n");
	uint64_t counters = 0;

	for (size_t i = 0; i < t.nr; i++)
		counters += t.rows[i].has_stats ? t.rows[i].v[4] : 0;
	if (counters > lost.counted) {
		/* The counters are the truth `tpoint record` printed; the marks show where. */
		printf("lost: %" PRIu64 ", of which %llu are marked where they happened ([N EVENTS "
		       "DROPPED] in the report) and %llu have no later record of their thread to "
		       "mark (lost at its end, or in pages that never reached the file)",
		       counters, lost.counted, (unsigned long long)(counters - lost.counted));
		if (lost.unknown)
			printf("; an unknown number more in %llu place%s", lost.unknown,
			       lost.unknown > 1 ? "s" : "");
		printf("\n");
	} else if (lost.counted || lost.unknown) {
		printf("lost: %llu, all marked where they happened ([N EVENTS DROPPED] in the "
		       "report)", lost.counted);
		if (lost.unknown)
			printf(", and an unknown number in %llu place%s", lost.unknown,
			       lost.unknown > 1 ? "s" : "");
		printf("\n");
	}
	ret = EXIT_OK;
out:
	for (size_t i = 0; i < t.nr; i++) {
		free(t.rows[i].event);
		free(t.rows[i].condition);
	}
	free(t.rows);
	return ret;
}

/* ---- the verb ------------------------------------------------------------ */

static void report_free(struct report *r)
{
	if (r->tep) {
		if (r->plugins)
			tep_unload_plugins(r->plugins, r->tep);
		tep_free(r->tep);
	}
	for (int i = 0; r->notes && i <= 0xffff; i++) {
		free(r->notes[i].parse_msg);
		free(r->notes[i].unsafe);
	}
	free(r->notes);
	free(r->scratch);
	tracedat_close(&r->td);
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "stats", no_argument, NULL, 's' },
		{ "input", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = NULL;
	bool stats = false;
	struct report r;
	char err[512];
	int opt, ret;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:hi:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 's':
			stats = true;
			break;
		case 'i':
			if (file) {
				tool_error(VERB, "only one file can be read");
				return EXIT_USAGE;
			}
			file = optarg;
			break;
		case ':':
			tool_error(VERB, "option '%s' needs a file", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			if (optopt)
				tool_error(VERB, "unknown option '-%c'; see 'tpoint report --help'",
					   optopt);
			else
				tool_error(VERB, "unknown option '%s'; see 'tpoint report --help'",
					   argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		if (file || optind + 1 < argc) {
			tool_error(VERB, "only one file can be read");
			return EXIT_USAGE;
		}
		file = argv[optind];
	}
	if (!file)
		file = "trace.dat";

	memset(&r, 0, sizeof(r));
	r.file = file;
	if (tracedat_open(&r.td, file, err, sizeof(err))) {
		tool_error(VERB, "%s", err);
		return EXIT_FAIL;
	}
	r.notes = calloc(0x10000, sizeof(*r.notes));
	if (!r.notes) {
		tool_error(VERB, "out of memory");
		report_free(&r);
		return EXIT_FAIL;
	}
	for (size_t i = 0; i < r.td.nr_formats; i++)
		r.notes[r.td.formats[i].id].fmt = &r.td.formats[i];

	if (stats) {
		ret = show_stats(&r);
		report_free(&r);
		return ret;
	}

	tep_log.capture = true;
	tep_set_loglevel(TEP_LOG_WARNING);
	guard_install();
	if (setup_tep(&r)) {
		tool_error(VERB, "out of memory");
		ret = EXIT_FAIL;
		goto out;
	}
	if (tracedat_option(&r.td, TD_OPT_TIME_SHIFT))
		tool_error(VERB, "%s: note: the guest/host time-sync option is not applied; "
			   "times are the guest's own", file);
	if (render(&r)) {
		tool_error(VERB, "out of memory");
		ret = EXIT_FAIL;
		goto out;
	}
	note_unused_failures(&r);
	ret = r.problems ? EXIT_FAIL : EXIT_OK;
	if (fflush(stdout) || ferror(stdout)) {
		tool_error(VERB, "writing the report: %s", strerror(errno));
		ret = EXIT_FAIL;
	}
out:
	guard_remove();
	tep_log.capture = false;
	tep_set_loglevel(TEP_LOG_CRITICAL);
	report_free(&r);
	return ret;
}
