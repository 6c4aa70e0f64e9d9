/* SPDX-License-Identifier: MIT */
/* The tool's messages on stderr, in its one form: "tpoint VERB: message". */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "escape.h"
#include "tool_error.h"

static void tool_vsay(const char *verb, const char *fmt, va_list ap)
{
	char *msg = NULL;
	int n;

	fprintf(stderr, "tpoint %s: ", verb);
	n = vasprintf(&msg, fmt, ap);
	/* messages name what other processes and files said: escaped on a terminal */
	if (n >= 0 && text_tty(stderr))
		text_write_escaped(stderr, msg, (size_t)n, true);
	else if (n >= 0)
		fputs(msg, stderr);
	else
		fputs(fmt, stderr); /* out of memory: the words without their values */
	fputc('\n', stderr);
	free(msg);
}

void tool_error(const char *verb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tool_vsay(verb, fmt, ap);
	va_end(ap);
}

void tool_warn(const char *verb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tool_vsay(verb, fmt, ap);
	va_end(ap);
}

void tool_error_lines(const char *verb, const char *prefix, const char *lines)
{
	for (const char *l = lines; l && *l;) {
		size_t len = strcspn(l, "\n");

		tool_error(verb, "%s%.*s", prefix, (int)len, l);
		l += len + (l[len] == '\n');
	}
}
