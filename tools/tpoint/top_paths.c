/* SPDX-License-Identifier: MIT */
/* (device, inode) to path through /proc/PID/fd and /proc/PID/maps, read once a round. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "top_paths.h"

struct known_file {
	dev_t dev;
	unsigned long long ino;
	char *path;
};

struct proc_files {
	pid_t pid;
	unsigned round;
	struct known_file *files;
	int n, cap;
};

static struct proc_files *procs;
static int nprocs, cap_procs;
static unsigned round_now = 1;

void paths_next_round(void)
{
	round_now++;
	/* A process not asked about for a while is forgotten: it may be gone, its pid reused. */
	for (int i = 0; i < nprocs; i++) {
		if (round_now - procs[i].round < 60)
			continue;
		for (int f = 0; f < procs[i].n; f++)
			free(procs[i].files[f].path);
		free(procs[i].files);
		procs[i--] = procs[--nprocs];
	}
}

static void add_file(struct proc_files *p, dev_t dev, unsigned long long ino, const char *path)
{
	for (int i = 0; i < p->n; i++)
		if (p->files[i].dev == dev && p->files[i].ino == ino)
			return;
	if (p->n == p->cap) {
		int cap = p->cap ? 2 * p->cap : 16;
		struct known_file *grown = realloc(p->files, (size_t)cap * sizeof(*grown));

		if (!grown)
			return;
		p->files = grown;
		p->cap = cap;
	}
	p->files[p->n].path = strdup(path);
	if (p->files[p->n].path) {
		p->files[p->n].dev = dev;
		p->files[p->n++].ino = ino;
	}
}

/* Its open descriptors: stat() through /proc/PID/fd/N reaches even an unlinked file. */
static void read_fds(struct proc_files *p)
{
	char dir[64], link[PATH_MAX + 16], target[PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)p->pid);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat st;
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
		if (stat(link, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		add_file(p, st.st_dev, (unsigned long long)st.st_ino, target);
	}
	closedir(d);
}

/* Its mapped files: "start-end perms offset MAJ:MIN inode   path". */
static void read_maps(struct proc_files *p)
{
	char file[64], *line = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/maps", (int)p->pid);
	f = fopen(file, "re");
	if (!f)
		return;
	while (getline(&line, &len, f) > 0) {
		unsigned maj, min;
		unsigned long long ino;
		int at = 0;

		if (sscanf(line, "%*s %*s %*s %x:%x %llu %n", &maj, &min, &ino, &at) < 3 || !ino ||
		    line[at] != '/')
			continue;
		line[strcspn(line, "\n")] = 0;
		add_file(p, makedev(maj, min), ino, line + at);
	}
	free(line);
	fclose(f);
}

static struct proc_files *proc_files(pid_t pid)
{
	struct proc_files *p = NULL;

	for (int i = 0; i < nprocs && !p; i++)
		if (procs[i].pid == pid)
			p = &procs[i];
	if (!p) {
		if (nprocs == cap_procs) {
			int cap = cap_procs ? 2 * cap_procs : 16;
			struct proc_files *grown = realloc(procs, (size_t)cap * sizeof(*grown));

			if (!grown)
				return NULL;
			procs = grown;
			cap_procs = cap;
		}
		p = &procs[nprocs++];
		*p = (struct proc_files){ .pid = pid };
	}
	if (p->round != round_now) {
		for (int f = 0; f < p->n; f++)
			free(p->files[f].path);
		p->n = 0;
		p->round = round_now;
		read_fds(p);
		read_maps(p);
	}
	return p;
}

/* The whole disk of a partition (/sys/dev/block/M:m/partition exists), else dev itself. */
dev_t paths_disk_of(dev_t dev)
{
	char file[96];
	unsigned maj, min;
	FILE *f;

	snprintf(file, sizeof(file), "/sys/dev/block/%u:%u/partition", major(dev), minor(dev));
	if (access(file, F_OK) < 0)
		return dev;
	snprintf(file, sizeof(file), "/sys/dev/block/%u:%u/../dev", major(dev), minor(dev));
	f = fopen(file, "re");
	if (!f)
		return dev;
	if (fscanf(f, "%u:%u", &maj, &min) == 2)
		dev = makedev(maj, min);
	fclose(f);
	return dev;
}

char *paths_lookup(pid_t pid, bool have_dev, dev_t dev, unsigned long long ino)
{
	struct proc_files *p = proc_files(pid);

	for (int i = 0; p && i < p->n; i++) {
		struct known_file *k = &p->files[i];

		if (k->ino == ino && (!have_dev || k->dev == dev || paths_disk_of(k->dev) == dev))
			return strdup(k->path);
	}
	return NULL;
}

void paths_free(void)
{
	for (int i = 0; i < nprocs; i++) {
		for (int f = 0; f < procs[i].n; f++)
			free(procs[i].files[f].path);
		free(procs[i].files);
	}
	free(procs);
	procs = NULL;
	nprocs = cap_procs = 0;
}
