// SPDX-License-Identifier: MIT
/*
 * daemon_test - the program's own descriptors are the program's. The helper starts as a
 * classic daemon does while it is traced: it forks, the child calls setsid(), changes
 * directory, closes every descriptor (close_range(0, ~0U)), opens /dev/null as 0-2 and
 * then its own files, which get the numbers the library's pool, spool and room had. Then
 * it emits N events while writing its files. Its parent waits for it (so that the test
 * knows when it is done; a real daemon's parent would exit) and says its pid.
 *
 * Run twice: embedded (TPOINT_RECORD=out.dat, relative) and under `tpoint record -- CMD`.
 * Each time the daemon's files must hold exactly what it wrote (before the fix the library
 * wrote spool data into them and punched holes in its log at exit), and every one of the
 * daemon's N events must be in the file or counted lost (before the fix `tpoint record`
 * said "0 lost" for events that went nowhere).
 */
#include "testutil.h"
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_daemon.h>

#define NPRE 1000    /* events before the fork */
#define N 200000     /* events of the daemon */
#define LINE_EVERY 1000

static const char *const files[] = { "daemon.log", "daemon.state", "daemon.extra" };
#define NFILES 3

/* What the daemon writes into file f for tick i; the test rebuilds it to compare. */
static int file_line(int f, int i, char *buf, size_t len)
{
	return snprintf(buf, len, "%s: tick %d of %d, all is well\n", files[f], i, N);
}

static void close_everything(void)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 0u, ~0u, 0u) == 0)
		return;
#endif
	for (long fd = 0, max = sysconf(_SC_OPEN_MAX); fd < (max > 0 ? max : 1024); fd++)
		close((int)fd);
}

/* The daemon: everything after the fork, as daemon(3) and most service managers' guides do. */
static int daemon_main(void)
{
	int fds[NFILES];
	char line[128];

	if (setsid() < 0 || chdir("run") < 0)
		return 1;
	close_everything();
	if (open("/dev/null", O_RDWR) != 0 || dup(0) != 1 || dup(0) != 2)
		return 1;
	for (int f = 0; f < NFILES; f++) {
		fds[f] = open(files[f], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
		if (fds[f] < 0)
			return 1;
	}
	for (int i = 0; i < N; i++) {
		trace_daemon_tick(1, i);
		if (i % LINE_EVERY)
			continue;
		for (int f = 0; f < NFILES; f++) {
			int n = file_line(f, i, line, sizeof(line));

			if (write(fds[f], line, (size_t)n) != n)
				return 1;
		}
		/* Now and then a pause, so that the drain writes while the files are open. */
		if (i % (4 * LINE_EVERY) == 0)
			nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	return 0; /* exit(): the recording is completed at exit */
}

static int helper(void)
{
	int status = -1;
	pid_t child;

	if (!trace_daemon_tick_enabled()) {
		printf("error: tpt_daemon:daemon_tick is not enabled\n");
		return 1;
	}
	for (int i = 0; i < NPRE; i++)
		trace_daemon_tick(0, i);
	/*
	 * Let the library's threads settle first: under ASan (make check SANITIZE=1) a fork
	 * while another thread is inside the sanitizer's allocator leaves its lock held in the
	 * child, which then hangs at its first malloc (glibc's own malloc is fork-safe).
	 */
	nanosleep(&(struct timespec){ 0, 300000000 }, NULL);
	fflush(stdout);
	child = fork();
	if (child == 0)
		exit(daemon_main());
	if (child > 0)
		waitpid(child, &status, 0);
	printf("daemon=%d status=%d\n", (int)child, status);
	return 0;
}

/* ---- the test ---- */

static char self[PATH_MAX];

/* The daemon's files hold exactly what it wrote. */
static void check_files(const char *mode)
{
	for (int f = 0; f < NFILES; f++) {
		char path[64], line[128], *want = NULL, *got = NULL;
		size_t wlen = 0, glen = 0;
		FILE *w = open_memstream(&want, &wlen), *g;

		for (int i = 0; i < N; i += LINE_EVERY) {
			file_line(f, i, line, sizeof(line));
			fputs(line, w);
		}
		fclose(w);
		snprintf(path, sizeof(path), "run/%s", files[f]);
		g = fopen(path, "r");
		if (g) {
			FILE *m = open_memstream(&got, &glen);
			int c;

			while ((c = fgetc(g)) != EOF)
				fputc(c, m);
			fclose(m);
			fclose(g);
		}
		CHECK(got && glen == wlen && !memcmp(got, want, wlen),
		      "%s: %s is not what the daemon wrote: %zu bytes, want %zu%s", mode, path,
		      glen, wlen, got && memchr(got, 0, glen) ? " (it holds NUL bytes)" : "");
		tu_note("%s: %s: %zu bytes, %s", mode, path, glen,
			got && glen == wlen && !memcmp(got, want, wlen) ? "exactly what it wrote"
									 : "DAMAGED");
		free(want);
		free(got);
	}
}

/* Nothing of the library's in the daemon's directory: no spool, no trace.dat. */
static void check_run_dir(const char *mode)
{
	DIR *d = opendir("run");
	struct dirent *de;
	int extra = 0;

	while (d && (de = readdir(d))) {
		int ours = de->d_name[0] == '.';

		for (int f = 0; f < NFILES; f++)
			ours |= !strcmp(de->d_name, files[f]);
		if (!ours && extra++ < 5)
			fprintf(stderr, "%s: in the daemon's directory: %s\n", mode, de->d_name);
	}
	if (d)
		closedir(d);
	CHECK(extra == 0, "%s: %d files of the library's in the daemon's directory", mode, extra);
}

struct stats {
	unsigned long long hits, recorded, lost, infile;
};

/* The counters `tpoint report --stats` reads from the file, for tpt_daemon:daemon_tick. */
static int file_stats(const char *file, struct stats *s)
{
	char cmd[PATH_MAX * 2], line[512];
	const char *tool = getenv("TPOINT");
	unsigned long long skipped, filtered;
	int found = 0;
	FILE *p;

	memset(s, 0, sizeof(*s));
	snprintf(cmd, sizeof(cmd), "'%s' report --stats '%s' 2>&1", tool, file);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "tpt_daemon:daemon_tick %llu %llu %llu %llu %llu %llu", &s->hits,
			   &skipped, &filtered, &s->recorded, &s->lost, &s->infile) == 6)
			found = 1;
	pclose(p);
	return found ? 0 : -1;
}

struct seen {
	int count[2], next[2], bad;
};

static int check_line(const struct tu_line *l, void *arg)
{
	struct seen *s = (struct seen *)arg;
	int d, i;

	if (strcmp(l->name, "daemon_tick") || sscanf(l->text, "daemon=%d i=%d", &d, &i) != 2 ||
	    d < 0 || d > 1 || i < s->next[d]) {
		if (s->bad++ < 5)
			fprintf(stderr, "unexpected: %s: %s\n", l->name, l->text);
		return 0;
	}
	s->next[d] = i + 1;
	s->count[d]++;
	return 0;
}

/*
 * The events in `file`: `pre` of the parent's (before the fork) and `post` of the daemon's
 * were emitted; each one is either in the file or counted lost in it, and trace-cmd finds
 * what the file's counters say it holds.
 */
static void check_events(const char *mode, const char *file, int pre, int post)
{
	struct tu_report rep;
	struct seen s = { { 0, 0 }, { 0, 0 }, 0 };
	struct stats st;
	unsigned long long emitted = (unsigned long long)(pre + post);

	CHECK(tu_check_events(file) == 0, "%s: trace-cmd report --check-events %s", mode, file);
	REQUIRE(tu_report_each(file, check_line, &s, &rep) == 0, "run trace-cmd");
	CHECK(s.bad == 0 && rep.malformed == 0, "%s: %s: %d records not the ticks emitted", mode,
	      file, s.bad);
	REQUIRE(file_stats(file, &st) == 0, "%s: tpoint report --stats %s names daemon_tick",
		mode, file);
	CHECK(st.hits == emitted, "%s: %s: %llu hits, want %llu", mode, file, st.hits, emitted);
	CHECK(st.infile == (unsigned long long)(s.count[0] + s.count[1]),
	      "%s: %s: %llu records by its counters, trace-cmd shows %d", mode, file, st.infile,
	      s.count[0] + s.count[1]);
	CHECK(s.count[0] <= pre && s.count[1] <= post, "%s: %s: %d and %d events, want at most "
	      "%d and %d", mode, file, s.count[0], s.count[1], pre, post);
	CHECK(s.count[0] + s.count[1] + st.lost == emitted,
	      "%s: %s: %d + %d events in the file and %llu counted lost, but %llu emitted", mode,
	      file, s.count[0], s.count[1], st.lost, emitted);
	tu_note("%s: %s: %d of %d events before the fork and %d of the daemon's %d in the file, "
		"%llu counted lost", mode, file, s.count[0], pre, s.count[1], post, st.lost);
}

/* The descriptor whose target (/proc/self/fd) ends with `suffix`, or -1. */
static int find_fd(const char *suffix)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int found = -1;

	while (d && (de = readdir(d))) {
		char link[300], target[PATH_MAX];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%s", de->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		if (n >= (ssize_t)strlen(suffix) && !strcmp(target + n - strlen(suffix), suffix))
			found = atoi(de->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

/* The program's file, written once at the start, must hold that and nothing else. */
static void check_mine(const char *what, int fd)
{
	char buf[64] = "";
	ssize_t n = pread(fd, buf, sizeof(buf), 0);

	CHECK(n == 5 && !memcmp(buf, "mine\n", 5), "%s: the program's file holds %zd bytes, "
	      "not the 5 it wrote", what, n);
}

/*
 * In this process, with tpoint_record_start(): the program puts its own file on the
 * numbers of the spool and the pool (dup2(), as a program that reuses numbers does). The
 * library notices before writing: the spool is opened again by its name and the recording
 * is complete; or, when the name is gone too, what cannot reach it is counted lost.
 */
#define K 5000

static void numbers_reused(void)
{
	struct tpoint_event_stats before, after;
	int mine = open("mine.log", O_RDWR | O_CREAT | O_TRUNC | O_APPEND, 0644);
	int spool, pool, ret;

	REQUIRE(mine >= 0 && write(mine, "mine\n", 5) == 5, "write mine.log");
	REQUIRE(tpoint_enable("tpt_daemon:*") > 0, "enable tpt_daemon:*");

	REQUIRE(tpoint_record_start("kept.dat") == 0, "tpoint_record_start(kept.dat)");
	for (int i = 0; i < K; i++)
		trace_daemon_tick(1, i);
	spool = find_fd("/kept.dat.spool");
	pool = find_fd("/memfd:tpoint-pool (deleted)");
	REQUIRE(spool >= 0 && pool >= 0, "the spool (%d) and the pool (%d) in /proc/self/fd",
		spool, pool);
	REQUIRE(dup2(mine, spool) == spool && dup2(mine, pool) == pool, "dup2");
	for (int i = K; i < 2 * K; i++)
		trace_daemon_tick(1, i);
	ret = tpoint_record_stop();
	CHECK(ret == 0, "tpoint_record_stop() after dup2 over its spool: %d", ret);
	check_mine("dup2 over the spool and the pool", mine);
	check_events("dup2 over the spool and the pool", "kept.dat", 0, 2 * K);
	close(spool);
	close(pool);

	/* The spool's name is gone as well: nothing to open again. */
	tu_stats("tpt_daemon", "daemon_tick", &before);
	REQUIRE(tpoint_record_start("gone.dat") == 0, "tpoint_record_start(gone.dat)");
	for (int i = 0; i < K; i++)
		trace_daemon_tick(1, i);
	REQUIRE(tpoint_flush() >= 0, "tpoint_flush()");
	spool = find_fd("/gone.dat.spool");
	REQUIRE(spool >= 0, "the spool in /proc/self/fd");
	{
		char link[64], path[PATH_MAX];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", spool);
		n = readlink(link, path, sizeof(path) - 1);
		REQUIRE(n > 0, "readlink %s", link);
		path[n] = 0;
		REQUIRE(rename(path, "moved.spool") == 0, "rename the spool");
	}
	REQUIRE(dup2(mine, spool) == spool, "dup2");
	for (int i = K; i < 2 * K; i++)
		trace_daemon_tick(1, i);
	ret = tpoint_record_stop();
	CHECK(ret < 0, "tpoint_record_stop() without its spool: %d, want an error", ret);
	tu_stats("tpt_daemon", "daemon_tick", &after);
	check_mine("dup2 over the spool, its name gone", mine);
	CHECK(after.hits - before.hits == 2 * K && after.recorded - before.recorded == K &&
	      after.lost - before.lost == K, "name gone: %llu hits, %llu recorded, %llu lost; "
	      "want %d, %d, %d", (unsigned long long)(after.hits - before.hits),
	      (unsigned long long)(after.recorded - before.recorded),
	      (unsigned long long)(after.lost - before.lost), 2 * K, K, K);
	tu_note("dup2 over the spool, its name gone: %llu recorded before, %llu after counted "
		"lost", (unsigned long long)(after.recorded - before.recorded),
		(unsigned long long)(after.lost - before.lost));
	close(spool);
	close(mine);
}

/* Run the helper under `argv` with `env` added; its parent's line says the daemon's pid. */
static pid_t run(const char *mode, char *const *argv, const char *const *env)
{
	int pipefd[2], status, dstatus = -1, daemon = -1;
	char line[128] = "";
	FILE *f;
	pid_t pid;

	REQUIRE(pipe(pipefd) == 0, "pipe");
	mkdir("run", 0755);
	pid = fork();
	if (pid == 0) {
		for (const char *const *e = env; *e; e++)
			putenv((char *)*e);
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		close(pipefd[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	f = fdopen(pipefd[0], "r");
	while (f && fgets(line, sizeof(line), f) && strncmp(line, "daemon=", 7))
		;
	if (f)
		fclose(f);
	REQUIRE(pid > 0 && waitpid(pid, &status, 0) == pid, "%s: wait", mode);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: exit status %d", mode, status);
	REQUIRE(sscanf(line, "daemon=%d status=%d", &daemon, &dstatus) == 2,
		"%s: the helper says its daemon's pid: '%s'", mode, line);
	CHECK(WIFEXITED(dstatus) && WEXITSTATUS(dstatus) == 0, "%s: the daemon's exit status %d",
	      mode, dstatus);
	return daemon;
}

int main(int argc, char **argv)
{
	char file[64];
	const char *tool = getenv("TPOINT");
	pid_t d;

	if (argc > 1 && !strcmp(argv[1], "helper"))
		return helper();
	tu_require_trace_cmd();
	if (!tool)
		tu_skip("TPOINT (the tool) is not set: run through tests/run.sh");
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0)
		tu_skip("cannot read /proc/self/exe to run the helper");
	self[n] = 0;
	unsetenv("TPOINT_RECORD_OWNER");

	/* Embedded: TPOINT_RECORD, relative, and the daemon changes directory. */
	{
		char *const av[] = { self, (char *)"helper", NULL };
		const char *env[] = { "TPOINT_EVENTS=tpt_daemon:*", "TPOINT_RECORD=out.dat", NULL };

		d = run("TPOINT_RECORD", av, env);
		check_files("TPOINT_RECORD");
		check_run_dir("TPOINT_RECORD");
		check_events("TPOINT_RECORD", "out.dat", NPRE, 0);
		snprintf(file, sizeof(file), "out.dat.%d", (int)d);
		CHECK(access(file, F_OK) == 0, "TPOINT_RECORD: the daemon's %s is not where "
		      "TPOINT_RECORD said (the directory it started in)", file);
		if (access(file, F_OK) == 0)
			check_events("TPOINT_RECORD", file, 0, N);
	}
	/* Under tpoint record -- CMD: the spools are in a directory the tool made. */
	{
		char *const av[] = { (char *)tool, (char *)"record", (char *)"-e",
				     (char *)"tpt_daemon:*", (char *)"-o", (char *)"rec.dat",
				     (char *)"--", self, (char *)"helper", NULL };
		const char *env[] = { "TPOINT_RECORD=", NULL };

		d = run("tpoint record", av, env);
		check_files("tpoint record");
		check_run_dir("tpoint record");
		check_events("tpoint record", "rec.dat", NPRE, N);
	}
	numbers_reused();
	return tu_finish();
}
