// SPDX-License-Identifier: MIT
/*
 * poolmeta_check - the pool's page metadata, which another process reads, is checked before
 * it is trusted (run by tests/poolmeta.sh, linked with libtpoint.a for the internals). A pool
 * as the library makes it is salvaged; the same pool with another metadata version, another
 * magic, or another page count than the one announced, is refused with a message that says
 * which, and nothing is added to the spool.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tpoint/tpoint.h>
#include "pool.h"
#include "salvage.h"
#include "spool_format.h"
#include "spool_read.h"

static int failures;

#define CHECK(cond, ...)                                                                      \
	do {                                                                                  \
		if (!(cond)) {                                                                \
			printf("FAIL: " __VA_ARGS__);                                         \
			printf("\n");                                                         \
			failures++;                                                           \
		}                                                                             \
	} while (0)

static int new_spool(const char *path)
{
	struct spool_file_header h = { SPOOL_MAGIC, SPOOL_VERSION, (uint32_t)getpid(), "", 0, 0 };
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	h.crc = tp_spool_header_crc(&h);

	if (fd < 0 || write(fd, &h, sizeof(h)) != (ssize_t)sizeof(h)) {
		perror(path);
		_exit(2);
	}
	return fd;
}

/* Salvage the pool into a fresh spool; the error text into err. */
static int salvage(struct pool *p, uint32_t npages, char *err, size_t len, uint64_t *added)
{
	int fd = new_spool("check.spool"), ret;
	struct stat st;

	fstat(p->memfd.fd, &st);
	err[0] = 0;
	ret = tp_spool_salvage_fd(fd, "check.spool", p->memfd.fd, (uint64_t)st.st_size, npages,
				  tp_pool_meta_offset(p), added, err, len);
	close(fd);
	return ret;
}

int main(void)
{
	struct pool p;
	struct pool_meta_header *h;
	char err[512];
	uint64_t added;
	int ret;

	if (tp_pool_create(&p, 1 << 20, TPOINT_MODE_DISCARD)) {
		printf("FAIL: no pool\n");
		return 1;
	}
	h = (struct pool_meta_header *)(void *)(p.base + tp_pool_meta_offset(&p));
	ret = salvage(&p, p.npages, err, sizeof(err), &added);
	CHECK(ret == 0 && added == 0, "a pool as made is salvaged (%d: %s)", ret, err);

	h->version = POOL_META_VERSION + 1;
	ret = salvage(&p, p.npages, err, sizeof(err), &added);
	CHECK(ret == -EPROTO && strstr(err, "version 2") && strstr(err, "reads version 1"),
	      "another metadata version is refused, by number (%d: %s)", ret, err);
	printf("ok: %s\n", err);
	h->version = POOL_META_VERSION;

	h->magic[0] ^= 1;
	ret = salvage(&p, p.npages, err, sizeof(err), &added);
	CHECK(ret == -EINVAL && strstr(err, "no tpoint page metadata"),
	      "a pool without the magic is refused (%d: %s)", ret, err);
	printf("ok: %s\n", err);
	h->magic[0] ^= 1;

	ret = salvage(&p, p.npages * 2, err, sizeof(err), &added);
	CHECK(ret == -EINVAL && strstr(err, "pages, not"),
	      "a page count other than the header's is refused (%d: %s)", ret, err);
	printf("ok: %s\n", err);

	CHECK(added == 0, "nothing added from a refused pool");
	tp_pool_destroy(&p);
	if (failures)
		return 1;
	printf("all checks passed\n");
	return 0;
}
