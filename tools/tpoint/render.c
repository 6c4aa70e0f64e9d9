/* SPDX-License-Identifier: MIT */
/*
 * The renderer shared by report and stream (render.h). The calls are the ones trace-cmd
 * 3.1.6 makes (tracecmd/trace-read.c, trace_show_data()), so that every line is the one
 * trace-cmd prints for the same record.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>

#include <event-parse.h>
#include <event-utils.h>
#include <trace-seq.h>

#include "escape.h"
#include "kprint.h"
#include "render.h"
#include "tep_guard.h"
#include "tool.h"
#include "tracedat_read.h"

#define NR_IDS 0x10000

/*
 * libtraceevent's messages. tep_vprint() is the library's documented hook (a weak symbol,
 * event-utils.h): while a renderer is alive its warnings are kept so that they can be said
 * once, next to the event they concern; otherwise they go where the library sends them.
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

/* Renderers alive: report reads several files at once, each with its own. */
static int live_renderers;

static void tep_log_clear(void)
{
	tep_log.len = 0;
	tep_log.text[0] = '\0';
}

/*
 * libtraceevent 1.7 loads plugins from its system directory, then $TRACEEVENT_PLUGIN_DIR,
 * then $HOME/.local/lib/traceevent/plugins (tep_load_plugins_hook(): no flag turns off the
 * last two alone). A plugin is code. Root's tool (sudo -E, env_keep+=HOME: the variables
 * are a user's) or a tool with more privilege than its caller must not run what those name:
 * the two variables are hidden while the plugins load, so only the system's directory is
 * read (the project has no plugins of its own). The tool has no other thread yet.
 */
static struct tep_plugin_list *load_plugins(struct renderer *r)
{
	static const char *const hide[] = { "TRACEEVENT_PLUGIN_DIR", "HOME" };
	static bool said;
	char *saved[2] = { NULL, NULL };
	struct tep_plugin_list *list = NULL;
	bool ok = true;

	if (geteuid() != 0 && getuid() == geteuid() && getgid() == getegid() &&
	    !getauxval(AT_SECURE))
		return tep_load_plugins(r->tep);
	if (getenv(hide[0]) && !said) {
		tool_error(r->verb, "TRACEEVENT_PLUGIN_DIR=%s ignored: running as root (or "
			   "setuid), only the system's libtraceevent plugins are loaded",
			   getenv(hide[0]));
		said = true;
	}
	for (int i = 0; i < 2; i++) {
		const char *v = getenv(hide[i]);

		if (v && !(saved[i] = strdup(v)))
			ok = false;
	}
	/* without a copy to put back, no plugin at all rather than the user's */
	if (ok) {
		unsetenv(hide[0]);
		unsetenv(hide[1]);
		list = tep_load_plugins(r->tep);
	}
	for (int i = 0; i < 2; i++) {
		if (saved[i])
			setenv(hide[i], saved[i], 1);
		free(saved[i]);
	}
	return list;
}

int render_init(struct renderer *r, const char *verb, const char *file, bool big_endian,
		int long_size, size_t tail)
{
	memset(r, 0, sizeof(*r));
	r->verb = verb;
	r->file = file;
	r->ts_in_ns = true;
	r->tail = tail;
	/* the log hook and the guard are the process's: set up by the first renderer */
	if (!live_renderers++) {
		tep_log.capture = true;
		tep_log_clear();
		tep_set_loglevel(TEP_LOG_WARNING);
		guard_install();
	}
	r->events = calloc(NR_IDS, sizeof(*r->events));
	r->added = calloc(NR_IDS, sizeof(*r->added));
	r->tep = tep_alloc();
	if (!r->events || !r->added || !r->tep)
		return -1;
	/* the plugins trace-cmd loads: they print sched_switch and friends */
	r->plugins = load_plugins(r);
	/* the kernel's text where libtraceevent has its own (kprint.h) */
	if (kprint_register(r->tep))
		return -1;
	tep_set_file_bigendian(r->tep, big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(r->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
					       TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(r->tep, long_size);
	return 0;
}

void render_free(struct renderer *r)
{
	if (!r->verb)
		return; /* never set up */
	if (!--live_renderers) {
		guard_remove();
		tep_log.capture = false;
		tep_set_loglevel(TEP_LOG_CRITICAL);
	}
	if (r->tep) {
		if (r->plugins)
			tep_unload_plugins(r->plugins, r->tep);
		tep_free(r->tep);
	}
	for (size_t i = 0; r->events && i < NR_IDS; i++) {
		free(r->events[i].label);
		free(r->events[i].parse_msg);
		free(r->events[i].unsafe);
	}
	free(r->events);
	free(r->added);
	free(r->scratch);
	memset(r, 0, sizeof(*r));
}

static const char *event_label(const struct renderer *r, int id, char *buf, size_t len)
{
	const char *label = r->events[id].label;

	if (label)
		snprintf(buf, len, "%s", label);
	else
		snprintf(buf, len, "id %d", id);
	return buf;
}

/* A record's time for messages, as its line shows it. */
static const char *record_time(const struct renderer *r, const struct tep_record *rec,
			       char *buf, size_t len)
{
	if (r->ts_in_ns)
		snprintf(buf, len, "%llu.%06llu", rec->ts / 1000000000ULL,
			 (rec->ts % 1000000000ULL) / 1000ULL);
	else
		snprintf(buf, len, "%llu", rec->ts);
	return buf;
}

static void problem(struct renderer *r, int id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Says a rendering problem once per event id; every one counts. */
static void problem(struct renderer *r, int id, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	r->problems++;
	if (id >= 0 && id < NR_IDS) {
		if (r->events[id].said)
			return;
		r->events[id].said = true;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->file)
		tool_error(r->verb, "%s: %s", r->file, msg);
	else
		tool_error(r->verb, "%s", msg);
}

/*
 * Shapes of a parsed print fmt that libtraceevent 1.7.1 prints by following a pointer it
 * never set (event-parse.c, print_str_arg(), eval_num_arg()): __print_hex()/__print_array()
 * of something that is not a field, a ?: whose right side is not a ':', a __get_cpumask() of
 * no field; and names of fields that do not exist, which it prints as 0 or nothing without a
 * word.
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
		struct tep_print_arg *f = a->type == TEP_PRINT_INT_ARRAY ? a->int_array.field :
									   a->hex.field;

		if (!f || (f->type != TEP_PRINT_FIELD && f->type != TEP_PRINT_DYNAMIC_ARRAY))
			return "__print_hex() or __print_array() of something that is not a field";
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
			snprintf(why, len, "the print fmt uses __get_str(%.60s), which is not a field",
				 a->string.string ? a->string.string : "?");
			return why;
		}
		break;
	case TEP_PRINT_BITMASK:
	case TEP_PRINT_CPUMASK:
		if (!a->bitmask.field && !tep_find_any_field(ev, a->bitmask.bitmask)) {
			snprintf(why, len, "the print fmt uses a bitmask %.60s, which is not a field",
				 a->bitmask.bitmask ? a->bitmask.bitmask : "?");
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
		    (!a->op.right || a->op.right->type != TEP_PRINT_OP || !a->op.right->op.op ||
		     strcmp(a->op.right->op.op, ":")))
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

int render_add_format(struct renderer *r, int id, const char *system, const char *name,
		      const char *text, size_t len)
{
	struct render_event *n;
	struct td_format f = { .system = system, .text = { text, len }, .name = (char *)name,
			       .id = id };
	enum tep_errno err = 0;
	struct tep_event *ev;
	char why[160], *kernel_text;
	size_t kernel_len;
	int sig;

	if (id < 0 || id >= NR_IDS)
		return 0;
	n = &r->events[id];
	if (n->label)
		return 0;
	if (asprintf(&n->label, "%s:%s", system, name) < 0) {
		n->label = NULL;
		return -1;
	}
	r->added[r->nr_added++] = (unsigned short)id;
	if (tracedat_check_print_fields(&f, why, sizeof(why))) {
		n->parse_failed = true;
		n->parse_msg = strdup(why);
		return 0;
	}
	tep_log_clear();
	/* libtraceevent parses a copy that prints as the kernel does (kprint.h) */
	kernel_text = kprint_rewrite(text, len, &kernel_len);
	if (!kernel_text)
		return -1;
	sig = guarded_parse(r->tep, kernel_text, kernel_len, system, &err);
	free(kernel_text);
	if (sig) {
		n->crashed = true;
		n->parse_failed = true;
		snprintf(why, sizeof(why), "libtraceevent stopped with %s while parsing it",
			 guard_signal_name(sig));
		n->unsafe = strdup(why);
		tep_log_clear();
		return 0;
	}
	ev = tep_find_event(r->tep, id);
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
	tep_log_clear();
	return 0;
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

void render_dropped(int cpu, unsigned long long count)
{
	printf("CPU:%d [%llu EVENTS DROPPED]\n", cpu, count);
}

void render_record(struct renderer *r, const struct tep_record *orig, const char *prefix,
		   int width)
{
	struct tep_record copy = *orig, *rec = &copy;
	struct tep_event *ev;
	struct trace_seq s;
	char label[160], why[256], when[48];
	const char *bad = NULL;
	size_t need;
	int id;

	/*
	 * libtraceevent gets a copy with a zeroed tail: a string without its NUL ends in the
	 * tail, not past the end of the page or buffer the record is in.
	 */
	need = (size_t)rec->size + r->tail;
	if (need > r->scratch_size) {
		unsigned char *grown = realloc(r->scratch, need);

		if (!grown) {
			problem(r, -1, "out of memory");
			return;
		}
		r->scratch = grown;
		r->scratch_size = need;
	}
	memcpy(r->scratch, orig->data, (size_t)rec->size);
	memset(r->scratch + rec->size, 0, r->scratch_size - (size_t)rec->size);
	rec->data = r->scratch;
	/* every format has common_type at 0, 2 bytes (the trace.dat reader checks it) */
	ev = tep_find_event_by_record(r->tep, rec);
	id = (int)tep_read_number(r->tep, rec->data, 2);

	if (prefix) {
		char shown[4 * 256];

		printf(*prefix ? "%*s: " : "%*s  ", width, text_for(stdout, prefix, shown,
								    sizeof(shown)));
	}
	trace_seq_init(&s);
	if (rec->missed_events > 0)
		trace_seq_printf(&s, "CPU:%d [%lld EVENTS DROPPED]\n", rec->cpu,
				 rec->missed_events);
	else if (rec->missed_events < 0)
		trace_seq_printf(&s, "CPU:%d [EVENTS DROPPED]\n", rec->cpu);

	if (!ev) {
		const struct render_event *n = &r->events[id];
		const char *msg = n->parse_msg ? n->parse_msg : n->unsafe;

		if (n->label && n->parse_failed)
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
	tep_print_event(r->tep, &s, rec, r->ts_in_ns ? " %6.1000d:" : "%12d:", TEP_PRINT_TIME);
	print_event_name(&s, ev);
	need = s.len; /* where the event's own text starts */
	if (bad) {
		trace_seq_printf(&s, "[CORRUPT RECORD]");
	} else if (!ev) {
		tep_print_event(r->tep, &s, rec, "%s", TEP_PRINT_INFO);
	} else if (r->events[id].crashed) {
		trace_seq_printf(&s, "[FAILED TO PRINT]");
	} else if (r->events[id].unsafe) {
		problem(r, id, "event %s: libtraceevent cannot print it safely: %s; its records "
			"print as [FAILED TO PARSE] and their fields",
			event_label(r, id, label, sizeof(label)), r->events[id].unsafe);
		trace_seq_printf(&s, "[FAILED TO PARSE]");
		tep_print_fields(&s, rec->data, rec->size, ev);
	} else {
		struct trace_seq info;
		int sig;

		trace_seq_init(&info);
		sig = guarded_info(r->tep, &info, rec);
		if (sig) {
			/*
			 * A division traps in arithmetic, between seq writes: the seq is whole.
			 * After a bad access it may not be: leave it.
			 */
			if (sig == SIGFPE)
				trace_seq_destroy(&info);
			r->events[id].crashed = true;
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
	if (ev && !bad && !r->events[id].crashed && !r->events[id].unsafe) {
		if (!strncmp(s.buffer + need, "[FAILED TO PARSE]", 17)) {
			const struct render_event *n = &r->events[id];

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
	/*
	 * The line holds the record's strings and its thread's name as the traced program
	 * wrote them: escaped on a terminal (the line breaks a plugin or a print fmt put in
	 * stay), as they are through a pipe, where the report is trace-cmd's byte for byte.
	 */
	if (text_tty(stdout))
		text_write_escaped(stdout, s.buffer, s.len, true);
	else
		trace_seq_do_printf(&s);
	trace_seq_destroy(&s);
	printf("\n");
}

void render_note_unused(struct renderer *r)
{
	char list[512];
	size_t len = 0, n = 0;

	list[0] = '\0';
	for (size_t i = 0; i < r->nr_added; i++) {
		const struct render_event *e = &r->events[r->added[i]];

		if (!e->parse_failed || e->said)
			continue;
		n++;
		if (len < sizeof(list) - 64)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
						n > 1 ? ", " : "", e->label);
		else if (len < sizeof(list) - 5 && list[len - 1] != '.')
			len += (size_t)snprintf(list + len, sizeof(list) - len, ", ...");
	}
	if (!n)
		return;
	if (r->file)
		tool_error(r->verb, "%s: note: %zu event format%s that no record uses could not "
			   "be parsed by libtraceevent: %s", r->file, n, n > 1 ? "s" : "", list);
	else
		tool_error(r->verb, "note: %zu event format%s that no record uses could not be "
			   "parsed by libtraceevent: %s", n, n > 1 ? "s" : "", list);
}
