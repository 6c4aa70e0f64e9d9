// SPDX-License-Identifier: MIT
/*
 * tpoint report --hist 'sys:event:hist:keys=...' FILE... - the kernel's histograms of events,
 * computed over the records of trace.dat files (lib/hist.h, lib/hist_set.h) and printed as the
 * kernel's `hist` file prints them, or as one JSON object each with --json.
 *
 * The triggers of the list work together as the kernel's do: variables, references between
 * triggers, onmatch() actions into synthetic events (--synthetic 'name u64 lat; ...', as the
 * kernel's synthetic_events file takes them) and triggers on those synthetic events; --latency
 * is the short form of the common case (lib/hist_latency.c), said on stderr in full. Each file
 * has a set of its own (its events typed from its own format texts, the fields as the filter
 * sees them; its variables its own: a start in one file pairs with no end in another), and
 * each histogram's tables are merged over the files at the end, so that files whose layouts
 * differ in nothing the keys need give one histogram. The records come through the one cursor
 * of `report` (td_merge.c), in time order. .execname names the pid's command from the file's
 * saved cmdlines, as the kernel names the task that made the entry. With report's selection
 * (-e/-f, --pid, --cpu, --from/--to: report_select.h), only the records it keeps count, the
 * selection's hook on the same cursor. Only the top buffer's records count (the kernel's
 * triggers are an instance's own). .sym and .sym-offset name kernel addresses from the first
 * file's kallsyms (events recorded with `record -k`), through libtraceevent, as the kernel's
 * %ps and %pS print them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "hist.h"
#include "hist_fields.h"
#include "hist_set.h"
#include "report_hist.h"
#include "report_select.h"
#include "td_merge.h"
#include "tool.h"
#include "tracedat_read.h"

/* The format of system:event in a file, or NULL. */
static const struct td_format *find_format(const struct tracedat *td, const char *sys,
					   const char *event)
{
	for (size_t i = 0; i < td->nr_formats; i++)
		if (!strcmp(td->formats[i].system, sys) && !strcmp(td->formats[i].name, event))
			return &td->formats[i];
	return NULL;
}

/* One file's view: its set of triggers, the set's event of each common_type, its names. */
struct hist_file {
	const char *path;
	const struct tracedat *td;
	struct hist_set *set;
	struct hist_ctx *ctx;
	int by_id[65536];               /* common_type -> the set's event, or -1 */
	struct hist_fields ef[HIST_SET_EVENTS_MAX];
	size_t nef;
	struct td_cmdline *comms;       /* the saved cmdlines, by pid */
	int *trig;                      /* each histogram's trigger in the set, or -1 */
};

static int by_pid(const void *a, const void *b)
{
	const struct td_cmdline *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static const char *comm_of(const struct hist_file *f, int pid)
{
	struct td_cmdline key = { .pid = pid }, *c;

	if (!pid)
		return "<idle>"; /* as the kernel's save_comm() names pid 0 */
	c = f->comms ? bsearch(&key, f->comms, f->td->nr_cmdlines, sizeof(key), by_pid) : NULL;
	return c ? c->comm : "<...>";
}

/* The set's event for system:event of the file: added with its fields; -1 if absent. */
static int file_event(struct hist_file *f, const char *sys, const char *event)
{
	const struct td_format *fmt = find_format(f->td, sys, event);
	char name[512];
	int e;

	snprintf(name, sizeof(name), "%s:%s", sys, event);
	if ((e = tp_hist_set_find_event(f->set, name)) >= 0 || !fmt)
		return e;
	if (f->nef == HIST_SET_EVENTS_MAX ||
	    hist_fields_parse(fmt->text.data, fmt->text.len, &f->ef[f->nef]))
		return -1;
	e = tp_hist_set_event(f->set, name, f->ef[f->nef].fields, f->ef[f->nef].n);
	f->nef++;
	if (e >= 0)
		f->by_id[fmt->id & 0xffff] = e;
	return e;
}

/* The onmatch(system.event) events a trigger names, so that its checks find them. */
static void match_events(struct hist_file *f, const char *trigger)
{
	for (const char *p = trigger; (p = strstr(p, "onmatch(")); p++) {
		char sys[128], event[128];

		if (sscanf(p, "onmatch(%127[^.)].%127[^)])", sys, event) == 2)
			file_event(f, sys, event);
	}
}

static void file_free(struct hist_file *f)
{
	tp_hist_set_free(f->set);
	for (size_t i = 0; i < f->nef; i++)
		hist_fields_free(&f->ef[i]);
	free(f->comms);
	free(f->trig);
}

/* A libtraceevent handle that knows the first file's kernel symbols, or NULL. */
static struct tep_handle *kernel_symbols(const struct tracedat *tds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (tds[i].kallsyms.len)
			return hist_kallsyms(tds[i].kallsyms.data, tds[i].kallsyms.len);
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

/* One histogram of the list: its text, cut in place. */
struct hist_job {
	char *sys, *event, *trigger;
};

/* A file's set: the synthetic events, then each histogram in the list's order. */
static int setup_file(const char *verb, struct hist_file *f, const struct report_hist_args *a,
		      const struct hist_job *jobs, size_t njobs)
{
	struct hist_error err;

	for (size_t i = 0; i < 65536; i++)
		f->by_id[i] = -1;
	f->set = tp_hist_set_new(1);
	f->trig = calloc(njobs, sizeof(*f->trig));
	if (!f->set || !f->trig)
		goto nomem;
	f->ctx = tp_hist_set_context(f->set);
	for (size_t i = 0; i < a->nsynthetic; i++)
		if (tp_hist_set_synthetic(f->set, a->synthetic[i], &err) < 0) {
			tool_error(verb, "--synthetic '%s': %s", a->synthetic[i], err.msg);
			return EXIT_FAIL;
		}
	for (size_t j = 0; j < njobs; j++) {
		const struct hist_job *job = &jobs[j];
		int e;

		f->trig[j] = -1;
		if (!strcmp(job->sys, HIST_SYNTH_SYSTEM)) {
			char name[512];

			snprintf(name, sizeof(name), "%s:%s", job->sys, job->event);
			e = tp_hist_set_find_event(f->set, name);
			/* Or the kernel's own synthetic event, recorded in the file (record -k). */
			if (e < 0)
				e = file_event(f, job->sys, job->event);
			if (e < 0) {
				tool_error(verb, "--hist: no synthetic event '%s' (define it with "
					   "--synthetic '%s TYPE FIELD[; ...]')", job->event,
					   job->event);
				return EXIT_FAIL;
			}
		} else if ((e = file_event(f, job->sys, job->event)) < 0) {
			continue; /* counted as nothing; said if no file has it */
		}
		/* As the kernel registers a trigger on an event that has none. */
		if (job->trigger[0] == '!') {
			tool_error(verb, "--hist '%s': '!hist' removes a trigger; give the one to "
				   "compute", job->trigger);
			return EXIT_FAIL;
		}
		match_events(f, job->trigger);
		f->trig[j] = tp_hist_set_trigger(f->set, e, job->trigger, &err);
		if (f->trig[j] < 0) {
			if (errno == ENOMEM)
				goto nomem;
			tool_error(verb, "%s: %s: %s", f->path, job->trigger, err.msg);
			return EXIT_FAIL;
		}
	}
	if (f->td->nr_cmdlines) {
		f->comms = malloc(f->td->nr_cmdlines * sizeof(*f->comms));
		if (!f->comms)
			goto nomem;
		memcpy(f->comms, f->td->cmdlines, f->td->nr_cmdlines * sizeof(*f->comms));
		qsort(f->comms, f->td->nr_cmdlines, sizeof(*f->comms), by_pid);
	}
	return 0;
nomem:
	tool_error(verb, "out of memory");
	return EXIT_FAIL;
}

/*
 * The records of every file (those `sel` keeps, when given), each a hit of its file's set:
 * every trigger of its event, and the synthetic events they make.
 */
static int count(const char *verb, const struct tracedat *tds, struct hist_file *files,
		 size_t nr_files, struct rsel *sel)
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
		struct hist_file *f = &files[r.file];
		uint16_t type;
		int32_t pid = 0;

		/* The top buffer's: an instance has its own triggers in the kernel. */
		if (r.buffer || r.size < 2)
			continue;
		memcpy(&type, r.data, 2);
		if (f->by_id[type] < 0)
			continue;
		if (r.size >= 8)
			memcpy(&pid, r.data + 4, 4);
		tp_hist_set_hit(f->set, f->ctx, f->by_id[type],
				&(struct hist_set_hit){ r.data, r.size, r.cpu, r.ts, comm_of(f, pid), NULL });
	}
	td_merge_free(m);
	return 0;
}

/* A histogram's tables of every file merged, when their keys and values agree; or NULL. */
static struct hist_table *merged(const char *verb, struct hist_file *files, size_t n, size_t j,
				 bool *any)
{
	struct hist_table *into = NULL;
	const struct hist_spec *s = NULL;

	*any = false;
	for (size_t i = 0; i < n; i++) {
		const struct hist_spec *t;
		struct hist_table *table;

		if (files[i].trig[j] < 0)
			continue;
		*any = true;
		t = tp_hist_set_spec(files[i].set, (unsigned)files[i].trig[j]);
		if (into && (t->key_size != s->key_size || t->nvals != s->nvals ||
			     t->nkeys != s->nkeys ||
			     memcmp(t->keys, s->keys, sizeof(s->keys[0]) * s->nkeys))) {
			tool_error(verb, "%s: the event's keys are laid out differently than in %s: "
				   "give the files one at a time", files[i].path, files[0].path);
			tp_hist_table_free(into);
			return NULL;
		}
		table = tp_hist_set_table(files[i].set, (unsigned)files[i].trig[j]);
		if (!table) {
			tool_error(verb, "out of memory");
			tp_hist_table_free(into);
			return NULL;
		}
		if (!into) {
			into = table;
			s = t;
			continue;
		}
		tp_hist_table_merge(into, table);
		tp_hist_table_free(table);
	}
	return into;
}

/* Every histogram of the list into jobs[]: *n of them; 0, or an exit status after saying why. */
static int make_jobs(const char *verb, char *list, struct hist_job *jobs, size_t *n)
{
	char *item;

	while ((item = next_item(&list))) {
		struct hist_job *j = &jobs[*n];

		if (!*item)
			continue;
		if (split_spec(verb, item, &j->sys, &j->event, &j->trigger))
			return EXIT_USAGE;
		++*n;
	}
	if (!*n) {
		tool_error(verb, "--hist: no histogram given");
		return EXIT_USAGE;
	}
	return 0;
}

static int print_job(const char *verb, struct hist_file *files, size_t nr_files, size_t j,
		     const struct hist_job *job, const struct hist_names *names, bool json)
{
	bool any;
	struct hist_table *t = merged(verb, files, nr_files, j, &any);
	int ret = 0;

	if (!t) {
		if (!any)
			tool_error(verb, "--hist: no event %s:%s in %s%s", job->sys, job->event,
				   files[0].path, nr_files > 1 ? " nor the other files" : "");
		return -1;
	}
	/* Several: as the kernel's hist file shows an event's triggers, or one object each. */
	if (json ? tp_hist_print_json(stdout, t, names)
		 : tp_hist_print(stdout, t, (unsigned)j, names)) {
		tool_error(verb, "writing the histogram: %s", strerror(errno));
		ret = -1;
	}
	tp_hist_table_free(t);
	return ret;
}

/*
 * --latency SYS:START,SYS:END --key F [--by G]: the synthetic event and the triggers it stands
 * for (lib/hist_latency.c), typed from the first file that has both events, said on stderr.
 */
static int expand_latency(const char *verb, const struct report_hist_args *a,
			  const struct tracedat *tds, size_t nr_files, char *synth, size_t slen,
			  char *triggers, size_t tlen)
{
	char pair[512], *comma, *colon_a, *colon_b, err[512];
	struct hist_fields s = { 0 }, e = { 0 };
	const struct td_format *fs = NULL, *fe = NULL;
	int ret = EXIT_FAIL;

	if (!a->key) {
		tool_error(verb, "--latency needs --key FIELD (the field that pairs a start with "
			   "its end)");
		return EXIT_USAGE;
	}
	snprintf(pair, sizeof(pair), "%s", a->latency);
	comma = strchr(pair, ',');
	colon_a = strchr(pair, ':');
	colon_b = comma ? strchr(comma, ':') : NULL;
	if (!comma || !colon_a || colon_a > comma || !colon_b) {
		tool_error(verb, "--latency '%s': expected SYSTEM:START,SYSTEM:END", a->latency);
		return EXIT_USAGE;
	}
	*comma = *colon_a = *colon_b = 0;
	for (size_t i = 0; i < nr_files && !(fs && fe); i++) {
		fs = find_format(&tds[i], pair, colon_a + 1);
		fe = find_format(&tds[i], comma + 1, colon_b + 1);
	}
	if (!fs || !fe) {
		tool_error(verb, "--latency: no file has both %s:%s and %s:%s", pair, colon_a + 1,
			   comma + 1, colon_b + 1);
		return EXIT_FAIL;
	}
	if (hist_fields_parse(fs->text.data, fs->text.len, &s) ||
	    hist_fields_parse(fe->text.data, fe->text.len, &e)) {
		tool_error(verb, "out of memory");
		goto out;
	}
	if (tp_hist_latency_expand(a->latency, a->key, a->by, s.fields, s.n, e.fields, e.n, synth,
				   slen, triggers, tlen, err, sizeof(err))) {
		tool_error(verb, "%s", err);
		ret = EXIT_USAGE;
		goto out;
	}
	fprintf(stderr, "tpoint %s: --latency stands for: --synthetic '%s' --hist '%s'\n", verb,
		synth, triggers);
	ret = 0;
out:
	hist_fields_free(&s);
	hist_fields_free(&e);
	return ret;
}

int report_hist(const char *verb, const struct report_hist_args *args, const char *const *files,
		size_t nr_files, bool json, struct rsel *sel)
{
	struct tracedat *tds = calloc(nr_files, sizeof(*tds));
	struct hist_file *hf = calloc(nr_files, sizeof(*hf));
	struct report_hist_args a = *args;
	const char **synths = calloc(a.nsynthetic + 1, sizeof(*synths));
	char synth[512], triggers[2048], err[512], *list = NULL;
	struct hist_job *jobs = NULL;
	struct tep_handle *syms = NULL;
	struct hist_names names = { hist_kernel_sym, NULL, NULL };
	size_t opened = 0, nr_jobs = 0, len;
	int ret = EXIT_FAIL;

	if (!tds || !hf || !synths) {
		tool_error(verb, "out of memory");
		goto out;
	}
	for (; opened < nr_files; opened++)
		if (tracedat_open(&tds[opened], files[opened], err, sizeof(err))) {
			tool_error(verb, "%s", err);
			goto out;
		}
	memcpy(synths, a.synthetic, a.nsynthetic * sizeof(*synths));
	a.synthetic = synths;
	triggers[0] = 0;
	if (a.latency) {
		if ((ret = expand_latency(verb, &a, tds, nr_files, synth, sizeof(synth), triggers,
					  sizeof(triggers))))
			goto out;
		ret = EXIT_FAIL;
		synths[a.nsynthetic++] = synth;
	}
	len = (a.hist ? strlen(a.hist) : 0) + strlen(triggers) + 2;
	list = malloc(len);
	jobs = calloc(len / 2 + 1, sizeof(*jobs));
	if (!list || !jobs) {
		tool_error(verb, "out of memory");
		goto out;
	}
	snprintf(list, len, "%s%s%s", a.hist ? a.hist : "", a.hist && *triggers ? ";" : "",
		 triggers);
	if ((ret = make_jobs(verb, list, jobs, &nr_jobs)))
		goto out;
	for (size_t i = 0; i < nr_files; i++) {
		hf[i].path = files[i];
		hf[i].td = &tds[i];
		if ((ret = setup_file(verb, &hf[i], &a, jobs, nr_jobs)))
			goto out;
	}
	ret = EXIT_FAIL;
	/* The selection is said wrong (a glob that selects nothing) before anything is printed. */
	for (size_t i = 0; sel && i < nr_files; i++)
		if (rsel_add_file(sel, verb, &tds[i], files[i]))
			goto out;
	if (sel && rsel_prepare(sel, verb))
		goto out;
	if (count(verb, tds, hf, nr_files, sel))
		goto out;
	syms = kernel_symbols(tds, nr_files);
	names.ctx = syms;
	for (size_t j = 0; j < nr_jobs; j++)
		if (print_job(verb, hf, nr_files, j, &jobs[j], syms ? &names : NULL, json))
			goto out;
	if (fflush(stdout)) {
		tool_error(verb, "writing the histogram: %s", strerror(errno));
		goto out;
	}
	/* Nothing selected is nothing matched (said), as for the other outputs. */
	ret = sel ? rsel_end(sel, verb) : EXIT_OK;
out:
	tep_free(syms);
	for (size_t i = 0; hf && i < nr_files; i++)
		file_free(&hf[i]);
	while (opened > 0)
		tracedat_close(&tds[--opened]);
	free(tds);
	free(hf);
	free(synths);
	free(jobs);
	free(list);
	return ret;
}
