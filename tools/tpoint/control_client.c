/* SPDX-License-Identifier: MIT */
/*
 * Finding and talking to the control socket of an instrumented process. The socket of
 * process P of user U is <dir>/P.sock, where <dir> is $XDG_RUNTIME_DIR/tpoint as P sees it,
 * else /tmp/tpoint-U; the tool reads P's environment to know (root may read anyone's).
 *
 * Nothing there is taken on its word, since root uses this against every user: the
 * directory must be a real directory of U that nobody else may enter (opened without
 * following a link at its end, and connected through that descriptor), the socket's peer
 * must be P itself (SO_PEERCRED) before a byte is sent, and each answer must come whole
 * within a deadline and a size.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "control_client.h"
#include "glob.h"
#include "env.h"
#include "fmt/control_msg.h"
#include "tool.h"

#define CTL_TIMEOUT_MS 5000

static int proc_uid(pid_t pid, uid_t *uid)
{
	char path[64], line[256];
	FILE *f;
	int ret = -ESRCH;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	while (fgets(line, sizeof(line), f)) {
		unsigned long r, e;

		/* The effective uid: the library names and owns its directory by geteuid(). */
		if (sscanf(line, "Uid: %lu %lu", &r, &e) == 2) {
			*uid = (uid_t)e;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

void ctl_proc_comm(pid_t pid, char *out, size_t len)
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
		if (!strncmp(p, TP_ENV_RUNTIME_DIR "=", sizeof(TP_ENV_RUNTIME_DIR)) &&
		    p[sizeof(TP_ENV_RUNTIME_DIR)] == '/') {
			snprintf(out, len, "%s", p + sizeof(TP_ENV_RUNTIME_DIR));
			return 0;
		}
	return -ENOENT;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for `events` on sock until deadline: 1 ready, 0 timed out, -1 error. */
static int wait_for(int sock, short events, int64_t deadline)
{
	for (;;) {
		struct pollfd p = { sock, events, 0 };
		int64_t left = deadline - now_ms();
		int n;

		if (left <= 0)
			return 0;
		n = poll(&p, 1, (int)(left > 1000 ? 1000 : left));
		if (n < 0 && errno != EINTR)
			return -1;
		if (n > 0)
			return 1;
	}
}

/* All of buf by the deadline: 0, -ETIMEDOUT or -EPIPE. */
static int send_by(int sock, const void *buf, size_t len, int64_t deadline)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(sock, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			int w = wait_for(sock, POLLOUT, deadline);

			if (w <= 0)
				return w ? -EPIPE : -ETIMEDOUT;
			continue;
		}
		if (n <= 0)
			return -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * All of buf by the deadline, and the first descriptor that comes with it in *fd (others are
 * closed): 0, -ETIMEDOUT or -EPIPE. A peer that drips its bytes is cut off at the deadline.
 */
static int recv_by(int sock, void *buf, size_t len, int *fd, int64_t deadline)
{
	char *p = buf;

	while (len) {
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} u;
		struct iovec iov = { p, len };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
				      .msg_controllen = sizeof(u.buf) };
		ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			int w = wait_for(sock, POLLIN, deadline);

			if (w <= 0)
				return w ? -EPIPE : -ETIMEDOUT;
			continue;
		}
		if (n <= 0)
			return -EPIPE;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
				int got;

				memcpy(&got, CMSG_DATA(c), sizeof(int));
				if (fd && *fd < 0)
					*fd = got;
				else
					close(got);
			}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int channel_error(struct ctl_conn *c, int ret, char *err, size_t errlen)
{
	if (ret == -ETIMEDOUT)
		snprintf(err, errlen, "process %d did not answer within %d s", (int)c->pid,
			 (c->timeout_ms + 999) / 1000);
	else
		snprintf(err, errlen, "process %d closed the control channel", (int)c->pid);
	return ret;
}

int ctl_request(struct ctl_conn *c, uint32_t type, const char *payload, char **text, char *err,
		size_t errlen)
{
	return ctl_request_fd(c, type, payload, text, NULL, err, errlen);
}

/*
 * The request, and its answer's header, within one timeout (the process may work on it);
 * the body within another: a process that drips its answer holds the tool that long, not
 * 16 MiB times a receive timeout.
 */
int ctl_request_fd(struct ctl_conn *c, uint32_t type, const char *payload, char **text, int *fd,
		   char *err, size_t errlen)
{
	size_t plen = payload ? strlen(payload) : 0;
	struct ctl_hdr h = { CTL_MAGIC, CTL_MAJOR, CTL_MINOR, type, (uint32_t)plen };
	uint32_t max = c->max_reply ? c->max_reply : CTL_MAX_REPLY;
	int64_t deadline = now_ms() + c->timeout_ms;
	int32_t result;
	char *body;
	int ret;

	*text = NULL;
	if (fd)
		*fd = -1;
	ret = send_by(c->fd, &h, sizeof(h), deadline);
	if (!ret && plen)
		ret = send_by(c->fd, payload, plen, deadline);
	/* A process that refused us (busy, another user) said why before it closed: read it. */
	if (!ret || ret == -EPIPE)
		ret = recv_by(c->fd, &h, sizeof(h), fd, deadline);
	if (ret < 0)
		return channel_error(c, ret, err, errlen);
	if (h.magic != CTL_MAGIC || h.len < 4 || (h.type != CTL_OK && h.type != CTL_ERROR)) {
		snprintf(err, errlen, "process %d sent a malformed answer", (int)c->pid);
		return -EPROTO;
	}
	if (h.len > max) {
		snprintf(err, errlen, "process %d announced an answer of %u bytes: at most %u",
			 (int)c->pid, h.len, max);
		return -EMSGSIZE;
	}
	body = malloc(h.len + 1);
	if (!body) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = recv_by(c->fd, body, h.len, NULL, now_ms() + c->timeout_ms);
	if (ret < 0) {
		free(body);
		return channel_error(c, ret, err, errlen);
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

/*
 * <dir>, checked: a directory at the end of the path (no symlink there), of `uid`, that no
 * other user may enter, as the library makes it. An O_PATH descriptor, or -errno.
 */
static int open_socket_dir(const char *dir, uid_t uid, struct stat *st)
{
	int fd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return errno == ELOOP || errno == ENOTDIR ? -EPERM : -errno;
	if (fstat(fd, st) < 0 || !S_ISDIR(st->st_mode) || st->st_uid != uid || (st->st_mode & 077)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/*
 * Connect to <dir>/<pid>.sock through the checked directory, and make sure the peer is
 * process `pid` of the directory's owner before anything is sent: a socket in the right
 * place that some other process made gets nothing, not even a HELLO.
 */
static int connect_checked(const char *dir, pid_t pid, uid_t uid, struct ctl_conn *c,
			   char *err, size_t errlen)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct stat st;
	char *text, fddir[32];
	int dfd, ret;

	dfd = open_socket_dir(dir, uid, &st);
	if (dfd == -EPERM) {
		snprintf(err, errlen, "%s is not a private directory of uid %u: not used", dir,
			 (unsigned)uid);
		return -EPERM;
	}
	if (dfd < 0)
		return dfd;
	snprintf(fddir, sizeof(fddir), "/proc/self/fd/%d", dfd);
	tp_ctl_socket_path(addr.sun_path, sizeof(addr.sun_path), fddir, (int)pid);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		ret = -errno;
		close(dfd);
		snprintf(err, errlen, "socket: %s", strerror(-ret));
		return ret;
	}
	ret = connect(c->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ? -errno : 0;
	close(dfd);
	if (ret == 0 && (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
			 cred.pid != pid || cred.uid != uid)) {
		snprintf(err, errlen, "%s/%d.sock is not process %d's (its peer is process %d of "
			 "uid %u): not used", dir, (int)pid, (int)pid, (int)cred.pid,
			 (unsigned)cred.uid);
		ret = -EPERM;
	}
	if (ret < 0) {
		ctl_close(c);
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

int ctl_connect_timed(pid_t pid, int timeout_ms, uint32_t max_reply, struct ctl_conn *c,
		      char *err, size_t errlen)
{
	char xdg[4096], dir[4096 + 64], comm[64];
	uid_t uid;
	int ret = -ENOENT;

	c->fd = -1;
	c->pid = pid;
	c->timeout_ms = timeout_ms > 0 ? timeout_ms : CTL_TIMEOUT_MS;
	c->max_reply = max_reply;
	err[0] = 0;
	if (proc_uid(pid, &uid) < 0) {
		snprintf(err, errlen, "no process %d", (int)pid);
		return -ESRCH;
	}
	ctl_proc_comm(pid, comm, sizeof(comm));
	if (proc_xdg(pid, xdg, sizeof(xdg)) == 0) {
		tp_ctl_dir_in_runtime(dir, sizeof(dir), xdg);
		ret = connect_checked(dir, pid, uid, c, err, errlen);
	}
	/* The library falls back to /tmp when $XDG_RUNTIME_DIR is not its user's. */
	if (ret == -ENOENT || ret == -ECONNREFUSED || ret == -EPERM) {
		char first[512];

		snprintf(first, sizeof(first), "%s", err);
		tp_ctl_dir_in_tmp(dir, sizeof(dir), (unsigned)uid);
		ret = connect_checked(dir, pid, uid, c, err, errlen);
		if ((ret == -ENOENT || ret == -ECONNREFUSED) && first[0])
			snprintf(err, errlen, "%s", first); /* say what was wrong with the first */
	}
	/* Busy is for a moment (idle clients give way after 2 s): ask again until the timeout. */
	for (int64_t until = now_ms() + c->timeout_ms; ret == -EBUSY && now_ms() < until;) {
		struct timespec ts = { 0, 100000000 };

		nanosleep(&ts, NULL);
		ret = connect_checked(dir, pid, uid, c, err, errlen);
	}
	if ((ret == -ENOENT || ret == -ECONNREFUSED) && !err[0])
		snprintf(err, errlen,
			 "process %d (%s) has no tpoint control socket: not linked with libtpoint, "
			 "or started with TPOINT_CONTROL=0", (int)pid, comm);
	else if ((ret == -EACCES || (ret == -EPERM && !err[0])))
		snprintf(err, errlen, "permission denied: process %d (%s) belongs to uid %u",
			 (int)pid, comm, (unsigned)uid);
	else if (ret < 0 && !err[0])
		snprintf(err, errlen, "process %d (%s): %s", (int)pid, comm, strerror(-ret));
	return ret;
}

int ctl_connect(pid_t pid, struct ctl_conn *c, char *err, size_t errlen)
{
	return ctl_connect_timed(pid, 0, 0, c, err, errlen);
}

void ctl_close(struct ctl_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/*
 * Sockets left by processes that died, in this user's own directories only (checked through
 * the descriptor they are removed by): nobody else will remove them.
 */
static void remove_stale_in(const char *dir)
{
	struct stat st;
	struct dirent *e;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;

	if (dfd < 0)
		return;
	if (fstat(dfd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077) ||
	    !(d = fdopendir(dfd))) {
		close(dfd);
		return;
	}
	while ((e = readdir(d))) {
		long pid;

		if (tp_ctl_socket_name(e->d_name, &pid) && kill((pid_t)pid, 0) < 0 &&
		    errno == ESRCH)
			unlinkat(dfd, e->d_name, 0);
	}
	closedir(d);
}

/* Is there a socket of pid in dir (not yet trusted: connect_checked() judges)? */
static bool has_socket(const char *dir, pid_t pid)
{
	char path[4200 + 24];
	struct stat st;

	tp_ctl_socket_path(path, sizeof(path), dir, (int)pid);
	return lstat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

void ctl_each_process(void (*fn)(pid_t pid, void *arg), void *arg)
{
	const char *xdg = getenv(TP_ENV_RUNTIME_DIR);
	char dir[4200];
	struct dirent *e;
	DIR *d;

	if (xdg && *xdg == '/') {
		tp_ctl_dir_in_runtime(dir, sizeof(dir), xdg);
		remove_stale_in(dir);
	}
	tp_ctl_dir_in_tmp(dir, sizeof(dir), (unsigned)geteuid());
	remove_stale_in(dir);
	/*
	 * Every process (this user's; every user's for root), and its socket where the library
	 * puts it: so ps finds what stat -p reaches, whatever its $XDG_RUNTIME_DIR, and lists
	 * no other user's directory.
	 */
	d = opendir("/proc");
	while (d && (e = readdir(d))) {
		char *end, pxdg[4096];
		long pid = strtol(e->d_name, &end, 10);
		uid_t uid;
		bool found = false;

		if (pid <= 0 || *end || proc_uid((pid_t)pid, &uid) < 0 ||
		    (geteuid() != 0 && uid != geteuid()))
			continue;
		if (proc_xdg((pid_t)pid, pxdg, sizeof(pxdg)) == 0) {
			tp_ctl_dir_in_runtime(dir, sizeof(dir), pxdg);
			found = has_socket(dir, (pid_t)pid);
		}
		tp_ctl_dir_in_tmp(dir, sizeof(dir), (unsigned)uid);
		if (found || has_socket(dir, (pid_t)pid))
			fn((pid_t)pid, arg);
	}
	if (d)
		closedir(d);
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

pid_t ctl_parse_one_pid(const char *verb, const char *arg, pid_t before)
{
	if (before) {
		tool_error(verb, "-p %s: -p %d is given already; one process at a time (run one "
			   "tpoint %s for each)", arg ? arg : "", (int)before, verb);
		return -1;
	}
	return ctl_parse_pid(verb, arg);
}

/* See control_client.h. */
void ctl_refusals_get(struct ctl_conn *conn, struct ctl_refusals *out)
{
	char err[256], *cur;
	struct ctl_event_row row;

	memset(out, 0, sizeof(*out));
	if (ctl_request(conn, CTL_LIST, NULL, &out->text, err, sizeof(err)) < 0)
		return;
	for (cur = out->text; tp_ctl_event_row_next(&cur, &row);) {
		struct ctl_event_row *grown;

		if (row.refusal == CTL_REFUSAL_NONE ||
		    !(grown = realloc(out->row, (out->n + 1) * sizeof(*grown))))
			continue;
		out->row = grown;
		out->row[out->n++] = row;
	}
}

const struct ctl_event_row *ctl_refusals_find(const struct ctl_refusals *r, const char *event)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->row[i].event, event))
			return &r->row[i];
	return NULL;
}

void ctl_refusals_free(struct ctl_refusals *r)
{
	free(r->text);
	free(r->row);
	memset(r, 0, sizeof(*r));
}

void ctl_refusal_text(const struct ctl_event_row *row, char *buf, size_t len)
{
	if (row->refusal == CTL_REFUSAL_REG) /* the process's own words */
		snprintf(buf, len, "its %s", row->refused);
	else
		snprintf(buf, len, "libtraceevent cannot render its TP_printk: %s", row->refused);
}

/* See control_client.h. */
int ctl_say_refused(const char *verb, struct ctl_conn *conn, const char *globs)
{
	struct ctl_refusals refused;
	int n = 0;

	ctl_refusals_get(conn, &refused);
	for (size_t i = 0; i < refused.n; i++) {
		const struct ctl_event_row *row = &refused.row[i];
		char why[600];

		if (!globs_select_event(globs, row->event))
			continue;
		ctl_refusal_text(row, why, sizeof(why));
		tool_error(verb, "process %d: event %s stays off: %s", (int)conn->pid, row->event,
			   why);
		n++;
	}
	ctl_refusals_free(&refused);
	return n;
}
