/* SPDX-License-Identifier: MIT */
/*
 * The USDT rows of make bench-peers (issue 24), one case a run, as run.sh drives them:
 *
 *	usdt tpoint-off CALLS REPS	tpoint's site, disabled (this binary with USDT notes, or
 *					usdt-nousdt built with -DTPOINT_NO_USDT: the same
 *					machine code, the row shows it costs the same)
 *	usdt tpoint CALLS REPS		tpoint's site while a USDT consumer (bpftrace, started
 *					by run.sh) is attached to the event's probe
 *	usdt sdt CALLS REPS		a <sys/sdt.h> probe with a semaphore, the same consumer
 *	usdt tpoint-hist CALLS REPS	bench:bench_str (a 32-byte string) aggregated by an
 *					in-process hist: trigger keyed by the string, nothing
 *					recorded, no consumer: the histogram issue's case
 *	usdt str CALLS REPS		bench:bench_str's site while bpftrace aggregates the
 *					same key through its probe (@[str(arg0)] = count())
 *	usdt tpoint-lat CALLS REPS	a start and an end event (bench:bench_lat_start/end,
 *					the key a = i % 256) paired in the process: the
 *					kernel's variables, onmatch() and a .log2 histogram of
 *					the synthetic latency event; a call is the pair
 *	usdt lat CALLS REPS		the same pair while bpftrace pairs them through their
 *					probes (@ts[arg0] = nsecs; @lat = hist(nsecs - @ts[arg0]))
 *
 * A consumer case first waits (60 s at most) until the kernel has raised the probe's
 * semaphore, so that every timed call goes through the consumer. ns per call, the median of
 * REPS batches, one thread.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "trace/events/bench.h"
#include "timing.h"
#include "loops.h"

#ifdef HAVE_SDT
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
__extension__ unsigned short peers_usdt_u64x3_semaphore __attribute__((unused, section(".probes")));

static __attribute__((noinline)) void loop_sdt(uint64_t n, int tid)
{
	(void)tid;
	for (uint64_t i = 0; i < n; i++) {
		if (__builtin_expect(peers_usdt_u64x3_semaphore, 0))
			DTRACE_PROBE3(peers_usdt, u64x3, i, ARG_B(i), ARG_C(i));
		sink(i);
	}
}
#endif

/* The semaphore of bench:bench_u64x3's probe: the high half of its enable word. */
static unsigned tpoint_semaphore(void)
{
	return __atomic_load_n(&TPOINT_EVENT_SYM(bench_u64x3).enabled, __ATOMIC_RELAXED) >> 16;
}

static unsigned str_semaphore(void)
{
	return __atomic_load_n(&TPOINT_EVENT_SYM(bench_str).enabled, __ATOMIC_RELAXED) >> 16;
}

/* Both probes of the latency pair attached. */
static unsigned lat_semaphore(void)
{
	return (__atomic_load_n(&TPOINT_EVENT_SYM(bench_lat_start).enabled, __ATOMIC_RELAXED) >>
		16) &&
	       (__atomic_load_n(&TPOINT_EVENT_SYM(bench_lat_end).enabled, __ATOMIC_RELAXED) >> 16);
}

/* A request's start and end; 256 keys in flight at most, as a server's requests. */
static __attribute__((noinline)) void loop_lat(uint64_t n, int tid)
{
	(void)tid;
	for (uint64_t i = 0; i < n; i++) {
		trace_bench_lat_start(i & 255, ARG_B(i), ARG_C(i));
		trace_bench_lat_end(i & 255, ARG_B(i), ARG_C(i));
		sink(i);
	}
}

/* The kernel's triggers for the latency of the pair, set in the process. */
static int lat_triggers(void)
{
	static const char *const set[][2] = {
		{ "synthetic_events", "benchlat u64 lat" },
		{ "bench:bench_lat_start", "hist:keys=a:ts0=common_timestamp" },
		{ "bench:bench_lat_end", "hist:keys=a:lat=common_timestamp-$ts0:"
					 "onmatch(bench.bench_lat_start).trace(benchlat,$lat)" },
		{ "synthetic:benchlat", "hist:keys=lat.log2" },
	};

	for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
		int err = tpoint_set_trigger(set[i][0], set[i][1]);

		if (err < 0) {
			fprintf(stderr, "usdt: the trigger '%s' on %s: %s\n", set[i][1], set[i][0],
				strerror(-err));
			return err;
		}
	}
	return 0;
}

static unsigned sdt_semaphore(void)
{
#ifdef HAVE_SDT
	return __atomic_load_n(&peers_usdt_u64x3_semaphore, __ATOMIC_RELAXED);
#else
	return 0;
#endif
}

int main(int argc, char **argv)
{
	unsigned (*semaphore)(void) = NULL;
	loop_fn *loop = loop_u64x3;
	double ns[MAX_REPS];
	uint64_t n;
	int reps;

	(void)loop_empty; /* loops.h's other loops are not timed here */
	if (argc != 4 || (n = strtoull(argv[2], NULL, 0)) < 1000 || (reps = atoi(argv[3])) < 1 ||
	    reps > MAX_REPS) {
		fprintf(stderr, "usage: usdt tpoint-off|tpoint|sdt|tpoint-hist|str|tpoint-lat|lat "
			"CALLS REPS\n");
		return 2;
	}
	if (!strcmp(argv[1], "tpoint")) {
		semaphore = tpoint_semaphore;
	} else if (!strcmp(argv[1], "sdt")) {
#ifdef HAVE_SDT
		semaphore = sdt_semaphore;
		loop = loop_sdt;
#else
		fprintf(stderr, "usdt: built without <sys/sdt.h>\n");
		return 1;
#endif
	} else if (!strcmp(argv[1], "tpoint-hist")) {
		int err = tpoint_set_trigger("bench:bench_str", "hist:keys=s");

		if (err < 0) {
			fprintf(stderr, "usdt: the hist trigger: %s\n", strerror(-err));
			return 1;
		}
		loop = loop_str;
	} else if (!strcmp(argv[1], "tpoint-lat")) {
		if (lat_triggers() < 0)
			return 1;
		loop = loop_lat;
	} else if (!strcmp(argv[1], "lat")) {
		semaphore = lat_semaphore;
		loop = loop_lat;
	} else if (!strcmp(argv[1], "str")) {
		semaphore = str_semaphore;
		loop = loop_str;
	} else if (strcmp(argv[1], "tpoint-off")) {
		fprintf(stderr, "usdt: '%s': expected tpoint-off, tpoint, sdt, tpoint-hist, str, "
			"tpoint-lat or lat\n", argv[1]);
		return 2;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (int i = 0; semaphore && !semaphore(); i++) {
		if (i == 6000) {
			fprintf(stderr, "usdt: no consumer attached within 60 s\n");
			return 1;
		}
		usleep(10000);
	}
	if (!semaphore && (tpoint_semaphore() || sdt_semaphore() || str_semaphore() ||
			   lat_semaphore())) {
		fprintf(stderr, "usdt: a consumer is attached: this is not the disabled cost\n");
		return 1;
	}
	time_batch(loop, n / 8 + 1, 1); /* warm-up */
	for (int r = 0; r < reps; r++)
		ns[r] = time_batch(loop, n, 1);
	struct summary s = summarise(ns, reps);

	printf("ns %.2f %.2f %.2f\n", s.med, s.min, s.max);
	return 0;
}
