/* SPDX-License-Identifier: MIT */
/*
 * fanotify for the names of written files (top_names.h). Why close-write and not every
 * modification: measured in the notes of issue 33, a FAN_MODIFY mark costs every write() of
 * every process on the marked file systems about 0.6 us (a 1-byte write to tmpfs went from
 * 1.4 to 2.0 us), while FAN_CLOSE_WRITE costs nothing per write and about as much once per
 * open-write-close; a file held open while it is written is what the descriptor walk finds.
 * Queued events of one file merge in the kernel, so reading every 100 ms costs top little.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "json.h"
#include "top_names.h"
#include "top_paths.h"

#define MAX_FS 64
#define DIR_CACHE 1024 /* directories resolved, a refresh long */
#define LINKS_KEPT 64 /* the last names made for files top already named (hard links) */
#define WRITERS_KEPT 65536 /* who closed which file after writing, lately (a cache) */
/* Headers older than Linux 5.17's */
#ifndef FAN_RENAME
#define FAN_RENAME 0x10000000
#define FAN_REPORT_TARGET_FID 0x00001000
#define FAN_EVENT_INFO_TYPE_OLD_DFID_NAME 10
#define FAN_EVENT_INFO_TYPE_NEW_DFID_NAME 12
#endif
/*
 * Renames as one event with both names, and unlinks with the file's own handle (Linux 5.17):
 * a renamed file is shown under its new name. Before, under its old one, marked renamed.
 */
#define EVENT_MASK (FAN_CLOSE_WRITE | FAN_CREATE | FAN_DELETE | FAN_RENAME)
#define EVENT_MASK_BEFORE_5_17 (FAN_CLOSE_WRITE | FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | \
				FAN_MOVED_TO)

/* File systems with no files of their own: marking them would only cost. */
static const char *const pseudo_types[] = {
	"proc", "sysfs", "cgroup", "cgroup2", "tracefs", "debugfs", "securityfs", "bpf",
	"pstore", "configfs", "fusectl", "mqueue", "devpts", "devtmpfs", "autofs", "binfmt_misc",
	"nsfs", "efivarfs", "selinuxfs", "hugetlbfs", "rpc_pipefs", NULL,
};

struct marked_fs {
	dev_t dev, disk;
	fsid_t fsid;
	bool mounted; /* seen in mountinfo at the last look */
	bool tmpfs;
	char *mnt;
};

struct unmarked_fs {
	dev_t dev;
	char *text; /* "MOUNT (TYPE: why)" */
};

/* A file top holds a name of, linked under another name: where it may live on. */
struct link_made {
	dev_t dev;
	unsigned long long ino;
	uint64_t where;
	char *path;
};

/*
 * A process that closed a file after writing, on which file system. The name table keeps one
 * writer a file (the last); a process that wrote before it, or before its name was heard,
 * finds its file system here: tmpfs inode numbers are alike on every tmpfs, and the
 * writeback event does not say which.
 */
struct writer_seen {
	pid_t pid;
	dev_t dev;
	unsigned long long ino;
};

struct dir_cached {
	uint64_t key;
	unsigned round;
	char *path;
};

struct names {
	int fan;
	bool targets; /* FAN_REPORT_TARGET_FID and FAN_RENAME: Linux 5.17 */
	struct name_table *table;
	struct marked_fs fs[MAX_FS];
	int nfs;
	struct unmarked_fs unmarked[MAX_FS];
	int nunmarked;
	struct dir_cached dirs[DIR_CACHE];
	struct link_made links[LINKS_KEPT];
	unsigned nlinks;
	struct writer_seen writers[WRITERS_KEPT];
	unsigned round;
	unsigned long long overflows, unresolved;
	char buf[64 * 1024] __attribute__((aligned(8)));
	/* One event, copied out of buf: events are 4-byte aligned there (a name's padding),
	 * and their metadata, with its 64-bit mask, wants 8. */
	char ev[4096] __attribute__((aligned(8)));
};

static bool known_dev(struct names *n, dev_t dev)
{
	for (int i = 0; i < n->nfs; i++)
		if (n->fs[i].dev == dev)
			return true;
	for (int i = 0; i < n->nunmarked; i++)
		if (n->unmarked[i].dev == dev)
			return true;
	return false;
}

/* mountinfo writes ' ', '\t', '\n', '\\' as \ooo. */
static void unescape_octal(char *s)
{
	char *o = s;

	for (; *s; s++)
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	*o = 0;
}

static void add_unmarked(struct names *n, dev_t dev, const char *mnt, const char *type,
			 const char *why)
{
	struct unmarked_fs *u = &n->unmarked[n->nunmarked];

	if (n->nunmarked == MAX_FS || asprintf(&u->text, "%s (%s: %s)", mnt, type, why) < 0)
		return;
	u->dev = dev;
	n->nunmarked++;
}

static void mark_fs(struct names *n, dev_t dev, const char *mnt, const char *type)
{
	struct marked_fs *f = &n->fs[n->nfs];
	struct statfs sfs;
	int fd;

	if (n->nfs == MAX_FS) {
		add_unmarked(n, dev, mnt, type, "more file systems than top marks");
		return;
	}
	fd = open(mnt, O_PATH | O_CLOEXEC);
	if (fd < 0 || fstatfs(fd, &sfs) < 0 ||
	    fanotify_mark(n->fan, FAN_MARK_ADD | FAN_MARK_FILESYSTEM,
			  n->targets ? EVENT_MASK : EVENT_MASK_BEFORE_5_17, AT_FDCWD, mnt) < 0) {
		add_unmarked(n, dev, mnt, type, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd); /* held, it would keep the file system from being unmounted */
	*f = (struct marked_fs){ .dev = dev, .disk = paths_disk_of(dev), .fsid = sfs.f_fsid,
				 .mounted = true, .tmpfs = !strcmp(type, "tmpfs"),
				 .mnt = strdup(mnt) };
	if (f->mnt)
		n->nfs++;
}

/* A marked file system seen in mountinfo again; false when it is not one. */
static bool still_mounted(struct names *n, dev_t dev)
{
	for (int i = 0; i < n->nfs; i++)
		if (n->fs[i].dev == dev)
			return n->fs[i].mounted = true;
	return false;
}

/*
 * Every file system mounted that is not yet marked (nor known not to be markable); the ones
 * unmounted since are forgotten (their marks went with them).
 */
static void mark_mounts(struct names *n)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return;
	for (int i = 0; i < n->nfs; i++)
		n->fs[i].mounted = false;
	while (getline(&line, &cap, f) > 0) {
		unsigned maj, min;
		char mnt[4096], type[64];
		const char *dash = strstr(line, " - ");
		bool pseudo = false;

		if (!dash || sscanf(line, "%*s %*s %u:%u %*s %4095s", &maj, &min, mnt) != 3 ||
		    sscanf(dash, " - %63s", type) != 1 || still_mounted(n, makedev(maj, min)) ||
		    known_dev(n, makedev(maj, min)))
			continue;
		for (int i = 0; pseudo_types[i]; i++)
			pseudo |= !strcmp(type, pseudo_types[i]);
		if (pseudo)
			continue;
		unescape_octal(mnt);
		mark_fs(n, makedev(maj, min), mnt, type);
	}
	free(line);
	fclose(f);
	for (int i = 0; i < n->nfs; i++) /* the ones marked now are mounted */
		if (!n->fs[i].mounted) {
			free(n->fs[i].mnt);
			n->fs[i--] = n->fs[--n->nfs];
		}
}

/*
 * open_by_handle_at() on the file system's mount point, opened for the call: a descriptor
 * kept open would keep it from being unmounted. Not O_PATH: open_by_handle_at() takes no such
 * descriptor (EBADF). -1 also when another file system is mounted there now.
 */
static int open_handle(struct marked_fs *f, struct file_handle *h, int flags)
{
	int mfd = open(f->mnt, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), fd = -1;
	struct statfs sfs;

	if (mfd >= 0 && fstatfs(mfd, &sfs) == 0 &&
	    !memcmp(&sfs.f_fsid, &f->fsid, sizeof(sfs.f_fsid)))
		fd = open_by_handle_at(mfd, h, flags);
	if (mfd >= 0)
		close(mfd);
	return fd;
}

struct names *names_open(char *why, size_t len)
{
	struct names *n = calloc(1, sizeof(*n));

	if (!n) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	n->targets = true;
	n->fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_REPORT_FID |
			       FAN_REPORT_TARGET_FID | FAN_NONBLOCK | FAN_CLOEXEC,
			       O_RDONLY | O_LARGEFILE);
	if (n->fan < 0 && errno == EINVAL) {
		n->targets = false;
		n->fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_REPORT_FID |
				       FAN_NONBLOCK | FAN_CLOEXEC, O_RDONLY | O_LARGEFILE);
	}
	if (n->fan < 0) {
		int err = errno;

		snprintf(why, len, "fanotify: %s", err == EPERM ? "not root" :
			 err == EINVAL ? "the kernel has no FAN_REPORT_DFID_NAME (Linux 5.9+)" :
			 err == ENOSYS ? "not in this kernel" : strerror(err));
		free(n);
		return NULL;
	}
	n->table = name_table_new(0, 0);
	if (!n->table) {
		snprintf(why, len, "out of memory");
		names_close(n);
		return NULL;
	}
	n->round = 1;
	mark_mounts(n);
	return n;
}

static struct marked_fs *fs_of(struct names *n, const fsid_t *fsid)
{
	for (int i = 0; i < n->nfs; i++)
		if (!memcmp(&n->fs[i].fsid, fsid, sizeof(*fsid)))
			return &n->fs[i];
	return NULL;
}

/*
 * The inode number in a file handle, where its layout says it: FILEID_INO32_GEN (1) of 8
 * bytes is {ino, generation} by definition, tmpfs's 12-byte one {generation, ino low, high}.
 * Else open the handle (which fails once the file is gone). 0 when unknown.
 */
static unsigned long long handle_ino_read(const struct marked_fs *f,
					  const struct file_handle *h)
{
	uint32_t w[3];

	if (h->handle_type == 1 && h->handle_bytes == 8) {
		memcpy(w, h->f_handle, 8);
		return w[0];
	}
	if (h->handle_type == 1 && h->handle_bytes == 12 && f->tmpfs) {
		memcpy(w, h->f_handle, 12);
		return w[1] | (unsigned long long)w[2] << 32;
	}
	return 0;
}

static unsigned long long handle_ino(struct marked_fs *f, struct file_handle *h)
{
	unsigned long long ino = handle_ino_read(f, h);
	struct stat st;
	int fd;

	if (ino)
		return ino;
	fd = open_handle(f, h, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return 0;
	int ok = fstat(fd, &st) == 0;

	close(fd);
	return ok ? (unsigned long long)st.st_ino : 0;
}

/* The path of a directory by its handle, resolved at most once a refresh. */
static const char *dir_path(struct names *n, struct marked_fs *f, struct file_handle *h,
			    uint64_t key)
{
	struct dir_cached *c = &n->dirs[key % DIR_CACHE];
	char link[64], path[4096];
	ssize_t len;
	int fd;

	if (c->path && c->key == key && c->round == n->round)
		return c->path;
	fd = open_handle(f, h, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, path, sizeof(path) - 1);
	close(fd);
	if (len <= 0)
		return NULL;
	path[len] = 0;
	free(c->path);
	c->path = strdup(path);
	c->key = key;
	c->round = n->round;
	return c->path;
}

/* A directory-and-name record of an event: the file system, the directory's handle, the name. */
struct dir_name {
	const struct fanotify_event_info_fid *info;
	struct file_handle *dh;
	const char *name;
	struct marked_fs *f;
	uint64_t key, where; /* hashes of (file system, directory) and (..., name) */
};

static bool take_dir_name(struct names *n, const struct fanotify_event_info_fid *info,
			  struct dir_name *d)
{
	d->info = info;
	d->dh = (struct file_handle *)info->handle;
	d->name = (const char *)d->dh->f_handle + d->dh->handle_bytes;
	d->f = fs_of(n, (const fsid_t *)&info->fsid);
	d->key = name_hash(NAME_HASH_START, &info->fsid, sizeof(info->fsid));
	d->key = name_hash(d->key, d->dh, sizeof(*d->dh) + d->dh->handle_bytes);
	d->where = name_hash(d->key, d->name, strlen(d->name) + 1);
	return d->f != NULL;
}

/* "DIR/NAME" of a record in path, or false when its directory cannot be found. */
static bool full_path(struct names *n, const struct dir_name *d, char *path, size_t len)
{
	const char *dpath = dir_path(n, d->f, d->dh, d->key);

	if (!dpath)
		return false;
	snprintf(path, len, "%s/%s", strcmp(dpath, "/") ? dpath : "", d->name);
	return true;
}

/* The directory is dirtied by the entries made and removed in it: name it. */
static void name_dir(struct names *n, const struct dir_name *d, pid_t pid)
{
	const char *dpath = dir_path(n, d->f, d->dh, d->key);
	unsigned long long ino = dpath ? handle_ino(d->f, d->dh) : 0;

	if (ino)
		name_table_set(n->table, d->f->dev, d->f->disk, ino, d->key, dpath, pid);
	else
		n->unresolved++;
}

/*
 * A name made in a directory for a file top already names under another (a hard link): kept,
 * for when the name top holds is unlinked. Only where the inode number is in the handle: no
 * file is opened for every file made.
 */
static void created(struct names *n, const struct dir_name *d, const struct file_handle *child)
{
	unsigned long long ino = handle_ino_read(d->f, child);
	const struct name_entry *e = ino ? name_table_of(n->table, d->f->dev, ino) : NULL;
	struct link_made *l = &n->links[n->nlinks % LINKS_KEPT];
	char path[8192];

	if (!e || e->state == NAME_DELETED || e->where == d->where ||
	    !full_path(n, d, path, sizeof(path)))
		return;
	free(l->path);
	*l = (struct link_made){ .dev = d->f->dev, .ino = ino, .where = d->where,
				 .path = strdup(path) };
	n->nlinks++;
}

/*
 * A name top holds was unlinked. When the file was linked under another name first (git
 * puts its objects in place so, then unlinks the temporary name), that name, marked renamed.
 */
static void unlinked(struct names *n, const struct dir_name *d, const struct file_handle *child,
		     pid_t pid)
{
	unsigned long long ino = child ? handle_ino_read(d->f, child) : 0;
	unsigned held = n->nlinks < LINKS_KEPT ? n->nlinks : LINKS_KEPT;

	for (unsigned i = 1; ino && i <= held; i++) { /* the latest first */
		const struct link_made *l = &n->links[(n->nlinks - i) % LINKS_KEPT];

		if (l->ino == ino && l->dev == d->f->dev && l->path && l->where != d->where &&
		    name_table_move(n->table, d->where, ino, l->where, l->path, pid) == 0)
			return;
	}
	name_table_gone(n->table, d->where, NAME_DELETED, pid);
}

/* FAN_RENAME: the old and the new directory and name in one event (Linux 5.17). */
static void renamed(struct names *n, const struct dir_name *from, const struct dir_name *to,
		    struct file_handle *child, pid_t pid)
{
	char path[8192];

	name_dir(n, from, pid);
	if (to->dh->handle_bytes != from->dh->handle_bytes ||
	    memcmp(to->dh, from->dh, sizeof(*to->dh) + to->dh->handle_bytes))
		name_dir(n, to, pid);
	if (!full_path(n, to, path, sizeof(path))) {
		name_table_gone(n->table, from->where, NAME_RENAMED, pid);
		return;
	}
	if (name_table_move(n->table, from->where, child ? handle_ino(to->f, child) : 0,
			    to->where, path, pid) < 0)
		name_table_gone(n->table, from->where, NAME_RENAMED, pid);
}

static struct writer_seen *writer_slot(struct names *n, pid_t pid, unsigned long long ino)
{
	unsigned long long h = ((unsigned long long)pid * 0x9e3779b97f4a7c15ull) ^ ino;

	return &n->writers[(h ^ h >> 31) % WRITERS_KEPT];
}

/*
 * One event: its directory-and-name records, and the file's own handle (with close-write;
 * with the dirent events too where the kernel reports their target, Linux 5.17).
 */
static void take_event(struct names *n, const struct fanotify_event_metadata *m)
{
	const struct fanotify_event_info_fid *dir = NULL, *old = NULL, *new = NULL, *file = NULL;

	for (unsigned at = m->metadata_len; at + sizeof(struct fanotify_event_info_header) <=
	     m->event_len;) {
		const struct fanotify_event_info_fid *info = (const void *)((const char *)m + at);

		if (!info->hdr.len)
			break;
		if (info->hdr.info_type == FAN_EVENT_INFO_TYPE_DFID_NAME)
			dir = info;
		else if (info->hdr.info_type == FAN_EVENT_INFO_TYPE_OLD_DFID_NAME)
			old = info;
		else if (info->hdr.info_type == FAN_EVENT_INFO_TYPE_NEW_DFID_NAME)
			new = info;
		else if (info->hdr.info_type == FAN_EVENT_INFO_TYPE_FID)
			file = info;
		at += info->hdr.len;
	}
	struct file_handle *child = file ? (struct file_handle *)file->handle : NULL;
	struct dir_name d, from, to;
	char path[8192];

	if ((m->mask & FAN_RENAME) && old && new && take_dir_name(n, old, &from) &&
	    take_dir_name(n, new, &to))
		renamed(n, &from, &to, child, m->pid);
	if (!dir || !take_dir_name(n, dir, &d))
		return;
	/*
	 * Without the target's handle (before 5.17), events of one name may merge whatever
	 * their order: the unlink is taken first, as before. With it, only events of one file
	 * merge, and a file is written before it is unlinked.
	 */
	if (!n->targets && (m->mask & FAN_DELETE))
		name_table_gone(n->table, d.where, NAME_DELETED, m->pid);
	if (m->mask & FAN_MOVED_FROM)
		name_table_gone(n->table, d.where, NAME_RENAMED, m->pid);
	if ((m->mask & FAN_CLOSE_WRITE) && file && strcmp(d.name, ".")) {
		unsigned long long ino = handle_ino(d.f, child);

		/* known already: no directory to resolve, no path to build */
		bool known = ino && name_table_heard_again(n->table, d.where, d.f->dev, ino, m->pid);

		if (!known && (!full_path(n, &d, path, sizeof(path)) || !ino ||
			       name_table_set(n->table, d.f->dev, d.f->disk, ino, d.where, path,
					      m->pid) < 0))
			n->unresolved++;
		if (ino)
			*writer_slot(n, m->pid, ino) = (struct writer_seen){ m->pid, d.f->dev, ino };
	}
	if (n->targets && (m->mask & FAN_CREATE) && child)
		created(n, &d, child);
	if (n->targets && (m->mask & FAN_DELETE))
		unlinked(n, &d, child, m->pid);
	if (m->mask & (FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO))
		name_dir(n, &d, m->pid);
}

void names_drain(struct names *n, unsigned now)
{
	ssize_t len;

	name_table_clock(n->table, now);
	/* Bounded, as dirty_drain() is: a flood of events cannot hold top here. */
	for (int reads = 0; reads < 64 && (len = read(n->fan, n->buf, sizeof(n->buf))) > 0;
	     reads++) {
		const struct fanotify_event_metadata *m = (const void *)n->ev;

		for (const char *at = n->buf; len >= (ssize_t)sizeof(*m);) {
			struct fanotify_event_metadata head;

			memcpy(&head, at, sizeof(head));
			if (head.vers != FANOTIFY_METADATA_VERSION)
				return;
			if (head.event_len < sizeof(head) || head.event_len > (size_t)len)
				break;
			if (head.event_len > sizeof(n->ev)) {
				n->unresolved++; /* no handle and name are that long */
			} else {
				memcpy(n->ev, at, head.event_len);
				if (m->mask & FAN_Q_OVERFLOW)
					n->overflows++;
				else
					take_event(n, m);
			}
			at += head.event_len;
			len -= (ssize_t)head.event_len;
		}
	}
}

void names_refresh(struct names *n)
{
	n->round++;
	mark_mounts(n);
}

const struct name_entry *names_find(struct names *n, bool have_bdi, dev_t bdi,
				    unsigned long long ino, pid_t pid, unsigned since)
{
	const struct writer_seen *w;
	const struct name_entry *e;

	if (!n)
		return NULL;
	/* the file system pid closed inode ino on, if heard: its name there, whenever heard */
	w = writer_slot(n, pid, ino);
	if (w->pid == pid && w->ino == ino && (have_bdi || !major(w->dev)) &&
	    (e = name_table_find(n->table, true, w->dev, ino, pid, ~0u)) &&
	    (!have_bdi || e->dev == bdi || e->disk == bdi))
		return e;
	return name_table_find(n->table, have_bdi, bdi, ino, pid, since);
}

void names_describe(struct names *n, const char *why_none, char *out, size_t len)
{
	size_t at;

	if (!n) {
		snprintf(out, len, "Names: of open files only (%s)", why_none);
		return;
	}
	/* the file systems marked are in --json; the ones not, here: names may miss there */
	at = (size_t)snprintf(out, len, "Names: when written (fanotify on %d file system%s), %d "
			      "held, %llu dropped (at most %d)", n->nfs, n->nfs == 1 ? "" : "s",
			      name_table_count(n->table), name_table_dropped(n->table),
			      NAME_TABLE_MAX_ENTRIES);
	if (n->overflows && at < len)
		at += (size_t)snprintf(out + at, len - at, ", %llu queue overflows", n->overflows);
	if (!n->targets && at < len)
		at += (size_t)snprintf(out + at, len - at, ", renamed files under their old name "
				       "(no FAN_RENAME: Linux 5.17)");
	for (int i = 0; i < n->nunmarked && at < len; i++)
		at += (size_t)snprintf(out + at, len - at, "%s%s", i ? ", " :
				       "; of open files only on ", n->unmarked[i].text);
}

void names_json(struct names *n, const char *why_none)
{
	printf("\"names\": {\"source\": ");
	if (!n) {
		printf("\"descriptors\", \"why\": ");
		json_print_str(why_none);
		printf("}");
		return;
	}
	printf("\"fanotify\", \"marked\": [");
	for (int i = 0; i < n->nfs; i++) {
		printf("%s", i ? ", " : "");
		json_print_str(n->fs[i].mnt);
	}
	printf("], \"unmarked\": [");
	for (int i = 0; i < n->nunmarked; i++) {
		printf("%s", i ? ", " : "");
		json_print_str(n->unmarked[i].text);
	}
	printf("], \"renames\": %s, \"held\": %d, \"dropped\": %llu, \"bound\": %d, \"overflows\": %llu}",
	       n->targets ? "true" : "false", name_table_count(n->table),
	       name_table_dropped(n->table), NAME_TABLE_MAX_ENTRIES, n->overflows);
}

void names_close(struct names *n)
{
	if (!n)
		return;
	for (int i = 0; i < n->nfs; i++)
		free(n->fs[i].mnt);
	for (int i = 0; i < n->nunmarked; i++)
		free(n->unmarked[i].text);
	for (int i = 0; i < DIR_CACHE; i++)
		free(n->dirs[i].path);
	for (int i = 0; i < LINKS_KEPT; i++)
		free(n->links[i].path);
	if (n->fan >= 0)
		close(n->fan);
	name_table_free(n->table);
	free(n);
}
