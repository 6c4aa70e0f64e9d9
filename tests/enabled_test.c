// SPDX-License-Identifier: MIT
/*
 * enabled_test - enabled means enabled, as in the kernel: an event switched on by
 * TPOINT_EVENTS alone (no TPOINT_RECORD) or by tpoint_enable() records into the in-memory
 * buffers, as after `tpoint enable -p`. So trace_<name>_enabled() is 1, tpoint_stats() and
 * `tpoint stat -p` count its hits as recorded, `tpoint ps` says "memory", and `tpoint
 * snapshot -p` writes every event into a file that trace-cmd reads.
 */
#include "testutil.h"
#include <fcntl.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_life.h>

#define N 500

/* Emit N events, say what the process sees, then wait for stdin to close. */
static int helper(const char *how)
{
	struct tpoint_event_stats st;
	char c;
	int enable = 0;

	if (!strcmp(how, "api"))
		enable = tpoint_enable("tpt_life:*");
	int on = trace_life_emit_enabled() ? 1 : 0;

	for (int i = 0; i < N; i++)
		trace_life_emit(7, i);
	tu_stats("tpt_life", "life_emit", &st);
	printf("enable=%d enabled=%d stats_enabled=%d hits=%" PRIu64 " recorded=%" PRIu64 "\n",
	       enable, on, st.enabled, st.hits, st.recorded);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}

static int count_line(const struct tu_line *l, void *arg)
{
	int who, i, *c = (int *)arg;

	if (!strcmp(l->name, "life_emit") && sscanf(l->text, "who=%d i=%d", &who, &i) == 2 &&
	    who == 7 && i == c[0])
		c[0]++;
	else
		c[1]++;
	return 0;
}

static void check(const char *self, const char *tool, const char *how)
{
	int in[2], out[2], st = -1, enable = -1, on = -1, sten = -1;
	unsigned long long hits = 0, recorded = 0, shits = 0, srec = 0;
	char line[512] = "", cmd[1024];
	struct tu_report rep;
	int c[2] = { 0, 0 };
	FILE *f;
	pid_t pid;

	REQUIRE(pipe(in) == 0 && pipe(out) == 0, "pipes");
	pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(self, self, "helper", how, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	f = fdopen(out[0], "r");
	if (!f || !fgets(line, sizeof(line), f))
		line[0] = 0;
	CHECK(sscanf(line, "enable=%d enabled=%d stats_enabled=%d hits=%llu recorded=%llu",
		     &enable, &on, &sten, &hits, &recorded) == 5,
	      "%s: the helper says what it saw: '%s'", how, line);
	CHECK(on == 1, "%s: trace_life_emit_enabled() is 1", how);
	CHECK(sten == 1 && hits == N && recorded == N,
	      "%s: tpoint_stats(): enabled %d, %llu hits, %llu recorded, of %d", how, sten, hits,
	      recorded, N);
	if (!strcmp(how, "api"))
		CHECK(enable == 1, "tpoint_enable() matches the one event (%d)", enable);

	snprintf(cmd, sizeof(cmd), "'%s' ps | grep -q '^ *%d .* memory$'", tool, (int)pid);
	CHECK(tu_system(cmd) == 0, "%s: tpoint ps says the process records into memory", how);
	snprintf(cmd, sizeof(cmd), "'%s' stat -p %d --json > stat.json", tool, (int)pid);
	CHECK(tu_system(cmd) == 0, "%s: tpoint stat -p runs", how);
	FILE *j = fopen("stat.json", "r");

	while (j && fgets(line, sizeof(line), j))
		if (strstr(line, "\"tpt_life:life_emit\""))
			sscanf(strstr(line, "\"hits\""), "\"hits\": %llu", &shits),
			sscanf(strstr(line, "\"recorded\""), "\"recorded\": %llu", &srec);
	if (j)
		fclose(j);
	CHECK(shits == N && srec == N, "%s: tpoint stat -p counts %llu hits, %llu recorded, of %d",
	      how, shits, srec, N);

	snprintf(cmd, sizeof(cmd), "'%s' snapshot -p %d -o snap-%s.dat 2>snap.err", tool, (int)pid,
		 how);
	CHECK(tu_system(cmd) == 0, "%s: tpoint snapshot -p writes a file", how);
	snprintf(cmd, sizeof(cmd), "snap-%s.dat", how);
	REQUIRE(tu_report_each(cmd, count_line, c, &rep) == 0, "run trace-cmd");
	CHECK(rep.status == 0 && c[0] == N && c[1] == 0,
	      "%s: trace-cmd report reads all %d events of the snapshot in order (%d; %d others)",
	      how, N, c[0], c[1]);

	close(in[1]);
	fclose(f);
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: the helper exits 0", how);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	const char *tool = getenv("TPOINT");
	ssize_t n;

	if (argc > 2 && !strcmp(argv[1], "helper"))
		return helper(argv[2]);
	tu_require_trace_cmd();
	if (!tool)
		tu_skip("$TPOINT not set: the tool is needed (run through tests/run.sh)");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	REQUIRE(n > 0, "find this program");
	self[n] = 0;
	unsetenv("TPOINT_RECORD");
	unsetenv("TPOINT_SPOOL_DIR");

	setenv("TPOINT_EVENTS", "tpt_life:*", 1);
	check(self, tool, "env");
	unsetenv("TPOINT_EVENTS");
	check(self, tool, "api");
	return tu_finish();
}
