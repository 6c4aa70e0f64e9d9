/* SPDX-License-Identifier: MIT */
/*
 * Finding and talking to the control socket of an instrumented process. The socket of
 * process P of user U is <dir>/P.sock, where <dir> is $XDG_RUNTIME_DIR/tpoint as P sees it,
 * else /tmp/tpoint-U; the tool reads P's environment to know (root may read anyone's).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "control_client.h"
#include "control_proto.h"
#include "tpoint.h"

static int proc_uid(pid_t pid, uid_t *uid)
{
	char path[64], line[256];
	FILE *f;
	int ret = -ESRCH;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Uid:", 4)) {
			*uid = (uid_t)strtoul(line + 4, NULL, 10);
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

static void proc_comm(pid_t pid, char *out, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	out[0] = 0;
	f = fopen(path, "re");
	if (f) {
		if (fgets(out, (int)len, f))
			out[strcspn(out, "\n")] = 0;
		fclose(f);
	}
	if (!out[0])
		snprintf(out, len, "?");
}

/* $XDG_RUNTIME_DIR of the process, if it has one and we may read its environment. */
static int proc_xdg(pid_t pid, char *out, size_t len)
{
	char path[64], buf[65536];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ENOENT;
	buf[n] = 0;
	for (char *p = buf; p < buf + n; p += strlen(p) + 1)
		if (!strncmp(p, "XDG_RUNTIME_DIR=", 16) && p[16] == '/') {
			snprintf(out, len, "%s", p + 16);
			return 0;
		}
	return -ENOENT;
}

/* Receive the header of an answer, and a descriptor if one came with it. */
static int recv_hdr(int sock, struct ctl_hdr *h, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { h, sizeof(*h) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	ssize_t n;

	if (fd)
		*fd = -1;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(*h))
		return -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			int got;

			memcpy(&got, CMSG_DATA(c), sizeof(int));
			if (fd && *fd < 0)
				*fd = got;
			else
				close(got);
		}
	return 0;
}

int ctl_request(struct ctl_conn *c, uint32_t type, const char *payload, char **text, char *err,
		size_t errlen)
{
	return ctl_request_fd(c, type, payload, text, NULL, err, errlen);
}

int ctl_request_fd(struct ctl_conn *c, uint32_t type, const char *payload, char **text, int *fd,
		   char *err, size_t errlen)
{
	size_t plen = payload ? strlen(payload) : 0;
	struct ctl_hdr h = { CTL_MAGIC, CTL_MAJOR, CTL_MINOR, type, (uint32_t)plen };
	int32_t result;
	char *body;

	*text = NULL;
	if (ctl_send_all(c->fd, &h, sizeof(h)) < 0 || (plen && ctl_send_all(c->fd, payload, plen) < 0) ||
	    recv_hdr(c->fd, &h, fd) < 0) {
		snprintf(err, errlen, "process %d closed the control channel", (int)c->pid);
		return -EPIPE;
	}
	if (h.magic != CTL_MAGIC || h.len < 4 || h.len > CTL_MAX_REPLY ||
	    (h.type != CTL_OK && h.type != CTL_ERROR)) {
		snprintf(err, errlen, "process %d sent a malformed answer", (int)c->pid);
		return -EPROTO;
	}
	body = malloc(h.len + 1);
	if (!body) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (ctl_recv_all(c->fd, body, h.len) < 0) {
		free(body);
		snprintf(err, errlen, "process %d closed the control channel", (int)c->pid);
		return -EPIPE;
	}
	body[h.len] = 0;
	memcpy(&result, body, 4);
	if (h.type == CTL_ERROR) {
		snprintf(err, errlen, "%s", body + 4);
		free(body);
		return result < 0 ? result : -EIO;
	}
	memmove(body, body + 4, h.len - 4 + 1);
	*text = body;
	return result;
}

int ctl_connect_path(const char *path, pid_t pid, struct ctl_conn *c, char *err, size_t errlen)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval tv = { 5, 0 };
	char *text;
	int ret;

	c->pid = pid;
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -errno;
	}
	/* A process that hangs must not hang the tool. */
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	if (connect(c->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		ret = -errno;
		close(c->fd);
		c->fd = -1;
		return ret;
	}
	ret = ctl_request(c, CTL_HELLO, NULL, &text, err, errlen);
	if (ret < 0) {
		ctl_close(c);
		return ret;
	}
	snprintf(c->hello, sizeof(c->hello), "%s", text);
	c->hello[strcspn(c->hello, "\n")] = 0;
	free(text);
	return 0;
}

int ctl_connect(pid_t pid, struct ctl_conn *c, char *err, size_t errlen)
{
	char xdg[4096], path[4096 + 64], comm[64];
	uid_t uid;
	int ret = -ENOENT;

	c->fd = -1;
	if (proc_uid(pid, &uid) < 0) {
		snprintf(err, errlen, "no process %d", (int)pid);
		return -ESRCH;
	}
	proc_comm(pid, comm, sizeof(comm));
	if (proc_xdg(pid, xdg, sizeof(xdg)) == 0) {
		snprintf(path, sizeof(path), "%s/tpoint/%d.sock", xdg, (int)pid);
		ret = ctl_connect_path(path, pid, c, err, errlen);
	}
	if (ret == -ENOENT || ret == -ECONNREFUSED) {
		snprintf(path, sizeof(path), "/tmp/tpoint-%u/%d.sock", (unsigned)uid, (int)pid);
		ret = ctl_connect_path(path, pid, c, err, errlen);
	}
	if (ret == -ENOENT || ret == -ECONNREFUSED)
		snprintf(err, errlen,
			 "process %d (%s) has no tpoint control socket: not linked with libtpoint, "
			 "or started with TPOINT_CONTROL=0", (int)pid, comm);
	else if (ret == -EACCES || ret == -EPERM)
		snprintf(err, errlen, "permission denied: process %d (%s) belongs to uid %u",
			 (int)pid, comm, (unsigned)uid);
	else if (ret < 0 && !err[0])
		snprintf(err, errlen, "process %d (%s): %s", (int)pid, comm, strerror(-ret));
	return ret;
}

void ctl_close(struct ctl_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static void each_in(const char *pattern, void (*fn)(const char *, pid_t, void *), void *arg)
{
	glob_t g;

	if (glob(pattern, 0, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *base = strrchr(g.gl_pathv[i], '/');
		char *end;
		long pid = strtol(base ? base + 1 : g.gl_pathv[i], &end, 10);

		if (pid <= 0 || strcmp(end, ".sock"))
			continue;
		/* A socket left by a process that died: nobody else will remove it. */
		if (kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
			unlink(g.gl_pathv[i]);
			continue;
		}
		fn(g.gl_pathv[i], (pid_t)pid, arg);
	}
	globfree(&g);
}

void ctl_each_socket(void (*fn)(const char *path, pid_t pid, void *arg), void *arg)
{
	char pattern[4200];
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	if (geteuid() == 0) {
		each_in("/run/user/*/tpoint/*.sock", fn, arg);
		each_in("/tmp/tpoint-*/*.sock", fn, arg);
		return;
	}
	if (xdg && *xdg == '/') {
		snprintf(pattern, sizeof(pattern), "%s/tpoint/*.sock", xdg);
		each_in(pattern, fn, arg);
	}
	snprintf(pattern, sizeof(pattern), "/tmp/tpoint-%u/*.sock", (unsigned)geteuid());
	each_in(pattern, fn, arg);
}

pid_t ctl_parse_pid(const char *verb, const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = arg ? strtol(arg, &end, 10) : 0;
	if (!arg || errno || *end || v <= 0 || v > 0x3fffffff) {
		tool_error(verb, "'%s' is not a process id (expected a positive number)",
			   arg ? arg : "");
		return -1;
	}
	return (pid_t)v;
}
