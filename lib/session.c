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
#include <sys/stat.h>
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
	/* The directory of its own that the spools of a file recording are in (spool_dir_make()),
	 * removed with them; NULL for a spool elsewhere (the tool's, a client's). */
	char *spool_dir;
	/* "TPOINT_RECORD=FILE" for the environment's recording, which says what went wrong
	 * even without TPOINT_DEBUG (tp_notice()); NULL for tpoint_record_start()'s. */
	char *what;
	/* The output did not exist before: it is removed if it stays empty (no file written). */
	bool out_made;
	dev_t out_dev;
	ino_t out_ino;
	struct pool *pool;
	bool attached;  /* a client (tpoint record -p, stream) records: tp_session_attach() */
	char *reader;   /* its spool, when it reads the in-memory run (tp_spool_start_reader) */
	char describe[4096 + 8];
} rec;

static void keep_enabled_locked(void);
static void env_filters_check(void);

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

/*
 * The spools of a recording into `out` go beside it, in a directory of their own made by
 * mkdtemp(): OUT.spool.XXXXXX, mode 0700. Nobody can guess the name, or plant a file (or a
 * hard link, a FIFO) there beforehand, and nobody else can read the recording or rewrite
 * it before it is read at the end: a FILE.spool of another user in a sticky /tmp is never
 * opened. The first spool, OUT's base name and ".spool", is created exclusively, mode 0600,
 * and checked to be a new file of ours with one link. `tpoint record --assemble DIR -o OUT`
 * makes the file from the directory when the recording could not (tp_notice() says so).
 * The directory in *dir and the spool in *spool (both malloc'ed, absolute): 0, or -errno
 * with why.
 */
static int spool_dir_make(const char *out, char **dir, char **spool, char *why,
			  size_t whylen)
{
	char *abs = absolute(out);
	int err = -ENOMEM;

	*dir = *spool = NULL;
	snprintf(why, whylen, "out of memory");
	if (!abs || asprintf(dir, "%s.spool.XXXXXX", abs) < 0) {
		*dir = NULL;
		goto fail;
	}
	if (!mkdtemp(*dir)) {
		err = -errno;
		/* Where the output cannot be written either: said as for the output. */
		snprintf(why, whylen, "%s: %s", out, strerror(errno));
		goto fail;
	}
	/* absolute: there is a '/' before the base name */
	if (asprintf(spool, "%s/%s.spool", *dir, strrchr(abs, '/') + 1) < 0) {
		*spool = NULL;
		rmdir(*dir);
		goto fail;
	}
	err = tp_spool_create(*spool, why, whylen);
	if (err) {
		rmdir(*dir);
		goto fail;
	}
	free(abs);
	return 0;
fail:
	free(*spool);
	free(*dir);
	*dir = *spool = NULL;
	free(abs);
	return err;
}

/* The spools and the directory of a recording that wrote its file, or never began. */
static void spool_dir_remove(const char *dir, char **spools, int n)
{
	for (int i = 0; i < n; i++)
		unlink(spools[i]);
	if (dir)
		rmdir(dir);
}

static int start_locked(const char *out_path, const char *spool, bool spool_only, char *why,
			size_t whylen)
{
	char *abs_out = NULL, *abs_spool = NULL;
	struct pool *pool = NULL;
	struct stat st;
	bool out_made = false;
	size_t bytes;
	int err = -ENOMEM;

	snprintf(why, whylen, "out of memory");
	if (rec.active) {
		snprintf(why, whylen, "a recording runs already");
		return -EBUSY;
	}
	/* A daemon changes directory: the names must still say where we began. */
	if ((out_path && !(abs_out = absolute(out_path))) ||
	    (spool && !(abs_spool = absolute(spool))))
		goto fail;
	if (!spool_only && abs_out) {
		/* Find out now, not at exit, whether the file can be written, and is a file. */
		int fd;

		out_made = lstat(abs_out, &st) < 0 && errno == ENOENT;
		fd = tp_output_open(abs_out, 0, why, whylen);
		if (fd < 0) {
			tp_err("%s", why);
			err = fd;
			goto fail;
		}
		if (fstat(fd, &st) < 0)
			out_made = false;
		close(fd);
	}
	/* What the machine can give now: asked for more, the pool would end the program. */
	bytes = tp_pool_size_fit(pool_bytes, why, whylen);
	if (bytes < MIN_POOL_BYTES) {
		tp_err("%s: no room for a pool of even 64 KiB", why);
		goto fail;
	}
	if (why[0])
		tp_warn("%s: using %zu KiB", why, bytes >> 10);
	snprintf(why, whylen, "out of memory");
	pool = calloc(1, sizeof(*pool));
	if (!pool)
		goto fail;
	tp_spool_mark_stats(); /* the file's counts start here */
	/* In memory only, the pool fills as events come (tp_session_ensure_recording()). */
	err = tp_pool_make(pool, bytes, pool_mode, abs_spool != NULL);
	if (err)
		snprintf(why, whylen, "no pool: %s", strerror(-err));
	if (!err && abs_spool) {
		err = tp_spool_start(pool, abs_spool, false);
		if (err)
			snprintf(why, whylen, "spool %s: %s", abs_spool, strerror(-err));
	}
	if (err) {
		tp_pool_destroy(pool); /* a second time after tp_pool_make() failed: harmless */
		goto fail;
	}
	rec.out_path = abs_out;
	rec.spool = abs_spool;
	rec.spool_only = spool_only;
	rec.pool = pool;
	rec.out_made = out_made;
	rec.out_dev = out_made ? st.st_dev : 0;
	rec.out_ino = out_made ? st.st_ino : 0;
	rec.active = true;
	/* Release: the pool is complete before a writer's slow path can take a page. */
	__atomic_store_n(&tp_active_pool, pool, __ATOMIC_RELEASE);
	tp_registry_apply_recording(true);
	return 0;

fail:
	if (out_made)
		unlink(abs_out); /* made by the check above, for a recording that never began */
	free(pool);
	free(abs_out);
	free(abs_spool);
	return err;
}

/*
 * A recording into the file `out`, its spool in a directory of its own beside it
 * (spool_dir_make()). `what` (malloc'ed, or NULL: tpoint_record_start()) names it in what
 * is said; it is the recording's from here on, or freed.
 */
static int start_file_locked(const char *out, char *what, char *why, size_t whylen)
{
	char *spool, *dir;
	int err;

	if (rec.active) {
		free(what);
		snprintf(why, whylen, "a recording runs already");
		return -EBUSY;
	}
	err = spool_dir_make(out, &dir, &spool, why, whylen);
	if (err) {
		free(what);
		return err;
	}
	err = start_locked(out, spool, false, why, whylen);
	if (err) {
		spool_dir_remove(dir, &spool, 1);
		free(dir);
		free(spool);
		free(what);
		return err;
	}
	rec.spool_dir = dir;
	rec.spool_base = spool;
	rec.gen = 0;
	rec.what = what;
	return 0;
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
	ret = tp_tracedat_write(&(struct tracedat_write_opts){
					.out_path = out, .spools = (const char *const *)spools,
					.nspools = n, .codec = compress ? &codec : NULL },
				res, err, errlen);
	if (compress)
		tp_codec_close(&codec);
	return ret;
}

/*
 * The file from the spools: its events and lost records, or -errno with why (*damaged: -EIO,
 * the file written with what could be read of damaged spools).
 */
static int finish_file(uint64_t *events, uint64_t *lost, bool *damaged, char *why,
		       size_t whylen)
{
	struct tracedat_result res;
	char err[512], **spools;
	int ret, n = recording_spools(&spools);

	if (n < 0) {
		snprintf(why, whylen, "out of memory");
		return n;
	}
	ret = write_file(rec.out_path, spools, n, &res, why, whylen);
	free_spools(spools, n);
	if (ret < 0) {
		tp_err("%s", why);
		return ret;
	}
	if (tp_tracedat_size_warning(&res, err, sizeof(err)))
		tp_warn("%s: %s", rec.out_path, err);
	*events = res.events;
	*lost = res.lost;
	*damaged = res.damage != NULL;
	if (res.damage) { /* the spool stays, for a look at what was wrong */
		snprintf(why, whylen, "%s holds what could be read of %s: %.*s", rec.out_path,
			 rec.spool, (int)strcspn(res.damage, "\n"), res.damage);
		tp_err("%s", why);
		tp_tracedat_result_free(&res);
		return -EIO;
	}
	tp_tracedat_result_free(&res);
	return 0;
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

/*
 * Said for the environment's recording even without TPOINT_DEBUG (tp_notice()): the user
 * named the file and would otherwise find none, or an empty one, with no word why.
 */
#define say(...) (rec.what ? tp_notice(__VA_ARGS__) : tp_err(__VA_ARGS__))

/*
 * The file of the recording could not be written (`why`), or holds only what could be read
 * of damaged spools (`written`): the spools stay in their directory, and the one line says
 * where and the command that makes the file from them. An output the recording made, still
 * empty, is removed rather than left to be taken for an empty recording.
 */
static void keep_spools(const char *why, bool written)
{
	const char *what = rec.what ? rec.what : "recording";
	struct stat st;

	if (rec.out_made && lstat(rec.out_path, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size == 0 && st.st_dev == rec.out_dev && st.st_ino == rec.out_ino)
		unlink(rec.out_path);
	if (written)
		say("%s: %s; the recording is kept in %s", what, why,
		    rec.spool_dir ? rec.spool_dir : rec.spool);
	else if (rec.spool_dir)
		say("%s: %s; %s is not written: the recording is kept in %s, 'tpoint record "
		    "--assemble %s -o %s' makes the file", what, why, rec.out_path, rec.spool_dir,
		    rec.spool_dir, rec.out_path);
	else
		say("%s: %s; %s is not written: the recording is kept in %s", what, why,
		    rec.out_path, rec.spool);
}

/* The file from the spools, at the end; the spools go once it is written. */
static int complete_file(int spool_err)
{
	uint64_t events = 0, lost = 0;
	bool damaged = false;
	char why[2048] = "", fwhy[1024], **spools;
	int ret = spool_err, n;

	if (spool_err)
		snprintf(why, sizeof(why), "spool %s: %s", rec.spool, strerror(-spool_err));
	/*
	 * A full disk leaves the spool whole up to its last chunk, with the counts (the room
	 * held for them, spool_out.c): the file holds what reached it, if it fits now.
	 * Anything else (the spool's descriptor and name both gone) leaves it as it is.
	 */
	if (spool_err && spool_err != -ENOSPC && spool_err != -EDQUOT) {
		keep_spools(why, false);
		return ret;
	}
	ret = finish_file(&events, &lost, &damaged, fwhy, sizeof(fwhy));
	if (ret < 0) {
		size_t len = strlen(why);

		snprintf(why + len, sizeof(why) - len, "%s%s", len ? "; " : "", fwhy);
		keep_spools(why, damaged);
		return ret;
	}
	n = recording_spools(&spools);
	if (n > 0) {
		spool_dir_remove(rec.spool_dir, spools, n);
		free_spools(spools, n);
	}
	if (spool_err)
		say("%s: %s: %s holds the %llu events that reached it, %llu lost ('tpoint report "
		    "--stats %s' counts them)", rec.what ? rec.what : "recording", why,
		    rec.out_path, (unsigned long long)events, (unsigned long long)lost,
		    rec.out_path);
	return spool_err;
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
	if (rec.spool && !rec.spool_only)
		ret = complete_file(ret);
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
	free(rec.spool_dir);
	free(rec.what);
	rec.out_path = rec.spool = rec.spool_base = rec.spool_dir = rec.what = NULL;
	rec.gen = 0;
	rec.pool = NULL;
	rec.active = false;
	return ret;
}

TPOINT_EXPORT int tpoint_record_start(const char *path)
{
	char why[1024];
	int ret;

	if (!path || !*path)
		return -EINVAL;
	pthread_mutex_lock(&session_mutex);
	/* Events kept in memory give way to the file, and come back after it. */
	if (rec.active && !rec.spool)
		stop_locked();
	ret = start_file_locked(path, NULL, why, sizeof(why));
	if (ret) {
		tp_err("%s: cannot record: %s", path, why);
		keep_enabled_locked();
	}
	pthread_mutex_unlock(&session_mutex);
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
	else if ((ret = tp_spool_sync()) == 0 && !rec.spool_only) {
		uint64_t events, lost;
		bool damaged;
		char why[1024];

		ret = finish_file(&events, &lost, &damaged, why, sizeof(why));
		if (ret == 0)
			ret = (int)(events > INT32_MAX ? INT32_MAX : events);
	}
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

	char why[512];

	pool_mode = TPOINT_MODE_OVERWRITE;
	ret = start_locked(NULL, NULL, false, why, sizeof(why));
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
	env_filters_check();
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
		char why[512];

		err = start_locked(NULL, spool, true, why, sizeof(why));
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
 * The filters of TPOINT_FILTER, until each has met its event: one that does not compile, or
 * whose event never registers, is said in one line even without TPOINT_DEBUG (tp_notice()):
 * the user asked for it by name, and a filter ignored in silence records what it was meant
 * to keep out.
 */
struct env_filter {
	char *event, *expr;
	bool met; /* its event registered, and the filter was tried on it */
};
static struct env_filter *env_filters;
static size_t nenv_filters;

static void env_filter_add(const char *event, const char *expr)
{
	struct env_filter *n = realloc(env_filters, (nenv_filters + 1) * sizeof(*n));

	if (!n)
		return;
	env_filters = n;
	n[nenv_filters] = (struct env_filter){ strdup(event), strdup(expr), false };
	if (n[nenv_filters].event && n[nenv_filters].expr) {
		nenv_filters++;
	} else {
		free(n[nenv_filters].event);
		free(n[nenv_filters].expr);
	}
}

/* Events registered (an object's constructor, a dlopen()): the filters that name them. */
static void env_filters_check(void)
{
	char err[512];

	for (size_t i = 0; i < nenv_filters; i++) {
		struct env_filter *f = &env_filters[i];
		int ret;

		if (f->met)
			continue;
		/* Compiled against the event now; the same filter is set again if it compiles. */
		ret = tp_registry_set_filter(f->event, f->expr, err, sizeof(err));
		if (ret == -ENOENT)
			continue; /* not registered yet */
		f->met = true;
		if (ret < 0)
			tp_notice("TPOINT_FILTER: '%s:%s': %s; %s records unfiltered", f->event,
				  f->expr, err, f->event);
	}
}

/* At exit: the filters whose event never registered. */
static void env_filters_report(void)
{
	for (size_t i = 0; i < nenv_filters; i++)
		if (!env_filters[i].met)
			tp_notice("TPOINT_FILTER: '%s:%s': no event '%s' in this program; the "
				  "filter was ignored", env_filters[i].event, env_filters[i].expr,
				  env_filters[i].event);
}

/*
 * TPOINT_FILTER='sys:event:EXPR;event:EXPR', the event named as `tpoint filter` and
 * tpoint_set_filter() take it: with its system or without. A ';' or ':' inside a quoted
 * string is the string's. The events are not registered yet (their objects' constructors
 * run after ours), so the filters wait in the registry; a filter that does not compile is
 * named when its event registers (env_filters_check()).
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
			tp_notice("TPOINT_FILTER: '%s': expected system:event:expression or "
				  "event:expression; ignored", item);
		} else if (*item) {
			char *sep = second ? second : first;

			*sep = 0;
			if (tp_registry_want_filter(item, sep + 1, err, sizeof(err)) < 0)
				tp_notice("TPOINT_FILTER: '%s:%s': %s; ignored", item, sep + 1, err);
			else
				env_filter_add(item, sep + 1);
		}
		item = end ? end + 1 : NULL;
	}
	free(copy);
}

static void configure_from_env(void)
{
	const char *v;
	size_t size;

	v = tp_getenv("TPOINT_BUFFER_SIZE");
	if (v) {
		if (tp_pool_size_parse(v, &size) < 0)
			tp_err("TPOINT_BUFFER_SIZE='%s': expected " TP_POOL_SIZE_EXPECTED "; using "
			       "%zuM", v, pool_bytes >> 20);
		else
			pool_bytes = size;
	}
	v = tp_getenv("TPOINT_MODE");
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
	v = tp_getenv("TPOINT_COMPRESS");
	if (v && *v && strcmp(v, "none"))
		compress_spec = strdup(v);
	v = tp_getenv("TPOINT_EVENTS");
	if (v && tp_registry_enable_patterns(v, true, true) == -EINVAL)
		tp_err("TPOINT_EVENTS='%s': expected comma-separated globs like 'sys:*,sys:event'",
		       v);
	tp_registry_run_fn_calls();
	v = tp_getenv("TPOINT_FILTER");
	if (v)
		filters_from_env(v);
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
		err = start_file_locked(out, strdup(what), why, sizeof(why));
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
	err = spool ? start_locked(out, spool, spool_only, why, sizeof(why)) : -ENOMEM;
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
	const char *dir = tp_getenv("TPOINT_SPOOL_DIR");
	const char *path = tp_getenv("TPOINT_RECORD");
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
	const char *owner = tp_getenv("TPOINT_RECORD_OWNER");
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
		collect_base = absolute(path); /* children name their spools from / on */
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
	if (n && write_file(out, spools, n, &res, err, sizeof(err)) >= 0) {
		tp_debug("child %d ended without completing %s: written from its spool and pool "
			 "(%llu events)", (int)c->pid, out, (unsigned long long)res.events);
		tp_tracedat_result_free(&res);
		spool_dir_remove(dir, spools, n);
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

static void at_exit(void)
{
	char *said = NULL;

	pthread_mutex_lock(&session_mutex);
	if (rec.active) {
		const char *env = tp_getenv("TPOINT_RECORD");
		const char *owner = tp_getenv("TPOINT_RECORD_OWNER");

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
	tp_watch_done(); /* the file is complete, or said not to be */
	if (collect_fd >= 0 && collect_base)
		collect_children();
	env_filters_report();
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
	tp_watch_after_fork();
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
	free(rec.spool_dir); /* the parent's: it removes it */
	free(rec.what);
	rec.spool = rec.spool_base = rec.spool_dir = rec.what = NULL;
	rec.out_made = false;
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
	} else if (spool_only || tp_getenv("TPOINT_RECORD")) {
		start_from_env(); /* a recording of the environment's goes on as one */
	} else if (parent_out) {
		char *out = NULL, why[1024];

		if (asprintf(&out, "%s.%d", parent_out, (int)getpid()) >= 0 &&
		    start_file_locked(out, NULL, why, sizeof(why)) < 0)
			tp_err("forked child %d cannot record to %s: %s", (int)getpid(), out, why);
		free(out);
	}
	free(parent_out);
}

/* TPOINT_RECORD's own process: not `tpoint record`'s, nor a child that records FILE.<pid>. */
static bool record_owner(void)
{
	const char *dir = tp_getenv("TPOINT_SPOOL_DIR"), *path = tp_getenv("TPOINT_RECORD");
	const char *owner = tp_getenv("TPOINT_RECORD_OWNER");

	return (!dir || !*dir) && path && *path && (!owner || atoi(owner) == (int)getpid());
}

const char tp_session_linked = 1;

__attribute__((constructor)) static void tpoint_init(void)
{
	tp_log_init_from_env();
	if (tp_writer_init() < 0)
		tp_err("no thread-exit hook; pages of exited threads are read at the end");
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	configure_from_env();
	if (tp_getenv("TPOINT_RECORD") || tp_getenv("TPOINT_SPOOL_DIR")) {
		/* Before anything records, and before any thread of ours: fork() is safe here. */
		if (record_owner())
			tp_watch_start();
		pthread_mutex_lock(&session_mutex);
		start_from_env();
		if (!rec.active)
			tp_watch_done(); /* nothing to watch */
		pthread_mutex_unlock(&session_mutex);
	}
	/* TPOINT_EVENTS alone: the events that registered already record into memory. */
	tp_session_keep_enabled();
	atexit(at_exit);
	tp_control_start();
}
