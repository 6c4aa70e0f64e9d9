// SPDX-License-Identifier: MIT
/* One cursor over trace.dat files, merged by time (td_merge.h). */
#include <stdlib.h>

#include "fmt/merge.h"
#include "td_merge.h"

/* One CPU of one buffer of one file. */
struct td_src {
	struct tp_merge_src key; /* first: the merge hands back its address */
	size_t file;
	const struct tracedat *td;
	struct td_cursor c;
	struct td_event ev;
	long long carried; /* losses of records left out: 0 none, -1 an unknown number */
};

struct td_merge {
	struct tp_merge heap;
	struct td_src **srcs; /* one array per file: the merge keeps pointers into them */
	size_t nr_files;
	uint64_t next_tie;
	bool given; /* the top's record was handed out: it moves on at the next call */
	td_merge_keep_fn keep;
	void *keep_ctx;
};

/* The source's next record: true if it has one, its time in key.ns. */
static bool src_load(struct td_src *s)
{
	if (tracedat_next_event(&s->c, &s->ev) != 1)
		return false;
	s->key.ns = tracedat_ts(s->td, s->ev.ts);
	return true;
}

struct td_merge *td_merge_new(void)
{
	struct td_merge *m = calloc(1, sizeof(*m));

	if (m && tp_merge_init(&m->heap, 16)) {
		free(m);
		return NULL;
	}
	return m;
}

int td_merge_add(struct td_merge *m, const struct tracedat *td)
{
	size_t n = td->nr_buffers * (size_t)td->nr_cpus, at = 0;
	struct td_src **grown = realloc(m->srcs, (m->nr_files + 1) * sizeof(*grown));
	struct td_src *srcs;

	if (!grown)
		return -1;
	m->srcs = grown;
	srcs = calloc(n + 1, sizeof(*srcs));
	if (!srcs)
		return -1;
	m->srcs[m->nr_files] = srcs;
	/* the tie numbers: file, then buffer, then CPU (lib/fmt/merge.h) */
	for (size_t b = 0; b < td->nr_buffers; b++)
		for (uint32_t cpu = 0; cpu < td->nr_cpus; cpu++) {
			struct td_src *s = &srcs[at];

			if (!td->buffers[b].cpus[cpu].nr_pages)
				continue;
			s->key.tie = m->next_tie++;
			s->file = m->nr_files;
			s->td = td;
			tracedat_cursor_init(&s->c, td, b, cpu);
			at++;
			if (src_load(s) && tp_merge_add(&m->heap, &s->key))
				return -1;
		}
	m->nr_files++;
	return 0;
}

void td_merge_select(struct td_merge *m, td_merge_keep_fn keep, void *ctx)
{
	m->keep = keep;
	m->keep_ctx = ctx;
}

/* Two counts of lost records as one: an unknown number makes the sum unknown. */
static long long losses_add(long long a, long long b)
{
	return a < 0 || b < 0 ? -1 : a + b;
}

int td_merge_next(struct td_merge *m, struct td_merge_rec *r)
{
	struct td_src *s = (struct td_src *)(void *)tp_merge_top(&m->heap);

	for (;;) {
		/*
		 * The source of the record handed out last moves on only now: that record (in a
		 * page of the file, for version 7 a page expanded for its CPU) stays valid until
		 * this call.
		 */
		if (s && m->given)
			tp_merge_advanced(&m->heap, src_load(s));
		m->given = false;
		s = (struct td_src *)(void *)tp_merge_top(&m->heap);
		if (!s)
			return 0;
		r->file = s->file;
		r->buffer = s->c.buffer;
		r->cpu = s->c.cpu_nr;
		r->ts = s->key.ns;
		r->data = s->ev.data;
		r->size = s->ev.size;
		r->missed = s->ev.missed;
		m->given = true;
		if (!m->keep || m->keep(m->keep_ctx, r))
			break;
		s->carried = losses_add(s->carried, r->missed);
	}
	if (s->carried) {
		r->missed = losses_add(s->carried, r->missed);
		s->carried = 0;
	}
	return 1;
}

void td_merge_free(struct td_merge *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nr_files; i++)
		free(m->srcs[i]);
	free(m->srcs);
	tp_merge_free(&m->heap);
	free(m);
}
