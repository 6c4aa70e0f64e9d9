/* SPDX-License-Identifier: MIT */
/* tpoint - record and read the tracepoints of C programs. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tool.h"

static const struct verb {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} verbs[] = {
	{ "list", cmd_list, "list the events compiled into a program or library" },
	{ "record", cmd_record, "run a command and record its events to trace.dat" },
	{ "report", cmd_report, "print the events of a trace.dat file" },
	{ "convert", cmd_convert, "convert trace.dat files to CTF or JSON lines" },
	{ "ps", cmd_ps, "list the running processes that have tpoint events" },
	{ "stat", cmd_stat, "show the event counters of a running process" },
	{ "enable", cmd_enable, "enable events of a running process" },
	{ "disable", cmd_disable, "disable events of a running process" },
	{ "filter", cmd_filter, "set or clear an event filter in a running process" },
	{ "trigger", cmd_trigger, "set or remove an event trigger (hist:) in a running process" },
	{ "stream", cmd_stream, "print the events of a running process as they happen" },
	{ "snapshot", cmd_snapshot, "write what a running process's buffers hold now" },
	{ "hist", cmd_hist, "the kernel's histogram triggers (hist:keys=...), live" },
	{ "top", cmd_top, "who dirties which file, and the rates of every process's events" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: tpoint VERB [options]\n\nverbs:\n");
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		fprintf(f, "  %-8s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(f, "\n'tpoint VERB --help' describes each verb; man tpoint(1) has the whole story.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("tpoint %s\n", TPOINT_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(argv[1], verbs[i].name))
			return verbs[i].run(argc - 1, argv + 1);
	fprintf(stderr, "tpoint: '%s' is not a verb; 'tpoint --help' lists them\n", argv[1]);
	return EXIT_USAGE;
}
