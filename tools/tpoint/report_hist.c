// SPDX-License-Identifier: MIT
/*
 * tpoint report --hist 'sys:event:hist:keys=...' FILE... - the kernel's histogram of an
 * event, computed over the records of trace.dat files (lib/hist.h) and printed as the
 * kernel's `hist` file prints it, or as one JSON object with --json.
 *
 * Each file's event is typed from that file's own format text (the fields as the filter
 * sees them), and counted into a table of its own; the tables are merged at the end, so
 * that files whose layouts differ in nothing the keys need give one histogram. The records
 * come through the one cursor of `report` (td_merge.c), in time order. .execname names the
 * pid's command from the file's saved cmdlines, as the kernel names the task that made the
 * entry. With report's selection (-e/-f, --pid, --cpu, --from/--to: report_select.h), only the
 * records it keeps count, the selection's hook on the same cursor. Only the top buffer's
 * records count (the kernel's triggers are an instance's
 * own). .sym and .sym-offset name kernel addresses from the first file's kallsyms (events
 * recorded with `record -k`), through libtraceevent, as the kernel's %ps and %pS print them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "fmt/tracefs_format.h"
#include "hist.h"
#include "report_hist.h"
#include "report_select.h"
#include "td_merge.h"
#include "tool.h"
#include "tracedat_read.h"

_Static_assert(FILTER_NUM == 0 && FILTER_STR_ARRAY == 1 && FILTER_STR_DYN == 2,
	       "tp_tracefs_field_kind() answers in enum filter_field_kind's values");

/* One histogram's view of one file: the file, its event's id and fields, its table. */
struct hist_input {
	const char *path;
	const struct tracedat *td;
	int id;                     /* the event's common_type in this file, -1 if absent */
	char *text;                 /* a copy of the format, cut where the field names end */
	struct filter_field *fields;
	size_t nfields;
	struct hist_spec *spec;
	struct hist_table *table;
	struct td_cmdline *comms;   /* the saved cmdlines, by pid */
};

/* The fields of a format text, as the filter types them (as select.c does for -f). */
static int format_fields(const struct td_text *t, struct hist_input *in)
{
	const char *body;
	struct tracefs_field tf;
	size_t max = 1, len, pos = 0;
	char *end;

	in->text = malloc(t->len + 1);
	if (!in->text)
		return -1;
	memcpy(in->text, t->data, t->len);
	in->text[t->len] = 0;
	body = strstr(in->text, "format:");
	body = body ? body : in->text;
	end = strstr(body, "print fmt:");
	len = end ? (size_t)(end - body) : strlen(body);
	for (const char *p = body; (p = strstr(p, "field:")); p++)
		max++;
	in->fields = calloc(max, sizeof(*in->fields));
	if (!in->fields)
		return -1;
	while (tp_tracefs_next_field(body, len, &pos, &tf)) {
		struct filter_field *x = &in->fields[in->nfields];
		int kind = tp_tracefs_field_kind(&tf);

		if (kind < 0 || tf.offset > UINT16_MAX || tf.size > UINT16_MAX)
			continue; /* structs and other arrays are no keys */
		((char *)tf.name)[tf.name_len] = 0; /* its line is read: cut there, in the copy */
		*x = (struct filter_field){ tf.name, (uint16_t)tf.offset, (uint16_t)tf.size,
					    tf.is_signed, (uint8_t)kind };
		in->nfields++;
	}
	return 0;
}

static int by_pid(const void *a, const void *b)
{
	const struct td_cmdline *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static const char *comm_of(const struct hist_input *in, int pid)
{
	struct td_cmdline key = { .pid = pid }, *c;

	if (!pid)
		return "<idle>"; /* as the kernel's save_comm() names pid 0 */
	c = in->comms ? bsearch(&key, in->comms, in->td->nr_cmdlines, sizeof(key), by_pid) : NULL;
	return c ? c->comm : "<...>";
}

/* Finds the event in the file and parses the trigger against its fields: 0, or -1 said. */
static int input_setup(const char *verb, struct hist_input *in, const char *sys,
		       const char *event, const char *trigger)
{
	char name[512];
	struct hist_error err;

	in->id = -1;
	for (size_t i = 0; i < in->td->nr_formats; i++) {
		const struct td_format *f = &in->td->formats[i];

		if (!strcmp(f->system, sys) && !strcmp(f->name, event)) {
			in->id = f->id;
			if (format_fields(&f->text, in))
				goto nomem;
			break;
		}
	}
	if (in->id < 0)
		return 0; /* counted as nothing; said if no file has it */
	snprintf(name, sizeof(name), "%s:%s", sys, event);
	if (tp_hist_parse(trigger, name, in->fields, in->nfields, &in->spec, &err)) {
		tool_error(verb, "%s: %s: %s", in->path, trigger, err.msg);
		return -1;
	}
	/* As the kernel registers a trigger on an event that has none (hist_register_trigger()). */
	if (in->spec->remove) {
		tool_error(verb, "--hist '%s': '!hist' removes a trigger; give the one to compute",
			   trigger);
		return -1;
	}
	if (in->spec->cont || in->spec->clear) {
		tool_error(verb, "%s: %s: %s", in->path, trigger,
			   tp_hist_err_text(HIST_ERR_TRIGGER_ENOENT_CLEAR));
		return -1;
	}
	in->table = tp_hist_table_new(in->spec);
	if (!in->table)
		goto nomem;
	tp_hist_table_pause(in->table, in->spec->pause); /* a paused trigger counts nothing */
	if (in->td->nr_cmdlines) {
		in->comms = malloc(in->td->nr_cmdlines * sizeof(*in->comms));
		if (!in->comms)
			goto nomem;
		memcpy(in->comms, in->td->cmdlines, in->td->nr_cmdlines * sizeof(*in->comms));
		qsort(in->comms, in->td->nr_cmdlines, sizeof(*in->comms), by_pid);
	}
	return 0;
nomem:
	tool_error(verb, "out of memory");
	return -1;
}

static void input_free(struct hist_input *in)
{
	tp_hist_table_free(in->table);
	tp_hist_spec_free(in->spec);
	free(in->comms);
	free(in->fields);
	free(in->text);
}

/* .sym / .sym-offset from a file's kallsyms: "name", or "name+0xoff/0xsize" (%ps, %pS). */
static int kernel_sym(void *ctx, uint64_t addr, bool with_offset, char *buf, size_t len)
{
	const char *name;
	unsigned long long start;
	unsigned long size;

	if (tep_find_function_info(ctx, addr, &name, &start, &size) != 1 || !name)
		return 0;
	if (with_offset)
		snprintf(buf, len, "%s+0x%llx/0x%lx", name, (unsigned long long)addr - start, size);
	else
		snprintf(buf, len, "%s", name);
	return 1;
}

/* A libtraceevent handle that knows the first file's kernel symbols, or NULL. */
static struct tep_handle *kernel_symbols(const struct tracedat *tds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct td_text *k = &tds[i].kallsyms;
		struct tep_handle *tep;
		char *text;

		if (!k->len)
			continue;
		tep = tep_alloc();
		text = malloc(k->len + 1);
		if (!tep || !text) {
			tep_free(tep);
			free(text);
			return NULL;
		}
		memcpy(text, k->data, k->len);
		text[k->len] = 0;
		tep_parse_kallsyms(tep, text);
		free(text);
		return tep;
	}
	return NULL;
}

/* "sys:event:hist:..." cut in three; 0, or -1 said. */
static int split_spec(const char *verb, char *spec, char **sys, char **event, char **trigger)
{
	char *a = strchr(spec, ':'), *b = a ? strchr(a + 1, ':') : NULL;

	if (!a || !b || a == spec || b == a + 1 || strncmp(b + 1, "hist:", 5)) {
		tool_error(verb, "--hist '%s': expected SYSTEM:EVENT:hist:keys=FIELD[,...][:...] "
			   "(the kernel's hist trigger after the event)", spec);
		return -1;
	}
	*a = *b = 0;
	*sys = spec;
	*event = a + 1;
	*trigger = b + 1;
	return 0;
}

/* One histogram of the list: its text (cut in place) and its view of each file. */
struct hist_job {
	char *sys, *event, *trigger;
	struct hist_input *ins;
};

/*
 * The records of every file (those `sel` keeps, when given), each counted into every
 * histogram's table for that file.
 */
static int count(const char *verb, const struct tracedat *tds, size_t nr_files,
		 struct hist_job *jobs, size_t nr_jobs, struct rsel *sel)
{
	struct td_merge *m = td_merge_new();
	struct td_merge_rec r;

	for (size_t i = 0; m && i < nr_files; i++)
		if (td_merge_add(m, &tds[i])) {
			td_merge_free(m);
			m = NULL;
		}
	if (!m) {
		tool_error(verb, "out of memory");
		return -1;
	}
	if (sel)
		td_merge_select(m, rsel_keep, sel);
	while (td_merge_next(m, &r)) {
		uint16_t type;
		int32_t pid = 0;

		/* The top buffer's: an instance has its own triggers in the kernel. */
		if (r.buffer || r.size < 2)
			continue;
		memcpy(&type, r.data, 2);
		if (r.size >= 8)
			memcpy(&pid, r.data + 4, 4);
		for (size_t j = 0; j < nr_jobs; j++) {
			struct hist_input *in = &jobs[j].ins[r.file];

			if (in->table && type == in->id)
				tp_hist_hit(in->table, &(struct hist_hit){ r.data, r.size, r.cpu,
									    r.ts, comm_of(in, pid), NULL });
		}
	}
	td_merge_free(m);
	return 0;
}

/* The tables of the other files into the first one's, when their keys and values agree. */
static struct hist_table *merged(const char *verb, struct hist_input *ins, size_t n)
{
	struct hist_table *into = NULL;
	const struct hist_spec *s = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct hist_spec *t = ins[i].spec;

		if (!ins[i].table)
			continue;
		if (!into) {
			into = ins[i].table;
			s = t;
			continue;
		}
		if (t->key_size != s->key_size || t->nvals != s->nvals || t->nkeys != s->nkeys ||
		    memcmp(t->keys, s->keys, sizeof(s->keys[0]) * s->nkeys)) {
			tool_error(verb, "%s: the event's keys are laid out differently than in %s: "
				   "give the files one at a time", ins[i].path, ins[0].path);
			return NULL;
		}
		tp_hist_table_merge(into, ins[i].table);
	}
	return into;
}

/*
 * The list's next histogram: cut at the first ';' outside double quotes (a filter's string
 * may hold one), as TPOINT_TRIGGER's list is; NULL at the end.
 */
static char *next_item(char **list)
{
	char *item = *list, *p;
	bool quoted = false;

	if (!item)
		return NULL;
	for (p = item; *p; p++) {
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '"')
			quoted = !quoted;
		else if (*p == ';' && !quoted)
			break;
	}
	*list = *p ? p + 1 : NULL;
	*p = 0;
	return item;
}

/* Every histogram into jobs[]: *n of them; 0, or an exit status after saying why. */
static int make_jobs(const char *verb, char *list, const struct tracedat *tds,
		     const char *const *files, size_t nr_files, struct hist_job *jobs, size_t *n)
{
	char *item;

	while ((item = next_item(&list))) {
		struct hist_job *j = &jobs[*n];

		if (!*item)
			continue;
		if (split_spec(verb, item, &j->sys, &j->event, &j->trigger))
			return EXIT_USAGE;
		j->ins = calloc(nr_files, sizeof(*j->ins));
		if (!j->ins) {
			tool_error(verb, "out of memory");
			return EXIT_FAIL;
		}
		++*n;
		for (size_t i = 0; i < nr_files; i++) {
			j->ins[i].path = files[i];
			j->ins[i].td = &tds[i];
			if (input_setup(verb, &j->ins[i], j->sys, j->event, j->trigger))
				return EXIT_FAIL;
		}
	}
	if (!*n) {
		tool_error(verb, "--hist: no histogram given");
		return EXIT_USAGE;
	}
	return 0;
}

static int print_job(const char *verb, struct hist_job *j, size_t nth, size_t nr_files,
		     const struct hist_names *names, bool json)
{
	struct hist_table *t = merged(verb, j->ins, nr_files);
	bool any = false;

	if (!t) {
		for (size_t i = 0; i < nr_files; i++)
			any |= j->ins[i].id >= 0;
		if (!any)
			tool_error(verb, "--hist: no event %s:%s in %s%s", j->sys, j->event,
				   j->ins[0].path, nr_files > 1 ? " nor the other files" : "");
		return -1;
	}
	/* Several: as the kernel's hist file shows an event's triggers, or one object each. */
	if (json ? tp_hist_print_json(stdout, t, names)
		 : tp_hist_print(stdout, t, (unsigned)nth, names)) {
		tool_error(verb, "writing the histogram: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int report_hist(const char *verb, const char *hist, const char *const *files, size_t nr_files,
		bool json, struct rsel *sel)
{
	struct tracedat *tds = calloc(nr_files, sizeof(*tds));
	struct hist_job *jobs = calloc(strlen(hist) / 2 + 1, sizeof(*jobs));
	char *list = strdup(hist), err[512];
	struct tep_handle *syms = NULL;
	struct hist_names names = { kernel_sym, NULL, NULL };
	size_t opened = 0, nr_jobs = 0;
	int ret = EXIT_FAIL;

	if (!tds || !jobs || !list) {
		tool_error(verb, "out of memory");
		goto out;
	}
	for (; opened < nr_files; opened++)
		if (tracedat_open(&tds[opened], files[opened], err, sizeof(err))) {
			tool_error(verb, "%s", err);
			goto out;
		}
	ret = make_jobs(verb, list, tds, files, nr_files, jobs, &nr_jobs);
	if (ret)
		goto out;
	ret = EXIT_FAIL;
	/* The selection is said wrong (a glob that selects nothing) before anything is printed. */
	for (size_t i = 0; sel && i < nr_files; i++)
		if (rsel_add_file(sel, verb, &tds[i], files[i]))
			goto out;
	if (sel && rsel_prepare(sel, verb))
		goto out;
	if (count(verb, tds, nr_files, jobs, nr_jobs, sel))
		goto out;
	syms = kernel_symbols(tds, nr_files);
	names.ctx = syms;
	for (size_t j = 0; j < nr_jobs; j++)
		if (print_job(verb, &jobs[j], j, nr_files, syms ? &names : NULL, json))
			goto out;
	if (fflush(stdout)) {
		tool_error(verb, "writing the histogram: %s", strerror(errno));
		goto out;
	}
	/* Nothing selected is nothing matched (said), as for the other outputs. */
	ret = sel ? rsel_end(sel, verb) : EXIT_OK;
out:
	tep_free(syms);
	for (size_t j = 0; jobs && j < nr_jobs; j++) {
		for (size_t i = 0; i < nr_files; i++)
			input_free(&jobs[j].ins[i]);
		free(jobs[j].ins);
	}
	while (opened > 0)
		tracedat_close(&tds[--opened]);
	free(tds);
	free(jobs);
	free(list);
	return ret;
}
