// SPDX-License-Identifier: MIT
/*
 * globs_test - the one matcher of event globs (lib/globs.c) on its own: which events of a
 * small table each glob or list selects, which lists are valid, and the items a list is
 * cut into. The runtime and the
 * tool both link this matcher; tests/glob.sh checks end to end that each of the tool's
 * verbs and the library reach it.
 *
 * Exit 0 when every check passes; each check prints one line.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "globs.h"

static int checks, failures;

static const char *const events[][2] = {
	{ "tpt_ctl", "ctl_tick" },
	{ "tpt_ctl", "ctl_odd" },
	{ "tpoint", "print" },
	{ "writeback", "writeback_inode_dirty" },
};
#define NEVENTS (sizeof(events) / sizeof(events[0]))

/* The events a list selects, as "sys:name " each in table order, into out. */
static const char *selected(const char *list, char *out, size_t len)
{
	size_t at = 0;

	out[0] = 0;
	for (size_t i = 0; i < NEVENTS; i++)
		if (tp_globs_select(list, events[i][0], events[i][1]))
			at += (size_t)snprintf(out + at, len - at, "%s:%s ", events[i][0],
					       events[i][1]);
	return out;
}

static void selects(const char *list, bool valid, const char *want)
{
	char got[512];

	checks++;
	selected(list, got, sizeof(got));
	if (tp_globs_valid(list) != valid || strcmp(got, want)) {
		failures++;
		printf("FAIL %d - '%s': valid %d (want %d), selects '%s' (want '%s')\n", checks,
		       list, tp_globs_valid(list), valid, got, want);
		return;
	}
	printf("ok %d - '%s'%s selects '%s'\n", checks, list, valid ? "" : " (not valid)", want);
}

/* The items tp_globs_next() cuts from a list, each as "[glob]", into want's format. */
static void items(const char *list, const char *want)
{
	char got[512];
	const char *glob, *at = list;
	size_t len, used = 0;

	checks++;
	got[0] = 0;
	while (tp_globs_next(&at, &glob, &len))
		used += (size_t)snprintf(got + used, sizeof(got) - used, "[%.*s]", (int)len, glob);
	if (strcmp(got, want) || (at && *at)) {
		failures++;
		printf("FAIL %d - '%s' cut into '%s' (want '%s')\n", checks, list ? list : "NULL",
		       got, want);
		return;
	}
	printf("ok %d - '%s' cut into '%s'\n", checks, list ? list : "NULL", want);
}

int main(void)
{
	char longglob[1024];

	selects("tpt_ctl:ctl_tick", true, "tpt_ctl:ctl_tick ");
	selects("tpt_ctl:*", true, "tpt_ctl:ctl_tick tpt_ctl:ctl_odd ");
	selects("tpt_ctl", true, "tpt_ctl:ctl_tick tpt_ctl:ctl_odd ");
	selects("ctl_tick", true, "tpt_ctl:ctl_tick ");
	selects("ctl_tick,ctl_odd", true, "tpt_ctl:ctl_tick tpt_ctl:ctl_odd ");
	selects("tpt_c?l", true, "tpt_ctl:ctl_tick tpt_ctl:ctl_odd ");
	selects("*:ctl_odd", true, "tpt_ctl:ctl_odd ");
	selects("tpt_*:ctl_[o]dd", true, "tpt_ctl:ctl_odd ");
	selects("*", true, "tpt_ctl:ctl_tick tpt_ctl:ctl_odd tpoint:print "
		"writeback:writeback_inode_dirty ");
	selects("w*:*dirty,print", true, "tpoint:print writeback:writeback_inode_dirty ");
	/* A bare glob never matches "sys:name" as one string; a second ':' matches nothing. */
	selects("tpt*tick", true, "");
	selects("tpt_ctl:ctl_tick:x", true, "");
	selects("nosuch", true, "");
	/* Lists the runtime refuses; the matcher skips their empty items all the same. */
	selects(",ctl_odd,", false, "tpt_ctl:ctl_odd ");
	selects("ctl_tick, ctl_odd", false, "tpt_ctl:ctl_tick ");
	selects("", false, "");
	selects("ctl_tick\t", false, "");
	/* A glob longer than any name still matches what it matches. */
	memset(longglob, '*', sizeof(longglob) - 6);
	strcpy(longglob + sizeof(longglob) - 6, "print");
	selects(longglob, true, "tpoint:print ");
	longglob[0] = 't';
	longglob[500] = ':';
	selects(longglob, true, "tpoint:print ");

	/* The items of a list, as the verbs name a glob that matched nothing. */
	items("tpt_ctl:ctl_tick", "[tpt_ctl:ctl_tick]");
	items("ctl_tick,tpt_ctl:*,print", "[ctl_tick][tpt_ctl:*][print]");
	items(",,ctl_odd,,print,", "[ctl_odd][print]"); /* empty items skipped */
	items("ctl_tick, ctl_odd ", "[ctl_tick][ ctl_odd ]"); /* blanks are the glob's */
	items("", "");
	items(",", "");
	items(NULL, "");

	checks++;
	if (tp_globs_valid(NULL) || tp_globs_select(NULL, "tpt_ctl", "ctl_tick")) {
		failures++;
		printf("FAIL %d - NULL is neither valid nor selects\n", checks);
	} else {
		printf("ok %d - NULL is neither valid nor selects\n", checks);
	}
	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
