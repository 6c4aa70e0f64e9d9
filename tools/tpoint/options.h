/* SPDX-License-Identifier: MIT */
/*
 * The verbs' command lines, from one table each: the table names every option (its letter,
 * its long name, its value's name, its help), one parser reads the command line by it
 * (getopt_long underneath), and `tpoint VERB --help` is written from it, as git's
 * parse-options and perf's do. Every verb says a bad option the same way:
 *
 *   tpoint VERB: unknown option '-x'; see 'tpoint VERB --help'
 *
 * A letter means one thing in every verb; where one had to change, its old spelling is
 * still read, with a warning, for one release (tpoint(1) lists them).
 */
#ifndef TPOINT_OPTIONS_H
#define TPOINT_OPTIONS_H

#include <getopt.h>
#include <stdio.h>

enum opt_value { OPT_NO_VALUE, OPT_VALUE, OPT_MAYBE_VALUE /* --name[=value] */ };

/* Ids of long-only options that are common to verbs (a letter's id is the letter). */
enum { OPT_ID_FORCE = 256 };

struct opt {
	int id;             /* what opts_next() returns for it: its letter, or any other int */
	char letter;        /* -x, or 0 for a long name only */
	const char *name;   /* --name, or NULL for a letter only */
	enum opt_value value;
	const char *value_name; /* in the help: "PID" (or "C" for --name[=C]) */
	const char *help;   /* its help, lines split by '\n' */
	char old_letter;    /* a spelling still read for one release, with a warning */
};

/* The options every verb that takes them spells the same way; the help is the verb's. */
#define OPT_PID(help) { 'p', 'p', "pid", OPT_VALUE, "PID", help, 0 }
#define OPT_EVENTS(help) { 'e', 'e', "events", OPT_VALUE, "GLOBS", help, 0 }
#define OPT_FILTER(help) { 'f', 'f', "filter", OPT_VALUE, "EXPR", help, 0 }
#define OPT_OUTPUT(value_name, help) { 'o', 'o', "output", OPT_VALUE, value_name, help, 0 }
#define OPT_JSON(help) { 'j', 'j', "json", OPT_NO_VALUE, NULL, help, 0 }
/* --force has no letter: -F is list's --format (as trace-cmd list's -F shows fields) */
#define OPT_FORCE(old_letter, help) \
	{ OPT_ID_FORCE, 0, "force", OPT_NO_VALUE, NULL, help, old_letter }
#define OPT_END { 0, 0, NULL, OPT_NO_VALUE, NULL, NULL, 0 }

struct opts_spec {
	const char *verb;
	const char *const *usage; /* the forms of the command line, NULL-ended */
	const char *about;        /* what the verb does, after the forms (may be NULL) */
	const char *after;        /* after the options: exit status, keys (may be NULL) */
	const struct opt *opts;   /* ended by OPT_END; -h, --help is added */
	int stop_at_operand;      /* options end at the first operand (a command follows) */
};

#define OPTS_MAX 24
/* What opts_next() returns besides an option's id. */
#define OPTS_END (-1)  /* the options are read: the operands are argv[o->ind...] */
#define OPTS_HELP (-2) /* --help was printed on stdout: exit EXIT_OK */
#define OPTS_BAD (-3)  /* a bad option was said on stderr: exit EXIT_USAGE */

struct opts {
	const struct opts_spec *spec;
	int argc;
	char **argv;
	const char *value; /* the value of the option just returned (NULL without one) */
	int ind;           /* after OPTS_END: the first operand */
	struct option longopts[OPTS_MAX + 2];
	char letters[OPTS_MAX * 3 + 4];
};

void opts_start(struct opts *o, const struct opts_spec *spec, int argc, char **argv);
int opts_next(struct opts *o);
/* EXIT_OK after OPTS_HELP, EXIT_USAGE after OPTS_BAD. */
int opts_exit(int c);
/* The forms of the command line ("usage: ..."), as a usage error shows them. */
void opts_usage(const struct opts_spec *spec, FILE *f);
/* The whole help: forms, about, options, after. */
void opts_help(const struct opts_spec *spec, FILE *f);

#endif
