/* SPDX-License-Identifier: MIT */
/* The parsed CTL_STATS text, for tpoint stat and tpoint top. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmt/control_msg.h"
#include "glob.h"
#include "stat_rows.h"

const char *const stat_keys[STAT_NCOUNTERS] = { "hits", "condition_skipped", "filtered",
						"recorded", "lost" };

/* The rows of fmt/control_msg.h's struct ctl_stat_row. */
int stat_rows_parse(char *text, const char *globs, struct stat_row **rows)
{
	struct ctl_stat_row row;
	char *cur = text;
	int n = 0, got;

	*rows = NULL;
	while ((got = tp_ctl_stat_row_next(&cur, &row))) {
		if (got < 0)
			return -1;
		if (globs && !globs_select_event(globs, row.event))
			continue;
		struct stat_row *r = realloc(*rows, (size_t)(n + 1) * sizeof(**rows));

		if (!r)
			return -1;
		*rows = r;
		r = &r[n++];
		snprintf(r->event, sizeof(r->event), "%s", row.event);
		for (int i = 0; i < STAT_NCOUNTERS; i++)
			r->v[i] = row.v[i];
		snprintf(r->condition, sizeof(r->condition), "%s", row.condition);
		r->usdt = row.usdt;
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
