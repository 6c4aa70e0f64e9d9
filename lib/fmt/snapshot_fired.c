// SPDX-License-Identifier: MIT
/* The snapshot option's text (see snapshot_fired.h). */
#include <stdio.h>
#include <string.h>
#include "snapshot_fired.h"

size_t tp_snapshot_fired_format(char *buf, size_t len, const struct snapshot_fired *f)
{
	int n = snprintf(buf, len, "%s\t%llu\t%u\n", f->event, (unsigned long long)f->ns,
			 (unsigned)f->tid);

	return n > 0 && (size_t)n < len && !strchr(f->event, '\t') ? (size_t)n + 1 : 0;
}

int tp_snapshot_fired_parse(const void *data, size_t size, struct snapshot_fired *out)
{
	const char *s = data;
	unsigned long long ns;
	unsigned tid;
	int end = 0;

	/* A C string of its own: sscanf() must not read past the option. */
	if (!size || s[size - 1] || memchr(s, 0, size) != s + size - 1)
		return -1;
	if (sscanf(s, "%159[^\t]\t%llu\t%u\n%n", out->event, &ns, &tid, &end) != 3 ||
	    (size_t)end != size - 1)
		return -1;
	out->ns = ns;
	out->tid = tid;
	return 0;
}
