/* SPDX-License-Identifier: MIT */
/*
 * ctlproto_test - the control protocol against malformed and hostile messages: each gets
 * the defined error (or a closed connection), never a crash, and the traced program runs
 * on undisturbed: afterwards a well-formed client still gets its answers.
 */
#include "testutil.h"
#include <sys/socket.h>
#include <sys/un.h>
#include "../lib/fmt/control_msg.h"

static char sock_path[108];

static int connect_target(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timeval tv = { 5, 0 };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	memcpy(a.sun_path, sock_path, sizeof(a.sun_path));
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static void send_raw(int fd, uint32_t magic, uint16_t major, uint32_t type, uint32_t len,
		     const char *payload, size_t plen)
{
	struct ctl_hdr h = { magic, major, CTL_MINOR, type, len };

	if (send(fd, &h, sizeof(h), MSG_NOSIGNAL) < 0 ||
	    (plen && send(fd, payload, plen, MSG_NOSIGNAL) < 0))
		return;
}

/* The answer: its type, result and text into msg; -1 when the connection just closed. */
static int answer(int fd, int32_t *result, char *msg, size_t len)
{
	struct ctl_hdr h;
	char buf[65536];
	size_t got = 0;

	msg[0] = 0;
	if (recv(fd, &h, sizeof(h), MSG_WAITALL) != (ssize_t)sizeof(h))
		return -1;
	if (h.len < 4 || h.len > sizeof(buf) - 1)
		return -2;
	while (got < h.len) {
		ssize_t n = recv(fd, buf + got, h.len - got, 0);

		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	buf[got] = 0;
	memcpy(result, buf, 4);
	size_t n = strlen(buf + 4) < len - 1 ? strlen(buf + 4) : len - 1;

	memcpy(msg, buf + 4, n);
	msg[n] = 0;
	return (int)h.type;
}

static void expect_error(const char *what, int fd, int32_t want, const char *text)
{
	int32_t res = 0;
	char msg[512];
	int type = answer(fd, &res, msg, sizeof(msg));

	CHECK(type == CTL_ERROR && res == want && strstr(msg, text),
	      "%s: want error %d containing '%s', got type %d result %d '%s'", what, (int)want,
	      text, type, (int)res, msg);
	tu_note("%-32s -> %s", what, msg);
}

int main(void)
{
	char dir[PATH_MAX], cmd[PATH_MAX + 64], line[64] = "", msg[512];
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int32_t res;
	FILE *target;
	int fd, pid = 0;

	tu_self_dir(dir, sizeof(dir));
	snprintf(cmd, sizeof(cmd), "'%s/ctltarget' 30 200", dir);
	target = popen(cmd, "r");
	REQUIRE(target && fgets(line, sizeof(line), target) && sscanf(line, "ready %d", &pid) == 1,
		"start ctltarget");
	if (xdg && *xdg == '/' && access(xdg, W_OK) == 0)
		snprintf(sock_path, sizeof(sock_path), "%s/tpoint/%d.sock", xdg, pid);
	else
		snprintf(sock_path, sizeof(sock_path), "/tmp/tpoint-%u/%d.sock", (unsigned)geteuid(),
			 pid);

	fd = connect_target();
	REQUIRE(fd >= 0, "connect to %s", sock_path);
	send_raw(fd, 0xdeadbeef, CTL_MAJOR, CTL_HELLO, 0, NULL, 0);
	expect_error("bad magic", fd, -EPROTO, "bad magic");
	CHECK(answer(fd, &res, msg, sizeof(msg)) == -1, "bad magic closes the connection");
	close(fd);

	fd = connect_target();
	send_raw(fd, CTL_MAGIC, CTL_MAJOR + 1, CTL_HELLO, 0, NULL, 0);
	snprintf(msg, sizeof(msg), "protocol version %d.%d is not supported: this process speaks "
		 "%d.%d", CTL_MAJOR + 1, CTL_MINOR, CTL_MAJOR, CTL_MINOR);
	expect_error("newer major version", fd, -EPROTONOSUPPORT, msg);
	close(fd);

	fd = connect_target();
	send_raw(fd, CTL_MAGIC, CTL_MAJOR, CTL_STATS, 0, NULL, 0);
	expect_error("no HELLO first", fd, -EPROTO, "the first message must be HELLO");
	close(fd);

	fd = connect_target();
	send_raw(fd, CTL_MAGIC, CTL_MAJOR, CTL_HELLO, 1u << 30, NULL, 0);
	expect_error("a 1 GiB request", fd, -EMSGSIZE, "request of 1073741824 bytes");
	close(fd);

	fd = connect_target();
	send_raw(fd, CTL_MAGIC, CTL_MAJOR, CTL_HELLO, 0, NULL, 0);
	CHECK(answer(fd, &res, msg, sizeof(msg)) == CTL_OK, "HELLO is answered");
	send_raw(fd, CTL_MAGIC, CTL_MAJOR, 999, 0, NULL, 0);
	expect_error("unknown request", fd, -EOPNOTSUPP, "unknown request 999");
	send_raw(fd, CTL_MAGIC, CTL_MAJOR, CTL_ENABLE, 9, "tpt\0ctl:*", 9);
	expect_error("a NUL inside a request", fd, -EPROTO, "NUL");
	close(fd);

	fd = connect_target();
	send_raw(fd, CTL_MAGIC, CTL_MAJOR, CTL_HELLO, 0, NULL, 0);
	answer(fd, &res, msg, sizeof(msg));
	send_raw(fd, CTL_MAGIC, CTL_MAJOR, CTL_FILTER, 7, "no tab!", 7);
	expect_error("filter without a tab", fd, -EINVAL, "malformed filter request");
	send_raw(fd, CTL_MAGIC, CTL_MAJOR, CTL_ENABLE, 3, "a b", 3);
	expect_error("enable with a blank", fd, -EINVAL, "expected comma-separated globs");
	close(fd);

	/* Half a header, then silence: the channel must not hang on it. */
	fd = connect_target();
	send(fd, "TPC", 3, MSG_NOSIGNAL);
	sleep(3);
	close(fd);
	/* Garbage, then a close mid-payload. */
	fd = connect_target();
	send_raw(fd, CTL_MAGIC, CTL_MAJOR, CTL_HELLO, 100, "abc", 3);
	close(fd);

	fd = connect_target();
	REQUIRE(fd >= 0, "the target still accepts connections");
	send_raw(fd, CTL_MAGIC, CTL_MAJOR, CTL_HELLO, 0, NULL, 0);
	CHECK(answer(fd, &res, msg, sizeof(msg)) == CTL_OK && atoi(msg) == pid,
	      "after all that, HELLO answers with the pid: '%s'", msg);
	send_raw(fd, CTL_MAGIC, CTL_MAJOR, CTL_ENABLE, 9, "tpt_ctl:*", 9);
	CHECK(answer(fd, &res, msg, sizeof(msg)) == CTL_OK && res == 2, "enable works: %d", res);
	close(fd);
	CHECK(kill(pid, 0) == 0, "the target is alive");
	kill(pid, SIGTERM);
	pclose(target);
	tu_note("the target ran on and answered well-formed requests afterwards");
	return tu_finish();
}
