/* SPDX-License-Identifier: MIT */
/*
 * The `snapshot` trigger's files: when it fires, what the process's buffers hold is written
 * to a new trace.dat, PROGRAM-PID-N.dat in the snapshot directory, by a thread of the
 * library's, never by the thread that fired.
 *
 * The firing thread may be anywhere: in a signal handler, in a child after fork(), holding
 * the program's locks. So it only claims a free place in a small queue (a compare-and-swap),
 * fills it, and wakes the writer with one write() to an eventfd: no lock, no allocation, no
 * wait. The place is reserved before the trigger's count goes down (trigger_run.c): a
 * firing that finds every place taken is no firing, neither written nor counted against
 * snapshot:N (so :N makes N files), and the writer says how many there were once the queue
 * drains (the snapshots waiting show what they would have shown, give or take their last
 * records). The writer takes the oldest request: a spool of what the pool holds
 * (tp_session_snapshot(), as `tpoint snapshot -p` asks), then the trace.dat from it with the
 * firing event and record in option TD_OPT_TPOINT_SNAPSHOT and no record after that one
 * (lib/tracedat.c), so that the file ends as the buffers stood when the trigger fired.
 * Pages that writers took back meanwhile (overwrite mode) are gone: the oldest records.
 *
 * The names never replace a file: N counts up from 1 and each name is made with O_EXCL,
 * then written over by the finished file (renamed into place: a reader never sees half a
 * file, only the empty one made first).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "env.h"
#include "log.h"
#include "ownfile.h"
#include "registry.h"
#include "session.h"
#include "session_state.h"
#include "snapshot_trigger.h"
#include "threads.h"
#include "tracedat.h"
#include "trigger_run.h"
#include "writer.h"

enum { SLOT_FREE, SLOT_FILLING, SLOT_READY };

/* One firing, waiting to be written. */
struct request {
	uint32_t state; /* atomic: SLOT_* */
	uint32_t index; /* the event's */
	uint32_t tid;
	uint64_t clock; /* its record's time */
	uint64_t seq;   /* the order of firings */
};

static struct request queue[TP_SNAPSHOT_QUEUE];
static uint64_t next_seq;
static uint32_t inuse;           /* atomic: places reserved or taken */
static uint64_t not_queued;      /* atomic: firings that found the queue full */
static uint64_t not_queued_said; /* of them, said (the writer's) */

/* The writer's state, under `arm`; the wake-up is read by the firing threads without it. */
static pthread_mutex_t arm = PTHREAD_MUTEX_INITIALIZER;
static struct owned_fd wake = OWNED_FD_NONE;
static char *dir;          /* absolute */
static bool started;       /* the thread runs */
static int thread_begun;   /* tp_thread_begun() */
static uint64_t next_n;    /* the last N tried, under `serving` */
static bool nothing_said;  /* "nothing records" was said once */
/* Held while a request is written: by the thread, and for good by the exit's flush. */
static pthread_mutex_t serving = PTHREAD_MUTEX_INITIALIZER;

/* ---- the firing thread: async-signal-safe ---- */

static bool reserve(void)
{
	uint32_t n = __atomic_load_n(&inuse, __ATOMIC_RELAXED);

	do {
		if (n >= TP_SNAPSHOT_QUEUE) {
			__atomic_fetch_add(&not_queued, 1, __ATOMIC_RELAXED);
			return false;
		}
	} while (!__atomic_compare_exchange_n(&inuse, &n, n + 1, true, __ATOMIC_ACQUIRE,
					      __ATOMIC_RELAXED));
	return true;
}

static void unreserve(void)
{
	__atomic_fetch_sub(&inuse, 1, __ATOMIC_RELEASE);
}

/* After reserve(): a free place is there. */
static void fire(uint32_t index, uint64_t clock)
{
	struct thread_rec *t = TPOINT_TLS.thread;
	int saved = errno;

	for (unsigned i = 0; i < TP_SNAPSHOT_QUEUE; i++) {
		struct request *r = &queue[i];
		uint32_t expect = SLOT_FREE;
		uint64_t one = 1;
		int fd;

		if (!__atomic_compare_exchange_n(&r->state, &expect, SLOT_FILLING, false,
						 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		r->index = index;
		r->tid = t ? (uint32_t)t->tid : 0;
		r->clock = clock;
		r->seq = __atomic_fetch_add(&next_seq, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&r->state, SLOT_READY, __ATOMIC_RELEASE);
		/* Only into our own eventfd: the program may have closed it and reused the number. */
		fd = __atomic_load_n(&wake.fd, __ATOMIC_ACQUIRE);
		if (fd >= 0 && tp_ownfd_intact(&wake) && write(fd, &one, sizeof(one)) < 0) {
			/* the writer looks at the queue every second anyway */
		}
		errno = saved;
		return;
	}
	unreserve(); /* not reached: a reservation holds a place */
	__atomic_fetch_add(&not_queued, 1, __ATOMIC_RELAXED);
	errno = saved;
}

/* ---- the directory ---- */

/* TPOINT_SNAPSHOT_DIR, else TPOINT_RECORD's directory, else the working directory. */
static char *dir_wanted(void)
{
	const char *env = tp_env_snapshot_dir(), *rec = tp_env_record();
	char *abs, *slash;

	if (env && *env)
		return tp_session_absolute(env);
	if (rec && *rec) {
		abs = tp_session_absolute(rec);
		slash = abs ? strrchr(abs, '/') : NULL;
		if (slash)
			*(slash == abs ? slash + 1 : slash) = '\0';
		return abs;
	}
	return getcwd(NULL, 0);
}

/*
 * A directory of this user's or root's, that nobody else can write in unless it is sticky
 * (/tmp): nobody else can plant a name there, or take one away. 0, or -errno with why.
 */
static int dir_check(const char *d, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(d, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "snapshot directory %s: %s", d, strerror(e));
		return -e;
	}
	close(fd);
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		snprintf(err, errlen, "snapshot directory %s: owned by uid %u, not by this user "
			 "(uid %u) or root", d, (unsigned)st.st_uid, (unsigned)geteuid());
		return -EPERM;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
		snprintf(err, errlen, "snapshot directory %s: others can write in it and it is not "
			 "sticky (mode %04o)", d, (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/* ---- the writer ---- */

static void event_name(uint32_t index, char *out, size_t len)
{
	tp_registry_lock();
	if (index < tp_nslots && tp_slots[index].system)
		snprintf(out, len, "%s:%s", tp_slots[index].system, tp_slots[index].name);
	else
		snprintf(out, len, "event %u", (unsigned)index);
	tp_registry_unlock();
}

/* A new PROGRAM-PID-N.dat in `d`, made with O_EXCL: its name in `path`, or -errno. */
static int file_make(const char *d, char *path, size_t len)
{
	const char *prog = program_invocation_short_name;

	if (!prog || !*prog)
		prog = "program";
	for (int tries = 0; tries < 100000; tries++) {
		int fd;

		snprintf(path, len, "%s/%s-%d-%llu.dat", d, prog, (int)getpid(),
			 (unsigned long long)++next_n);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* Write one request's file; a failure is said in one line, and leaves no file. */
static void write_request(const struct request *r)
{
	char event[2 * TPOINT_NAME_MAX + 16], path[PATH_MAX], tmp[PATH_MAX + 16];
	char spool[PATH_MAX + 32];
	char why[1024];
	struct tracedat_result res;
	struct tracedat_fired fired;
	char *d;
	int ret;

	event_name(r->index, event, sizeof(event));
	pthread_mutex_lock(&arm);
	d = dir ? strdup(dir) : NULL;
	pthread_mutex_unlock(&arm);
	if (!d) {
		tp_notice("snapshot fired by %s not written: %s", event, strerror(ENOMEM));
		return;
	}
	ret = dir_check(d, why, sizeof(why));
	if (ret == 0 && (ret = file_make(d, path, sizeof(path))) < 0)
		snprintf(why, sizeof(why), "%.900s: %s", d, strerror(-ret));
	if (ret < 0) {
		tp_notice("snapshot fired by %s not written: %s", event, why);
		free(d);
		return;
	}
	/* The spool goes in a directory of its own beside the file, mode 0700, then away. */
	snprintf(tmp, sizeof(tmp), "%s.spool.XXXXXX", path);
	if (!mkdtemp(tmp)) {
		ret = -errno;
		snprintf(why, sizeof(why), "%.900s: %s", tmp, strerror(errno));
	} else {
		ret = tp_session_snapshot(tmp, spool, sizeof(spool));
		if (ret == -ENOENT) {
			snprintf(why, sizeof(why), "nothing records in this process (no event is "
				 "enabled: TPOINT_EVENTS, tpoint enable -p)");
		} else if (ret == -EBUSY) {
			snprintf(why, sizeof(why), "a recorder reads the buffers now (tpoint record "
				 "-p, tpoint stream): its file has these records");
		} else if (ret < 0) {
			snprintf(why, sizeof(why), "%s", strerror(-ret));
		} else {
			char *spools[] = { spool };

			/* As the recording's file would be: v7 if TPOINT_COMPRESS asks. */
			fired = (struct tracedat_fired){ event, r->tid, r->clock };
			ret = tp_session_write_file(path, spools, 1, 0, &fired, &res, why,
						    sizeof(why));
			if (ret == 0)
				tp_tracedat_result_free(&res);
		}
		if (ret != -ENOENT)
			unlink(spool);
		rmdir(tmp);
	}
	if (ret < 0) {
		unlink(path);
		if (ret != -ENOENT || !nothing_said)
			tp_notice("snapshot fired by %s not written: %s", event, why);
		nothing_said |= ret == -ENOENT;
	} else {
		tp_debug("snapshot fired by %s: %s", event, path);
	}
	free(d);
}

/* The oldest request waiting, or NULL. */
static struct request *oldest(void)
{
	struct request *best = NULL;

	for (unsigned i = 0; i < TP_SNAPSHOT_QUEUE; i++)
		if (__atomic_load_n(&queue[i].state, __ATOMIC_ACQUIRE) == SLOT_READY &&
		    (!best || queue[i].seq < best->seq))
			best = &queue[i];
	return best;
}

/* Under `serving`: every request waiting, oldest first. */
static void serve(void)
{
	struct request *r;
	uint64_t lost;

	while ((r = oldest())) {
		struct request copy = *r;

		__atomic_store_n(&r->state, SLOT_FREE, __ATOMIC_RELEASE);
		unreserve();
		write_request(&copy);
	}
	lost = __atomic_load_n(&not_queued, __ATOMIC_RELAXED);
	if (lost != not_queued_said) {
		tp_notice("snapshot: %llu more firing%s came while %d snapshots waited to be "
			  "written: not written, nor counted against snapshot:N",
			  (unsigned long long)(lost - not_queued_said), lost - not_queued_said > 1 ?
			  "s" : "", TP_SNAPSHOT_QUEUE);
		not_queued_said = lost;
	}
}

/* A wake-up of our own: a new eventfd when there is none or the program took its number. */
static void wake_renew(void)
{
	int fd;

	if (wake.fd >= 0 && tp_ownfd_intact(&wake))
		return;
	__atomic_store_n(&wake.fd, -1, __ATOMIC_RELEASE); /* not ours: never closed */
	fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (fd >= 0)
		tp_ownfd_adopt(&wake, fd);
}

static void *writer_thread(void *arg)
{
	(void)arg;
	tp_thread_begun(&thread_begun);
	/*
	 * Below the program's threads (nice +10, this thread alone): woken by a firing, it
	 * should not take the firing thread's CPU from it there and then.
	 */
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), 10) < 0) {
		/* a sandbox may refuse it: the thread runs as the others do */
	}
	for (;;) {
		struct pollfd p = { -1, POLLIN, 0 };
		uint64_t v;

		pthread_mutex_lock(&arm);
		wake_renew();
		p.fd = wake.fd;
		pthread_mutex_unlock(&arm);
		/* A second at most: a wake-up lost (its descriptor taken) delays, never loses. */
		if (poll(&p, 1, 1000) > 0 && (p.revents & POLLIN) && read(p.fd, &v, sizeof(v)) < 0) {
			/* EAGAIN: another read took it */
		}
		pthread_mutex_lock(&serving);
		serve();
		pthread_mutex_unlock(&serving);
	}
	return NULL;
}

/* Under `arm`. */
static int thread_start(void)
{
	sigset_t all, old;
	pthread_t th;
	int err;

	wake_renew();
	if (wake.fd < 0)
		return -errno;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	thread_begun = 0;
	err = pthread_create(&th, NULL, writer_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	pthread_detach(th);
	pthread_setname_np(th, "tpoint-snapshot");
	started = true;
	__atomic_store_n(&tp_snapshot_unreserve_hook, unreserve, __ATOMIC_RELEASE);
	__atomic_store_n(&tp_snapshot_reserve_hook, reserve, __ATOMIC_RELEASE);
	__atomic_store_n(&tp_snapshot_hook, fire, __ATOMIC_RELEASE);
	return 0;
}

int tp_snapshot_trigger_arm(char *err, size_t errlen)
{
	char *d = dir_wanted();
	int ret;

	if (!d) {
		snprintf(err, errlen, "snapshot directory: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = dir_check(d, err, errlen);
	if (ret < 0) {
		free(d);
		return ret;
	}
	pthread_mutex_lock(&arm);
	free(dir);
	dir = d;
	if (!started && (ret = thread_start()) < 0)
		snprintf(err, errlen, "snapshot: no writer thread: %s", strerror(-ret));
	pthread_mutex_unlock(&arm);
	return ret;
}

void tp_snapshot_trigger_flush(void)
{
	if (!__atomic_load_n(&tp_snapshot_hook, __ATOMIC_ACQUIRE))
		return;
	/* Kept: the thread writes nothing more once the recording stops after this. */
	pthread_mutex_lock(&serving);
	serve();
}

void tp_snapshot_trigger_fork_prepare(void)
{
	pthread_mutex_lock(&arm);
	if (started)
		tp_thread_wait_begun(&thread_begun);
}

void tp_snapshot_trigger_fork_parent(void)
{
	pthread_mutex_unlock(&arm);
}

/*
 * The child: the parent's requests are the parent's (its thread writes them), and so is the
 * eventfd the child inherited (a write to it would wake the parent's writer). A thread of its
 * own, with a wake-up of its own, if the parent had one.
 */
void tp_snapshot_trigger_after_fork(void)
{
	bool was = started;

	pthread_mutex_init(&arm, NULL);
	pthread_mutex_init(&serving, NULL);
	for (unsigned i = 0; i < TP_SNAPSHOT_QUEUE; i++)
		__atomic_store_n(&queue[i].state, SLOT_FREE, __ATOMIC_RELAXED);
	__atomic_store_n(&inuse, 0, __ATOMIC_RELAXED);
	tp_ownfd_close(&wake);
	started = false;
	nothing_said = false;
	if (was && thread_start() < 0)
		tp_notice("snapshot: no writer thread in the child process %d: its snapshot "
			  "triggers write nothing", (int)getpid());
}
