/* SPDX-License-Identifier: MIT */
/* See attach.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <unistd.h>
#include "attach.h"
#include "fmt/control_msg.h"
#include "handover.h"
#include "salvage.h"
#include "tool.h"

/* The effective uid and gid of a process: whose files it makes, whose socket it has. */
static int proc_owner(pid_t pid, uid_t *uid, gid_t *gid)
{
	char path[64], line[256];
	unsigned long r, e;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %lu %lu", &r, &e) == 2) {
			*uid = (uid_t)e;
			found |= 1;
		} else if (sscanf(line, "Gid: %lu %lu", &r, &e) == 2) {
			*gid = (gid_t)e;
			found |= 2;
		}
	fclose(f);
	return found == 3 ? 0 : -ESRCH;
}

/*
 * The directory and the spool file are made and opened here, before anything is lent to
 * the process's user: from then on the tool touches them only through these descriptors,
 * never by a path, since that user may rename, replace or symlink anything in the
 * directory (or the directory itself, in a sticky /tmp).
 */
int attach_make_dir(struct attach *a, pid_t pid, const char *near, char *err, size_t errlen)
{
	const char *slash = strrchr(near, '/');
	char name[32];
	struct stat st;
	uid_t uid = 0;
	gid_t gid = 0;
	int n;

	memset(a, 0, sizeof(*a));
	a->conn.fd = -1;
	a->dir_fd = a->spool_fd = a->pool_fd = -1;
	a->pid = pid;
	n = slash ? snprintf(a->dir, sizeof(a->dir), "%.*s/.tpoint-spool.XXXXXX",
			     (int)(slash - near), near)
		  : snprintf(a->dir, sizeof(a->dir), ".tpoint-spool.XXXXXX");
	if (n <= 0 || (size_t)n >= sizeof(a->dir) || !mkdtemp(a->dir)) {
		snprintf(err, errlen, "%s: cannot write there: %s", near, strerror(errno));
		a->dir[0] = 0;
		return -errno;
	}
	/* Ours, just made, mode 0700: anything else is someone's swap under us. */
	a->dir_fd = open(a->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (a->dir_fd < 0 || fstat(a->dir_fd, &st) < 0 || st.st_uid != geteuid() ||
	    (st.st_mode & 077)) {
		snprintf(err, errlen, "%s: the directory just made was replaced", a->dir);
		if (a->dir_fd >= 0)
			close(a->dir_fd); /* not ours: touch nothing in it */
		a->dir_fd = -1;
		a->dir[0] = 0;
		return -EPERM;
	}
	snprintf(name, sizeof(name), "%d.spool", (int)pid);
	a->spool_fd = openat(a->dir_fd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			     0600);
	if (a->spool_fd < 0) {
		n = -errno;
		snprintf(err, errlen, "%s/%s: %s", a->dir, name, strerror(errno));
		attach_cleanup(a);
		return n;
	}
	snprintf(a->spool_ref, sizeof(a->spool_ref), "/proc/self/fd/%d", a->spool_fd);
	/* The process writes its spool here: as root, lend both to its user. */
	a->uid = proc_owner(pid, &uid, &gid) == 0 ? uid : geteuid();
	if (geteuid() == 0 && a->uid == uid && uid != 0 &&
	    (fchown(a->spool_fd, uid, gid) < 0 || fchown(a->dir_fd, uid, gid) < 0)) {
		n = -errno;
		snprintf(err, errlen, "%s: cannot lend it to uid %u: %s", a->dir, (unsigned)uid,
			 strerror(errno));
		attach_cleanup(a);
		return n;
	}
	if (a->dir[0] != '/') {
		char cwd[4096];

		/* The process resolves the path in its own working directory: make it absolute. */
		if (!getcwd(cwd, sizeof(cwd)) || strlen(cwd) + strlen(a->dir) + 2 > sizeof(a->dir)) {
			snprintf(err, errlen, "the working directory's path is too long");
			attach_cleanup(a);
			return -ENAMETOOLONG;
		}
		memmove(a->dir + strlen(cwd) + 1, a->dir, strlen(a->dir) + 1);
		memcpy(a->dir, cwd, strlen(cwd));
		a->dir[strlen(cwd)] = '/';
	}
	snprintf(a->spool, sizeof(a->spool), "%s/%s", a->dir, name);
	return 0;
}

int attach_open_result(struct attach *a, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != a->uid) {
		snprintf(err, errlen, "%s: not a regular file of uid %u: not read", path,
			 (unsigned)a->uid);
		close(fd);
		return -EPERM;
	}
	return fd;
}

/*
 * The pool's descriptor as passed: kept only if it is what the library makes, a memfd (shmem
 * or hugetlbfs). It is read with pread(), never mapped: another holder of it could shrink it
 * under a mapping and kill the tool with SIGBUS.
 */
static void keep_pool(struct attach *a, int memfd)
{
	struct statfs fs;
	struct stat st;

	if (fstat(memfd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    fstatfs(memfd, &fs) < 0 ||
	    (fs.f_type != TMPFS_MAGIC && fs.f_type != HUGETLBFS_MAGIC)) {
		close(memfd);
		return;
	}
	a->pool_fd = memfd;
	a->pool_len = (size_t)st.st_size;
}

int attach_start(struct attach *a, pid_t pid, const char *globs, const char *mode,
		 size_t pool_size, bool live, char *err, size_t errlen)
{
	struct ctl_text req = { 0 };
	struct ctl_attach_reply reply;
	char *text = NULL, bytes[24];
	int memfd = -1, ret;

	ret = ctl_connect(pid, &a->conn, err, errlen);
	if (ret < 0)
		return ret;
	snprintf(bytes, sizeof(bytes), "%zu", pool_size);
	tp_ctl_attach_req_put(&req, &(struct ctl_attach_req){ a->spool, globs, mode, live, bytes });
	if (req.oom) {
		tp_ctl_text_free(&req);
		return -ENOMEM;
	}
	ret = ctl_request_fd(&a->conn, CTL_ATTACH, req.buf, &text, &memfd, err, errlen);
	tp_ctl_text_free(&req);
	if (ret < 0)
		return ret;
	a->nevents = ret;
	if (memfd >= 0 && tp_ctl_attach_reply_parse(text, &reply) == 0) {
		a->npages = reply.npages;
		a->meta_off = reply.meta_offset;
		keep_pool(a, memfd);
	}
	else if (memfd >= 0)
		close(memfd);
	free(text);
	return 0;
}

int attach_finish(struct attach *a, bool *salvaged, char *err, size_t errlen)
{
	uint64_t added;
	char *text = NULL;
	int ret;

	*salvaged = false;
	ret = ctl_request(&a->conn, CTL_DETACH, NULL, &text, err, errlen);
	free(text);
	ctl_close(&a->conn);
	if (ret >= 0)
		return 0;
	if (!tp_pid_gone(a->pid))
		return ret; /* alive, and said no */
	/* Gone. If it exited, its spool is complete and salvage finds nothing more. */
	if (a->pool_fd < 0) {
		snprintf(err, errlen, "process %d ended; it did not pass its pages, so only what "
			 "it had spooled is kept", (int)a->pid);
		return 0;
	}
	*salvaged = true;
	return tp_spool_salvage_fd(a->spool_fd, a->spool, a->pool_fd, a->pool_len, a->npages,
				   a->meta_off, &added, err, errlen);
}

void attach_cleanup(struct attach *a)
{
	struct stat here, made;
	struct dirent *e;
	DIR *d = NULL;
	int fd;

	ctl_close(&a->conn);
	if (a->pool_fd >= 0)
		close(a->pool_fd);
	if (a->spool_fd >= 0)
		close(a->spool_fd);
	a->pool_fd = a->spool_fd = -1;
	if (a->dir_fd < 0) {
		a->dir[0] = 0;
		return;
	}
	/* Empty the directory we made, through its descriptor: unlinkat() follows no link. */
	fd = fcntl(a->dir_fd, F_DUPFD_CLOEXEC, 0);
	if (fd >= 0 && !(d = fdopendir(fd)))
		close(fd);
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(a->dir_fd, e->d_name, 0);
	if (d)
		closedir(d);
	/* rmdir() takes only a path: only while the path still names the directory we made. */
	if (a->dir[0] && fstat(a->dir_fd, &made) == 0 && lstat(a->dir, &here) == 0 &&
	    S_ISDIR(here.st_mode) && here.st_dev == made.st_dev && here.st_ino == made.st_ino)
		rmdir(a->dir);
	close(a->dir_fd);
	a->dir_fd = -1;
	a->dir[0] = 0;
}
