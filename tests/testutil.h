/* SPDX-License-Identifier: MIT */
/*
 * testutil.h - what the test programs share: checks that count failures and say what they
 * checked, the skip convention of tests/run.sh (exit 77, reason on the last line), and a
 * reader of `trace-cmd report` output, the reference reader every recording is judged by.
 *
 * Include it first: it asks for _GNU_SOURCE before any libc header. Compiles as C11 and
 * C++17, so the C++ test uses the same helpers.
 */
#ifndef TPOINT_TESTUTIL_H
#define TPOINT_TESTUTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <tpoint/tpoint.h>

/*
 * LeakSanitizer (make check SANITIZE=1) reads its built-in suppressions from this hook in
 * the executable. Only what the library leaks on purpose, as its comments say:
 *	tp_pool_create		a stopped recording's pool stays mapped, since a preempted writer
 *				may still store into its page (lib/session.c, stop_locked)
 *	start_locked		the same pool's struct and queues; a forked child drops its copy of
 *				the parent's (lib/session.c, fork_child)
 *	tpoint_probe_*register	replaced probe sets are never freed, since a hit may still walk
 *				them (lib/probes.c)
 *	tp_registry_slot_apply_filter	replaced filters alike, since a hit may still be
 *				evaluating one (lib/event_filter.c)
 */
#ifdef __cplusplus
extern "C"
#endif
__attribute__((used, visibility("default"))) const char *__lsan_default_suppressions(void);
__attribute__((used, visibility("default"))) const char *__lsan_default_suppressions(void)
{
	/* Kept on purpose (see session.c stop_locked, probes.c, event_filter.c): a thread
	 * may still be writing to a stopped recording's pool, walking an old probe set or
	 * evaluating a replaced filter. */
	return "leak:tp_pool_create\n"
	       "leak:start_locked\n"
	       "leak:tpoint_probe_register\n"
	       "leak:tpoint_probe_unregister\n"
	       "leak:tp_registry_slot_apply_filter\n";
}

/* Without the table of used suppressions, which would end a skipped test's output. */
#ifdef __cplusplus
extern "C"
#endif
__attribute__((used, visibility("default"))) const char *__lsan_default_options(void);
__attribute__((used, visibility("default"))) const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}

static int tu_failures;
static int tu_checks;

#define TU_UNUSED __attribute__((unused))

/* Count a check; on failure say where and what, with a printf-style explanation. */
#define CHECK(cond, ...)                                                                     \
	do {                                                                                 \
		tu_checks++;                                                                 \
		if (!(cond)) {                                                               \
			tu_failures++;                                                       \
			fprintf(stderr, "%s:%d: FAIL (%s): ", __FILE__, __LINE__, #cond);   \
			fprintf(stderr, __VA_ARGS__);                                        \
			fputc('\n', stderr);                                                 \
		}                                                                            \
	} while (0)

/*
 * A check that fails because of a bug already reported and not yet fixed: it is still run
 * and printed, and if nothing else fails the test exits 77 naming the bug, so that the
 * rest of the test keeps guarding what works. When the bug is fixed the check passes and
 * the marker can go.
 */
static const char *tu_known_bug;
#define CHECK_KNOWN_BUG(bug, cond, ...)                                                      \
	do {                                                                                 \
		tu_checks++;                                                                 \
		if (!(cond)) {                                                               \
			tu_known_bug = bug;                                                  \
			fprintf(stderr, "%s:%d: KNOWN BUG (%s): ", __FILE__, __LINE__, bug); \
			fprintf(stderr, __VA_ARGS__);                                        \
			fputc('\n', stderr);                                                 \
		}                                                                            \
	} while (0)

/* A check that makes going on pointless (no file, no output). */
#define REQUIRE(cond, ...)                                                                   \
	do {                                                                                 \
		int before_ = tu_failures;                                                   \
		CHECK(cond, __VA_ARGS__);                                                    \
		if (tu_failures != before_)                                                  \
			exit(tu_finish());                                                   \
	} while (0)

/* What a test checked, for the log: a passing run says what it proved. */
static TU_UNUSED __attribute__((format(printf, 1, 2))) void tu_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("  ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
	va_end(ap);
}

static TU_UNUSED int tu_finish(void)
{
	fflush(stdout);
	if (tu_failures) {
		fprintf(stderr, "%d of %d checks failed\n", tu_failures, tu_checks);
		return 1;
	}
	if (tu_known_bug) {
		/* stderr first: tests/run.sh shows the last line of the combined output. */
		fflush(stderr);
		printf("known bug: %s\n", tu_known_bug);
		fflush(stdout);
		return 77;
	}
	printf("all %d checks passed\n", tu_checks);
	return 0;
}

/* tests/run.sh shows the last line of a skipped test: the reason. */
static TU_UNUSED __attribute__((noreturn)) void tu_skip(const char *why)
{
	fflush(stdout);
	printf("%s\n", why);
	fflush(stdout);
	exit(77);
}

static TU_UNUSED uint64_t tu_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The suite's tiers: make check runs each test at the size that tests its behaviour (seconds);
 * make check-stress sets TPOINT_TEST_STRESS=1 and the same tests run their long loops.
 */
static TU_UNUSED int tu_stress(void)
{
	const char *s = getenv("TPOINT_TEST_STRESS");

	return s && *s && strcmp(s, "0") != 0;
}

static TU_UNUSED pid_t tu_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static TU_UNUSED int tu_have_trace_cmd(void)
{
	return system("command -v trace-cmd >/dev/null 2>&1") == 0;
}

static TU_UNUSED void tu_require_trace_cmd(void)
{
	if (!tu_have_trace_cmd())
		tu_skip("trace-cmd not installed: it is the reference reader of trace.dat");
}

/* Directory of the running test binary (build/tests), for helpers built beside it. */
static TU_UNUSED void tu_self_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	if (n < 0)
		n = 0;
	buf[n] = 0;
	slash = strrchr(buf, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(buf, len, ".");
}

/* Exit status of a shell command, or -1 when it did not exit normally. */
static TU_UNUSED int tu_system(const char *cmd)
{
	int st = system(cmd);

	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* trace-cmd's own verdict on every event format in the file: 0 when all parse. */
static TU_UNUSED int tu_check_events(const char *file)
{
	char cmd[PATH_MAX + 80];

	snprintf(cmd, sizeof(cmd), "trace-cmd report --check-events '%s' >/dev/null 2>&1", file);
	return tu_system(cmd);
}

static TU_UNUSED long long tu_file_size(const char *file)
{
	FILE *f = fopen(file, "rb");
	long long n;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fclose(f);
	return n;
}

/*
 * One event line of `trace-cmd report -t`:
 *	"           comm-tid [cpu] sec.nsec: name:          text"
 * trace-cmd pads the event name with blanks; the text is what follows them (no test event's
 * text starts with a blank).
 */
struct tu_line {
	char comm[64];
	int tid;
	int cpu;
	uint64_t ts; /* ns */
	char name[128];
	const char *text; /* valid during the callback only, no newline */
};

struct tu_report {
	uint64_t events;  /* event lines */
	uint64_t dropped; /* sum of "CPU:N [K EVENTS DROPPED]" */
	uint64_t dropped_unknown; /* "[EVENTS DROPPED]" lines without a count */
	uint64_t other;   /* any other line but the "cpus=N" header */
	uint64_t malformed; /* lines that look like events but do not parse */
	int status;       /* exit status of trace-cmd report */
};

/* Parse one event line; 0 if it is not one. */
static TU_UNUSED int tu_parse_line(char *s, struct tu_line *l)
{
	char *open, *close, *dash, *p, *e;
	unsigned long long sec, nsec;
	size_t n;

	open = strstr(s, " [");
	if (!open)
		return 0;
	while (open[1] == ' ')
		open++;
	if (open[1] != '[')
		return 0;
	close = strchr(open, ']');
	if (!close || close[1] != ' ')
		return 0;
	/* trace-cmd pads "comm-tid" to a width: the blanks before '[' are not the tid's. */
	*open = 0;
	for (e = open; e > s && e[-1] == ' '; e--)
		e[-1] = 0;
	p = s;
	while (*p == ' ')
		p++;
	dash = strrchr(p, '-');
	if (!dash)
		return 0;
	n = (size_t)(dash - p);
	if (n >= sizeof(l->comm))
		n = sizeof(l->comm) - 1;
	memcpy(l->comm, p, n);
	l->comm[n] = 0;
	l->tid = (int)strtol(dash + 1, &e, 10);
	if (*e)
		return 0;
	l->cpu = (int)strtol(open + 2, &e, 10);
	if (e != close)
		return 0;
	p = close + 2;
	while (*p == ' ')
		p++;
	sec = strtoull(p, &e, 10);
	if (*e != '.')
		return 0;
	p = e + 1;
	nsec = strtoull(p, &e, 10);
	if (e - p != 9 || e[0] != ':' || e[1] != ' ')
		return 0; /* report -t prints nine digits */
	l->ts = sec * 1000000000ull + nsec;
	p = e + 2;
	e = strchr(p, ':');
	if (!e)
		return 0;
	n = (size_t)(e - p);
	if (n >= sizeof(l->name))
		return 0;
	memcpy(l->name, p, n);
	l->name[n] = 0;
	p = e + 1;
	while (*p == ' ')
		p++;
	l->text = p;
	return 1;
}

/*
 * Run `trace-cmd report -t FILE` and call fn for every event line, streaming (files may hold
 * millions). Other lines are counted; lost-event lines are summed. fn returns nonzero to
 * stop early. Returns 0, or -1 if trace-cmd could not be run.
 */
static TU_UNUSED int tu_report_each(const char *file, int (*fn)(const struct tu_line *, void *),
				    void *arg, struct tu_report *r)
{
	char cmd[PATH_MAX + 64];
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int st;

	memset(r, 0, sizeof(*r));
	snprintf(cmd, sizeof(cmd), "trace-cmd report -t '%s' 2>/dev/null", file);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while ((len = getline(&buf, &cap, f)) >= 0) {
		struct tu_line l;
		unsigned long long k;
		int cpu;

		if (len > 0 && buf[len - 1] == '\n')
			buf[--len] = 0;
		if (!strncmp(buf, "cpus=", 5))
			continue;
		if (sscanf(buf, "CPU:%d [%llu EVENTS DROPPED]", &cpu, &k) == 2) {
			r->dropped += k;
			continue;
		}
		if (strstr(buf, "EVENTS DROPPED]")) {
			r->dropped_unknown++;
			continue;
		}
		if (strstr(buf, " [") && strstr(buf, "] ")) {
			char copy[256];

			snprintf(copy, sizeof(copy), "%s", buf);
			if (!tu_parse_line(buf, &l)) {
				if (r->malformed++ < 5)
					fprintf(stderr, "unparsed report line: %s\n", copy);
				continue;
			}
			r->events++;
			if (fn && fn(&l, arg))
				break;
			continue;
		}
		if (r->other++ < 5)
			fprintf(stderr, "other report line: %s\n", buf);
	}
	/* Drain what is left so that trace-cmd is not killed by SIGPIPE. */
	while (getline(&buf, &cap, f) >= 0)
		;
	free(buf);
	st = pclose(f);
	r->status = (st != -1 && WIFEXITED(st)) ? WEXITSTATUS(st) : -1;
	return 0;
}

/* Small reports, kept whole: the lines of the golden test. */
struct tu_saved_line {
	struct tu_line l;
	char *text;
};
struct tu_lines {
	struct tu_saved_line *v;
	size_t n, cap;
};

static TU_UNUSED int tu_save_line(const struct tu_line *l, void *arg)
{
	struct tu_lines *ls = (struct tu_lines *)arg;

	if (ls->n == ls->cap) {
		size_t cap = ls->cap ? ls->cap * 2 : 64;
		struct tu_saved_line *v =
			(struct tu_saved_line *)realloc(ls->v, cap * sizeof(*v));

		if (!v)
			return 1;
		ls->v = v;
		ls->cap = cap;
	}
	ls->v[ls->n].l = *l;
	ls->v[ls->n].text = strdup(l->text);
	ls->v[ls->n].l.text = ls->v[ls->n].text;
	ls->n++;
	return 0;
}

static TU_UNUSED void tu_lines_free(struct tu_lines *ls)
{
	for (size_t i = 0; i < ls->n; i++)
		free(ls->v[i].text);
	free(ls->v);
	memset(ls, 0, sizeof(*ls));
}

/* The runtime's counters for one event; 0 when found. */
static TU_UNUSED int tu_stats(const char *system, const char *name,
			      struct tpoint_event_stats *out)
{
	struct tpoint_event_stats st[256];
	int n = tpoint_stats(st, 256);

	for (int i = 0; i < n && i < 256; i++)
		if (!strcmp(st[i].system, system) && !strcmp(st[i].name, name)) {
			*out = st[i];
			return 0;
		}
	memset(out, 0, sizeof(*out));
	return -1;
}

/* The library's messages, gathered by tpoint_set_log(tu_log_gather, NULL), a line each. */
static TU_UNUSED char tu_logged[4096];

static TU_UNUSED void tu_log_gather(int level, const char *msg, void *arg)
{
	(void)level;
	(void)arg;
	strncat(tu_logged, msg, sizeof(tu_logged) - strlen(tu_logged) - 2);
	strcat(tu_logged, "\n");
}

/* A checksum of a record's contents, recomputed from what trace-cmd printed. */
static TU_UNUSED uint64_t tu_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

#endif /* TPOINT_TESTUTIL_H */
