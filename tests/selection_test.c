// SPDX-License-Identifier: MIT
/*
 * selection_test - the selection rules (lib/fmt/selection.c) on their own, with the glob
 * matcher they use: how an event is named, how TPOINT_FILTER is split, and which -f of a
 * consumer's -e/-f groups (and of tpoint record's -k/-f groups) applies to which event. The
 * runtime and the tool both link these rules; tests/glob.sh, tests/messages.sh and
 * tests/control.sh check end to end that they reach them.
 *
 * Exit 0 when every check passes; each check prints one line.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/selection.h"

static int checks, failures;

static void check(bool ok, const char *what, const char *got)
{
	checks++;
	failures += !ok;
	printf("%s %d - %s%s%s\n", ok ? "ok" : "FAIL", checks, what, ok ? "" : ": got ",
	       ok ? "" : got);
}

static void named(const char *event, const char *system, const char *name,
		  enum event_naming want)
{
	static const char *const how[] = { "does not name", "names by its bare name",
					   "names with its system" };
	enum event_naming got = tp_event_named(event, system, name);
	char what[256];

	snprintf(what, sizeof(what), "'%s' %s %s:%s", event, how[want], system, name);
	check(got == want, what, how[got]);
}

static void split(const char *event, size_t len, const char *want_system, const char *want_name)
{
	char system[16] = "", what[256], got[256];
	const char *name = NULL;
	bool ok = tp_event_split(event, system, len, &name);

	snprintf(got, sizeof(got), "%s '%s' '%s'", ok ? "split" : "not split", ok ? system : "",
		 ok ? name : "");
	snprintf(what, sizeof(what), "'%s' (system in %zu bytes) splits into '%s' '%s'", event,
		 len, want_system ? want_system : "(none)", want_name ? want_name : "(none)");
	check(want_system ? ok && !strcmp(system, want_system) && !strcmp(name, want_name) : !ok,
	      what, got);
}

/*
 * A TPOINT_FILTER value, and its items as the runtime takes them: "event=expr" each, or
 * "!item" for an item it refuses, joined with " | ".
 */
static void env_filter(const char *value, const char *want)
{
	char *copy = strdup(value), *cursor = copy, *event, *expr, got[512] = "", what[512];
	size_t at = 0;
	int item;

	while ((item = tp_filter_env_next(&cursor, &event, &expr)) != 0) {
		if (item < 0)
			at += (size_t)snprintf(got + at, sizeof(got) - at, "%s!%s", at ? " | " : "",
					       event);
		else
			at += (size_t)snprintf(got + at, sizeof(got) - at, "%s%s=%s",
					       at ? " | " : "", event, expr);
	}
	free(copy);
	snprintf(what, sizeof(what), "TPOINT_FILTER='%s' is '%s'", value, want);
	check(!strcmp(got, want), what, got);
}

/* A TPOINT_TRIGGER value, its items as "event=trigger" or "!item", joined with " | ". */
static void env_trigger(const char *value, const char *want)
{
	char *copy = strdup(value), *cursor = copy, *event, *trig, got[512] = "", what[512];
	size_t at = 0;
	int item;

	while ((item = tp_trigger_env_next(&cursor, &event, &trig)) != 0) {
		if (item < 0)
			at += (size_t)snprintf(got + at, sizeof(got) - at, "%s!%s", at ? " | " : "",
					       event);
		else
			at += (size_t)snprintf(got + at, sizeof(got) - at, "%s%s=%s",
					       at ? " | " : "", event, trig);
	}
	free(copy);
	snprintf(what, sizeof(what), "TPOINT_TRIGGER='%s' is '%s'", value, want);
	check(!strcmp(got, want), what, got);
}

/* The tool's stand-in for the filter compiler: an expression naming "nn" never compiles. */
static bool compiles(void *ctx, const char *expr)
{
	(void)ctx;
	return !strstr(expr, "nn");
}

/* What the selection does with system:name: "-" left out, "all", or the expression. */
static void judges(const struct selection *s, const char *system, const char *name,
		   const char *want)
{
	char *expr = NULL, what[256];
	bool selected = tp_sel_event(s, system, name, compiles, NULL, &expr);
	const char *got = !selected ? "-" : expr ? expr : "all";

	snprintf(what, sizeof(what), "%s:%s is judged '%s'", system, name, want);
	check(!strcmp(got, want), what, got);
	free(expr);
}

static void refuses(int got, int want, const char *what)
{
	char g[32];

	snprintf(g, sizeof(g), "%d", got);
	check(got == want, what, g);
}

int main(void)
{
	struct selection s = { 0 };

	/*
	 * An event is named with its system or by its bare name, never by its system alone;
	 * with its system wins (lib/event_filter.c: whose filter an event gets).
	 */
	named("tpt_ctl:ctl_tick", "tpt_ctl", "ctl_tick", EVENT_NAMED_FULL);
	named("ctl_tick", "tpt_ctl", "ctl_tick", EVENT_NAMED_BARE);
	named("tpt_ctl", "tpt_ctl", "ctl_tick", EVENT_NOT_NAMED);
	named("tpt_ctl:ctl_odd", "tpt_ctl", "ctl_tick", EVENT_NOT_NAMED);
	named("tpt:ctl_tick", "tpt_ctl", "ctl_tick", EVENT_NOT_NAMED);
	named("tpt_ctl:ctl_tic", "tpt_ctl", "ctl_tick", EVENT_NOT_NAMED);
	named("tpt_ctl:ctl_tick:x", "tpt_ctl", "ctl_tick", EVENT_NOT_NAMED);
	named("tpt_ctlx:ctl_tick", "tpt_ctl", "ctl_tick", EVENT_NOT_NAMED);
	named(":ctl_tick", "tpt_ctl", "ctl_tick", EVENT_NOT_NAMED);
	named("", "tpt_ctl", "ctl_tick", EVENT_NOT_NAMED);

	split("tpt_ctl:ctl_tick", 16, "tpt_ctl", "ctl_tick");
	split("a:b:c", 16, "a", "b:c");
	split(":name", 16, "", "name");
	split("ctl_tick", 16, NULL, NULL);
	split("tpt_ctl:ctl_tick", 7, NULL, NULL); /* the system does not fit */
	split("tpt_ctl:ctl_tick", 8, "tpt_ctl", "ctl_tick");

	/* TPOINT_FILTER: tpoint(3), tests/messages.sh, tests/control.sh, embedded_refusals.sh */
	env_filter("msg_tick:n != 1", "msg_tick=n != 1");
	env_trigger("sys:ev:hist:keys=id:vals=b if path == \"a;b:hist\"; ev:!hist:keys=x",
		    "sys:ev=hist:keys=id:vals=b if path == \"a;b:hist\" | ev=!hist:keys=x");
	env_trigger("ev:traceon:3; sys:ev:stacktrace if x > 1",
		    "ev=traceon:3 | sys:ev=stacktrace if x > 1");
	env_trigger("sys:ev:keys=id;:hist:x; ;sys::hist:x",
		    "!sys:ev:keys=id | !:hist:x | !sys::hist:x");
	env_filter("tpt_ctl:ctl_tick:name == \"beta\" || name == \"gamma\"",
		   "tpt_ctl:ctl_tick=name == \"beta\" || name == \"gamma\"");
	env_filter("msg_tick:n != 1; tpt_msg:msg_text:text == \"x;y\" || text == \"a:b\"",
		   "msg_tick=n != 1 | tpt_msg:msg_text=text == \"x;y\" || text == \"a:b\"");
	env_filter("ev:s == 'a;b:c'", "ev=s == 'a;b:c'");
	env_filter("tpt_ctl:ctl_tick:nme == 1;garbage", "tpt_ctl:ctl_tick=nme == 1 | !garbage");
	env_filter("n == 1", "!n == 1");
	env_filter(":n == 1", "!:n == 1");
	env_filter("sys::n == 1", "!sys::n == 1");
	env_filter("msg_tick:n ==", "msg_tick=n ==");
	env_filter("a:b:c:d", "a:b=c:d");
	env_filter("", "");
	env_filter(";; ;", "");
	env_filter("  a:x;;  b:y;", "a=x | b=y");
	env_filter("a:x == \"unclosed;b:y", "a=x == \"unclosed;b:y");

	/* -e/-f groups: a -f applies to the -e before it, once. */
	refuses(tp_sel_add_filter(&s, "n > 1"), SEL_NO_GROUP, "-f before any -e is refused");
	refuses(tp_sel_add_events(&s, ",ctl_odd,"), SEL_NOT_GLOBS, "-e ',ctl_odd,' is refused");
	refuses(tp_sel_add_events(&s, "ctl_tick, ctl_odd"), SEL_NOT_GLOBS,
		"-e 'ctl_tick, ctl_odd' is refused");
	refuses(tp_sel_add_events(&s, "tpt_ctl:ctl_tick"), SEL_OK, "-e tpt_ctl:ctl_tick");
	refuses(tp_sel_add_filter(&s, "n > 1"), SEL_OK, "-f 'n > 1' for it");
	refuses(tp_sel_add_filter(&s, "n < 5"), SEL_FILTER_TWICE, "a second -f is refused");
	refuses(tp_sel_add_events(&s, "tpt_ctl:*"), SEL_OK, "-e 'tpt_ctl:*'");
	refuses(tp_sel_add_filter(&s, "n == 7"), SEL_OK, "-f 'n == 7' for it");
	refuses(tp_sel_add_events(&s, "other"), SEL_OK, "-e other, no -f");
	refuses(tp_sel_add_events(&s, "lacks"), SEL_OK, "-e lacks");
	refuses(tp_sel_add_filter(&s, "nn == 1"), SEL_OK, "-f 'nn == 1' (never compiles)");
	refuses(tp_sel_add_events(&s, "both,tpt_x:*"), SEL_OK, "-e both,tpt_x:*");
	refuses(tp_sel_add_filter(&s, "m == 2"), SEL_OK, "-f 'm == 2'");
	check(!strcmp(s.globs, "tpt_ctl:ctl_tick,tpt_ctl:*,other,lacks,both,tpt_x:*"),
	      "the globs the process is asked for: every -e's, comma-joined", s.globs);

	/* Selected by two -e with -f: a record of either is kept. */
	judges(&s, "tpt_ctl", "ctl_tick", "(n > 1) || (n == 7)");
	judges(&s, "tpt_ctl", "ctl_odd", "(n == 7)");
	/* A group without -f, or whose -f does not compile, keeps all the records. */
	judges(&s, "sys", "other", "all");
	judges(&s, "tpt_x", "other", "all");
	judges(&s, "sys", "lacks", "all");
	judges(&s, "tpt_x", "lacks", "all");
	judges(&s, "sys", "both", "(m == 2)");
	judges(&s, "tpt_x", "y", "(m == 2)");
	judges(&s, "sys", "none", "-");
	judges(&s, "tpt_ctlx", "ctl_tick", "-");
	tp_sel_free(&s);
	check(!s.group && !s.ngroups && !s.globs, "freed, the selection is empty", "not empty");
	judges(&s, "tpt_ctl", "ctl_tick", "-");

	/*
	 * tpoint record's -k groups are a selection of their own, with the same rule: a -f
	 * gives the kernel's filter of the -k before it, once (tools/tpoint/krecord.c reads
	 * each group's globs and filter).
	 */
	struct selection k = { 0 };

	refuses(tp_sel_add_filter(&k, "pid > 1"), SEL_NO_GROUP, "-f before any -k is refused");
	refuses(tp_sel_add_events(&k, "sched:*,irq"), SEL_OK, "-k 'sched:*,irq'");
	refuses(tp_sel_add_filter(&k, "pid > 1"), SEL_OK, "-f 'pid > 1' for it");
	refuses(tp_sel_add_filter(&k, "pid < 9"), SEL_FILTER_TWICE, "a second -f is refused");
	refuses(tp_sel_add_events(&k, "writeback:writeback_mark_inode_dirty"), SEL_OK,
		"-k writeback:writeback_mark_inode_dirty, no -f");
	refuses(tp_sel_add_events(&k, "sched, irq"), SEL_NOT_GLOBS, "-k 'sched, irq' is refused");
	check(k.ngroups == 2 && !strcmp(k.group[0].globs, "sched:*,irq") &&
		      !strcmp(k.group[0].filter, "pid > 1") &&
		      !strcmp(k.group[1].globs, "writeback:writeback_mark_inode_dirty") &&
		      !k.group[1].filter,
	      "two -k groups: the first with its -f, the second without", "other groups");
	check(tp_sel_group_selects(&k.group[0], "sched", "sched_switch") &&
		      tp_sel_group_selects(&k.group[0], "irq", "irq_handler_entry") &&
		      !tp_sel_group_selects(&k.group[0], "writeback", "writeback_mark_inode_dirty"),
	      "the first -k group selects sched:* and irq", "other events");
	tp_sel_free(&k);

	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
