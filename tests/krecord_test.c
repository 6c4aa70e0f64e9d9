// SPDX-License-Identifier: MIT
/*
 * tpoint-test: serial (tracefs instances and the kernel's dirtying events of the whole machine)
 * krecord_test - `tpoint record -k`: the kernel's events and the program's in one trace.dat,
 * read by trace-cmd report as one time line.
 *
 * The helper (this program, run as "dirty FILE") emits tpt_kernel:kernel_pair i and then
 * dirties a new page of a file of its own, PAIRS times. In the merged file, each of its
 * events must be followed, before its next one, by the kernel's
 * writeback:writeback_mark_inode_dirty for that file's inode with the helper's pid: both
 * kinds present, in time order, the program's exact in number. Then: the -p form, the
 * kernel-only form, --kernel-pids keeping another writer out, the instance gone after a
 * normal end, SIGINT, SIGTERM, and after SIGKILL once the next recorder ran; and the bad
 * inputs (unknown event or system, a filter the kernel rejects, tracefs not mounted, not
 * root), each with its one line, a failure status, no instance left and no command started.
 *
 * Needs root, tracefs with instances, the writeback events and trace-cmd; skips otherwise.
 */
#include "testutil.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <stdbool.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_kernel.h>

#define TRACEFS "/sys/kernel/tracing"
#define DIRTY "writeback:writeback_mark_inode_dirty"
#define PAIRS 40

static const char *tool;
static char self[PATH_MAX];

/* PAIRS of (our event, a new page of FILE dirtied); "wait": not before we are recorded. */
static int helper(const char *file, bool wait)
{
	char buf[4096], info[PATH_MAX + 8];
	struct stat st;
	FILE *f;
	int fd = open(file, O_CREAT | O_TRUNC | O_WRONLY, 0644);

	if (fd < 0 || fstat(fd, &st) < 0)
		return 1;
	snprintf(info, sizeof(info), "%s.info", file);
	f = fopen(info, "w");
	if (!f)
		return 1;
	fprintf(f, "%d %lu\n", (int)getpid(), (unsigned long)st.st_ino);
	fclose(f);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (int i = 0; wait && !trace_kernel_pair_enabled() && i < 3000; i++)
		usleep(10000);
	memset(buf, 'x', sizeof(buf));
	for (int i = 0; i < PAIRS; i++) {
		trace_kernel_pair(i);
		if (pwrite(fd, buf, sizeof(buf), (off_t)i * 4096) != (ssize_t)sizeof(buf))
			return 1;
		usleep(2000);
	}
	close(fd);
	if (wait) { /* recorded with -p: stays until the test has stopped the recorder */
		printf("done\n");
		fflush(stdout);
		sleep(30);
	}
	return 0;
}

/* Another process dirtying its own file, for SECONDS. */
static int other(const char *file, int seconds)
{
	char buf[4096];
	uint64_t end = tu_mono_ns() + (uint64_t)seconds * 1000000000u;
	int fd = open(file, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	char info[PATH_MAX + 8];
	FILE *f;

	snprintf(info, sizeof(info), "%s.info", file);
	f = fopen(info, "w");
	if (fd < 0 || !f)
		return 1;
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	memset(buf, 'y', sizeof(buf));
	for (int i = 0; tu_mono_ns() < end; i++) {
		if (pwrite(fd, buf, sizeof(buf), (off_t)(i % 256) * 4096) < 0)
			return 1;
		if (i % 256 == 255 && ftruncate(fd, 0) < 0)
			return 1;
		usleep(2000);
	}
	return 0;
}

static pid_t spawn(const char *cmd)
{
	pid_t p = fork();

	if (p == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return p;
}

static int reap(pid_t p)
{
	int st;

	while (waitpid(p, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The recorder's instance: tpoint-record-PID-RANDOM. */
static bool instance_exists(long pid)
{
	char prefix[64];
	DIR *d = opendir(TRACEFS "/instances");
	struct dirent *e;
	bool found = false;

	snprintf(prefix, sizeof(prefix), "tpoint-record-%ld-", pid);
	while (d && !found && (e = readdir(d)))
		found = !strncmp(e->d_name, prefix, strlen(prefix));
	if (d)
		closedir(d);
	return found;
}

static int count_instances(void)
{
	DIR *d = opendir(TRACEFS "/instances");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += !strncmp(e->d_name, "tpoint-record-", 14);
	if (d)
		closedir(d);
	return n;
}

/* The recorder's instance, from its summary line; -1 if it names none. */
static long instance_of(const char *out)
{
	char line[1024];
	long pid = -1;
	FILE *f = fopen(out, "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "instance tpoint-record-");

		if (p)
			pid = strtol(p + 23, NULL, 10);
	}
	if (f)
		fclose(f);
	return pid;
}

static bool file_has(const char *file, const char *text)
{
	char line[2048];
	bool found = false;
	FILE *f = fopen(file, "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, text) != NULL;
	if (f)
		fclose(f);
	return found;
}

struct merged {
	int pid;
	int other_pid;      /* the other writer's, or 0 */
	unsigned long ino;
	int pairs;          /* our events, in order */
	int gaps_dirtied;   /* pairs followed by our inode's dirtying before the next pair */
	int dirty_since;    /* the kernel's dirtyings of our inode by us since our last event */
	int dirty_ours;     /* all of them */
	int dirty_others;   /* the kernel's dirtyings by the other writer */
	int out_of_order;
	uint64_t last_ts;
};

static void merged_line(char *line, struct merged *m)
{
	struct tu_line l;
	int seq;
	unsigned long ino;
	const char *p;

	if (!tu_parse_line(line, &l))
		return;
	if (l.ts < m->last_ts)
		m->out_of_order++;
	m->last_ts = l.ts;
	if (!strcmp(l.name, "kernel_pair") && sscanf(l.text, "seq=%d", &seq) == 1) {
		if (seq != m->pairs || l.tid != m->pid)
			m->out_of_order++;
		if (m->pairs && m->dirty_since)
			m->gaps_dirtied++;
		m->pairs++;
		m->dirty_since = 0;
	} else if (!strcmp(l.name, "writeback_mark_inode_dirty") &&
		   (p = strstr(l.text, "ino=")) && sscanf(p, "ino=%lu", &ino) == 1) {
		if (l.tid == m->pid && ino == m->ino) {
			m->dirty_since++;
			m->dirty_ours++;
		} else if (l.tid == m->other_pid) {
			m->dirty_others++;
		}
	}
}

static void read_merged(const char *dat, const char *info, struct merged *m)
{
	char cmd[PATH_MAX + 64], line[2048];
	FILE *f = fopen(info, "r");

	memset(m, 0, sizeof(*m));
	if (!f || fscanf(f, "%d %lu", &m->pid, &m->ino) != 2)
		m->pid = -1;
	if (f)
		fclose(f);
	f = fopen("theirs.info", "r");
	if (!f || fscanf(f, "%d", &m->other_pid) != 1)
		m->other_pid = 0;
	if (f)
		fclose(f);
	snprintf(cmd, sizeof(cmd), "trace-cmd report -t %s 2>/dev/null", dat);
	f = popen(cmd, "r");
	while (f && fgets(line, sizeof(line), f))
		merged_line(line, m);
	if (m->pairs && m->dirty_since)
		m->gaps_dirtied++; /* the last pair's page */
	if (f)
		pclose(f);
}

static void check_merged(const char *what, const struct merged *m)
{
	CHECK(m->pid > 0, "%s: the helper said its pid and inode", what);
	CHECK(m->pairs == PAIRS && m->out_of_order == 0, "%s: trace-cmd report shows our %d "
	      "events exactly, in order, in time order (%d seen, %d out of order)", what, PAIRS,
	      m->pairs, m->out_of_order);
	CHECK(m->gaps_dirtied == PAIRS, "%s: each of our events is followed by the kernel's "
	      "dirtying of our file's inode %lu by our pid %d, before our next (%d of %d)", what,
	      m->ino, m->pid, m->gaps_dirtied, PAIRS);
}

/* One run of the tool; its status, its output in OUT. */
static int run(const char *args, const char *out)
{
	char cmd[4 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "'%s' record %s >%s 2>&1", tool, args, out);
	return tu_system(cmd);
}

static void test_command_form(void)
{
	char args[3 * PATH_MAX];
	struct merged m;
	int rc;

	snprintf(args, sizeof(args), "-k " DIRTY " -e tpt_kernel:kernel_pair -o merged.dat -- "
		 "'%s' dirty mine", self);
	rc = run(args, "merged.out");
	CHECK(rc == 0, "record -k -e -- CMD: exit %d", rc);
	CHECK(tu_check_events("merged.dat") == 0, "trace-cmd report --check-events accepts it");
	read_merged("merged.dat", "mine.info", &m);
	check_merged("-- CMD", &m);
	CHECK(instance_of("merged.out") > 0 && !instance_exists(instance_of("merged.out")),
	      "-- CMD: the instance is gone at the end");
	rc = tu_system("\"$TPOINT\" report --stats merged.dat >stats.out 2>&1");
	CHECK(rc == 0 && file_has("stats.out", "writeback_mark_inode_dirty") &&
	      file_has("stats.out", "overrun"), "report --stats names the kernel's events and "
	      "its per-CPU losses");
}

static void test_kernel_pids(void)
{
	char args[3 * PATH_MAX];
	struct merged m;
	pid_t o;
	int rc;

	/* Killed once both recordings are done: however slow they are (ASan), it writes on. */
	snprintf(args, sizeof(args), "exec '%s' other theirs 120", self);
	o = spawn(args);
	for (int i = 0; i < 200 && access("theirs.info", F_OK); i++)
		usleep(50000);
	snprintf(args, sizeof(args), "-k " DIRTY " --kernel-pids -e tpt_kernel:kernel_pair "
		 "-o pids.dat -- '%s' dirty mine2", self);
	rc = run(args, "pids.out");
	CHECK(rc == 0, "record --kernel-pids: exit %d", rc);
	read_merged("pids.dat", "mine2.info", &m);
	check_merged("--kernel-pids", &m);
	CHECK(m.other_pid > 0 && m.dirty_others == 0, "--kernel-pids: no dirtying by the other "
	      "writer, pid %d (%d)", m.other_pid, m.dirty_others);
	/* The same writer shows in the kernel-only form: the check above could fail. */
	rc = run("-k " DIRTY " --duration 1 -o konly.dat", "konly.out");
	CHECK(rc == 0, "record -k --duration 1 (the kernel alone): exit %d", rc);
	read_merged("konly.dat", "mine2.info", &m);
	CHECK(m.dirty_others > 0, "the kernel-only form records the other writer (%d dirtyings)",
	      m.dirty_others);
	CHECK(instance_of("konly.out") > 0 && !instance_exists(instance_of("konly.out")),
	      "kernel-only: the instance is gone at the end");
	kill(o, SIGKILL);
	reap(o);
}

static void test_pid_form(void)
{
	char cmd[3 * PATH_MAX], line[256];
	struct merged m;
	pid_t h, r;
	FILE *f;
	int p = 0, rc;

	/*
	 * The helper waits until it is recorded, says when it is done, and stays: the recorder
	 * is stopped with Ctrl-C then, as a user stops it.
	 */
	snprintf(cmd, sizeof(cmd), "exec '%s' dirtywait minep >helper.out", self);
	h = spawn(cmd);
	for (int i = 0; i < 100 && !p; i++) {
		usleep(50000);
		f = fopen("helper.out", "r");
		if (f && fgets(line, sizeof(line), f))
			sscanf(line, "ready %d", &p);
		if (f)
			fclose(f);
	}
	REQUIRE(p > 0, "the helper started");
	snprintf(cmd, sizeof(cmd), "exec '%s' record -p %d -k " DIRTY " --kernel-pids "
		 "-e tpt_kernel:kernel_pair -o pform.dat >pform.out 2>&1", tool, p);
	r = spawn(cmd);
	for (int i = 0; i < 600 && !file_has("helper.out", "done"); i++)
		usleep(50000);
	CHECK(file_has("helper.out", "done"), "the -p helper did its writes");
	kill(r, SIGINT);
	rc = reap(r);
	CHECK(rc == 0, "record -p -k, stopped by SIGINT: exit %d", rc);
	CHECK(!instance_exists(r), "-p: the instance is gone");
	kill(h, SIGKILL);
	reap(h);
	read_merged("pform.dat", "minep.info", &m);
	check_merged("-p", &m);
	CHECK(m.dirty_others == 0, "-p --kernel-pids: no dirtying by the other writer (%d)",
	      m.dirty_others);
}

/* A kernel-only recorder started in the background, until its instance is there. */
static pid_t start_recorder(const char *out)
{
	char cmd[PATH_MAX + 128];
	pid_t r;

	snprintf(cmd, sizeof(cmd), "exec '%s' record -k sched:sched_switch -o %s >%s.out 2>&1",
		 tool, out, out);
	r = spawn(cmd);
	for (int i = 0; i < 200 && !instance_exists(r); i++)
		usleep(50000);
	return r;
}

static void test_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	pid_t r;
	int rc;

	for (size_t i = 0; i < 2; i++) {
		char out[32];

		snprintf(out, sizeof(out), "sig%d.dat", sigs[i]);
		r = start_recorder(out);
		CHECK(instance_exists(r), "signal %d: the recorder made its instance", sigs[i]);
		kill(r, sigs[i]);
		rc = reap(r);
		CHECK(rc == 0, "the recorder ends its recording on signal %d: exit %d", sigs[i],
		      rc);
		CHECK(!instance_exists(r), "signal %d: the instance is gone", sigs[i]);
		CHECK(tu_check_events(out) == 0, "signal %d: the file is read", sigs[i]);
	}
	r = start_recorder("killed.dat");
	kill(r, SIGKILL);
	reap(r);
	CHECK(instance_exists(r), "SIGKILL: the instance is left (what the next run removes)");
	rc = run("-k sched:sched_switch --duration 0.2 -o next.dat", "next.out");
	CHECK(rc == 0, "the next recorder: exit %d", rc);
	CHECK(!instance_exists(r), "the next recorder removed the killed one's instance");
}

static void bad(const char *what, const char *args, const char *expect)
{
	int before = count_instances(), rc;

	unlink("started");
	rc = run(args, "bad.out");
	CHECK(rc != 0 && rc != 127, "%s: a failure status (%d)", what, rc);
	CHECK(file_has("bad.out", expect), "%s: says '%s'", what, expect);
	CHECK(access("started", F_OK) != 0, "%s: the command was not started", what);
	CHECK(count_instances() == before, "%s: no instance left", what);
	CHECK(access("bad.dat", F_OK) != 0, "%s: no file written", what);
}

static void test_bad_input(void)
{
	char args[2 * PATH_MAX];

	bad("unknown event", "-k writeback:no_such_event -o bad.dat -- touch started",
	    "'writeback:no_such_event' matches no kernel event");
	bad("unknown system", "-k no_such_system -o bad.dat --duration 1",
	    "'no_such_system' matches no kernel event");
	bad("rejected filter", "-k " DIRTY " -f 'no_such_field == 1' -o bad.dat -- touch started",
	    "Field not found");
	/* tracefs not mounted: in a mount namespace of our own, where it is unmounted. */
	if (!tu_system("unshare -m true 2>/dev/null")) {
		snprintf(args, sizeof(args), "unshare -m sh -c 'umount " TRACEFS " 2>/dev/null; "
			 "umount /sys/kernel/debug/tracing 2>/dev/null; umount /sys/kernel/debug "
			 "2>/dev/null; grep -q tracefs /proc/mounts && exit 77; \"$TPOINT\" record -k "
			 DIRTY " -o bad.dat -- touch started' >bad.out 2>&1");
		int rc = tu_system(args);

		if (rc == 77)
			tu_note("tracefs could not be unmounted in a mount namespace: not checked");
		else
			CHECK(rc != 0 && file_has("bad.out", "tracefs is not mounted") &&
			      access("started", F_OK) != 0, "tracefs not mounted: said (%d), "
			      "nothing started", rc);
	} else {
		tu_note("no unshare -m: tracefs not mounted is not checked");
	}
	if (!tu_system("setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null")) {
		/*
		 * Run from a copy nobody can read: the build tree may be in a private home. The
		 * tool needs no libtpoint, so the copy is the tool alone.
		 */
		int rc = tu_system("d=$(mktemp -d /tmp/tpoint-stage.XXXXXX) && chmod 755 \"$d\" && "
				   "cp \"$TPOINT\" \"$d/tpoint\" && chmod 755 \"$d/tpoint\" && "
				   "{ setpriv --reuid=65534 --regid=65534 --clear-groups \"$d/tpoint\" "
				   "record -k " DIRTY " -o /tmp/tpoint-krecord-bad.dat --duration 1 "
				   ">bad.out 2>&1; rc=$?; rm -rf \"$d\"; exit $rc; }");

		CHECK(rc != 0 && file_has("bad.out", "need root"), "not root: says so (%d)", rc);
		CHECK(access("/tmp/tpoint-krecord-bad.dat", F_OK) != 0, "not root: no file");
	} else {
		tu_note("no setpriv: not root is not checked");
	}
}

int main(int argc, char **argv)
{
	struct stat st;
	ssize_t n;

	if (argc == 3 && !strcmp(argv[1], "dirty"))
		return helper(argv[2], false);
	if (argc == 3 && !strcmp(argv[1], "dirtywait"))
		return helper(argv[2], true);
	if (argc == 4 && !strcmp(argv[1], "other"))
		return other(argv[2], atoi(argv[3]));
	if (geteuid() != 0)
		tu_skip("needs root for the kernel's events (a tracefs instance)");
	tu_require_trace_cmd();
	tool = getenv("TPOINT");
	if (!tool || access(tool, X_OK))
		tu_skip("no tpoint tool in $TPOINT");
	if (stat(TRACEFS "/instances", &st) && (system("mount -t tracefs nodev " TRACEFS
						       " 2>/dev/null"), stat(TRACEFS "/instances", &st)))
		tu_skip("no tracefs with instances at " TRACEFS);
	if (stat(TRACEFS "/events/writeback/writeback_mark_inode_dirty", &st))
		tu_skip("the kernel has no " DIRTY);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	REQUIRE(n > 0, "read /proc/self/exe");
	self[n] = 0;
	test_command_form();
	test_kernel_pids();
	test_pid_form();
	test_signals();
	test_bad_input();
	return tu_finish();
}
