// SPDX-License-Identifier: MIT
/*
 * mutate - damage a trace.dat file in every way a quick test can afford and
 * check that the reader and the report survive each one.
 *
 *   mutate SEED.dat [ITERATIONS] [RANDOM-SEED] [CUT-STRIDE]
 *
 * 1. every truncation length (every CUT-STRIDE'th for big files): tracedat_parse()
 *    must refuse it with one line;
 * 2. ITERATIONS random corruptions (flipped bits, bytes set to 0x00/0xff/0x7f,
 *    32-bit words set to extreme values, copied runs): each must be either
 *    refused with one line, or accepted and then reported by cmd_report()
 *    (stdout to /dev/null) without a crash.
 *
 * Built with the report and the reader (and -fsanitize=address,undefined for
 * the memory checks); it supplies its own tool_error().  A crash, a sanitizer
 * report or a message that is not one line is the failure; the exit status is
 * 0 when every case passed.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool.h"
#include "tracedat_read.h"

static unsigned long messages;

void tool_error(const char *verb, const char *fmt, ...)
{
	va_list ap;

	(void)verb;
	(void)fmt;
	va_start(ap, fmt);
	va_end(ap);
	messages++;
}

static uint64_t rng_state;

/* xorshift64*: reproducible from the seed, which is printed on failure */
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static unsigned char *slurp(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		return NULL;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf || read(fd, buf, (size_t)st.st_size) != st.st_size) {
		close(fd);
		free(buf);
		return NULL;
	}
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

static int check_error_line(const char *err, const char *what, size_t n)
{
	if (!*err || strchr(err, '\n')) {
		fprintf(stderr, "mutate: %s %zu: bad message '%s'\n", what, n, err);
		return 1;
	}
	return 0;
}

/* Offsets of the seed's non-zero bytes: the headers and records, not the zero fill. */
static size_t *busy;
static size_t nr_busy;

static void corrupt(unsigned char *b, size_t len)
{
	int edits = 1 + (int)(rnd() % 4);

	for (int e = 0; e < edits; e++) {
		size_t at = nr_busy && rnd() % 4 ? busy[rnd() % nr_busy] : (size_t)(rnd() % len);

		switch (rnd() % 6) {
		case 0:
			b[at] ^= (unsigned char)(1u << (rnd() % 8));
			break;
		case 1:
			b[at] = 0;
			break;
		case 2:
			b[at] = 0xff;
			break;
		case 3:
			b[at] = 0x7f;
			break;
		case 4:
			if (at + 4 <= len) {
				static const uint32_t words[] = { 0, 4, 0x7fffffff, 0x80000000,
								  0xffffffff, 0xfffffffc, 0x10000 };
				uint32_t w = words[rnd() % (sizeof(words) / sizeof(words[0]))];

				memcpy(b + at, &w, 4);
			}
			break;
		default: {
			size_t from = (size_t)(rnd() % len), n = 1 + (size_t)(rnd() % 16);

			if (from + n <= len && at + n <= len)
				memmove(b + at, b + from, n);
			break;
		}
		}
	}
}

int main(int argc, char **argv)
{
	char err[512], path[] = "/tmp/tpoint-mutate-XXXXXX";
	unsigned long iterations, stride, accepted = 0, refused = 0, reported_fail = 0;
	struct tracedat td;
	unsigned char *seed, *work;
	size_t len;
	int failures = 0, fd, saved_stdout;

	if (argc < 2) {
		fprintf(stderr, "usage: mutate SEED.dat [ITERATIONS] [RANDOM-SEED] [CUT-STRIDE]\n");
		return 2;
	}
	iterations = argc > 2 ? strtoul(argv[2], NULL, 0) : 2000;
	stride = argc > 4 ? strtoul(argv[4], NULL, 0) : 1;
	if (!stride)
		stride = 1;
	rng_state = argc > 3 ? strtoull(argv[3], NULL, 0) : 0x9e3779b97f4a7c15ULL;
	if (!rng_state)
		rng_state = 1;
	seed = slurp(argv[1], &len);
	if (!seed || !len) {
		fprintf(stderr, "mutate: cannot read %s\n", argv[1]);
		return 2;
	}
	if (tracedat_parse(&td, "seed", seed, len, err, sizeof(err))) {
		fprintf(stderr, "mutate: the seed file is refused: %s\n", err);
		return 1;
	}
	tracedat_close(&td);
	busy = malloc(len * sizeof(*busy));
	for (size_t i = 0; busy && i < len; i++)
		if (seed[i])
			busy[nr_busy++] = i;

	/* 1. truncations: the copy is exactly n bytes, so a read past it is caught */
	for (size_t n = 0; n < len; n += stride) {
		unsigned char *cut = malloc(n ? n : 1);

		memcpy(cut, seed, n);
		if (!tracedat_parse(&td, "cut", cut, n, err, sizeof(err))) {
			fprintf(stderr, "mutate: a file cut to %zu of %zu bytes was accepted\n", n,
				len);
			tracedat_close(&td);
			failures++;
		} else {
			failures += check_error_line(err, "cut at", n);
		}
		free(cut);
	}

	/* 2. corruptions, reported in-process when the reader accepts them */
	fd = mkstemp(path);
	if (fd < 0) {
		perror("mutate: mkstemp");
		return 2;
	}
	close(fd);
	saved_stdout = dup(1);
	work = malloc(len);
	for (unsigned long i = 0; i < iterations; i++) {
		uint64_t case_seed = rng_state;

		memcpy(work, seed, len);
		corrupt(work, len);
		if (tracedat_parse(&td, "mutant", work, len, err, sizeof(err))) {
			refused++;
			failures += check_error_line(err, "case", (size_t)i);
			continue;
		}
		tracedat_close(&td);
		accepted++;
		fd = open(path, O_WRONLY | O_TRUNC);
		if (fd < 0 || write(fd, work, len) != (ssize_t)len) {
			perror("mutate: write");
			return 2;
		}
		close(fd);
		{
			char *args[] = { "report", path, NULL };
			int devnull = open("/dev/null", O_WRONLY);
			int rc;

			fflush(stdout);
			dup2(devnull, 1);
			close(devnull);
			/* a loop in the report, or in libtraceevent, is a failure too */
			alarm(20);
			rc = cmd_report(2, args);
			alarm(0);
			fflush(stdout);
			dup2(saved_stdout, 1);
			if (rc != EXIT_OK)
				reported_fail++;
			if (rc != EXIT_OK && rc != EXIT_FAIL) {
				fprintf(stderr, "mutate: case %lu (state %#llx): exit %d\n", i,
					(unsigned long long)case_seed, rc);
				failures++;
			}
		}
	}
	unlink(path);
	free(work);
	free(seed);
	free(busy);
	printf("mutate: %zu truncations, %lu corruptions: %lu refused, %lu accepted "
	       "(%lu of them reported problems), %d failures\n",
	       (len + stride - 1) / stride, iterations, refused, accepted, reported_fail, failures);
	return failures ? 1 : 0;
}
