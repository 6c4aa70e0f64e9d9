/* SPDX-License-Identifier: MIT */
/*
 * What a recording leaves when its image ends without completing it: pages in its pool that
 * are not in its spool yet. Two ways that happen without a crash, and how they are caught:
 *
 * exec()	The pool's memfd is kept across exec (no close-on-exec) and named in
 *		TPOINT_POOL with this pid; the next image, if it links libtpoint, adopts it:
 *		adds its pages to the old spool (tp_spool_salvage_memfd()) and records into a spool
 *		of its own, the next generation (FILE.exec1.spool, ...). The file is made of all.
 * _exit()	A child (forked, or any process of tpoint record -- CMD) passes its memfd, once,
 *		to a collector named in TPOINT_COLLECT: `tpoint record`, or the process that
 *		owns TPOINT_RECORD. When the child is gone, the collector adds what its pool
 *		still holds to its spool; the owner writes the child's FILE.<pid> at its own exit.
 *
 * Descriptors named by the environment are checked (type, and the inode recorded beside
 * the number) before use: the numbers may have been reused by a program in between.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "env.h"
#include "handover.h"
#include "log.h"
#include "ownfile.h"
#include "pool.h"
#include "salvage.h"
#include "tracedat.h"

char *tp_handover_spool_name(const char *base, int gen)
{
	size_t len = strlen(base);
	char *name;

	if (!gen)
		return strdup(base);
	if (len < 6 || strcmp(base + len - 6, ".spool"))
		return asprintf(&name, "%s.exec%d", base, gen) < 0 ? NULL : name;
	return asprintf(&name, "%.*s.exec%d.spool", (int)(len - 6), base, gen) < 0 ? NULL : name;
}

/* fd is open and is the file with inode ino. */
static bool fd_is(int fd, unsigned long long ino)
{
	struct stat st;

	return fd > 2 && fstat(fd, &st) == 0 && (unsigned long long)st.st_ino == ino;
}

/*
 * TPOINT_POOL: "pid:fd:inode:npages:meta_offset:gen:base", the base last (a path may hold
 * ':'). Parsed only when it is this pid's and the descriptor is still the pool it names.
 */
static bool pool_env(int *fd, unsigned *npages, size_t *meta_off, int *gen, const char **base)
{
	const char *v = tp_getenv(TP_ENV_POOL);
	unsigned long long ino;
	int pid, at = 0;

	if (!v || sscanf(v, "%d:%d:%llu:%u:%zu:%d:%n", &pid, fd, &ino, npages, meta_off, gen,
			 &at) != 6 || !at || *gen < 0 || !fd_is(*fd, ino))
		return false;
	if (pid != (int)getpid()) {
		close(*fd); /* another process's pool that came here through fork and exec */
		return false;
	}
	*base = v + at;
	return true;
}

int tp_handover_adopt(char **base)
{
	unsigned npages;
	size_t meta_off;
	int fd, gen;
	const char *env_base;
	char err[512], *old, *b;
	uint64_t added;

	if (!pool_env(&fd, &npages, &meta_off, &gen, &env_base))
		return 0;
	/* The chain of spools goes on where the image before put it (a directory of ours). */
	if (!*env_base || !(b = strdup(env_base))) {
		close(fd);
		return 0;
	}
	free(*base);
	*base = b;
	old = tp_handover_spool_name(b, gen);
	if (old && tp_spool_salvage_memfd(old, fd, npages, meta_off, &added, err, sizeof(err)) == 0)
		tp_debug("exec: %llu events the image before left in its pool added to %s",
			 (unsigned long long)added, old);
	else if (old)
		tp_err("exec: the events the image before left in its pool are lost: %s", err);
	free(old);
	close(fd);
	return gen + 1;
}

/* A collector's datagram: which spool generation, and how to read the pool passed with it. */
struct collect_msg {
	int32_t gen;
	uint32_t npages;
	uint64_t meta_off;
	char base[]; /* the spool of generation 0, with its NUL (a collector may ignore it) */
};

/* One message with one descriptor passed, without waiting: 0 or -errno. */
static int send_fd(int sock, const void *buf, size_t len, int fd)
{
	struct iovec iov = { (void *)buf, len };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	memset(u.buf, 0, sizeof(u.buf));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 ? -errno : 0;
}

/* The message for a pool of generation `gen` of `base`, malloc'ed; its length in *len. */
static struct collect_msg *pool_msg(struct pool *p, const char *base, int gen, size_t *len)
{
	size_t blen = strlen(base) + 1;
	struct collect_msg *m = malloc(sizeof(*m) + blen);

	if (m) {
		*m = (struct collect_msg){ gen, p->npages, tp_pool_meta_offset(p) };
		memcpy(m->base, base, blen);
		*len = sizeof(*m) + blen;
	}
	return m;
}

void tp_handover_publish(struct pool *p, const char *base, int gen)
{
	const char *v = tp_getenv(TP_ENV_COLLECT);
	unsigned long long ino;
	struct collect_msg *m;
	struct stat st;
	char *buf;
	size_t len;
	int fd, err;

	/* Only a descriptor still ours: the program may have closed and reused its number. */
	if (!tp_ownfd_intact(&p->memfd) || fstat(p->memfd.fd, &st) < 0)
		return;
	/* exec: the next image finds the pool here. */
	if (fcntl(p->memfd.fd, F_SETFD, 0) == 0 &&
	    asprintf(&buf, "%d:%d:%llu:%u:%zu:%d:%s", (int)getpid(), p->memfd.fd,
		     (unsigned long long)st.st_ino, p->npages, tp_pool_meta_offset(p), gen,
		     base) >= 0) {
		setenv(TP_ENV_POOL, buf, 1);
		free(buf);
	}
	/* _exit: the collector keeps the pool until this process is gone. */
	if (!v || sscanf(v, "%d:%llu", &fd, &ino) != 2 || !fd_is(fd, ino))
		return;
	m = pool_msg(p, base, gen, &len);
	err = m ? send_fd(fd, m, len, p->memfd.fd) : -ENOMEM;
	free(m);
	if (err)
		tp_warn("cannot pass the pool to the recorder (%s): if this process ends with "
			"_exit(), what its pool holds then is lost", strerror(-err));
}

int tp_collect_make(int *recv_fd, bool keep_recv)
{
	int sv[2];
	int one = 1;
	struct stat a, b;
	char buf[128];

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
	if (fstat(sv[0], &a) < 0 || fstat(sv[1], &b) < 0 || fcntl(sv[1], F_SETFD, 0) < 0) {
		close(sv[0]);
		close(sv[1]);
		return -errno;
	}
	/* keep_recv: the receiving end goes across exec too (the owner's next image). */
	if (keep_recv && fcntl(sv[0], F_SETFD, 0) == 0)
		snprintf(buf, sizeof(buf), "%d:%llu:%d:%llu:%d", sv[1],
			 (unsigned long long)b.st_ino, sv[0], (unsigned long long)a.st_ino,
			 (int)getpid());
	else
		snprintf(buf, sizeof(buf), "%d:%llu", sv[1], (unsigned long long)b.st_ino);
	setenv(TP_ENV_COLLECT, buf, 1);
	*recv_fd = sv[0];
	return sv[1];
}

int tp_collect_owned(void)
{
	const char *v = tp_getenv(TP_ENV_COLLECT);
	unsigned long long sino, rino;
	int sfd, rfd, owner;

	if (!v || sscanf(v, "%d:%llu:%d:%llu:%d", &sfd, &sino, &rfd, &rino, &owner) != 5 ||
	    !fd_is(rfd, rino))
		return -1;
	if (owner == (int)getpid())
		return rfd;
	close(rfd); /* the owner's: a child has no use for it */
	return -1;
}

int tp_collect_next(int recv_fd, struct collected *out)
{
	union {
		struct collect_msg m;
		char bytes[sizeof(struct collect_msg) + PATH_MAX];
	} in;
	struct collect_msg *mp = &in.m;
	struct iovec iov = { &in, sizeof(in) - 1 };
	union {
		char buf[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;

	for (;;) {
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
				      .msg_controllen = sizeof(u.buf) };
		ssize_t n = recvmsg(recv_fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		int fd = -1;
		pid_t pid = 0;

		if (n < 0)
			return errno == EINTR ? tp_collect_next(recv_fd, out) : 0;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
			if (c->cmsg_level != SOL_SOCKET)
				continue;
			if (c->cmsg_type == SCM_RIGHTS && c->cmsg_len >= CMSG_LEN(sizeof(int))) {
				int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));

				memcpy(&fd, CMSG_DATA(c), sizeof(int));
				for (int i = 1; i < k; i++) { /* one is all a sender passes */
					int extra;

					memcpy(&extra, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
					close(extra);
				}
			} else if (c->cmsg_type == SCM_CREDENTIALS) {
				struct ucred cr;

				memcpy(&cr, CMSG_DATA(c), sizeof(cr));
				pid = cr.pid;
			}
		}
		/* Only whole messages with a pool and a sender we can name. */
		if (n < (ssize_t)sizeof(*mp) || fd < 0 || pid <= 0 || mp->gen < 0 ||
		    mp->gen > 1000000) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		out->pid = pid;
		out->gen = mp->gen;
		out->memfd = fd;
		out->npages = mp->npages;
		out->meta_off = (size_t)mp->meta_off;
		in.bytes[n] = 0; /* an older sender's message has no base: "" */
		snprintf(out->base, sizeof(out->base), "%s", n > (ssize_t)sizeof(*mp) ? mp->base : "");
		return 1;
	}
}

bool tp_pid_gone(pid_t pid)
{
	char path[64], buf[512], *close_paren;
	ssize_t n;
	int fd;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = 0;
	close_paren = strrchr(buf, ')'); /* the command may hold spaces and parentheses */
	return close_paren && close_paren[1] == ' ' &&
	       (close_paren[2] == 'Z' || close_paren[2] == 'X');
}

/*
 * The watcher. TPOINT_RECORD's process may end without completing its file: _exit() runs no
 * atexit handler, exec of a program without libtpoint runs none of ours, a signal kills it;
 * its drain thread dies with it. What it recorded is in its spool and its pool then, and
 * nothing of the process is left to write the file, nor to say so. So before it records,
 * the process that owns TPOINT_RECORD starts a watcher: forked twice (no child of the
 * program's, for its wait() to meet), in a session of its own (no signal of the terminal's),
 * in /, holding none of the program's descriptors but a copy of its stderr. Each image that
 * records passes it its pool and where its spools are (the socket is named in TPOINT_WATCH,
 * across exec), and says when its file is complete. The watcher waits for the owner's end
 * (a pidfd; without one, a look every 200 ms): if the last spool is still there then, the
 * file was not completed. It adds what the pool holds to the spool, writes the file from
 * the spools and says so in one line on stderr; or, if it cannot, says where they are kept
 * and the command that makes the file from them.
 */
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* the same on every architecture */
#endif

/* The watcher's socket in the process it watches (all of its images). */
static struct owned_fd watch_sock = { .fd = -1 };

/* A pool and its spools, or (gen < 0, no descriptor) "the file is complete". */
struct watch_msg {
	int32_t gen;
	uint32_t npages;
	uint64_t meta_off;
	char text[]; /* the spool of generation 0, the file, "TPOINT_RECORD=FILE": NUL after each */
};

struct watched {
	int memfd;
	uint32_t npages;
	uint64_t meta_off;
	int gen;
	char text[3 * PATH_MAX + 64];
	const char *base, *out, *what;
};

/* One message from the owner (its credentials say so): 1, 0 at the end of the socket. */
static int watch_recv(int sock, pid_t owner, struct watched *w, bool *done)
{
	union {
		struct watch_msg m;
		char bytes[sizeof(struct watch_msg) + sizeof(w->text)];
	} in;
	union {
		char buf[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { &in, sizeof(in) - 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	pid_t from = 0;
	int fd = -1;

	if (n <= 0)
		return n < 0 && errno == EINTR ? 1 : 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int))) {
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
		} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
			struct ucred cr;

			memcpy(&cr, CMSG_DATA(c), sizeof(cr));
			from = cr.pid;
		}
	}
	if (from != owner || n < (ssize_t)sizeof(in.m)) {
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (in.m.gen < 0) {
		*done = true;
		return 1;
	}
	size_t len = (size_t)n - sizeof(in.m);
	const char *t = in.m.text, *end = t + len;
	const char *out = memchr(t, 0, len) ? t + strlen(t) + 1 : end;
	const char *what = out < end && memchr(out, 0, (size_t)(end - out)) ? out + strlen(out) + 1 : end;

	if (fd < 0 || what >= end || !memchr(what, 0, (size_t)(end - what)) || !*t) {
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (w->memfd >= 0)
		close(w->memfd);
	w->memfd = fd;
	w->npages = in.m.npages;
	w->meta_off = in.m.meta_off;
	w->gen = in.m.gen;
	memcpy(w->text, in.m.text, len);
	w->base = w->text;
	w->out = w->text + (out - t);
	w->what = w->text + (what - t);
	return 1;
}

/* The owner ended with its last spool still there: its file, from the spools and the pool. */
static void watch_finish(const struct watched *w, pid_t owner, int errfd)
{
	const char *slash = strrchr(w->base, '/');
	char *spools[64], err[512], *dir = NULL, *last;
	struct tracedat_result res;
	uint64_t added;
	int n = 0;

	if (w->memfd < 0 || w->gen < 0 || w->gen >= 64 || !slash)
		return;
	/* Gone: the file was completed (its spools go then), or the recording never began. */
	last = tp_handover_spool_name(w->base, w->gen);
	if (!last || access(last, F_OK) || !(dir = strndup(w->base, (size_t)(slash - w->base)))) {
		free(last);
		return;
	}
	for (int g = 0; g < w->gen; g++) {
		char *name = tp_handover_spool_name(w->base, g);

		if (name && access(name, F_OK) == 0)
			spools[n++] = name;
		else
			free(name);
	}
	spools[n++] = last;
	if (tp_spool_salvage_memfd(last, w->memfd, w->npages, w->meta_off, &added, err,
				   sizeof(err)) < 0)
		dprintf(errfd, "tpoint: %s: %s\n", w->what, err);
	if (tp_tracedat_write(&(struct tracedat_write_opts){ .out_path = w->out,
			      .spools = (const char *const *)spools, .nspools = n },
			      &res, err, sizeof(err)) < 0) {
		dprintf(errfd, "tpoint: %s: process %d ended without completing its file (_exit(), "
			"exec of a program without libtpoint, or a signal), and it cannot be "
			"written: %s; the recording is kept in %s, 'tpoint record --assemble %s -o %s' "
			"makes the file\n", w->what, (int)owner, err, dir, dir, w->out);
		goto out;
	}
	dprintf(errfd, "tpoint: %s: process %d ended without completing its file (_exit(), exec "
		"of a program without libtpoint, or a signal): written from its spool and pool, "
		"%llu events, %llu lost\n", w->what, (int)owner, (unsigned long long)res.events,
		(unsigned long long)res.lost);
	if (!res.damage) {
		for (int i = 0; i < n; i++)
			unlink(spools[i]);
		rmdir(dir);
	}
	tp_tracedat_result_free(&res);
out:
	for (int i = 0; i < n; i++)
		free(spools[i]);
	free(dir);
}

/* Every descriptor but `keep` closed; 0, 1 and 2 on /dev/null. */
static void watch_close_others(const int keep[3])
{
	int fds[256], n = 0, null = open("/dev/null", O_RDWR | O_CLOEXEC);
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	bool more = true;

	for (int i = 0; i < 3 && null >= 0; i++)
		if (null != i)
			dup2(null, i);
	while (d && more) {
		more = false;
		n = 0;
		rewinddir(d);
		while ((e = readdir(d)) && n < 256) {
			int fd = atoi(e->d_name);

			if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd < 3 || fd == dirfd(d) ||
			    fd == null || fd == keep[0] || fd == keep[1] || fd == keep[2])
				continue;
			fds[n++] = fd;
		}
		for (int i = 0; i < n; i++)
			close(fds[i]);
		more = n == 256;
	}
	if (d)
		closedir(d);
	if (null > 2)
		close(null);
}

static void __attribute__((noreturn)) watch_main(int sock, int pidfd, pid_t owner, int errfd)
{
	struct watched w = { .memfd = -1, .gen = -1 };
	const int keep[3] = { sock, pidfd, errfd };
	bool done = false;

	setsid();
	prctl(PR_SET_NAME, "tpoint-watch");
	if (chdir("/") < 0)
		_exit(0);
	signal(SIGPIPE, SIG_IGN);
	watch_close_others(keep);
	while (!done) {
		struct pollfd pf[2] = { { sock, POLLIN, 0 }, { pidfd, POLLIN, 0 } };
		int r = poll(pf, 2, pidfd >= 0 ? -1 : 200);

		if (r < 0 && errno != EINTR)
			break;
		if (pf[0].revents && watch_recv(sock, owner, &w, &done) == 0) {
			close(sock); /* every image closed it: the pidfd says the end */
			sock = -1;
		}
		if (done || (pidfd >= 0 && pf[1].revents) || (pidfd < 0 && tp_pid_gone(owner)))
			break;
		if (sock < 0 && pidfd < 0 && r == 0 && tp_pid_gone(owner))
			break;
	}
	if (!done)
		watch_finish(&w, owner, errfd);
	_exit(0);
}

void tp_watch_start(void)
{
	const char *v = tp_getenv(TP_ENV_WATCH);
	unsigned long long ino;
	int pid, fd, sv[2], pidfd, errfd, one = 1;
	struct stat st;
	pid_t mid;
	char buf[128];

	/* An image after exec: the watcher of the images before watches this one too. */
	if (v && sscanf(v, "%d:%d:%llu", &pid, &fd, &ino) == 3 && fd_is(fd, ino)) {
		if (pid != (int)getpid()) {
			close(fd); /* another process's, inherited through fork and exec */
		} else if (fstat(fd, &st) == 0) {
			watch_sock = (struct owned_fd){ fd, st.st_dev, st.st_ino };
			return;
		}
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return;
	/* Before the first message: the credentials of each say it is the owner's. */
	setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	errfd = fcntl(2, F_DUPFD_CLOEXEC, 3);
	pid = (int)getpid();
	mid = fork();
	if (mid == 0) {
		close(sv[0]);
		if (fork() == 0)
			watch_main(sv[1], pidfd, pid, errfd);
		_exit(0);
	}
	close(sv[1]);
	if (pidfd >= 0)
		close(pidfd);
	if (errfd >= 0)
		close(errfd);
	if (mid < 0) {
		tp_debug("no watcher for TPOINT_RECORD (fork: %s): a process that ends with "
			 "_exit() leaves its recording incomplete", strerror(errno));
		close(sv[0]);
		return;
	}
	while (waitpid(mid, NULL, 0) < 0 && errno == EINTR)
		;
	/* Kept across exec, for the next image to use; the program's children close it. */
	if (tp_ownfd_adopt(&watch_sock, sv[0]) < 0 || fcntl(watch_sock.fd, F_SETFD, 0) < 0) {
		tp_ownfd_close(&watch_sock);
		return;
	}
	snprintf(buf, sizeof(buf), "%d:%d:%llu", pid, watch_sock.fd,
		 (unsigned long long)watch_sock.ino);
	setenv(TP_ENV_WATCH, buf, 1);
}

void tp_watch_publish(struct pool *p, const char *base, int gen, const char *out,
		      const char *what)
{
	size_t lb = strlen(base) + 1, lo = strlen(out) + 1, lw = strlen(what) + 1;
	struct watch_msg *m;

	if (!tp_ownfd_intact(&watch_sock) || !tp_ownfd_intact(&p->memfd) ||
	    lb + lo + lw > sizeof(((struct watched *)0)->text))
		return;
	m = malloc(sizeof(*m) + lb + lo + lw);
	if (!m)
		return;
	*m = (struct watch_msg){ gen, p->npages, tp_pool_meta_offset(p) };
	memcpy(m->text, base, lb);
	memcpy(m->text + lb, out, lo);
	memcpy(m->text + lb + lo, what, lw);
	if (send_fd(watch_sock.fd, m, sizeof(*m) + lb + lo + lw, p->memfd.fd) < 0)
		tp_debug("cannot pass the pool to the watcher: %s", strerror(errno));
	free(m);
}

void tp_watch_done(void)
{
	struct watch_msg m = { -1, 0, 0 };

	if (tp_ownfd_intact(&watch_sock))
		send(watch_sock.fd, &m, sizeof(m), MSG_DONTWAIT | MSG_NOSIGNAL);
	tp_ownfd_close(&watch_sock);
}

void tp_watch_after_fork(void)
{
	tp_ownfd_close(&watch_sock); /* the parent's watcher watches the parent */
}
