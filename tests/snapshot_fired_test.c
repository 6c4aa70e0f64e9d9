// SPDX-License-Identifier: MIT
/*
 * snapshot_fired_test - the text of a snapshot file's option (lib/fmt/snapshot_fired.c) on
 * its own: written, then read back; an option that is not that text, exactly, is refused
 * (a reader must not trust a file's bytes: no NUL, a NUL inside, text after it, a field
 * missing or not a number, an event name too long).
 */
#include <string.h>
#include "testutil.h"
#include "fmt/snapshot_fired.h"

static int parse(const char *s, size_t size, struct snapshot_fired *f)
{
	return tp_snapshot_fired_parse(s, size, f);
}

int main(void)
{
	struct snapshot_fired in = { "tpt_snap:request", 1234567890123ull, 4242 }, out;
	char buf[256], longname[200];
	size_t n = tp_snapshot_fired_format(buf, sizeof(buf), &in);

	CHECK(n == strlen("tpt_snap:request\t1234567890123\t4242\n") + 1 &&
	      !strcmp(buf, "tpt_snap:request\t1234567890123\t4242\n"), "written: '%s'", buf);
	CHECK(parse(buf, n, &out) == 0 && !strcmp(out.event, in.event) && out.ns == in.ns &&
	      out.tid == in.tid, "read back");
	CHECK(tp_snapshot_fired_format(buf, 20, &in) == 0, "a buffer too short: nothing");

	CHECK(parse(buf, 0, &out) < 0, "empty");
	CHECK(parse("a:b\t1\t2\n", 8, &out) < 0, "no NUL at the end");
	CHECK(parse("a:b\t1\0\t2\n", 10, &out) < 0, "a NUL inside");
	CHECK(parse("a:b\t1\t2\nmore", 13, &out) < 0, "text after the line");
	CHECK(parse("a:b\t1\n", 7, &out) < 0, "no thread");
	CHECK(parse("a:b\tx\t2\n", 9, &out) < 0, "a time that is no number");
	memset(longname, 'e', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	snprintf(buf, sizeof(buf), "%s\t1\t2\n", longname);
	CHECK(parse(buf, strlen(buf) + 1, &out) < 0, "an event name longer than %d",
	      SNAPSHOT_FIRED_EVENT_MAX - 1);
	strcpy(in.event, "a\tb");
	CHECK(tp_snapshot_fired_format(buf, sizeof(buf), &in) == 0, "a tab in the event name");
	return tu_finish();
}
