// SPDX-License-Identifier: MIT
/*
 * hist_test - the histograms (lib/hist_*.c) on their own: the kernel's hist: trigger grammar
 * and each of its refusals, aggregation over records of known distributions, and the text
 * the kernel's `hist` file would show for them.
 *
 * The expected texts are written out in full. Each follows from the kernel's printing code
 * (kernel/trace/trace_events_hist.c), which the comments quote:
 *	hist_trigger_show():	"# event histogram\n#\n# trigger info: " INFO "#\n\n" ENTRIES
 *				"\nTotals:\n    Hits: %llu\n    Entries: %u\n    Dropped: %llu\n"
 *	event_hist_trigger_print():	"hist:" [name=N:] "keys=" K ":vals=hitcount" [,V]
 *				":sort=" S ":size=%u" [":clock=%s"] [" if %s"] " [active]\n"
 *	hist_trigger_print_key():	"{ " then per key "%s: %10llu" (number), "%s: %-50s"
 *				(string), "%s: %llx" (.hex), "%s: ~ 2^%-2llu" (.log2),
 *				"%s: ~ %llu-%llu" (.buckets), "%s: %-16s[%10llu]" (.execname),
 *				"%s: [%llx] %-45ps" (.sym), keys joined by ", ", then " }"
 *	hist_trigger_entry_print():	" hitcount: %10llu", then per value " " and
 *				hist_trigger_print_val(): " %s: %10llu", " %s (%%): %3u.%02u"
 *				(.percent), " %s: %20s" (.graph, 20 columns of '#' by val / max)
 * so a value's column starts with two blanks: "  bytes:        900".
 */
#include "testutil.h"
#include <pthread.h>
#include "hist.h"

/* The event of every check: tpt:req, laid out as a trace.dat format would say. */
#define OFF_ID 8     /* u32 id */
#define OFF_BYTES 16 /* u64 bytes */
#define OFF_DELTA 24 /* s32 delta */
#define OFF_COMM 28  /* char comm[16] */
#define OFF_PATH 44  /* __data_loc char[] path */
#define OFF_DATA 48  /* where the path's bytes go */

static const struct filter_field fields[] = {
	{ "common_type", 0, 2, 0, FILTER_NUM },
	{ "common_flags", 2, 1, 0, FILTER_NUM },
	{ "common_preempt_count", 3, 1, 0, FILTER_NUM },
	{ "common_pid", 4, 4, 1, FILTER_NUM },
	{ "id", OFF_ID, 4, 0, FILTER_NUM },
	{ "bytes", OFF_BYTES, 8, 0, FILTER_NUM },
	{ "delta", OFF_DELTA, 4, 1, FILTER_NUM },
	{ "comm", OFF_COMM, 16, 0, FILTER_STR_ARRAY },
	{ "path", OFF_PATH, 4, 0, FILTER_STR_DYN },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

struct rec {
	int32_t pid;
	uint32_t id;
	uint64_t bytes;
	int32_t delta;
	const char *comm, *path;
};

static unsigned char recbuf[1024];

/* The record's bytes into recbuf; its size. */
static uint32_t make(const struct rec *r)
{
	uint32_t len = (uint32_t)strlen(r->path ? r->path : "") + 1, loc = OFF_DATA | len << 16;

	memset(recbuf, 0, sizeof(recbuf));
	memcpy(recbuf + 4, &r->pid, 4);
	memcpy(recbuf + OFF_ID, &r->id, 4);
	memcpy(recbuf + OFF_BYTES, &r->bytes, 8);
	memcpy(recbuf + OFF_DELTA, &r->delta, 4);
	if (r->comm)
		memcpy(recbuf + OFF_COMM, r->comm, strnlen(r->comm, 16));
	memcpy(recbuf + OFF_PATH, &loc, 4);
	memcpy(recbuf + OFF_DATA, r->path ? r->path : "", len);
	return OFF_DATA + len;
}

static int hit_at(struct hist_table *t, const struct rec *r, uint32_t cpu, uint64_t ts,
		  const char *thread)
{
	struct hist_hit h = { recbuf, make(r), cpu, ts, thread, NULL };

	return tp_hist_hit(t, &h);
}

static int hit(struct hist_table *t, const struct rec *r)
{
	return hit_at(t, r, 0, 0, "tester");
}

static struct hist_spec *parse_ok(const char *trigger)
{
	struct hist_spec *s = NULL;
	struct hist_error e;
	int ret = tp_hist_parse(trigger, "tpt:req", fields, NFIELDS, &s, &e);

	CHECK(ret == 0 && s, "'%s' refused: %s", trigger, e.msg);
	return s;
}

/* A table for a trigger that must parse; done() frees both. */
static struct hist_table *table_for(const char *trigger)
{
	struct hist_spec *s = parse_ok(trigger);
	struct hist_table *t;

	REQUIRE(s, "no spec for '%s'", trigger);
	t = tp_hist_table_new(s);
	REQUIRE(t, "no table for '%s'", trigger);
	return t;
}

static void done(struct hist_table *t)
{
	struct hist_spec *s = (struct hist_spec *)tp_hist_table_spec(t);

	tp_hist_table_free(t);
	tp_hist_spec_free(s);
}

static char *info_of(const struct hist_spec *s, bool paused)
{
	char *text = NULL;
	size_t len;
	FILE *m = open_memstream(&text, &len);

	tp_hist_spec_print(m, s, paused);
	fclose(m);
	return text;
}

/* The trigger as the kernel would show it back. */
static void info(const char *trigger, const char *want)
{
	struct hist_spec *s = parse_ok(trigger);
	char *got;

	if (!s)
		return;
	got = info_of(s, false);
	CHECK(!strcmp(got, want), "'%s' shows\n  '%s', want\n  '%s'", trigger, got, want);
	free(got);
	tp_hist_spec_free(s);
}

/* A refusal: its code, its column and its whole message. */
static void refused(const char *trigger, enum hist_err code, unsigned column, const char *msg)
{
	struct hist_spec *s = NULL;
	struct hist_error e;
	int ret = tp_hist_parse(trigger, "tpt:req", fields, NFIELDS, &s, &e);

	CHECK(ret == -EINVAL && !s, "'%s' not refused (%d)", trigger, ret);
	CHECK(e.code == code && e.column == column && !strcmp(e.msg, msg),
	      "'%s': code %d column %u '%s', want %d %u '%s'", trigger, e.code, e.column, e.msg,
	      code, column, msg);
	tp_hist_spec_free(s);
}

/* The table's text (or its JSON), as a string to compare. */
static char *capture(const struct hist_table *t, const struct hist_names *nm, bool json)
{
	char *text = NULL;
	size_t len;
	FILE *m = open_memstream(&text, &len);
	int ret = json ? tp_hist_print_json(m, t, nm) : tp_hist_print(m, t, 0, nm);

	CHECK(ret == 0, "printing failed");
	fclose(m);
	return text;
}

static char *text_of(const struct hist_table *t, const struct hist_names *nm)
{
	return capture(t, nm, false);
}

static char *json_of(const struct hist_table *t, const struct hist_names *nm)
{
	return capture(t, nm, true);
}

static void same_text(const char *what, char *got, const char *want)
{
	CHECK(!strcmp(got, want), "%s: got\n%s\nwant\n%s", what, got, want);
	free(got);
}

/* The header of hist_trigger_show() around a trigger info line. */
#define HEAD(infoline) "# event histogram\n#\n# trigger info: " infoline "\n#\n\n"
#define TOTALS(h, e, d) "\nTotals:\n    Hits: " #h "\n    Entries: " #e "\n    Dropped: " #d "\n"

static void test_grammar(void)
{
	/* Defaults: vals=hitcount, sort=hitcount, size=2048 (TRACING_MAP_BITS_DEFAULT 11). */
	info("hist:keys=common_pid",
	     "hist:keys=common_pid:vals=hitcount:sort=hitcount:size=2048 [active]\n");
	info("hist:key=id:values=bytes:sort=bytes.descending",
	     "hist:keys=id:vals=hitcount,bytes:sort=bytes.descending:size=2048 [active]\n");
	info("hist:keys=id:val=hitcount,bytes:sort=id.ascending",
	     "hist:keys=id:vals=hitcount,bytes:sort=id:size=2048 [active]\n");
	/* size= rounds up to a power of two: parse_map_size(). */
	info("hist:keys=id:size=1000",
	     "hist:keys=id:vals=hitcount:sort=hitcount:size=1024 [active]\n");
	info("hist:keys=id:size=100",
	     "hist:keys=id:vals=hitcount:sort=hitcount:size=128 [active]\n");
	info("hist:keys=id:size=0x100",
	     "hist:keys=id:vals=hitcount:sort=hitcount:size=256 [active]\n");
	info("hist:keys=id:size=131072",
	     "hist:keys=id:vals=hitcount:sort=hitcount:size=131072 [active]\n");
	info("hist:name=foo:keys=id",
	     "hist:name=foo:keys=id:vals=hitcount:sort=hitcount:size=2048 [active]\n");
	/* Modifiers as get_hist_field_flags() names them; common_cpu for "cpu". */
	info("hist:keys=common_pid.execname,id.hex,cpu:vals=bytes.percent,bytes.graph",
	     "hist:keys=common_pid.execname,id.hex,common_cpu:vals=hitcount,bytes.percent,"
	     "bytes.graph:sort=hitcount:size=2048 [active]\n");
	info("hist:keys=bytes.buckets=100:sort=bytes",
	     "hist:keys=bytes.buckets=100:vals=hitcount:sort=bytes.buckets=100"
	     ":size=2048 [active]\n");
	info("hist:keys=bytes.log2,id.sym,delta.sym-offset",
	     "hist:keys=bytes.log2,id.sym,delta.sym-offset:vals=hitcount:sort=hitcount"
	     ":size=2048 [active]\n");
	info("hist:keys=id.syscall:vals=hitcount.percent:sort=hitcount.descending",
	     "hist:keys=id.syscall:vals=hitcount,hitcount.percent:sort=hitcount.descending"
	     ":size=2048 [active]\n");
	/* A timestamp adds :clock=; nohitcount leaves hitcount out of vals=. */
	info("hist:keys=common_timestamp.usecs:vals=bytes:nohitcount",
	     "hist:keys=common_timestamp.usecs:vals=bytes:sort=hitcount:size=2048:clock=global"
	     ":nohitcount [active]\n");
	info("hist:keys=comm,path:sort=comm,hitcount.descending if bytes > 10 && comm ~ \"a*\"",
	     "hist:keys=comm,path:vals=hitcount:sort=comm,hitcount.descending:size=2048 if bytes "
	     "> 10 && comm ~ \"a*\" [active]\n");
	/* A plain hitcount in vals= is the one that is always there. */
	info("hist:keys=id:vals=bytes,hitcount",
	     "hist:keys=id:vals=hitcount,bytes:sort=hitcount:size=2048 [active]\n");

	struct hist_spec *s = parse_ok("!hist:keys=id:pause");

	if (s) {
		CHECK(s->remove && s->pause && !s->cont && !s->clear, "!hist / pause");
		tp_hist_spec_free(s);
	}
	s = parse_ok("hist:keys=id:cont:clear");
	if (s) {
		CHECK(s->cont && s->clear, "cont, clear");
		tp_hist_spec_free(s);
	}
	s = parse_ok("hist:keys=cpu:vals=bytes");
	if (s) {
		CHECK(s->cpu && !s->timestamps, "what a hit must bring: its CPU, not its time");
		tp_hist_spec_free(s);
	}
	s = parse_ok("hist:keys=id:vals=common_timestamp");
	if (s) {
		CHECK(!s->cpu && s->timestamps && !s->ts_usecs, "its time, not its CPU");
		tp_hist_spec_free(s);
	}
	s = parse_ok("hist:keys=id:continue");
	if (s) {
		CHECK(s->cont, "continue");
		tp_hist_spec_free(s);
	}
	tu_note("the grammar: keys, vals, sort, size, name, modifiers, flags, filter");
}

static void test_refusals(void)
{
	/* Columns are 1-based in the text as given; the kernel's words come first. */
	refused("keys=id", HIST_ERR_NOT_HIST, 1,
		"Not a hist trigger (expected 'hist:') at column 1");
	refused("hist:keys=nosuch", HIST_ERR_FIELD_NOT_FOUND, 11,
		"Couldn't find field at column 11: 'nosuch'");
	refused("hist:keys=id:vals=bytez", HIST_ERR_FIELD_NOT_FOUND, 19,
		"Couldn't find field at column 19: 'bytez'");
	refused("hist:keys=id.bogus", HIST_ERR_BAD_FIELD_MODIFIER, 14,
		"Invalid field modifier at column 14: 'bogus'");
	refused("hist:keys=id.execname", HIST_ERR_BAD_FIELD_MODIFIER, 14,
		"Invalid field modifier at column 14: 'execname'");
	refused("hist:keys=id.percent", HIST_ERR_BAD_FIELD_MODIFIER, 14,
		"Invalid field modifier at column 14: 'percent'");
	refused("hist:keys=id.buckets=0", HIST_ERR_BAD_FIELD_MODIFIER, 14,
		"Invalid field modifier at column 14: 'buckets=0'");
	refused("hist:keys=id.buckets=x", HIST_ERR_BAD_FIELD_MODIFIER, 14,
		"Invalid field modifier at column 14: 'buckets=x'");
	refused("hist:keys=id:vals=bytes.log2", HIST_ERR_BAD_FIELD_MODIFIER, 19,
		"Invalid field modifier at column 19: 'bytes.log2' as a value");
	refused("hist:keys=comm.log2", HIST_ERR_BAD_FIELD_MODIFIER, 16,
		"Invalid field modifier at column 16: 'log2' on string field 'comm'");
	refused("hist:keys=id:vals=comm", HIST_ERR_STRING_VAL, 19,
		"String type can not be a value (only keys) at column 19: 'comm'");
	refused("hist:keys=", HIST_ERR_EMPTY_ASSIGNMENT, 6, "Empty assignment at column 6: 'keys='");
	refused("hist:vals=bytes", HIST_ERR_NO_KEYS, 0,
		"No keys (a hist trigger needs keys=FIELD[,FIELD...])");
	refused("hist:keys=id,bytes,delta,comm", HIST_ERR_TOO_MANY_KEYS, 26,
		"Too many keys (Max = 3) at column 26: 'comm'");
	refused("hist:keys=id:vals=bytes,delta,id", HIST_ERR_TOO_MANY_VALS, 31,
		"Too many values (Max = 2, besides hitcount) at column 31: 'id'");
	refused("hist:keys=path,path", HIST_ERR_KEY_TOO_LARGE, 16,
		"Keys too large (Max = 384 bytes together) at column 16: 'path'");
	refused("hist:keys=id:sort=bytes", HIST_ERR_INVALID_SORT_FIELD, 19,
		"Sort field must be a key or a val at column 19: 'bytes'");
	refused("hist:keys=id:sort=id.up", HIST_ERR_INVALID_SORT_MODIFIER, 22,
		"Invalid sort modifier at column 22: 'up'");
	refused("hist:keys=id:sort=id,hitcount,id", HIST_ERR_TOO_MANY_SORT_FIELDS, 14,
		"Too many sort fields (Max = 2) at column 14");
	refused("hist:keys=id:sort=,id", HIST_ERR_EMPTY_SORT_FIELD, 14,
		"Empty sort field at column 14");
	refused("hist:keys=id:size=64", HIST_ERR_BAD_SIZE, 19,
		"Invalid size (a number from 128 to 131072, rounded up to a power of two) at "
		"column 19: '64'");
	refused("hist:keys=id:size=131073", HIST_ERR_BAD_SIZE, 19,
		"Invalid size (a number from 128 to 131072, rounded up to a power of two) at "
		"column 19: '131073'");
	refused("hist:keys=id:nohitcount", HIST_ERR_NEED_NOHC_VAL, 0,
		"Non-hitcount value is required for 'nohitcount'");
	refused("hist:keys=$ts0", HIST_ERR_INVALID_REF_KEY, 11,
		"Using variable references in keys not supported at column 11: '$ts0'");
	refused("hist:keys=id:bogus", HIST_ERR_UNKNOWN_ATTR, 14,
		"Unknown hist attribute at column 14: 'bogus'");
	/* Variables, expressions and onmatch() are hist_vars_test.c's; these stay refused. */
	refused("hist:keys=id:onmax($x).save(id)", HIST_ERR_UNSUPPORTED, 14,
		"Not supported yet at column 14: handler 'onmax'");
	refused("hist:keys=id+bytes", HIST_ERR_UNSUPPORTED, 11,
		"Not supported yet at column 11: expression 'id+bytes' as a key");
	refused("hist:keys=common_stacktrace", HIST_ERR_UNSUPPORTED, 11,
		"Not supported yet at column 11: 'common_stacktrace' (no kernel stacks here)");
	refused("hist:keys=id if", HIST_ERR_BAD_FILTER, 6,
		"Invalid filter at column 6: 'if' with no filter after it");
	refused("hist:keys=id if nosuch == 1", HIST_ERR_BAD_FILTER, 17,
		"Invalid filter at column 17: no field 'nosuch' in tpt:req; fields"
		": common_pid, id, "
		"bytes, delta, comm, path");
	/* The registrar's refusals, in the kernel's words too. */
	CHECK(!strcmp(tp_hist_err_text(HIST_ERR_TRIGGER_ENOENT_CLEAR),
		      "Can't clear or continue a nonexistent hist trigger") &&
		      !strcmp(tp_hist_err_text(HIST_ERR_TRIGGER_EEXIST), "Hist trigger already exists") &&
		      !strcmp(tp_hist_err_text((enum hist_err)999), "Unknown error"),
	      "tp_hist_err_text()");
	tu_note("every refusal: the kernel's words, the column and the token");
}

/* keys=common_pid:vals=bytes:sort=bytes.descending over pids 10, 20, 30 hit 1, 2, 3 times. */
static void test_sum_and_sort(void)
{
	struct hist_table *t = table_for("hist:keys=common_pid:vals=bytes:sort=bytes.descending");

	for (int32_t pid = 10; pid <= 30; pid += 10)
		for (int i = 0; i < pid / 10; i++)
			CHECK(hit(t, &(struct rec){ .pid = pid, .bytes = (uint64_t)pid * 10 }) == 1,
			      "hit");
	/* bytes: pid 30 has 3 * 300, pid 20 2 * 200, pid 10 100: that order, descending. */
	same_text("sum and sort", text_of(t, NULL),
		  HEAD("hist:keys=common_pid:vals=hitcount,bytes:sort=bytes.descending"
		       ":size=2048 [active]")
		  "{ common_pid:         30 } hitcount:          3  bytes:        900\n"
		  "{ common_pid:         20 } hitcount:          2  bytes:        400\n"
		  "{ common_pid:         10 } hitcount:          1  bytes:        100\n"
		  TOTALS(6, 3, 0));
	same_text("json", json_of(t, NULL),
		  "{\"event\": \"tpt:req\", "
		  "\"trigger\": \"hist:keys=common_pid:vals=hitcount,bytes"
		  ":sort=bytes.descending:size=2048 [active]\", \"name\": null, "
		  "\"paused\": false, \"size\": 2048, \"keys\": [{\"field\": \"common_pid\", "
		  "\"modifier\": null}], \"values\": [\"hitcount\", \"bytes\"], "
		  "\"entries\": [{\"key\": {\"common_pid\": 30}, \"values\": {\"hitcount\": 3, "
		  "\"bytes\": 900}}, {\"key\": {\"common_pid\": 20}, "
		  "\"values\": {\"hitcount\": 2, \"bytes\": 400}}, "
		  "{\"key\": {\"common_pid\": 10}, \"values\": {\"hitcount\": 1, "
		  "\"bytes\": 100}}], \"totals\": {\"hits\": 6, \"entries\": 3, "
		  "\"dropped\": 0}}\n");
	/* :pause stops counting and shows [paused]; :clear empties. */
	tp_hist_table_pause(t, true);
	CHECK(hit(t, &(struct rec){ .pid = 10, .bytes = 5 }) == 0, "counted while paused");
	CHECK(tp_hist_table_hits(t) == 6, "hits %llu", (unsigned long long)tp_hist_table_hits(t));
	char *text = text_of(t, NULL);

	CHECK(strstr(text, "size=2048 [paused]\n"), "not shown paused: %s", text);
	free(text);
	tp_hist_table_pause(t, false);
	tp_hist_table_clear(t);
	same_text("cleared", text_of(t, NULL),
		  HEAD("hist:keys=common_pid:vals=hitcount,bytes:sort=bytes.descending"
		       ":size=2048 [active]")
		  TOTALS(0, 0, 0));
	done(t);
	tu_note("sums, descending sort, JSON, pause, clear");
}

/* Two keys, one a char[16] string; a second sort key among equal hitcounts. */
static void test_strings(void)
{
	struct hist_table *t = table_for("hist:keys=comm,id:sort=hitcount.descending,id.descending");
	char pad[64];

	for (int i = 0; i < 3; i++)
		hit(t, &(struct rec){ .id = 1, .comm = "alpha" });
	for (int i = 0; i < 2; i++)
		hit(t, &(struct rec){ .id = 1, .comm = "beta" });
	hit(t, &(struct rec){ .id = 2, .comm = "alpha" });
	hit(t, &(struct rec){ .id = 3, .comm = "alpha" });
	/* 16 bytes without a NUL: add_to_key() keeps the room less one, 15 bytes. */
	hit(t, &(struct rec){ .id = 9, .comm = "0123456789abcdef" });
	hit(t, &(struct rec){ .id = 9, .comm = "0123456789abcdeX" });
	/* "%s: %-50s": the string padded to 50 columns, then ", " and the next key. */
	snprintf(pad, sizeof(pad), "%-50s", "alpha");
	char want[2048];

	snprintf(want, sizeof(want),
		 HEAD("hist:keys=comm,id:vals=hitcount:sort=hitcount.descending,id.descending"
		      ":size=2048 [active]")
		 "{ comm: %-50s, id:          1 } hitcount:          3\n"
		 "{ comm: %-50s, id:          9 } hitcount:          2\n"
		 "{ comm: %-50s, id:          1 } hitcount:          2\n"
		 "{ comm: %-50s, id:          3 } hitcount:          1\n"
		 "{ comm: %-50s, id:          2 } hitcount:          1\n" TOTALS(9, 5, 0),
		 "alpha", "0123456789abcde", "beta", "alpha", "alpha");
	same_text("strings", text_of(t, NULL), want);
	done(t);

	/* __data_loc strings: cut at 255 bytes (MAX_FILTER_STR_VAL less one), sorted by name. */
	t = table_for("hist:keys=path:sort=path");
	char longpath[400];

	memset(longpath, 'x', sizeof(longpath) - 1);
	longpath[sizeof(longpath) - 1] = 0;
	hit(t, &(struct rec){ .path = "/bb" });
	hit(t, &(struct rec){ .path = "/a" });
	hit(t, &(struct rec){ .path = "/a" });
	hit(t, &(struct rec){ .path = longpath });
	longpath[300] = 0; /* the same first 255 bytes: the same key */
	hit(t, &(struct rec){ .path = longpath });
	longpath[255] = 0;
	snprintf(want, sizeof(want),
		 HEAD("hist:keys=path:vals=hitcount:sort=path:size=2048 [active]")
		 "{ path: %-50s } hitcount:          2\n"
		 "{ path: %-50s } hitcount:          1\n"
		 "{ path: %-50s } hitcount:          2\n" TOTALS(5, 3, 0),
		 "/a", "/bb", longpath);
	same_text("data_loc strings", text_of(t, NULL), want);
	done(t);
	tu_note("char[16] and __data_loc keys, cut as the kernel cuts them; two sort keys");
}

/* size=128 and 200 keys, each hit twice: the first 128 keys get entries, the rest drop. */
static void test_overflow(void)
{
	struct hist_table *t = table_for("hist:keys=id:size=128");
	int dropped = 0, counted = 0;

	for (int round = 0; round < 2; round++)
		for (uint32_t id = 0; id < 200; id++) {
			int r = hit(t, &(struct rec){ .id = id });

			dropped += r < 0;
			counted += r > 0;
		}
	CHECK(counted == 256 && dropped == 144, "counted %d dropped %d", counted, dropped);
	CHECK(tp_hist_table_entries(t) == 128, "entries %u", tp_hist_table_entries(t));
	char *text = text_of(t, NULL);

	CHECK(strstr(text, TOTALS(256, 128, 144)), "totals: %s", strstr(text, "\nTotals"));
	CHECK(strstr(text, "{ id:        127 } hitcount:          2\n") &&
		      !strstr(text, "{ id:        128 }"),
	      "the first 128 keys are the ones kept");
	free(text);

	/* Merging two per-thread tables into a small one: what finds no room drops whole. */
	const struct hist_spec *s = tp_hist_table_spec(t);
	struct hist_table *a = tp_hist_table_new(s), *b = tp_hist_table_new(s),
			  *m = tp_hist_table_new(s);

	REQUIRE(a && b && m, "no tables");
	for (uint32_t id = 0; id < 100; id++) {
		hit(a, &(struct rec){ .id = id });
		hit(b, &(struct rec){ .id = id + 50 }); /* 50..149: 50 shared */
		hit(b, &(struct rec){ .id = id + 50 });
	}
	tp_hist_table_merge(m, a);
	tp_hist_table_merge(m, b);
	/* a fills 100 entries; b's 50..99 join them, 100..127 take the last 28, 128..149 drop. */
	CHECK(tp_hist_table_entries(m) == 128 && tp_hist_table_hits(m) == 300 - 22 * 2 &&
		      tp_hist_table_drops(m) == 22 * 2,
	      "merged: %u entries, %llu hits, %llu drops", tp_hist_table_entries(m),
	      (unsigned long long)tp_hist_table_hits(m), (unsigned long long)tp_hist_table_drops(m));
	text = text_of(m, NULL);
	CHECK(strstr(text, "{ id:         60 } hitcount:          3\n") &&
		      strstr(text, "{ id:         10 } hitcount:          1\n") &&
		      strstr(text, "{ id:        120 } hitcount:          2\n"),
	      "merged sums: %s", text);
	free(text);
	tp_hist_table_free(a);
	tp_hist_table_free(b);
	tp_hist_table_free(m);
	done(t);
	tu_note("size overflow: drops exact; merge adds and drops what finds no room");
}

/* .log2 and .buckets: each value in the bucket the kernel's arithmetic puts it. */
static void test_buckets(void)
{
	static const uint64_t values[] = { 0, 1, 2, 3, 4, 5, 8, 9, 1000 };
	struct hist_table *t = table_for("hist:keys=bytes.log2:sort=bytes");

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		hit(t, &(struct rec){ .bytes = values[i] });
	/* ilog2(roundup_pow_of_two(v)): 0,1 -> 0; 2 -> 1; 3,4 -> 2; 5,8 -> 3; 9 -> 4; 1000 -> 10.
	 * "%s: ~ 2^%-2llu": the exponent left-justified in two columns. */
	same_text("log2", text_of(t, NULL),
		  HEAD("hist:keys=bytes.log2:vals=hitcount:sort=bytes.log2:size=2048 [active]")
		  "{ bytes: ~ 2^0  } hitcount:          2\n"
		  "{ bytes: ~ 2^1  } hitcount:          1\n"
		  "{ bytes: ~ 2^2  } hitcount:          2\n"
		  "{ bytes: ~ 2^3  } hitcount:          2\n"
		  "{ bytes: ~ 2^4  } hitcount:          1\n"
		  "{ bytes: ~ 2^10 } hitcount:          1\n" TOTALS(9, 6, 0));
	done(t);

	t = table_for("hist:keys=bytes.buckets=100:vals=bytes:sort=bytes");
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
		hit(t, &(struct rec){ .bytes = values[i] * 30 });
	/* v / 100 * 100; "%s: ~ %llu-%llu" from the bucket to its last value. The sort names
	 * the key "bytes" and so the first field of that name: the value bytes (sums
	 * 0+30+60+90, 120+150, 240+270, 30000). */
	same_text("buckets", text_of(t, NULL),
		  HEAD("hist:keys=bytes.buckets=100:vals=hitcount,bytes:sort=bytes"
		       ":size=2048 [active]")
		  "{ bytes: ~ 0-99 } hitcount:          4  bytes:        180\n"
		  "{ bytes: ~ 100-199 } hitcount:          2  bytes:        270\n"
		  "{ bytes: ~ 200-299 } hitcount:          2  bytes:        510\n"
		  "{ bytes: ~ 30000-30099 } hitcount:          1  bytes:      30000\n"
		  TOTALS(9, 4, 0));
	done(t);
	tu_note(".log2 and .buckets bucket by bucket");
}

static int fake_sym(void *ctx, uint64_t addr, bool with_offset, char *buf, size_t len)
{
	(void)ctx;
	if (addr != 0x1000)
		return 0;
	snprintf(buf, len, with_offset ? "main+0x0/0x40" : "main");
	return 1;
}

static const char *fake_syscall(void *ctx, uint64_t nr)
{
	(void)ctx;
	return nr == 1 ? "sys_write" : NULL;
}

/* The other key formats: signed, .hex, .execname, .sym, .syscall, common_cpu, timestamps. */
static void test_key_formats(void)
{
	struct hist_names nm = { fake_sym, fake_syscall, NULL };
	struct hist_table *t = table_for("hist:keys=delta:sort=delta");
	char want[2048];

	hit(t, &(struct rec){ .delta = 3 });
	hit(t, &(struct rec){ .delta = -1 });
	hit(t, &(struct rec){ .delta = -5 });
	/* A signed field is sign-extended to u64 and printed "%10llu"; sorted as signed. */
	same_text("signed", text_of(t, NULL),
		  HEAD("hist:keys=delta:vals=hitcount:sort=delta:size=2048 [active]")
		  "{ delta: 18446744073709551611 } hitcount:          1\n"
		  "{ delta: 18446744073709551615 } hitcount:          1\n"
		  "{ delta:          3 } hitcount:          1\n" TOTALS(3, 3, 0));
	done(t);

	t = table_for("hist:keys=common_pid.execname,id.hex,bytes.sym");
	hit_at(t, &(struct rec){ .pid = 42, .id = 255, .bytes = 0x1000 }, 0, 0, "worker");
	hit_at(t, &(struct rec){ .pid = 42, .id = 255, .bytes = 0x1000 }, 0, 0, "other");
	/* .execname keeps the name of the thread that made the entry, as save_comm() does. */
	snprintf(want, sizeof(want),
		 HEAD("hist:keys=common_pid.execname,id.hex,bytes.sym:vals=hitcount:sort=hitcount"
		      ":size=2048 [active]")
		 "{ common_pid: worker          [        42], id: ff, "
		 "bytes: [1000] %-45s } hitcount:          2\n"
		 TOTALS(2, 1, 0), "main");
	same_text("execname, hex, sym", text_of(t, &nm), want);
	same_text("json keys", json_of(t, &nm),
		  "{\"event\": \"tpt:req\", "
		  "\"trigger\": \"hist:keys=common_pid.execname,id.hex,bytes.sym:vals=hitcount"
		  ":sort=hitcount:size=2048 [active]\", \"name\": null, \"paused\": false, "
		  "\"size\": 2048, \"keys\": [{\"field\": \"common_pid\", "
		  "\"modifier\": \"execname\"}, {\"field\": \"id\", \"modifier\": \"hex\"}, "
		  "{\"field\": \"bytes\", \"modifier\": \"sym\"}], \"values\": [\"hitcount\"], "
		  "\"entries\": [{\"key\": {\"common_pid\": 42, "
		  "\"common_pid.execname\": \"worker\", \"id\": 255, \"bytes\": 4096, "
		  "\"bytes.sym\": \"main\"}, \"values\": {\"hitcount\": 2}}], "
		  "\"totals\": {\"hits\": 2, \"entries\": 1, \"dropped\": 0}}\n");
	/* Without a resolver, %ps of an unknown address: "0x" and the address. */
	snprintf(want, sizeof(want), "bytes: [1000] %-45s }", "0x1000");
	char *text = text_of(t, NULL);

	CHECK(strstr(text, want), "unresolved sym: %s", text);
	free(text);
	done(t);

	t = table_for("hist:keys=id.syscall,delta.sym-offset,common_cpu");
	hit_at(t, &(struct rec){ .id = 1, .delta = 0x1000 }, 3, 0, NULL);
	snprintf(want, sizeof(want),
		 HEAD("hist:keys=id.syscall,delta.sym-offset,common_cpu:vals=hitcount"
		      ":sort=hitcount:size=2048 [active]")
		 "{ id: %-30s[  1], delta: [1000] %-55s, "
		 "common_cpu:          3 } hitcount:          1\n"
		 TOTALS(1, 1, 0), "sys_write", "main+0x0/0x40");
	same_text("syscall, sym-offset, cpu", text_of(t, &nm), want);
	done(t);

	/* common_timestamp.usecs: ns2usecs() rounds to the nearest microsecond. */
	t = table_for("hist:keys=common_timestamp.usecs:sort=common_timestamp");
	hit_at(t, &(struct rec){ 0 }, 0, 1499, NULL);
	hit_at(t, &(struct rec){ 0 }, 0, 500, NULL);
	hit_at(t, &(struct rec){ 0 }, 0, 1500, NULL);
	same_text("usecs", text_of(t, NULL),
		  HEAD("hist:keys=common_timestamp.usecs:vals=hitcount"
		       ":sort=common_timestamp.usecs:size=2048:clock=global [active]")
		  "{ common_timestamp:          1 } hitcount:          2\n"
		  "{ common_timestamp:          2 } hitcount:          1\n" TOTALS(3, 2, 0));
	done(t);
	/* A field twice: JSON names the second by its modifier, as a key and as a value. */
	t = table_for("hist:keys=id,id.hex:vals=bytes,bytes.hex");
	hit(t, &(struct rec){ .id = 5, .bytes = 17 });
	char *json = json_of(t, NULL);

	CHECK(strstr(json, "{\"key\": {\"id\": 5, \"id.hex\": 5}, \"values\": {\"hitcount\": 1, "
			   "\"bytes\": 17, \"bytes.hex\": 17}}"),
	      "a field twice in JSON: %s", json);
	free(json);
	done(t);
	tu_note("signed, hex, execname, sym, sym-offset, syscall, cpu, usecs keys");
}

/* .percent and .graph of values, hitcount.percent, nohitcount, and an if filter. */
static void test_value_formats(void)
{
	struct hist_table *t =
		table_for("hist:keys=id:vals=bytes.percent,bytes.graph:sort=id if bytes >= 100");

	CHECK(hit(t, &(struct rec){ .id = 1, .bytes = 300 }) == 1, "kept");
	CHECK(hit(t, &(struct rec){ .id = 2, .bytes = 100 }) == 1, "kept");
	CHECK(hit(t, &(struct rec){ .id = 2, .bytes = 99 }) == 0, "filtered out");
	/* __get_percentage(): 300 * 10000 / 400 = 7500 -> " 75.00"; 2500 -> " 25.00".
	 * __fill_bar_str(): 10000 * 20 / 10000 = 20 '#'; 100 * 10000 / 300 = 3333,
	 * 3333 * 20 / 10000 = 6 '#' and 14 blanks. */
	same_text("percent, graph, filter", text_of(t, NULL),
		  HEAD("hist:keys=id:vals=hitcount,bytes.percent,bytes.graph:sort=id"
		       ":size=2048 if bytes >= 100 [active]")
		  "{ id:          1 } hitcount:          1  bytes (%):  75.00  bytes"
		  ": ####################\n"
		  "{ id:          2 } hitcount:          1  bytes (%):  25.00  bytes"
		  ": ######              \n"
		  TOTALS(2, 2, 0));
	done(t);

	t = table_for("hist:keys=id:vals=hitcount.percent,bytes.hex:nohitcount:sort=id");
	hit(t, &(struct rec){ .id = 1, .bytes = 255 });
	hit(t, &(struct rec){ .id = 1, .bytes = 1 });
	hit(t, &(struct rec){ .id = 7, .bytes = 16 });
	/* nohitcount: no " hitcount:" column; hitcount.percent is a value like any other. */
	same_text("nohitcount", text_of(t, NULL),
		  HEAD("hist:keys=id:vals=hitcount.percent,bytes.hex:sort=id:size=2048"
		       ":nohitcount [active]")
		  "{ id:          1 }  hitcount (%):  66.66  bytes:        100\n"
		  "{ id:          7 }  hitcount (%):  33.33  bytes:         10\n" TOTALS(3, 2, 0));
	done(t);
	tu_note(".percent, .graph, .hex values, hitcount.percent, nohitcount, if filter");
}

/* A record shorter than its fields: numbers read as 0 and strings stop at its end. */
static void test_short_record(void)
{
	struct hist_table *t = table_for("hist:keys=bytes,path");
	struct hist_hit h;

	make(&(struct rec){ .bytes = 77, .path = "/long/path" });
	h = (struct hist_hit){ recbuf, OFF_DATA + 3, 0, 0, NULL, NULL };
	CHECK(tp_hist_hit(t, &h) == 1, "short record");
	h.size = OFF_BYTES + 4;
	CHECK(tp_hist_hit(t, &h) == 1, "shorter record");
	char want[1024];

	snprintf(want, sizeof(want),
		 "{ bytes:          0, path: %-50s } hitcount:          1\n"
		 "{ bytes:         77, path: %-50s } hitcount:          1\n", "", "/lo");
	char *text = text_of(t, NULL);

	CHECK(strstr(text, want), "short records: %s", text);
	free(text);
	done(t);
	tu_note("short records read nothing past their end");
}

/* A thread hits its table while another merges it: what the runtime's reader will do. */
struct hammer {
	struct hist_table *t;
	uint64_t done; /* hits made, published after each */
};

#define HAMMER_HITS 400000u

static void *hammer(void *arg)
{
	struct hammer *hm = arg;
	unsigned char rec[OFF_DATA];
	struct hist_hit h = { rec, sizeof(rec), 0, 0, "hammer", NULL };

	memset(rec, 0, sizeof(rec));
	for (uint32_t i = 0; i < HAMMER_HITS; i++) {
		uint32_t id = i % 300;  /* 300 keys in 256 entries: drops too */
		uint64_t bytes = i & 7;

		memcpy(rec + OFF_ID, &id, 4);
		memcpy(rec + OFF_BYTES, &bytes, 8);
		tp_hist_hit(hm->t, &h);
		__atomic_store_n(&hm->done, i + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* The merged table's hitcounts, summed. */
static uint64_t hitcounts(const struct hist_table *t)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < tp_hist_table_entries(t); i++)
		n += tp_hist_entry_sums(t, i)[0];
	return n;
}

static void test_live_merge(void)
{
	struct hammer hm = { table_for("hist:keys=id:vals=bytes:size=256"), 0 };
	const struct hist_spec *s = tp_hist_table_spec(hm.t);
	uint64_t last = 0, rounds = 0;
	bool ok = true;
	pthread_t th;

	REQUIRE(pthread_create(&th, NULL, hammer, &hm) == 0, "no thread");
	while (__atomic_load_n(&hm.done, __ATOMIC_ACQUIRE) < HAMMER_HITS) {
		struct hist_table *m = tp_hist_table_new(s);
		uint64_t seen, made;

		if (!m) {
			ok = false;
			break;
		}
		tp_hist_table_merge(m, hm.t);
		made = __atomic_load_n(&hm.done, __ATOMIC_ACQUIRE);
		seen = tp_hist_table_hits(m) + tp_hist_table_drops(m);
		/* Never more than was made, never less than the last look, Hits its entries'. */
		if (seen > made + 1 || seen + 1 < last || tp_hist_table_hits(m) != hitcounts(m) ||
		    tp_hist_table_entries(m) > 256)
			ok = false;
		last = seen;
		rounds++;
		tp_hist_table_free(m);
	}
	pthread_join(th, NULL);
	CHECK(ok, "a live merge saw more than was made, went back, or disagreed with itself");
	struct hist_table *m = tp_hist_table_new(s);

	REQUIRE(m, "no table");
	tp_hist_table_merge(m, hm.t);
	/* Ids 0..255 get the entries; 256..299 drop: 44 of every 300 hits, from the first. */
	uint64_t drops = (HAMMER_HITS / 300) * 44 +
			 (HAMMER_HITS % 300 > 256 ? HAMMER_HITS % 300 - 256 : 0);

	CHECK(tp_hist_table_hits(m) == HAMMER_HITS - drops && tp_hist_table_drops(m) == drops &&
		      tp_hist_table_entries(m) == 256 && hitcounts(m) == HAMMER_HITS - drops,
	      "after the thread: %llu hits, %llu drops, %u entries",
	      (unsigned long long)tp_hist_table_hits(m), (unsigned long long)tp_hist_table_drops(m),
	      tp_hist_table_entries(m));
	tp_hist_table_free(m);
	done(hm.t);
	tu_note("a table merged while its thread hits it: %llu looks, each consistent",
		(unsigned long long)rounds);
}

int main(void)
{
	test_grammar();
	test_refusals();
	test_sum_and_sort();
	test_strings();
	test_overflow();
	test_buckets();
	test_key_formats();
	test_value_formats();
	test_short_record();
	test_live_merge();
	return tu_finish();
}
