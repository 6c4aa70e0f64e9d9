/* SPDX-License-Identifier: MIT */
/*
 * Hostile peers of the control channel, for the shell tests (ps_hostile.sh, ctlhold.sh).
 *
 *	ctlfake listen pid1|escape|drip DIR
 *		a fake instrumented process: listens on DIR/<its pid>.sock (making DIR, 0700)
 *		and answers every HELLO with a lie: "pid1" claims to be process 1 (systemd);
 *		"escape" puts terminal escape sequences in its name and recording; "drip"
 *		announces a 16 MiB answer and sends it one byte a second.
 *	ctlfake spool DIR COPYDIR
 *		a fake instrumented process with one event, tpt_fake:fake_tick, that honest
 *		requests are answered by: ATTACH writes a hand-made spool into the file named
 *		(and the same bytes to COPYDIR/<its pid>.spool), DETACH is OK. The spool's clock
 *		is not this machine's ("other-clock"), and it has one clock sample, taken at
 *		ATTACH: its records, 2, 4 and 6 million ticks after it, have times that only the
 *		spool's own samples give (tests/clock_agree.sh).
 *	ctlfake hostile DIR
 *		a fake instrumented process whose answers to LIST, STATS, FORMATS and JUMP put
 *		terminal controls (ESC ] 0 ; x BEL, ESC [ 2 J, a raw 0x9b, U+009B in UTF-8) and
 *		bytes that are not UTF-8 (0xff 0xfe) in its event names, conditions, filters,
 *		refusal texts and format text, and says ENABLE matched one event
 *		(tests/tty_escape.sh, tests/json_utf8.sh).
 *	ctlfake spool DIR COPYDIR SNAPFILE
 *		the same, answering SNAPSHOT too: with SNAPFILE "-", honestly (the spool written
 *		into the file the tool made, DIR/<pid>.spool of the directory it sent); else
 *		the spool written to SNAPFILE, which it names instead (tests/snapshot_file.sh).
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
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "../lib/fmt/control_msg.h"
#include "../lib/spool_format.h"
#include "../lib/spool_read.h"

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

/* A control socket where the tool looks for this pid's: DIR/PID.sock, listening. */
static int listen_at(const char *dir)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int lfd;

	mkdir(dir, 0700);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/%d.sock", dir, (int)getpid());
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(lfd, 8) < 0) {
		perror(a.sun_path);
		return -1;
	}
	return lfd;
}

static int listen_fake(const char *mode, const char *dir)
{
	char text[256];
	int lfd;

	lfd = listen_at(dir);
	if (lfd < 0)
		return 1;
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

/* ---- spool: a process whose spool is made by hand ---- */

#define FAKE_ID 0x7001
#define FAKE_SAMPLE_CLOCK 1000000000ull /* the raw clock of the one sample */

static const char fake_format[] =
	"name: fake_tick\nID: 28673\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned long n;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"n=%lu\", REC->n\n";

struct fake_spool {
	char buf[4096];
	size_t len;
};

static void put_chunk(struct fake_spool *f, uint32_t type, const void *a, size_t alen,
		      const void *b, size_t blen)
{
	struct spool_chunk c = { type, (uint32_t)(alen + blen), 0, 0 };
	size_t padded = (alen + blen + 7) & ~(size_t)7;

	memset(f->buf + f->len + sizeof(c), 0, padded);
	memcpy(f->buf + f->len + sizeof(c), a, alen);
	if (blen)
		memcpy(f->buf + f->len + sizeof(c) + alen, b, blen);
	c.crc = tp_spool_chunk_crc(&c, f->buf + f->len + sizeof(c), padded, NULL, 0);
	memcpy(f->buf + f->len, &c, sizeof(c));
	f->len += sizeof(c) + padded;
}

static void make_spool(struct fake_spool *f)
{
	struct spool_file_header h = { SPOOL_MAGIC, SPOOL_VERSION, (uint32_t)getpid(),
				       "other-clock", 0, 0 };
	struct spool_records r = { .tid = (uint32_t)getpid() };
	char ev[1024], recs[3 * 32], comm[16];
	uint64_t sample[2];
	struct timespec ts;
	size_t n = 0;
	uint16_t id = FAKE_ID;

	memset(f, 0, sizeof(*f));
	h.crc = tp_spool_header_crc(&h);
	memcpy(f->buf, &h, sizeof(h));
	f->len = sizeof(h);
	memcpy(ev, &id, 2);
	memset(ev + 2, 0, 2);
	n = 4;
	memcpy(ev + n, "tpt_fake", 9), n += 9;
	memcpy(ev + n, "fake_tick", 10), n += 10;
	memcpy(ev + n, "", 1), n += 1;
	memcpy(ev + n, fake_format, sizeof(fake_format)), n += sizeof(fake_format);
	put_chunk(f, SPOOL_EVENT, ev, n, NULL, 0);
	memcpy(comm, &r.tid, 4);
	memcpy(comm + 4, "fakeproc", 9);
	put_chunk(f, SPOOL_COMM, comm, 13, NULL, 0);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	sample[0] = FAKE_SAMPLE_CLOCK;
	sample[1] = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	put_chunk(f, SPOOL_CLOCK, sample, sizeof(sample), NULL, 0);
	for (uint64_t i = 1; i <= 3; i++) {
		struct spool_record rec = { FAKE_SAMPLE_CLOCK + i * 2000000, 16, 0 };
		uint32_t common[2] = { FAKE_ID, (uint32_t)getpid() };

		memcpy(recs + (i - 1) * 32, &rec, sizeof(rec));
		memcpy(recs + (i - 1) * 32 + 16, common, 8);
		memcpy(recs + (i - 1) * 32 + 24, &i, 8);
	}
	put_chunk(f, SPOOL_RECORDS, &r, sizeof(r), recs, sizeof(recs));
	put_chunk(f, SPOOL_END, "", 0, NULL, 0);
}

static int write_file(const char *path, int flags, const struct fake_spool *f)
{
	int fd = open(path, flags | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
	int ok = fd >= 0 && write(fd, f->buf, f->len) == (ssize_t)f->len;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/* The file a SNAPSHOT request is answered with, if not the one the tool made. */
static const char *snapshot_file;

/* The requests of one connection, answered until the tool closes it. */
static void serve_spool(int fd, const char *copydir)
{
	char text[256], req[4096];
	struct ctl_hdr h;

	while (recv(fd, &h, sizeof(h), MSG_WAITALL) == (ssize_t)sizeof(h)) {
		if (h.len >= sizeof(req) ||
		    (h.len && recv(fd, req, h.len, MSG_WAITALL) != (ssize_t)h.len))
			return;
		req[h.len] = 0;
		switch (h.type) {
		case CTL_HELLO:
			snprintf(text, sizeof(text), "%d\tfakeproc\t1\t0\tnone\n", (int)getpid());
			break;
		case CTL_LIST:
			snprintf(text, sizeof(text), "%d\ttpt_fake:fake_tick\t0\t\t\t\n", FAKE_ID);
			break;
		case CTL_ATTACH: {
			struct fake_spool f;
			char copy[4096];

			req[strcspn(req, "\t")] = 0;
			make_spool(&f);
			snprintf(copy, sizeof(copy), "%s/%d.spool", copydir, (int)getpid());
			if (write_file(req, 0, &f) < 0 || write_file(copy, O_CREAT | O_EXCL, &f) < 0)
				perror(req);
			snprintf(text, sizeof(text), "%s", "");
			break;
		}
		case CTL_SNAPSHOT: {
			struct fake_spool f;
			bool own = !snapshot_file || !strcmp(snapshot_file, "-");

			make_spool(&f);
			if (own)
				snprintf(text, sizeof(text), "%.200s/%d.spool", req, (int)getpid());
			else
				snprintf(text, sizeof(text), "%s", snapshot_file);
			if (write_file(text, own ? O_TRUNC : O_CREAT | O_TRUNC, &f) < 0)
				perror(text);
			break;
		}
		default:
			text[0] = 0;
			break;
		}
		if (send_reply(fd, text, 0) < 0)
			return;
	}
}

static int spool_fake(const char *dir, const char *copydir)
{
	int lfd;

	lfd = listen_at(dir);
	if (lfd < 0)
		return 1;
	ready();
	for (;;) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0)
			continue;
		serve_spool(fd, copydir);
		close(fd);
	}
	return 0;
}

/* ---- hostile: answers that would take over a terminal ---- */

#define EVIL "\033]0;x\a\033[2J\x9b\xc2\x9b\xff\xfe"

/* An OK with a result: ENABLE's number of events matched. */
static int send_count(int fd, int32_t result)
{
	struct ctl_hdr h = { CTL_MAGIC, CTL_MAJOR, CTL_MINOR, CTL_OK, 4 };

	return send(fd, &h, sizeof(h), MSG_NOSIGNAL) == (ssize_t)sizeof(h) &&
	       send(fd, &result, 4, MSG_NOSIGNAL) == 4 ? 0 : -1;
}

/* The requests of one connection, each answered with EVIL wherever text goes. */
static void serve_hostile(int fd)
{
	char text[2048], req[4096];
	struct ctl_hdr h;

	while (recv(fd, &h, sizeof(h), MSG_WAITALL) == (ssize_t)sizeof(h)) {
		if (h.len >= sizeof(req) ||
		    (h.len && recv(fd, req, h.len, MSG_WAITALL) != (ssize_t)h.len))
			return;
		switch (h.type) {
		case CTL_HELLO:
			snprintf(text, sizeof(text), "%d\thostile\t2\t1\tnone\n", (int)getpid());
			break;
		case CTL_LIST:
			snprintf(text, sizeof(text),
				 "28673\ttpt_evil:name" EVIL "\t1\tcond" EVIL "\tfilter" EVIL
				 "\treg function returned -1" EVIL "\n"
				 "28674\ttpt_evil:plain\t0\t\t\t\n");
			break;
		case CTL_STATS:
			snprintf(text, sizeof(text),
				 "tpt_evil:name" EVIL "\t5\t1\t0\t4\t0\tcond" EVIL "\t0\n"
				 "tpt_evil:plain\t0\t0\t0\t0\t0\t\t0\n");
			break;
		case CTL_FORMATS:
			snprintf(text, sizeof(text),
				 "name: name" EVIL "\nID: 28673\nformat:\n"
				 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
				 "print fmt: \"" EVIL "\"\n\n");
			break;
		case CTL_JUMP:
			snprintf(text, sizeof(text), "4\t2\tjump" EVIL "\n");
			break;
		case CTL_ENABLE:
			/* one event enabled: the tool then asks LIST which stayed off */
			if (send_count(fd, 1) < 0)
				return;
			continue;
		default:
			text[0] = 0;
			break;
		}
		if (send_reply(fd, text, 0) < 0)
			return;
	}
}

static int hostile_fake(const char *dir)
{
	int lfd = listen_at(dir);

	if (lfd < 0)
		return 1;
	ready();
	for (;;) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0)
			continue;
		serve_hostile(fd);
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
	if (argc == 5 && !strcmp(argv[1], "spool"))
		snapshot_file = argv[4];
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "spool"))
		return spool_fake(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "hostile"))
		return hostile_fake(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "slow"))
		return slow_client(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "idle"))
		return idle_clients(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: ctlfake listen pid1|escape|drip DIR | spool DIR COPYDIR [SNAPFILE] | "
		"hostile DIR | slow SOCKET | idle SOCKET N\n");
	return 2;
}
