// SPDX-License-Identifier: MIT
/*
 * tpoint hist -k SYS:EVENT 'hist:...': a kernel event's histogram (hist_cmd.h).
 *
 * Where the kernel has hist triggers (the event's trigger file lists "hist"), the trigger
 * is the kernel's: set on the event in a private instance (kinstance.h), and the instance's
 * `hist` file printed as it is (the kernel's text, so no --json there: JSON is computed as
 * below). Elsewhere the instance records the events, and their records are counted here into
 * the tool's own tables (lib/hist.h), typed from the event's format (hist_fields.h): the
 * pages of every CPU read as they fill, the page being written included (read(), as top's
 * dirty view reads them), every 50 ms (2 ms while they fill fast), so that a --watch print
 * is at most that late. The trigger's `if FILTER` is applied here, on the records, with the
 * parser's filter; the instance keeps every record of the event. Our own process's events are not recorded
 * (set_event_notrace_pid): reading the pages must not count itself.
 *
 * .execname names a record's common_pid as the kernel names the task that made the entry:
 * its name now (/proc/PID/comm), else the kernel's saved_cmdlines (a task that has ended),
 * else "<...>"; pid 0 is "<idle>". .sym and .sym-offset use /proc/kallsyms.
 *
 * The instance is removed at the end, however it comes: --duration, Ctrl-C, SIGTERM, SIGHUP
 * or a reader that went away (SIGPIPE) stop the loop and the same path cleans up; a SIGKILL
 * leaves it to the next tool's kinst_remove_stale().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>

#include "fmt/rb_record.h"
#include "hist.h"
#include "hist_cmd.h"
#include "hist_fields.h"
#include "kinstance.h"
#include "tool.h"

/* The instances are named INSTANCE_PREFIX-PID-RANDOM (tpoint(1) says so). */
#define INSTANCE_PREFIX "tpoint-hist"
/* How often the pages are read when they come slowly... */
#define POLL_NS 50000000L
/* ... and when a pass found more than a page a CPU: the buffers fill, read them sooner. */
#define POLL_BUSY_NS 2000000L
/* The most pages a CPU gives in one pass (16 MiB of 4 KiB pages). */
#define DRAIN_PAGES_MAX 4096
/* A .execname cache of COMM_SLOTS pids, forgotten at each read of the pages. */
#define COMM_SLOTS 1024

/* One -k. */
struct khist {
	const char *event, *trigger;
	int id;                   /* the event's common_type */
	struct hist_fields fields;
	struct hist_spec *spec;
	struct hist_table *table;
	struct hist_table *named; /* name= shared with another -k: the tables merged, to print */
	bool execname;            /* a key asks for the hitting task's name */
};

struct comm_slot {
	int32_t pid;
	bool known;
	char comm[HIST_COMM_LEN];
};

struct kview {
	struct kinstance *ki;
	struct khist *h;
	size_t n;
	bool in_kernel;           /* the kernel computes them: print its hist files */
	int ncpus, page_size;
	unsigned char *page;
	uint64_t undecoded;       /* pages whose records stopped making sense */
	struct comm_slot *comms;
	char *cmdlines;           /* saved_cmdlines, read once a pass when needed */
	struct tep_handle *syms;
};

/* ---- .execname ---- */

static const char *saved_comm(struct kview *v, int32_t pid, char *out)
{
	char key[24];
	size_t klen;

	if (!v->cmdlines)
		v->cmdlines = kinst_saved_cmdlines();
	klen = (size_t)snprintf(key, sizeof(key), "%d ", (int)pid);
	for (const char *l = v->cmdlines; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, klen)) {
			snprintf(out, HIST_COMM_LEN, "%.*s", (int)strcspn(l + klen, "\n"), l + klen);
			return out;
		}
	return NULL;
}

static const char *comm_of(struct kview *v, int32_t pid)
{
	struct comm_slot *s = &v->comms[(uint32_t)pid % COMM_SLOTS];
	char path[64];
	FILE *f;

	if (!pid)
		return "<idle>"; /* as the kernel's save_comm() names pid 0 */
	if (s->known && s->pid == pid)
		return s->comm;
	s->pid = pid;
	s->known = true;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (f && fgets(s->comm, sizeof(s->comm), f)) {
		s->comm[strcspn(s->comm, "\n")] = 0;
		fclose(f);
		return s->comm;
	}
	if (f)
		fclose(f);
	if (!saved_comm(v, pid, s->comm))
		snprintf(s->comm, sizeof(s->comm), "<...>");
	return s->comm;
}

/* ---- the records ---- */

static void count_record(struct kview *v, int cpu, const unsigned char *rec, uint32_t size,
			 uint64_t ts)
{
	uint16_t type;
	int32_t pid = 0;

	if (size < 8)
		return;
	memcpy(&type, rec, 2);
	memcpy(&pid, rec + 4, 4);
	for (size_t i = 0; i < v->n; i++) {
		struct khist *h = &v->h[i];

		if (type == h->id)
			tp_hist_hit(h->table, &(struct hist_hit){
				rec, size, (uint32_t)cpu, ts, h->execname ? comm_of(v, pid) : NULL, NULL });
	}
}

/* The records of the page in v->page (lib/fmt/rb_record.c decodes them, as kpages.c does). */
static void count_page(struct kview *v, int cpu)
{
	/* this machine's kernel: its longs and byte order */
	unsigned int order = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TP_RB_BIG_ENDIAN : 0;
	struct tp_rb_page pg;
	enum tp_rb_page_fault fault = tp_rb_page_decode(v->page, (uint32_t)v->page_size,
							 sizeof(long), order, &pg);
	const unsigned char *data = v->page + pg.data;
	struct tp_rb_rec rec;
	uint64_t ts = pg.ts;

	if (fault == TP_RB_PAGE_LAYOUT || fault == TP_RB_PAGE_COMMIT_PAST) {
		v->undecoded++;
		return;
	}
	for (uint32_t off = 0; off < pg.commit; off = rec.next) {
		if (tp_rb_decode(data, pg.commit, off, order | TP_RB_PAD_ENDS_PAGE, &rec)) {
			v->undecoded++; /* the rest of the page is not a record */
			return;
		}
		tp_rb_apply_time(&rec, &ts);
		if (tp_rb_is_data(&rec))
			count_record(v, cpu, data + rec.payload, rec.size, ts);
	}
}

/* Every page the kernel has for us now, the one being written included: how many. */
static unsigned drain(struct kview *v)
{
	unsigned read = 0;

	for (int c = 0; c < v->ncpus; c++)
		/* Bounded: a CPU that fills pages as fast as they are read cannot hold us here. */
		for (int pages = 0; pages < DRAIN_PAGES_MAX; pages++) {
			if (kinst_read_page(v->ki, c, v->page, KINST_LATEST) <= 0)
				break;
			count_page(v, c);
			read++;
		}
	memset(v->comms, 0, COMM_SLOTS * sizeof(*v->comms)); /* names may change */
	free(v->cmdlines);
	v->cmdlines = NULL;
	return read;
}

/* ---- setting up ---- */

/* The event's id and fields, and the trigger parsed against them: 0, or -1 said. */
static int setup_hist(struct kview *v, struct khist *h)
{
	char *format = kinst_format(v->ki, h->event), *id = format ? strstr(format, "\nID: ") : NULL;
	struct hist_error err;
	int ret = -1;

	if (!id) {
		tool_error(HIST_VERB, "-k %s: its format cannot be read", h->event);
		goto out;
	}
	h->id = atoi(id + 5);
	if (hist_fields_parse(format, strlen(format), &h->fields)) {
		tool_error(HIST_VERB, "out of memory");
		goto out;
	}
	if (tp_hist_parse(h->trigger, h->event, h->fields.fields, h->fields.n, &h->spec, &err)) {
		tool_error(HIST_VERB, "-k %s '%s': %s", h->event, h->trigger, err.msg);
		goto out;
	}
	/* As the kernel registers a trigger on an event that has none (hist_register_trigger()). */
	if (h->spec->remove || h->spec->cont || h->spec->clear) {
		tool_error(HIST_VERB, "-k %s '%s': %s", h->event, h->trigger, h->spec->remove ?
			   "'!hist' removes a trigger; give the one to compute" :
			   tp_hist_err_text(HIST_ERR_TRIGGER_ENOENT_CLEAR));
		goto out;
	}
	h->table = tp_hist_table_new(h->spec);
	if (!h->table) {
		tool_error(HIST_VERB, "out of memory");
		goto out;
	}
	tp_hist_table_pause(h->table, h->spec->pause); /* a paused trigger counts nothing */
	for (unsigned i = 0; i < h->spec->nkeys; i++)
		h->execname |= (h->spec->keys[i].mods & HIST_MOD_EXECNAME) != 0;
	ret = 0;
out:
	free(format);
	return ret;
}

/*
 * Can two name= triggers share their histogram (the kernel's hist_trigger_match())? The same
 * keys (names, modifiers, room in the key) and values; the events' layouts may differ.
 */
static bool same_histogram(const struct hist_spec *a, const struct hist_spec *b)
{
	if (a->nkeys != b->nkeys || a->nvals != b->nvals || a->key_size != b->key_size)
		return false;
	for (unsigned i = 0; i < a->nkeys; i++) {
		const struct hist_field *x = &a->keys[i], *y = &b->keys[i];

		if (strcmp(x->name, y->name) || x->src != y->src || x->mods != y->mods ||
		    x->buckets != y->buckets || x->key_offset != y->key_offset ||
		    x->key_size != y->key_size)
			return false;
	}
	for (unsigned i = 0; i < a->nvals; i++)
		if (strcmp(a->vals[i].name, b->vals[i].name) || a->vals[i].mods != b->vals[i].mods)
			return false;
	return true;
}

/*
 * The -k that share a name= share one histogram, as the kernel's named triggers do: each
 * keeps its own table (its event's offsets), and each print merges them (named). 0, or -1
 * said.
 */
static int share_names(struct kview *v)
{
	for (size_t i = 0; i < v->n; i++) {
		struct khist *h = &v->h[i];

		for (size_t j = 0; h->spec->name && j < v->n; j++) {
			const struct khist *o = &v->h[j];

			if (j == i || !o->spec->name || strcmp(o->spec->name, h->spec->name))
				continue;
			/* The later one is refused, as the kernel refuses it at registration. */
			if (!same_histogram(h->spec, o->spec) && j > i)
				continue;
			if (!same_histogram(h->spec, o->spec)) {
				tool_error(HIST_VERB, "-k %s '%s': %s (name=%s of -k %s '%s')", h->event,
					   h->trigger, tp_hist_err_text(HIST_ERR_NAMED_MISMATCH),
					   h->spec->name, o->event, o->trigger);
				return -1;
			}
			if (!h->named && !(h->named = tp_hist_table_new(h->spec))) {
				tool_error(HIST_VERB, "out of memory");
				return -1;
			}
			tp_hist_table_pause(h->named, h->spec->pause); /* its own state, shown */
		}
	}
	return 0;
}

/* Each -k names one event of this kernel: 0, or -1 said (before an instance is made). */
static int check_events(const struct hist_cmd_opts *o)
{
	for (size_t i = 0; i < o->nk; i++) {
		struct kevent_list l = { 0 };
		char err[1024];
		const char *ev = o->k[i].event;
		int found;

		if (!strchr(ev, ':') || strpbrk(ev, "*?[,")) {
			tool_error(HIST_VERB, "-k '%s': expected one kernel event, SYSTEM:EVENT "
				   "(like sched:sched_switch): a histogram is an event's own", ev);
			return -1;
		}
		found = kinst_match(ev, &l, err, sizeof(err));
		kevent_list_free(&l);
		if (found < 0 && strstr(err, "matches no kernel event")) {
			tool_error(HIST_VERB, "-k '%s': no such kernel event here (tracefs's "
				   "available_events lists them, as SYSTEM:EVENT)", ev);
			return -1;
		}
		if (found < 0) {
			tool_error(HIST_VERB, "-k: %s", err);
			return -1;
		}
	}
	return 0;
}

/* The kernel's own triggers, when it has them for every event and no JSON is asked. */
static bool use_kernel(struct kview *v, const struct hist_cmd_opts *o)
{
	if (o->json)
		return false;
	for (size_t i = 0; i < v->n; i++)
		if (!kinst_has_hist(v->ki, v->h[i].event))
			return false;
	return true;
}

static int setup(struct kview *v, const struct hist_cmd_opts *o)
{
	char err[1024];
	pid_t self = getpid();

	if (kinst_check(err, sizeof(err)) < 0) {
		tool_error(HIST_VERB, "-k: %s", err);
		return -1;
	}
	if (check_events(o) < 0)
		return -1;
	v->n = o->nk;
	v->h = calloc(o->nk, sizeof(*v->h));
	v->comms = calloc(COMM_SLOTS, sizeof(*v->comms));
	if (!v->h || !v->comms) {
		tool_error(HIST_VERB, "out of memory");
		return -1;
	}
	kinst_remove_stale();
	v->ki = kinst_create(INSTANCE_PREFIX, err, sizeof(err));
	if (!v->ki) {
		tool_error(HIST_VERB, "-k: %s", err);
		return -1;
	}
	for (size_t i = 0; i < v->n; i++) {
		v->h[i].event = o->k[i].event;
		v->h[i].trigger = o->k[i].trigger;
	}
	v->in_kernel = use_kernel(v, o);
	for (size_t i = 0; i < v->n; i++) {
		struct khist *h = &v->h[i];

		/* The kernel judges its own triggers; ours are checked by our parser. */
		if (v->in_kernel ? kinst_set_trigger(v->ki, h->event, h->trigger, err, sizeof(err))
				 : setup_hist(v, h)) {
			if (v->in_kernel)
				tool_error(HIST_VERB, "-k: %s", err);
			return -1;
		}
	}
	if (v->in_kernel)
		return 0;
	if (share_names(v) < 0)
		return -1;
	for (size_t i = 0; i < v->n; i++) {
		bool again = false;

		for (size_t j = 0; j < i; j++)
			again |= !strcmp(v->h[j].event, v->h[i].event);
		if (!again && kinst_enable(v->ki, v->h[i].event, NULL, err, sizeof(err)) < 0) {
			tool_error(HIST_VERB, "-k: %s", err);
			return -1;
		}
	}
	v->ncpus = kinst_cpus();
	v->page_size = kinst_open_cpus(v->ki, err, sizeof(err));
	if (v->page_size <= 0) {
		tool_error(HIST_VERB, "-k: %s", err);
		return -1;
	}
	v->page = malloc((size_t)v->page_size);
	if (!v->page) {
		tool_error(HIST_VERB, "out of memory");
		return -1;
	}
	if (kinst_set_notrace(v->ki, &self, 1, err, sizeof(err)) < 0 ||
	    kinst_trace(v->ki, true, err, sizeof(err)) < 0) {
		tool_error(HIST_VERB, "-k: %s", err);
		return -1;
	}
	return 0;
}

/* ---- printing ---- */

/* The kernel's hist file of each event, once an event. */
static int print_kernel(struct kview *v)
{
	for (size_t i = 0; i < v->n; i++) {
		bool again = false;
		char *text;

		for (size_t j = 0; j < i; j++)
			again |= !strcmp(v->h[j].event, v->h[i].event);
		if (again)
			continue;
		text = kinst_event_file(v->ki, v->h[i].event, "hist");
		if (!text) {
			tool_error(HIST_VERB, "-k %s: its hist file cannot be read: %s", v->h[i].event,
				   strerror(errno ? errno : EIO));
			return -1;
		}
		fputs(text, stdout);
		free(text);
	}
	return 0;
}

/* What to print for h: its table, or every table of its name= merged. */
static const struct hist_table *named_table(struct kview *v, struct khist *h)
{
	if (!h->named)
		return h->table;
	tp_hist_table_clear(h->named);
	for (size_t j = 0; j < v->n; j++)
		if (v->h[j].spec && v->h[j].spec->name && !strcmp(v->h[j].spec->name, h->spec->name))
			tp_hist_table_merge(h->named, v->h[j].table);
	return h->named;
}

/* 0; -1 said; -2 the reader went away. */
static int print_all(struct kview *v, bool json)
{
	struct hist_names names = { hist_kernel_sym, NULL, v->syms };

	if (v->in_kernel) {
		if (print_kernel(v))
			return -1;
	} else {
		for (size_t i = 0; i < v->n; i++) {
			const struct hist_table *t = named_table(v, &v->h[i]);

			if (json ? tp_hist_print_json(stdout, t, v->syms ? &names : NULL)
				 : tp_hist_print(stdout, t, (unsigned)i, v->syms ? &names : NULL))
				break;
		}
	}
	if (fflush(stdout) || ferror(stdout)) {
		if (errno == EPIPE)
			return -2; /* a reader that went away (| head): a stop like Ctrl-C */
		tool_error(HIST_VERB, "writing the histograms: %s", strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

/* The kernel's symbols, when a key asks for them. */
static void load_symbols(struct kview *v)
{
	bool want = false;
	char *text = NULL, buf[65536];
	size_t len = 0, r;
	FILE *f, *m;

	for (size_t i = 0; i < v->n && !v->in_kernel; i++)
		for (unsigned k = 0; k < v->h[i].spec->nkeys; k++)
			want |= (v->h[i].spec->keys[k].mods & (HIST_MOD_SYM | HIST_MOD_SYM_OFFSET)) != 0;
	if (!want || !(f = fopen("/proc/kallsyms", "re")))
		return;
	m = open_memstream(&text, &len);
	while (m && (r = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, r, m);
	if (m && fclose(m) == 0 && text)
		v->syms = hist_kallsyms(text, len);
	fclose(f);
	free(text);
}

/* What the kernel could not keep for us: said once, at the end. */
static void say_losses(struct kview *v)
{
	unsigned long long lost = 0;

	for (int c = 0; c < v->ncpus; c++) {
		struct kinst_cpu_stats st;

		if (kinst_cpu_stats(v->ki, c, &st) == 0)
			lost += st.overrun + st.commit_overrun + st.dropped;
	}
	if (lost)
		tool_warn(HIST_VERB, "kernel: %llu events were lost before they were counted "
			  "(the instance's buffers filled): the histograms lack them", lost);
	if (v->undecoded)
		tool_warn(HIST_VERB, "kernel: %llu pages held records that do not decode; their "
			  "rest is not counted", (unsigned long long)v->undecoded);
}

static void teardown(struct kview *v)
{
	char err[256];

	if (v->in_kernel) /* the triggers go before the instance: nothing keeps it busy */
		for (size_t i = 0; i < v->n; i++) {
			char *rm;

			if (asprintf(&rm, "!%s", v->h[i].trigger) >= 0) {
				kinst_set_trigger(v->ki, v->h[i].event, rm, err, sizeof(err));
				free(rm);
			}
		}
	kinst_remove(v->ki);
	for (size_t i = 0; v->h && i < v->n; i++) {
		tp_hist_table_free(v->h[i].table);
		tp_hist_table_free(v->h[i].named);
		tp_hist_spec_free(v->h[i].spec);
		hist_fields_free(&v->h[i].fields);
	}
	tep_free(v->syms);
	free(v->h);
	free(v->comms);
	free(v->cmdlines);
	free(v->page);
}

/* Until a signal or the duration: the pages read, the histograms printed every --watch. */
static int run(struct kview *v, const struct hist_cmd_opts *o)
{
	double start = hist_now(), next_print = start + o->watch;
	char err[256];

	while (!hist_stop) {
		double now, wait;
		bool busy = !v->in_kernel && drain(v) > (unsigned)v->ncpus;

		now = hist_now();
		if (o->duration && now - start >= o->duration)
			break;
		if (o->watch && now >= next_print) {
			int printed = print_all(v, o->json);

			if (printed)
				return printed == -2 ? EXIT_OK : EXIT_FAIL;
			next_print += o->watch;
			if (next_print <= now) /* we were late: not a burst of prints */
				next_print = now + o->watch;
		}
		wait = (double)(busy ? POLL_BUSY_NS : POLL_NS) / 1e9;
		if (o->watch && next_print - now < wait)
			wait = next_print - now;
		if (o->duration && start + o->duration - now < wait)
			wait = start + o->duration - now;
		if (wait > 0)
			nanosleep(&(struct timespec){ 0, (long)(wait * 1e9) }, NULL);
	}
	if (!v->in_kernel) {
		kinst_trace(v->ki, false, err, sizeof(err));
		while (drain(v)) /* what the kernel wrote before tracing stopped */
			;
	}
	switch (print_all(v, o->json)) {
	case -1: return EXIT_FAIL;
	case -2: return EXIT_OK;
	}
	if (!v->in_kernel)
		say_losses(v);
	return EXIT_OK;
}

int hist_kernel(const struct hist_cmd_opts *o)
{
	struct kview v = { 0 };
	int ret = EXIT_FAIL;

	hist_catch_stop();
	if (setup(&v, o) == 0) {
		load_symbols(&v);
		ret = run(&v, o);
	}
	teardown(&v);
	return ret;
}
