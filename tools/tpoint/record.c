/* SPDX-License-Identifier: MIT */
/*
 * tpoint record: its command line, checked whole before anything runs, then one of its
 * modes: a command (record_cmd.c), a running process (record_pid.c), the kernel alone
 * (record_kernel.c), or the spools of a recording that could not be written
 * (record_assemble.c).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "env.h"
#include "filter.h"
#include "options.h"
#include "owner.h"
#include "ownfile.h"
#include "poolsize.h"
#include "record.h"
#include "tool.h"

/* --compress or TPOINT_COMPRESS: the file is version 7, compressed with it; NULL: version 6. */
static struct tp_codec codec;

static const struct opts_spec record_opts = {
	.verb = "record",
	.usage = (const char *const[]){
		"tpoint record -e GLOB[,GLOB...] [-f EXPR] [-e ... [-f ...]]... [-o FILE]",
		"              [-b SIZE] [--overwrite|--block] [-k GLOB[,GLOB...] [-f EXPR]]...",
		"              [--kernel-pids] -- CMD [ARGS...]",
		"tpoint record -p PID -e GLOB[,GLOB...] [-f EXPR] [-e ... [-f ...]]...",
		"              [-k GLOB[,GLOB...] [-f EXPR]]... [--kernel-pids]",
		"              [-o FILE] [--duration S] [-b SIZE] [--overwrite|--block]",
		"tpoint record -k GLOB[,GLOB...] [-f EXPR] [-k ...]... [-o FILE] [--duration S]",
		"tpoint record --assemble DIR [-o FILE]",
		"(each form also takes --compress[=zstd|zlib[:LEVEL]])",
		NULL },
	.about = "Run CMD and record the tpoint events it (and its threads and child processes)\n"
		 "hits into FILE, a trace-cmd trace.dat v6 file (v7 with --compress). With -p,\n"
		 "record the running process PID instead, until Ctrl-C, SIGTERM, SIGHUP, SIGPIPE,\n"
		 "the duration, or its end; if it is killed, every event it had committed is\n"
		 "still in the file.\n",
	.opts = (const struct opt[]){
		OPT_PID("record a running process (one)"),
		{ 'A', 0, "assemble", OPT_VALUE, "DIR",
		  "write FILE from the spools of a recording that could not\n"
		  "be completed (a full disk): record keeps them in DIR", 0 },
		OPT_FILTER("keep only records for which EXPR holds (the kernel's\n"
			   "filter syntax), of the events of the -e before it; on\n"
			   "those that lack its fields it does not apply.\n"
			   "After a -k: the kernel's own filter on its events"),
		{ 'k', 'k', "kernel", OPT_VALUE, "GLOBS",
		  "kernel events too (root): sys:name, sys:* or sys, comma-\n"
		  "separated, may be given more than once; recorded in a\n"
		  "tracefs instance of our own, into the same file", 0 },
		{ 'K', 0, "kernel-pids", OPT_NO_VALUE, NULL,
		  "kernel events only of the recorded processes and the\n"
		  "children they start", 0 },
		{ 'd', 0, "duration", OPT_VALUE, "S", "with -p, or -k alone: stop after S seconds", 0 },
		OPT_EVENTS("events to record: sys:name, sys:*, sys or name, comma-separated;\n"
			   "may be given more than once"),
		OPT_OUTPUT("FILE", "where to write (default trace.dat)"),
		{ 'Z', 0, "compress", OPT_MAYBE_VALUE, "C",
		  "write trace.dat version 7 with compressed sections, which\n"
		  "trace-cmd 3 and KernelShark 2 read: C is zstd (default,\n"
		  "about 5x smaller) or zlib, with an optional :LEVEL\n"
		  "(zstd:19); the default is TPOINT_COMPRESS, else version 6", 0 },
		{ 'b', 'b', "buffer", OPT_VALUE, "SIZE", "page pool per process, like 8M (default 8M)", 0 },
		{ 'W', 0, "overwrite", OPT_NO_VALUE, NULL, "keep the newest events when the pool is full", 0 },
		{ 'B', 0, "block", OPT_NO_VALUE, NULL,
		  "when the pool is full, make the writer wait until the\n"
		  "file has taken a page: nothing is lost, the program\n"
		  "runs at the speed of the file (and drops again if the\n"
		  "file takes nothing for 100 ms)", 0 },
		OPT_END,
	},
	.stop_at_operand = 1, /* the command's own options are its own */
};

/* The command line, as parse_options() reads it and check_options() checks it. */
struct cmdline {
	const char *events, *out, *buffer, *mode, *filter, *assemble, *duration_arg, *compress;
	struct selection sel;
	double duration;
	pid_t pid;
	struct selection ksel; /* the -k groups, each with the kernel's filter of its -f */
	bool kernel_pids;
	size_t bytes; /* -b */
};

/* -1 when the options are read (the command, if any, at argv[optind]), else an exit status. */
static int parse_options(struct cmdline *cl, int argc, char **argv)
{
	struct opts o;
	bool last_was_kernel = false; /* a -f is for the group before it: -e's or -k's */
	char *end;
	int c;

	opts_start(&o, &record_opts, argc, argv);
	while ((c = opts_next(&o)) != OPTS_END) {
		const char *optarg = o.value;

		switch (c) {
		case 'K': cl->kernel_pids = true; break;
		case 'e':
		case 'k':
			switch (sel_add_events(c == 'k' ? &cl->ksel : &cl->sel, "record", optarg)) {
			case -2: return EXIT_USAGE;
			case -1: return EXIT_FAIL;
			}
			last_was_kernel = c == 'k';
			cl->events = sel_globs(&cl->sel); /* every -e, for a command too */
			break;
		case 'o': cl->out = optarg; break;
		case 'b': cl->buffer = optarg; break;
		case 'W':
		case 'B':
			if (cl->mode) {
				tool_error("record", "--overwrite and --block: one or the other");
				return EXIT_USAGE;
			}
			cl->mode = c == 'W' ? "overwrite" : "block";
			break;
		case 'p':
			cl->pid = ctl_parse_one_pid("record", optarg, cl->pid);
			if (cl->pid < 0)
				return EXIT_USAGE;
			break;
		case 'f':
			if (last_was_kernel) {
				if (sel_add_group_filter(&cl->ksel, "record", 'k', optarg) < 0)
					return EXIT_USAGE;
				break;
			}
			if (sel_add_filter(&cl->sel, "record", optarg) < 0)
				return EXIT_USAGE;
			cl->filter = optarg;
			break;
		case 'A': cl->assemble = optarg; break;
		case 'Z': cl->compress = optarg ? optarg : ""; break;
		case 'd':
			cl->duration_arg = optarg;
			cl->duration = strtod(optarg, &end);
			if (*end || !(cl->duration > 0)) {
				tool_error("record", "--duration '%s': expected seconds, like 10", optarg);
				return EXIT_USAGE;
			}
			break;
		default: return opts_exit(c);
		}
	}
	optind = o.ind;
	return -1;
}

/* --compress or TPOINT_COMPRESS: -1 when the file's codec is set, else an exit status. */
static int open_codec(const char *compress)
{
	char err[512];

	if (compress && strcmp(compress, "none")) {
		const char *name;
		int level;

		if (tp_codec_parse(compress, &name, &level, err, sizeof(err)) < 0) {
			tool_error("record", "--compress: %s", err);
			return EXIT_USAGE;
		}
		if (tp_codec_open(&codec, name, level, err, sizeof(err)) < 0) {
			tool_error("record", "--compress: %s", err);
			return EXIT_FAIL;
		}
		opt_codec = &codec;
	}
	return -1;
}

/* -1 when the options go together, else an exit status (what is wrong said). */
static int check_options(struct cmdline *cl, int argc)
{
	if ((!cl->events || !*cl->events) && (!cl->ksel.ngroups || cl->pid)) {
		tool_error("record", "no events given; use -e GLOB, e.g. -e 'writeback:*'%s",
			   cl->pid ? "" : ", or -k GLOB for the kernel's");
		return EXIT_USAGE;
	}
	if (cl->kernel_pids && (!cl->ksel.ngroups || (!cl->pid && optind >= argc))) {
		tool_error("record", "--kernel-pids: it keeps the kernel events (-k) of the command "
			   "or the -p process; there is %s", cl->ksel.ngroups ? "neither" : "no -k");
		return EXIT_USAGE;
	}
	if (cl->events && !cl->pid && optind >= argc) {
		tool_error("record", "-e '%s': no process to record it of; give -p PID, or -- CMD "
			   "to run one%s", cl->events, cl->ksel.ngroups ? " (-k alone records the kernel)" : "");
		return EXIT_USAGE;
	}
	if (cl->duration && optind < argc) {
		tool_error("record", "--duration %s: a command is recorded until it ends; "
			   "--duration goes with -p PID, or -k alone", cl->duration_arg);
		return EXIT_USAGE;
	}
	if (cl->ksel.ngroups && !cl->pid && optind >= argc && (cl->filter || cl->mode || cl->buffer)) {
		tool_error("record", "-k alone records the kernel: -f goes after a -k, and -b, "
			   "--overwrite, --block are for a program's events");
		return EXIT_USAGE;
	}
	if (cl->duration && cl->ksel.ngroups && !cl->pid && optind >= argc) {
		/* the kernel alone, for a while */
	} else if (cl->ksel.ngroups && !cl->pid && optind >= argc) {
		/* the kernel alone, until Ctrl-C */
	}
	if (cl->buffer && tp_pool_size_parse(cl->buffer, &cl->bytes) < 0) {
		tool_error("record", "-b '%s': expected " TP_POOL_SIZE_EXPECTED, cl->buffer);
		return EXIT_USAGE;
	}
	if (cl->buffer) {
		char why[256];

		/* The library caps it (tp_pool_size_fit()); this says so where the user looks. */
		if (tp_pool_size_fit(cl->bytes, why, sizeof(why)) < cl->bytes)
			tool_warn("record", "note: -b %s: %s; each process gets what it "
				"can have (TPOINT_DEBUG=1 shows it)", cl->buffer, why);
	}
	if (cl->pid && optind < argc) {
		tool_error("record", "-p records a running process: no command with it");
		return EXIT_USAGE;
	}
	return -1;
}

int cmd_record(int argc, char **argv)
{
	static struct cmdline cl; /* static: reachable to the end, whichever way we return */
	char err[512];
	int ret;
	struct krecord *kr = NULL;

	cl.out = "trace.dat";
	cl.compress = getenv(TP_ENV_COMPRESS);
	ret = parse_options(&cl, argc, argv);
	if (ret != -1)
		return ret;
	/*
	 * The file is written beside the output and renamed over it: that would replace a
	 * device node (as root, /dev/null for everyone) or a link. Refused before anything runs.
	 */
	if (tp_output_check(cl.out, err, sizeof(err)) < 0) {
		tool_error("record", "%s", err);
		return EXIT_FAIL;
	}
	ret = open_codec(cl.compress);
	if (ret != -1)
		return ret;
	if (cl.assemble) {
		if (cl.events || cl.pid || cl.filter || cl.duration || cl.mode || cl.buffer ||
		    optind < argc || cl.ksel.ngroups) {
			tool_error("record", "--assemble takes a directory and -o, nothing else");
			return EXIT_USAGE;
		}
		return record_assemble(cl.assemble, cl.out);
	}
	ret = check_options(&cl, argc);
	if (ret != -1)
		return ret;
	if (!cl.pid && optind < argc && cl.events && check_before_start(argv[optind], cl.events) < 0)
		return EXIT_FAIL;
	if (!cl.pid && optind < argc && !cl.events)
		tool_warn("record", "note: no -e: none of the events of %s are selected, "
			"only the kernel's (-k); -e GLOB selects them", argv[optind]);
	/* From here on, the stop signals end the recording cleanly, in whatever form. */
	stop_signals_set(on_stop);
	/* Spools a recorder killed before us left beside our file: said, to be assembled. */
	if (!cl.ksel.ngroups || cl.pid || optind < argc)
		owner_say_unfinished("record", cl.out);
	/*
	 * The kernel's side, before anything runs: every -k names events, every -f after one
	 * the kernel accepts; else nothing is left behind and no command is started.
	 */
	if (cl.ksel.ngroups) {
		kr = krec_setup(&cl.ksel, err, sizeof(err));
		if (!kr) {
			tool_error("record", "-k: %s", err);
			return EXIT_FAIL;
		}
	}
	if (cl.pid) {
		ret = record_pid(cl.pid, &cl.sel, cl.out, cl.duration, cl.mode ? cl.mode : "discard",
				 cl.bytes, kr, cl.kernel_pids);
		krec_free(kr);
		return ret;
	}
	if (kr && optind >= argc) {
		ret = record_kernel(kr, cl.out, cl.duration);
		krec_free(kr);
		return ret;
	}
	if (optind >= argc) {
		tool_error("record", "no command to run; usage: tpoint record -e GLOB -- CMD [ARGS...]");
		return EXIT_USAGE;
	}
	return record_command(argv + optind, &(struct record_args){ cl.events, &cl.sel, cl.filter,
			      cl.out, cl.buffer, cl.mode, cl.kernel_pids }, kr);
}
