/* SPDX-License-Identifier: MIT */
/* See glob.h. */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "glob.h"
#include "tool.h"

/* fnmatch() of the first len bytes of glob: the globs are the user's, of any length. */
static bool part_matches(const char *glob, size_t len, const char *s)
{
	char *part = strndup(glob, len);
	bool m = part && !fnmatch(part, s, 0);

	free(part);
	return m;
}

bool glob_selects(const char *glob, const char *system, const char *name)
{
	const char *colon = strchr(glob, ':');

	if (colon)
		return part_matches(glob, (size_t)(colon - glob), system) &&
		       !fnmatch(colon + 1, name, 0);
	return !fnmatch(glob, system, 0) || !fnmatch(glob, name, 0);
}

bool globs_select(const char *globs, const char *system, const char *name)
{
	for (const char *p = globs; p && *p;) {
		size_t n = strcspn(p, ",");

		if (n) {
			char *one = strndup(p, n);
			bool hit = one && glob_selects(one, system, name);

			free(one);
			if (hit)
				return true;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return false;
}

int globs_check(const char *verb, const char *globs)
{
	for (const char *p = globs;; p++) {
		size_t n = strcspn(p, ",");

		if (!n || strcspn(p, " \t\n") < n) {
			tool_error(verb, "'%s': expected comma-separated globs like 'sys:*,sys:event'",
				   globs);
			return -1;
		}
		p += n;
		if (!*p)
			return 0;
	}
}

bool globs_select_event(const char *globs, const char *event)
{
	const char *colon = strchr(event, ':');
	char *system;
	bool hit;

	if (!colon)
		return false;
	system = strndup(event, (size_t)(colon - event));
	hit = system && globs_select(globs, system, colon + 1);
	free(system);
	return hit;
}
