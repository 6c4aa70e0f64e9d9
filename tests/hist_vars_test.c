// SPDX-License-Identifier: MIT
/*
 * hist_vars_test - the kernel's variables, expressions, onmatch() actions and synthetic
 * events (lib/hist_parse_vars.c, hist_synth.c, hist_vars.c, hist_set.c, hist_latency.c) on
 * their own: a start and an end event with known delays give a latency histogram checked
 * bucket by bucket; references are read once; each refusal has the kernel's words; threads
 * racing on start/end pairs (a start on one thread, its end on another) give exact totals.
 *
 * The texts follow the kernel's printing (trace_events_hist.c), as hist_test.c says, with
 * event_hist_trigger_print()'s variables (":" NAME=EXPR after the values, the expression as
 * expr_str() writes it) and print_onmatch_spec() (":onmatch(SYS.EVENT).trace(NAME,PARAMS)")
 * after ":clock=global" (a trigger that reads common_timestamp has it).
 */
#include "testutil.h"
#include <pthread.h>
#include "hist_set.h"

/* tpt:start {u32 id; char comm[16]} and tpt:end {u32 id; s32 status; char comm[16]}. */
static const struct filter_field start_fields[] = {
	{ "common_type", 0, 2, 0, FILTER_NUM },
	{ "common_flags", 2, 1, 0, FILTER_NUM },
	{ "common_preempt_count", 3, 1, 0, FILTER_NUM },
	{ "common_pid", 4, 4, 1, FILTER_NUM },
	{ "id", 8, 4, 0, FILTER_NUM },
	{ "comm", 12, 16, 0, FILTER_STR_ARRAY },
};
static const struct filter_field end_fields[] = {
	{ "common_type", 0, 2, 0, FILTER_NUM },
	{ "common_flags", 2, 1, 0, FILTER_NUM },
	{ "common_preempt_count", 3, 1, 0, FILTER_NUM },
	{ "common_pid", 4, 4, 1, FILTER_NUM },
	{ "id", 8, 4, 0, FILTER_NUM },
	{ "status", 12, 4, 1, FILTER_NUM },
	{ "comm", 16, 16, 0, FILTER_STR_ARRAY },
};
#define N(a) (sizeof(a) / sizeof((a)[0]))

struct ev {
	unsigned char b[32];
};

static struct ev rec(uint32_t id, int32_t status, const char *comm, bool end)
{
	struct ev e;
	int32_t pid = 42;

	memset(&e, 0, sizeof(e));
	memcpy(e.b + 4, &pid, 4);
	memcpy(e.b + 8, &id, 4);
	if (end)
		memcpy(e.b + 12, &status, 4);
	snprintf((char *)e.b + (end ? 16 : 12), 16, "%s", comm);
	return e;
}

static void hit(struct hist_set *set, struct hist_ctx *c, int event, struct ev e,
		uint64_t ts_ns)
{
	tp_hist_set_hit(set, c, event, &(struct hist_set_hit){ e.b, 32, 0, ts_ns, "t", NULL });
}

/* A trigger's histogram as text (tp_hist_print()), malloc'ed. */
static char *text_of(const struct hist_set *set, unsigned trigger)
{
	struct hist_table *t = tp_hist_set_table(set, trigger);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	tp_hist_print(f, t, 0, NULL);
	fclose(f);
	tp_hist_table_free(t);
	return buf;
}

static void check_text(const struct hist_set *set, unsigned trigger, const char *want)
{
	char *got = text_of(set, trigger);

	CHECK(!strcmp(got, want), "trigger %u:\n--- got\n%s--- want\n%s", trigger, got, want);
	free(got);
}

static void test_synth_defs(void)
{
	struct hist_synth s;
	struct hist_error e;

	tu_note("synthetic event definitions: types, layout, refusals");
	CHECK(!tp_hist_synth_parse("wakeup u64 lat; pid_t pid; char comm[16]; unsigned int cpu",
				   &s, &e), "%s", e.msg);
	CHECK(s.nfields == 4 && !strcmp(s.name, "wakeup"), "%u fields", s.nfields);
	/* synth_event_define_fields(): u64 slots from 8, a char[N] in 256 bytes. */
	CHECK(s.fields[0].offset == 8 && s.fields[0].size == 8 && !s.fields[0].is_signed, "lat");
	CHECK(s.fields[1].offset == 16 && s.fields[1].size == 4 && s.fields[1].is_signed, "pid");
	CHECK(s.fields[2].offset == 24 && s.fields[2].size == 16 && s.fields[2].is_string,
	      "comm at %u", s.fields[2].offset);
	CHECK(s.fields[3].offset == 280 && !strcmp(s.fields[3].type, "unsigned int") &&
		      !s.fields[3].is_signed, "cpu: %s at %u", s.fields[3].type, s.fields[3].offset);
	CHECK(s.rec_size == 288 && s.nfilter_fields == 8, "record %u", s.rec_size);
	/* The old form, several fields between semicolons, still works in the kernel. */
	CHECK(!tp_hist_synth_parse("old u64 lat s32 x", &s, &e) && s.nfields == 2, "%s", e.msg);

	static const struct {
		const char *def, *msg;
	} bad[] = {
		{ "bad-name u64 lat", "Illegal name at column 1: 'bad-name'" },
		{ "lat u65 x", "Invalid type at column 5: 'u65'" },
		{ "lat u64", "Command must be of the form: <name> field[;field] ..." },
		{ "lat u64 x; unsigned y", "Incomplete type at column 12: 'unsigned'" },
		{ "lat char s[300]", "Invalid array specification at column 10: 's[300]'" },
		{ "lat u64 9x", "Illegal name at column 9: '9x'" },
		{ "lat u64 x; u32", "Invalid field at column 12: 'u32'" },
	};
	for (size_t i = 0; i < N(bad); i++) {
		int ret = tp_hist_synth_parse(bad[i].def, &s, &e);

		CHECK(ret == -EINVAL && !strcmp(e.msg, bad[i].msg), "'%s': '%s', want '%s'",
		      bad[i].def, e.msg, bad[i].msg);
	}
}

/* A set of tpt:start, tpt:end and the synthetic events given. */
static struct hist_set *new_set(unsigned contexts, int *start, int *end)
{
	struct hist_set *set = tp_hist_set_new(contexts);

	*start = tp_hist_set_event(set, "tpt:start", start_fields, N(start_fields));
	*end = tp_hist_set_event(set, "tpt:end", end_fields, N(end_fields));
	return set;
}

static int add(struct hist_set *set, int event, const char *trigger)
{
	struct hist_error e;
	int t = tp_hist_set_trigger(set, event, trigger, &e);

	CHECK(t >= 0, "'%s': %s", trigger, e.msg);
	return t;
}

/* Delays in µs: each pair is start at T, end at T + delay (timestamps in ns). */
static const unsigned delays[] = { 3, 5, 7, 60, 100, 120, 250, 1000, 1500, 1900 };

static void test_latency(void)
{
	struct hist_error e;
	int start, end, syn;
	struct hist_set *set = new_set(1, &start, &end);
	struct hist_ctx *c = tp_hist_set_context(set);

	tu_note("latency: ts0 on the start, lat on the end, onmatch().trace() into a synthetic "
		"event, .log2 and .buckets bucket by bucket");
	syn = tp_hist_set_synthetic(set, "lat_ev u64 lat; char comm[16]", &e);
	CHECK(syn >= 0, "%s", e.msg);
	add(set, start, "hist:keys=id:ts0=common_timestamp.usecs");
	add(set, end, "hist:keys=id:lat=common_timestamp.usecs-$ts0:"
		      "onmatch(tpt.start).trace(lat_ev,$lat,comm)");
	add(set, syn, "hist:keys=comm,lat.log2:sort=comm,lat");
	add(set, syn, "hist:keys=lat.buckets=500:sort=lat");
	CHECK(!tp_hist_set_context(set), "one context, claimed");
	tp_hist_set_context_release(c);
	CHECK(tp_hist_set_context(set) == c, "a context given back is taken again");
	CHECK(tp_hist_set_needs_time(set, start) && tp_hist_set_needs_time(set, end) &&
		      !tp_hist_set_needs_time(set, syn) && !tp_hist_set_needs_cpu(set, end),
	      "which events read the clock, the CPU");

	uint64_t t0 = 1000000000;
	for (unsigned i = 0; i < N(delays); i++) {
		struct ev s = rec(i % 3, 0, "x", false);
		struct ev en = rec(i % 3, 0, i % 2 ? "odd" : "even", true);

		hit(set, c, start, s, t0);
		hit(set, c, end, en, t0 + delays[i] * 1000ull);
		t0 += 10000000;
	}
	/* An end with no start, and a second end of one start: read once, nothing made. */
	struct ev lone = rec(7, 0, "even", true), s = rec(1, 0, "x", false);

	hit(set, c, end, lone, t0);
	hit(set, c, start, s, t0 + 1000);
	hit(set, c, end, rec(1, 0, "even", true), t0 + 6000);   /* lat 5 */
	hit(set, c, end, rec(1, 0, "even", true), t0 + 9000);   /* nothing */

	check_text(set, 0,
		   "# event histogram\n#\n# trigger info: hist:keys=id:vals=hitcount:"
		   "ts0=common_timestamp.usecs:sort=hitcount:size=2048:clock=global [active]\n"
		   "#\n\n"
		   "{ id:          2 } hitcount:          3\n"
		   "{ id:          0 } hitcount:          4\n"
		   "{ id:          1 } hitcount:          4\n"
		   "\nTotals:\n    Hits: 11\n    Entries: 3\n    Dropped: 0\n");
	/* The end's hits are those whose $ts0 was set: 10 pairs and the late start's one. */
	check_text(set, 1,
		   "# event histogram\n#\n# trigger info: hist:keys=id:vals=hitcount:"
		   "lat=common_timestamp.usecs-$ts0:sort=hitcount:size=2048:clock=global:"
		   "onmatch(tpt.start).trace(lat_ev,$lat,comm) [active]\n#\n\n"
		   "{ id:          2 } hitcount:          3\n"
		   "{ id:          0 } hitcount:          4\n"
		   "{ id:          1 } hitcount:          4\n"
		   "\nTotals:\n    Hits: 11\n    Entries: 3\n    Dropped: 0\n");
	/*
	 * even: 3, 7, 100, 250, 1500 and the 5; odd: 5, 60, 120, 1000, 1900. log2 rounds up:
	 * 3 -> 2^2, 5 -> 2^3, 7 -> 2^3, 60 -> 2^6, 100, 120 -> 2^7, 250 -> 2^8, 1000 -> 2^10,
	 * 1500, 1900 -> 2^11.
	 */
	check_text(set, 2,
		   "# event histogram\n#\n# trigger info: hist:keys=comm,lat.log2:vals=hitcount:"
		   "sort=comm,lat.log2:size=2048 [active]\n#\n\n"
		   "{ comm: even                                              , lat: ~ 2^2  } "
		   "hitcount:          1\n"
		   "{ comm: even                                              , lat: ~ 2^3  } "
		   "hitcount:          2\n"
		   "{ comm: even                                              , lat: ~ 2^7  } "
		   "hitcount:          1\n"
		   "{ comm: even                                              , lat: ~ 2^8  } "
		   "hitcount:          1\n"
		   "{ comm: even                                              , lat: ~ 2^11 } "
		   "hitcount:          1\n"
		   "{ comm: odd                                               , lat: ~ 2^3  } "
		   "hitcount:          1\n"
		   "{ comm: odd                                               , lat: ~ 2^6  } "
		   "hitcount:          1\n"
		   "{ comm: odd                                               , lat: ~ 2^7  } "
		   "hitcount:          1\n"
		   "{ comm: odd                                               , lat: ~ 2^10 } "
		   "hitcount:          1\n"
		   "{ comm: odd                                               , lat: ~ 2^11 } "
		   "hitcount:          1\n"
		   "\nTotals:\n    Hits: 11\n    Entries: 10\n    Dropped: 0\n");
	check_text(set, 3,
		   "# event histogram\n#\n# trigger info: hist:keys=lat.buckets=500:vals=hitcount:"
		   "sort=lat.buckets=500:size=2048 [active]\n#\n\n"
		   "{ lat: ~ 0-499 } hitcount:          8\n"
		   "{ lat: ~ 1000-1499 } hitcount:          1\n"
		   "{ lat: ~ 1500-1999 } hitcount:          2\n"
		   "\nTotals:\n    Hits: 11\n    Entries: 3\n    Dropped: 0\n");
	tp_hist_set_free(set);
}

/* The kernel's older form, onmatch(sys.event).NAME(params), and a field of the start. */
static void test_old_form(void)
{
	struct hist_error e;
	int start, end, syn;
	struct hist_set *set = new_set(1, &start, &end);
	struct hist_ctx *c = tp_hist_set_context(set);

	tu_note("onmatch().NAME(params), a string saved on the start, a constant divisor");
	syn = tp_hist_set_synthetic(set, "slow u64 ms; char who[16]; s32 status", &e);
	CHECK(syn >= 0, "%s", e.msg);
	add(set, start, "hist:keys=id:t=common_timestamp,who=comm");
	add(set, end, "hist:keys=id:ms=common_timestamp/1000000-$t/1000000:"
		      "onmatch(tpt.start).slow($ms,$who,status)");
	add(set, syn, "hist:keys=who,status:vals=ms:sort=who");
	hit(set, c, start, rec(1, 0, "alice", false), 5000000000ull);
	hit(set, c, end, rec(1, -2, "zz", true), 5042000000ull);
	hit(set, c, start, rec(2, 0, "bob", false), 6000000000ull);
	hit(set, c, end, rec(2, 0, "zz", true), 6007000000ull);
	check_text(set, 2,
		   "# event histogram\n#\n# trigger info: hist:keys=who,status:vals=hitcount,ms:"
		   "sort=who:size=2048 [active]\n#\n\n"
		   "{ who: alice                                             , status: "
		   "18446744073709551614 } hitcount:          1  ms:         42\n"
		   "{ who: bob                                               , status:          0 }"
		   " hitcount:          1  ms:          7\n"
		   "\nTotals:\n    Hits: 2\n    Entries: 2\n    Dropped: 0\n");
	{
		const struct hist_spec *s = tp_hist_set_spec(set, 1);
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		tp_hist_spec_print(f, s, false);
		fclose(f);
		CHECK(!strcmp(buf, "hist:keys=id:vals=hitcount:ms=common_timestamp/1000000-$t/"
				   "1000000:sort=hitcount:size=2048:clock=global:"
				   "onmatch(tpt.start).slow($ms,$who,status) [active]\n"),
		      "%s", buf);
		free(buf);
	}
	tp_hist_set_free(set);
}

static void refused(const char *synth, const char *start_trigger, const char *end_trigger,
		    const char *msg)
{
	struct hist_error e;
	int start, end;
	struct hist_set *set = new_set(1, &start, &end);

	if (synth)
		CHECK(tp_hist_set_synthetic(set, synth, &e) >= 0, "%s", e.msg);
	if (start_trigger)
		add(set, start, start_trigger);
	CHECK(tp_hist_set_trigger(set, end, end_trigger, &e) < 0 && !strcmp(e.msg, msg),
	      "'%s': '%s', want '%s'", end_trigger, e.msg, msg);
	tp_hist_set_free(set);
}

static void test_refusals(void)
{
	const char *syn = "lat_ev u64 lat; char comm[16]", *ts = "hist:keys=id:ts0=common_timestamp.usecs";

	tu_note("refusals: the kernel's words, the column, the token");
	refused(syn, ts, "hist:keys=id:lat=common_timestamp.usecs-$nosuch",
		"Couldn't find variable at column 42: 'nosuch'");
	refused(syn, ts, "hist:keys=id:lat=common_timestamp.usecs-$ts0:"
			 "onmatch(tpt.start).trace(nosuch,$lat,comm)",
		"Couldn't find synthetic event at column 71: 'nosuch'");
	refused(syn, ts, "hist:keys=id:lat=common_timestamp.usecs-$ts0:"
			 "onmatch(tpt.start).trace(lat_ev,$lat)",
		"Param count doesn't match synthetic event field count at column 71: 'lat_ev'");
	refused(syn, ts, "hist:keys=id:lat=common_timestamp.usecs-$ts0:"
			 "onmatch(tpt.start).trace(lat_ev,comm,$lat)",
		/* The kernel's err_pos() finds a token's first occurrence: "comm" of common_... */
		"Param type doesn't match synthetic event field type at column 18: 'comm'");
	refused(syn, ts, "hist:keys=id:lat=common_timestamp.usecs-$ts0:"
			 "onmatch(tpt.nosuch).trace(lat_ev,$lat,comm)",
		"Invalid subsystem or event name at column 58: 'nosuch'");
	refused(syn, ts, "hist:keys=id:lat=common_timestamp.usecs-$ts0:"
			 "onmatch(tpt.start).trace(lat_ev,$lat,$nope)",
		"Couldn't find param at column 84: 'nope'");
	refused(syn, ts, "hist:keys=id:lat=common_timestamp.usecs-$ts0:"
			 "onmatch(tpt.start).trace(lat_ev,$lat,nofield)",
		"Couldn't parse field variable at column 83: 'nofield' is no field of tpt:end");
	refused(syn, ts, "hist:keys=id:lat=common_timestamp.usecs-$ts0:onmatch(tpt).trace(x)",
		"Missing subsystem at column 54: 'tpt'");
	refused(syn, ts, "hist:keys=id:lat=common_timestamp.usecs-$ts0:onmatch(tpt.start",
		"No closing paren found at column 54: 'tpt.start'");
	refused(NULL, ts, "hist:keys=id:lat=common_timestamp-$ts0",
		"Timestamp units in expression don't match");
	refused(NULL, NULL, "hist:keys=id:x=id+id+id+id+id", "Too many subexpressions (3 max) "
		"at column 16: 'id'");
	refused(NULL, NULL, "hist:keys=id:x=id/0", "Division by zero at column 19");
	refused(NULL, NULL, "hist:keys=id:x=comm+1",
		"String type can not be an operand in expression at column 16: 'comm'");
	refused(NULL, NULL, "hist:keys=id:x=id,x=status", "Variable already defined at column 19: 'x'");
	/*
	 * A variable defined by itself, through the action's parameter of the same name (the
	 * hist fuzzer's find: the type check followed the reference for ever). The kernel finds
	 * no variable of a trigger still being made: "Couldn't find variable", at the name's
	 * first occurrence, as its err_pos() finds it (the 'y' of "keys" below).
	 */
	refused(syn, ts, "hist:keys=id:x=$x:onmatch(tpt.start).trace(lat_ev,$x,comm)",
		"Couldn't find variable at column 14: 'x'");
	refused(syn, ts, "hist:keys=id:x=$y+1,y=$x:onmatch(tpt.start).trace(lat_ev,$x,comm)",
		"Couldn't find variable at column 8: 'y'");
	refused(NULL, NULL, "hist:keys=id:x", "Unknown hist attribute at column 14: 'x'");
	refused(NULL, NULL, "hist:keys=id:x=", "Empty assignment at column 14: 'x='");
	refused(NULL, NULL, "hist:keys=id:x=id,y", "Malformed assignment at column 19: 'y'");
	refused(NULL, NULL, "hist:keys=id:x=id.log2", "Invalid field modifier at column 16: "
		"'id.log2' as a variable");
	refused(NULL, NULL, "hist:keys=id:onmax($x).save(id)",
		"Not supported yet at column 14: handler 'onmax'");
	/* Two triggers of an event may not define one name (find_var()). */
	{
		struct hist_error e;
		int start, end;
		struct hist_set *set = new_set(1, &start, &end);

		add(set, end, "hist:keys=id:x=id");
		CHECK(tp_hist_set_trigger(set, end, "hist:keys=status:x=status", &e) < 0 &&
			      !strcmp(e.msg, "Variable already defined at column 18: 'x'"),
		      "%s", e.msg);
		/* The same name on two events, and a reference without system.event. */
		add(set, start, "hist:keys=id:x=id");
		CHECK(tp_hist_set_trigger(set, end, "hist:keys=id:y=$x+1", &e) < 0 &&
			      !strncmp(e.msg, "Variable name not unique", 24),
		      "%s", e.msg);
		CHECK(tp_hist_set_trigger(set, end, "hist:keys=id:y=tpt.start.$x+1", &e) >= 0,
		      "system.event.$x: %s", e.msg);
		tp_hist_set_free(set);
	}
}

/* ---- threads: starts on some, their ends on others ---- */

#define PAIRS 20000
#define PRODUCERS 3
#define INFLIGHT 128

struct lane {
	struct hist_set *set;
	int start, end;
	unsigned p;
	uint32_t ring[INFLIGHT];
	unsigned head, tail; /* head: the producer's, tail: the consumer's */
};

static void *producer(void *arg)
{
	struct lane *l = arg;
	struct hist_ctx *c = tp_hist_set_context(l->set);

	for (unsigned i = 0; i < PAIRS; i++) {
		uint32_t id = l->p * 1000 + i % 256;

		while (__atomic_load_n(&l->head, __ATOMIC_RELAXED) -
			       __atomic_load_n(&l->tail, __ATOMIC_ACQUIRE) >= INFLIGHT)
			sched_yield();
		hit(l->set, c, l->start, rec(id, 0, "s", false), (uint64_t)i * 1000000);
		l->ring[l->head % INFLIGHT] = i;
		__atomic_store_n(&l->head, l->head + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void *consumer(void *arg)
{
	struct lane *l = arg;
	struct hist_ctx *c = tp_hist_set_context(l->set);

	for (unsigned n = 0; n < PAIRS; n++) {
		unsigned i;

		while (__atomic_load_n(&l->head, __ATOMIC_ACQUIRE) == l->tail)
			sched_yield();
		i = l->ring[l->tail % INFLIGHT];
		/* Latency (i % 4 + 1) * 10 µs, from the start's i ms. */
		hit(l->set, c, l->end, rec(l->p * 1000 + i % 256, 0, "e", true),
		    (uint64_t)i * 1000000 + (i % 4 + 1) * 10000);
		__atomic_store_n(&l->tail, l->tail + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void test_threads(void)
{
	struct hist_error e;
	int start, end, syn;
	struct hist_set *set = new_set(2 * PRODUCERS, &start, &end);
	struct lane lanes[PRODUCERS];
	pthread_t th[2 * PRODUCERS];
	char want[1024];

	tu_note("threads: %d producers start, %d consumers end, %d pairs each", PRODUCERS,
		PRODUCERS, PAIRS);
	syn = tp_hist_set_synthetic(set, "lat_ev u64 lat", &e);
	add(set, start, "hist:keys=id:ts0=common_timestamp.usecs");
	add(set, end, "hist:keys=id:lat=common_timestamp.usecs-$ts0:"
		      "onmatch(tpt.start).trace(lat_ev,$lat)");
	add(set, syn, "hist:keys=lat:sort=lat");
	for (unsigned p = 0; p < PRODUCERS; p++) {
		lanes[p] = (struct lane){ .set = set, .start = start, .end = end, .p = p };
		pthread_create(&th[2 * p], NULL, producer, &lanes[p]);
		pthread_create(&th[2 * p + 1], NULL, consumer, &lanes[p]);
	}
	for (unsigned i = 0; i < 2 * PRODUCERS; i++)
		pthread_join(th[i], NULL);
	snprintf(want, sizeof(want),
		 "# event histogram\n#\n# trigger info: hist:keys=lat:vals=hitcount:sort=lat:"
		 "size=2048 [active]\n#\n\n"
		 "{ lat:         10 } hitcount: %10u\n{ lat:         20 } hitcount: %10u\n"
		 "{ lat:         30 } hitcount: %10u\n{ lat:         40 } hitcount: %10u\n"
		 "\nTotals:\n    Hits: %u\n    Entries: 4\n    Dropped: 0\n",
		 PRODUCERS * PAIRS / 4, PRODUCERS * PAIRS / 4, PRODUCERS * PAIRS / 4,
		 PRODUCERS * PAIRS / 4, PRODUCERS * PAIRS);
	check_text(set, 2, want);
	CHECK(tp_hist_set_var_drops(set, 0) == 0, "variable drops");
	tp_hist_set_free(set);
}

static char synth[256], triggers[1024], err[256];

static int expand(const char *pair, const char *key, const char *by)
{
	return tp_hist_latency_expand(pair, key, by, start_fields, N(start_fields), end_fields,
				      N(end_fields), synth, sizeof(synth), triggers,
				      sizeof(triggers), err, sizeof(err));
}

static void test_latency_expand(void)
{
	tu_note("--latency's expansion");
	CHECK(!expand("tpt:start,tpt:end", "id", NULL), "%s", err);
	CHECK(!strcmp(synth, "latency u64 lat"), "%s", synth);
	CHECK(!strcmp(triggers, "tpt:start:hist:keys=id:ts0=common_timestamp.usecs;"
				"tpt:end:hist:keys=id:lat=common_timestamp.usecs-$ts0:"
				"onmatch(tpt.start).trace(latency,$lat);"
				"synthetic:latency:hist:keys=lat.log2:sort=lat"),
	      "%s", triggers);
	CHECK(!expand("tpt:start,tpt:end", "id", "status"), "%s", err);
	CHECK(!strcmp(synth, "latency u64 lat; s32 status"), "%s", synth);
	CHECK(!strcmp(triggers, "tpt:start:hist:keys=id:ts0=common_timestamp.usecs;"
				"tpt:end:hist:keys=id:lat=common_timestamp.usecs-$ts0:"
				"onmatch(tpt.start).trace(latency,$lat,status);"
				"synthetic:latency:hist:keys=status,lat.log2:sort=status,lat"),
	      "%s", triggers);
	CHECK(expand("tpt:start", "id", NULL) < 0 &&
		      !strcmp(err, "--latency 'tpt:start': expected SYSTEM:START,SYSTEM:END"),
	      "%s", err);
	CHECK(expand("tpt:start,tpt:end", "status", NULL) < 0 &&
		      !strcmp(err, "--key 'status': not a field of both events"), "%s", err);
	CHECK(expand("tpt:start,tpt:end", "id", "nosuch") < 0 &&
		      !strcmp(err, "--by 'nosuch': not a field of either event"), "%s", err);
}

int main(void)
{
	test_synth_defs();
	test_latency();
	test_old_form();
	test_refusals();
	test_threads();
	test_latency_expand();
	return tu_finish();
}
