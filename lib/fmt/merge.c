// SPDX-License-Identifier: MIT
/* The time-ordered merge of record sources (lib/fmt/merge.h: the tie rule is there). */
#include <stdlib.h>

#include "merge.h"

int tp_merge_init(struct tp_merge *m, size_t max)
{
	m->n = 0;
	m->cap = max ? max : 1;
	m->heap = malloc((max ? max : 1) * sizeof(*m->heap));
	return m->heap ? 0 : -1;
}

int tp_merge_add(struct tp_merge *m, struct tp_merge_src *s)
{
	size_t i = m->n;

	if (i == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 16;
		struct tp_merge_src **grown = realloc(m->heap, cap * sizeof(*grown));

		if (!grown)
			return -1;
		m->heap = grown;
		m->cap = cap;
	}
	m->n++;
	for (; i > 0 && tp_merge_before(s, m->heap[(i - 1) / 2]); i = (i - 1) / 2)
		m->heap[i] = m->heap[(i - 1) / 2];
	m->heap[i] = s;
	return 0;
}

static void sift_down(struct tp_merge *m, size_t i)
{
	struct tp_merge_src **h = m->heap;
	size_t n = m->n;

	for (;;) {
		size_t l = 2 * i + 1, least = i;

		if (l < n && tp_merge_before(h[l], h[least]))
			least = l;
		if (l + 1 < n && tp_merge_before(h[l + 1], h[least]))
			least = l + 1;
		if (least == i)
			return;
		struct tp_merge_src *t = h[i];

		h[i] = h[least];
		h[least] = t;
		i = least;
	}
}

void tp_merge_advanced(struct tp_merge *m, bool has)
{
	if (!m->n)
		return;
	if (!has)
		m->heap[0] = m->heap[--m->n];
	sift_down(m, 0);
}

void tp_merge_free(struct tp_merge *m)
{
	free(m->heap);
	m->heap = NULL;
	m->n = m->cap = 0;
}
