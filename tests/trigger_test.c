/* SPDX-License-Identifier: MIT */
/*
 * trigger_test - hist: triggers in the process (tpoint_set_trigger(), tpoint_print_hist()):
 *
 *  - an event on for its trigger alone (nothing recorded): four threads hit it with known
 *    ids and sizes, and the merged histogram has each id's exact hitcount and sum, the
 *    kernel's Totals, and the hits counted as filtered;
 *  - a second trigger with its own `if` filter beside it; :pause, :cont and :clear; a
 *    `size=128` table that overflows, its drops exact; a string key;
 *  - the kernel's refusals (unknown field, a trigger set twice, removing one that is not
 *    there, an unknown command), and removal turning the event off;
 *  - a recording beside a trigger: every hit recorded and counted in the histogram;
 *  - .sym and .sym-offset keys named from the process's own maps and files' symbols.
 *
 * The histogram text is read back line by line ("{ id: N } hitcount: H bytes: B"), the
 * layout lib/hist_print.c prints as the kernel's print_entries() does (tests/hist_test.c
 * checks that layout itself).
 */
#include "testutil.h"
#include <pthread.h>
#include <stdbool.h>
#include <tpoint/tpoint.h>
#include "hist_text.h"

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_trig.h>

#define THREADS 4
#define PER_THREAD 25000
#define IDS 7

static const char *const paths[] = { "/var/log/a", "/tmp/b", "/home/c" };

static void *hitter(void *arg)
{
	int base = *(int *)arg;

	for (int i = 0; i < PER_THREAD; i++) {
		int id = (base + i) % IDS;

		trace_trig_req(id, (unsigned long long)id * 10 + 1, paths[id % 3]);
	}
	return NULL;
}

static void hit_from_threads(void)
{
	pthread_t th[THREADS];
	int base[THREADS];

	for (int i = 0; i < THREADS; i++) {
		base[i] = i * 3;
		REQUIRE(pthread_create(&th[i], NULL, hitter, &base[i]) == 0, "pthread_create");
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
}

/* What the threads above hit, per id: hitcount and bytes summed. */
static void expected(uint64_t count[IDS], uint64_t bytes[IDS])
{
	memset(count, 0, IDS * sizeof(count[0]));
	memset(bytes, 0, IDS * sizeof(bytes[0]));
	for (int t = 0; t < THREADS; t++)
		for (int i = 0; i < PER_THREAD; i++) {
			int id = (t * 3 + i) % IDS;

			count[id]++;
			bytes[id] += (uint64_t)id * 10 + 1;
		}
}

/* The n-th histogram's entries and totals, from the kernel's text. */
struct parsed {
	uint64_t count[IDS], bytes[IDS];
	unsigned lines;
	unsigned long long hits, entries, dropped;
	bool paused;
};

static void parse_nth(const char *text, int nth, struct parsed *p)
{
	const char *h = text;

	memset(p, 0, sizeof(*p));
	for (int i = 0; i <= nth && h; i++) {
		h = strstr(h, "# event histogram");
		if (h && i < nth)
			h++;
	}
	REQUIRE(h, "histogram %d in:\n%s", nth, text);
	const char *info = strstr(h, "# trigger info: ");
	const char *eol = info ? strchr(info, '\n') : NULL;

	p->paused = info && eol && memmem(info, (size_t)(eol - info), "[paused]", 8);
	for (const char *l = h; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		int id;
		unsigned long long c, b;

		if (!strncmp(l, "# event histogram", 17) && l != h)
			break;
		if (sscanf(l, "{ id: %d } hitcount: %llu bytes: %llu", &id, &c, &b) == 3 &&
		    id >= 0 && id < IDS) {
			p->count[id] = c;
			p->bytes[id] = b;
			p->lines++;
		} else if (sscanf(l, "{ id: %d } hitcount: %llu", &id, &c) == 2 && id >= 0 &&
			   id < IDS) {
			p->count[id] = c;
			p->lines++;
		}
		sscanf(l, "    Hits: %llu", &p->hits);
		sscanf(l, "    Entries: %llu", &p->entries);
		if (sscanf(l, "    Dropped: %llu", &p->dropped) == 1)
			break;
	}
}

static void stats(struct tpoint_event_stats *st)
{
	REQUIRE(tu_stats("tpt_trig", "trig_req", st) == 0, "stats of tpt_trig:trig_req");
}

/* A function of the program, whose name a .sym key prints (not static: no clone of it),
 * long enough for an address inside it. */
__attribute__((noinline)) int trig_site_function(volatile int *x)
{
	for (int i = 0; i < 8; i++)
		*x += i;
	return *x;
}

/*
 * 8. .sym and .sym-offset keys, named at print time from the process's own maps: a
 * function of the program by its name, as the kernel names a kernel function; one of
 * libtpoint.so with its file, as the kernel names a module's; an address in no file as
 * the kernel prints one it cannot name.
 */
static void sym_keys(void)
{
	unsigned long here = (unsigned long)&trig_site_function + 1;
	unsigned long lib = (unsigned long)&tpoint_print_hist;
	char want[256], *text;

	REQUIRE(tpoint_set_trigger("trig_call", "hist:keys=site.sym") == 0, ".sym trigger");
	REQUIRE(tpoint_set_trigger("trig_call", "hist:keys=site.sym-offset") == 0,
		".sym-offset trigger");
	for (int i = 0; i < 3; i++)
		trace_trig_call(here);
	trace_trig_call(lib);
	trace_trig_call(0x10);
	text = hist_text("tpt_trig:trig_call");
	snprintf(want, sizeof(want), "{ site: [%lx] trig_site_function ", here);
	CHECK(strstr(text, want) && strstr(strstr(text, want), "} hitcount:          3"),
	      ".sym: '%s' hit 3 times, in:\n%s", want, text);
	snprintf(want, sizeof(want), "{ site: [%lx] tpoint_print_hist [libtpoint.so.1] ", lib);
	CHECK(strstr(text, want), ".sym of the library's function: '%s' in:\n%s", want, text);
	CHECK(strstr(text, "{ site: [10] 0x10 "), "an address in no file, in:\n%s", text);
	snprintf(want, sizeof(want), "{ site: [%lx] trig_site_function+0x1/0x", here);
	CHECK(strstr(text, want), ".sym-offset: '%s' in:\n%s", want, text);
	free(text);
	tu_note(".sym and .sym-offset keys named from the process's maps");
}

int main(void)
{
	uint64_t count[IDS], bytes[IDS];
	struct tpoint_event_stats st0, st1;
	struct parsed p;
	char *text;

	expected(count, bytes);

	/* The event is off: nothing to aggregate yet, and no histogram. */
	text = hist_text(NULL);
	CHECK(!strlen(text), "no trigger, no histogram: '%s'", text);
	free(text);

	/* 1. An event on for its trigger alone. */
	REQUIRE(tpoint_set_trigger("tpt_trig:trig_req",
				   "hist:keys=id:vals=bytes:sort=bytes.descending") == 0,
		"hist trigger set");
	stats(&st0);
	hit_from_threads();
	stats(&st1);
	text = hist_text(NULL);
	parse_nth(text, 0, &p);
	bool all = p.lines == IDS;

	for (int id = 0; id < IDS; id++)
		all = all && p.count[id] == count[id] && p.bytes[id] == bytes[id];
	CHECK(all, "every id's hitcount and bytes exact:\n%s", text);
	CHECK(p.hits == THREADS * PER_THREAD && p.entries == IDS && p.dropped == 0,
	      "Totals: Hits %llu Entries %llu Dropped %llu", p.hits, p.entries, p.dropped);
	CHECK(strstr(text, "# trigger info: hist:keys=id:vals=hitcount,bytes:"
			   "sort=bytes.descending:size=2048 [active]\n"),
	      "the kernel's trigger info line:\n%s", text);
	CHECK(st1.filtered - st0.filtered == THREADS * PER_THREAD &&
		      st1.recorded == st0.recorded && st1.lost == st0.lost,
	      "not recorded: %llu filtered, %llu recorded, %llu lost",
	      (unsigned long long)(st1.filtered - st0.filtered),
	      (unsigned long long)(st1.recorded - st0.recorded),
	      (unsigned long long)(st1.lost - st0.lost));
	free(text);
	tu_note("%d threads, %d hits: each id's count and sum exact, counted as filtered",
		THREADS, THREADS * PER_THREAD);

	/* 2. A second trigger, with a filter of its own, beside the first. */
	CHECK(tpoint_set_trigger("trig_req", "hist:keys=id if id < 3") == 0, "second trigger");
	hit_from_threads();
	text = hist_text("tpt_trig:*");
	parse_nth(text, 0, &p);
	CHECK(p.count[0] == 2 * count[0] && p.hits == 2 * THREADS * PER_THREAD,
	      "the first goes on counting: %llu", (unsigned long long)p.count[0]);
	parse_nth(text, 1, &p);
	CHECK(p.lines == 3 && p.count[0] == count[0] && p.count[2] == count[2] &&
		      p.hits == count[0] + count[1] + count[2],
	      "the second counts ids below 3 only:\n%s", text);
	free(text);

	/* 3. :pause, :cont, :clear, on the trigger they name. */
	CHECK(tpoint_set_trigger("trig_req", "hist:keys=id:pause if id < 3") == 0, ":pause");
	hit_from_threads();
	text = hist_text(NULL);
	parse_nth(text, 1, &p);
	CHECK(p.paused && p.hits == count[0] + count[1] + count[2], "paused: %llu hits",
	      p.hits);
	free(text);
	CHECK(tpoint_set_trigger("trig_req", "hist:keys=id:cont if id < 3") == 0, ":cont");
	CHECK(tpoint_set_trigger("trig_req", "hist:keys=id:clear if id < 3") == 0, ":clear");
	text = hist_text(NULL);
	parse_nth(text, 1, &p);
	CHECK(!p.paused && p.hits == 0 && p.lines == 0, "cleared: %llu hits\n%s", p.hits, text);
	free(text);
	hit_from_threads();
	text = hist_text(NULL);
	parse_nth(text, 1, &p);
	CHECK(p.hits == count[0] + count[1] + count[2] && p.count[1] == count[1],
	      "counting again after :clear: %llu", p.hits);
	free(text);

	/* 4. The kernel's refusals. */
	CHECK(tpoint_set_trigger("trig_req", "hist:keys=nosuch") == -EINVAL, "unknown field");
	CHECK(tpoint_set_trigger("trig_req", "hist:keys=id if id < 3") == -EEXIST,
	      "set twice");
	CHECK(tpoint_set_trigger("trig_req", "!hist:keys=bytes") == -ENOENT, "remove none");
	CHECK(tpoint_set_trigger("trig_req", "traceonx") == -EINVAL, "unknown command");
	CHECK(tpoint_set_trigger("no_such_event", "hist:keys=id") == -ENOENT, "unknown event");
	/* name= (tests/trigger_named.sh shares one between two events): its keys must match. */
	CHECK(tpoint_set_trigger("trig_req", "hist:name=shared:keys=id") == 0, "name=");
	CHECK(tpoint_set_trigger("trig_req", "hist:name=shared:keys=bytes") == -EINVAL,
	      "name= with other keys");
	CHECK(tpoint_set_trigger("trig_req", "!hist:name=shared:keys=id") == 0, "remove name=");

	/* 5. Removal: the event goes off with its last trigger. */
	CHECK(tpoint_set_trigger("trig_req", "!hist:keys=id if id < 3") == 0, "remove");
	CHECK(tpoint_set_trigger("trig_req", "!hist:keys=id:vals=bytes:sort=bytes.descending") ==
		      0, "remove the first");
	stats(&st0);
	hit_from_threads();
	stats(&st1);
	CHECK(st1.hits == st0.hits, "off once its triggers are gone: %llu hits",
	      (unsigned long long)(st1.hits - st0.hits));
	text = hist_text(NULL);
	CHECK(!strlen(text), "no histogram left: '%s'", text);
	free(text);

	/* 6. A full table: 128 entries, the other keys' hits dropped, exactly. */
	CHECK(tpoint_set_trigger("trig_req", "hist:keys=bytes:size=128") == 0, "size=128");
	for (int i = 0; i < 200; i++)
		for (int k = 0; k <= i % 3; k++)
			trace_trig_req(1, (unsigned long long)i, "x");
	text = hist_text(NULL);
	{
		unsigned long long hits = 0, entries = 0, dropped = 0, kept = 0, lost = 0;
		const char *t = strstr(text, "Totals:");

		CHECK(t && sscanf(t, "Totals:\n    Hits: %llu\n    Entries: %llu\n    Dropped: %llu",
				  &hits, &entries, &dropped) == 3, "totals in:\n%s", text);
		for (int i = 0; i < 200; i++)
			*(i < 128 ? &kept : &lost) += (unsigned long long)(i % 3 + 1);
		CHECK(entries == 128 && hits == kept && dropped == lost,
		      "size=128: Hits %llu (want %llu), Entries %llu, Dropped %llu (want %llu)",
		      hits, kept, entries, dropped, lost);
	}
	free(text);
	CHECK(tpoint_set_trigger("trig_req", "!hist:keys=bytes:size=128") == 0, "removed");

	/* 7. A string key, while the event records too. */
	CHECK(tpoint_set_trigger("trig_req", "hist:keys=path:vals=bytes") == 0, "string key");
	REQUIRE(tpoint_enable("tpt_trig:trig_req") == 1, "enable for recording");
	REQUIRE(tpoint_record_start("trigger_test.dat") == 0, "record");
	stats(&st0);
	hit_from_threads();
	stats(&st1);
	text = hist_text(NULL);
	for (int k = 0; k < 3; k++) {
		unsigned long long c = 0, got = 0;
		char path[64];

		for (int id = 0; id < IDS; id++)
			if (id % 3 == k)
				c += count[id];
		for (const char *l = strstr(text, "{ path: "); l; l = strstr(l + 1, "{ path: "))
			if (sscanf(l, "{ path: %63s } hitcount: %llu", path, &got) == 2 &&
			    !strcmp(path, paths[k]))
				break;
		CHECK(got == c, "%s: hitcount %llu, want %llu, in:\n%s", paths[k], got, c, text);
	}
	CHECK(st1.recorded + st1.lost - st0.recorded - st0.lost == THREADS * PER_THREAD &&
		      st1.filtered == st0.filtered,
	      "recorded too: %llu recorded, %llu lost, %llu filtered",
	      (unsigned long long)(st1.recorded - st0.recorded),
	      (unsigned long long)(st1.lost - st0.lost),
	      (unsigned long long)(st1.filtered - st0.filtered));
	free(text);
	CHECK(tpoint_record_stop() == 0, "record stop");
	unlink("trigger_test.dat");
	tu_note("pause/cont/clear, filters, size=128 drops, string keys, with a recording: exact");
	sym_keys();
	return tu_finish();
}
