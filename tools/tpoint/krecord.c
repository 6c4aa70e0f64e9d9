/* SPDX-License-Identifier: MIT */
/* The kernel's side of `tpoint record -k` (krecord.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "kinstance.h"
#include "kpages.h"
#include "krecord.h"
#include "tool_error.h"

/* The instances are named INSTANCE_PREFIX-PID-RANDOM (tpoint(1) says so). */
#define INSTANCE_PREFIX "tpoint-record"
/* With nothing to read, the reader looks again after this long. */
#define READ_PAUSE_NS 10000000L

struct krecord {
	struct kinstance *ki;
	struct kevent_list ev;
	char dir[4096];
	int ncpus, page_size;
	int *fd; /* per CPU: its pages file */
	pthread_t thread;
	atomic_int reader_tid;
	bool running;
	atomic_int stop;
	int write_error;
	uint64_t pages;
	struct kinst_cpu_stats *stats;
	long buffer_kb;
	/* for the writer */
	struct kpages *kp;
	struct tracedat_extra_event *xev;
	char **format;
	char *cmdlines, *stats_text;
};

/* One group's events, each with the group's filter: the kernel judges the filter. */
static int enable_group(struct krecord *kr, const struct sel_group *g, char *err, size_t errlen)
{
	struct kevent_list l = { 0 };
	size_t accepted = 0, rejected = 0;
	char first[1024] = "";

	if (kinst_match(g->globs, &l, err, errlen) < 0)
		return -1;
	for (size_t i = 0; i < l.n; i++) {
		char why[1024];

		if (kinst_enable(kr->ki, l.name[i], g->filter, why, sizeof(why)) == 0) {
			accepted++;
		} else if (g->filter && !strstr(why, "enable kernel event")) {
			/* As for a program's events: where the filter's fields are missing, it
			 * does not apply (said); rejected by every event, it is an error. */
			if (!rejected++)
				snprintf(first, sizeof(first), "%s", why);
			if (kinst_enable(kr->ki, l.name[i], NULL, why, sizeof(why)) < 0) {
				snprintf(err, errlen, "%s", why);
				goto fail;
			}
		} else {
			snprintf(err, errlen, "%s", why);
			goto fail;
		}
		if (kevent_list_add(&kr->ev, l.name[i]) < 0) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
	}
	if (rejected && !accepted) {
		snprintf(err, errlen, "%s", first);
		goto fail;
	}
	if (rejected)
		tool_warn("record", "note: -f '%s' does not apply to %zu of the events of "
			"-k '%s' (%s); they are recorded unfiltered", g->filter, rejected,
			g->globs, first);
	kevent_list_free(&l);
	return 0;
fail:
	kevent_list_free(&l);
	return -1;
}

struct krecord *krec_setup(const struct selection *k, char *err, size_t errlen)
{
	struct krecord *kr;

	if (kinst_check(err, errlen) < 0)
		return NULL;
	kr = calloc(1, sizeof(*kr));
	if (!kr) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	kinst_remove_stale();
	/* Every glob must name an event before anything is made. */
	for (size_t i = 0; i < k->ngroups; i++) {
		struct kevent_list l = { 0 };

		if (kinst_match(k->group[i].globs, &l, err, errlen) < 0) {
			kevent_list_free(&l);
			free(kr);
			return NULL;
		}
		kevent_list_free(&l);
	}
	kr->ki = kinst_create(INSTANCE_PREFIX, err, errlen);
	if (!kr->ki) {
		free(kr);
		return NULL;
	}
	for (size_t i = 0; i < k->ngroups; i++)
		if (enable_group(kr, &k->group[i], err, errlen) < 0) {
			krec_free(kr);
			return NULL;
		}
	return kr;
}

int krec_set_pids(struct krecord *kr, const pid_t *pids, size_t n, char *err, size_t errlen)
{
	return kinst_set_pids(kr->ki, pids, n, true, err, errlen);
}

static void write_page(struct krecord *kr, int cpu, char *buf, int n)
{
	const char *p = buf;
	size_t left = (size_t)kr->page_size;

	if (n < kr->page_size) /* a page cut short: its header's commit says how much is data */
		memset(buf + n, 0, (size_t)(kr->page_size - n));
	while (left) {
		ssize_t w = write(kr->fd[cpu], p, left);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!kr->write_error)
				kr->write_error = w < 0 ? errno : EIO;
			return;
		}
		p += w;
		left -= (size_t)w;
	}
	kr->pages++;
}

/* Reads the pages while the recording runs: the kernel's buffers must not fill up. */
static void *reader(void *arg)
{
	struct krecord *kr = arg;
	char *buf = malloc((size_t)kr->page_size);

	atomic_store(&kr->reader_tid, (int)gettid());
	if (!buf)
		return NULL;
	while (!atomic_load(&kr->stop)) {
		bool any = false;

		for (int c = 0; c < kr->ncpus; c++) {
			int n;

			/* Whole pages only, here: the one the kernel is writing waits for the end. */
			while ((n = kinst_read_page(kr->ki, c, buf, KINST_WHOLE_PAGES)) > 0) {
				write_page(kr, c, buf, n);
				any = true;
			}
		}
		if (!any)
			nanosleep(&(struct timespec){ 0, READ_PAUSE_NS }, NULL);
	}
	/* Tracing is off: what is left, the pages the kernel was writing included. */
	for (int c = 0; c < kr->ncpus; c++) {
		int n;

		while ((n = kinst_read_page(kr->ki, c, buf, KINST_FLUSH)) > 0)
			write_page(kr, c, buf, n);
	}
	free(buf);
	return NULL;
}

int krec_start(struct krecord *kr, const char *near, char *err, size_t errlen)
{
	const char *slash = strrchr(near, '/');
	int n = slash ? snprintf(kr->dir, sizeof(kr->dir), "%.*s/.tpoint-kernel.XXXXXX",
				 (int)(slash - near), near)
		      : snprintf(kr->dir, sizeof(kr->dir), ".tpoint-kernel.XXXXXX");

	if (n <= 0 || (size_t)n >= sizeof(kr->dir) || !mkdtemp(kr->dir)) {
		snprintf(err, errlen, "%s: cannot write there: %s", near, strerror(errno));
		kr->dir[0] = 0;
		return -1;
	}
	kinst_set_spill(kr->ki, kr->dir); /* removed with the instance if we are killed */
	kr->page_size = kinst_open_cpus(kr->ki, err, errlen);
	if (kr->page_size <= 0)
		return -1;
	kr->ncpus = kinst_cpus();
	kr->fd = malloc((size_t)kr->ncpus * sizeof(*kr->fd));
	if (!kr->fd) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int c = 0; c < kr->ncpus; c++)
		kr->fd[c] = -1;
	for (int c = 0; c < kr->ncpus; c++) {
		char path[4200];

		snprintf(path, sizeof(path), "%s/kernel-cpu%d.pages", kr->dir, c);
		kr->fd[c] = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (kr->fd[c] < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
	}
	if (pthread_create(&kr->thread, NULL, reader, kr)) {
		snprintf(err, errlen, "cannot start the kernel pages' reader");
		return -1;
	}
	kr->running = true;
	/*
	 * Not our own events: the reader's writes of the pages would dirty inodes, wake it and
	 * so on, and show as the busiest writer of a writeback recording.
	 */
	while (!atomic_load(&kr->reader_tid))
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	pid_t self[2] = { getpid(), (pid_t)atomic_load(&kr->reader_tid) };

	if (kinst_set_notrace(kr->ki, self, 2, err, errlen) < 0)
		return -1;
	return kinst_trace(kr->ki, true, err, errlen);
}

void krec_stop(struct krecord *kr)
{
	char err[256];

	if (!kr || !kr->running)
		return;
	kinst_trace(kr->ki, false, err, sizeof(err));
	atomic_store(&kr->stop, 1);
	pthread_join(kr->thread, NULL);
	kr->running = false;
	kr->stats = calloc((size_t)kr->ncpus, sizeof(*kr->stats));
	for (int c = 0; kr->stats && c < kr->ncpus; c++)
		kinst_cpu_stats(kr->ki, c, &kr->stats[c]);
	kr->buffer_kb = kinst_buffer_kb(kr->ki);
	for (int c = 0; c < kr->ncpus; c++)
		if (kr->fd[c] >= 0) {
			close(kr->fd[c]);
			kr->fd[c] = -1;
		}
}

/* The format file's id and the text from "format:" on; -1 if it is not one. */
static int format_parts(const char *text, uint16_t *id, const char **body)
{
	const char *p = strstr(text, "\nID: ");
	unsigned long v;
	char *end;

	if (!p)
		return -1;
	v = strtoul(p + 5, &end, 10);
	*body = strstr(text, "\nformat:");
	if (end == p + 5 || !v || v >= 0x7000 || !*body)
		return -1; /* 0x7000 up are tpoint's own ids (TPOINT_FIRST_ID) */
	(*body)++;
	*id = (uint16_t)v;
	return 0;
}

int krec_extra(struct krecord *kr, struct tracedat_extra *x, char *err, size_t errlen)
{
	uint64_t *count = calloc(0x10000, sizeof(*count));
	size_t len = 0, n = 0;

	memset(x, 0, sizeof(*x));
	kr->xev = calloc(kr->ev.n ? kr->ev.n : 1, sizeof(*kr->xev));
	kr->format = calloc(kr->ev.n ? kr->ev.n : 1, sizeof(*kr->format));
	kr->stats_text = malloc((size_t)kr->ncpus * 120 + 1);
	if (!count || !kr->xev || !kr->format || !kr->stats_text) {
		free(count);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	kr->kp = kpages_open(kr->dir, kr->ncpus, kr->page_size, err, errlen);
	if (!kr->kp) {
		free(count);
		return -1;
	}
	kpages_count(kr->kp, count);
	kpages_rewind(kr->kp);
	for (size_t i = 0; i < kr->ev.n; i++) {
		struct tracedat_extra_event *e = &kr->xev[n];
		char *colon;

		kr->format[i] = kinst_format(kr->ki, kr->ev.name[i]);
		if (!kr->format[i] || format_parts(kr->format[i], &e->id, &e->format) < 0) {
			tool_warn("record", "kernel event %s: its format cannot be read; "
				"it is left out", kr->ev.name[i]);
			continue;
		}
		colon = strchr(kr->ev.name[i], ':');
		*colon = 0; /* the list's strings become the events' system and name */
		e->system = kr->ev.name[i];
		e->name = colon + 1;
		e->recorded = count[e->id];
		n++;
	}
	for (int c = 0; kr->stats && c < kr->ncpus; c++) {
		const struct kinst_cpu_stats *s = &kr->stats[c];

		len += (size_t)snprintf(kr->stats_text + len, 121, "%d\t%llu\t%llu\t%llu\t%llu\t%llu\n",
					c, (unsigned long long)s->entries,
					(unsigned long long)s->overrun,
					(unsigned long long)s->commit_overrun,
					(unsigned long long)s->dropped, (unsigned long long)s->read);
	}
	free(count);
	/* The kernel's names of the pids it saw (shared by all instances). */
	kr->cmdlines = kinst_saved_cmdlines();
	x->events = kr->xev;
	x->nevents = n;
	x->ncpus = (uint32_t)kr->ncpus;
	x->ctx = kr->kp;
	x->next = kpages_next;
	x->cmdlines = kr->cmdlines;
	x->stats = kr->stats_text;
	return 0;
}

void krec_summary(struct krecord *kr)
{
	unsigned long long overrun = 0, dropped = 0, recorded = 0;

	for (int c = 0; kr->stats && c < kr->ncpus; c++) {
		overrun += kr->stats[c].overrun + kr->stats[c].commit_overrun;
		dropped += kr->stats[c].dropped;
	}
	for (size_t i = 0; kr->xev && kr->format && i < kr->ev.n; i++)
		recorded += kr->xev[i].recorded;
	tool_warn("record", "kernel (instance %s, %ld KiB a CPU): %llu events, %llu "
		"lost (overrun %llu, dropped %llu), %llu pages marked with losses",
		kinst_name(kr->ki), kr->buffer_kb, recorded, overrun + dropped, overrun, dropped,
		kr->kp ? (unsigned long long)kpages_lost_marks(kr->kp) : 0ull);
	if (kr->kp && kpages_bad(kr->kp))
		tool_warn("record", "kernel: %llu pages held records that do not decode; "
			"their rest is left out", (unsigned long long)kpages_bad(kr->kp));
	if (kr->write_error)
		tool_warn("record", "kernel: pages could not be kept: %s; the file lacks "
			"them", strerror(kr->write_error));
}

void krec_free(struct krecord *kr)
{
	if (!kr)
		return;
	krec_stop(kr);
	kinst_remove(kr->ki);
	kpages_close(kr->kp);
	for (int c = 0; kr->fd && c < kr->ncpus; c++)
		if (kr->fd[c] >= 0)
			close(kr->fd[c]);
	if (kr->dir[0]) {
		DIR *d = opendir(kr->dir);
		struct dirent *e;

		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.')
				unlinkat(dirfd(d), e->d_name, 0);
		if (d)
			closedir(d);
		rmdir(kr->dir);
	}
	for (size_t i = 0; kr->format && i < kr->ev.n; i++)
		free(kr->format[i]);
	free(kr->format);
	free(kr->xev);
	free(kr->fd);
	free(kr->stats);
	free(kr->stats_text);
	free(kr->cmdlines);
	kevent_list_free(&kr->ev);
	free(kr);
}
