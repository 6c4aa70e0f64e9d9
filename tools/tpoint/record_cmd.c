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
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "env.h"
#include "filter.h"
#include "globs.h"
#include "handover.h"
#include "owner.h"
#include "record.h"
#include "salvage.h"
#include "tool.h"

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
int check_before_start(const char *cmd, const char *events)
{
	struct known_events k = { 0 };
	char *prog = find_program(cmd);
	const char *g;
	size_t glen;
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
	for (const char *at = events; tp_globs_next(&at, &g, &glen);) {
		bool matched = false;

		for (size_t i = 0; i < k.n; i++) {
			char *colon = strchr(k.name[i], ':');
			bool m;

			*colon = 0;
			m = tp_glob_selects(g, glen, k.name[i], colon + 1);
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
			tool_error("record", "'%.*s' matches no event of %s%s", (int)glen, g, prog,
				   libs ? " or of the libraries it links" : "");
	}
	if (!any && libs && !k.oom) {
		fprintf(stderr, "tpoint record: %s was not started; its events:", prog);
		for (size_t i = 0; i < k.n; i++)
			fprintf(stderr, "%s %s", i ? "," : "", k.name[i]);
		fprintf(stderr, " ('tpoint list %s' shows them)\n", prog);
		ret = -1;
	}
	free(prog);
	free_known(&k);
	return ret;
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

/* The spools live beside the output, on the same file system as the result. */
static int spool_dir_make(const char *out, char *dirbuf, size_t len)
{
	const char *slash = strrchr(out, '/');
	int n = slash ? snprintf(dirbuf, len, "%.*s/.tpoint-spool.XXXXXX", (int)(slash - out), out)
		      : snprintf(dirbuf, len, ".tpoint-spool.XXXXXX");

	if (n <= 0 || (size_t)n >= len || !mkdtemp(dirbuf)) {
		tool_error("record", "%s: cannot write there: %s", out, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * In the child: the command, with the environment that makes libtpoint record into dir;
 * with go, not before the kernel records (a 'g' on go[0]): its events from the first on.
 */
static void __attribute__((noreturn)) exec_command(char **cmd, const struct record_args *a,
						   const char *dirbuf, const int *go)
{
	const char *events = a->events, *buffer = a->buffer, *mode = a->mode;
	char go_byte = 0;
	ssize_t got;

	if (go) {
		close(go[1]);
		do
			got = read(go[0], &go_byte, 1);
		while (got < 0 && errno == EINTR);
		if (got != 1 || go_byte != 'g')
			_exit(127);
	}
	if (events)
		setenv(TP_ENV_EVENTS, events, 1);
	setenv(TP_ENV_SPOOL_DIR, dirbuf, 1);
	unsetenv(TP_ENV_RECORD);
	unsetenv(TP_ENV_RECORD_OWNER);
	if (buffer)
		setenv(TP_ENV_BUFFER_SIZE, buffer, 1);
	if (mode)
		setenv(TP_ENV_MODE, mode, 1);
	execvp(cmd[0], cmd);
	tool_error("record", "%s: %s", cmd[0], strerror(errno));
	_exit(127);
}

/*
 * Until the command has ended, its status in *status: the pools of its processes that end
 * are swept as they go, the kernel's recording stopped after, and what was added from the
 * pools said.
 */
static void wait_command(struct pools *ps, pid_t child, int *status, const char *name,
			 struct krecord *kr)
{
	/*
	 * Ctrl-C goes to the whole foreground group, and so does a hang-up: the command decides,
	 * we wait for it, then write the file. A closed pipe on our side ends nothing either.
	 */
	stop_signals_set(SIG_IGN);
	for (;;) {
		pid_t w = waitpid(child, status, WNOHANG);
		struct pollfd pfd = { ps->fd, POLLIN, 0 };

		if (w == child || (w < 0 && errno != EINTR))
			break;
		/* A tenth of a second: processes that ended are swept, their pools let go. */
		poll(&pfd, ps->fd >= 0 ? 1 : 0, 100);
		pools_sweep(ps, true);
	}
	pools_sweep(ps, true);
	for (size_t i = 0; i < ps->n; i++) /* still running: their spools are read as they are */
		close(ps->v[i].memfd);
	free(ps->v);
	if (ps->fd >= 0)
		close(ps->fd);
	krec_stop(kr);
	if (ps->added_main && WIFSIGNALED(*status))
		tool_warn("record", "%llu events that %s left in its buffer when signal "
			"%d (%s) killed it were added from there", ps->added_main, name,
			WTERMSIG(*status), strsignal(WTERMSIG(*status)));
	else if (ps->added_main)
		tool_warn("record", "%llu events that %s left in its buffer (it ended "
			"with _exit(), or exec'd a program without libtpoint) were added from there",
			ps->added_main, name);
	if (ps->added > ps->added_main)
		tool_warn("record", "%llu events that other processes left in their "
			"buffers (killed by a signal, ended with _exit(), or exec'd a program without "
			"libtpoint) were added from there", ps->added - ps->added_main);
}

/* What becomes of the spool directory once write_recording() is done. */
enum spools_after {
	SPOOLS_REMOVE,
	SPOOLS_KEEP,	  /* damaged spools stay, as they would for --assemble */
	SPOOLS_KEEP_HELD, /* no file was written: they stay, the directory held until we exit */
};

/*
 * After the command ended (its wait status in `status`): the spools in dirbuf (and the
 * kernel's records) written to the file, every glob checked, the summary said. The exit
 * status: the command's own failure, else EXIT_FAIL for one of ours; *after: what becomes of
 * the spools.
 */
static int write_recording(char **cmd, const struct record_args *a, struct krecord *kr,
			   const char *dirbuf, int status, enum spools_after *after)
{
	const char *events = a->events, *out = a->out;
	const char *filter = a->filter;
	char **spools = NULL, err[512];
	size_t nspools = 0;
	int ret = EXIT_FAIL;
	struct tracedat_result res;
	struct tracedat_extra x;
	struct cmd_filters cf = { 0 }; /* -- CMD with -f: what the filters did */

	*after = SPOOLS_REMOVE;
	if (collect_spools(dirbuf, &spools, &nspools) < 0 && (events || !kr)) {
		tool_error("record", "%s recorded nothing: is it linked with libtpoint? "
			   "(run it with TPOINT_DEBUG=1 to see why)", cmd[0]);
		goto out;
	}
	if (kr && krec_extra(kr, &x, err, sizeof(err)) < 0) {
		tool_error("record", "-k: %s", err);
		goto out;
	}
	struct tracedat_select keep = { &cf, 0, keep_cmd_event };

	if (filter) {
		cf = (struct cmd_filters){ a->sel, calloc(a->sel->ngroups, sizeof(size_t)),
					   calloc(a->sel->ngroups, sizeof(size_t)),
					   calloc(a->sel->ngroups, sizeof(char *)) };
		if (!cf.took || !cf.left || !cf.first_left) {
			tool_error("record", "out of memory");
			goto out;
		}
	}
	if (tp_tracedat_write(&(struct tracedat_write_opts){ .out_path = out,
			      .spools = (const char *const *)spools, .nspools = (int)nspools,
			      .sel = filter ? &keep : NULL, .extra = kr ? &x : NULL,
			      .codec = opt_codec }, &res, err, sizeof(err)) < 0) {
		tool_error("record", "%s", err);
		/* What was recorded stays: the file can be written later, or elsewhere. */
		fprintf(stderr, "tpoint record: what %s recorded is kept in %s; write it with\n"
			"  tpoint record --assemble %s -o FILE\n", cmd[0], dirbuf, dirbuf);
		if (kr)
			tool_warn("record", "(the kernel's events are not kept)");
		*after = SPOOLS_KEEP_HELD;
		goto out;
	}

	ret = EXIT_OK;
	if (filter && cmd_filters_said(&cf) < 0)
		ret = EXIT_FAIL;
	/* Damaged spools stay, as they would for --assemble; the file holds what was read. */
	if (res.damage) {
		tool_error_lines("record", "damaged: ", res.damage);
		tool_warn("record", "%s holds what could be read; the spools are kept "
			"in %s", out, dirbuf);
		*after = SPOOLS_KEEP;
		ret = EXIT_FAIL;
	}
	/* Every glob must name something: a typo should not pass as "no events". */
	const char *g;
	size_t glen;

	for (const char *at = events; tp_globs_next(&at, &g, &glen);) {
		bool any = false;

		for (size_t i = 0; i < res.nev && !any; i++)
			any = !res.ev[i].kernel &&
			      tp_glob_selects(g, glen, res.ev[i].system, res.ev[i].name);
		if (!any) {
			tool_error("record", "'%.*s' matches no event of %s", (int)glen, g, cmd[0]);
			ret = EXIT_FAIL;
		}
	}

	size_t nproc = 0; /* a process that exec'd has a spool for each image */

	for (size_t i = 0; i < nspools; i++)
		nproc += !strstr(strrchr(spools[i], '/') ? strrchr(spools[i], '/') : spools[i],
				 ".exec");
	print_summary(out, &res, nproc, events);
	if (res.uncounted == 1 && WIFSIGNALED(status))
		tool_warn("record", "%s was killed by signal %d (%s) before it wrote its "
			"counters: the counts of its events are unknown ('?'); the file holds every "
			"event it recorded", cmd[0], WTERMSIG(status),
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
			cmd[0], WTERMSIG(status));
		ret = 128 + WTERMSIG(status);
	} else if (WEXITSTATUS(status)) {
		tool_warn("record", "%s exited with status %d", cmd[0],
			WEXITSTATUS(status));
		ret = WEXITSTATUS(status);
	}
	tp_tracedat_result_free(&res);
out:
	cmd_filters_free(&cf);
	free_spools(spools, nspools);
	return ret;
}

/*
 * tpoint record ... -- CMD: the command runs with the environment that makes libtpoint
 * record; when it has exited, its processes' spools become the file.
 */
int record_command(char **cmd, const struct record_args *a, struct krecord *kr)
{
	const char *out = a->out;
	bool kernel_pids = a->kernel_pids;
	char dirbuf[4096], err[512];
	int status = 0, ret;
	enum spools_after after;
	pid_t child;
	int go[2] = { -1, -1 }; /* the command waits on it until the kernel records */

	if (spool_dir_make(out, dirbuf, sizeof(dirbuf)) < 0) {
		krec_free(kr);
		return EXIT_FAIL;
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
	if (child == 0)
		exec_command(cmd, a, dirbuf, kr ? go : NULL);
	ps.main = child;
	if (send_fd >= 0)
		close(send_fd);
	unsetenv(TP_ENV_COLLECT);
	if (kr) {
		close(go[0]);
		if ((kernel_pids && krec_set_pids(kr, &child, 1, err, sizeof(err)) < 0) ||
		    krec_start(kr, out, err, sizeof(err)) < 0 || write(go[1], "g", 1) != 1) {
			tool_error("record", "-k: %s; %s was not started", err, cmd[0]);
			close(go[1]); /* the command is told not to run */
			while (waitpid(child, &status, 0) < 0 && errno == EINTR)
				;
			remove_dir(dirbuf);
			krec_free(kr);
			return EXIT_FAIL;
		}
		close(go[1]);
	}
	wait_command(&ps, child, &status, cmd[0], kr);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		remove_dir(dirbuf);
		krec_free(kr);
		return EXIT_FAIL;
	}

	ret = write_recording(cmd, a, kr, dirbuf, status, &after);
	if (after != SPOOLS_KEEP_HELD) {
		if (after == SPOOLS_REMOVE)
			remove_dir(dirbuf);
		if (dir_lock >= 0)
			close(dir_lock);
	}
	krec_free(kr);
	return ret;
}
