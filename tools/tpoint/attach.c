/* SPDX-License-Identifier: MIT */
/* See attach.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "attach.h"
#include "control_proto.h"
#include "internal.h"
#include "spool_format.h"
#include "tpoint.h"

int attach_make_dir(struct attach *a, pid_t pid, const char *near, char *err, size_t errlen)
{
	const char *slash = strrchr(near, '/');
	char status[64], line[256];
	FILE *f;
	int n;

	memset(a, 0, sizeof(*a));
	a->conn.fd = -1;
	a->pid = pid;
	n = slash ? snprintf(a->dir, sizeof(a->dir), "%.*s/.tpoint-spool.XXXXXX",
			     (int)(slash - near), near)
		  : snprintf(a->dir, sizeof(a->dir), ".tpoint-spool.XXXXXX");
	if (n <= 0 || (size_t)n >= sizeof(a->dir) || !mkdtemp(a->dir)) {
		snprintf(err, errlen, "%s: cannot write there: %s", near, strerror(errno));
		a->dir[0] = 0;
		return -errno;
	}
	/* The process writes its spool here: as root, lend the directory to its user. */
	snprintf(status, sizeof(status), "/proc/%d/status", (int)pid);
	f = fopen(status, "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Uid:", 4) || !strncmp(line, "Gid:", 4)) {
			unsigned long id = strtoul(line + 4, NULL, 10);

			if (geteuid() == 0 && line[0] == 'U' && id != 0 && chown(a->dir, (uid_t)id, -1) < 0)
				break;
		}
	if (f)
		fclose(f);
	if (a->dir[0] != '/') {
		char cwd[4096];

		/* The process resolves the path in its own working directory: make it absolute. */
		if (!getcwd(cwd, sizeof(cwd)) || strlen(cwd) + strlen(a->dir) + 2 > sizeof(a->dir)) {
			snprintf(err, errlen, "the working directory's path is too long");
			return -ENAMETOOLONG;
		}
		memmove(a->dir + strlen(cwd) + 1, a->dir, strlen(a->dir) + 1);
		memcpy(a->dir, cwd, strlen(cwd));
		a->dir[strlen(cwd)] = '/';
	}
	snprintf(a->spool, sizeof(a->spool), "%s/%d.spool", a->dir, (int)pid);
	return 0;
}

int attach_start(struct attach *a, pid_t pid, const char *globs, const char *mode,
		 size_t pool_size, bool live, char *err, size_t errlen)
{
	char *req, *text = NULL;
	int memfd = -1, ret;

	ret = ctl_connect(pid, &a->conn, err, errlen);
	if (ret < 0)
		return ret;
	if (asprintf(&req, "%s\t%s\t%s\t%d\t%zu", a->spool, globs, mode, live ? 1 : 0,
		     pool_size) < 0)
		return -ENOMEM;
	ret = ctl_request_fd(&a->conn, CTL_ATTACH, req, &text, &memfd, err, errlen);
	free(req);
	if (ret < 0)
		return ret;
	a->nevents = ret;
	if (memfd >= 0 && sscanf(text, "%u\t%*u\t%zu", &a->npages, &a->meta_off) == 2) {
		struct stat st;

		if (!fstat(memfd, &st) && st.st_size > 0) {
			void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, memfd, 0);

			if (m != MAP_FAILED) {
				a->pool = m;
				a->pool_len = (size_t)st.st_size;
			}
		}
	}
	if (memfd >= 0)
		close(memfd);
	free(text);
	return 0;
}

/* ---- salvage: the pages of a process that died ---- */

struct seen {
	uint32_t tid;
	uint64_t seq, gen;
	uint32_t end;
};

static int append(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen)
{
	struct spool_chunk c = { type, (uint32_t)(alen + blen) };
	static const char zeros[8];
	size_t pad = ((alen + blen + 7) & ~(size_t)7) - (alen + blen);

	if (write(fd, &c, sizeof(c)) != (ssize_t)sizeof(c) || write(fd, a, alen) != (ssize_t)alen ||
	    (blen && write(fd, b, blen) != (ssize_t)blen) ||
	    (pad && write(fd, zeros, pad) != (ssize_t)pad))
		return -EIO;
	return 0;
}

static int salvage(struct attach *a, char *err, size_t errlen)
{
	int fd = open(a->spool, O_RDWR | O_CLOEXEC);
	struct seen *seen = NULL;
	size_t nseen = 0, good = sizeof(struct spool_file_header);
	char *out = NULL, *scratch = NULL;
	struct stat st;
	char *map;
	int ret = 0;

	if (fd < 0 || fstat(fd, &st) < 0 || (size_t)st.st_size < good) {
		snprintf(err, errlen, "the process died before its spool began");
		if (fd >= 0)
			close(fd);
		return -ENOENT;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		close(fd);
		snprintf(err, errlen, "%s: %s", a->spool, strerror(errno));
		return -errno;
	}
	/* What the spool holds, up to its last whole chunk. */
	while (good + sizeof(struct spool_chunk) <= (size_t)st.st_size) {
		const struct spool_chunk *c = (const void *)(map + good);
		size_t padded = ((size_t)c->size + 7) & ~(size_t)7;

		if (padded > (size_t)st.st_size - good - sizeof(*c))
			break;
		if ((c->type == SPOOL_RECORDS || c->type == SPOOL_PAGE ||
		     c->type == SPOOL_PAGE_PACKED) &&
		    c->size >= sizeof(struct spool_records)) {
			const struct spool_records *r = (const void *)(c + 1);
			struct seen *n = realloc(seen, (nseen + 1) * sizeof(*n));

			if (n) {
				seen = n;
				seen[nseen++] = (struct seen){ r->tid, r->seq, r->gen, r->end_off };
			}
		}
		good += sizeof(*c) + padded;
	}
	munmap(map, (size_t)st.st_size);
	if (ftruncate(fd, (off_t)good) < 0 || lseek(fd, (off_t)good, SEEK_SET) < 0) {
		ret = -errno;
		goto out;
	}
	out = malloc(2 * TPOINT_PAGE_SIZE);
	scratch = malloc(2 * TPOINT_PAGE_SIZE);
	if (!out || !scratch) {
		ret = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < a->npages; i++) {
		const struct page_meta *m =
			(const void *)(a->pool + a->meta_off + (size_t)i * sizeof(struct page_meta));
		const char *page = a->pool + (size_t)i * TPOINT_PAGE_SIZE;
		uint64_t commit, clock;
		uint32_t from = 0, stopped;
		size_t used;

		if ((char *)(m + 1) > a->pool + a->pool_len)
			break;
		if (m->state != PAGE_FULL && m->state != PAGE_WRITING)
			continue;
		memcpy(&commit, page + 8, 8);
		memcpy(&clock, page, 8);
		if (commit > TPOINT_PAGE_DATA_END)
			continue;
		for (size_t k = 0; k < nseen; k++)
			if (seen[k].tid == m->tid && seen[k].seq == m->seq && seen[k].gen == m->gen &&
			    seen[k].end > from)
				from = seen[k].end;
		if (from >= commit)
			continue;
		/* The running clock at `from`: walk what the spool already has. */
		page_decode(page + TPOINT_PAGE_HEADER, 0, from, &clock, scratch, &stopped);
		used = page_decode(page + TPOINT_PAGE_HEADER, from, (uint32_t)commit, &clock,
				   out, &stopped);
		struct spool_records hdr = { .cpu = m->cpu, .tid = m->tid, .level = m->level,
					     .start_off = from, .seq = m->seq,
					     .lost_before = from ? 0 : m->lost_before, .gen = m->gen,
					     .end_off = stopped };

		if (used && append(fd, SPOOL_RECORDS, &hdr, sizeof(hdr), out, used) < 0) {
			ret = -EIO;
			goto out;
		}
	}
	struct clock_sample cs = clock_sample_now(); /* the clock is the machine's, not its */

	ret = append(fd, SPOOL_CLOCK, &cs, sizeof(cs), NULL, 0);
out:
	if (ret < 0)
		snprintf(err, errlen, "salvaging %s: %s", a->spool, strerror(-ret));
	free(out);
	free(scratch);
	free(seen);
	close(fd);
	return ret;
}

/* Gone, or a zombie: either way it will write nothing more. */
static bool process_gone(pid_t pid)
{
	char path[64], buf[512], *close_paren;
	ssize_t n;
	int fd;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = 0;
	close_paren = strrchr(buf, ')'); /* the command may hold spaces and parentheses */
	return close_paren && close_paren[1] == ' ' && (close_paren[2] == 'Z' || close_paren[2] == 'X');
}

int attach_finish(struct attach *a, bool *salvaged, char *err, size_t errlen)
{
	char *text = NULL;
	int ret;

	*salvaged = false;
	ret = ctl_request(&a->conn, CTL_DETACH, NULL, &text, err, errlen);
	free(text);
	ctl_close(&a->conn);
	if (ret >= 0)
		return 0;
	if (!process_gone(a->pid))
		return ret; /* alive, and said no */
	/* Gone. If it exited, its spool is complete and salvage finds nothing more. */
	if (!a->pool) {
		snprintf(err, errlen, "process %d ended; it did not pass its pages, so only what "
			 "it had spooled is kept", (int)a->pid);
		return 0;
	}
	*salvaged = true;
	return salvage(a, err, errlen);
}

void attach_cleanup(struct attach *a)
{
	DIR *d;
	struct dirent *e;

	ctl_close(&a->conn);
	if (a->pool)
		munmap((void *)a->pool, a->pool_len);
	a->pool = NULL;
	if (!a->dir[0] || !(d = opendir(a->dir)))
		return;
	while ((e = readdir(d))) {
		char path[4400];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", a->dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(a->dir);
	a->dir[0] = 0;
}
