/* SPDX-License-Identifier: MIT */
/* See globs.h. */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "globs.h"

/*
 * fnmatch() of the len bytes of pattern against s. Event names are short, globs usually
 * too: a copy on the stack, on the heap only for a longer glob (which may still match, as
 * "a*****b" does). Nothing here holds a lock or a thread's state, so malloc is allowed.
 */
static bool part_matches(const char *pattern, size_t len, const char *s)
{
	char small[256], *p = small;
	bool m;

	if (len >= sizeof(small)) {
		p = malloc(len + 1);
		if (!p)
			return false;
	}
	memcpy(p, pattern, len);
	p[len] = 0;
	m = fnmatch(p, s, 0) == 0;
	if (p != small)
		free(p);
	return m;
}

bool tp_glob_selects(const char *glob, size_t len, const char *system, const char *name)
{
	const char *colon = memchr(glob, ':', len);

	if (colon) {
		size_t n = (size_t)(colon - glob);

		return part_matches(glob, n, system) &&
		       part_matches(colon + 1, len - n - 1, name);
	}
	return part_matches(glob, len, system) || part_matches(glob, len, name);
}

bool tp_globs_next(const char **cursor, const char **glob, size_t *len)
{
	const char *p = *cursor;

	while (p && *p == ',')
		p++;
	*cursor = p;
	if (!p || !*p)
		return false;
	*glob = p;
	*len = strcspn(p, ",");
	*cursor = p + *len;
	return true;
}

bool tp_globs_select(const char *list, const char *system, const char *name)
{
	const char *glob;
	size_t n;

	for (const char *at = list; tp_globs_next(&at, &glob, &n);)
		if (tp_glob_selects(glob, n, system, name))
			return true;
	return false;
}

bool tp_globs_valid(const char *list)
{
	if (!list)
		return false;
	for (const char *p = list;; p++) {
		size_t n = strcspn(p, ",");

		if (!n || strcspn(p, " \t\n") < n)
			return false;
		p += n;
		if (!*p)
			return true;
	}
}
