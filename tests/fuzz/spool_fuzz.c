// SPDX-License-Identifier: MIT
/*
 * spool_fuzz - libFuzzer harness for the spool reader: `tpoint record --assemble` turning
 * spools found on disk into a trace.dat (lib/tracedat.c, read_spool() and
 * tp_tracedat_from_spools(), with the spool reader of lib/spool_read.c, the record codec of
 * lib/fmt/rb_record.h and the unpacking of lib/pack.c behind it).
 * Built by tests/fuzz/run.sh with the tool's library files.
 *
 * An input is one spool file as a traced program writes it, or several laid end to end:
 * each further "TPSPOOL" magic at an 8-byte boundary starts the next spool (at most four),
 * so that a recording of several processes, with their own event ids, is fuzzed too.
 * Each spool is a memfd the reader opens as /proc/self/fd/N, as it opens the spool that
 * `tpoint record -p` holds.
 *
 * The reader maps a spool; here that mapping is a heap copy of exactly the file's size
 * (mmap and munmap are replaced in lib/tracedat_ingest.c and lib/tracedat.c, included
 * below; tests/fuzz/run.sh links the writer's other stages), so that ASan sees any
 * read past the end of the file, which a real mapping would hide in the last page's tail.
 *
 * Each input is assembled twice: all of it, and with every other event selected out (as
 * `tpoint record -p` does). Besides not crashing, what must hold: damage is said and skipped,
 * only a want of memory fails the whole; the file written can be read back and walked by
 * `tpoint report`'s strict reader (tools/tpoint/tracedat_read.c), which must not crash on it.
 * With SPOOL_FUZZ_STRICT=1 in the environment, the strict reader must also accept every file
 * written. It does not yet: the spool's event format texts are copied into the file as they
 * are, and one with a bad common_pid field, say, is refused by `tpoint report` (with the
 * reason) instead of being left out at assembly.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../tools/tpoint/tracedat_read.h"

#define MAX_SPOOLS 4

/* A spool's mapping: its bytes copied into the heap, exactly as many as the file has. */
static void *spool_fuzz_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	char *copy;
	size_t got = 0;

	if (fd < 0 || addr || off)
		return mmap(addr, len, prot, flags, fd, off);
	copy = malloc(len ? len : 1);
	if (!copy)
		return MAP_FAILED;
	while (got < len) {
		ssize_t n = pread(fd, copy + got, len - got, (off_t)got);

		if (n <= 0) {
			free(copy);
			errno = EIO;
			return MAP_FAILED;
		}
		got += (size_t)n;
	}
	return copy;
}

static int spool_fuzz_munmap(void *addr, size_t len)
{
	(void)len;
	free(addr);
	return 0;
}

#define mmap spool_fuzz_mmap
#define munmap spool_fuzz_munmap
#include "../../lib/tracedat_ingest.c"
#include "../../lib/tracedat.c"
#undef mmap
#undef munmap

static int spool_fd[MAX_SPOOLS];
static char memfd_path[MAX_SPOOLS][32], out_path[256];
static bool strict; /* SPOOL_FUZZ_STRICT=1: every file written must be accepted */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("TMPDIR");
	char tmpl[200];

	(void)argc;
	(void)argv;
	for (int i = 0; i < MAX_SPOOLS; i++) {
		spool_fd[i] = memfd_create("spool", MFD_CLOEXEC);
		if (spool_fd[i] < 0)
			abort();
		snprintf(memfd_path[i], sizeof(memfd_path[i]), "/proc/self/fd/%d", spool_fd[i]);
	}
	snprintf(tmpl, sizeof(tmpl), "%s/tpoint-spool-fuzz.XXXXXX", dir && *dir ? dir : "/tmp");
	if (!mkdtemp(tmpl))
		abort();
	snprintf(out_path, sizeof(out_path), "%s/out.dat", tmpl);
	strict = getenv("SPOOL_FUZZ_STRICT") && !strcmp(getenv("SPOOL_FUZZ_STRICT"), "1");
	return 0;
}

static void put(int fd, const uint8_t *p, size_t n)
{
	if (ftruncate(fd, 0) || (n && pwrite(fd, p, n, 0) != (ssize_t)n))
		abort();
}

/* Keeps every other event the spools describe, all of its records. */
static bool keep_alternate(void *ctx, const char *system, const char *name, const char *format,
			   struct filter **f)
{
	unsigned *n = ctx;

	(void)system;
	(void)name;
	(void)format;
	*f = NULL;
	return (*n)++ % 2 == 0;
}

/* The file written, read back by the strict reader and every record of it walked. */
static void check_output(void)
{
	int fd = open(out_path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	struct tracedat td;
	char err[512];
	unsigned char *buf;

	if (fd < 0 || fstat(fd, &st))
		abort();
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf || pread(fd, buf, (size_t)st.st_size, 0) != st.st_size)
		abort();
	close(fd);
	if (tracedat_parse(&td, "out.dat", buf, (size_t)st.st_size, err, sizeof(err))) {
		if (!strict) {
			free(buf);
			return;
		}
		fprintf(stderr, "the trace.dat written is refused: %s\n", err);
		abort();
	}
	for (size_t b = 0; b < td.nr_buffers; b++)
		for (uint32_t cpu = 0; cpu < td.nr_cpus; cpu++) {
			struct td_cursor c;
			struct td_event ev;

			tracedat_cursor_init(&c, &td, b, cpu);
			while (tracedat_next_event(&c, &ev) > 0)
				;
		}
	tracedat_close(&td);
	free(buf);
}

/*
 * Every spool's header and whole chunks get their right checksums, so that what the fuzzer
 * changes reaches the checks behind them (as a spool crafted on purpose would); an input
 * whose length is a multiple of 16 is left as it is, for the checksums' own check.
 */
static void seal(uint8_t *p, size_t n)
{
	struct spool_file_header h;
	size_t off = sizeof(h);

	if (n < sizeof(h))
		return;
	memcpy(&h, p, sizeof(h));
	h.crc = tp_spool_header_crc(&h);
	memcpy(p, &h, sizeof(h));
	while (off + sizeof(struct spool_chunk) <= n) {
		struct spool_chunk c;
		uint64_t span;

		memcpy(&c, p + off, sizeof(c));
		span = c.size <= SPOOL_CHUNK_MAX ? tp_spool_chunk_span(&c, n - off) : 0;
		if (!span)
			return;
		c.crc = tp_spool_chunk_crc(&c, p + off + sizeof(c), span - sizeof(c), NULL, 0);
		memcpy(p + off, &c, sizeof(c));
		off += span;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	const char *paths[MAX_SPOOLS];
	size_t start = 0;
	int n = 0;
	uint8_t *data = malloc(size ? size : 1);
	bool fix = size % 16 != 0;

	if (!data)
		return 0;
	memcpy(data, in, size);

	/* Split at each further magic, on an 8-byte boundary as chunks are. */
	for (size_t off = 8; off + sizeof(SPOOL_MAGIC) <= size && n < MAX_SPOOLS - 1; off += 8) {
		if (memcmp(data + off, SPOOL_MAGIC, sizeof(SPOOL_MAGIC)))
			continue;
		if (fix)
			seal(data + start, off - start);
		put(spool_fd[n], data + start, off - start);
		paths[n] = memfd_path[n];
		n++;
		start = off;
	}
	if (fix)
		seal(data + start, size - start);
	put(spool_fd[n], data + start, size - start);
	paths[n] = memfd_path[n];
	n++;
	free(data);

	for (int pass = 0; pass < 2; pass++) {
		struct tracedat_result res;
		unsigned count = 0;
		struct tracedat_select sel = { .ctx = &count, .event = keep_alternate };
		char err[512];
		int rc;

		rc = pass ? tp_tracedat_from_spools_select(out_path, paths, n, &sel, &res, err,
							  sizeof(err))
			  : tp_tracedat_from_spools(out_path, paths, n, &res, err, sizeof(err));
		if (rc == 0) {
			check_output();
			tp_tracedat_result_free(&res);
		} else if (rc != -ENOMEM) {
			/* Damage is said and skipped: only memory ends the whole file. */
			fprintf(stderr, "tp_tracedat_from_spools: %d: %s\n", rc, err);
			abort();
		}
	}
	return 0;
}
