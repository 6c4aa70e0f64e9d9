/* SPDX-License-Identifier: MIT */
/*
 * tpoint record -e GLOB[,GLOB...] [-o FILE] [-b SIZE] [--overwrite|--block] -- CMD [ARGS...]
 *
 * Runs CMD with the environment that makes libtpoint record: every process of the command
 * (forked children and exec'd programs included) spools its pages into a private directory;
 * when the command has exited, the spools become one trace.dat, merged by time. No daemon:
 * the processes record themselves, and a spool cut short by a crash is still read.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>
#include <tpoint/tpoint.h>
#include "attach.h"
#include "codec.h"
#include "control_proto.h"
#include "filter.h"
#include "glob.h"
#include "handover.h"
#include "options.h"
#include "krecord.h"
#include "owner.h"
#include "ownfile.h"
#include "poolsize.h"
#include "salvage.h"
#include "select.h"
#include "tool.h"
#include "tracedat.h"

static const struct opts_spec record_opts = {
	.verb = "record",
	.usage = (const char *const[]){
		"tpoint record -e GLOB[,GLOB...] [-f EXPR] [-e ... [-f ...]]... [-o FILE]",
		"              [-b SIZE] [--overwrite|--block] [-k GLOB[,GLOB...] [-f EXPR]]...",
		"              [--kernel-pids] -- CMD [ARGS...]",
		"tpoint record -p PID -e GLOB[,GLOB...] [-f EXPR] [-e ... [-f ...]]...",
		"              [-k GLOB[,GLOB...] [-f EXPR]]... [--kernel-pids]",
		"              [-o FILE] [--duration S] [-b SIZE] [--overwrite|--block]",
		"tpoint record -k GLOB[,GLOB...] [-f EXPR] [-k ...]... [-o FILE] [--duration S]",
		"tpoint record --assemble DIR [-o FILE]",
		"(each form also takes --compress[=zstd|zlib[:LEVEL]])",
		NULL },
	.about = "Run CMD and record the tpoint events it (and its threads and child processes)\n"
		 "hits into FILE, a trace-cmd trace.dat v6 file (v7 with --compress). With -p,\n"
		 "record the running process PID instead, until Ctrl-C, SIGTERM, SIGHUP, SIGPIPE,\n"
		 "the duration, or its end; if it is killed, every event it had committed is\n"
		 "still in the file.\n",
	.opts = (const struct opt[]){
		OPT_PID("record a running process (one)"),
		{ 'A', 0, "assemble", OPT_VALUE, "DIR",
		  "write FILE from the spools of a recording that could not\n"
		  "be completed (a full disk): record keeps them in DIR", 0 },
		OPT_FILTER("keep only records for which EXPR holds (the kernel's\n"
			   "filter syntax), of the events of the -e before it; on\n"
			   "those that lack its fields it does not apply.\n"
			   "After a -k: the kernel's own filter on its events"),
		{ 'k', 'k', "kernel", OPT_VALUE, "GLOBS",
		  "kernel events too (root): sys:name, sys:* or sys, comma-\n"
		  "separated, may be given more than once; recorded in a\n"
		  "tracefs instance of our own, into the same file", 0 },
		{ 'K', 0, "kernel-pids", OPT_NO_VALUE, NULL,
		  "kernel events only of the recorded processes and the\n"
		  "children they start", 0 },
		{ 'd', 0, "duration", OPT_VALUE, "S", "with -p, or -k alone: stop after S seconds", 0 },
		OPT_EVENTS("events to record: sys:name, sys:*, sys or name, comma-separated;\n"
			   "may be given more than once"),
		OPT_OUTPUT("FILE", "where to write (default trace.dat)"),
		{ 'Z', 0, "compress", OPT_MAYBE_VALUE, "C",
		  "write trace.dat version 7 with compressed sections, which\n"
		  "trace-cmd 3 and KernelShark 2 read: C is zstd (default,\n"
		  "about 5x smaller) or zlib, with an optional :LEVEL\n"
		  "(zstd:19); the default is TPOINT_COMPRESS, else version 6", 0 },
		{ 'b', 'b', "buffer", OPT_VALUE, "SIZE", "page pool per process, like 8M (default 8M)", 0 },
		{ 'W', 0, "overwrite", OPT_NO_VALUE, NULL, "keep the newest events when the pool is full", 0 },
		{ 'B', 0, "block", OPT_NO_VALUE, NULL,
		  "when the pool is full, make the writer wait until the\n"
		  "file has taken a page: nothing is lost, the program\n"
		  "runs at the speed of the file (and drops again if the\n"
		  "file takes nothing for 100 ms)", 0 },
		OPT_END,
	},
	.stop_at_operand = 1, /* the command's own options are its own */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- before the command runs: its events, read from its files ---- */

struct known_events {
	char **name;     /* "system:name" */
	char **refused;  /* "" or why the runtime keeps it off */
	size_t n;
	bool oom;
};

static void add_known(const char *system, const char *name, const char *refused, void *arg)
{
	struct known_events *k = arg;
	char **n = realloc(k->name, (k->n + 1) * sizeof(*n));
	char **r = n ? realloc(k->refused, (k->n + 1) * sizeof(*r)) : NULL;

	if (n)
		k->name = n;
	if (r)
		k->refused = r;
	if (!n || !r || asprintf(&k->name[k->n], "%s:%s", system, name) < 0) {
		k->oom = true;
		return;
	}
	k->refused[k->n] = strdup(refused);
	if (!k->refused[k->n]) {
		free(k->name[k->n]);
		k->oom = true;
		return;
	}
	k->n++;
}

static void free_known(struct known_events *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->name[i]);
		free(k->refused[i]);
	}
	free(k->name);
	free(k->refused);
}

/* The file execvp() would run for `cmd`, malloc'ed, or NULL. */
static char *find_program(const char *cmd)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL, *found = NULL;

	if (strchr(cmd, '/'))
		return strdup(cmd);
	copy = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d && !found;
	     d = strtok_r(NULL, ":", &save)) {
		if (asprintf(&found, "%s/%s", *d ? d : ".", cmd) < 0)
			found = NULL;
		else if (access(found, X_OK)) {
			free(found);
			found = NULL;
		}
	}
	free(copy);
	return found;
}

/*
 * The shared libraries `prog` links, as ldd(1) lists them (ld.so's trace mode, which loads
 * nothing and runs none of the program), through fn. false when they cannot be known.
 */
static bool linked_libraries(const char *prog, struct known_events *k)
{
	int pipefd[2], status;
	pid_t pid;
	FILE *f;
	char line[4096];

	if (pipe(pipefd) < 0)
		return false;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return false;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(pipefd[1], 1);
		if (null >= 0)
			dup2(null, 2);
		close(pipefd[0]);
		execlp("ldd", "ldd", prog, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	f = fdopen(pipefd[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		/* "\tlibx.so.1 => /usr/lib/libx.so.1 (0x...)" or "\t/lib64/ld-linux-x86-64.so.2 (0x...)" */
		char *p = strstr(line, "=> "), *end;

		p = p ? p + 3 : line + strspn(line, " \t");
		end = strstr(p, " (");
		if (*p != '/' || !end)
			continue;
		*end = 0;
		if (elf_events(p, add_known, k) < 0)
			k->oom = true;
	}
	if (f)
		fclose(f);
	else
		close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * Check -e against the events compiled into the command and the libraries it links, before
 * it runs: a typo should not cost the whole run. Only where the command is an instrumented
 * program (a shell or a script is not known until it runs), and only a glob list that
 * matches nothing at all is refused: a library the program loads with dlopen() brings events
 * no file names beforehand, so a glob that matches nothing yet among others that do is said
 * here and checked again at the end. Events selected that the runtime will keep off (a print
 * format libtraceevent cannot render) are said now. Returns -1 when the command should not
 * be started.
 */
static int check_before_start(const char *cmd, const char *events)
{
	struct known_events k = { 0 };
	char *prog = find_program(cmd), *list, *save = NULL;
	bool libs, any = false;
	int ret = 0;

	if (!prog)
		return 0; /* execvp says what is wrong */
	if (elf_events(prog, add_known, &k) <= 0) {
		free(prog);
		free_known(&k);
		return 0;
	}
	libs = linked_libraries(prog, &k);
	list = strdup(events);
	for (char *g = list ? strtok_r(list, ",", &save) : NULL; g; g = strtok_r(NULL, ",", &save)) {
		bool matched = false;

		for (size_t i = 0; i < k.n; i++) {
			char *colon = strchr(k.name[i], ':');
			bool m;

			*colon = 0;
			m = glob_selects(g, k.name[i], colon + 1);
			*colon = ':';
			if (!m)
				continue;
			matched = true;
			if (*k.refused[i]) {
				tool_error("record", "%s stays off: libtraceevent cannot render its "
					   "TP_printk (%s); 'tpoint list --check %s' checks a build",
					   k.name[i], k.refused[i], prog);
				k.refused[i][0] = 0; /* said once */
			}
		}
		any |= matched;
		if (!matched)
			tool_error("record", "'%s' matches no event of %s%s", g, prog,
				   libs ? " or of the libraries it links" : "");
	}
	if (!any && libs && !k.oom) {
		fprintf(stderr, "tpoint record: %s was not started; its events:", prog);
		for (size_t i = 0; i < k.n; i++)
			fprintf(stderr, "%s %s", i ? "," : "", k.name[i]);
		fprintf(stderr, " ('tpoint list %s' shows them)\n", prog);
		ret = -1;
	}
	free(list);
	free(prog);
	free_known(&k);
	return ret;
}

static int remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d) {
		while ((e = readdir(d))) {
			char *p;

			if (e->d_name[0] == '.')
				continue;
			if (asprintf(&p, "%s/%s", dir, e->d_name) >= 0) {
				unlink(p);
				free(p);
			}
		}
		closedir(d);
	}
	return rmdir(dir);
}

/* The spools in dir, sorted (one per process): 0, or -1 if there is none. */
static int collect_spools(const char *dir, char ***spools, size_t *nspools)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	*spools = NULL;
	*nspools = 0;
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char **n;

		if (len < 7 || strcmp(e->d_name + len - 6, ".spool"))
			continue;
		n = realloc(*spools, (*nspools + 1) * sizeof(*n));
		if (!n)
			break;
		*spools = n;
		if (asprintf(&n[*nspools], "%s/%s", dir, e->d_name) >= 0)
			(*nspools)++;
	}
	if (d)
		closedir(d);
	if (!*nspools)
		return -1;
	qsort(*spools, *nspools, sizeof(**spools), cmp_str);
	return 0;
}

static void free_spools(char **spools, size_t nspools)
{
	for (size_t i = 0; i < nspools; i++)
		free(spools[i]);
	free(spools);
}

/*
 * What was recorded: the events in the file, and each event's counters. An event whose
 * counts are unknown (a process that recorded it ended without writing them) shows '?', if
 * `globs` selects it (NULL: every such event).
 */
static void print_summary(const char *out, const struct tracedat_result *res, size_t nproc,
			  const char *globs)
{
	unsigned long long kernel = 0; /* the kernel's records are the system's, not a process's */

	for (size_t i = 0; i < res->nev; i++)
		kernel += res->ev[i].kernel ? res->ev[i].recorded : 0;
	if (kernel > res->events)
		kernel = res->events;
	if (nproc && kernel)
		tool_warn("record", "%s: %llu events from %zu process%s, %llu lost; "
			"%llu events of the kernel", out, (unsigned long long)res->events - kernel,
			nproc, nproc == 1 ? "" : "es", (unsigned long long)res->lost, kernel);
	else if (nproc && res->uncounted)
		tool_warn("record", "%s: %llu events from %zu process%s, %llu lost by "
			"the pages' marks (maybe more: the counters of %zu process%s are missing)",
			out, (unsigned long long)res->events, nproc, nproc == 1 ? "" : "es",
			(unsigned long long)res->lost, res->uncounted, res->uncounted == 1 ? "" : "es");
	else if (nproc)
		tool_warn("record", "%s: %llu events from %zu process%s, %llu lost",
			out, (unsigned long long)res->events, nproc, nproc == 1 ? "" : "es",
			(unsigned long long)res->lost);
	else
		tool_warn("record", "%s: %llu events of the kernel", out,
			(unsigned long long)res->events);
	/* The same split `tpoint report --stats` prints: one truth, and where it shows. */
	if (res->lost && res->lost_marked < res->lost)
		fprintf(stderr, "  of the %llu lost, %llu are marked where they happened ([N EVENTS "
			"DROPPED] in the report), %llu have no later record of their thread to mark "
			"(lost at its end, or in pages that never reached the file)\n",
			(unsigned long long)res->lost, (unsigned long long)res->lost_marked,
			(unsigned long long)(res->lost - res->lost_marked));
	else if (res->lost)
		fprintf(stderr, "  all %llu lost are marked where they happened ([N EVENTS DROPPED] "
			"in the report)\n", (unsigned long long)res->lost);
	fprintf(stderr, "  %-40s %12s %12s %12s %12s %12s\n", "event", "hits", "cond-skipped",
		"filtered", "recorded", "lost");
	for (size_t i = 0; i < res->nev; i++) {
		char name[2 * TPOINT_NAME_MAX + 2];

		if (res->ev[i].uncounted) {
			if (globs && !globs_select(globs, res->ev[i].system, res->ev[i].name))
				continue;
			snprintf(name, sizeof(name), "%s:%s", res->ev[i].system, res->ev[i].name);
			fprintf(stderr, "  %-40s %12s %12s %12s %12s %12s\n", name, "?", "?", "?",
				"?", "?");
			continue;
		}
		if (!res->ev[i].hits)
			continue;
		snprintf(name, sizeof(name), "%s:%s", res->ev[i].system, res->ev[i].name);
		fprintf(stderr, "  %-40s %12llu %12llu %12llu %12llu %12llu\n", name,
			(unsigned long long)res->ev[i].hits,
			(unsigned long long)res->ev[i].cond_skipped,
			(unsigned long long)res->ev[i].filtered,
			(unsigned long long)res->ev[i].recorded, (unsigned long long)res->ev[i].lost);
	}
	/* What the counts do not say: why an event recorded nothing, or lost what it lost. */
	for (size_t i = 0; i < res->nev; i++) {
		const struct tracedat_event *e = &res->ev[i];

		if (e->refused)
			fprintf(stderr, "  %s:%s: refused, it stays off: libtraceevent cannot render "
				"its TP_printk ('tpoint list --check' names the problem)\n", e->system,
				e->name);
		else if (e->reg_error)
			fprintf(stderr, "  %s:%s: refused, it stays off: its reg function returned "
				"%d\n", e->system, e->name, e->reg_error);
		if (e->too_big)
			fprintf(stderr, "  %s:%s: %llu lost record%s too big for a page (over "
				"%u bytes, TPOINT_MAX_PAYLOAD)\n", e->system, e->name,
				(unsigned long long)e->too_big, e->too_big == 1 ? " was" : "s were",
				(unsigned)TPOINT_MAX_PAYLOAD);
	}
	char warn[512];

	if (tp_tracedat_size_warning(res, warn, sizeof(warn)))
		tool_warn("record", "%s: %s", out, warn);
}

/*
 * The pools the command's processes passed (lib/handover.c): when one of them is gone
 * without completing its spool (_exit(), or an exec into a program without libtpoint), what
 * its pool still holds is added to the spool. A pool is let go once its process is gone.
 */
struct pools {
	int fd; /* receiving end, or -1 */
	struct collected *v;
	size_t n;
	const char *dir;
	unsigned long long added;
	pid_t main;			/* the command itself */
	unsigned long long added_main;	/* of `added`, its */
};

static void pools_sweep(struct pools *ps, bool take)
{
	struct collected c;

	while (take && ps->fd >= 0 && tp_collect_next(ps->fd, &c) == 1) {
		struct collected *v = realloc(ps->v, (ps->n + 1) * sizeof(*v));

		if (!v) {
			close(c.memfd);
			break;
		}
		ps->v = v;
		ps->v[ps->n++] = c;
	}
	for (size_t i = 0; i < ps->n;) {
		struct collected *c = &ps->v[i];
		char *base = NULL, *spool = NULL, err[512];
		uint64_t added = 0;

		if (!tp_pid_gone(c->pid)) {
			i++;
			continue;
		}
		if (asprintf(&base, "%s/%d.spool", ps->dir, (int)c->pid) >= 0 &&
		    (spool = tp_handover_spool_name(base, c->gen)) && access(spool, F_OK) == 0 &&
		    tp_spool_salvage_memfd(spool, c->memfd, c->npages, c->meta_off, &added, err,
					   sizeof(err)) < 0)
			tool_warn("record", "process %d: %s", (int)c->pid, err);
		ps->added += added;
		if (c->pid == ps->main)
			ps->added_main += added;
		free(spool);
		free(base);
		close(c->memfd);
		*c = ps->v[--ps->n];
	}
}

static volatile sig_atomic_t stop_requested;
/* --compress or TPOINT_COMPRESS: the file is version 7, compressed with it; NULL: version 6. */
static struct tp_codec codec;
static const struct tp_codec *opt_codec;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/*
 * The signals that end a recording cleanly: the file is written, the instance and our
 * directories removed. A hang-up (a closed terminal, a dropped ssh session) and a reader that
 * went away (tpoint record ... | head) are endings like Ctrl-C and SIGTERM, not a reason to
 * leave a spool, an instance that keeps tracing, or nothing at all.
 */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

static void stop_signals_set(void (*handler)(int))
{
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		signal(stop_signals[i], handler);
}

/* The file keeps the selection's events, and of those the records its filters pass. */
static bool keep_event(void *ctx, const char *system, const char *name, const char *format,
		       struct filter **f)
{
	return sel_event(ctx, system, name, format, f);
}

/*
 * -- CMD with -e ... -f EXPR: the filters are judged as the file is written, as for -p, and
 * what each -f did is counted per -e: the events it compiled for, and those it did not (a
 * field they lack): these keep all their records. The command's other events stay as they
 * are, as without a filter.
 */
struct cmd_filters {
	const struct selection *sel;
	size_t *took, *left; /* per group */
	char **first_left;   /* per group: the first event it left unfiltered */
};

static bool keep_cmd_event(void *ctx, const char *system, const char *name, const char *format,
			   struct filter **f)
{
	struct cmd_filters *cf = ctx;

	for (size_t i = 0; i < cf->sel->ngroups; i++) {
		struct selection one = { &cf->sel->group[i], 1, NULL };
		struct filter *g;

		if (!one.group->filter || !sel_event(&one, system, name, format, &g))
			continue;
		if (g) {
			cf->took[i]++;
			tp_filter_free(g);
		} else if (!cf->left[i]++) {
			if (asprintf(&cf->first_left[i], "%s:%s", system, name) < 0)
				cf->first_left[i] = NULL;
		}
	}
	sel_event(cf->sel, system, name, format, f);
	return true;
}

/* What the -f of a command's -e did; -1 when one applied to none of its events. */
static int cmd_filters_said(struct cmd_filters *cf)
{
	int ret = 0;

	for (size_t i = 0; i < cf->sel->ngroups; i++) {
		const struct sel_group *g = &cf->sel->group[i];

		if (g->filter && !cf->took[i] && cf->left[i]) {
			tool_error("record", "-f '%s' filters none of the events of -e '%s' (it does "
				   "not compile for %s: a field it lacks, or its syntax): their "
				   "records are all kept", g->filter, g->globs,
				   cf->first_left[i] ? cf->first_left[i] : "them");
			ret = -1;
		} else if (g->filter && cf->left[i]) {
			tool_error("record", "-f '%s' leaves %zu of the events of -e '%s' unfiltered "
				   "(%s: a field it lacks)", g->filter, cf->left[i], g->globs,
				   cf->first_left[i] ? cf->first_left[i] : "?");
		}
	}
	return ret;
}

static void cmd_filters_free(struct cmd_filters *cf)
{
	for (size_t i = 0; cf->first_left && i < cf->sel->ngroups; i++)
		free(cf->first_left[i]);
	free(cf->took);
	free(cf->left);
	free(cf->first_left);
	memset(cf, 0, sizeof(*cf));
}

/* tpoint record -p PID: the process spools into our directory; we wait, then assemble. */
static int record_pid(pid_t pid, const struct selection *sel, const char *out,
		      double duration, const char *mode, size_t bytes, struct krecord *kr,
		      bool kernel_pids)
{
	struct tracedat_extra x;
	struct tracedat_select keep = { (void *)sel, 0, keep_event };
	struct timespec t0;
	struct attach a;
	struct tracedat_result res;
	char err[1024] = "", *stats;
	bool salvaged, tty = isatty(2);
	double elapsed = 0;
	unsigned long long last_rec = 0;
	int ret = EXIT_FAIL, dir_lock;

	if (attach_make_dir(&a, pid, out, err, sizeof(err)) < 0) {
		tool_error("record", "%s", err);
		return EXIT_FAIL;
	}
	/* Held until we are gone: if we are killed, the next record names the directory. */
	dir_lock = owner_lock_dir(a.dir);
	/* Every -e names an event, every -f compiles for one: before anything changes. */
	if (ctl_connect(pid, &a.conn, err, sizeof(err)) < 0) {
		tool_error("record", "%s", err);
		goto out;
	}
	if (sel_check(sel, "record", &a.conn, pid) < 0)
		goto out;
	ctl_close(&a.conn);
	if (kr && ((kernel_pids && krec_set_pids(kr, &pid, 1, err, sizeof(err)) < 0) ||
		   krec_start(kr, out, err, sizeof(err)) < 0)) {
		tool_error("record", "-k: %s", err);
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	keep.since = (uint64_t)t0.tv_sec * 1000000000u + (uint64_t)t0.tv_nsec;
	if (attach_start(&a, pid, sel_globs(sel), mode, bytes, false, err, sizeof(err)) < 0) {
		tool_error("record", "%s", err);
		goto out;
	}
	/* a selected event that stays off (failed reg(), unrenderable format) is said */
	ctl_say_refused("record", &a.conn, sel_globs(sel));
	if (a.pool_fd < 0)
		tool_warn("record", "note: process %d closed its buffer's descriptor: "
			"if it is killed, unspooled events are lost", (int)pid);
	while (!stop_requested && (!duration || elapsed < duration)) {
		struct timespec ts = { 0, 100000000 };

		nanosleep(&ts, NULL);
		elapsed += 0.1;
		if (kill(pid, 0) < 0 && errno == ESRCH)
			break;
		/* Once a second, on a terminal: what is coming in. */
		if (tty && (int)(elapsed * 10) % 10 == 0 &&
		    ctl_request(&a.conn, CTL_STATS, NULL, &stats, err, sizeof(err)) >= 0) {
			unsigned long long rec = 0, lost = 0, v[5];
			char *save = NULL;

			for (char *l = strtok_r(stats, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
				char *t = strchr(l, '\t');

				if (t && sscanf(t, "\t%llu\t%llu\t%llu\t%llu\t%llu", &v[0], &v[1], &v[2],
						&v[3], &v[4]) == 5) {
					rec += v[3];
					lost += v[4];
				}
			}
			free(stats);
			fprintf(stderr, "\rtpoint record: %llu events/s, %llu recorded, %llu lost   ",
				rec - last_rec, rec, lost);
			last_rec = rec;
		}
	}
	if (tty)
		fputc('\n', stderr);
	krec_stop(kr);
	if (attach_finish(&a, &salvaged, err, sizeof(err)) < 0) {
		tool_error("record", "%s", err);
		goto out;
	}
	if (salvaged)
		tool_warn("record", "process %d is gone; its remaining pages were "
			"read from its buffer", (int)pid);
	const char *spools[1] = { a.spool_ref }; /* what we opened, not its name */

	if (kr && krec_extra(kr, &x, err, sizeof(err)) < 0) {
		tool_error("record", "-k: %s", err);
		goto out;
	}
	if (tp_tracedat_write(out, spools, 1, &keep, kr ? &x : NULL, opt_codec, &res, err,
			      sizeof(err)) < 0) {
		tool_error("record", "%s", err);
		goto out;
	}
	tool_error_lines("record", "damaged: ", res.damage);
	print_summary(out, &res, 1, NULL);
	if (res.uncounted)
		tool_warn("record", "process %d ended before it wrote its counters "
			"(killed by a signal, or _exit()): its events' counts are unknown ('?'); "
			"the file holds every event it recorded", (int)pid);
	if (kr)
		krec_summary(kr);
	ret = res.damage ? EXIT_FAIL : EXIT_OK;
	tp_tracedat_result_free(&res);
out:
	attach_cleanup(&a);
	if (dir_lock >= 0)
		close(dir_lock);
	return ret;
}

/* tpoint record -k GLOBS with neither a command nor -p: until Ctrl-C or the duration. */
static int record_kernel(struct krecord *kr, const char *out, double duration)
{
	struct tracedat_extra x;
	struct tracedat_result res;
	double elapsed = 0;
	char err[1024];

	if (krec_start(kr, out, err, sizeof(err)) < 0) {
		tool_error("record", "-k: %s", err);
		return EXIT_FAIL;
	}
	while (!stop_requested && (!duration || elapsed < duration)) {
		nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
		elapsed += 0.1;
	}
	krec_stop(kr);
	if (krec_extra(kr, &x, err, sizeof(err)) < 0) {
		tool_error("record", "-k: %s", err);
		return EXIT_FAIL;
	}
	if (tp_tracedat_write(out, NULL, 0, NULL, &x, opt_codec, &res, err, sizeof(err)) < 0) {
		tool_error("record", "%s", err);
		return EXIT_FAIL;
	}
	print_summary(out, &res, 0, NULL);
	krec_summary(kr);
	tp_tracedat_result_free(&res);
	return EXIT_OK;
}

/*
 * tpoint record --assemble DIR: the file of a recording whose spools `record` kept because
 * it could not write the file (a full disk). The spools go once the file is written from
 * all of them, every one read to its end mark; DIR too, if nothing else is in it. Spools
 * with anything that cannot be read stay, with what was wrong said and a failure status:
 * the file then holds what could be read.
 */
static int record_assemble(const char *dir, const char *out)
{
	struct tracedat_result res;
	char **spools, err[512];
	size_t nspools;
	int ret = EXIT_OK;

	if (collect_spools(dir, &spools, &nspools) < 0) {
		tool_error("record", "%s: no spool files (*.spool) there", dir);
		free_spools(spools, nspools);
		return EXIT_FAIL;
	}
	if (tp_tracedat_write(out, (const char *const *)spools, (int)nspools, NULL, NULL, opt_codec,
			      &res, err, sizeof(err)) < 0) {
		tool_error("record", "%s", err);
		free_spools(spools, nspools);
		return EXIT_FAIL;
	}
	tool_error_lines("record", "damaged: ", res.damage);
	tool_error_lines("record", "incomplete: ", res.unfinished);
	print_summary(out, &res, nspools, NULL);
	if (res.damage || res.unfinished) {
		tool_error("record", "%s holds what could be read, not all of it; %s is kept as it "
			   "was", out, dir);
		ret = EXIT_FAIL;
	} else {
		for (size_t i = 0; i < nspools; i++)
			unlink(spools[i]);
		rmdir(dir);
	}
	tp_tracedat_result_free(&res);
	free_spools(spools, nspools);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct opts o;
	const char *events = NULL, *out = "trace.dat", *buffer = NULL;
	const char *mode = NULL; /* the library's default: discard */
	char dirbuf[4096], **spools = NULL, err[512];
	size_t nspools = 0;
	int c, status = 0, ret = EXIT_FAIL;
	bool keep_dir = false;
	pid_t child;
	struct tracedat_result res;
	const char *filter = NULL, *assemble = NULL, *duration_arg = NULL;
	static struct selection sel; /* static: reachable to the end, whichever way we return */
	double duration = 0;
	pid_t pid = 0;
	char *end;
	static struct kgroup kgroup[64]; /* static: as sel */
	size_t nkgroups = 0;
	bool kernel_pids = false, last_was_kernel = false;
	struct krecord *kr = NULL;
	int go[2] = { -1, -1 }; /* the command waits on it until the kernel records */
	struct tracedat_extra x;
	const char *compress = getenv("TPOINT_COMPRESS");
	struct cmd_filters cf = { 0 }; /* -- CMD with -f: what the filters did */

	opts_start(&o, &record_opts, argc, argv);
	while ((c = opts_next(&o)) != OPTS_END) {
		const char *optarg = o.value;

		if (c == 'k') {
			if (globs_check("record", optarg) < 0)
				return EXIT_USAGE;
			if (nkgroups == sizeof(kgroup) / sizeof(kgroup[0])) {
				tool_error("record", "-k: at most %zu of them", nkgroups);
				return EXIT_USAGE;
			}
			kgroup[nkgroups++] = (struct kgroup){ optarg, NULL };
			last_was_kernel = true;
			continue;
		}
		if (c == 'f' && last_was_kernel) {
			if (kgroup[nkgroups - 1].filter) {
				tool_error("record", "-f '%s': -k '%s' has a filter already ('%s')",
					   optarg, kgroup[nkgroups - 1].globs,
					   kgroup[nkgroups - 1].filter);
				return EXIT_USAGE;
			}
			kgroup[nkgroups - 1].filter = optarg;
			continue;
		}
		if (c == 'e')
			last_was_kernel = false;
		switch (c) {
		case 'K': kernel_pids = true; break;
		case 'e':
			switch (sel_add_events(&sel, "record", optarg)) {
			case -2: return EXIT_USAGE;
			case -1: return EXIT_FAIL;
			}
			events = sel_globs(&sel); /* every -e, for a command too */
			break;
		case 'o': out = optarg; break;
		case 'b': buffer = optarg; break;
		case 'W':
		case 'B':
			if (mode) {
				tool_error("record", "--overwrite and --block: one or the other");
				return EXIT_USAGE;
			}
			mode = c == 'W' ? "overwrite" : "block";
			break;
		case 'p':
			pid = ctl_parse_one_pid("record", optarg, pid);
			if (pid < 0)
				return EXIT_USAGE;
			break;
		case 'f':
			if (sel_add_filter(&sel, "record", optarg) < 0)
				return EXIT_USAGE;
			filter = optarg;
			break;
		case 'A': assemble = optarg; break;
		case 'Z': compress = optarg ? optarg : ""; break;
		case 'd':
			duration_arg = optarg;
			duration = strtod(optarg, &end);
			if (*end || !(duration > 0)) {
				tool_error("record", "--duration '%s': expected seconds, like 10", optarg);
				return EXIT_USAGE;
			}
			break;
		default: return opts_exit(c);
		}
	}
	optind = o.ind;
	/*
	 * The file is written beside the output and renamed over it: that would replace a
	 * device node (as root, /dev/null for everyone) or a link. Refused before anything runs.
	 */
	if (tp_output_check(out, err, sizeof(err)) < 0) {
		tool_error("record", "%s", err);
		return EXIT_FAIL;
	}
	if (compress && strcmp(compress, "none")) {
		const char *name;
		int level;

		if (tp_codec_parse(compress, &name, &level, err, sizeof(err)) < 0) {
			tool_error("record", "--compress: %s", err);
			return EXIT_USAGE;
		}
		if (tp_codec_open(&codec, name, level, err, sizeof(err)) < 0) {
			tool_error("record", "--compress: %s", err);
			return EXIT_FAIL;
		}
		opt_codec = &codec;
	}
	if (assemble) {
		if (events || pid || filter || duration || mode || buffer || optind < argc ||
		    nkgroups) {
			tool_error("record", "--assemble takes a directory and -o, nothing else");
			return EXIT_USAGE;
		}
		return record_assemble(assemble, out);
	}
	if ((!events || !*events) && (!nkgroups || pid)) {
		tool_error("record", "no events given; use -e GLOB, e.g. -e 'writeback:*'%s",
			   pid ? "" : ", or -k GLOB for the kernel's");
		return EXIT_USAGE;
	}
	if (kernel_pids && (!nkgroups || (!pid && optind >= argc))) {
		tool_error("record", "--kernel-pids: it keeps the kernel events (-k) of the command "
			   "or the -p process; there is %s", nkgroups ? "neither" : "no -k");
		return EXIT_USAGE;
	}
	if (events && !pid && optind >= argc) {
		tool_error("record", "-e '%s': no process to record it of; give -p PID, or -- CMD "
			   "to run one%s", events, nkgroups ? " (-k alone records the kernel)" : "");
		return EXIT_USAGE;
	}
	if (duration && optind < argc) {
		tool_error("record", "--duration %s: a command is recorded until it ends; "
			   "--duration goes with -p PID, or -k alone", duration_arg);
		return EXIT_USAGE;
	}
	if (nkgroups && !pid && optind >= argc && (filter || mode || buffer)) {
		tool_error("record", "-k alone records the kernel: -f goes after a -k, and -b, "
			   "--overwrite, --block are for a program's events");
		return EXIT_USAGE;
	}
	if (duration && nkgroups && !pid && optind >= argc) {
		/* the kernel alone, for a while */
	} else if (nkgroups && !pid && optind >= argc) {
		/* the kernel alone, until Ctrl-C */
	}
	size_t bytes = 0;

	if (buffer && tp_pool_size_parse(buffer, &bytes) < 0) {
		tool_error("record", "-b '%s': expected " TP_POOL_SIZE_EXPECTED, buffer);
		return EXIT_USAGE;
	}
	if (buffer) {
		char why[256];

		/* The library caps it (tp_pool_size_fit()); this says so where the user looks. */
		if (tp_pool_size_fit(bytes, why, sizeof(why)) < bytes)
			tool_warn("record", "note: -b %s: %s; each process gets what it "
				"can have (TPOINT_DEBUG=1 shows it)", buffer, why);
	}
	if (pid && optind < argc) {
		tool_error("record", "-p records a running process: no command with it");
		return EXIT_USAGE;
	}
	if (!pid && optind < argc && events && check_before_start(argv[optind], events) < 0)
		return EXIT_FAIL;
	if (!pid && optind < argc && !events)
		tool_warn("record", "note: no -e: none of the events of %s are selected, "
			"only the kernel's (-k); -e GLOB selects them", argv[optind]);
	/* From here on, the stop signals end the recording cleanly, in whatever form. */
	stop_signals_set(on_stop);
	/* Spools a recorder killed before us left beside our file: said, to be assembled. */
	if (!nkgroups || pid || optind < argc)
		owner_say_unfinished("record", out);
	/*
	 * The kernel's side, before anything runs: every -k names events, every -f after one
	 * the kernel accepts; else nothing is left behind and no command is started.
	 */
	if (nkgroups) {
		kr = krec_setup(kgroup, nkgroups, err, sizeof(err));
		if (!kr) {
			tool_error("record", "-k: %s", err);
			return EXIT_FAIL;
		}
	}
	if (pid) {
		ret = record_pid(pid, &sel, out, duration, mode ? mode : "discard", bytes, kr,
				 kernel_pids);
		krec_free(kr);
		return ret;
	}
	if (kr && optind >= argc) {
		ret = record_kernel(kr, out, duration);
		krec_free(kr);
		return ret;
	}
	if (optind >= argc) {
		tool_error("record", "no command to run; usage: tpoint record -e GLOB -- CMD [ARGS...]");
		return EXIT_USAGE;
	}

	/* The spools live beside the output, on the same file system as the result. */
	{
		const char *slash = strrchr(out, '/');
		int n = slash ? snprintf(dirbuf, sizeof(dirbuf), "%.*s/.tpoint-spool.XXXXXX",
					 (int)(slash - out), out)
			      : snprintf(dirbuf, sizeof(dirbuf), ".tpoint-spool.XXXXXX");

		if (n <= 0 || (size_t)n >= sizeof(dirbuf) || !mkdtemp(dirbuf)) {
			tool_error("record", "%s: cannot write there: %s", out, strerror(errno));
			krec_free(kr);
			return EXIT_FAIL;
		}
	}
	/* Held until we are gone: if we are killed, the next record names the directory. */
	int dir_lock = owner_lock_dir(dirbuf);

	struct pools ps = { .fd = -1, .dir = dirbuf };
	int send_fd = tp_collect_make(&ps.fd, false);

	if (send_fd < 0)
		tool_warn("record", "note: no channel for the processes' buffers (%s): "
			"what a process ending with _exit() leaves in its buffer is lost",
			strerror(-send_fd));
	if (stop_requested) { /* stopped before the command started: nothing to record */
		remove_dir(dirbuf);
		krec_free(kr);
		return EXIT_FAIL;
	}
	if (kr && pipe2(go, O_CLOEXEC) < 0) {
		tool_error("record", "pipe: %s", strerror(errno));
		remove_dir(dirbuf);
		krec_free(kr);
		return EXIT_FAIL;
	}
	child = fork();
	if (child < 0) {
		tool_error("record", "fork: %s", strerror(errno));
		remove_dir(dirbuf);
		krec_free(kr);
		return EXIT_FAIL;
	}
	if (child == 0) {
		char go_byte = 0;
		ssize_t got;

		if (kr) { /* not before the kernel records: its events from the first on */
			close(go[1]);
			do
				got = read(go[0], &go_byte, 1);
			while (got < 0 && errno == EINTR);
			if (got != 1 || go_byte != 'g')
				_exit(127);
		}
		if (events)
			setenv("TPOINT_EVENTS", events, 1);
		setenv("TPOINT_SPOOL_DIR", dirbuf, 1);
		unsetenv("TPOINT_RECORD");
		unsetenv("TPOINT_RECORD_OWNER");
		if (buffer)
			setenv("TPOINT_BUFFER_SIZE", buffer, 1);
		if (mode)
			setenv("TPOINT_MODE", mode, 1);
		execvp(argv[optind], argv + optind);
		tool_error("record", "%s: %s", argv[optind], strerror(errno));
		_exit(127);
	}
	ps.main = child;
	if (send_fd >= 0)
		close(send_fd);
	unsetenv("TPOINT_COLLECT");
	if (kr) {
		close(go[0]);
		if ((kernel_pids && krec_set_pids(kr, &child, 1, err, sizeof(err)) < 0) ||
		    krec_start(kr, out, err, sizeof(err)) < 0 || write(go[1], "g", 1) != 1) {
			tool_error("record", "-k: %s; %s was not started", err, argv[optind]);
			close(go[1]); /* the command is told not to run */
			while (waitpid(child, &status, 0) < 0 && errno == EINTR)
				;
			remove_dir(dirbuf);
			krec_free(kr);
			return EXIT_FAIL;
		}
		close(go[1]);
	}
	/*
	 * Ctrl-C goes to the whole foreground group, and so does a hang-up: the command decides,
	 * we wait for it, then write the file. A closed pipe on our side ends nothing either.
	 */
	stop_signals_set(SIG_IGN);
	for (;;) {
		pid_t w = waitpid(child, &status, WNOHANG);
		struct pollfd pfd = { ps.fd, POLLIN, 0 };

		if (w == child || (w < 0 && errno != EINTR))
			break;
		/* A tenth of a second: processes that ended are swept, their pools let go. */
		poll(&pfd, ps.fd >= 0 ? 1 : 0, 100);
		pools_sweep(&ps, true);
	}
	pools_sweep(&ps, true);
	for (size_t i = 0; i < ps.n; i++) /* still running: their spools are read as they are */
		close(ps.v[i].memfd);
	free(ps.v);
	if (ps.fd >= 0)
		close(ps.fd);
	krec_stop(kr);
	if (ps.added_main && WIFSIGNALED(status))
		tool_warn("record", "%llu events that %s left in its buffer when signal "
			"%d (%s) killed it were added from there", ps.added_main, argv[optind],
			WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (ps.added_main)
		tool_warn("record", "%llu events that %s left in its buffer (it ended "
			"with _exit(), or exec'd a program without libtpoint) were added from there",
			ps.added_main, argv[optind]);
	if (ps.added > ps.added_main)
		tool_warn("record", "%llu events that other processes left in their "
			"buffers (killed by a signal, ended with _exit(), or exec'd a program without "
			"libtpoint) were added from there", ps.added - ps.added_main);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		remove_dir(dirbuf);
		krec_free(kr);
		return EXIT_FAIL;
	}

	if (collect_spools(dirbuf, &spools, &nspools) < 0 && (events || !kr)) {
		tool_error("record", "%s recorded nothing: is it linked with libtpoint? "
			   "(run it with TPOINT_DEBUG=1 to see why)", argv[optind]);
		goto out;
	}
	if (kr && krec_extra(kr, &x, err, sizeof(err)) < 0) {
		tool_error("record", "-k: %s", err);
		goto out;
	}
	struct tracedat_select keep = { &cf, 0, keep_cmd_event };

	if (filter) {
		cf = (struct cmd_filters){ &sel, calloc(sel.ngroups, sizeof(size_t)),
					   calloc(sel.ngroups, sizeof(size_t)),
					   calloc(sel.ngroups, sizeof(char *)) };
		if (!cf.took || !cf.left || !cf.first_left) {
			tool_error("record", "out of memory");
			goto out;
		}
	}
	if (tp_tracedat_write(out, (const char *const *)spools, (int)nspools,
			      filter ? &keep : NULL, kr ? &x : NULL, opt_codec, &res, err,
			      sizeof(err)) < 0) {
		tool_error("record", "%s", err);
		/* What was recorded stays: the file can be written later, or elsewhere. */
		fprintf(stderr, "tpoint record: what %s recorded is kept in %s; write it with\n"
			"  tpoint record --assemble %s -o FILE\n", argv[optind], dirbuf, dirbuf);
		if (kr)
			tool_warn("record", "(the kernel's events are not kept)");
		cmd_filters_free(&cf);
		free_spools(spools, nspools);
		krec_free(kr);
		return EXIT_FAIL;
	}

	ret = EXIT_OK;
	if (filter && cmd_filters_said(&cf) < 0)
		ret = EXIT_FAIL;
	/* Damaged spools stay, as they would for --assemble; the file holds what was read. */
	if (res.damage) {
		tool_error_lines("record", "damaged: ", res.damage);
		tool_warn("record", "%s holds what could be read; the spools are kept "
			"in %s", out, dirbuf);
		keep_dir = true;
		ret = EXIT_FAIL;
	}
	/* Every glob must name something: a typo should not pass as "no events". */
	char *list = events ? strdup(events) : NULL, *save = NULL;

	for (char *g = list ? strtok_r(list, ",", &save) : NULL; g; g = strtok_r(NULL, ",", &save)) {
		bool any = false;

		for (size_t i = 0; i < res.nev && !any; i++)
			any = !res.ev[i].kernel && glob_selects(g, res.ev[i].system, res.ev[i].name);
		if (!any) {
			tool_error("record", "'%s' matches no event of %s", g, argv[optind]);
			ret = EXIT_FAIL;
		}
	}
	free(list);

	size_t nproc = 0; /* a process that exec'd has a spool for each image */

	for (size_t i = 0; i < nspools; i++)
		nproc += !strstr(strrchr(spools[i], '/') ? strrchr(spools[i], '/') : spools[i],
				 ".exec");
	print_summary(out, &res, nproc, events);
	if (res.uncounted == 1 && WIFSIGNALED(status))
		tool_warn("record", "%s was killed by signal %d (%s) before it wrote its "
			"counters: the counts of its events are unknown ('?'); the file holds every "
			"event it recorded", argv[optind], WTERMSIG(status),
			strsignal(WTERMSIG(status)));
	else if (res.uncounted)
		tool_warn("record", "%zu of the processes ended before they wrote their "
			"counters (killed by a signal, _exit(), or an exec into a program without "
			"libtpoint): the counts of their events are unknown ('?'); the file holds "
			"every event they recorded", res.uncounted);
	if (kr)
		krec_summary(kr);
	/*
	 * The command's own failure is the exit status, as with trace-cmd record and perf
	 * record: a script that runs `tpoint record -- make` must see make fail. The file is
	 * written all the same.
	 */
	if (WIFSIGNALED(status)) {
		tool_warn("record", "%s was killed by signal %d; what it recorded is kept",
			argv[optind], WTERMSIG(status));
		ret = 128 + WTERMSIG(status);
	} else if (WEXITSTATUS(status)) {
		tool_warn("record", "%s exited with status %d", argv[optind],
			WEXITSTATUS(status));
		ret = WEXITSTATUS(status);
	}
	tp_tracedat_result_free(&res);
out:
	cmd_filters_free(&cf);
	free_spools(spools, nspools);
	if (!keep_dir)
		remove_dir(dirbuf);
	if (dir_lock >= 0)
		close(dir_lock);
	krec_free(kr);
	return ret;
}
