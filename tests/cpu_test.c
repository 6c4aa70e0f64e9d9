// SPDX-License-Identifier: MIT
/*
 * cpu_test - without rseq (glibc.pthread.rseq=0, or qemu-user, where glibc cannot register
 * it) tpoint cannot see a thread move between CPUs, and all the pages of a thread carry the
 * CPU it started recording on. A thread pinned to one CPU and then the other, in turns, a
 * few pages on each, must come out of the file with all its records in one CPU buffer, in
 * their order: stamped with the CPU each page was taken on, a thread's records were split
 * over CPU buffers, and a reader merging them by time may put equal timestamps either way
 * round: under qemu-user's coarse clock they came out of order (signal_test, now and
 * then).
 */
#define _GNU_SOURCE
#include "testutil.h"
#include <sched.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_cpu.h>

#define ROUNDS 40
#define PER_ROUND 400 /* 24-byte records: two pages and a bit */

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
extern const unsigned int __rseq_size;
#define HAVE_RSEQ_SIZE 1
#endif

struct reader {
	int cpu, other_cpu, seen, out_of_order, last;
};

static int read_line(const struct tu_line *l, void *arg)
{
	struct reader *rd = arg;
	int seq;

	if (strcmp(l->name, "cpu_hop") || sscanf(l->text, "%*[^=]=%d", &seq) != 1)
		return 0;
	if (!rd->seen)
		rd->cpu = l->cpu;
	else if (l->cpu != rd->cpu)
		rd->other_cpu++;
	if (rd->seen && seq <= rd->last && rd->out_of_order++ < 5)
		fprintf(stderr, "cpu_test: seq %d after %d\n", seq, rd->last);
	rd->last = seq;
	rd->seen++;
	return 0;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0 && sched_getcpu() == cpu ? 0 : -1;
}

int main(int argc, char **argv)
{
	cpu_set_t allowed;
	int cpus[2], n = 0, moved = 0, ret;
	struct reader rd = { 0, 0, 0, 0, 0 };
	struct tu_report rep;

	(void)argc;
	tu_require_trace_cmd();
#ifdef HAVE_RSEQ_SIZE
	if (__rseq_size && !getenv("CPU_TEST_NO_RSEQ")) {
		/* glibc reads its tunables when the program starts: run again without rseq. */
		setenv("GLIBC_TUNABLES", "glibc.pthread.rseq=0", 1);
		setenv("CPU_TEST_NO_RSEQ", "1", 1);
		execv("/proc/self/exe", argv);
		tu_skip("cannot run itself again without rseq (execv failed)");
	}
#endif
	if (tpoint_arch_cpu_key() < 0x7fffffffu)
		tu_skip("rseq is still registered (GLIBC_TUNABLES not honoured)");
	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
		tu_skip("sched_getaffinity failed: no CPUs to move between");
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &allowed))
			cpus[n++] = c;
	if (n < 2)
		tu_skip("needs two CPUs to move between");

	REQUIRE(tpoint_enable("tpt_cpu:cpu_hop") == 1, "cpu_hop enabled");
	ret = tpoint_record_start("cpu.dat");
	REQUIRE(ret == 0, "tpoint_record_start: %s", strerror(-ret));
	for (int r = 0; r < ROUNDS; r++) {
		int cpu = cpus[r % 2];

		if (pin(cpu) == 0)
			moved++;
		for (int i = 0; i < PER_ROUND; i++)
			trace_cpu_hop(r * PER_ROUND + i, cpu);
	}
	ret = tpoint_record_stop();
	REQUIRE(ret == 0, "tpoint_record_stop: %s", strerror(-ret));
	if (moved < ROUNDS)
		tu_skip("sched_setaffinity could not move the thread between two CPUs");

	REQUIRE(tu_report_each("cpu.dat", read_line, &rd, &rep) == 0, "trace-cmd report cpu.dat");
	CHECK(rd.seen == ROUNDS * PER_ROUND, "%d records of %d in the file", rd.seen,
	      ROUNDS * PER_ROUND);
	CHECK(rd.other_cpu == 0, "%d records in another CPU buffer than the first's (%d)",
	      rd.other_cpu, rd.cpu);
	CHECK(rd.out_of_order == 0, "%d records out of order", rd.out_of_order);
	return tu_finish();
}
