/* SPDX-License-Identifier: MIT */
/* The parsed CTL_STATS text, for tpoint stat and tpoint top. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "glob.h"
#include "stat_rows.h"

const char *const stat_keys[STAT_NCOUNTERS] = { "hits", "condition_skipped", "filtered",
						"recorded", "lost" };

/* Lines of "event\thits\tskipped\tfiltered\trecorded\tlost[\tcondition]". */
int stat_rows_parse(char *text, const char *globs, struct stat_row **rows)
{
	int n = 0;
	char *save = NULL;

	*rows = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[8], *fs = line;
		int k = 0;

		/* Split at each tab, empty fields kept: the condition may be "". */
		while (fs && k < 8)
			f[k++] = strsep(&fs, "\t");
		if (k < 6)
			return -1;
		if (globs && !globs_select_event(globs, f[0]))
			continue;
		struct stat_row *r = realloc(*rows, (size_t)(n + 1) * sizeof(**rows));

		if (!r)
			return -1;
		*rows = r;
		r = &r[n++];
		snprintf(r->event, sizeof(r->event), "%s", f[0]);
		for (int i = 0; i < STAT_NCOUNTERS; i++)
			r->v[i] = strtoull(f[1 + i], NULL, 10);
		snprintf(r->condition, sizeof(r->condition), "%s", k >= 7 ? f[6] : "");
		r->usdt = k == 8 ? strtoull(f[7], NULL, 10) : 0;
	}
	return n;
}

const struct stat_row *stat_rows_find(const struct stat_row *rows, int n, const char *event)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(rows[i].event, event))
			return &rows[i];
	return NULL;
}
