// SPDX-License-Identifier: MIT
/*
 * tpoint-test: serial (a tracefs instance of the whole machine)
 * kernel_test - tpoint's events next to the kernel's, on one time line, as a user would put
 * them there: the kernel's events recorded with clock mono into a tracefs instance of the
 * test's own, extracted with `trace-cmd extract`, and the two files merged by
 * `trace-cmd report -i kernel.dat -i user.dat`.
 *
 * A helper, run under `tpoint record`, emits an event and then writes a line to the
 * instance's trace_marker, PAIRS times, a few milliseconds apart. The kernel stamps its line
 * after our event was stamped, so in the merged report each of our events must come right
 * before its own line, pair after pair: a conversion of tpoint's clock (the TSC) to
 * CLOCK_MONOTONIC that ran ahead of the kernel's by more than a write(2), or fell behind by
 * more than the pause between pairs, would break the alternation somewhere in the run.
 *
 * The instance is the test's own (instances/tpoint-kernel-test-PID), so nothing else's
 * tracing changes. Needs root, tracefs with instances and clock mono, and trace-cmd; skips
 * otherwise (77), and under qemu-user (TPOINT_TEST_EMULATED=1), whose clock is coarse.
 */
#include "testutil.h"
#include <fcntl.h>
#include <sys/stat.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_kernel.h>

#define TRACEFS "/sys/kernel/tracing"
#define PAIRS 200
#define PAUSE_NS 5000000L

static char instance[PATH_MAX];

static int put(const char *file, const char *value)
{
	char path[PATH_MAX + 32];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", instance, file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -1;
	ok = write(fd, value, strlen(value)) == (ssize_t)strlen(value);
	close(fd);
	return ok ? 0 : -1;
}

/* Recorded by `tpoint record`: each event, then its line in the kernel's buffer. */
static int helper(const char *marker)
{
	int fd = open(marker, O_WRONLY);

	if (fd < 0) {
		fprintf(stderr, "helper: cannot open %s: %s\n", marker, strerror(errno));
		return 1;
	}
	for (int i = 0; i < PAIRS; i++) {
		struct timespec pause = { 0, PAUSE_NS };

		trace_kernel_pair(i);
		if (dprintf(fd, "tpoint pair %d", i) < 0) {
			fprintf(stderr, "helper: write to %s: %s\n", marker, strerror(errno));
			return 1;
		}
		nanosleep(&pause, NULL);
	}
	close(fd);
	return 0;
}

static void remove_instance(void)
{
	if (instance[0])
		rmdir(instance); /* trace-cmd extract may have removed it already */
}

struct merged {
	int next_pair, next_mark; /* the next seq each kind must show */
	int in_order;             /* pairs seen in alternation so far */
	int bad;
	uint64_t pair_ns, lag_ns[PAIRS];
};

/* One line of `trace-cmd report -t -i kernel.dat -i user.dat` (the file's name ahead of it). */
static void merged_line(char *line, struct merged *m)
{
	char text[1024];
	struct tu_line l;
	int seq, ours, in_order;

	snprintf(text, sizeof(text), "%s", line);
	if (!tu_parse_line(line, &l))
		return;
	if (!strcmp(l.name, "kernel_pair") && sscanf(l.text, "seq=%d", &seq) == 1)
		ours = 1;
	else if (!strcmp(l.name, "print") &&
		 sscanf(l.text, "tracing_mark_write: tpoint pair %d", &seq) == 1)
		ours = 0;
	else
		return;
	/* Ours after the last pair's line; the kernel's right after ours of the same pair. */
	in_order = ours ? seq == m->next_pair && m->next_mark == seq
			: seq == m->next_mark && m->next_pair == seq + 1;
	if (!in_order && m->bad++ < 5)
		fprintf(stderr, "out of order (next event %d, next line %d): %s", m->next_pair,
			m->next_mark, text);
	if (ours) {
		m->next_pair = seq + 1;
		m->pair_ns = l.ts;
		return;
	}
	if (in_order && seq < PAIRS) {
		m->lag_ns[seq] = l.ts - m->pair_ns;
		m->in_order++;
	}
	m->next_mark = seq + 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], cmd[3 * PATH_MAX], line[1024];
	const char *tool = getenv("TPOINT");
	struct merged m = { 0 };
	struct stat st;
	FILE *f;
	int rc;

	if (argc == 3 && !strcmp(argv[1], "helper"))
		return helper(argv[2]);
	if (getenv("TPOINT_TEST_EMULATED"))
		tu_skip("under qemu-user: its clock is too coarse to line up with the kernel's");
	if (geteuid() != 0)
		tu_skip("needs root to make a tracefs instance");
	tu_require_trace_cmd();
	if (!tool || access(tool, X_OK))
		tu_skip("no tpoint tool in $TPOINT");
	if (stat(TRACEFS "/instances", &st) && (system("mount -t tracefs nodev " TRACEFS
						       " 2>/dev/null"), stat(TRACEFS "/instances", &st)))
		tu_skip("no tracefs with instances at " TRACEFS);
	snprintf(instance, sizeof(instance), TRACEFS "/instances/tpoint-kernel-test-%d",
		 (int)getpid());
	if (mkdir(instance, 0755))
		tu_skip("cannot make a tracefs instance (mkdir " TRACEFS "/instances/...)");
	atexit(remove_instance);
	if (put("trace_clock", "mono") || put("tracing_on", "1"))
		tu_skip("the tracefs instance takes no clock mono");

	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	REQUIRE(n > 0, "read /proc/self/exe");
	self[n] = 0;
	snprintf(cmd, sizeof(cmd), "'%s' record -e tpt_kernel:kernel_pair -o user.dat -- '%s' "
		 "helper '%s/trace_marker' >record.out 2>&1", tool, self, instance);
	rc = tu_system(cmd);
	put("tracing_on", "0");
	CHECK(rc == 0, "tpoint record of the helper: exit %d", rc);
	snprintf(cmd, sizeof(cmd), "trace-cmd extract -B '%s' -o kernel.dat >extract.out 2>&1",
		 strrchr(instance, '/') + 1);
	rc = tu_system(cmd);
	REQUIRE(rc == 0, "trace-cmd extract of the instance: exit %d", rc);
	REQUIRE(tu_check_events("kernel.dat") == 0 && tu_check_events("user.dat") == 0,
		"trace-cmd report --check-events accepts both files");

	f = popen("trace-cmd report -t -i kernel.dat -i user.dat 2>/dev/null", "r");
	REQUIRE(f != NULL, "run trace-cmd report -i kernel.dat -i user.dat");
	while (fgets(line, sizeof(line), f))
		merged_line(line, &m);
	rc = pclose(f);
	CHECK(rc == 0, "trace-cmd report -i kernel.dat -i user.dat: status %d", rc);
	CHECK(m.next_pair == PAIRS && m.next_mark == PAIRS, "the merged report holds all %d "
	      "pairs: %d of our events, %d of the kernel's lines", PAIRS, m.next_pair,
	      m.next_mark);
	CHECK(m.bad == 0 && m.in_order == PAIRS, "each of our events comes right before its "
	      "line in the kernel's buffer, in all %d pairs (%d out of order)", PAIRS, m.bad);
	if (m.in_order == PAIRS) {
		qsort(m.lag_ns, PAIRS, sizeof(m.lag_ns[0]), cmp_u64);
		tu_note("from our event to the kernel's line: median %.1f us, min %.1f, max %.1f",
			m.lag_ns[PAIRS / 2] / 1e3, m.lag_ns[0] / 1e3, m.lag_ns[PAIRS - 1] / 1e3);
	}
	return tu_finish();
}
