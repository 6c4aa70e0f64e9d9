/* SPDX-License-Identifier: MIT */
/*
 * tracedat_problems - what the spools hold that cannot be read, and the spools that end
 * without their end mark, as lines for the result (tracedat_result); the writer's errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "filter.h"
#include "growbuf.h"
#include "ringbuf.h"
#include "tracedat_format.h"
#include "tracedat_v7.h"
#include "tracedat_writer.h"


static void add_line(char **text, size_t *count, const char *path, size_t off,
		     const char *fmt, va_list ap)
{
	char what[256], *n;
	size_t len = *text ? strlen(*text) : 0;
	int add;

	if ((*count)++ >= PROBLEM_LINES)
		return;
	vsnprintf(what, sizeof(what), fmt, ap);
	add = snprintf(NULL, 0, "%s: offset %zu: %s\n", path, off, what);
	n = add > 0 ? realloc(*text, len + (size_t)add + 1) : NULL;
	if (!n)
		return;
	snprintf(n + len, (size_t)add + 1, "%s: offset %zu: %s\n", path, off, what);
	*text = n;
}

/* Bytes of spool s at file offset off cannot be read: said, and the recording goes on. */
__attribute__((format(printf, 4, 5)))
void tp_tdw_damaged(struct writer_state *w, const struct spool_in *s, size_t off,
		    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_line(&w->damage, &w->ndamage, s->path, off, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 4, 5)))
void tp_tdw_unfinished(struct writer_state *w, const struct spool_in *s, size_t off,
		       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_line(&w->unfinished, &w->nunfinished, s->path, off, fmt, ap);
	va_end(ap);
}

/* The lines kept, and how many more there were, for the result. */
char *tp_tdw_problem_text(char *text, size_t count)
{
	size_t len = text ? strlen(text) : 0;
	char *n;

	if (count <= PROBLEM_LINES)
		return text;
	n = realloc(text, len + 64);
	if (!n)
		return text;
	snprintf(n + len, 64, "... and %zu more\n", count - PROBLEM_LINES);
	return n;
}

int tp_tdw_writer_fail(struct writer_state *w, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err, w->errlen, fmt, ap);
	va_end(ap);
	return err;
}
