// SPDX-License-Identifier: MIT
/*
 * env_test - bad TPOINT_* values never harm the program. The test runs itself as a child
 * under each bad setting (TPOINT_BUFFER_SIZE, TPOINT_MODE, TPOINT_EVENTS, an unwritable
 * TPOINT_RECORD) and checks that the child runs to completion with exit 0; that with
 * TPOINT_DEBUG=1 its stderr names the bad value; that without it the library prints
 * nothing; that a glob matching no event is reported under TPOINT_DEBUG=1; and that a bad
 * size or mode falls back to the default and still records.
 */
#include "testutil.h"
#include <fcntl.h>
#include <sys/stat.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_env.h>

#define TICKS 5

extern char **environ;

static char self[PATH_MAX];

static int child(void)
{
	for (int i = 0; i < TICKS; i++)
		trace_env_tick(i);
	printf("child done\n");
	return 0;
}

static char *slurp(const char *file)
{
	FILE *f = fopen(file, "r");
	char *buf;
	long n;

	if (!f)
		return strdup("");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = (char *)calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n)
		buf[0] = 0;
	fclose(f);
	return buf;
}

struct result {
	int status; /* exit status, or -1 if it did not exit */
	char *out, *err;
};

/*
 * Run the child with the inherited environment minus every TPOINT_* variable, plus `vars`
 * (NULL-terminated "NAME=value" strings).
 */
static void run_child(const char *const *vars, struct result *r)
{
	char *envp[256];
	int n = 0, st;
	pid_t pid;

	for (char **e = environ; *e && n < 200; e++)
		if (strncmp(*e, "TPOINT_", 7))
			envp[n++] = *e;
	for (const char *const *v = vars; *v && n < 255; v++)
		envp[n++] = (char *)*v;
	envp[n] = NULL;
	pid = fork();
	if (pid == 0) {
		char *argv[] = { self, (char *)"child", NULL };
		int out = open("child.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int err = open("child.err", O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(out, 1);
		dup2(err, 2);
		execve(self, argv, envp);
		_exit(127);
	}
	r->status = -1;
	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st))
		r->status = WEXITSTATUS(st);
	r->out = slurp("child.out");
	r->err = slurp("child.err");
}

static void free_result(struct result *r)
{
	free(r->out);
	free(r->err);
}

/* The child ran to completion and exited 0, and its stderr does (or does not) name `want`. */
static void expect(const char *what, const char *const *vars, const char *want, int named)
{
	struct result r;

	run_child(vars, &r);
	CHECK(r.status == 0, "%s: exit status %d, want 0", what, r.status);
	CHECK(!strcmp(r.out, "child done\n"), "%s: child output '%s'", what, r.out);
	if (named)
		CHECK(strstr(r.err, want) != NULL, "%s: stderr does not name '%s':\n%s", what,
		      want, r.err);
	else
		CHECK(r.err[0] == 0, "%s: the library printed without TPOINT_DEBUG:\n%s", what,
		      r.err);
	tu_note("%-38s exit %d, %s", what, r.status,
		named ? (strstr(r.err, want) ? "stderr names the value" : "stderr does NOT name it")
		      : (r.err[0] ? "stderr NOT empty" : "stderr empty"));
	if (named && r.err[0]) {
		char *nl = strchr(r.err, '\n');

		if (nl)
			*nl = 0;
		tu_note("    %s", r.err);
	}
	free_result(&r);
}

/* The file the child recorded holds its TICKS events (when trace-cmd can tell). */
static void expect_recorded(const char *what, const char *file)
{
	struct tu_report rep;

	CHECK(tu_file_size(file) > 0, "%s: %s was written", what, file);
	if (!tu_have_trace_cmd())
		return;
	CHECK(tu_check_events(file) == 0, "%s: %s passes --check-events", what, file);
	tu_report_each(file, NULL, NULL, &rep);
	CHECK(rep.status == 0 && rep.events == TICKS, "%s: %s holds %" PRIu64 " events, want %d",
	      what, file, rep.events, TICKS);
	tu_note("%-38s %s still recorded, %" PRIu64 " events", what, file, rep.events);
}

int main(int argc, char **argv)
{
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "child"))
		return child();
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		tu_skip("cannot read /proc/self/exe to run the child");
	self[n] = 0;
	/* A regular file where a directory should be: unwritable even for root. */
	FILE *f = fopen("notadir", "w");

	REQUIRE(f != NULL, "create a file");
	fclose(f);

	{
		const char *v[] = { "TPOINT_DEBUG=1", "TPOINT_EVENTS=tpt_env:*",
				    "TPOINT_RECORD=size.dat", "TPOINT_BUFFER_SIZE=banana", NULL };
		expect("TPOINT_BUFFER_SIZE=banana", v, "banana", 1);
		expect_recorded("TPOINT_BUFFER_SIZE=banana", "size.dat");
	}
	{
		const char *v[] = { "TPOINT_DEBUG=1", "TPOINT_BUFFER_SIZE=1K", NULL };
		expect("TPOINT_BUFFER_SIZE=1K (below 64K)", v, "1K", 1);
	}
	{
		const char *v[] = { "TPOINT_DEBUG=1", "TPOINT_BUFFER_SIZE=12Q", NULL };
		expect("TPOINT_BUFFER_SIZE=12Q", v, "12Q", 1);
	}
	{
		const char *v[] = { "TPOINT_DEBUG=1", "TPOINT_BUFFER_SIZE=99999999999999999999G",
				    NULL };
		expect("TPOINT_BUFFER_SIZE=huge", v, "99999999999999999999G", 1);
	}
	{
		const char *v[] = { "TPOINT_DEBUG=1", "TPOINT_EVENTS=tpt_env:*",
				    "TPOINT_RECORD=mode.dat", "TPOINT_MODE=sideways", NULL };
		expect("TPOINT_MODE=sideways", v, "sideways", 1);
		expect_recorded("TPOINT_MODE=sideways", "mode.dat");
	}
	{
		const char *v[] = { "TPOINT_DEBUG=1", "TPOINT_EVENTS=tpt_env:*,,x", NULL };
		expect("TPOINT_EVENTS=tpt_env:*,,x", v, "tpt_env:*,,x", 1);
	}
	{
		const char *v[] = { "TPOINT_DEBUG=1", "TPOINT_EVENTS=tpt_env: *", NULL };
		expect("TPOINT_EVENTS='tpt_env: *'", v, "tpt_env: *", 1);
	}
	{
		const char *v[] = { "TPOINT_DEBUG=1", "TPOINT_EVENTS=tpt_env:*",
				    "TPOINT_RECORD=notadir/x.dat", NULL };
		expect("TPOINT_RECORD=notadir/x.dat", v, "notadir/x.dat", 1);
	}
	{
		const char *v[] = { "TPOINT_DEBUG=1", "TPOINT_EVENTS=tpt_env:*",
				    "TPOINT_RECORD=/nonexistent-tpoint-dir/x.dat", NULL };
		expect("TPOINT_RECORD=/nonexistent-.../x.dat", v, "/nonexistent-tpoint-dir/x.dat",
		       1);
	}
	{
		const char *v[] = { "TPOINT_DEBUG=1", "TPOINT_EVENTS=nomatch:*,tpt_env:*",
				    "TPOINT_RECORD=glob.dat", NULL };
		expect("TPOINT_EVENTS=nomatch:* (no such event)", v, "nomatch:*", 1);
		expect_recorded("TPOINT_EVENTS=nomatch:*,tpt_env:*", "glob.dat");
	}
	{
		/*
		 * All of it at once, without TPOINT_DEBUG: no harm, and silent but for the
		 * recording asked for by name that cannot be made, in one line (README).
		 */
		const char *v[] = { "TPOINT_BUFFER_SIZE=banana", "TPOINT_MODE=sideways",
				    "TPOINT_EVENTS=nomatch:*,,", "TPOINT_RECORD=notadir/x.dat",
				    NULL };
		expect("all bad, no TPOINT_DEBUG", v, "TPOINT_RECORD=notadir/x.dat: cannot record: "
		       "notadir/x.dat: Not a directory; running untraced\n", 1);
	}
	{
		const char *v[] = { "TPOINT_EVENTS=tpt_env:*", "TPOINT_RECORD=ok.dat",
				    "TPOINT_BUFFER_SIZE=64K", "TPOINT_MODE=overwrite", NULL };
		expect("good values, no TPOINT_DEBUG", v, NULL, 0);
		expect_recorded("good values", "ok.dat");
	}
	return tu_finish();
}
