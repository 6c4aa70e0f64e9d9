/* SPDX-License-Identifier: MIT */
/* A process's tracing_on off windows (see tracing_windows.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tracing_windows.h"

int tp_tracing_windows_add(struct tracing_windows *w, const void *body, size_t count)
{
	uint64_t first, *n;

	memcpy(&first, body, 8);
	if (first > w->n || count > SIZE_MAX / 8 - first || first + count <= w->n)
		return 0; /* one before it is missing (damage), or nothing new */
	n = realloc(w->at, (first + count) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	w->at = n;
	memcpy(n + first, (const char *)body + 8, count * 8);
	for (size_t i = first ? first : 1; i < first + count; i++)
		if (n[i] < n[i - 1])
			n[i] = n[i - 1];
	w->n = first + count;
	return 0;
}

bool tp_tracing_windows_off(const struct tracing_windows *w, uint64_t c)
{
	size_t lo = 0, hi = w->n;

	while (lo < hi) { /* lo: how many switches are before c */
		size_t mid = lo + (hi - lo) / 2;

		if (w->at[mid] < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The last switch before c turned it off, and the next (if any) is after c. */
	return (lo & 1) && (lo == w->n || w->at[lo] > c);
}

void tp_tracing_windows_free(struct tracing_windows *w)
{
	free(w->at);
	w->at = NULL;
	w->n = 0;
}
