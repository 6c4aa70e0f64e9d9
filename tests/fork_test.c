// SPDX-License-Identifier: MIT
/*
 * fork_test - embedded mode, configured only by the environment, across fork(). The test
 * runs itself again as a helper with TPOINT_EVENTS and TPOINT_RECORD=out.dat; the helper's
 * main thread and a second thread emit events, the main thread forks while the other keeps
 * emitting, and parent and child each emit N more. Then out.dat must hold exactly the
 * parent's events (its pid, both threads, complete) and out.dat.<childpid> exactly the
 * child's, each accepted by `trace-cmd report --check-events`.
 */
#include "testutil.h"
#include <dirent.h>
#include <pthread.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_fork.h>

#define N 1000

enum { ROLE_PARENT, ROLE_CHILD, ROLE_THREAD };

static int stop_flag;
static int thread_count;
static pid_t thread_tid;

static void *background(void *arg)
{
	pid_t pid = getpid();

	(void)arg;
	thread_tid = tu_gettid();
	while (!__atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE)) {
		struct timespec ts = { 0, 20000 };

		trace_fork_emit(pid, ROLE_THREAD, thread_count);
		__atomic_store_n(&thread_count, thread_count + 1, __ATOMIC_RELAXED);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* The recorded program: everything it knows goes to stdout for the test to check. */
static int helper(void)
{
	pthread_t th;
	pid_t pid = getpid(), child;
	int status = -1;

	if (!trace_fork_emit_enabled()) {
		printf("error: TPOINT_EVENTS/TPOINT_RECORD did not enable tpt_fork:fork_emit\n");
		return 1;
	}
	pthread_create(&th, NULL, background, NULL);
	for (int i = 0; i < N / 2; i++)
		trace_fork_emit(pid, ROLE_PARENT, i);
	/* Fork while the other thread is busy emitting: it must not follow into the child. */
	while (__atomic_load_n(&thread_count, __ATOMIC_RELAXED) < 100)
		sched_yield();
	fflush(stdout);
	child = fork();
	if (child == 0) {
		pid_t me = getpid();

		for (int i = 0; i < N; i++)
			trace_fork_emit(me, ROLE_CHILD, i);
		exit(0); /* not _exit: the recording is completed at exit */
	}
	for (int i = N / 2; i < N; i++)
		trace_fork_emit(pid, ROLE_PARENT, i);
	/* The other thread goes on until the child is done, so it overlaps the child too. */
	if (child > 0)
		waitpid(child, &status, 0);
	__atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	printf("parent=%d thread=%d child=%d thread_events=%d child_status=%d\n", (int)pid,
	       (int)thread_tid, (int)child, thread_count, status);
	return 0;
}

struct expect_file {
	int pid;           /* every record's payload pid */
	int tids[2], ntids; /* allowed common_pid values */
	int want[3];       /* records per role */
	int seen[3], next[3];
	int bad;
};

static int check_line(const struct tu_line *l, void *arg)
{
	struct expect_file *x = (struct expect_file *)arg;
	char role[16];
	int pid, i, r, tid_ok = 0;

	if (strcmp(l->name, "fork_emit") ||
	    sscanf(l->text, "pid=%d role=%15s i=%d", &pid, role, &i) != 3) {
		if (x->bad++ < 5)
			fprintf(stderr, "unexpected: %s: %s\n", l->name, l->text);
		return 0;
	}
	r = !strcmp(role, "parent") ? ROLE_PARENT : !strcmp(role, "child") ? ROLE_CHILD
					: !strcmp(role, "thread") ? ROLE_THREAD : -1;
	for (int k = 0; k < x->ntids; k++)
		tid_ok |= l->tid == x->tids[k];
	if (r < 0 || pid != x->pid || !tid_ok || i != x->next[r]) {
		if (x->bad++ < 5)
			fprintf(stderr, "wrong record (tid %d, want pid %d, next i %d): %s\n",
				l->tid, x->pid, r >= 0 ? x->next[r] : -1, l->text);
		return 0;
	}
	x->next[r]++;
	x->seen[r]++;
	return 0;
}

static void check_file(const char *file, struct expect_file *x, const char *who)
{
	struct tu_report rep;
	int ret = tu_check_events(file);

	CHECK(ret == 0, "%s: trace-cmd report --check-events exit %d", file, ret);
	REQUIRE(tu_report_each(file, check_line, x, &rep) == 0, "run trace-cmd");
	CHECK(rep.status == 0, "%s: trace-cmd report exit %d", file, rep.status);
	CHECK(rep.dropped == 0 && rep.dropped_unknown == 0, "%s: nothing dropped", file);
	CHECK(x->bad == 0 && rep.malformed == 0 && rep.other == 0,
	      "%s: %d records not of the %s", file, x->bad, who);
	for (int r = 0; r < 3; r++)
		CHECK(x->seen[r] == x->want[r], "%s: %d records of role %d, want %d", file,
		      x->seen[r], r, x->want[r]);
	tu_note("%s: %" PRIu64 " records, all of the %s (pid %d), complete and in order: "
		"parent %d, thread %d, child %d",
		file, rep.events, who, x->pid, x->seen[ROLE_PARENT], x->seen[ROLE_THREAD],
		x->seen[ROLE_CHILD]);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], cmd[PATH_MAX + 64], line[256] = "", childfile[64];
	int parent = 0, thread = 0, child = 0, nthread = 0, cstatus = -1, st;
	FILE *f;

	if (argc > 1 && !strcmp(argv[1], "helper"))
		return helper();
	tu_require_trace_cmd();

	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0)
		tu_skip("cannot read /proc/self/exe to run the helper");
	self[n] = 0;
	/* This process is loaded already: the variables only reach the helper. */
	setenv("TPOINT_EVENTS", "tpt_fork:*", 1);
	setenv("TPOINT_RECORD", "out.dat", 1);
	unsetenv("TPOINT_RECORD_OWNER");
	snprintf(cmd, sizeof(cmd), "'%s' helper", self);
	f = popen(cmd, "r");
	REQUIRE(f != NULL, "run the helper");
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	st = pclose(f);
	unsetenv("TPOINT_EVENTS");
	unsetenv("TPOINT_RECORD");
	CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "helper exit status %d", st);
	REQUIRE(sscanf(line, "parent=%d thread=%d child=%d thread_events=%d child_status=%d",
		       &parent, &thread, &child, &nthread, &cstatus) == 5,
		"helper says what it did: '%s'", line);
	tu_note("helper: pid %d, second thread %d emitted %d, forked child %d", parent, thread,
		nthread, child);
	CHECK(child > 0 && WIFEXITED(cstatus) && WEXITSTATUS(cstatus) == 0,
	      "child %d exit status %d", child, cstatus);

	struct expect_file px = { parent, { parent, thread }, 2, { N, 0, nthread },
				  { 0, 0, 0 }, { 0, 0, 0 }, 0 };
	check_file("out.dat", &px, "parent");

	snprintf(childfile, sizeof(childfile), "out.dat.%d", child);
	struct expect_file cx = { child, { child, child }, 1, { 0, N, 0 },
				  { 0, 0, 0 }, { 0, 0, 0 }, 0 };
	check_file(childfile, &cx, "child");

	/* Nothing else: no spool left behind, no file of a process that should have none. */
	DIR *d = opendir(".");
	struct dirent *de;
	int extra = 0;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "out.dat") ||
		    !strcmp(de->d_name, childfile))
			continue;
		fprintf(stderr, "left behind: %s\n", de->d_name);
		extra++;
	}
	if (d)
		closedir(d);
	CHECK(extra == 0, "%d other files in the directory", extra);
	tu_note("no spool files or other outputs left behind");
	return tu_finish();
}
