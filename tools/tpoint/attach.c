/* SPDX-License-Identifier: MIT */
/* See attach.h. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
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

/* Does one -e glob select "system:name"? The library's rules (registry.c), so that -f
 * lands on exactly the events that attaching enables. */
static bool glob_selects(const char *g, const char *full)
{
	const char *colon = strchr(full, ':'), *gcolon = strchr(g, ':');
	char sys[TPOINT_NAME_MAX], gsys[TPOINT_NAME_MAX];

	if (!colon || (size_t)(colon - full) >= sizeof(sys))
		return false;
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - full), full);
	if (gcolon) {
		if ((size_t)(gcolon - g) >= sizeof(gsys))
			return false;
		snprintf(gsys, sizeof(gsys), "%.*s", (int)(gcolon - g), g);
		return !fnmatch(gsys, sys, 0) && !fnmatch(gcolon + 1, colon + 1, 0);
	}
	return !fnmatch(g, sys, 0) || !fnmatch(g, colon + 1, 0);
}

/* Set (or, with expr "", clear) EXPR on every event of the process that `events` selects. */
int attach_filter(const char *verb, struct attach *a, const char *events, const char *expr,
		  bool quiet)
{
	char err[512] = "", *text = NULL, *save = NULL;
	int set = 0;

	if (ctl_request(&a->conn, CTL_LIST, NULL, &text, err, sizeof(err)) < 0) {
		if (!quiet)
			tool_error(verb, "process %d: %s", (int)a->pid, err);
		return -1;
	}
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *name = strchr(line, '\t'), *tab, *req, *reply = NULL, *list, *s2 = NULL;
		bool hit = false;

		if (!name)
			continue;
		name++;
		tab = strchr(name, '\t');
		if (tab)
			*tab = 0;
		list = strdup(events);
		for (char *g = list ? strtok_r(list, ",", &s2) : NULL; g && !hit;
		     g = strtok_r(NULL, ",", &s2))
			hit = glob_selects(g, name);
		free(list);
		if (!hit || asprintf(&req, "%s\t%s", name, expr) < 0)
			continue;
		if (ctl_request(&a->conn, CTL_FILTER, req, &reply, err, sizeof(err)) < 0) {
			if (!quiet)
				tool_error(verb, "filter on %s: %s", name, err);
			free(req);
			free(text);
			return -1;
		}
		free(reply);
		free(req);
		set++;
	}
	free(text);
	return set;
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
	if (!pid_gone(a->pid))
		return ret; /* alive, and said no */
	/* Gone. If it exited, its spool is complete and salvage finds nothing more. */
	if (!a->pool) {
		snprintf(err, errlen, "process %d ended; it did not pass its pages, so only what "
			 "it had spooled is kept", (int)a->pid);
		return 0;
	}
	*salvaged = true;
	uint64_t added;

	return spool_salvage(a->spool, a->pool, a->pool_len, a->npages, a->meta_off, &added, err,
			     errlen);
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
