/* SPDX-License-Identifier: MIT */
/* See glob.h: the tool's words around the one matcher, lib/globs.c. */
#define _GNU_SOURCE

#include "glob.h"
#include "globs.h"
#include "fmt/selection.h"
#include "tool.h"

bool globs_select(const char *globs, const char *system, const char *name)
{
	return tp_globs_select(globs, system, name);
}

int globs_check(const char *verb, const char *globs)
{
	if (tp_globs_valid(globs))
		return 0;
	tool_error(verb, "'%s': expected comma-separated globs like 'sys:*,sys:event'", globs);
	return -1;
}

bool globs_select_event(const char *globs, const char *event)
{
	char system[256];
	const char *name;

	return tp_event_split(event, system, sizeof(system), &name) &&
	       tp_globs_select(globs, system, name);
}
