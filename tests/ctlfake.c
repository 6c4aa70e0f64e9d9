/* SPDX-License-Identifier: MIT */
/*
 * Hostile peers of the control channel, for the shell tests (ps_hostile.sh, ctlhold.sh).
 *
 *	ctlfake listen pid1|escape|drip DIR
 *		a fake instrumented process: listens on DIR/<its pid>.sock (making DIR, 0700)
 *		and answers every HELLO with a lie: "pid1" claims to be process 1 (systemd);
 *		"escape" puts terminal escape sequences in its name and recording; "drip"
 *		announces a 16 MiB answer and sends it one byte a second.
 *	ctlfake slow SOCKET
 *		a client that sends its HELLO header one byte every 1.5 s, reconnecting when
 *		it is dropped, forever.
 *	ctlfake idle SOCKET N
 *		N clients that connect and never send a byte.
 *
 * Each says "ready PID" on stdout once in place, and runs until killed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "../lib/control_proto.h"

static void ready(void)
{
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
}

static int dial(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

static int send_reply(int fd, const char *text, uint32_t announce)
{
	size_t len = strlen(text);
	struct ctl_hdr h = { CTL_MAGIC, CTL_MAJOR, CTL_MINOR, CTL_OK,
			     announce ? announce : (uint32_t)(4 + len) };
	int32_t result = 0;

	if (send(fd, &h, sizeof(h), MSG_NOSIGNAL) != (ssize_t)sizeof(h) ||
	    send(fd, &result, 4, MSG_NOSIGNAL) != 4)
		return -1;
	return len && send(fd, text, len, MSG_NOSIGNAL) != (ssize_t)len ? -1 : 0;
}

static int listen_fake(const char *mode, const char *dir)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char text[256];
	int lfd;

	mkdir(dir, 0700);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/%d.sock", dir, (int)getpid());
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(lfd, 8) < 0) {
		perror(a.sun_path);
		return 1;
	}
	if (!strcmp(mode, "pid1"))
		snprintf(text, sizeof(text), "1\tsystemd\t3\t0\tnone\n");
	else if (!strcmp(mode, "escape"))
		snprintf(text, sizeof(text), "%d\t\033]0;owned\a\033[2J\t3\t0\tfile:\033[31m/evil\n",
			 (int)getpid());
	else
		text[0] = 0;
	ready();
	for (;;) {
		struct ctl_hdr h;
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0)
			continue;
		if (recv(fd, &h, sizeof(h), MSG_WAITALL) == (ssize_t)sizeof(h)) {
			if (!strcmp(mode, "drip")) {
				/* 16 MiB announced, then a byte a second until the reader leaves. */
				if (send_reply(fd, "", CTL_MAX_REPLY) == 0)
					while (send(fd, "x", 1, MSG_NOSIGNAL) == 1)
						sleep(1);
			} else {
				send_reply(fd, text, 0);
			}
		}
		close(fd);
	}
	return 0;
}

static int slow_client(const char *path)
{
	struct ctl_hdr h = { CTL_MAGIC, CTL_MAJOR, CTL_MINOR, CTL_HELLO, 0 };
	int announced = 0;

	for (;;) {
		int fd = dial(path);

		if (!announced++)
			ready();
		if (fd < 0) {
			sleep(1);
			continue;
		}
		for (size_t i = 0; i < sizeof(h); i++) {
			if (send(fd, (char *)&h + i, 1, MSG_NOSIGNAL) != 1)
				break;
			usleep(1500000);
		}
		close(fd);
	}
	return 0;
}

static int idle_clients(const char *path, int n)
{
	for (int i = 0; i < n; i++)
		if (dial(path) < 0) {
			perror(path);
			return 1;
		}
	ready();
	for (;;)
		pause();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "listen"))
		return listen_fake(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "slow"))
		return slow_client(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "idle"))
		return idle_clients(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: ctlfake listen pid1|escape|drip DIR | slow SOCKET | "
		"idle SOCKET N\n");
	return 2;
}
