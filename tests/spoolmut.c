/* SPDX-License-Identifier: MIT */
/*
 * spoolmut - damage a spool file in place, the ways tests/assemble.sh tries on
 * `tpoint record --assemble`. Prints the offset and what it did.
 *
 *   spoolmut FILE list              each chunk: offset, type, size
 *   spoolmut FILE hugesize N        the Nth chunk of records says 0xfffffff0 bytes
 *   spoolmut FILE packedhdr N       the Nth packed page: its header says a range no page has
 *   spoolmut FILE rechdr N          the Nth page as it is: its second record's header damaged
 *                                   (or the first page after it with two records)
 *   spoolmut FILE random SEED       one random mutation: a bit, a word set to an extreme,
 *                                   a cut, a copied run; in a chunk's header half the time
 *   spoolmut FILE manyevents N      N event chunks after the first, copies of it named
 *                                   many0 .. manyN-1
 *   spoolmut FILE longname N        one such copy, named with N letters
 *   spoolmut FILE dataloc N         the Nth page as it is (or the first after it with one):
 *                                   the first record with a string (a __data_loc word at
 *                                   byte 16) says it is 65535 bytes
 *   spoolmut FILE flip N            bit N of the file flipped (N modulo the file's bits)
 *   spoolmut FILE bits              how many bits the file has
 *
 * The structural ones (hugesize aside) give the chunk they change its right checksum, as
 * someone who crafts a spool would: the readers' checks behind the checksum are tried.
 * random and flip leave it as it was, as damage does.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "spool_format.h"
#include "spool_read.h"

static char *buf;
static size_t len;

static void die(const char *what)
{
	fprintf(stderr, "spoolmut: %s\n", what);
	exit(2);
}

/* The chunk at `chunk` (its header, payload and padding) gets its right checksum. */
static void seal(char *chunk)
{
	struct spool_chunk c;

	memcpy(&c, chunk, sizeof(c));
	c.crc = tp_spool_chunk_crc(&c, chunk + sizeof(c), ((size_t)c.size + 7) & ~(size_t)7,
				   NULL, 0);
	memcpy(chunk, &c, sizeof(c));
}

/* Offsets of the chunks, in order (up to max). */
static size_t chunks(size_t *off, size_t max)
{
	size_t n = 0, p = sizeof(struct spool_file_header);

	while (p + sizeof(struct spool_chunk) <= len && n < max) {
		struct spool_chunk c;

		memcpy(&c, buf + p, sizeof(c));
		off[n++] = p;
		p += sizeof(c) + (((size_t)c.size + 7) & ~(size_t)7);
	}
	return n;
}

/* A chunk of records, of that type if type is not 0. */
static bool has_records(size_t off, uint32_t type)
{
	struct spool_chunk c;

	memcpy(&c, buf + off, sizeof(c));
	if (type)
		return c.type == type;
	return c.type == SPOOL_RECORDS || c.type == SPOOL_PAGE || c.type == SPOOL_PAGE_PACKED;
}

/* The Nth chunk of records (from 1), of that type if type is not 0. */
static size_t records_chunk(long nth, uint32_t type)
{
	static size_t off[1 << 16];
	size_t n = chunks(off, sizeof(off) / sizeof(off[0]));

	for (size_t i = 0; i < n; i++)
		if (has_records(off[i], type) && --nth == 0)
			return off[i];
	die("not that many chunks of records");
	return 0;
}

/* The offset of the second record in the page chunk at OFF, after any time extends; 0 if
 * the page holds one record only. */
static size_t second_record(size_t off)
{
	struct spool_chunk c;
	size_t body = off + sizeof(struct spool_chunk);
	size_t rec = body + sizeof(struct spool_records), end;
	uint32_t w, arr;

	memcpy(&c, buf + off, sizeof(c));
	end = body + c.size;
	while (rec + 8 <= end) {
		memcpy(&w, buf + rec, 4);
		memcpy(&arr, buf + rec + 4, 4);
		if ((w & 31) == 0)
			break;
		rec += 8; /* a time extend */
	}
	if (rec + 8 > end)
		die("no record in the page");
	rec += 8 + (arr - 4);
	return rec + 8 > end ? 0 : rec;
}

/* The first record in the page chunk at OFF with room for a __data_loc word at byte 16 of
 * its payload; 0 if none. */
static size_t string_record(size_t off)
{
	struct spool_chunk c;
	size_t body = off + sizeof(struct spool_chunk), rec, end;
	uint32_t w, arr;

	memcpy(&c, buf + off, sizeof(c));
	rec = body + sizeof(struct spool_records);
	end = body + c.size;
	for (; rec + 8 <= end; rec += (w & 31) ? 8 : 8 + (arr - 4)) {
		memcpy(&w, buf + rec, 4);
		memcpy(&arr, buf + rec + 4, 4);
		if ((w & 31) == 0 && arr - 4 >= 24)
			break;
	}
	return rec + 8 + 20 > end ? 0 : rec;
}

static void put32(size_t off, uint32_t v)
{
	if (off + 4 <= len)
		memcpy(buf + off, &v, 4);
}

/*
 * N copies of the first event chunk after it, each under a name of its own (manyI, or
 * `long_name` letters): the file rewritten whole. Returns the offset of the first copy.
 */
static size_t many_events(int fd, long n, long long_name)
{
	static size_t off[1 << 16];
	size_t nc = chunks(off, sizeof(off) / sizeof(off[0])), at = 0;
	struct spool_chunk c;

	for (size_t i = 0; i < nc && !at; i++) {
		memcpy(&c, buf + off[i], sizeof(c));
		if (c.type == SPOOL_EVENT)
			at = off[i];
	}
	if (!at)
		die("no event chunk");
	/* u16 id, u16 0, then system, name, condition and format, each ending in a NUL. */
	const char *body = buf + at + sizeof(c), *sys = body + 4, *name = sys + strlen(sys) + 1;
	const char *rest = name + strlen(name) + 1; /* condition and format */
	size_t rest_len = strlen(rest) + 1, next = at + sizeof(c) + ((c.size + 7) & ~7u);

	rest_len += strlen(rest + rest_len) + 1;
	if (pwrite(fd, buf, next, 0) != (ssize_t)next)
		die("cannot write the file");
	size_t pos = next;

	for (long i = 0; i < n; i++) {
		char chunk[16384], newname[4096];
		size_t sl = strlen(sys) + 1, nl, size;

		if (long_name > 0 && long_name < (long)sizeof(newname)) {
			memset(newname, 'x', (size_t)long_name);
			newname[long_name] = 0;
			nl = (size_t)long_name + 1;
		} else {
			nl = (size_t)snprintf(newname, sizeof(newname), "many%ld", i) + 1;
		}
		size = 4 + sl + nl + rest_len;
		if (sizeof(c) + size + 8 > sizeof(chunk))
			die("the event chunk is too big to copy");
		memset(chunk, 0, sizeof(chunk));
		c.type = SPOOL_EVENT;
		c.size = (uint32_t)size;
		memcpy(chunk, &c, sizeof(c));
		memcpy(chunk + sizeof(c), body, 4);
		memcpy(chunk + sizeof(c) + 4, sys, sl);
		memcpy(chunk + sizeof(c) + 4 + sl, newname, nl);
		memcpy(chunk + sizeof(c) + 4 + sl + nl, rest, rest_len);
		seal(chunk);
		size = sizeof(c) + ((size + 7) & ~(size_t)7);
		if (pwrite(fd, chunk, size, (off_t)pos) != (ssize_t)size)
			die("cannot write the file");
		pos += size;
	}
	if (pwrite(fd, buf + next, len - next, (off_t)pos) != (ssize_t)(len - next))
		die("cannot write the file");
	return next;
}

int main(int argc, char **argv)
{
	struct stat st;
	int fd;

	if (argc < 3)
		die("usage: spoolmut FILE list|bits|reseal|hugesize N|packedhdr N|rechdr N|random SEED|"
		    "manyevents N|longname N|flip N");
	fd = open(argv[1], O_RDWR);
	if (fd < 0 || fstat(fd, &st) < 0)
		die("cannot open the file");
	len = (size_t)st.st_size;
	buf = malloc(len + 1);
	if (!buf || pread(fd, buf, len, 0) != (ssize_t)len)
		die("cannot read the file");
	if (!strcmp(argv[2], "bits")) {
		printf("%zu\n", len * 8);
		return 0;
	}
	if (!strcmp(argv[2], "reseal")) {
		/* Every whole chunk gets its right checksum (after a change made by hand). */
		static size_t off[1 << 16];
		size_t n = chunks(off, sizeof(off) / sizeof(off[0]));

		for (size_t i = 0; i < n; i++) {
			struct spool_chunk c;

			memcpy(&c, buf + off[i], sizeof(c));
			if (off[i] + sizeof(c) + (((size_t)c.size + 7) & ~(size_t)7) <= len)
				seal(buf + off[i]);
		}
		if (pwrite(fd, buf, len, 0) != (ssize_t)len)
			die("cannot write the file");
		return 0;
	}
	if (!strcmp(argv[2], "list")) {
		static size_t off[1 << 16];
		size_t n = chunks(off, sizeof(off) / sizeof(off[0]));

		for (size_t i = 0; i < n; i++) {
			struct spool_chunk c;

			memcpy(&c, buf + off[i], sizeof(c));
			printf("%zu %u %u\n", off[i], c.type, c.size);
		}
		return 0;
	}
	if (argc < 4)
		die("a number is missing");
	long arg = atol(argv[3]);

	if (!strcmp(argv[2], "manyevents") || !strcmp(argv[2], "longname")) {
		if (argv[2][0] == 'm')
			printf("%zu\n", many_events(fd, arg, 0));
		else
			printf("%zu\n", many_events(fd, 1, arg));
		return 0; /* written whole: not the buffer back over it */
	} else if (!strcmp(argv[2], "hugesize")) {
		size_t off = records_chunk(arg, 0);

		put32(off + 4, 0xfffffff0u);
		printf("%zu\n", off);
	} else if (!strcmp(argv[2], "packedhdr") || !strcmp(argv[2], "rechdr")) {
		size_t off = records_chunk(arg, argv[2][0] == 'p' ? SPOOL_PAGE_PACKED : SPOOL_PAGE);
		size_t body = off + sizeof(struct spool_chunk);
		struct spool_chunk c;
		struct spool_records r;

		memcpy(&c, buf + off, sizeof(c));
		memcpy(&r, buf + body, sizeof(r));
		if (c.type == SPOOL_PAGE_PACKED) {
			/* A range of bytes no page has. */
			r.end_off = r.start_off + 2 * SPOOL_UNPACKED_MAX;
			memcpy(buf + body, &r, sizeof(r));
		} else if (c.type == SPOOL_PAGE) {
			/*
			 * The second record's header: type_len 29 (padding), not tpoint's.
			 * A page flushed early may hold one record: then the next page.
			 */
			size_t rec;

			while (!(rec = second_record(off)))
				off = records_chunk(++arg, SPOOL_PAGE);
			put32(rec, 29);
		}
		seal(buf + off);
		printf("%zu\n", off);
	} else if (!strcmp(argv[2], "dataloc")) {
		size_t off = records_chunk(arg, SPOOL_PAGE), rec;
		uint32_t loc;

		/* A page with no such record (one flushed early): the next page. */
		while (!(rec = string_record(off)))
			off = records_chunk(++arg, SPOOL_PAGE);
		memcpy(&loc, buf + rec + 8 + 16, 4);
		put32(rec + 8 + 16, (loc & 0xffff) | 0xffff0000u);
		seal(buf + off);
		printf("%zu\n", off);
	} else if (!strcmp(argv[2], "flip")) {
		size_t bit = (size_t)arg % (len * 8);

		buf[bit / 8] ^= (char)(1 << (bit % 8));
		printf("%zu: bit %zu flipped\n", bit / 8, bit % 8);
	} else if (!strcmp(argv[2], "random")) {
		static size_t off[1 << 16];
		size_t n = chunks(off, sizeof(off) / sizeof(off[0])), at;
		static const uint32_t extreme[] = { 0, 1, 0x7fffffffu, 0x80000000u, 0xfffffff0u,
						    0xffffffffu, 4096, 4097 };

		srandom((unsigned)arg);
		/* Half the time in a chunk's header or the records header after it. */
		if (n && random() % 2)
			at = off[random() % (long)n] + (size_t)(random() % 56);
		else
			at = (size_t)(random() % (long)len);
		if (at >= len)
			at = len - 1;
		switch (random() % 4) {
		case 0:
			buf[at] ^= (char)(1 << (random() % 8));
			printf("%zu: bit flipped\n", at);
			break;
		case 1:
			at &= ~(size_t)3;
			put32(at, extreme[random() % 8]);
			printf("%zu: word set\n", at);
			break;
		case 2:
			if (ftruncate(fd, (off_t)at) < 0)
				die("cannot cut the file");
			printf("%zu: cut there\n", at);
			return 0;
		default: {
			size_t from = (size_t)(random() % (long)len), run = 16;

			if (from + run > len)
				run = len - from;
			if (at + run > len)
				run = len - at;
			memmove(buf + at, buf + from, run);
			printf("%zu: %zu bytes from %zu copied there\n", at, run, from);
		}
		}
	} else {
		die("unknown mode");
	}
	if (pwrite(fd, buf, len, 0) != (ssize_t)len)
		die("cannot write the file");
	return 0;
}
