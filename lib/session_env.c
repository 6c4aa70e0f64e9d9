/* SPDX-License-Identifier: MIT */
/*
 * The recording the environment asks for: TPOINT_BUFFER_SIZE, TPOINT_MODE, TPOINT_COMPRESS,
 * TPOINT_EVENTS and TPOINT_FILTER read as the library loads; TPOINT_RECORD's file (and its
 * children's FILE.<pid>, collected at the owner's exit) or TPOINT_SPOOL_DIR's spool (`tpoint
 * record`), carried across exec and fork(), completed at exit. init.c calls it.
 *
 * Nothing here may harm the host: every failure is logged (TPOINT_DEBUG=1) and the program
 * runs on untraced.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "env.h"
#include "env_filters.h"
#include "handover.h"
#include "log.h"
#include "ownfile.h"
#include "patterns.h"
#include "registry.h"
#include "salvage.h"
#include "session.h"
#include "session_env.h"
#include "snapshot_trigger.h"
#include "tracing_on.h"
#include "trigger.h"
#include "session_state.h"
#include "spool_out.h"
#include "tracedat.h"

void tp_session_configure_from_env(void)
{
	const char *v;

	tp_env_buffer_size(&pool_bytes);
	tp_env_mode(&pool_mode);
	compress_spec = tp_env_compress();
	v = tp_env_events();
	if (v && tp_registry_enable_patterns(v, true, true) == -EINVAL)
		tp_err("TPOINT_EVENTS='%s': expected comma-separated globs like 'sys:*,sys:event'",
		       v);
	tp_registry_run_fn_calls();
	v = tp_env_filter();
	if (v)
		tp_env_filters_parse(v);
	tp_tracing_from_env(); /* before the triggers that may switch it */
	v = tp_env_trigger();
	if (v)
		tp_trigger_env_parse(v);
}

/*
 * The owner of TPOINT_RECORD collects the pools of its children (handover.c), to write the
 * files of those that end with _exit() at its own exit: its receiving end, and FILE.
 */
static int collect_fd = -1;
static char *collect_base;

/* A directory of this user's that nobody else can enter: where the spools of a recording go. */
static bool dir_is_private(const char *dir)
{
	struct stat st;

	return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       !(st.st_mode & 077);
}

/*
 * TPOINT_RECORD in an image after exec: its spool goes on beside those of the image before,
 * the next generation of `base`, if their directory is still a private one of ours. The
 * spool to record into (created), and its directory, or NULL with why.
 */
static char *spool_next_gen(const char *base, int gen, char **dir, char *why, size_t whylen)
{
	char *spool = tp_handover_spool_name(base, gen);
	const char *slash = strrchr(base, '/');

	*dir = slash ? strndup(base, (size_t)(slash - base)) : NULL;
	if (!spool || !*dir) {
		snprintf(why, whylen, "out of memory");
	} else if (!dir_is_private(*dir)) {
		snprintf(why, whylen, "the spool directory of the image before exec, %s, is not a "
			 "private one of this user's any more", *dir);
	} else if (tp_spool_create(spool, why, whylen) == 0) {
		return spool;
	}
	free(spool);
	free(*dir);
	*dir = NULL;
	return NULL;
}

/*
 * An env-started recording. TPOINT_SPOOL_DIR (`tpoint record`): into `base`, the tool's
 * directory; TPOINT_RECORD (`out`, base NULL): into a spool directory of its own
 * (spool_dir_make()). Either goes on with the next generation of the spools of the image
 * before exec, if this process recorded there before (its pool is adopted first).
 */
static void start_env_locked(const char *what, const char *out, const char *base,
			     bool spool_only)
{
	char *b = base ? strdup(base) : NULL, *spool = NULL, *dir = NULL, why[1024];
	int gen = tp_handover_adopt(&b), err;

	if (!b && base)
		return; /* out of memory */
	if (!b) {
		err = tp_session_start_file_locked(out, strdup(what), why, sizeof(why));
		if (err) {
			tp_notice("%s: cannot record: %s; running untraced", what, why);
		} else {
			tp_handover_publish(rec.pool, rec.spool_base, 0);
			tp_watch_publish(rec.pool, rec.spool_base, 0, rec.out_path, what);
		}
		return;
	}
	if (!base) {
		spool = spool_next_gen(b, gen, &dir, why, sizeof(why));
		if (!spool) {
			tp_notice("%s: cannot record after exec: %s; running untraced", what, why);
			free(b);
			return;
		}
	} else {
		spool = tp_handover_spool_name(b, gen);
	}
	err = spool ? tp_session_start_locked(out, spool, spool_only, why, sizeof(why)) : -ENOMEM;
	if (err) {
		if (!spool)
			snprintf(why, sizeof(why), "out of memory");
		if (dir)
			unlink(spool);
		if (spool_only)
			tp_err("%s: cannot record: %s; running untraced", what, why);
		else
			tp_notice("%s: cannot record: %s; running untraced", what, why);
		free(b);
		free(dir);
	} else {
		rec.spool_base = b;
		rec.gen = gen;
		rec.spool_dir = dir;
		rec.what = spool_only ? NULL : strdup(what);
		tp_handover_publish(rec.pool, b, gen);
		if (!spool_only)
			tp_watch_publish(rec.pool, b, gen, rec.out_path, what);
	}
	free(spool);
}

/* The file of TPOINT_RECORD's own recording in the process that owns it, made absolute. */
static char *env_owned_out;

/* Where this process records, from TPOINT_SPOOL_DIR (`tpoint record`) or TPOINT_RECORD. */
static void start_from_env(void)
{
	const char *dir = tp_env_spool_dir();
	const char *path = tp_env_record();
	char *spool = NULL, *out = NULL, *what = NULL;

	if (dir && *dir) {
		if (asprintf(&spool, "%s/%d.spool", dir, (int)getpid()) < 0 ||
		    asprintf(&what, "TPOINT_SPOOL_DIR=%s", dir) < 0) {
			free(spool);
			return;
		}
		start_env_locked(what, NULL, spool, true);
		free(what);
		free(spool);
		return;
	}
	if (!path || !*path)
		return;
	/*
	 * A child of the recording process (forked, or exec'd from one) records beside it,
	 * into FILE.<pid>: the owner's pid travels in the environment across exec.
	 */
	const char *owner = tp_env_record_owner();
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	bool owner_is_other = owner && strcmp(owner, pid);

	if (owner_is_other) {
		tp_collect_owned(); /* closes the owner's receiving end, if it came here */
		if (asprintf(&out, "%s.%d", path, (int)getpid()) < 0)
			return;
	} else {
		out = strdup(path);
		if (!out)
			return;
		tp_env_set_record_owner(pid);
		/* Ours, from the image before exec, or a new one. */
		collect_fd = tp_collect_owned();
		if (collect_fd < 0 && tp_collect_make(&collect_fd, true) < 0)
			collect_fd = -1;
		free(collect_base);
		collect_base = tp_session_absolute(path); /* children name their spools from / on */
	}
	if (asprintf(&what, "TPOINT_RECORD=%s", out) < 0) {
		free(out);
		return;
	}
	/*
	 * Not a regular file (a device, a FIFO, a link): refused, and said even without
	 * TPOINT_DEBUG, as the user named it and would otherwise look for a file (ownfile.c).
	 */
	char why[512];

	if (tp_output_check(out, why, sizeof(why)) < 0)
		tp_notice("TPOINT_RECORD: %s; running untraced", why);
	else
		start_env_locked(what, out, NULL, false);
	if (rec.active && !owner_is_other && rec.out_path)
		env_owned_out = strdup(rec.out_path); /* absolute: the owner may change directory */
	free(what);
	free(spool);
	free(out);
}

struct child_files {
	pid_t pid;
	int gen;    /* the newest generation of its spool seen */
	char *base; /* its spool of generation 0, in a spool directory of its own */
};

/* Write FILE.<pid> of a child that did not, from the generations of its spool; remove them. */
static void finish_child_file(const struct child_files *c)
{
	char *out = NULL, *dir = NULL, **spools = calloc((size_t)c->gen + 1, sizeof(char *));
	const char *slash = strrchr(c->base, '/');
	struct tracedat_result res;
	char err[512];
	int n = 0;

	if (!spools || !slash || asprintf(&out, "%s.%d", collect_base, (int)c->pid) < 0 ||
	    !(dir = strndup(c->base, (size_t)(slash - c->base))))
		goto out;
	for (int g = 0; g <= c->gen; g++) {
		char *name = tp_handover_spool_name(c->base, g);

		if (name && access(name, F_OK) == 0)
			spools[n++] = name;
		else
			free(name);
	}
	if (n && tp_session_write_file(out, spools, n, 0, NULL, &res, err, sizeof(err)) >= 0) {
		tp_debug("child %d ended without completing %s: written from its spool and pool "
			 "(%llu events)", (int)c->pid, out, (unsigned long long)res.events);
		tp_tracedat_result_free(&res);
		tp_session_spool_dir_remove(dir, spools, n);
	} else if (n) {
		tp_notice("TPOINT_RECORD=%s: child %d: %s; its recording is kept in %s, 'tpoint "
			  "record --assemble %s -o %s' makes the file", collect_base, (int)c->pid,
			  err, dir, dir, out);
	}
out:
	for (int i = 0; i < n; i++)
		free(spools[i]);
	free(spools);
	free(dir);
	free(out);
}

/*
 * The spool a child passed with its pool: only one in a private spool directory of ours made
 * for its file, FILE.<pid>.spool.XXXXXX (spool_dir_make()), and not a link.
 */
static bool child_spool_ok(pid_t pid, const char *base)
{
	const char *slash = strrchr(base, '/');
	char *prefix = NULL, *dir;
	bool ok = false;

	if (!slash || asprintf(&prefix, "%s.%d.spool.", collect_base, (int)pid) < 0)
		return false;
	dir = strndup(base, (size_t)(slash - base));
	ok = dir && !strncmp(base, prefix, strlen(prefix)) &&
	     strchr(base + strlen(prefix), '/') == slash && dir_is_private(dir);
	free(dir);
	free(prefix);
	return ok;
}

/*
 * At the owner's exit: the children that ended without completing their recording (_exit())
 * get their pages added from the pools they passed, and their files written. A child still
 * running completes its own.
 */
static void collect_children(void)
{
	struct child_files *files = NULL;
	struct collected c;
	size_t n = 0;

	while (tp_collect_next(collect_fd, &c) == 1) {
		char *spool = NULL, err[512];
		uint64_t added;
		size_t k;

		if (c.pid != getpid() && tp_pid_gone(c.pid) && child_spool_ok(c.pid, c.base) &&
		    (spool = tp_handover_spool_name(c.base, c.gen)) && access(spool, F_OK) == 0) {
			if (tp_spool_salvage_memfd(spool, c.memfd, c.npages, c.meta_off, &added,
						    err, sizeof(err)) < 0)
				tp_err("child %d: %s", (int)c.pid, err);
			for (k = 0; k < n && files[k].pid != c.pid; k++)
				;
			if (k == n) {
				struct child_files *m = realloc(files, (n + 1) * sizeof(*m));
				char *b = strdup(c.base);

				if (m)
					files = m;
				if (m && b)
					files[n++] = (struct child_files){ c.pid, c.gen, b };
				else
					free(b);
			} else if (files[k].gen < c.gen) {
				files[k].gen = c.gen;
			}
		}
		free(spool);
		close(c.memfd);
	}
	for (size_t k = 0; k < n; k++) {
		finish_child_file(&files[k]);
		free(files[k].base);
	}
	free(files);
}

void tp_session_env_at_exit(void)
{
	char *said = NULL;

	tp_snapshot_trigger_flush(); /* snapshots asked for, while there is a recording */
	pthread_mutex_lock(&session_mutex);
	if (rec.active) {
		const char *env = tp_env_record();
		const char *owner = tp_env_record_owner();

		/*
		 * TPOINT_RECORD's own file, in the process that owns it: said, by the name the
		 * user gave, if it holds nothing.
		 */
		if (env && *env && !rec.spool_only && rec.out_path && env_owned_out &&
		    owner && atoi(owner) == (int)getpid() && !strcmp(rec.out_path, env_owned_out))
			said = strdup(env);
		int err = tp_session_stop_locked();

		if (err < 0)
			tp_err("recording not completed: %s", strerror(-err));
	}
	tp_watch_done(); /* the file is complete, or said not to be */
	if (collect_fd >= 0 && collect_base)
		collect_children();
	tp_env_filters_report();
	pthread_mutex_unlock(&session_mutex);
	tp_trigger_env_report();
	tp_registry_report_unmatched();
	if (said)
		tp_registry_say_nothing_enabled(said);
	free(said);
}

void tp_session_env_after_fork(struct session_parent *parent)
{
	bool spool_only = parent->spool_only;
	char *parent_out = parent->out;

	if (collect_fd >= 0) /* the owner collects, not its children */
		close(collect_fd);
	collect_fd = -1;
	tp_session_forget_parent();
	if (!parent->was_recording) {
		free(parent_out);
		return;
	}
	tp_registry_apply_recording(false);
	if (!spool_only && !parent_out) {
		tp_session_keep_enabled_locked(); /* the parent kept its events in memory: so does the child */
	} else if (spool_only || tp_env_record()) {
		start_from_env(); /* a recording of the environment's goes on as one */
	} else if (parent_out) {
		char *out = NULL, why[1024];

		if (asprintf(&out, "%s.%d", parent_out, (int)getpid()) >= 0 &&
		    tp_session_start_file_locked(out, NULL, why, sizeof(why)) < 0)
			tp_err("forked child %d cannot record to %s: %s", (int)getpid(), out, why);
		free(out);
	}
	free(parent_out);
}

/* TPOINT_RECORD's own process: not `tpoint record`'s, nor a child that records FILE.<pid>. */
static bool record_owner(void)
{
	const char *dir = tp_env_spool_dir(), *path = tp_env_record();
	const char *owner = tp_env_record_owner();

	return (!dir || !*dir) && path && *path && (!owner || atoi(owner) == (int)getpid());
}

void tp_session_env_start(void)
{
	if (tp_env_record() || tp_env_spool_dir()) {
		/* Before anything records, and before any thread of ours: fork() is safe here. */
		if (record_owner())
			tp_watch_start();
		pthread_mutex_lock(&session_mutex);
		start_from_env();
		if (!rec.active)
			tp_watch_done(); /* nothing to watch */
		pthread_mutex_unlock(&session_mutex);
	}
}
