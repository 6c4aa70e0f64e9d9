// SPDX-License-Identifier: MIT
/*
 * bufcap_test - a pool bigger than the machine can give never ends the program: asked for
 * 100G by TPOINT_BUFFER_SIZE, by `tpoint record -b` or by tpoint_set_buffer_size(), the pool
 * is capped to what is there (said under TPOINT_DEBUG=1) and the program records all the
 * same. The helper runs under RLIMIT_AS (512 MiB), which makes the failure quick and safe:
 * without the cap the 100G mapping fails and nothing is recorded, where without the limit
 * the pool would be faulted in until the OOM killer ends the program. Then the cap by
 * MemAvailable, on a pool kept in memory only (TPOINT_EVENTS alone), which is not faulted
 * in; and with nothing enabled, no pool at all.
 */
#include "testutil.h"
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_life.h>

#define N 2000
#define AS_LIMIT (512ull << 20)

/* The size of this process's pool memfd (0 if it has none) and its shared memory in use. */
static void pool_facts(long long *pool, long long *rss_shmem)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[300], link[256], line[256];
	FILE *f;

	*pool = 0;
	*rss_shmem = -1;
	while (d && (e = readdir(d))) {
		struct stat st;
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (strstr(link, "memfd:tpoint-pool") && !stat(path, &st) && st.st_size > *pool)
			*pool = (long long)st.st_size;
	}
	if (d)
		closedir(d);
	f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "RssShmem: %lld", rss_shmem) == 1)
			*rss_shmem <<= 10;
	if (f)
		fclose(f);
}

static int helper(int argc, char **argv)
{
	long long pool, shmem;
	int start = 0, stop = 0, enabled;

	if (argc > 2 && !strcmp(argv[2], "api")) {
		int sz = tpoint_set_buffer_size((size_t)100 << 30);

		tpoint_enable("tpt_life:*");
		start = tpoint_record_start("api.dat");
		printf("set=%d start=%d ", sz, start);
	}
	enabled = trace_life_emit_enabled() ? 1 : 0;
	for (int i = 0; i < N; i++)
		trace_life_emit(1, i);
	pool_facts(&pool, &shmem);
	if (argc > 2 && !strcmp(argv[2], "api"))
		stop = tpoint_record_stop();
	printf("enabled=%d pool=%lld shmem=%lld stop=%d\n", enabled, pool, shmem, stop);
	return 0;
}

/* Run argv with RLIMIT_AS `as` (0: none), stdout and stderr to files; the exit status. */
static int run(char *const argv[], unsigned long long as, const char *out, const char *err)
{
	pid_t pid = fork();
	int st = -1;

	if (pid == 0) {
		struct rlimit rl = { as, as };
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (as && setrlimit(RLIMIT_AS, &rl) < 0)
			_exit(126);
		dup2(o, 1);
		dup2(e, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	return st;
}

static char *slurp(const char *file)
{
	static char buf[16384];
	FILE *f = fopen(file, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = 0;
	return buf;
}

static int count_line(const struct tu_line *l, void *arg)
{
	int who, i;

	if (!strcmp(l->name, "life_emit") && sscanf(l->text, "who=%d i=%d", &who, &i) == 2 &&
	    i == ((int *)arg)[0])
		((int *)arg)[0]++;
	else
		((int *)arg)[1]++;
	return 0;
}

/* The file holds exactly events 0..N-1, in order. */
static TU_UNUSED void check_file(const char *file, const char *what)
{
	struct tu_report rep;
	int c[2] = { 0, 0 };

	REQUIRE(tu_report_each(file, count_line, c, &rep) == 0, "run trace-cmd");
	CHECK(rep.status == 0 && c[0] == N && c[1] == 0,
	      "%s: %s holds %d of the %d events in order (%d others, trace-cmd exit %d)", what,
	      file, c[0], N, c[1], rep.status);
}

static void check_capped(const char *what, int st, const char *out, const char *err,
			 long long bound)
{
	long long pool = -1, shmem = -1;
	int enabled = -1;
	const char *o = strstr(slurp(out), "enabled=");

	CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "%s: the program ran to its end (status %#x)", what, st);
	CHECK(o && sscanf(o, "enabled=%d pool=%lld shmem=%lld", &enabled, &pool, &shmem) == 3,
	      "%s: the program says what it had: '%s'", what, slurp(out));
	CHECK(enabled == 1, "%s: the event was on", what);
	/* The memfd holds the pages and a table of 48 bytes a page after them. */
	CHECK(pool >= (64 << 10) && pool <= bound + bound / 64,
	      "%s: its pool is %lld bytes, capped to at most %lld and its table", what, pool,
	      bound);
	CHECK(strstr(slurp(err), "more than this machine can give") != NULL,
	      "%s: TPOINT_DEBUG=1 says the pool was capped: '%s'", what, slurp(err));
}

static unsigned long long mem_available(void)
{
	char line[256];
	unsigned long long kb = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb << 10;
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	const char *tool = getenv("TPOINT");
	ssize_t n;
	int st;

	if (argc > 1 && !strcmp(argv[1], "helper"))
		return helper(argc, argv);
	tu_require_trace_cmd();
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	REQUIRE(n > 0, "find this program");
	self[n] = 0;
	setenv("TPOINT_DEBUG", "1", 1);

#if defined(__SANITIZE_ADDRESS__)
	tu_note("AddressSanitizer maps terabytes of shadow: the RLIMIT_AS cases are left out");
	(void)tool;
#else
	char *helper_env[] = { self, (char *)"helper", NULL };
	char *helper_api[] = { self, (char *)"helper", (char *)"api", NULL };

	/* TPOINT_BUFFER_SIZE=100G with TPOINT_RECORD. */
	setenv("TPOINT_BUFFER_SIZE", "100G", 1);
	setenv("TPOINT_EVENTS", "tpt_life:*", 1);
	setenv("TPOINT_RECORD", "env.dat", 1);
	st = run(helper_env, AS_LIMIT, "env.out", "env.err");
	check_capped("TPOINT_BUFFER_SIZE=100G", st, "env.out", "env.err", AS_LIMIT / 2);
	check_file("env.dat", "TPOINT_BUFFER_SIZE=100G");
	unsetenv("TPOINT_RECORD");
	unsetenv("TPOINT_BUFFER_SIZE");
	unsetenv("TPOINT_EVENTS");

	/* tpoint record -b 100G, the tool itself under the same limit. */
	if (tool) {
		char *rec[] = { (char *)tool, (char *)"record", (char *)"-b", (char *)"100G",
				(char *)"-e", (char *)"tpt_life:*", (char *)"-o", (char *)"b.dat",
				(char *)"--", self, (char *)"helper", NULL };

		st = run(rec, AS_LIMIT, "b.out", "b.err");
		check_capped("tpoint record -b 100G", st, "b.out", "b.err", AS_LIMIT / 2);
		CHECK(strstr(slurp("b.err"), "note: -b 100G") != NULL,
		      "tpoint record says -b is more than there is: '%s'", slurp("b.err"));
		check_file("b.dat", "tpoint record -b 100G");
	} else {
		tu_note("$TPOINT not set: tpoint record -b is not tried");
	}

	/* tpoint_set_buffer_size(100G), then tpoint_record_start(). */
	st = run(helper_api, AS_LIMIT, "api.out", "api.err");
	check_capped("tpoint_set_buffer_size(100G)", st, "api.out", "api.err", AS_LIMIT / 2);
	CHECK(strstr(slurp("api.out"), "set=0 start=0 ") != NULL,
	      "tpoint_set_buffer_size(100G) and tpoint_record_start() return 0: '%s'",
	      slurp("api.out"));
	check_file("api.dat", "tpoint_set_buffer_size(100G)");
#endif
	/*
	 * No limit but the memory: a pool kept in memory only (TPOINT_EVENTS alone) is capped
	 * to half of MemAvailable, and not faulted in: the events take a few pages of it.
	 */
	char *helper_mem[] = { self, (char *)"helper", NULL };
	unsigned long long avail = mem_available();
	long long pool = -1, shmem = -1;
	int enabled = -1;

	setenv("TPOINT_BUFFER_SIZE", "100G", 1);
	setenv("TPOINT_EVENTS", "tpt_life:*", 1);
	st = run(helper_mem, 0, "mem.out", "mem.err");
	/* MemAvailable moves: a tenth of slack. */
	check_capped("in memory, 100G", st, "mem.out", "mem.err",
		     (long long)(avail / 2 + avail / 10));
	sscanf(strstr(slurp("mem.out"), "enabled=") ? strstr(slurp("mem.out"), "enabled=") : "",
	       "enabled=%d pool=%lld shmem=%lld", &enabled, &pool, &shmem);
	CHECK(shmem >= 0 && shmem < (64 << 20),
	      "in memory: the pool of %lld bytes is not faulted in (%lld bytes of shared "
	      "memory in use)", pool, shmem);
	unsetenv("TPOINT_EVENTS");

	/* Nothing enabled: nothing records, and no pool is made at all. */
	st = run(helper_mem, 0, "none.out", "none.err");
	CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "nothing enabled: exit 0");
	CHECK(strstr(slurp("none.out"), "enabled=0 pool=0 ") != NULL,
	      "nothing enabled: no pool: '%s'", slurp("none.out"));
	unsetenv("TPOINT_BUFFER_SIZE");
	return tu_finish();
}
