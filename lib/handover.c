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
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"

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

int tp_handover_adopt(const char *base)
{
	const char *v = tp_getenv("TPOINT_POOL");
	unsigned long long ino;
	unsigned npages;
	size_t meta_off;
	int pid, fd, gen;
	char err[512], *old;
	uint64_t added;

	if (!v || sscanf(v, "%d:%d:%llu:%u:%zu:%d", &pid, &fd, &ino, &npages, &meta_off,
			 &gen) != 6 || gen < 0 || !fd_is(fd, ino))
		return 0;
	if (pid != (int)getpid()) {
		close(fd); /* another process's pool that came here through fork and exec */
		return 0;
	}
	old = tp_handover_spool_name(base, gen);
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
};

void tp_handover_publish(struct pool *p, int gen)
{
	const char *v = tp_getenv("TPOINT_COLLECT");
	unsigned long long ino;
	struct stat st;
	char buf[128];
	int fd;

	/* Only a descriptor still ours: the program may have closed and reused its number. */
	if (!tp_ownfd_intact(&p->memfd) || fstat(p->memfd.fd, &st) < 0)
		return;
	/* exec: the next image finds the pool here. */
	if (fcntl(p->memfd.fd, F_SETFD, 0) == 0) {
		snprintf(buf, sizeof(buf), "%d:%d:%llu:%u:%zu:%d", (int)getpid(), p->memfd.fd,
			 (unsigned long long)st.st_ino, p->npages,
			 tp_pool_meta_offset(p), gen);
		setenv("TPOINT_POOL", buf, 1);
	}
	/* _exit: the collector keeps the pool until this process is gone. */
	if (!v || sscanf(v, "%d:%llu", &fd, &ino) != 2 || !fd_is(fd, ino))
		return;
	struct collect_msg m = { gen, p->npages, tp_pool_meta_offset(p) };
	struct iovec iov = { &m, sizeof(m) };
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
	memcpy(CMSG_DATA(c), &p->memfd.fd, sizeof(int));
	if (sendmsg(fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		tp_warn("cannot pass the pool to the recorder (%s): if this process ends with "
			"_exit(), what its pool holds then is lost", strerror(errno));
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
	setenv("TPOINT_COLLECT", buf, 1);
	*recv_fd = sv[0];
	return sv[1];
}

int tp_collect_owned(void)
{
	const char *v = tp_getenv("TPOINT_COLLECT");
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
	struct collect_msg m;
	struct iovec iov = { &m, sizeof(m) };
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
		if (n != (ssize_t)sizeof(m) || fd < 0 || pid <= 0 || m.gen < 0 || m.gen > 1000000) {
			if (fd >= 0)
				close(fd);
			continue;
		}
		out->pid = pid;
		out->gen = m.gen;
		out->memfd = fd;
		out->npages = m.npages;
		out->meta_off = (size_t)m.meta_off;
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
