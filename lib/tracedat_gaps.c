/* SPDX-License-Identifier: MIT */
/*
 * tracedat_gaps - the pages a thread lost (overwritten, or never written): marked on its
 * next page.
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

static int cmp_thread_seq(const void *a, const void *b)
{
	const struct stream_chunk *x = *(const struct stream_chunk *const *)a;
	const struct stream_chunk *y = *(const struct stream_chunk *const *)b;

	if (x->spool != y->spool)
		return x->spool < y->spool ? -1 : 1;
	if (x->hdr->tid != y->hdr->tid)
		return x->hdr->tid < y->hdr->tid ? -1 : 1;
	if (x->hdr->seq != y->hdr->seq)
		return x->hdr->seq < y->hdr->seq ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/*
 * A thread numbers its pages 0, 1, 2, ... across its nesting levels and CPUs. A number
 * missing from the spool is a page that was overwritten (flight-recorder mode) or lost:
 * the next page of the thread carries the mark, as the kernel marks its pages.
 */
int tp_tdw_mark_gaps(struct writer_state *w)
{
	const struct stream_chunk **v = malloc((w->nchunks ? w->nchunks : 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < w->nchunks; i++)
		v[i] = &w->chunks[i];
	qsort(v, w->nchunks, sizeof(*v), cmp_thread_seq);
	for (size_t i = 0; i < w->nchunks; i++) {
		const struct stream_chunk *c = v[i];
		bool first = i == 0 || v[i - 1]->spool != c->spool || v[i - 1]->hdr->tid != c->hdr->tid;
		uint64_t expect = first ? 0 : v[i - 1]->hdr->seq + 1;

		if (!first && v[i - 1]->hdr->seq == c->hdr->seq)
			continue; /* more of the same page */
		if (c->hdr->seq > expect)
			((struct stream_chunk *)c)->gap_before = true;
	}
	free(v);
	return 0;
}
