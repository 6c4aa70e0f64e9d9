// SPDX-License-Identifier: MIT
/*
 * print_test - tpoint_printf(), the library's own event tpoint:print, as a user meets it.
 *
 * Off: the macro evaluates no argument, and the function itself, called by its name in
 * parentheses, formats nothing (a "%s" of a pointer that cannot be read would crash it); both
 * return 0. On: messages recorded as trace-cmd shows them ("print: hello 42"), a long one
 * cut to 511 bytes, "%%" and an empty message as they are; a filter on msg keeps only what it
 * matches and counts the rest as filtered; `tpoint report` prints what trace-cmd prints.
 */
#include "testutil.h"
#include <tpoint/tpoint.h>

struct seen {
	int n;
	char text[9][600];
	int bad;
};

static int collect(const struct tu_line *l, void *arg)
{
	struct seen *s = (struct seen *)arg;

	if (strcmp(l->name, "print") || s->n >= 9) {
		s->bad++;
		return 0;
	}
	snprintf(s->text[s->n++], sizeof(s->text[0]), "%s", l->text);
	return 0;
}

static int evaluated;

static int side_effect(void)
{
	return ++evaluated;
}

int main(void)
{
	char longmsg[601], cmd[256];
	struct tu_report rep;
	struct seen s = { 0 };
	struct tpoint_event_stats st;
	int ret;

	tu_require_trace_cmd();
	memset(longmsg, 'x', 600);
	longmsg[600] = 0;

	/* Off: nothing is evaluated, and nothing formatted: this string is never read. */
	CHECK(tpoint_printf("%d", side_effect()) == 0 && evaluated == 0,
	      "off: the macro returns 0 and evaluates no argument");
	CHECK((tpoint_printf)("%s", (const char *)8) == 0, "off: the function formats nothing");
	CHECK(tu_stats("tpoint", "print", &st) == 0 && st.hits == 0,
	      "off: the library's event tpoint:print exists, with no hits");

	CHECK(tpoint_enable("tpoint:print") == 1, "tpoint:print is enabled by name");
	REQUIRE(tpoint_record_start("print.dat") == 0, "start recording");
	CHECK(tpoint_printf("hello %d", 42) == 8, "on: returns the length");
	CHECK(tpoint_printf("%d", side_effect()) == 1 && evaluated == 1, "on: the arguments are "
	      "evaluated once");
	CHECK(tpoint_printf("100%% of %s", "it") == 10, "a %%%% and a %%s");
	CHECK(tpoint_printf("%s", "") == 0, "an empty message");
	ret = tpoint_printf("%s", longmsg);
	CHECK(ret == 511, "a message of 600 bytes is cut to 511: %d", ret);
	CHECK(tpoint_set_filter("tpoint:print", "msg ~ \"keep*\"") == 0, "a filter on msg");
	tpoint_printf("keep %d", 1);
	tpoint_printf("drop %d", 2);
	tpoint_printf("keep %d", 3);
	CHECK(tpoint_record_stop() == 0, "stop");

	REQUIRE(tu_report_each("print.dat", collect, &s, &rep) == 0, "run trace-cmd report");
	CHECK(rep.status == 0 && s.bad == 0 && rep.malformed == 0, "trace-cmd reads the file: "
	      "status %d, %d lines of other events", rep.status, s.bad);
	CHECK(s.n == 7, "7 messages in the file: %d", s.n);
	CHECK(s.n > 0 && !strcmp(s.text[0], "hello 42"), "'hello 42': '%s'", s.text[0]);
	CHECK(s.n > 1 && !strcmp(s.text[1], "1"), "'1': '%s'", s.text[1]);
	CHECK(s.n > 2 && !strcmp(s.text[2], "100% of it"), "'100%% of it': '%s'", s.text[2]);
	CHECK(s.n > 3 && !strcmp(s.text[3], ""), "the empty message: '%s'", s.text[3]);
	CHECK(s.n > 4 && strlen(s.text[4]) == 511 && strspn(s.text[4], "x") == 511,
	      "the long message, 511 bytes of it: %zu", strlen(s.text[4]));
	CHECK(s.n > 6 && !strcmp(s.text[5], "keep 1") && !strcmp(s.text[6], "keep 3"),
	      "the filter kept 'keep 1' and 'keep 3'");
	CHECK(tu_stats("tpoint", "print", &st) == 0 && st.hits == 8 && st.recorded == 7 &&
	      st.filtered == 1, "counters: hits %llu, recorded %llu, filtered %llu",
	      (unsigned long long)st.hits, (unsigned long long)st.recorded,
	      (unsigned long long)st.filtered);

	/* tpoint report prints the same event text as trace-cmd. */
	const char *tool = getenv("TPOINT");

	if (tool && !access(tool, X_OK)) {
		snprintf(cmd, sizeof(cmd), "'%s' report print.dat | grep -c ' print: *keep [13]$'",
			 tool);
		FILE *f = popen(cmd, "r");
		int n = 0;

		CHECK(f && fscanf(f, "%d", &n) == 1 && n == 2, "tpoint report shows the kept "
		      "messages as trace-cmd does: %d", n);
		if (f)
			pclose(f);
	}
	tu_note("off: nothing evaluated; on: 7 messages recorded, 1 filtered, as trace-cmd shows");
	return tu_finish();
}
