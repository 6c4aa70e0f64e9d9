/* SPDX-License-Identifier: MIT */
/*
 * The control channel: every instrumented process listens on a UNIX socket,
 * <dir>/<pid>.sock, where <dir> is $XDG_RUNTIME_DIR/tpoint or /tmp/tpoint-<uid>, a
 * directory of mode 0700 that only its user (and root) can enter; SO_PEERCRED turns away
 * any other peer that got there. The tool lists, enables, disables, filters and counts the
 * events of a running process through it, with no daemon in between (fmt/control_msg.h).
 *
 * One thread serves it, with every signal blocked, so that the program's own handling of
 * signals is untouched; the hot path never looks at any of this. No client can hold it: it
 * never waits on one client's bytes (each connection is read as its bytes come, into a
 * message of its own), a request must be whole 2 s after its first byte and an answer taken
 * within 2 s, or the connection is dropped; a connection idle for 2 s gives its place to a
 * new one when all 16 are taken. So a recorder that goes away is noticed at once, whatever
 * the other clients do. Programs that close every
 * descriptor they did not open (daemons do) or fork without exec are expected: the thread
 * notices that its socket is gone and makes a new one, and a child gets its own.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "control.h"
#include "control_text.h"
#include "event_filter.h"
#include "env.h"
#include "fmt/control_msg.h"
#include "globs.h"
#include "jump.h"
#include "log.h"
#include "patterns.h"
#include "registry.h"
#include "session.h"
#include "threads.h"
#include "trigger.h"

#define MAX_CLIENTS 16
#define REQUEST_MS 2000 /* a request, from its first byte to its last */
#define ANSWER_MS 2000  /* an answer, for the client to take */
#define IDLE_MS 2000    /* an idle connection gives its place to a new one after this */

/* A connection, and the message it is in the middle of. */
struct client {
	int fd; /* -1: a free place */
	bool greeted;
	struct ctl_hdr hdr;
	size_t got;        /* bytes of the message so far: the header's, then the payload's */
	char *payload;
	int64_t msg_start; /* when its first byte came; 0 between messages */
	int64_t last;      /* when it connected or its last message was answered */
	dev_t dev;         /* the socket's identity: a program that closes every descriptor */
	ino_t ino;         /* may have reused its number for a file of its own */
};

static struct {
	int listen_fd;
	pid_t owner; /* the process that made the socket: a forked child must not unlink it */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct client clients[MAX_CLIENTS];
	pthread_t thread;
	int thread_begun; /* tp_thread_begun() */
	bool started;
	int attached; /* client slot that owns an attached recording, or -1 */
} ctl = { .listen_fd = -1, .attached = -1 };

/* ---- where the socket lives ---- */

/* Make (or check) the per-user directory: ours, a real directory, mode 0700. */
static int control_dir(char *out, size_t len)
{
	const char *xdg = tp_getenv(TP_ENV_RUNTIME_DIR);
	struct stat st;
	int n;

	if (xdg && xdg[0] == '/' && !stat(xdg, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid())
		n = tp_ctl_dir_in_runtime(out, len, xdg);
	else
		n = tp_ctl_dir_in_tmp(out, len, (unsigned)geteuid());
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	if (mkdir(out, 0700) < 0 && errno != EEXIST)
		return -errno;
	if (lstat(out, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		tp_err("control: %s is not a private directory of this user; no control socket",
		       out);
		return -EPERM;
	}
	return 0;
}

/* Sockets of processes that are gone: nobody else will remove them. */
static void remove_stale(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[512];
		long pid;

		if (!tp_ctl_socket_name(e->d_name, &pid))
			continue;
		if (kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	}
	closedir(d);
}

static int listen_socket(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char dir[sizeof(addr.sun_path) - 24];
	int fd, err;

	err = control_dir(dir, sizeof(dir));
	if (err)
		return err;
	remove_stale(dir);
	tp_ctl_socket_path(ctl.path, sizeof(ctl.path), dir, (int)getpid());
	memcpy(addr.sun_path, ctl.path, sizeof(ctl.path));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	unlink(ctl.path);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 || listen(fd, 8) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	ctl.listen_fd = fd;
	ctl.owner = getpid();
	return 0;
}

/* Is our listening socket still ours? A program may have closed it, even reused its number. */
static bool listen_socket_intact(void)
{
	struct sockaddr_un addr;
	socklen_t len = sizeof(addr);

	if (getsockname(ctl.listen_fd, (struct sockaddr *)&addr, &len) < 0)
		return false;
	return addr.sun_family == AF_UNIX && !strncmp(addr.sun_path, ctl.path, sizeof(ctl.path));
}

/* ---- requests ---- */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * sendmsg() of all of buf by the deadline (the connection is non-blocking): 0, or -1 when the
 * client went away or does not take its answer in time. The descriptor in `msg`, if any,
 * goes with the first byte.
 */
static int send_by(int fd, struct msghdr *msg, const char *buf, size_t len, int64_t deadline)
{
	while (len) {
		struct iovec iov = { (void *)buf, len };
		ssize_t n;

		msg->msg_iov = &iov;
		msg->msg_iovlen = 1;
		n = sendmsg(fd, msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			struct pollfd p = { fd, POLLOUT, 0 };
			int64_t left = deadline - now_ms();

			if (left <= 0 || (poll(&p, 1, (int)left) < 0 && errno != EINTR))
				return -1;
			continue;
		}
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
		msg->msg_control = NULL; /* sent with the first byte */
		msg->msg_controllen = 0;
	}
	return 0;
}

/* An answer: header, int32 result, text; with a descriptor (SCM_RIGHTS) if pass >= 0. */
static int send_answer(int fd, uint32_t type, int32_t result, const char *text, size_t len,
		       int pass)
{
	struct ctl_hdr h = { CTL_MAGIC, CTL_MAJOR, CTL_MINOR, type, (uint32_t)(4 + len) };
	int64_t deadline = now_ms() + ANSWER_MS;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr msg = { 0 };
	char head[sizeof(h) + 4];

	if (pass >= 0 && fcntl(pass, F_GETFD) >= 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass, sizeof(int));
	}
	memcpy(head, &h, sizeof(h));
	memcpy(head + sizeof(h), &result, 4);
	if (send_by(fd, &msg, head, sizeof(head), deadline) < 0)
		return -1;
	msg.msg_control = NULL;
	msg.msg_controllen = 0;
	return len ? send_by(fd, &msg, text, len, deadline) : 0;
}

static int send_msg(int fd, uint32_t type, int32_t result, const char *text, size_t len)
{
	return send_answer(fd, type, result, text, len, -1);
}

/* The same, with a descriptor passed along (SCM_RIGHTS) on the header's bytes. */
static int send_msg_fd(int fd, int32_t result, const char *text, size_t len, int pass)
{
	return send_answer(fd, CTL_OK, result, text, len, pass);
}

static int send_error(int fd, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int send_error(int fd, int err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return send_msg(fd, CTL_ERROR, err, msg, strlen(msg));
}

static void comm_of_self(char *out, size_t len)
{
	int fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, out, len - 1) : -1;

	if (fd >= 0)
		close(fd);
	out[n > 0 ? n : 0] = 0;
	out[strcspn(out, "\n")] = 0;
}

/* struct ctl_attach_req: start recording for client slot `slot`. */
static int handle_attach(int fd, int slot, char *payload)
{
	struct ctl_attach_req req;
	struct ctl_attach_reply info;
	struct ctl_text text = { 0 };
	char *end;
	enum tpoint_mode mode;
	unsigned long long bytes;
	int memfd = -1, n;

	if (tp_ctl_attach_req_parse(payload, &req) < 0)
		return send_error(fd, -EINVAL, "malformed attach request");
	if (!strcmp(req.mode, "discard"))
		mode = TPOINT_MODE_DISCARD;
	else if (!strcmp(req.mode, "overwrite"))
		mode = TPOINT_MODE_OVERWRITE;
	else if (!strcmp(req.mode, "block"))
		mode = TPOINT_MODE_BLOCK;
	else
		return send_error(fd, -EINVAL, "mode '%s': expected discard, overwrite or block",
				  req.mode);
	bytes = strtoull(req.pool_bytes, &end, 10);
	if (*end || (bytes && bytes < (64u << 10)))
		return send_error(fd, -EINVAL, "pool size '%s': expected at least 65536 bytes",
				  req.pool_bytes);
	if (ctl.attached >= 0)
		return send_error(fd, -EBUSY, "another tpoint is recording this process");
	n = tp_session_attach(req.spool, req.globs, mode, (size_t)bytes, req.live, &memfd, &info);
	if (n == -EBUSY)
		return send_error(fd, n, "process %d records already (%s)", (int)getpid(),
				  tp_session_describe());
	if (n == -ENOENT)
		return send_error(fd, n, "'%s' matches no event of process %d", req.globs,
				  (int)getpid());
	if (n == -EINVAL)
		return send_error(fd, n, "'%s': expected comma-separated globs like 'sys:*,sys:event'",
				  req.globs);
	if (n < 0)
		return send_error(fd, n, "cannot record into %s: %s", req.spool, strerror(-n));
	ctl.attached = slot;
	tp_ctl_attach_reply_put(&text, &info);
	n = send_msg_fd(fd, n, text.buf, text.len, memfd);
	tp_ctl_text_free(&text);
	return n;
}

static int handle(int fd, int slot, const struct ctl_hdr *h, char *payload)
{
	struct ctl_text r = { .max = CTL_MAX_REPLY };
	int32_t result = 0;
	int ret;

	switch (h->type) {
	case CTL_HELLO: {
		char comm[64];

		comm_of_self(comm, sizeof(comm));
		tp_ctl_hello_put(&r, &(struct ctl_hello){ .pid = getpid(), .comm = comm,
						       .events = tp_registry_count(),
						       .enabled = tp_registry_enabled_count(),
						       .recording = tp_session_describe() });
		break;
	}
	case CTL_LIST:
		tp_registry_describe(&r.buf, &r.len);
		break;
	case CTL_FORMATS:
		tp_registry_formats(&r.buf, &r.len);
		break;
	case CTL_STATS:
		/* Sites in step with the semaphores reported: a client that saw usdt > 0 knows
		 * the jump-label sites of the event are on. */
		tp_jump_follow_words();
		tp_registry_stats_text(&r.buf, &r.len);
		break;
	case CTL_JUMP: {
		struct tpoint_jump_stats js;

		tpoint_jump_stats(&js);
		tp_ctl_jump_put(&r, &(struct ctl_jump){ js.sites, js.checked, js.reason });
		break;
	}
	case CTL_ENABLE:
	case CTL_DISABLE:
		result = tp_registry_enable_patterns(payload, h->type == CTL_ENABLE, false);
		if (result == -EINVAL)
			return send_error(fd, -EINVAL, "'%s': expected comma-separated globs like "
					  "'sys:*,sys:event'", payload);
		if (result > 0 && h->type == CTL_ENABLE) {
			ret = tp_session_ensure_recording();
			if (ret < 0)
				return send_error(fd, ret, "cannot record: %s", strerror(-ret));
		}
		break;
	case CTL_ATTACH:
		return handle_attach(fd, slot, payload);
	case CTL_DETACH:
		if (ctl.attached != slot)
			return send_error(fd, -ENOENT, "this connection is not recording");
		ctl.attached = -1;
		result = tp_session_detach(true);
		if (result < 0)
			return send_error(fd, result, "the recording did not complete: %s",
					  strerror(-result));
		break;
	case CTL_SNAPSHOT: {
		char path[4200];

		if (payload[0] != '/')
			return send_error(fd, -EINVAL, "malformed snapshot request");
		ret = tp_session_snapshot(payload, path, sizeof(path));
		if (ret == -ENOENT)
			return send_error(fd, ret, "process %d records nothing: enable events first "
					  "(tpoint enable -p %d ...)", (int)getpid(), (int)getpid());
		if (ret == -EBUSY)
			return send_error(fd, ret, "process %d is being streamed or recorded from its "
					  "memory: take the snapshot when that ends", (int)getpid());
		if (ret < 0)
			return send_error(fd, ret, "snapshot failed: %s", strerror(-ret));
		tp_ctl_text_add(&r, "%s", path);
		break;
	}
	case CTL_FILTER: {
		struct ctl_filter_req req;
		char err[512] = "";

		if (tp_ctl_filter_req_parse(payload, &req) < 0)
			return send_error(fd, -EINVAL, "malformed filter request");
		ret = tp_registry_set_filter(req.event, req.expr, err, sizeof(err));
		if (ret < 0)
			return send_error(fd, ret, "%s", err[0] ? err : strerror(-ret));
		break;
	}
	case CTL_TRIGGER: {
		struct ctl_filter_req req;
		char err[512] = "";

		if (tp_ctl_filter_req_parse(payload, &req) < 0)
			return send_error(fd, -EINVAL, "malformed trigger request");
		ret = tp_trigger_set_text(req.event, req.expr, err, sizeof(err));
		if (ret < 0)
			return send_error(fd, ret, "%s", err[0] ? err : strerror(-ret));
		break;
	}
	case CTL_HIST: {
		struct ctl_hist_req req;
		FILE *out;

		if (tp_ctl_hist_req_parse(payload, &req) < 0)
			return send_error(fd, -EINVAL, "malformed hist request");
		if (req.globs[0] && !tp_globs_valid(req.globs))
			return send_error(fd, -EINVAL, "'%s': expected comma-separated globs like "
					  "'sys:*,sys:event'", req.globs);
		out = open_memstream(&r.buf, &r.len);
		if (!out)
			return send_error(fd, -ENOMEM, "out of memory");
		result = tp_trigger_hist_print(out, req.globs[0] ? req.globs : NULL, req.json);
		if (fclose(out))
			r.oom = true;
		if (result < 0) {
			free(r.buf);
			return send_error(fd, result, "histograms: %s", strerror(-result));
		}
		if (r.len >= CTL_MAX_REPLY) {
			free(r.buf);
			return send_error(fd, -E2BIG, "the histograms' text is over %u bytes: "
					  "choose events with -e", CTL_MAX_REPLY);
		}
		break;
	}
	default:
		return send_error(fd, -EOPNOTSUPP, "unknown request %u (this process speaks %d.%d)",
				  h->type, CTL_MAJOR, CTL_MINOR);
	}
	if (r.oom) {
		free(r.buf);
		return send_error(fd, -ENOMEM, "out of memory");
	}
	ret = send_msg(fd, CTL_OK, result, r.buf, r.len);
	free(r.buf);
	return ret;
}

/* The message in hand is whole: check and answer it. -1 closes the connection. */
static int serve_message(int i)
{
	struct client *c = &ctl.clients[i];
	int ret;

	c->payload[c->hdr.len] = 0;
	if (memchr(c->payload, 0, c->hdr.len)) {
		send_error(c->fd, -EPROTO, "a request is text: it holds a NUL byte");
		return -1;
	}
	c->greeted = true;
	ret = handle(c->fd, i, &c->hdr, c->payload);
	/* A TRACE_EVENT_FN event the request switched: its reg/unreg, with no lock held. */
	tp_registry_run_fn_calls();
	free(c->payload);
	c->payload = NULL;
	c->got = 0;
	c->msg_start = 0;
	c->last = now_ms();
	return ret < 0 ? -1 : 0;
}

/* The header is whole: is it one to read a payload for? -1 closes the connection. */
static int check_header(int i)
{
	struct client *c = &ctl.clients[i];
	const struct ctl_hdr *h = &c->hdr;

	if (h->magic != CTL_MAGIC) {
		send_error(c->fd, -EPROTO, "not a tpoint control message (bad magic)");
		return -1;
	}
	if (h->major != CTL_MAJOR) {
		send_error(c->fd, -EPROTONOSUPPORT,
			   "protocol version %u.%u is not supported: this process speaks %d.%d",
			   h->major, h->minor, CTL_MAJOR, CTL_MINOR);
		return -1;
	}
	if (h->len > CTL_MAX_REQUEST) {
		send_error(c->fd, -EMSGSIZE, "request of %u bytes: at most %u", h->len,
			   CTL_MAX_REQUEST);
		return -1;
	}
	if (!c->greeted && h->type != CTL_HELLO) {
		send_error(c->fd, -EPROTO, "the first message must be HELLO");
		return -1;
	}
	c->payload = malloc(h->len + 1);
	return c->payload ? 0 : -1;
}

/*
 * Take what client i has sent, without waiting for more: a message grows by what comes and
 * is answered once whole. -1 closes the connection.
 */
static int serve(int i)
{
	struct client *c = &ctl.clients[i];

	for (;;) {
		size_t hlen = sizeof(c->hdr), want;
		char *dst;
		ssize_t n;

		if (c->got < hlen) {
			dst = (char *)&c->hdr + c->got;
			want = hlen - c->got;
		} else {
			dst = c->payload + (c->got - hlen);
			want = hlen + c->hdr.len - c->got;
		}
		n = recv(c->fd, dst, want, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0)
			return -1; /* gone */
		if (!c->got)
			c->msg_start = now_ms();
		c->got += (size_t)n;
		if (c->got == hlen && check_header(i) < 0)
			return -1;
		if (c->got == hlen + c->hdr.len)
			return serve_message(i); /* one a turn: the others' turn comes first */
	}
}

/* A recorder that vanished (killed, crashed): its events revert, its spool goes. */
static void client_gone(int slot)
{
	if (ctl.attached != slot)
		return;
	ctl.attached = -1;
	tp_session_detach(false);
	tp_registry_run_fn_calls();
	tp_debug("control: the recording client went away; its events are off again");
}

static void client_close(int i, bool closed_under_us)
{
	struct client *c = &ctl.clients[i];

	if (!closed_under_us)
		close(c->fd);
	free(c->payload);
	*c = (struct client){ .fd = -1 };
	client_gone(i);
}

/* A place for a new connection: a free one, else the longest idle one (not a recorder's). */
static int free_place(int64_t now)
{
	int oldest = -1;

	for (int i = 0; i < MAX_CLIENTS; i++) {
		const struct client *c = &ctl.clients[i];

		if (c->fd < 0)
			return i;
		if (i != ctl.attached && !c->got && now - c->last >= IDLE_MS &&
		    (oldest < 0 || c->last < ctl.clients[oldest].last))
			oldest = i;
	}
	if (oldest >= 0) {
		tp_debug("control: an idle client gives its place to a new one");
		client_close(oldest, false);
	}
	return oldest;
}

static void accept_client(void)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd = accept4(ctl.listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	int64_t now = now_ms();
	int i;

	if (fd < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
	    (cred.uid != geteuid() && cred.uid != 0)) {
		send_error(fd, -EACCES, "permission denied: process %d belongs to another user",
			   (int)getpid());
		close(fd);
		return;
	}
	i = free_place(now);
	if (i < 0) {
		send_error(fd, -EBUSY, "process %d is busy: %d tpoint clients are connected and "
			   "each sent a request within the last %d s; try again", (int)getpid(),
			   MAX_CLIENTS, IDLE_MS / 1000);
		close(fd);
		return;
	}
	struct stat st;

	if (fstat(fd, &st) < 0) {
		close(fd);
		return;
	}
	ctl.clients[i] = (struct client){ .fd = fd, .last = now, .dev = st.st_dev, .ino = st.st_ino };
}

/* Is client i's descriptor still the socket we accepted, not one of the program's own? */
static bool client_intact(int i)
{
	struct stat st;

	return fstat(ctl.clients[i].fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
	       st.st_dev == ctl.clients[i].dev && st.st_ino == ctl.clients[i].ino;
}

/* Requests not whole in time are dropped: their connection goes. */
static int drop_late(int64_t now)
{
	int wait = 1000; /* wake once a second to notice a socket the program closed */

	for (int i = 0; i < MAX_CLIENTS; i++) {
		struct client *c = &ctl.clients[i];
		int64_t left;

		if (c->fd < 0 || !c->got)
			continue;
		left = c->msg_start + REQUEST_MS - now;
		if (left <= 0) {
			send_error(c->fd, -ETIMEDOUT, "request not complete within %d s: dropped",
				   REQUEST_MS / 1000);
			client_close(i, false);
		} else if (left < wait) {
			wait = (int)left;
		}
	}
	return wait;
}

static void *control_thread(void *arg)
{
	(void)arg;
	tp_thread_begun(&ctl.thread_begun);
	for (;;) {
		struct pollfd pfd[MAX_CLIENTS + 1];
		int map[MAX_CLIENTS + 1], n = 0, wait;

		if (ctl.listen_fd < 0 || !listen_socket_intact()) {
			ctl.listen_fd = -1; /* not ours any more: never close what the program owns */
			if (listen_socket() < 0) {
				sleep(1);
				continue;
			}
		}
		wait = drop_late(now_ms());
		/* Jump-label sites follow the USDT semaphores, which nothing announces. */
		if (tp_jump_follow_words() && (wait < 0 || wait > TP_JUMP_FOLLOW_MS))
			wait = TP_JUMP_FOLLOW_MS;
		pfd[n].fd = ctl.listen_fd;
		pfd[n].events = POLLIN;
		map[n++] = -1;
		for (int i = 0; i < MAX_CLIENTS; i++)
			if (ctl.clients[i].fd >= 0) {
				pfd[n].fd = ctl.clients[i].fd;
				pfd[n].events = POLLIN;
				map[n++] = i;
			}
		if (poll(pfd, (nfds_t)n, wait) <= 0)
			continue;
		/* Clients first: a recorder's hang-up is seen before anyone new is let in. */
		for (int k = 1; k < n; k++) {
			if (!pfd[k].revents)
				continue;
			if ((pfd[k].revents & POLLNVAL) || !client_intact(map[k]))
				client_close(map[k], true); /* closed under us: not ours to close */
			else if (serve(map[k]) < 0)
				client_close(map[k], false);
		}
		if (pfd[0].revents)
			accept_client();
	}
	return NULL;
}

static void control_at_exit(void)
{
	if (ctl.started && ctl.owner == getpid())
		unlink(ctl.path);
}

void tp_control_start(void)
{
	const char *v = tp_getenv(TP_ENV_CONTROL);
	sigset_t all, old;
	int err;

	if (v && !strcmp(v, "0"))
		return;
	for (int i = 0; i < MAX_CLIENTS; i++)
		ctl.clients[i] = (struct client){ .fd = -1 };
	err = listen_socket();
	if (err) {
		tp_warn("control: no socket (%s); tpoint cannot reach this process",
			strerror(-err));
		return;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ctl.thread_begun = 0;
	err = pthread_create(&ctl.thread, NULL, control_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		tp_warn("control: no thread (%s)", strerror(err));
		close(ctl.listen_fd);
		unlink(ctl.path);
		ctl.listen_fd = -1;
		return;
	}
	pthread_detach(ctl.thread);
	pthread_setname_np(ctl.thread, "tpoint-control");
	if (!ctl.started)
		atexit(control_at_exit);
	ctl.started = true;
	tp_debug("control: listening on %s", ctl.path);
}

void tp_control_fork_prepare(void)
{
	if (ctl.started)
		tp_thread_wait_begun(&ctl.thread_begun);
}

void tp_control_after_fork(void)
{
	bool was = ctl.started;

	/* The parent's socket and clients stay the parent's: close our copies, never unlink. */
	if (ctl.listen_fd >= 0)
		close(ctl.listen_fd);
	ctl.listen_fd = -1;
	for (int i = 0; i < MAX_CLIENTS; i++) {
		if (ctl.clients[i].fd >= 0)
			close(ctl.clients[i].fd);
		free(ctl.clients[i].payload);
		ctl.clients[i] = (struct client){ .fd = -1 };
	}
	ctl.attached = -1;
	if (was)
		tp_control_start();
}
