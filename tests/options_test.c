// SPDX-License-Identifier: MIT
/*
 * options_test - the verbs' option tables (tools/tpoint/options.c) on their own: what the
 * parser returns for a command line, the operands it leaves, the one message of a bad
 * option, the warning of a deprecated letter, and the help written from a table.
 * tests/cli.sh checks every verb of the tool end to end.
 *
 * Exit 0 when every check passes; each check prints one line.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "tool.h"

static int checks, failures;

static void check(int ok, const char *what)
{
	checks++;
	failures += !ok;
	printf("%s: %s\n", ok ? "ok" : "FAIL", what);
}

static const struct opts_spec spec = {
	.verb = "demo",
	.usage = (const char *const[]){ "tpoint demo [-p PID] [FILE...]", NULL },
	.about = "A verb to test the parser.\n",
	.opts = (const struct opt[]){
		OPT_PID("the process"),
		OPT_OUTPUT("FILE", "where to write\nsecond line"),
		OPT_FORCE('f', "replace"),
		{ 'F', 'F', "format", OPT_NO_VALUE, NULL, "formats", 'x' },
		{ 'z', 0, "compress", OPT_MAYBE_VALUE, "C", "compress", 0 },
		OPT_END,
	},
	.after = "Exit status: 0.\n",
};

/* Runs the parser over argv; the ids and values it returned, then "| " and the operands. */
static const char *parse(char **argv, char *out, size_t len)
{
	struct opts o;
	int argc = 0, c;
	size_t at = 0;

	while (argv[argc])
		argc++;
	opts_start(&o, &spec, argc, argv);
	while ((c = opts_next(&o)) != OPTS_END) {
		if (c < 0) {
			snprintf(out + at, len - at, "exit %d", opts_exit(c));
			return out;
		}
		at += (size_t)snprintf(out + at, len - at, "%d=%s ", c, o.value ? o.value : "-");
	}
	at += (size_t)snprintf(out + at, len - at, "|");
	for (int i = o.ind; i < argc; i++)
		at += (size_t)snprintf(out + at, len - at, " %s", argv[i]);
	return out;
}

/* stderr into a file while fn runs; what was written, in buf. */
static FILE *err_file;
static int saved_err = -1;

static void err_begin(void)
{
	fflush(stderr);
	err_file = tmpfile();
	saved_err = dup(2);
	dup2(fileno(err_file), 2);
}

static const char *err_end(char *buf, size_t len)
{
	size_t n;

	fflush(stderr);
	dup2(saved_err, 2);
	close(saved_err);
	rewind(err_file);
	n = fread(buf, 1, len - 1, err_file);
	buf[n] = 0;
	fclose(err_file);
	return buf;
}

static void parses(const char *what, char **argv, const char *want_out, const char *want_err)
{
	char out[512] = "", err[512];

	err_begin();
	parse(argv, out, sizeof(out));
	err_end(err, sizeof(err));
	if (strcmp(out, want_out) || strcmp(err, want_err))
		printf("  got '%s' and stderr '%s'\n", out, err);
	check(!strcmp(out, want_out) && !strcmp(err, want_err), what);
}

int main(void)
{
	char buf[4096];
	FILE *f;
	size_t n;

	parses("letters, values, operands after options",
	       (char *[]){ "demo", "-p", "12", "a", "-oX", "b", NULL }, "112=12 111=X | a b", "");
	parses("long names, =value, a prefix",
	       (char *[]){ "demo", "--pid=3", "--out", "Y", "--forc", NULL },
	       "112=3 111=Y 256=- |", "");
	parses("an optional value",
	       (char *[]){ "demo", "--compress", "--compress=zstd", NULL }, "122=- 122=zstd |", "");
	parses("-- ends the options", (char *[]){ "demo", "--", "-p", NULL }, "| -p", "");
	parses("an unknown letter",
	       (char *[]){ "demo", "-Q", NULL }, "exit 2",
	       "tpoint demo: unknown option '-Q'; see 'tpoint demo --help'\n");
	parses("an unknown long name",
	       (char *[]){ "demo", "--bogus=1", NULL }, "exit 2",
	       "tpoint demo: unknown option '--bogus'; see 'tpoint demo --help'\n");
	parses("a missing value",
	       (char *[]){ "demo", "-p", NULL }, "exit 2",
	       "tpoint demo: option '-p' needs a value; see 'tpoint demo --help'\n");
	parses("a value given to a long name that takes none",
	       (char *[]){ "demo", "--force=1", NULL }, "exit 2",
	       "tpoint demo: option '--force' takes no value; see 'tpoint demo --help'\n");
	parses("a deprecated letter for a long name",
	       (char *[]){ "demo", "-f", NULL }, "256=- |",
	       "tpoint demo: -f is deprecated and goes in the next release; use --force\n");
	parses("a deprecated letter for a letter",
	       (char *[]){ "demo", "-x", NULL }, "70=- |",
	       "tpoint demo: -x is deprecated and goes in the next release; use -F (--format)\n");

	f = tmpfile();
	opts_help(&spec, f);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	const char *want = "usage: tpoint demo [-p PID] [FILE...]\n"
			   "\n"
			   "A verb to test the parser.\n"
			   "\n"
			   "  -p, --pid PID       the process\n"
			   "  -o, --output FILE   where to write\n"
			   "                      second line\n"
			   "      --force         replace\n"
			   "  -F, --format        formats\n"
			   "      --compress[=C]  compress\n"
			   "  -h, --help          this text\n"
			   "\n"
			   "Exit status: 0.\n";
	if (strcmp(buf, want))
		printf("  got:\n%s", buf);
	check(!strcmp(buf, want), "the help written from the table");
	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
