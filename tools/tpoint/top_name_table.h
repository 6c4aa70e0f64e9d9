/* SPDX-License-Identifier: MIT */
/*
 * The names of the inodes top was told about (top_names.c): the last name each (device,
 * inode) had, and whether that name was since unlinked or renamed away. Bounded: at most
 * NAME_TABLE_MAX_ENTRIES inodes and NAME_TABLE_MAX_BYTES bytes of names; beyond, the names
 * heard of longest ago are dropped, and counted. Pure: no system call.
 */
#ifndef TPOINT_TOP_NAME_TABLE_H
#define TPOINT_TOP_NAME_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define NAME_TABLE_MAX_ENTRIES 65536
#define NAME_TABLE_MAX_BYTES (16u << 20)

enum name_state { NAME_LIVE, NAME_DELETED, NAME_RENAMED };

struct name_entry {
	dev_t dev;            /* the file system's st_dev */
	dev_t disk;           /* the whole disk of a partition (the writeback event's bdi), or dev */
	unsigned long long ino;
	uint64_t where;       /* a hash of (file system, directory, name): how unlink names it */
	pid_t writer;         /* the process that last wrote it under this name */
	unsigned heard;       /* the table's clock when this name was first heard for it */
	pid_t gone_by;        /* the process that unlinked it (NAME_DELETED), dirtying it so */
	enum name_state state;
	char *path;
	int older, newer;     /* the age list, indexes; -1 at its ends */
	int next_ino, next_where; /* the hash chains; -1 ends them */
};

struct name_table;

/* An empty table holding at most max_entries names of max_bytes in all (0: the defaults). */
struct name_table *name_table_new(int max_entries, size_t max_bytes);
void name_table_free(struct name_table *t);

/*
 * The file (dev, ino) is now called path, at where: it becomes the newest. Returns 0, or -1
 * when out of memory (the table stays as it was).
 */
int name_table_set(struct name_table *t, dev_t dev, dev_t disk, unsigned long long ino,
		   uint64_t where, const char *path, pid_t writer);
/* The name at where was unlinked or renamed away, by process by: its file keeps that name,
 * marked so. */
void name_table_gone(struct name_table *t, uint64_t where, enum name_state state, pid_t by);
/*
 * The file (dev, ino) written again under the name held at where, by writer: true when that
 * name is held (then it is the newest, live, writer's), false when the caller must set it.
 * Cheap: no path is built (a file rewritten often is heard of once a drain).
 */
bool name_table_heard_again(struct name_table *t, uint64_t where, dev_t dev,
			    unsigned long long ino, pid_t writer);
/* The newest name held of the file (dev, ino), or NULL. */
const struct name_entry *name_table_of(const struct name_table *t, dev_t dev,
				       unsigned long long ino);
/*
 * The name at `from`, of inode ino (0: whichever), is now path, at `to`: the file was renamed
 * (or linked there and unlinked here). It keeps its writer and is marked NAME_RENAMED; a
 * file held at `to` before is marked NAME_DELETED, unlinked by `by` (a rename over a file
 * unlinks it). Returns 0, 1 when no name is held at `from`, -1 when out of memory (the name
 * stays as it was).
 */
int name_table_move(struct name_table *t, uint64_t from, unsigned long long ino,
		    uint64_t to, const char *path, pid_t by);
/*
 * The file a writeback event of process pid names: inode ino of the file system on disk bdi
 * (its dev, or a partition's disk); with !have_bdi (tmpfs and other file systems without a
 * device), of a file system with no device (major 0): the event does not say which. The
 * name pid last wrote under, or unlinked (unlinking dirties the file: a rename over it
 * too); else the newest name that is still the file's and was heard by the clock `since`
 * (the row's first event): an inode number is reused as soon as its file is gone, and a
 * name heard later may be a new file's. NULL when none.
 */
const struct name_entry *name_table_find(const struct name_table *t, bool have_bdi, dev_t bdi,
					 unsigned long long ino, pid_t pid, unsigned since);
/* The clock that stamps the names set from now on (the caller's rounds of reading). */
void name_table_clock(struct name_table *t, unsigned now);
/* Names dropped to stay within the bounds; names held now. */
unsigned long long name_table_dropped(const struct name_table *t);
int name_table_count(const struct name_table *t);

/* FNV-1a over n bytes, continued from h (start with NAME_HASH_START). */
#define NAME_HASH_START 0xcbf29ce484222325ull
uint64_t name_hash(uint64_t h, const void *bytes, size_t n);

#endif
