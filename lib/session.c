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
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "codec.h"
#include "internal.h"

#define DEFAULT_POOL_BYTES (8u << 20)
#define MIN_POOL_BYTES TP_POOL_MIN_BYTES

static pthread_mutex_t session_mutex = PTHREAD_MUTEX_INITIALIZER;
static size_t pool_bytes = DEFAULT_POOL_BYTES;
static struct pool *retired_pool;
static enum tpoint_mode pool_mode = TPOINT_MODE_DISCARD;
/* TPOINT_COMPRESS: the files are written as version 7, compressed as it says (NULL: v6). */
static char *compress_spec;

static struct {
	bool active;
	bool spool_only; /* `tpoint record` assembles the file from the spools itself */
	char *out_path;  /* trace.dat to write, unless spool_only */
	char *spool;     /* NULL: in memory only (the pool is the flight recorder) */
	/* Started from the environment: the spools of the images before exec come first,
	 * generations 0 .. gen - 1 of spool_base (handover.c); spool is generation gen. */
	char *spool_base;
	int gen;
	struct pool *pool;
	bool attached;  /* a client (tpoint record -p, stream) records: tp_session_attach() */
	char *reader;   /* its spool, when it reads the in-memory run (tp_spool_start_reader) */
	char describe[4096 + 8];
} rec;

static void keep_enabled_locked(void);

bool tp_session_recording(void)
{
	return rec.active;
}

const char *tp_session_describe(void)
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
	/* Events kept in memory only: their pool takes the size when it is next made. */
	if (rec.active && rec.spool)
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
		/*
		 * The running recording switches too, as ftrace's options/overwrite does; not
		 * the pool of events kept in memory only, which keeps the newest.
		 */
		if (rec.active && rec.spool)
			tp_spool_set_mode(rec.pool, mode);
	}
	pthread_mutex_unlock(&session_mutex);
	return ret;
}

/* `path`, malloc'ed, from / on; NULL when out of memory. */
static char *absolute(const char *path)
{
	char *cwd, *abs;

	if (!path)
		return NULL;
	if (path[0] == '/' || !(cwd = getcwd(NULL, 0)))
		return strdup(path); /* no current directory to name: as it is */
	if (asprintf(&abs, "%s/%s", cwd, path) < 0)
		abs = NULL;
	free(cwd);
	return abs;
}

static int start_locked(const char *out_path, const char *spool, bool spool_only)
{
	char *abs_out = NULL, *abs_spool = NULL;
	struct pool *pool = NULL;
	char why[512];
	size_t bytes;
	int err = -ENOMEM;

	if (rec.active)
		return -EBUSY;
	/* A daemon changes directory: the names must still say where we began. */
	if ((out_path && !(abs_out = absolute(out_path))) ||
	    (spool && !(abs_spool = absolute(spool))))
		goto fail;
	if (!spool_only && abs_out) {
		/* Find out now, not at exit, whether the file can be written, and is a file. */
		int fd = tp_output_open(abs_out, 0, why, sizeof(why));

		if (fd < 0) {
			tp_err("%s", why);
			err = fd;
			goto fail;
		}
		close(fd);
	}
	/* What the machine can give now: asked for more, the pool would end the program. */
	bytes = tp_pool_size_fit(pool_bytes, why, sizeof(why));
	if (bytes < MIN_POOL_BYTES) {
		tp_err("%s: no room for a pool of even 64 KiB", why);
		goto fail;
	}
	if (why[0])
		tp_warn("%s: using %zu KiB", why, bytes >> 10);
	pool = calloc(1, sizeof(*pool));
	if (!pool)
		goto fail;
	tp_spool_mark_stats(); /* the file's counts start here */
	/* In memory only, the pool fills as events come (tp_session_ensure_recording()). */
	err = tp_pool_make(pool, bytes, pool_mode, abs_spool != NULL);
	if (!err)
		err = abs_spool ? tp_spool_start(pool, abs_spool, false) : 0;
	if (err) {
		tp_pool_destroy(pool); /* a second time after tp_pool_make() failed: harmless */
		goto fail;
	}
	rec.out_path = abs_out;
	rec.spool = abs_spool;
	rec.spool_only = spool_only;
	rec.pool = pool;
	rec.active = true;
	/* Release: the pool is complete before a writer's slow path can take a page. */
	__atomic_store_n(&tp_active_pool, pool, __ATOMIC_RELEASE);
	tp_registry_apply_recording(true);
	return 0;

fail:
	free(pool);
	free(abs_out);
	free(abs_spool);
	return err;
}

/* The spools of this recording, the images' before exec first: how many, or -ENOMEM. */
static int recording_spools(char ***out)
{
	int n = rec.spool_base ? rec.gen + 1 : 1;
	char **v = calloc((size_t)n, sizeof(*v));

	for (int i = 0; v && i < n; i++)
		if (!(v[i] = rec.spool_base ? tp_handover_spool_name(rec.spool_base, i) :
		      strdup(rec.spool))) {
			while (i--)
				free(v[i]);
			free(v);
			v = NULL;
		}
	*out = v;
	return v ? n : -ENOMEM;
}

static void free_spools(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * Weak: a program linked with libtpoint.a gets the codecs only if it names them, so that a
 * static link does not draw in dlopen() (and glibc's warning about it) for everyone.
 */
#pragma weak tp_codec_parse
#pragma weak tp_codec_open
#pragma weak tp_codec_close

/*
 * The spools into a trace.dat: version 7 compressed if TPOINT_COMPRESS asks and its library
 * loads, else version 6 (the recording is never lost for want of a library).
 */
static int write_file(const char *out, char **spools, int n, struct tracedat_result *res,
		      char *err, size_t errlen)
{
	struct tp_codec codec;
	bool compress = false;
	const char *name;
	int ret, level;

	if (compress_spec && !tp_codec_open) {
		tp_notice("TPOINT_COMPRESS: not in a program linked statically; writing %s as "
			  "version 6 (tpoint convert --to v7 compresses it)", out);
	} else if (compress_spec) {
		compress = tp_codec_parse(compress_spec, &name, &level, err, errlen) == 0 &&
			   tp_codec_open(&codec, name, level, err, errlen) == 0;
		if (!compress)
			tp_notice("TPOINT_COMPRESS: %s; writing %s as version 6, uncompressed",
				  err, out);
	}
	ret = tp_tracedat_write(out, (const char *const *)spools, n, NULL, NULL,
				compress ? &codec : NULL, res, err, errlen);
	if (compress)
		tp_codec_close(&codec);
	return ret;
}

static int finish_file(void)
{
	struct tracedat_result res;
	char err[512], **spools;
	int ret, n = recording_spools(&spools);

	if (n < 0)
		return n;
	ret = write_file(rec.out_path, spools, n, &res, err, sizeof(err));
	free_spools(spools, n);
	if (ret < 0) {
		tp_err("%s", err);
		return ret;
	}
	if (tp_tracedat_size_warning(&res, err, sizeof(err)))
		tp_warn("%s: %s", rec.out_path, err);
	if (res.damage) { /* the spool stays, for a look at what was wrong */
		tp_err("%s holds what could be read of %s: %s", rec.out_path, rec.spool,
		       res.damage);
		tp_tracedat_result_free(&res);
		return -EIO;
	}
	tp_tracedat_result_free(&res);
	return (int)(res.events > INT32_MAX ? INT32_MAX : res.events);
}

/* The client reading the in-memory recording is done: its spool is complete, the pool stays. */
static int stop_reader_locked(void)
{
	int ret;

	if (!rec.reader)
		return 0;
	ret = tp_spool_stop();
	free(rec.reader);
	rec.reader = NULL;
	return ret;
}

static int stop_locked(void)
{
	int ret;

	if (!rec.active)
		return -ENOENT;
	stop_reader_locked(); /* a client reading the pool gets its spool complete first */
	tp_registry_apply_recording(false);
	__atomic_store_n(&tp_active_pool, NULL, __ATOMIC_RELEASE);
	tp_writer_detach_all();
	ret = rec.spool ? tp_spool_stop() : 0;
	if (rec.spool && !rec.spool_only && ret == 0) {
		ret = finish_file();
		if (ret >= 0) {
			char **spools;
			int n = recording_spools(&spools);

			for (int i = 0; i < n; i++)
				unlink(spools[i]);
			if (n > 0)
				free_spools(spools, n);
			else
				unlink(rec.spool);
			ret = 0;
		}
	}
	/*
	 * The pool's memory goes back now; its mapping and queues stay until the next recording
	 * stops, for a thread that was preempted inside tpoint_reserve..commit or the slow path
	 * when this one stopped. So at most one stopped recording's pool is ever kept.
	 */
	tp_pool_release_memory(rec.pool);
	if (retired_pool) {
		tp_pool_destroy(retired_pool);
		free(retired_pool);
	}
	retired_pool = rec.pool;
	free(rec.out_path);
	free(rec.spool);
	free(rec.spool_base);
	rec.out_path = rec.spool = rec.spool_base = NULL;
	rec.gen = 0;
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
	/* Events kept in memory give way to the file, and come back after it. */
	if (rec.active && !rec.spool)
		stop_locked();
	ret = start_locked(path, spool, false);
	if (ret)
		keep_enabled_locked();
	pthread_mutex_unlock(&session_mutex);
	free(spool);
	return ret;
}

TPOINT_EXPORT int tpoint_record_stop(void)
{
	int ret;

	pthread_mutex_lock(&session_mutex);
	if (rec.active && !rec.spool) {
		ret = -ENOENT; /* events kept in memory: no recording was started */
	} else {
		ret = stop_locked();
		keep_enabled_locked();
	}
	pthread_mutex_unlock(&session_mutex);
	return ret;
}

TPOINT_EXPORT int tpoint_flush(void)
{
	int ret;

	pthread_mutex_lock(&session_mutex);
	if (!rec.active || !rec.spool)
		ret = -ENOENT;
	else if ((ret = tp_spool_sync()) == 0 && !rec.spool_only)
		ret = finish_file();
	pthread_mutex_unlock(&session_mutex);
	return ret;
}

/*
 * An enabled event in a process that records nothing records into memory, as ftrace's ring
 * buffer does: the pool keeps the newest events, `tpoint stat` counts them and `tpoint
 * snapshot` writes them. Whether enabled from outside (tpoint enable -p), by tpoint_enable()
 * or by TPOINT_EVENTS alone.
 */
static int start_memory_locked(void)
{
	enum tpoint_mode mode = pool_mode;
	int ret;

	pool_mode = TPOINT_MODE_OVERWRITE;
	ret = start_locked(NULL, NULL, false);
	pool_mode = mode;
	return ret;
}

int tp_session_ensure_recording(void)
{
	int ret = 0;

	pthread_mutex_lock(&session_mutex);
	if (!rec.active)
		ret = start_memory_locked();
	pthread_mutex_unlock(&session_mutex);
	return ret;
}

static void keep_enabled_locked(void)
{
	int err;

	if (rec.active || !tp_registry_wants_recording())
		return;
	err = start_memory_locked();
	if (err)
		tp_err("enabled events cannot be kept in memory: %s", strerror(-err));
	else
		tp_debug("enabled events record into memory (tpoint snapshot writes them)");
}

void tp_session_keep_enabled(void)
{
	pthread_mutex_lock(&session_mutex);
	keep_enabled_locked();
	tp_spool_put_events(); /* events that registered are named in the spool at once */
	pthread_mutex_unlock(&session_mutex);
}

/*
 * A client records the events its globs select, besides those the process enables itself
 * (tp_registry_set_client()): it delivers only its own, reading them from the spool. If the
 * process keeps events in memory (enabled events do, as in the kernel), that recording goes
 * on and the client's spool reads its pool without taking a page, so that a snapshot after
 * the client shows what it would have shown without it; the client's mode and pool size
 * give way to the in-memory recording's then. Otherwise the client's recording is a new one,
 * and when it ends, events enabled meanwhile go on recording into memory.
 */
int tp_session_attach(const char *spool, const char *patterns, enum tpoint_mode mode,
		      size_t pool_size, bool live, int *memfd, char *info, size_t infolen)
{
	size_t saved_bytes = pool_bytes;
	enum tpoint_mode saved;
	int n, err;

	pthread_mutex_lock(&session_mutex);
	if (rec.attached || (rec.active && rec.spool)) {
		pthread_mutex_unlock(&session_mutex);
		return -EBUSY;
	}
	n = tp_registry_set_client(patterns);
	if (n <= 0) {
		tp_registry_set_client(NULL);
		pthread_mutex_unlock(&session_mutex);
		return n < 0 ? n : -ENOENT;
	}
	if (rec.active) {
		tp_spool_mark_stats(); /* the client's counts start here */
		err = tp_spool_start_reader(rec.pool, spool);
		if (err == 0 && !(rec.reader = strdup(spool))) {
			tp_spool_stop();
			err = -ENOMEM;
		}
	} else {
		saved = pool_mode;
		pool_mode = mode;
		if (pool_size)
			pool_bytes = pool_size;
		err = start_locked(NULL, spool, true);
		pool_mode = saved;
		pool_bytes = saved_bytes;
		if (err == 0 && live)
			tp_spool_set_live(true);
	}
	if (err) {
		tp_registry_set_client(NULL);
		pthread_mutex_unlock(&session_mutex);
		return err;
	}
	rec.attached = true;
	/* Only ours: a number the program reused would hand the client the program's file. */
	*memfd = tp_ownfd_intact(&rec.pool->memfd) ? rec.pool->memfd.fd : -1;
	snprintf(info, infolen, "%u\t%u\t%zu", rec.pool->npages, TPOINT_PAGE_SIZE,
		 tp_pool_meta_offset(rec.pool));
	pthread_mutex_unlock(&session_mutex);
	return n;
}

int tp_session_detach(bool keep)
{
	char *spool;
	int ret;

	pthread_mutex_lock(&session_mutex);
	if (!rec.attached) {
		pthread_mutex_unlock(&session_mutex);
		return -ENOENT;
	}
	rec.attached = false;
	if (rec.reader) {
		spool = strdup(rec.reader);
		ret = stop_reader_locked();
	} else {
		spool = rec.spool ? strdup(rec.spool) : NULL;
		ret = stop_locked();
	}
	tp_registry_set_client(NULL);
	/* Events enabled meanwhile (the process's own, not the client's) record into memory. */
	keep_enabled_locked();
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

int tp_session_snapshot(const char *dir, char *path, size_t pathlen)
{
	int ret;

	pthread_mutex_lock(&session_mutex);
	if (!rec.active) {
		ret = -ENOENT;
	} else if (rec.spool) {
		snprintf(path, pathlen, "%s/%d.spool", dir, (int)getpid());
		ret = tp_spool_snapshot_copy(path); /* a spool runs: a copy of it, up to date */
	} else {
		snprintf(path, pathlen, "%s/%d.spool", dir, (int)getpid());
		ret = tp_spool_snapshot(rec.pool, path);
	}
	pthread_mutex_unlock(&session_mutex);
	return ret;
}

/* ---- configuration from the environment ---- */

/* The next `c` of s outside quoted strings (the filter syntax has no escapes), or NULL. */
static char *find_unquoted(char *s, char c)
{
	char quote = 0;

	for (; *s; s++) {
		if (quote)
			quote = *s == quote ? 0 : quote;
		else if (*s == '"' || *s == '\'')
			quote = *s;
		else if (*s == c)
			return s;
	}
	return NULL;
}

/*
 * TPOINT_FILTER='sys:event:EXPR;event:EXPR', the event named as `tpoint filter` and
 * tpoint_set_filter() take it: with its system or without. A ';' or ':' inside a quoted
 * string is the string's. The events are not registered yet (their objects' constructors
 * run after ours), so the filters wait in the registry; a filter that does not compile is
 * named when its event registers.
 */
static void filters_from_env(const char *v)
{
	char *copy = strdup(v), *item = copy;

	while (item && *item) {
		char *end = find_unquoted(item, ';');
		char *first, *second, err[512];

		if (end)
			*end = 0;
		while (*item == ' ')
			item++;
		first = find_unquoted(item, ':');
		second = first ? find_unquoted(first + 1, ':') : NULL;
		if (*item && (!first || first == item || (second && second == first + 1))) {
			tp_err("TPOINT_FILTER: '%s': expected system:event:expression or "
			       "event:expression", item);
		} else if (*item) {
			char *sep = second ? second : first;

			*sep = 0;
			if (tp_registry_want_filter(item, sep + 1, err, sizeof(err)) < 0)
				tp_err("TPOINT_FILTER: %s", err);
		}
		item = end ? end + 1 : NULL;
	}
	free(copy);
}

static void configure_from_env(void)
{
	const char *v;
	size_t size;

	v = getenv("TPOINT_BUFFER_SIZE");
	if (v) {
		if (tp_pool_size_parse(v, &size) < 0)
			tp_err("TPOINT_BUFFER_SIZE='%s': expected " TP_POOL_SIZE_EXPECTED "; using "
			       "%zuM", v, pool_bytes >> 20);
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
	v = getenv("TPOINT_COMPRESS");
	if (v && *v && strcmp(v, "none"))
		compress_spec = strdup(v);
	v = getenv("TPOINT_EVENTS");
	if (v && tp_registry_enable_patterns(v, true, true) == -EINVAL)
		tp_err("TPOINT_EVENTS='%s': expected comma-separated globs like 'sys:*,sys:event'",
		       v);
	tp_registry_run_fn_calls();
	v = getenv("TPOINT_FILTER");
	if (v)
		filters_from_env(v);
}

/*
 * The owner of TPOINT_RECORD collects the pools of its children (handover.c), to write the
 * files of those that end with _exit() at its own exit: its receiving end, and FILE.
 */
static int collect_fd = -1;
static char *collect_base;

/*
 * An env-started recording: into `base`, or into the next generation of it if an image of
 * this process recorded there before exec (whose pool is adopted first).
 */
static void start_env_locked(const char *what, const char *out, const char *base,
			     bool spool_only)
{
	int gen = tp_handover_adopt(base), err;
	char *spool = tp_handover_spool_name(base, gen);

	if (!spool)
		return;
	err = start_locked(out, spool, spool_only);
	if (err) {
		tp_err("%s: cannot record: %s; running untraced", what, strerror(-err));
	} else {
		rec.spool_base = strdup(base);
		rec.gen = rec.spool_base ? gen : 0;
		tp_handover_publish(rec.pool, gen);
	}
	free(spool);
}

/* The file of TPOINT_RECORD's own recording in the process that owns it, made absolute. */
static char *env_owned_out;

/* Where this process records, from TPOINT_SPOOL_DIR (`tpoint record`) or TPOINT_RECORD. */
static void start_from_env(void)
{
	const char *dir = getenv("TPOINT_SPOOL_DIR");
	const char *path = getenv("TPOINT_RECORD");
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
	const char *owner = getenv("TPOINT_RECORD_OWNER");
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
		setenv("TPOINT_RECORD_OWNER", pid, 1);
		/* Ours, from the image before exec, or a new one. */
		collect_fd = tp_collect_owned();
		if (collect_fd < 0 && tp_collect_make(&collect_fd, true) < 0)
			collect_fd = -1;
		free(collect_base);
		collect_base = strdup(path);
	}
	if (asprintf(&spool, "%s.spool", out) < 0 || asprintf(&what, "TPOINT_RECORD=%s", out) < 0) {
		free(spool);
		free(out);
		return;
	}
	/*
	 * Not a regular file (a device, a FIFO, a link): refused, and said even without
	 * TPOINT_DEBUG, as the user named it and would otherwise look for a file (ownfile.c).
	 */
	char why[512];

	if (tp_output_check(out, why, sizeof(why)) < 0 || tp_output_check(spool, why, sizeof(why)) < 0)
		tp_notice("TPOINT_RECORD: %s; running untraced", why);
	else
		start_env_locked(what, out, spool, false);
	if (rec.active && !owner_is_other && rec.out_path)
		env_owned_out = strdup(rec.out_path); /* absolute: the owner may change directory */
	free(what);
	free(spool);
	free(out);
}

struct child_files {
	pid_t pid;
	int gen; /* the newest generation of its spool seen */
};

/* Write FILE.<pid> of a child that did not, from the generations of its spool; remove them. */
static void finish_child_file(const struct child_files *c)
{
	char *out = NULL, *base = NULL, **spools = calloc((size_t)c->gen + 1, sizeof(char *));
	struct tracedat_result res;
	char err[512];
	int n = 0;

	if (!spools || asprintf(&out, "%s.%d", collect_base, (int)c->pid) < 0 ||
	    asprintf(&base, "%s.spool", out) < 0)
		goto out;
	for (int g = 0; g <= c->gen; g++) {
		char *name = tp_handover_spool_name(base, g);

		if (name && access(name, F_OK) == 0)
			spools[n++] = name;
		else
			free(name);
	}
	if (n && write_file(out, spools, n, &res, err, sizeof(err)) >= 0) {
		tp_debug("child %d ended without completing %s: written from its spool and pool "
			 "(%llu events)", (int)c->pid, out, (unsigned long long)res.events);
		tp_tracedat_result_free(&res);
		for (int i = 0; i < n; i++)
			unlink(spools[i]);
	} else if (n) {
		tp_err("child %d: %s", (int)c->pid, err);
	}
out:
	for (int i = 0; i < n; i++)
		free(spools[i]);
	free(spools);
	free(base);
	free(out);
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
		char *base = NULL, *spool = NULL, err[512];
		uint64_t added;
		size_t k;

		if (c.pid != getpid() && tp_pid_gone(c.pid) &&
		    asprintf(&base, "%s.%d.spool", collect_base, (int)c.pid) >= 0 &&
		    (spool = tp_handover_spool_name(base, c.gen)) && access(spool, F_OK) == 0) {
			if (tp_spool_salvage_memfd(spool, c.memfd, c.npages, c.meta_off, &added,
						    err, sizeof(err)) < 0)
				tp_err("child %d: %s", (int)c.pid, err);
			for (k = 0; k < n && files[k].pid != c.pid; k++)
				;
			if (k == n) {
				struct child_files *m = realloc(files, (n + 1) * sizeof(*m));

				if (m) {
					files = m;
					files[n++] = (struct child_files){ c.pid, c.gen };
				}
			} else if (files[k].gen < c.gen) {
				files[k].gen = c.gen;
			}
		}
		free(spool);
		free(base);
		close(c.memfd);
	}
	for (size_t k = 0; k < n; k++)
		finish_child_file(&files[k]);
	free(files);
}

static void at_exit(void)
{
	char *said = NULL;

	pthread_mutex_lock(&session_mutex);
	if (rec.active) {
		const char *env = getenv("TPOINT_RECORD"), *owner = getenv("TPOINT_RECORD_OWNER");

		/*
		 * TPOINT_RECORD's own file, in the process that owns it: said, by the name the
		 * user gave, if it holds nothing.
		 */
		if (env && *env && !rec.spool_only && rec.out_path && env_owned_out &&
		    owner && atoi(owner) == (int)getpid() && !strcmp(rec.out_path, env_owned_out))
			said = strdup(env);
		int err = stop_locked();

		if (err < 0)
			tp_err("recording not completed: %s", strerror(-err));
	}
	if (collect_fd >= 0 && collect_base)
		collect_children();
	pthread_mutex_unlock(&session_mutex);
	tp_registry_report_unmatched();
	if (said)
		tp_registry_say_nothing_enabled(said);
	free(said);
}

static void fork_prepare(void)
{
	pthread_mutex_lock(&session_mutex);
	/* No fork in the middle of a patch: the child would inherit a half-written site. */
	tp_jump_fork_prepare();
	tp_spool_fork_prepare();
	tp_control_fork_prepare();
}

static void fork_parent(void)
{
	tp_jump_fork_parent();
	pthread_mutex_unlock(&session_mutex);
}

static void fork_child(void)
{
	bool was_recording = rec.active;
	bool spool_only = rec.spool_only;
	char *parent_out = rec.out_path;

	pthread_mutex_init(&session_mutex, NULL);
	tp_jump_fork_child();
	tp_registry_after_fork();
	tp_writer_after_fork();
	tp_spool_after_fork();
	tp_control_after_fork();
	if (collect_fd >= 0) /* the owner collects, not its children */
		close(collect_fd);
	collect_fd = -1;
	__atomic_store_n(&tp_active_pool, NULL, __ATOMIC_RELEASE);
	/*
	 * A recorder attached to the parent is the parent's: what it enabled is off here
	 * (tp_registry_after_fork()), its spool is the parent's (tp_spool_after_fork()).
	 */
	free(rec.reader);
	rec.reader = NULL;
	rec.attached = false;
	/*
	 * The parent's pool is shared memory: unmap it without touching it (the parent goes on
	 * writing there); its queues are the child's own copies.
	 */
	if (rec.pool) {
		tp_pool_destroy(rec.pool);
		free(rec.pool);
	}
	free(rec.spool);
	free(rec.spool_base);
	rec.spool = rec.spool_base = NULL;
	rec.gen = 0;
	rec.out_path = NULL;
	rec.pool = NULL;
	rec.active = false;
	if (!was_recording) {
		free(parent_out);
		return;
	}
	tp_registry_apply_recording(false);
	if (!spool_only && !parent_out) {
		keep_enabled_locked(); /* the parent kept its events in memory: so does the child */
	} else if (spool_only || getenv("TPOINT_RECORD")) {
		start_from_env(); /* a recording of the environment's goes on as one */
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

const char tp_session_linked = 1;

__attribute__((constructor)) static void tpoint_init(void)
{
	tp_log_init_from_env();
	if (tp_writer_init() < 0)
		tp_err("no thread-exit hook; pages of exited threads are read at the end");
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	configure_from_env();
	if (getenv("TPOINT_RECORD") || getenv("TPOINT_SPOOL_DIR")) {
		pthread_mutex_lock(&session_mutex);
		start_from_env();
		pthread_mutex_unlock(&session_mutex);
	}
	/* TPOINT_EVENTS alone: the events that registered already record into memory. */
	tp_session_keep_enabled();
	atexit(at_exit);
	tp_control_start();
}
