/* SPDX-License-Identifier: MIT */
/*
 * A growing buffer of bytes, kept NUL-terminated so that text built in it is a string: the
 * format text (format.c), metadata blocks and options gathered for version 7 (tracedat.c,
 * tracedat_v7.c, tools/tpoint/convert_tracedat.c) and the renderer's rewritten print fmt
 * (tools/tpoint/kprint.c). An allocation failure sticks (oom): the builder carries on
 * without effect, and its owner looks once at the end.
 */
#ifndef TPOINT_GROWBUF_H
#define TPOINT_GROWBUF_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct tp_growbuf {
	char *p;	/* NULL until something is added */
	size_t len, cap;
	bool oom;
};

static inline void tp_growbuf_add(struct tp_growbuf *b, const void *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *grown;

		while (cap < b->len + n + 1)
			cap *= 2;
		grown = realloc(b->p, cap);
		if (!grown) {
			b->oom = true;
			return;
		}
		b->p = grown;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static inline void tp_growbuf_str(struct tp_growbuf *b, const char *s)
{
	tp_growbuf_add(b, s, strlen(s));
}

#endif
