/* SPDX-License-Identifier: MIT */
/* What the modes of tpoint record share: spools, the summary, the stop signals. */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "glob.h"
#include "record.h"
#include "tool.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d) {
		while ((e = readdir(d))) {
			char *p;

			if (e->d_name[0] == '.')
				continue;
			if (asprintf(&p, "%s/%s", dir, e->d_name) >= 0) {
				unlink(p);
				free(p);
			}
		}
		closedir(d);
	}
	return rmdir(dir);
}

/* The spools in dir, sorted (one per process): 0, or -1 if there is none. */
int collect_spools(const char *dir, char ***spools, size_t *nspools)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	*spools = NULL;
	*nspools = 0;
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char **n;

		if (len < 7 || strcmp(e->d_name + len - 6, ".spool"))
			continue;
		n = realloc(*spools, (*nspools + 1) * sizeof(*n));
		if (!n)
			break;
		*spools = n;
		if (asprintf(&n[*nspools], "%s/%s", dir, e->d_name) >= 0)
			(*nspools)++;
	}
	if (d)
		closedir(d);
	if (!*nspools)
		return -1;
	qsort(*spools, *nspools, sizeof(**spools), cmp_str);
	return 0;
}

void free_spools(char **spools, size_t nspools)
{
	for (size_t i = 0; i < nspools; i++)
		free(spools[i]);
	free(spools);
}

/*
 * What was recorded: the events in the file, and each event's counters. An event whose
 * counts are unknown (a process that recorded it ended without writing them) shows '?', if
 * `globs` selects it (NULL: every such event).
 */
void print_summary(const char *out, const struct tracedat_result *res, size_t nproc,
			  const char *globs)
{
	unsigned long long kernel = 0; /* the kernel's records are the system's, not a process's */

	for (size_t i = 0; i < res->nev; i++)
		kernel += res->ev[i].kernel ? res->ev[i].recorded : 0;
	if (kernel > res->events)
		kernel = res->events;
	if (nproc && kernel)
		tool_warn("record", "%s: %llu events from %zu process%s, %llu lost; "
			"%llu events of the kernel", out, (unsigned long long)res->events - kernel,
			nproc, nproc == 1 ? "" : "es", (unsigned long long)res->lost, kernel);
	else if (nproc && res->uncounted)
		tool_warn("record", "%s: %llu events from %zu process%s, %llu lost by "
			"the pages' marks (maybe more: the counters of %zu process%s are missing)",
			out, (unsigned long long)res->events, nproc, nproc == 1 ? "" : "es",
			(unsigned long long)res->lost, res->uncounted, res->uncounted == 1 ? "" : "es");
	else if (nproc)
		tool_warn("record", "%s: %llu events from %zu process%s, %llu lost",
			out, (unsigned long long)res->events, nproc, nproc == 1 ? "" : "es",
			(unsigned long long)res->lost);
	else
		tool_warn("record", "%s: %llu events of the kernel", out,
			(unsigned long long)res->events);
	/* The same split `tpoint report --stats` prints: one truth, and where it shows. */
	if (res->lost && res->lost_marked < res->lost)
		fprintf(stderr, "  of the %llu lost, %llu are marked where they happened ([N EVENTS "
			"DROPPED] in the report), %llu have no later record of their thread to mark "
			"(lost at its end, or in pages that never reached the file)\n",
			(unsigned long long)res->lost, (unsigned long long)res->lost_marked,
			(unsigned long long)(res->lost - res->lost_marked));
	else if (res->lost)
		fprintf(stderr, "  all %llu lost are marked where they happened ([N EVENTS DROPPED] "
			"in the report)\n", (unsigned long long)res->lost);
	fprintf(stderr, "  %-40s %12s %12s %12s %12s %12s\n", "event", "hits", "cond-skipped",
		"filtered", "recorded", "lost");
	for (size_t i = 0; i < res->nev; i++) {
		char name[2 * TPOINT_NAME_MAX + 2];

		if (res->ev[i].uncounted) {
			if (globs && !globs_select(globs, res->ev[i].system, res->ev[i].name))
				continue;
			snprintf(name, sizeof(name), "%s:%s", res->ev[i].system, res->ev[i].name);
			fprintf(stderr, "  %-40s %12s %12s %12s %12s %12s\n", name, "?", "?", "?",
				"?", "?");
			continue;
		}
		if (!res->ev[i].hits)
			continue;
		snprintf(name, sizeof(name), "%s:%s", res->ev[i].system, res->ev[i].name);
		fprintf(stderr, "  %-40s %12llu %12llu %12llu %12llu %12llu\n", name,
			(unsigned long long)res->ev[i].hits,
			(unsigned long long)res->ev[i].cond_skipped,
			(unsigned long long)res->ev[i].filtered,
			(unsigned long long)res->ev[i].recorded, (unsigned long long)res->ev[i].lost);
	}
	/* What the counts do not say: why an event recorded nothing, or lost what it lost. */
	for (size_t i = 0; i < res->nev; i++) {
		const struct tracedat_event *e = &res->ev[i];

		if (e->refused)
			fprintf(stderr, "  %s:%s: refused, it stays off: libtraceevent cannot render "
				"its TP_printk ('tpoint list --check' names the problem)\n", e->system,
				e->name);
		else if (e->reg_error)
			fprintf(stderr, "  %s:%s: refused, it stays off: its reg function returned "
				"%d\n", e->system, e->name, e->reg_error);
		if (e->too_big)
			fprintf(stderr, "  %s:%s: %llu lost record%s too big for a page (over "
				"%u bytes, TPOINT_MAX_PAYLOAD)\n", e->system, e->name,
				(unsigned long long)e->too_big, e->too_big == 1 ? " was" : "s were",
				(unsigned)TPOINT_MAX_PAYLOAD);
	}
	char warn[512];

	if (tp_tracedat_size_warning(res, warn, sizeof(warn)))
		tool_warn("record", "%s: %s", out, warn);
}

volatile sig_atomic_t stop_requested;
const struct tp_codec *opt_codec;

void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/*
 * The signals that end a recording cleanly: the file is written, the instance and our
 * directories removed. A hang-up (a closed terminal, a dropped ssh session) and a reader that
 * went away (tpoint record ... | head) are endings like Ctrl-C and SIGTERM, not a reason to
 * leave a spool, an instance that keeps tracing, or nothing at all.
 */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

void stop_signals_set(void (*handler)(int))
{
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		signal(stop_signals[i], handler);
}
