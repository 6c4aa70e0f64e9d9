/* SPDX-License-Identifier: MIT */
/*
 * A recording: the pool, the drain thread and the spool, from start to the finished
 * trace.dat. Also what the library does on its own when loaded: read TPOINT_* from the
 * environment, start the embedded recording, finish it at exit, and carry it across fork().
 *
 * Nothing here may harm the host: every failure is logged (TPOINT_DEBUG=1) and the program
 * runs on untraced.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

#define DEFAULT_POOL_BYTES (8u << 20)
#define MIN_POOL_BYTES (64u << 10)

static pthread_mutex_t session_mutex = PTHREAD_MUTEX_INITIALIZER;
static size_t pool_bytes = DEFAULT_POOL_BYTES;
static struct pool *retired_pool;
static enum tpoint_mode pool_mode = TPOINT_MODE_DISCARD;

static struct {
	bool active;
	bool spool_only; /* `tpoint record` assembles the file from the spools itself */
	char *out_path;  /* trace.dat to write, unless spool_only */
	char *spool;     /* NULL: in memory only (the pool is the flight recorder) */
	struct pool *pool;
	struct registry_mark *mark; /* set while a client is attached: what to restore */
	char describe[4096 + 8];
} rec;

bool session_recording(void)
{
	return rec.active;
}

const char *session_describe(void)
{
	pthread_mutex_lock(&session_mutex);
	if (!rec.active)
		snprintf(rec.describe, sizeof(rec.describe), "none");
	else if (!rec.spool)
		snprintf(rec.describe, sizeof(rec.describe), "memory");
	else if (rec.spool_only)
		snprintf(rec.describe, sizeof(rec.describe), "spool:%s", rec.spool);
	else
		snprintf(rec.describe, sizeof(rec.describe), "file:%s", rec.out_path);
	pthread_mutex_unlock(&session_mutex);
	return rec.describe;
}

TPOINT_EXPORT int tpoint_set_buffer_size(size_t bytes)
{
	int ret = 0;

	pthread_mutex_lock(&session_mutex);
	if (rec.active)
		ret = -EBUSY;
	else if (bytes < MIN_POOL_BYTES)
		ret = -EINVAL;
	else
		pool_bytes = bytes;
	pthread_mutex_unlock(&session_mutex);
	return ret;
}

TPOINT_EXPORT int tpoint_set_mode(enum tpoint_mode mode)
{
	int ret = 0;

	pthread_mutex_lock(&session_mutex);
	if (mode != TPOINT_MODE_DISCARD && mode != TPOINT_MODE_OVERWRITE &&
	    mode != TPOINT_MODE_BLOCK) {
		ret = -EINVAL;
	} else {
		pool_mode = mode;
		/* The running recording switches too, as ftrace's options/overwrite does. */
		if (rec.active)
			spool_set_mode(rec.pool, mode);
	}
	pthread_mutex_unlock(&session_mutex);
	return ret;
}

static int start_locked(const char *out_path, const char *spool, bool spool_only)
{
	struct pool *pool;
	int err;

	if (rec.active)
		return -EBUSY;
	if (!spool_only && out_path) {
		/* Find out now, not at exit, whether the file can be written. */
		int fd = open(out_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		if (fd < 0)
			return -errno;
		close(fd);
	}
	pool = calloc(1, sizeof(*pool));
	if (!pool)
		return -ENOMEM;
	spool_mark_stats(); /* the file's counts start here */
	err = pool_create(pool, pool_bytes, pool_mode);
	if (err) {
		free(pool);
		return err;
	}
	err = spool ? spool_start(pool, spool, false) : 0;
	if (err) {
		pool_destroy(pool);
		free(pool);
		return err;
	}
	rec.out_path = out_path ? strdup(out_path) : NULL;
	rec.spool = spool ? strdup(spool) : NULL;
	rec.spool_only = spool_only;
	rec.pool = pool;
	rec.active = true;
	/* Release: the pool is complete before a writer's slow path can take a page. */
	__atomic_store_n(&tp_active_pool, pool, __ATOMIC_RELEASE);
	registry_apply_recording(true);
	return 0;
}

static int finish_file(void)
{
	const char *spools[1] = { rec.spool };
	struct tracedat_result res;
	char err[512];
	int ret;

	ret = tracedat_from_spools(rec.out_path, spools, 1, &res, err, sizeof(err));
	if (ret < 0) {
		tp_err("%s", err);
		return ret;
	}
	if (tracedat_size_warning(&res, err, sizeof(err)))
		tp_warn("%s: %s", rec.out_path, err);
	if (res.damage) { /* the spool stays, for a look at what was wrong */
		tp_err("%s holds what could be read of %s: %s", rec.out_path, rec.spool,
		       res.damage);
		tracedat_result_free(&res);
		return -EIO;
	}
	tracedat_result_free(&res);
	return (int)(res.events > INT32_MAX ? INT32_MAX : res.events);
}

static int stop_locked(void)
{
	int ret;

	if (!rec.active)
		return -ENOENT;
	registry_apply_recording(false);
	__atomic_store_n(&tp_active_pool, NULL, __ATOMIC_RELEASE);
	writer_detach_all();
	ret = rec.spool ? spool_stop() : 0;
	if (rec.spool && !rec.spool_only && ret == 0) {
		ret = finish_file();
		if (ret >= 0) {
			unlink(rec.spool);
			ret = 0;
		}
	}
	/*
	 * The pool's memory goes back now; its mapping and queues stay until the next recording
	 * stops, for a thread that was preempted inside tpoint_reserve..commit or the slow path
	 * when this one stopped. So at most one stopped recording's pool is ever kept.
	 */
	pool_release_memory(rec.pool);
	if (retired_pool) {
		pool_destroy(retired_pool);
		free(retired_pool);
	}
	retired_pool = rec.pool;
	free(rec.out_path);
	free(rec.spool);
	rec.out_path = rec.spool = NULL;
	rec.pool = NULL;
	rec.active = false;
	return ret;
}

TPOINT_EXPORT int tpoint_record_start(const char *path)
{
	char *spool;
	int ret;

	if (!path || !*path)
		return -EINVAL;
	if (asprintf(&spool, "%s.spool", path) < 0)
		return -ENOMEM;
	pthread_mutex_lock(&session_mutex);
	ret = start_locked(path, spool, false);
	pthread_mutex_unlock(&session_mutex);
	free(spool);
	return ret;
}

TPOINT_EXPORT int tpoint_record_stop(void)
{
	int ret;

	pthread_mutex_lock(&session_mutex);
	ret = stop_locked();
	pthread_mutex_unlock(&session_mutex);
	return ret;
}

TPOINT_EXPORT int tpoint_flush(void)
{
	int ret;

	pthread_mutex_lock(&session_mutex);
	if (!rec.active || !rec.spool)
		ret = -ENOENT;
	else if ((ret = spool_sync()) == 0 && !rec.spool_only)
		ret = finish_file();
	pthread_mutex_unlock(&session_mutex);
	return ret;
}

/*
 * An event enabled from outside (tpoint enable -p) in a process that records nothing
 * records into memory, as ftrace's ring buffer does: the pool keeps the newest events.
 */
int session_ensure_recording(void)
{
	int ret = 0;
	enum tpoint_mode mode;

	pthread_mutex_lock(&session_mutex);
	if (!rec.active) {
		mode = pool_mode;
		pool_mode = TPOINT_MODE_OVERWRITE;
		ret = start_locked(NULL, NULL, false);
		pool_mode = mode;
	}
	pthread_mutex_unlock(&session_mutex);
	return ret;
}

static bool restart_memory;

/* Back to keeping events in memory, if that is what a client interrupted. */
static void restart_memory_locked(void)
{
	enum tpoint_mode mode = pool_mode;

	if (!restart_memory || rec.active)
		return;
	restart_memory = false;
	pool_mode = TPOINT_MODE_OVERWRITE;
	if (start_locked(NULL, NULL, false) < 0)
		tp_err("control: events enabled from outside are no longer kept in memory");
	pool_mode = mode;
}

int session_attach(const char *spool, const char *patterns, enum tpoint_mode mode,
		   size_t pool_size, bool live, int *memfd, char *info, size_t infolen)
{
	size_t saved_bytes = pool_bytes;
	struct registry_mark *mark;
	enum tpoint_mode saved;
	int n, err;

	pthread_mutex_lock(&session_mutex);
	if (rec.active && rec.spool) {
		pthread_mutex_unlock(&session_mutex);
		return -EBUSY;
	}
	/*
	 * Events kept in memory (tpoint enable -p) give way to a client that records them
	 * properly; they come back when it detaches.
	 */
	restart_memory = rec.active;
	if (restart_memory)
		stop_locked();
	mark = registry_mark();
	if (!mark) {
		pthread_mutex_unlock(&session_mutex);
		return -ENOMEM;
	}
	n = registry_enable_patterns(patterns, true, false);
	if (n <= 0) {
		registry_restore(mark);
		restart_memory_locked();
		pthread_mutex_unlock(&session_mutex);
		return n < 0 ? n : -ENOENT;
	}
	saved = pool_mode;
	pool_mode = mode;
	if (pool_size)
		pool_bytes = pool_size;
	err = start_locked(NULL, spool, true);
	pool_mode = saved;
	pool_bytes = saved_bytes;
	if (err == 0 && live)
		spool_set_live(true);
	if (err) {
		registry_restore(mark);
		restart_memory_locked();
		pthread_mutex_unlock(&session_mutex);
		return err;
	}
	rec.mark = mark;
	*memfd = rec.pool->memfd;
	snprintf(info, infolen, "%u\t%u\t%zu", rec.pool->npages, TPOINT_PAGE_SIZE,
		 (size_t)((char *)rec.pool->meta - rec.pool->base));
	pthread_mutex_unlock(&session_mutex);
	return n;
}

int session_detach(bool keep)
{
	char *spool;
	int ret;

	pthread_mutex_lock(&session_mutex);
	if (!rec.active || !rec.mark) {
		pthread_mutex_unlock(&session_mutex);
		return -ENOENT;
	}
	spool = rec.spool ? strdup(rec.spool) : NULL;
	ret = stop_locked();
	registry_restore(rec.mark);
	rec.mark = NULL;
	restart_memory_locked();
	if (!keep && spool) {
		char *slash = strrchr(spool, '/');

		unlink(spool); /* nobody will read it */
		/* Nor the directory the client made for it, once empty (a client killed). */
		if (slash && slash != spool) {
			*slash = 0;
			rmdir(spool);
		}
	}
	free(spool);
	pthread_mutex_unlock(&session_mutex);
	return ret;
}

int session_snapshot(const char *dir, char *path, size_t pathlen)
{
	int ret;

	pthread_mutex_lock(&session_mutex);
	if (!rec.active) {
		ret = -ENOENT;
	} else if (rec.spool) {
		/* A spool runs: bring it up to date; the client reads it as it is. */
		ret = spool_sync();
		snprintf(path, pathlen, "%s", rec.spool);
	} else {
		snprintf(path, pathlen, "%s/%d.spool", dir, (int)getpid());
		ret = spool_snapshot(rec.pool, path);
	}
	pthread_mutex_unlock(&session_mutex);
	return ret;
}

/* ---- configuration from the environment ---- */

/* "8M", "65536", "1g", "512KiB": bytes. -EINVAL for anything else. */
static int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (toupper((unsigned char)*end)) {
	case 'K': shift = 10; end++; break;
	case 'M': shift = 20; end++; break;
	case 'G': shift = 30; end++; break;
	default: break;
	}
	if (shift && (!strcasecmp(end, "iB") || !strcasecmp(end, "B")))
		end += strlen(end);
	if (*end || v > (~0ull >> shift))
		return -EINVAL;
	*out = (size_t)(v << shift);
	return 0;
}

/*
 * TPOINT_FILTER='sys:event:EXPR;sys:other:EXPR'. The events are not registered yet (their
 * objects' constructors run after ours), so the filters wait in the registry; a filter
 * that does not compile is named when its event registers.
 */
static void filters_from_env(const char *v)
{
	char *copy = strdup(v), *save = NULL;

	for (char *item = copy ? strtok_r(copy, ";", &save) : NULL; item;
	     item = strtok_r(NULL, ";", &save)) {
		char *first = strchr(item, ':');
		char *second = first ? strchr(first + 1, ':') : NULL;
		char err[512];

		while (*item == ' ')
			item++;
		if (!second || second == first + 1 || first == item) {
			tp_err("TPOINT_FILTER: '%s': expected system:event:expression", item);
			continue;
		}
		*second = 0;
		if (registry_want_filter(item, second + 1, err, sizeof(err)) < 0)
			tp_err("TPOINT_FILTER: %s", err);
	}
	free(copy);
}

static void configure_from_env(void)
{
	const char *v;
	size_t size;

	v = getenv("TPOINT_BUFFER_SIZE");
	if (v) {
		if (parse_size(v, &size) < 0 || size < MIN_POOL_BYTES)
			tp_err("TPOINT_BUFFER_SIZE='%s': expected a size of at least 64K, like 8M "
			       "(bytes, with K, M or G); using %zuM", v, pool_bytes >> 20);
		else
			pool_bytes = size;
	}
	v = getenv("TPOINT_MODE");
	if (v) {
		if (!strcmp(v, "discard"))
			pool_mode = TPOINT_MODE_DISCARD;
		else if (!strcmp(v, "overwrite"))
			pool_mode = TPOINT_MODE_OVERWRITE;
		else if (!strcmp(v, "block"))
			pool_mode = TPOINT_MODE_BLOCK;
		else
			tp_err("TPOINT_MODE='%s': expected 'discard', 'overwrite' or 'block'; using "
			       "discard", v);
	}
	v = getenv("TPOINT_EVENTS");
	if (v && registry_enable_patterns(v, true, true) == -EINVAL)
		tp_err("TPOINT_EVENTS='%s': expected comma-separated globs like 'sys:*,sys:event'",
		       v);
	v = getenv("TPOINT_FILTER");
	if (v)
		filters_from_env(v);
}

/* Where this process records, from TPOINT_SPOOL_DIR (`tpoint record`) or TPOINT_RECORD. */
static void start_from_env(void)
{
	const char *dir = getenv("TPOINT_SPOOL_DIR");
	const char *path = getenv("TPOINT_RECORD");
	char *spool = NULL, *out = NULL;
	int err;

	if (dir && *dir) {
		if (asprintf(&spool, "%s/%d.spool", dir, (int)getpid()) < 0)
			return;
		err = start_locked(NULL, spool, true);
		if (err)
			tp_err("TPOINT_SPOOL_DIR=%s: cannot record: %s; running untraced", dir,
			       strerror(-err));
		free(spool);
		return;
	}
	if (!path || !*path)
		return;
	/*
	 * A child of the recording process (forked, or exec'd from one) records beside it,
	 * into FILE.<pid>: the owner's pid travels in the environment across exec.
	 */
	const char *owner = getenv("TPOINT_RECORD_OWNER");
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (owner && strcmp(owner, pid)) {
		if (asprintf(&out, "%s.%d", path, (int)getpid()) < 0)
			return;
	} else {
		out = strdup(path);
		if (!out)
			return;
		setenv("TPOINT_RECORD_OWNER", pid, 1);
	}
	if (asprintf(&spool, "%s.spool", out) < 0) {
		free(out);
		return;
	}
	err = start_locked(out, spool, false);
	if (err)
		tp_err("TPOINT_RECORD=%s: cannot record: %s; running untraced", out, strerror(-err));
	free(spool);
	free(out);
}

static void at_exit(void)
{
	pthread_mutex_lock(&session_mutex);
	if (rec.active) {
		int err = stop_locked();

		if (err < 0)
			tp_err("recording not completed: %s", strerror(-err));
	}
	pthread_mutex_unlock(&session_mutex);
	registry_report_unmatched();
}

static void fork_prepare(void)
{
	pthread_mutex_lock(&session_mutex);
	/* No fork in the middle of a patch: the child would inherit a half-written site. */
	jump_fork_prepare();
}

static void fork_parent(void)
{
	jump_fork_parent();
	pthread_mutex_unlock(&session_mutex);
}

static void fork_child(void)
{
	bool was_recording = rec.active;
	bool spool_only = rec.spool_only;
	char *parent_out = rec.out_path;

	pthread_mutex_init(&session_mutex, NULL);
	jump_fork_child();
	registry_after_fork();
	writer_after_fork();
	spool_after_fork();
	control_after_fork();
	__atomic_store_n(&tp_active_pool, NULL, __ATOMIC_RELEASE);
	/* A recorder attached to the parent is the parent's: undo what it enabled here. */
	if (rec.mark) {
		registry_restore(rec.mark);
		rec.mark = NULL;
	}
	/*
	 * The parent's pool is shared memory: unmap it without touching it (the parent goes on
	 * writing there); its queues are the child's own copies.
	 */
	if (rec.pool) {
		pool_destroy(rec.pool);
		free(rec.pool);
	}
	free(rec.spool);
	rec.spool = NULL;
	rec.out_path = NULL;
	rec.pool = NULL;
	rec.active = false;
	if (!was_recording) {
		free(parent_out);
		return;
	}
	registry_apply_recording(false);
	if (spool_only) {
		start_from_env();
	} else if (parent_out) {
		char *out = NULL, *spool = NULL;
		const char *base = getenv("TPOINT_RECORD");

		if (asprintf(&out, "%s.%d", base ? base : parent_out, (int)getpid()) >= 0 &&
		    asprintf(&spool, "%s.spool", out) >= 0) {
			int err = start_locked(out, spool, false);

			if (err)
				tp_err("forked child %d cannot record to %s: %s", (int)getpid(), out,
				       strerror(-err));
		}
		free(out);
		free(spool);
	}
	free(parent_out);
}

const char session_linked = 1;

__attribute__((constructor)) static void tpoint_init(void)
{
	log_init_from_env();
	if (writer_init() < 0)
		tp_err("no thread-exit hook; pages of exited threads are read at the end");
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	configure_from_env();
	if (getenv("TPOINT_RECORD") || getenv("TPOINT_SPOOL_DIR")) {
		pthread_mutex_lock(&session_mutex);
		start_from_env();
		pthread_mutex_unlock(&session_mutex);
	}
	atexit(at_exit);
	control_start();
}
