/* SPDX-License-Identifier: MIT */
/*
 * A recording: the pool, the drain thread and the spool, from start to the finished
 * trace.dat; the public calls that start and stop one, and the requests of an attached
 * client. What the library does on its own (the environment's recording, at exit, across
 * fork()) is session_env.c's and init.c's.
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
#include "codec.h"
#include "drain.h"
#include "fmt/control_msg.h"
#include "handover.h"
#include "log.h"
#include "ownfile.h"
#include "patterns.h"
#include "pool.h"
#include "poolsize.h"
#include "registry.h"
#include "session.h"
#include "session_state.h"
#include "spool_context.h"
#include "spool_out.h"
#include "spool_snapshot.h"
#include "tracedat.h"
#include "writer.h"

#define DEFAULT_POOL_BYTES (8u << 20)
#define MIN_POOL_BYTES TP_POOL_MIN_BYTES

pthread_mutex_t tp_session_mutex = PTHREAD_MUTEX_INITIALIZER;
size_t tp_session_pool_bytes = DEFAULT_POOL_BYTES;
static struct pool *retired_pool;
enum tpoint_mode tp_session_pool_mode = TPOINT_MODE_DISCARD;
char *tp_session_compress_spec;

struct recording tp_recording;

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

int tp_session_set_buffer_size(size_t bytes)
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

int tp_session_set_mode(enum tpoint_mode mode)
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
char *tp_session_absolute(const char *path)
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
	char *abs = tp_session_absolute(out);
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
void tp_session_spool_dir_remove(const char *dir, char **spools, int n)
{
	for (int i = 0; i < n; i++)
		unlink(spools[i]);
	if (dir)
		rmdir(dir);
}

int tp_session_start_locked(const char *out_path, const char *spool, bool spool_only,
			    char *why, size_t whylen)
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
	if ((out_path && !(abs_out = tp_session_absolute(out_path))) ||
	    (spool && !(abs_spool = tp_session_absolute(spool))))
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
int tp_session_start_file_locked(const char *out, char *what, char *why, size_t whylen)
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
	err = tp_session_start_locked(out, spool, false, why, whylen);
	if (err) {
		tp_session_spool_dir_remove(dir, &spool, 1);
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
int tp_session_write_file(const char *out, char **spools, int n, uint64_t last_synced,
			  const struct tracedat_fired *fired, struct tracedat_result *res, char *err,
			  size_t errlen)
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
					.nspools = n, .codec = compress ? &codec : NULL,
					.last_spool_synced = last_synced, .fired = fired },
				res, err, errlen);
	if (compress)
		tp_codec_close(&codec);
	return ret;
}

/*
 * The file from the spools: its events and lost records, or -errno with why (*damaged: -EIO,
 * the file written with what could be read of damaged spools). synced: 0 once the drain has
 * stopped, else the current spool's length at a flush (tp_spool_sync()).
 */
static int finish_file(uint64_t synced, uint64_t *events, uint64_t *lost, bool *damaged,
		       char *why, size_t whylen)
{
	struct tracedat_result res;
	char err[512], **spools;
	int ret, n = recording_spools(&spools);

	if (n < 0) {
		snprintf(why, whylen, "out of memory");
		return n;
	}
	ret = tp_session_write_file(rec.out_path, spools, n, synced, NULL, &res, why, whylen);
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
	ret = finish_file(0, &events, &lost, &damaged, fwhy, sizeof(fwhy));
	if (ret < 0) {
		size_t len = strlen(why);

		snprintf(why + len, sizeof(why) - len, "%s%s", len ? "; " : "", fwhy);
		keep_spools(why, damaged);
		return ret;
	}
	n = recording_spools(&spools);
	if (n > 0) {
		tp_session_spool_dir_remove(rec.spool_dir, spools, n);
		free_spools(spools, n);
	}
	if (spool_err)
		say("%s: %s: %s holds the %llu events that reached it, %llu lost ('tpoint report "
		    "--stats %s' counts them)", rec.what ? rec.what : "recording", why,
		    rec.out_path, (unsigned long long)events, (unsigned long long)lost,
		    rec.out_path);
	return spool_err;
}

int tp_session_stop_locked(void)
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

int tp_session_record_start(const char *path)
{
	char why[1024];
	int ret;

	if (!path || !*path)
		return -EINVAL;
	pthread_mutex_lock(&session_mutex);
	/* Events kept in memory give way to the file, and come back after it. */
	if (rec.active && !rec.spool)
		tp_session_stop_locked();
	ret = tp_session_start_file_locked(path, NULL, why, sizeof(why));
	if (ret) {
		tp_err("%s: cannot record: %s", path, why);
		tp_session_keep_enabled_locked();
	}
	pthread_mutex_unlock(&session_mutex);
	return ret;
}

int tp_session_record_stop(void)
{
	int ret;

	pthread_mutex_lock(&session_mutex);
	if (rec.active && !rec.spool) {
		ret = -ENOENT; /* events kept in memory: no recording was started */
	} else {
		ret = tp_session_stop_locked();
		tp_session_keep_enabled_locked();
	}
	pthread_mutex_unlock(&session_mutex);
	return ret;
}

int tp_session_flush(void)
{
	uint64_t synced;
	int ret;

	pthread_mutex_lock(&session_mutex);
	if (!rec.active || !rec.spool)
		ret = -ENOENT;
	else if ((ret = tp_spool_sync(&synced)) == 0 && !rec.spool_only) {
		uint64_t events, lost;
		bool damaged;
		char why[1024];

		ret = finish_file(synced, &events, &lost, &damaged, why, sizeof(why));
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
	ret = tp_session_start_locked(NULL, NULL, false, why, sizeof(why));
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

void tp_session_keep_enabled_locked(void)
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
	tp_session_keep_enabled_locked();
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
		      size_t pool_size, bool live, int *memfd, struct ctl_attach_reply *info)
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

		err = tp_session_start_locked(NULL, spool, true, why, sizeof(why));
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
	*info = (struct ctl_attach_reply){ rec.pool->npages, TPOINT_PAGE_SIZE,
					   tp_pool_meta_offset(rec.pool) };
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
		ret = tp_session_stop_locked();
	}
	tp_registry_set_client(NULL);
	/* Events enabled meanwhile (the process's own, not the client's) record into memory. */
	tp_session_keep_enabled_locked();
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

void tp_session_lock(void)
{
	pthread_mutex_lock(&session_mutex);
}

void tp_session_unlock(void)
{
	pthread_mutex_unlock(&session_mutex);
}

void tp_session_fork_child(struct session_parent *parent)
{
	parent->was_recording = rec.active;
	parent->spool_only = rec.spool_only;
	parent->out = rec.out_path;
	pthread_mutex_init(&session_mutex, NULL);
}

void tp_session_forget_parent(void)
{
	__atomic_store_n(&tp_active_pool, NULL, __ATOMIC_RELEASE);
	/*
	 * A recorder attached to the parent is the parent's: what it enabled is off here
	 * (tp_registry_client_after_fork()), its spool is the parent's (tp_spool_after_fork()).
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
}
