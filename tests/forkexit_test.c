// SPDX-License-Identifier: MIT
/*
 * forkexit_test - children and exec lose nothing. Two programs, each recorded both ways
 * (TPOINT_RECORD embedded, and `tpoint record -- CMD`):
 *	fork	the parent emits N events, forks a child that emits N and ends with _exit()
 *		(no atexit, so its recording is never completed by itself), waits, emits N more
 *	exec	the program emits N events, then execl()s itself in place, and the new image
 *		emits N more
 *	chain	a process forks at once, its child at once, and so on CHAIN deep: each fork
 *		comes while the library's threads, just made by the constructor or by the fork
 *		handler, are still starting, when an ASan build's child once inherited the
 *		allocator's lock held and hung for ever
 * Every event must be in the files, counted exactly per emitter by trace-cmd report, and no
 * spool may be left behind.
 */
#include "testutil.h"
#include <dirent.h>
#include <stdbool.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_life.h>

#define N 3000
/* An ASan process takes most of a second to fork and end (its shadow maps): fewer links. */
#ifdef __SANITIZE_ADDRESS__
#define CHAIN 16
#else
#define CHAIN 40
#endif

enum { WHO_PARENT = 1, WHO_CHILD = 2, WHO_BEFORE = 3, WHO_AFTER = 4 };

/*
 * The status of a link of the chain, or 99 if it and the links after it have not ended by
 * the chain's deadline: then it is killed, so that a hang is a failure, not a test that
 * never ends. A link takes 20 ms (under ASan 0.8 s), a busy machine's many times that: the
 * deadline is the chain's start + 120 s, a second earlier for each link deeper, so that the
 * link nearest the hang gives up first and its parents hear of it.
 */
static uint64_t chain_deadline_ns;

static int wait_link(pid_t child, int depth)
{
	uint64_t deadline = chain_deadline_ns - (uint64_t)depth * 1000000000u;
	int st;

	while (tu_mono_ns() < deadline) {
		if (waitpid(child, &st, WNOHANG) == child)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
		usleep(10000);
	}
	kill(child, SIGKILL);
	waitpid(child, &st, 0);
	return 99;
}

static int helper(const char *self, const char *what)
{
	if (!trace_life_emit_enabled()) {
		printf("error: tpt_life:life_emit is not enabled\n");
		return 1;
	}
	if (!strcmp(what, "fork")) {
		pid_t child;
		int st = -1;

		for (int i = 0; i < N; i++)
			trace_life_emit(WHO_PARENT, i);
		fflush(stdout);
		child = fork();
		if (child == 0) {
			for (int i = 0; i < N; i++)
				trace_life_emit(WHO_CHILD, i);
			_exit(0);
		}
		waitpid(child, &st, 0);
		for (int i = N; i < 2 * N; i++)
			trace_life_emit(WHO_PARENT, i);
		printf("child=%d status=%d\n", (int)child, st);
		return 0;
	}
	if (!strcmp(what, "chain")) {
		int depth = 0, end;

		chain_deadline_ns = tu_mono_ns() + (120 + CHAIN) * 1000000000ull;
		for (;;) {
			pid_t child;

			trace_life_emit(WHO_CHILD, depth);
			if (depth == CHAIN)
				_exit(0);
			child = fork();
			if (child == 0) {
				depth++;
				continue;
			}
			end = wait_link(child, depth);
			if (depth > 0)
				_exit(end);
			printf("chain=%d\n", end);
			return 0;
		}
	}
	if (!strcmp(what, "exec")) {
		for (int i = 0; i < N; i++)
			trace_life_emit(WHO_BEFORE, i);
		fflush(stdout);
		execl(self, self, "helper", "after", (char *)NULL);
		printf("error: execl: %s\n", strerror(errno));
		return 1;
	}
	if (!strcmp(what, "after")) {
		for (int i = 0; i < N; i++)
			trace_life_emit(WHO_AFTER, i);
		printf("pid=%d\n", (int)getpid());
		return 0;
	}
	return 2;
}

struct counts {
	int seen[5], next[5], bad;
};

static int count_line(const struct tu_line *l, void *arg)
{
	struct counts *c = (struct counts *)arg;
	int who, i;

	if (strcmp(l->name, "life_emit") || sscanf(l->text, "who=%d i=%d", &who, &i) != 2 ||
	    who < 1 || who > 4 || i != c->next[who]) {
		if (c->bad++ < 5)
			fprintf(stderr, "unexpected: %s: %s\n", l->name, l->text);
		return 0;
	}
	c->next[who]++;
	c->seen[who]++;
	return 0;
}

static void count_file(const char *file, struct counts *c)
{
	struct tu_report rep;

	REQUIRE(tu_report_each(file, count_line, c, &rep) == 0, "run trace-cmd");
	CHECK(rep.status == 0, "%s: trace-cmd report exit %d", file, rep.status);
	CHECK(rep.dropped == 0 && rep.dropped_unknown == 0, "%s: no events dropped", file);
}

/* Run the helper with `what`, recorded into rec.dat one way or the other. */
static int run(const char *self, const char *tool, const char *what, bool embedded, char *line,
	       size_t len)
{
	char cmd[PATH_MAX * 2 + 200];
	FILE *f;
	int st;

	if (embedded) {
		setenv("TPOINT_EVENTS", "tpt_life:*", 1);
		setenv("TPOINT_RECORD", "rec.dat", 1);
		unsetenv("TPOINT_RECORD_OWNER");
		snprintf(cmd, sizeof(cmd), "'%s' helper %s", self, what);
	} else {
		snprintf(cmd, sizeof(cmd), "'%s' record -e 'tpt_life:*' -o rec.dat -- '%s' helper %s "
			 "2>record.err", tool, self, what);
	}
	f = popen(cmd, "r");
	REQUIRE(f != NULL, "run the helper");
	if (!fgets(line, (int)len, f))
		line[0] = 0;
	st = pclose(f);
	unsetenv("TPOINT_EVENTS");
	unsetenv("TPOINT_RECORD");
	return st;
}

static void check_clean(const char *how, const char *keep1, const char *keep2)
{
	DIR *d = opendir(".");
	struct dirent *e;
	int extra = 0;

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, keep1) ||
		    (keep2 && !strcmp(e->d_name, keep2)) || !strcmp(e->d_name, "record.err"))
			continue;
		fprintf(stderr, "%s: left behind: %s\n", how, e->d_name);
		extra++;
	}
	if (d)
		closedir(d);
	CHECK(extra == 0, "%s: no spool or other file left behind (%d)", how, extra);
}

static void remove_files(void)
{
	DIR *d = opendir(".");
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			unlink(e->d_name);
	if (d)
		closedir(d);
}

static void check_fork(const char *self, const char *tool, bool embedded)
{
	const char *how = embedded ? "fork, TPOINT_RECORD" : "fork, tpoint record";
	char line[256] = "", childfile[64];
	struct counts c;
	int child = -1, cst = -1, st;

	st = run(self, tool, "fork", embedded, line, sizeof(line));
	CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: exit status %d", how, st);
	REQUIRE(sscanf(line, "child=%d status=%d", &child, &cst) == 2,
		"%s: the helper says what it did: '%s'", how, line);
	CHECK(WIFEXITED(cst) && WEXITSTATUS(cst) == 0, "%s: the child ended with _exit(0)", how);
	memset(&c, 0, sizeof(c));
	count_file("rec.dat", &c);
	snprintf(childfile, sizeof(childfile), "rec.dat.%d", child);
	if (embedded) {
		CHECK(c.seen[WHO_CHILD] == 0, "%s: the parent's file holds only its own", how);
		CHECK(tu_file_size(childfile) > 0, "%s: %s is written (%lld bytes)", how,
		      childfile, tu_file_size(childfile));
		count_file(childfile, &c);
	}
	CHECK(c.seen[WHO_PARENT] == 2 * N && c.seen[WHO_CHILD] == N && c.bad == 0,
	      "%s: parent %d of %d events, child %d of %d, in order (%d others)", how,
	      c.seen[WHO_PARENT], 2 * N, c.seen[WHO_CHILD], N, c.bad);
	check_clean(how, "rec.dat", embedded ? childfile : NULL);
	remove_files();
}

static void check_exec(const char *self, const char *tool, bool embedded)
{
	const char *how = embedded ? "exec, TPOINT_RECORD" : "exec, tpoint record";
	char line[256] = "";
	struct counts c;
	int pid = -1, st;

	st = run(self, tool, "exec", embedded, line, sizeof(line));
	CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: exit status %d", how, st);
	CHECK(sscanf(line, "pid=%d", &pid) == 1, "%s: the new image ran: '%s'", how, line);
	memset(&c, 0, sizeof(c));
	count_file("rec.dat", &c);
	CHECK(c.seen[WHO_BEFORE] == N && c.seen[WHO_AFTER] == N && c.bad == 0,
	      "%s: %d of %d events before the exec, %d of %d after, in order (%d others)", how,
	      c.seen[WHO_BEFORE], N, c.seen[WHO_AFTER], N, c.bad);
	check_clean(how, "rec.dat", NULL);
	remove_files();
}

static void check_chain(const char *self, const char *tool)
{
	char line[256] = "";
	int end = -1, st, files = 0;
	DIR *d;
	struct dirent *e;

	st = run(self, tool, "chain", true, line, sizeof(line));
	CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "chain: exit status %d", st);
	CHECK(sscanf(line, "chain=%d", &end) == 1 && end == 0,
	      "chain: %d forks, each at once, all ended (99: one hung): '%s'", CHAIN, line);
	d = opendir(".");
	while (d && (e = readdir(d)))
		files += !strncmp(e->d_name, "rec.dat", 7);
	if (d)
		closedir(d);
	CHECK(files == CHAIN + 1, "chain: a file for each of the %d processes (%d)", CHAIN + 1,
	      files);
	remove_files();
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	const char *tool = getenv("TPOINT");
	ssize_t n;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 1;
	self[n] = 0;
	if (argc > 2 && !strcmp(argv[1], "helper"))
		return helper(self, argv[2]);
	tu_require_trace_cmd();
	if (!tool)
		tu_skip("$TPOINT not set: the tool is needed (run through tests/run.sh)");
	unsetenv("TPOINT_SPOOL_DIR");
	check_fork(self, tool, true);
	check_fork(self, tool, false);
	check_exec(self, tool, true);
	check_exec(self, tool, false);
	check_chain(self, tool);
	return tu_finish();
}
