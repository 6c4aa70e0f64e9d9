/* SPDX-License-Identifier: MIT */
/* The verbs' option tables read and shown (options.h). */
#include <stdlib.h>
#include <string.h>
#include "options.h"
#include "tool.h"

/* getopt_long's value for a long name: its row, above every letter. */
#define LONG_BASE 0x1000

static const struct opt help_opt = { 'h', 'h', "help", OPT_NO_VALUE, NULL, "this text", 0 };

/* The verb's rows, then -h, --help, then NULL. */
static const struct opt *row(const struct opts_spec *spec, size_t i)
{
	size_t n = 0;

	while (spec->opts[n].help)
		n++;
	return i < n ? &spec->opts[i] : i == n ? &help_opt : NULL;
}

void opts_start(struct opts *o, const struct opts_spec *spec, int argc, char **argv)
{
	char *l = o->letters;
	size_t n = 0;
	const struct opt *r;

	memset(o, 0, sizeof(*o));
	o->spec = spec;
	o->argc = argc;
	o->argv = argv;
	/* '+': a command follows; ':': a missing value told apart from an unknown option */
	if (spec->stop_at_operand)
		*l++ = '+';
	*l++ = ':';
	for (; (r = row(spec, n)) && n < OPTS_MAX; n++) {
		for (int k = 0; k < 2; k++) {
			char c = k ? r->old_letter : r->letter;

			if (!c)
				continue;
			*l++ = c;
			if (r->value == OPT_VALUE)
				*l++ = ':';
		}
		if (r->name)
			o->longopts[n] = (struct option){ r->name, r->value == OPT_VALUE ? required_argument :
						  r->value == OPT_MAYBE_VALUE ? optional_argument : no_argument,
						  NULL, LONG_BASE + (int)n };
		else
			o->longopts[n] = (struct option){ "", no_argument, NULL, 0 }; /* never matches */
	}
	*l = 0;
	o->longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	optind = 1;
	opterr = 0; /* the message is ours, one form for every verb */
}

/* What was wrong with the option just read, named as it was written: "-x" or "--name". */
static void say_bad(struct opts *o, const char *what)
{
	const char *arg = optind > 0 && optind <= o->argc ? o->argv[optind - 1] : "";
	char name[64];

	if (optopt && optopt < LONG_BASE && strncmp(arg, "--", 2))
		snprintf(name, sizeof(name), "-%c", optopt);
	else
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="), arg);
	/* `what` is one of opts_next()'s formats */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	tool_error(o->spec->verb, what, name, o->spec->verb);
#pragma GCC diagnostic pop
}

int opts_next(struct opts *o)
{
	const struct opt *r = NULL;
	int c;

	optopt = 0;
	c = getopt_long(o->argc, o->argv, o->letters, o->longopts, NULL);
	o->value = optarg;
	if (c == -1) {
		o->ind = optind;
		return OPTS_END;
	}
	if (c == '?' && optopt >= LONG_BASE) {
		say_bad(o, "option '%s' takes no value; see 'tpoint %s --help'");
		return OPTS_BAD;
	}
	if (c == '?') {
		say_bad(o, "unknown option '%s'; see 'tpoint %s --help'");
		return OPTS_BAD;
	}
	if (c == ':') {
		say_bad(o, "option '%s' needs a value; see 'tpoint %s --help'");
		return OPTS_BAD;
	}
	if (c >= LONG_BASE) {
		r = row(o->spec, (size_t)(c - LONG_BASE));
	} else {
		for (size_t i = 0; (r = row(o->spec, i)); i++)
			if (r->letter == c)
				break;
		if (!r) {
			for (size_t i = 0; (r = row(o->spec, i)); i++)
				if (r->old_letter == c)
					break;
			if (r && r->letter)
				tool_warn(o->spec->verb, "-%c is deprecated and goes in the next "
					  "release; use -%c (--%s)", c, r->letter, r->name);
			else if (r)
				tool_warn(o->spec->verb, "-%c is deprecated and goes in the next "
					  "release; use --%s", c, r->name);
		}
	}
	if (!r)
		return OPTS_BAD; /* not in the table: cannot happen */
	if (r == &help_opt) {
		opts_help(o->spec, stdout);
		return OPTS_HELP;
	}
	return r->id;
}

int opts_exit(int c)
{
	return c == OPTS_HELP ? EXIT_OK : EXIT_USAGE;
}

void opts_usage(const struct opts_spec *spec, FILE *f)
{
	for (size_t i = 0; spec->usage[i]; i++)
		fprintf(f, "%s%s\n", i ? "       " : "usage: ", spec->usage[i]);
}

/* "-p, --pid PID", "    --assemble DIR", "    --compress[=C]", "-d SECONDS" into buf. */
static int spelling(const struct opt *r, char *buf, size_t len)
{
	bool maybe = r->value == OPT_MAYBE_VALUE;
	int n;

	if (r->letter && r->name)
		n = snprintf(buf, len, "-%c, --%s", r->letter, r->name);
	else if (r->letter)
		n = snprintf(buf, len, "-%c", r->letter);
	else
		n = snprintf(buf, len, "    --%s", r->name);
	if (r->value_name && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "%s%s%s", maybe ? "[=" : " ",
			      r->value_name, maybe ? "]" : "");
	return n;
}

void opts_help(const struct opts_spec *spec, FILE *f)
{
	char buf[128];
	int width = 0;
	const struct opt *r;

	opts_usage(spec, f);
	if (spec->about)
		fprintf(f, "\n%s", spec->about);
	for (size_t i = 0; (r = row(spec, i)); i++) {
		int n = spelling(r, buf, sizeof(buf));

		if (n > width)
			width = n;
	}
	fputc('\n', f);
	for (size_t i = 0; (r = row(spec, i)); i++) {
		const char *h = r->help;

		spelling(r, buf, sizeof(buf));
		fprintf(f, "  %-*s", width + 2, buf);
		for (bool first = true; *h; first = false) {
			size_t len = strcspn(h, "\n");

			fprintf(f, "%*s%.*s\n", first ? 0 : width + 4, "", (int)len, h);
			h += len + (h[len] == '\n');
		}
	}
	if (spec->after)
		fprintf(f, "\n%s", spec->after);
}
