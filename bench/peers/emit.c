/* SPDX-License-Identifier: MIT */
/*
 * The throughput run's program: one thread emits N events (3 x u64) as fast as it can, then
 * says how long that took. Run it under the tracer being measured:
 *
 *	tpoint record -e bench:bench_u64x3 -o /dev/shm/x.dat -- emit tpoint N
 *	emit lttng N	(with an LTTng session that enables peers_lttng:u64x3_tput)
 *
 *	emit TRACER N RATE	the same, paced at RATE events/s (bursts of 64 Ki events
 *				with a sleep between, so that emitting costs what it costs)
 *
 * It prints "emit: N events in S s" on stdout; events/s is N / S, the emitting loop alone
 * (the tracer's start-up and its finishing the file are not in it). What was lost is the
 * tracer's to say. Under tpoint it also prints the CPU time that the library's drain thread
 * spent, per event, split into user (packing pages) and system (writing the spool), and
 * the bytes it wrote per event.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "trace/events/bench.h"
#include "timing.h"
#ifdef HAVE_LTTNG
#include "lttng_tp.h"
#endif

static __attribute__((noinline)) void emit_tpoint(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		trace_bench_u64x3(i, i * 3, i ^ 0x5a5a5a5aull);
		sink(i);
	}
}

#ifdef HAVE_LTTNG
static __attribute__((noinline)) void emit_lttng(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		tracepoint(peers_lttng, u64x3_tput, i, i * 3, i ^ 0x5a5a5a5aull);
		sink(i);
	}
}
#endif

/* Emit n events in bursts, no faster than rate per second on average. */
static void emit_paced(void (*emit)(uint64_t), uint64_t n, double rate)
{
	const uint64_t burst = 65536;
	double t0 = mono_ns();

	for (uint64_t done = 0; done < n; done += burst) {
		uint64_t k = n - done < burst ? n - done : burst;
		double due = t0 + (double)(done + k) / rate * 1e9;

		emit(k);
		double wait = due - mono_ns();
		if (wait > 0) {
			struct timespec ts = { (time_t)(wait / 1e9), (long)((uint64_t)wait % 1000000000) };

			nanosleep(&ts, NULL);
		}
	}
}

int main(int argc, char **argv)
{
	void (*emit)(uint64_t) = NULL;
	double rate = 0;
	uint64_t n;

	if (argc < 3 || argc > 4 || !(n = strtoull(argv[2], NULL, 0)) ||
	    (argc == 4 && !((rate = strtod(argv[3], NULL)) > 0))) {
		fprintf(stderr, "usage: emit tpoint|lttng N [EVENTS_PER_S]\n");
		return 2;
	}
	if (!strcmp(argv[1], "tpoint")) {
		if (!trace_bench_u64x3_enabled()) {
			fprintf(stderr, "emit: bench:bench_u64x3 is not enabled; "
					"run me under tpoint record -e bench:bench_u64x3\n");
			return 1;
		}
		emit = emit_tpoint;
	}
#ifdef HAVE_LTTNG
	else if (!strcmp(argv[1], "lttng")) {
		/* The session daemon enables our event shortly after we register. */
		for (int i = 0; i < 500 && !tracepoint_enabled(peers_lttng, u64x3_tput); i++)
			usleep(10000);
		if (!tracepoint_enabled(peers_lttng, u64x3_tput)) {
			fprintf(stderr, "emit: peers_lttng:u64x3_tput is not enabled by any session\n");
			return 1;
		}
		emit = emit_lttng;
	}
#endif
	if (!emit) {
		fprintf(stderr, "emit: unknown tracer '%s'\n", argv[1]);
		return 2;
	}
	double t0 = mono_ns();

	if (rate)
		emit_paced(emit, n, rate);
	else
		emit(n);
	double s = (mono_ns() - t0) / 1e9;

	printf("emit: %llu events in %.3f s\n", (unsigned long long)n, s);
	if (emit == emit_tpoint && tpoint_flush() == 0) {
		struct tpoint_event_stats st;

		char line[256];

		if (!bench_event_stats("bench", "bench_u64x3", &st)) {
			bench_drain_cpu(st.recorded, line, sizeof(line));
			fputs(line, stdout);
		}
	}
	return 0;
}
