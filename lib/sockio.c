/* SPDX-License-Identifier: MIT */
/* Whole-buffer socket I/O for the control channel, on both of its ends. */
#include <errno.h>
#include <sys/socket.h>
#include "control_proto.h"

int ctl_send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		/* MSG_NOSIGNAL: a peer that went away is an error here, not a SIGPIPE. */
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ctl_recv_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = recv(fd, p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
