// SPDX-License-Identifier: MIT
/*
 * tpoint report - print the events of a trace.dat file, as trace-cmd report does.
 *
 * The file is validated by tracedat_read first, so that a damaged file gives
 * one clear line and exit status 1 instead of the silence, garbage or crash
 * that a trusting reader would give.  The events are then rendered by the
 * tool's renderer (render.h, shared with `tpoint stream`): libtraceevent, the
 * library trace-cmd uses, through the same calls that trace-cmd 3.1.6 makes,
 * so that every line is the one trace-cmd prints for the same file.
 *
 * What libtraceevent cannot render is never passed over in silence: a format
 * it cannot parse, a record it prints as [FAILED TO PARSE], a record whose id
 * has no format, a record too short for its format, or a warning it gives
 * while printing, is said once per event on stderr, and the exit status is 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include <tpoint/event.h>
#include "convert_backend.h"
#include "escape.h"
#include "fmt/control_msg.h"
#include "fmt/snapshot_fired.h"
#include "render.h"
#include "report_hist.h"
#include "report_select.h"
#include "options.h"
#include "td_merge.h"
#include "tool.h"
#include "tracedat_read.h"
#include "ustack_sym.h"

#define VERB "report"

enum { REPORT_OPT_SYNTHETIC = 400, REPORT_OPT_LATENCY, REPORT_OPT_KEY, REPORT_OPT_BY };

static const struct opts_spec report_opts = {
	.verb = VERB,
	.usage = (const char *const[]){ "tpoint report [-i FILE]... [--stats|--json] [FILE]...",
					"tpoint report [-e GLOBS [-f EXPR]]... [--pid PIDS] [--cpu CPUS]\n"
					"                     [--from S] [--to S] [--json] [FILE]...",
					"tpoint report --hist SYS:EVENT:hist:...[;...] [the selection above]\n"
					"                     [--synthetic DEF]... [--json] [FILE]...",
					"tpoint report --latency SYS:START,SYS:END --key FIELD [--by FIELD]\n"
					"                     [--hist ...] [the selection above] [FILE]...",
					NULL },
	.about = "Print the events of a trace.dat file (default trace.dat), all CPUs merged by\n"
		 "time, one line each, as 'trace-cmd report' prints them. Several files are\n"
		 "merged into one time line, each line led by its file's name, as\n"
		 "'trace-cmd report -i A -i B' does.\n",
	.opts = (const struct opt[]){
		{ 'i', 'i', "input", OPT_VALUE, "FILE", "a file to read (as with trace-cmd); repeatable", 0 },
		{ 's', 0, "stats", OPT_NO_VALUE, NULL,
		  "per event: hits, skipped by condition, filtered, recorded,\n"
		  "lost and the condition, as tpoint stored them; and the\n"
		  "records found in the file (one table per file)", 0 },
		OPT_JSON("JSON lines, one object per event (keys in tpoint(1))"),
		OPT_EVENTS("only the events these globs select: sys:name, sys:*,\n"
			   "sys or name, comma-separated; may be given more than once"),
		OPT_FILTER("only the records for which EXPR holds (the kernel's filter\n"
			   "syntax, as tpoint filter), of the events of the -e before\n"
			   "it; on those that lack its fields it does not apply (said)"),
		{ RSEL_OPT_PID, 0, "pid", OPT_VALUE, "PIDS",
		  "only the records of these threads (the number after the\n"
		  "comm), comma-separated; may be given more than once", 0 },
		{ RSEL_OPT_CPU, 0, "cpu", OPT_VALUE, "CPUS",
		  "only the records of these CPUs: numbers or ranges (0,2-3),\n"
		  "comma-separated; may be given more than once", 0 },
		{ RSEL_OPT_FROM, 0, "from", OPT_VALUE, "S",
		  "only the records at or after S seconds, as the report\n"
		  "prints times (12345.678901; up to 9 decimals)", 0 },
		{ RSEL_OPT_TO, 0, "to", OPT_VALUE, "S", "only the records before S seconds", 0 },
		{ 'H', 0, "hist", OPT_VALUE, "SYS:EVENT:hist:...",
		  "the kernel's histogram of the event (its hist: trigger),\n"
		  "printed as its hist file prints it (with --json: one object);\n"
		  "several separated by ';'; with variables, expressions and\n"
		  "onmatch(SYS.EVENT).trace(NAME,...) into synthetic events", 0 },
		{ REPORT_OPT_SYNTHETIC, 0, "synthetic", OPT_VALUE, "DEF",
		  "a synthetic event, as the kernel's synthetic_events file\n"
		  "takes it ('name u64 lat; pid_t pid; char comm[16]'); its\n"
		  "histograms are --hist 'synthetic:name:hist:...'; repeatable", 0 },
		{ REPORT_OPT_LATENCY, 0, "latency", OPT_VALUE, "SYS:START,SYS:END",
		  "the latency from each start to its end (same --key), in us,\n"
		  "as a .log2 histogram (by --by); the synthetic event and\n"
		  "triggers it stands for are said on stderr", 0 },
		{ REPORT_OPT_KEY, 0, "key", OPT_VALUE, "FIELD",
		  "--latency: the field both events carry that pairs them", 0 },
		{ REPORT_OPT_BY, 0, "by", OPT_VALUE, "FIELD",
		  "--latency: a field of the end (or else the start) to group by", 0 },
		OPT_END,
	},
	.after = "The file is checked first; a damaged file gives one line saying what is wrong\n"
		 "and where. Events libtraceevent cannot render are named on stderr.\n"
		 "A record is shown when every selection given keeps it (-e/-f, --pid, --cpu,\n"
		 "--from/--to); the others are not printed, and their lost-event marks go to the\n"
		 "next record shown of their CPU. --stats takes no selection.\n"
		 "Exit status: 0 all events rendered, 1 damaged file, events not rendered, a glob\n"
		 "or filter that matches no event of the files, or no record selected,\n"
		 "2 usage error.\n",
};
struct report {
	const char *file;
	struct tracedat td;
	const struct td_format **by_id; /* the format of each event id, or NULL */
	struct renderer rd;
	struct ustack_sym *ustack; /* the names of its user stacks, or NULL */
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

static int setup_tep(struct report *r)
{
	struct tracedat *td = &r->td;
	struct tep_handle *tep;
	char *text;

	if (render_init(&r->rd, VERB, r->file, td->big_endian, (int)td->long_size,
			td->page_size))
		return -1;
	r->rd.ts_in_ns = td->ts_in_ns;
	tep = r->rd.tep;
	text = dup_text(&td->header_page);
	if (!text)
		return -1;
	tep_parse_header_page(tep, text, td->header_page.len, (int)td->long_size);
	free(text);

	for (size_t i = 0; i < td->nr_formats; i++) {
		const struct td_format *f = &td->formats[i];

		if (render_add_format(&r->rd, f->id, f->system, f->name, f->text.data,
				      f->text.len))
			return -1;
	}
	if (td->kallsyms.len) {
		text = dup_text(&td->kallsyms);
		if (!text)
			return -1;
		tep_parse_kallsyms(tep, text);
		free(text);
	}
	if (td->printk.len) {
		text = dup_text(&td->printk);
		if (!text)
			return -1;
		tep_parse_printk_formats(tep, text);
		free(text);
	}
	/* the reader checked that every line is one tep_parse_saved_cmdlines() takes */
	text = dup_text(&td->cmdlines_text);
	if (!text)
		return -1;
	tep_parse_saved_cmdlines(tep, text);
	free(text);
	tep_set_cpus(tep, (int)td->nr_cpus);
	return 0;
}

static const char *base_name(const char *path)
{
	const char *base = strrchr(path, '/');

	return base ? base + 1 : path;
}

/*
 * A snapshot trigger's file (option SNAPSHOT, TRACEDAT-FORMAT.md): which event fired it and
 * its record's time and thread, the last record of the file. Under the cpus= line.
 */
static void show_fired(const struct tracedat *td)
{
	const struct td_option *o = tracedat_option(td, TD_OPT_TPOINT_SNAPSHOT);
	struct snapshot_fired f;
	char buf[4 * sizeof(f.event)];
	unsigned long long us;

	if (!o || tp_snapshot_fired_parse(o->data, o->size, &f))
		return;
	us = (f.ns + 500) / 1000; /* rounded as libtraceevent shows the records' times */
	printf("snapshot fired by %s: its record at %llu.%06llu, thread %u, ends the file\n",
	       text_for(stdout, f.event, buf, sizeof(buf)), us / 1000000ull, us % 1000000ull,
	       (unsigned)f.tid);
}

/*
 * The records of every file, buffer and CPU in one time line, as trace-cmd report -i A -i B
 * merges them (tracecmd_iterate_events_multi()): the earliest record next; on a tie the
 * first file, then the first buffer and the lowest CPU. With several files each line is led
 * by its file's base name (an instance's by the instance's), padded to the longest.
 */
static int show_events(struct report *rs, size_t nr_files, struct rsel *sel)
{
	struct td_merge *m = td_merge_new();
	struct td_merge_rec t;
	size_t *shown = calloc(nr_files, sizeof(*shown));
	int width = 0;
	bool prefixed = nr_files > 1;

	if (!m || !shown)
		goto oom;
	for (size_t f = 0; f < nr_files; f++) {
		struct tracedat *td = &rs[f].td;

		prefixed |= td->nr_buffers > 1;
		if (nr_files > 1 && (int)strlen(base_name(rs[f].file)) > width)
			width = (int)strlen(base_name(rs[f].file));
		for (size_t b = 0; b < td->nr_buffers; b++) {
			int w = (int)strlen(base_name(td->buffers[b].name));

			/* trace-cmd pads the names to the longest base name */
			if (w > width)
				width = w;
		}
		if (td_merge_add(m, td))
			goto oom;
	}
	if (sel)
		td_merge_select(m, rsel_keep, sel);

	for (size_t f = 0; f < nr_files; f++) {
		if (nr_files > 1)
			printf("%*s: ", width, base_name(rs[f].file));
		printf("cpus=%" PRIu32 "\n", rs[f].td.nr_cpus);
		show_fired(&rs[f].td);
	}
	while (td_merge_next(m, &t)) {
		struct report *r = &rs[t.file];
		const char *prefix = NULL;
		struct tep_record rec;

		memset(&rec, 0, sizeof(rec));
		rec.ts = t.ts;
		rec.size = (int)t.size;
		rec.data = (void *)t.data;
		rec.cpu = (int)t.cpu;
		rec.missed_events = t.missed;
		if (prefixed)
			prefix = t.buffer ? base_name(r->td.buffers[t.buffer].name) :
				 nr_files > 1 ? base_name(r->file) : "";
		render_record(&r->rd, &rec, prefix, width);
		shown[t.file]++;
	}
	/* An empty report is not an answer: say it, and the usual cause. */
	for (size_t f = 0; f < nr_files; f++)
		if (!shown[f] && !(sel && rsel_records(&rs[f].td))) /* else rsel_end() says it */
			tool_error(VERB, "%s: no events in this file (was any event enabled while "
				   "it recorded? TPOINT_EVENTS or -e select them)", rs[f].file);
	td_merge_free(m);
	free(shown);
	return 0;
oom:
	td_merge_free(m);
	free(shown);
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
		struct ctl_stat_row parsed;
		struct stat_row *row;
		char *text;
		int got;

		line++;
		if (!eol) {
			tool_error(VERB, "%s: tpoint statistics line %zu does not end with a newline",
				   r->file, line);
			return -1;
		}
		text = strndup(p, (size_t)(eol - p));
		if (!text)
			return -1;
		got = tp_ctl_stat_row_parse(text, &parsed, CTL_ROW_FILE);
		if (got == CTL_ROW_MALFORMED) {
			tool_error(VERB, "%s: tpoint statistics line %zu: expected \"system:name\\t"
				   "hits\\tcond_skipped\\tfiltered\\trecorded\\tlost\\tcondition\"",
				   r->file, line);
			free(text);
			return -1;
		}
		row = stat_row(t, parsed.event);
		if (row && row->has_stats) {
			tool_error(VERB, "%s: tpoint statistics line %zu: %s appears twice", r->file,
				   line, row->event);
			row = NULL;
		} else if (row && got) {
			static const char *const names[] = { "hits", "cond_skipped", "filtered",
							      "recorded", "lost" };

			tool_error(VERB, "%s: tpoint statistics line %zu: %s is not a number",
				   r->file, line, names[got - CTL_ROW_NOT_NUMBER]);
			row = NULL;
		} else if (row) {
			memcpy(row->v, parsed.v, sizeof(row->v));
			row->condition = strdup(parsed.condition);
		}
		free(text);
		if (!row || !row->condition)
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
		if (r->by_id[id])
			snprintf(label, sizeof(label), "%s:%s", r->by_id[id]->system,
				 r->by_id[id]->name);
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
		char line[512], buf[4 * sizeof(line)];
		struct ctl_note_row note;
		const char *shown;
		unsigned long long big;

		if (!eol || (size_t)(eol - p) >= sizeof(line))
			return;
		memcpy(line, p, (size_t)(eol - p));
		line[eol - p] = 0;
		p = eol + 1;
		if (tp_ctl_note_row_parse(line, &note) < 0)
			return;
		big = note.too_big;
		shown = text_for(stdout, note.event, buf, sizeof(buf)); /* the file's words */
		if (big)
			printf("%s: too big: %llu lost record%s larger than a page holds (%u bytes, "
			       "TPOINT_MAX_PAYLOAD)\n", shown, big, big == 1 ? " was" : "s were",
			       (unsigned)TPOINT_MAX_PAYLOAD);
		if (note.refusal == CTL_REFUSAL_FORMAT)
			printf("%s: refused: it stayed off, libtraceevent cannot render its TP_printk "
			       "('tpoint list --check' names the problem)\n", shown);
		else if (note.refusal == CTL_REFUSAL_REG)
			printf("%s: refused: it stayed off, its reg function returned %d\n", shown,
			       note.reg_error);
	}
}

/*
 * The kernel's own counts of a recording with kernel events (record -k): what its ring buffer
 * lost is counted per CPU, not per event (option KERNEL, TRACEDAT-FORMAT.md).
 */
static void show_kernel(struct report *r)
{
	const struct td_option *o = tracedat_option(&r->td, TD_OPT_TPOINT_KERNEL);
	unsigned long long v[5], sum[5] = { 0 };
	const char *p, *end;
	int cpu;

	if (!o || !o->size || o->data[o->size - 1])
		return;
	printf("kernel, per CPU as its ring buffer counted:\n%5s %12s %12s %14s %12s %12s\n",
	       "cpu", "entries", "overrun", "commit-overrun", "dropped", "read");
	for (p = (const char *)o->data; *p; p = *end ? end + 1 : end) {
		end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		if (sscanf(p, "%d\t%llu\t%llu\t%llu\t%llu\t%llu", &cpu, &v[0], &v[1], &v[2],
			   &v[3], &v[4]) != 6)
			continue;
		printf("%5d %12llu %12llu %14llu %12llu %12llu\n", cpu, v[0], v[1], v[2], v[3],
		       v[4]);
		for (int k = 0; k < 5; k++)
			sum[k] += v[k];
	}
	printf("kernel lost: %llu (overrun %llu, commit-overrun %llu, dropped %llu)\n",
	       sum[1] + sum[2] + sum[3], sum[1], sum[2], sum[3]);
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

		/* the file's names go out escaped on a terminal: the column as wide as shown */
		if (text_tty(stdout)) {
			char *shown = malloc(4 * (size_t)l + 1);

			if (!shown) {
				tool_error(VERB, "out of memory");
				goto out;
			}
			text_escaped(t.rows[i].event, shown, 4 * (size_t)l + 1);
			free(t.rows[i].event);
			t.rows[i].event = shown;
			l = (int)strlen(shown);
		}

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
		if (o && row->condition && *row->condition) {
			fputs("  ", stdout);
			text_put(stdout, row->condition);
		}
		printf("\n");
	}
	uint64_t in_file = 0;

	for (size_t i = 0; i < t.nr; i++)
		in_file += t.rows[i].in_file;
	show_notes(r);
	show_kernel(r);
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
	render_free(&r->rd);
	ustack_sym_free(r->ustack);
	free(r->by_id);
	tracedat_close(&r->td);
}

/* Opens and checks one file; 0, or -1 after saying why. */
static int report_open(struct report *r, const char *file)
{
	char err[512];

	memset(r, 0, sizeof(*r));
	r->file = file;
	if (tracedat_open(&r->td, file, err, sizeof(err))) {
		tool_error(VERB, "%s", err);
		return -1;
	}
	r->by_id = calloc(0x10000, sizeof(*r->by_id));
	if (!r->by_id) {
		tool_error(VERB, "out of memory");
		tracedat_close(&r->td);
		return -1;
	}
	for (size_t i = 0; i < r->td.nr_formats; i++)
		r->by_id[r->td.formats[i].id] = &r->td.formats[i];
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct opts o;
	const char **files;
	size_t nr_files = 0, opened = 0;
	bool stats = false, json = false;
	struct report_hist_args ha = { 0 };
	const char **synthetic = NULL;
	struct report *rs = NULL;
	struct rsel sel = { 0 }, *selected;
	int opt, ret = EXIT_FAIL;

	/* every argument could be a file, or a --synthetic */
	files = calloc((size_t)argc + 1, sizeof(*files));
	synthetic = calloc((size_t)argc + 1, sizeof(*synthetic));
	if (!files || !synthetic) {
		free(files);
		tool_error(VERB, "out of memory");
		return EXIT_FAIL;
	}
	opts_start(&o, &report_opts, argc, argv);
	while ((opt = opts_next(&o)) != OPTS_END) {
		switch (opt) {
		case 's':
			stats = true;
			break;
		case 'j':
			json = true;
			break;
		case 'i':
			files[nr_files++] = o.value;
			break;
		case 'H':
			ha.hist = o.value;
			break;
		case REPORT_OPT_SYNTHETIC:
			synthetic[ha.nsynthetic++] = o.value;
			break;
		case REPORT_OPT_LATENCY:
			ha.latency = o.value;
			break;
		case REPORT_OPT_KEY:
			ha.key = o.value;
			break;
		case REPORT_OPT_BY:
			ha.by = o.value;
			break;
		case 'e':
		case 'f':
		case RSEL_OPT_PID:
		case RSEL_OPT_CPU:
		case RSEL_OPT_FROM:
		case RSEL_OPT_TO:
			if ((ret = rsel_option(&sel, VERB, opt, o.value)))
				goto out;
			break;
		default:
			ret = opts_exit(opt);
			goto out;
		}
	}
	optind = o.ind;
	while (optind < argc)
		files[nr_files++] = argv[optind++];
	if (!nr_files)
		files[nr_files++] = "trace.dat";
	if ((ret = rsel_finish(&sel, VERB)))
		goto out;
	ret = EXIT_FAIL;
	selected = rsel_active(&sel) ? &sel : NULL;
	/* the tables count what tpoint counted, and every record: no selection applies */
	if (stats && selected) {
		tool_error(VERB, "--stats counts every record of the file: it takes no -e, -f, "
			   "--pid, --cpu, --from or --to");
		ret = EXIT_USAGE;
		goto out;
	}
	ha.synthetic = synthetic;
	if (!ha.hist && !ha.latency && (ha.nsynthetic || ha.key || ha.by)) {
		tool_error(VERB, "--synthetic, --key and --by go with --hist or --latency");
		ret = EXIT_USAGE;
		goto out;
	}
	if (ha.hist || ha.latency) { /* the kernel's histograms (report_hist.c), of the records selected */
		if (stats) {
			tool_error(VERB, "--hist and --stats: give one of them");
			ret = EXIT_USAGE;
			goto out;
		}
		ret = report_hist(VERB, &ha, files, nr_files, json, selected);
		goto out;
	}
	if (json) { /* the converter's JSON lines (json.c), several files merged by time */
		ret = json_report(VERB, (char **)files, nr_files, selected);
		goto out;
	}

	rs = calloc(nr_files, sizeof(*rs));
	if (!rs) {
		tool_error(VERB, "out of memory");
		goto out;
	}
	/* every file is checked before anything is printed */
	for (; opened < nr_files; opened++)
		if (report_open(&rs[opened], files[opened]))
			goto out;

	if (stats) {
		ret = EXIT_OK;
		for (size_t f = 0; f < nr_files; f++) {
			/* a table per file, named when there are several */
			if (nr_files > 1)
				printf("%s%s:\n", f ? "\n" : "", rs[f].file);
			if (show_stats(&rs[f]) != EXIT_OK)
				ret = EXIT_FAIL;
		}
		goto out;
	}
	/* a glob or filter that selects nothing is said before anything is printed */
	for (size_t f = 0; selected && f < nr_files; f++)
		if (rsel_add_file(selected, VERB, &rs[f].td, rs[f].file))
			goto out;
	if (selected && rsel_prepare(selected, VERB))
		goto out;

	for (size_t f = 0; f < nr_files; f++) {
		if (setup_tep(&rs[f])) {
			tool_error(VERB, "out of memory");
			goto out;
		}
		/* user stacks by name, from the mappings recorded with them */
		rs[f].ustack = ustack_sym_attach(rs[f].rd.tep, &rs[f].td);
		if (tracedat_option(&rs[f].td, TD_OPT_TIME_SHIFT))
			tool_error(VERB, "%s: note: the guest/host time-sync option is not applied; "
				   "times are the guest's own", rs[f].file);
	}
	if (show_events(rs, nr_files, selected)) {
		tool_error(VERB, "out of memory");
		goto out;
	}
	ret = selected ? rsel_end(selected, VERB) : EXIT_OK;
	for (size_t f = 0; f < nr_files; f++) {
		render_note_unused(&rs[f].rd);
		if (rs[f].rd.problems)
			ret = EXIT_FAIL;
	}
	if (fflush(stdout) || ferror(stdout)) {
		tool_error(VERB, "writing the report: %s", strerror(errno));
		ret = EXIT_FAIL;
	}
out:
	/* the renderers in the reverse order of their set-up (render.h) */
	while (opened > 0)
		report_free(&rs[--opened]);
	free(rs);
	free(files);
	free(synthetic);
	rsel_free(&sel);
	return ret;
}
