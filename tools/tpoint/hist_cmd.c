// SPDX-License-Identifier: MIT
/*
 * tpoint hist: the command line (hist_cmd.h). -k takes two words, the event and its trigger
 * (`-k sched:sched_switch 'hist:keys=prev_comm'`), as the kernel's trigger file is the
 * event's own; one word with the trigger after the event's name
 * (`-k 'sched:sched_switch:hist:keys=prev_comm'`, as report --hist spells it) is read too.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control_client.h"
#include "hist_cmd.h"
#include "options.h"
#include "tool.h"

enum { OPT_WATCH = 300, OPT_DURATION, OPT_LATENCY, OPT_KEY, OPT_BY };

static const struct opts_spec hist_opts = {
	.verb = HIST_VERB,
	.usage = (const char *const[]){
		"tpoint hist -k SYS:EVENT 'hist:...' [-k SYS:EVENT 'hist:...']... [--json]\n"
		"                  [--watch S] [--duration S]",
		"tpoint hist -p PID [-e GLOB[,GLOB...]] [--json] [--watch S] [--duration S]",
		"tpoint hist -p PID --latency SYS:START,SYS:END --key FIELD [--by FIELD]",
		NULL },
	.about = "The kernel's histogram triggers (hist:keys=...:vals=...:sort=...), printed as\n"
		 "the kernel's `hist` file prints them, at the end (Ctrl-C, SIGTERM or\n"
		 "--duration) and every --watch seconds (counted from the start).\n"
		 "With -k, a kernel event's histogram: its records are counted from a private\n"
		 "tracefs instance (tpoint-hist-PID-RANDOM, removed at the end); where the\n"
		 "kernel has hist triggers, the trigger is set in that instance and its `hist`\n"
		 "file printed as it is. With -p, the histograms of a running process's hist:\n"
		 "triggers (TPOINT_TRIGGER, tpoint trigger).\n"
		 "With -p and --latency, the latency from START to END in the process: the\n"
		 "synthetic event and the three triggers it stands for are said on stderr,\n"
		 "set in the process, printed as -k prints, and removed at the end.\n",
	.opts = (const struct opt[]){
		{ 'k', 'k', "kernel", OPT_VALUE, "SYS:EVENT",
		  "a kernel event; the next word is its trigger, 'hist:...'\n"
		  "(the kernel's syntax, ' if FILTER' included); repeatable", 0 },
		{ 'p', 'p', "pid", OPT_VALUE, "PID", "a running process's histograms; repeatable", 0 },
		OPT_EVENTS("with -p: only the histograms of these events"),
		OPT_JSON("one JSON object per histogram instead of the kernel's text"),
		{ OPT_WATCH, 0, "watch", OPT_VALUE, "S",
		  "print the histograms every S seconds too (cumulative)", 0 },
		{ OPT_DURATION, 0, "duration", OPT_VALUE, "S", "stop after S seconds", 0 },
		{ OPT_LATENCY, 0, "latency", OPT_VALUE, "SYS:START,SYS:END",
		  "with -p: the latency from START to END, matched by --key", 0 },
		{ OPT_KEY, 0, "key", OPT_VALUE, "FIELD", "with --latency: the field that pairs them", 0 },
		{ OPT_BY, 0, "by", OPT_VALUE, "FIELD", "with --latency: the histogram's key", 0 },
		OPT_END,
	},
	.after = "Exit status: 0 stopped by Ctrl-C, SIGTERM or --duration; 1 the histogram cannot\n"
		 "be computed (not root, an unknown event, a bad trigger: its column named);\n"
		 "2 usage error.\n",
	.stop_at_operand = 1,
};

/* --watch and --duration: seconds, a number > 0; -1 said. */
static double seconds(const char *name, const char *arg)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !isfinite(v) || !(v > 0) || v > 1e9) {
		tool_error(HIST_VERB, "--%s '%s': expected seconds, a number > 0, like 2 or 0.5",
			   name, arg);
		return -1;
	}
	return v;
}

/* -k's value: the event, and the trigger if it comes after it ("sys:event:hist:..."). */
static int add_kernel(struct hist_cmd_opts *o, const char *arg)
{
	struct hist_kernel_trigger *k = realloc(o->k, (o->nk + 1) * sizeof(*o->k));
	const char *h = strstr(arg, ":hist:"), *rm = strstr(arg, ":!hist:");

	if (!k) {
		tool_error(HIST_VERB, "out of memory");
		return -1;
	}
	o->k = k;
	k = &o->k[o->nk++];
	k->event = arg;
	k->trigger = NULL;
	if (rm && (!h || rm < h))
		h = rm;
	if (h) {
		char *event = strndup(arg, (size_t)(h - arg));

		if (!event) {
			tool_error(HIST_VERB, "out of memory");
			return -1;
		}
		k->event = event; /* kept to the end, as argv is */
		k->trigger = h + 1;
	}
	return 0;
}

static int add_pid(struct hist_cmd_opts *o, const char *arg)
{
	pid_t pid = ctl_parse_pid(HIST_VERB, arg), *p;

	if (pid < 0)
		return -1;
	p = realloc(o->pids, (o->npids + 1) * sizeof(*o->pids));
	if (!p) {
		tool_error(HIST_VERB, "out of memory");
		return -1;
	}
	o->pids = p;
	o->pids[o->npids++] = pid;
	return 0;
}

/* What the options say together: 0, or EXIT_USAGE after saying why. */
static int check(const struct hist_cmd_opts *o)
{
	if (!o->nk && !o->npids) {
		tool_error(HIST_VERB, "give -k SYS:EVENT 'hist:...' (a kernel event) or -p PID "
			   "(a process); see 'tpoint hist --help'");
		return EXIT_USAGE;
	}
	if (o->nk && o->npids) {
		tool_error(HIST_VERB, "-k and -p: one or the other");
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < o->nk; i++)
		if (!o->k[i].trigger) {
			tool_error(HIST_VERB, "-k %s: expected its trigger after it, "
				   "like -k %s 'hist:keys=common_pid'", o->k[i].event, o->k[i].event);
			return EXIT_USAGE;
		}
	if (o->nk && (o->events || o->latency || o->key || o->by)) {
		tool_error(HIST_VERB, "%s goes with -p PID; with -k, the trigger says it",
			   o->events ? "-e" : o->latency ? "--latency" : o->key ? "--key" : "--by");
		return EXIT_USAGE;
	}
	if ((o->key || o->by) && !o->latency) {
		tool_error(HIST_VERB, "%s goes with --latency SYS:START,SYS:END",
			   o->key ? "--key" : "--by");
		return EXIT_USAGE;
	}
	if (o->latency && !o->key) {
		tool_error(HIST_VERB, "--latency %s: give --key FIELD, the field that pairs a "
			   "start with its end", o->latency);
		return EXIT_USAGE;
	}
	return 0;
}

/*
 * The options into *o: -1 to go on, or the exit status now (the help printed: EXIT_OK, or
 * a usage error said).
 */
static int parse(int argc, char **argv, struct hist_cmd_opts *o)
{
	struct opts op;
	int c, trigger_at = -1; /* where the trigger of a -k given alone must be */

	opts_start(&op, &hist_opts, argc, argv);
	for (;;) {
		switch ((c = opts_next(&op))) {
		case OPTS_END:
			if (op.ind >= argc)
				return check(o) ? EXIT_USAGE : -1;
			/* An operand: the trigger of the -k just before it, and on with the rest. */
			if (op.ind != trigger_at) {
				tool_error(HIST_VERB, "'%s': unexpected here; a trigger follows its -k "
					   "SYS:EVENT", argv[op.ind]);
				return EXIT_USAGE;
			}
			o->k[o->nk - 1].trigger = argv[op.ind];
			optind = op.ind + 1;
			trigger_at = -1;
			break;
		case 'k':
			if (add_kernel(o, op.value))
				return EXIT_FAIL;
			trigger_at = o->k[o->nk - 1].trigger ? -1 : optind;
			break;
		case 'p':
			if (add_pid(o, op.value))
				return EXIT_USAGE;
			break;
		case 'e': o->events = op.value; break;
		case 'j': o->json = true; break;
		case OPT_WATCH:
			if ((o->watch = seconds("watch", op.value)) < 0)
				return EXIT_USAGE;
			break;
		case OPT_DURATION:
			if ((o->duration = seconds("duration", op.value)) < 0)
				return EXIT_USAGE;
			break;
		case OPT_LATENCY: o->latency = op.value; break;
		case OPT_KEY: o->key = op.value; break;
		case OPT_BY: o->by = op.value; break;
		default:
			return opts_exit(c);
		}
	}
}

int cmd_hist(int argc, char **argv)
{
	static struct hist_cmd_opts o; /* static: reachable to the end, whichever way we return */
	int ret = parse(argc, argv, &o);

	if (ret >= 0)
		return ret;
	return o.nk ? hist_kernel(&o) : hist_process(&o);
}
