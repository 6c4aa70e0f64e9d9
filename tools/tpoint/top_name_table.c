/* SPDX-License-Identifier: MIT */
/*
 * The bounded table of inode names: entries in one array, found through two chained hashes
 * (by inode, and by where the name lives, for unlink and rename), aged on a doubly linked
 * list so that the oldest goes first and in constant time.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include "top_name_table.h"

struct name_table {
	struct name_entry *e;
	int n, max, held; /* slots used (some freed again), their limit, names held */
	size_t bytes, max_bytes;
	int *by_ino, *by_where; /* heads of the chains, nbuckets each */
	unsigned nbuckets;
	int oldest, newest, free_list; /* free entries chain through next_ino */
	unsigned long long dropped;
	unsigned now;
};

void name_table_clock(struct name_table *t, unsigned now)
{
	t->now = now;
}

uint64_t name_hash(uint64_t h, const void *bytes, size_t n)
{
	const unsigned char *p = bytes;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static unsigned ino_bucket(const struct name_table *t, unsigned long long ino)
{
	return (unsigned)((ino * 0x9e3779b97f4a7c15ull) >> 32) & (t->nbuckets - 1);
}

static unsigned where_bucket(const struct name_table *t, uint64_t where)
{
	return (unsigned)(where ^ where >> 32) & (t->nbuckets - 1);
}

struct name_table *name_table_new(int max_entries, size_t max_bytes)
{
	struct name_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->max = max_entries > 0 ? max_entries : NAME_TABLE_MAX_ENTRIES;
	t->max_bytes = max_bytes ? max_bytes : NAME_TABLE_MAX_BYTES;
	for (t->nbuckets = 16; t->nbuckets < (unsigned)t->max; t->nbuckets *= 2)
		;
	t->e = calloc((size_t)t->max, sizeof(*t->e));
	t->by_ino = malloc(t->nbuckets * sizeof(int));
	t->by_where = malloc(t->nbuckets * sizeof(int));
	if (!t->e || !t->by_ino || !t->by_where) {
		name_table_free(t);
		return NULL;
	}
	memset(t->by_ino, 0xff, t->nbuckets * sizeof(int));
	memset(t->by_where, 0xff, t->nbuckets * sizeof(int));
	t->oldest = t->newest = t->free_list = -1;
	return t;
}

void name_table_free(struct name_table *t)
{
	if (!t)
		return;
	for (int i = 0; t->e && i < t->n; i++)
		free(t->e[i].path);
	free(t->e);
	free(t->by_ino);
	free(t->by_where);
	free(t);
}

/* Take entry i off a chain whose head is *head, linked through the field at `off`. */
static void unchain(struct name_table *t, int *head, int i, size_t off)
{
	for (int *at = head; *at >= 0; at = (int *)((char *)&t->e[*at] + off))
		if (*at == i) {
			*at = *(int *)((char *)&t->e[i] + off);
			return;
		}
}

static void unage(struct name_table *t, int i)
{
	struct name_entry *e = &t->e[i];

	if (e->older >= 0)
		t->e[e->older].newer = e->newer;
	else
		t->oldest = e->newer;
	if (e->newer >= 0)
		t->e[e->newer].older = e->older;
	else
		t->newest = e->older;
}

static void age_newest(struct name_table *t, int i)
{
	t->e[i].older = t->newest;
	t->e[i].newer = -1;
	if (t->newest >= 0)
		t->e[t->newest].newer = i;
	else
		t->oldest = i;
	t->newest = i;
}

static void drop(struct name_table *t, int i)
{
	struct name_entry *e = &t->e[i];

	unage(t, i);
	unchain(t, &t->by_ino[ino_bucket(t, e->ino)], i, offsetof(struct name_entry, next_ino));
	unchain(t, &t->by_where[where_bucket(t, e->where)], i,
		offsetof(struct name_entry, next_where));
	t->bytes -= strlen(e->path) + 1;
	free(e->path);
	e->path = NULL;
	e->next_ino = t->free_list;
	t->free_list = i;
	t->held--;
}

static struct name_entry *find_exact(const struct name_table *t, dev_t dev,
				     unsigned long long ino)
{
	for (int i = t->by_ino[ino_bucket(t, ino)]; i >= 0; i = t->e[i].next_ino)
		if (t->e[i].ino == ino && t->e[i].dev == dev)
			return &t->e[i];
	return NULL;
}

const struct name_entry *name_table_of(const struct name_table *t, dev_t dev,
				       unsigned long long ino)
{
	return find_exact(t, dev, ino);
}

int name_table_set(struct name_table *t, dev_t dev, dev_t disk, unsigned long long ino,
		   uint64_t where, const char *path, pid_t writer)
{
	struct name_entry *e = find_exact(t, dev, ino);
	size_t len = strlen(path) + 1;
	char *copy;

	/* a deleted name written again is a new file (its inode number reused): kept apart */
	if (e && e->state != NAME_DELETED && e->where == where && !strcmp(e->path, path)) {
		e->state = NAME_LIVE;
		e->writer = writer;
		unage(t, (int)(e - t->e));
		age_newest(t, (int)(e - t->e));
		return 0;
	}
	copy = malloc(len);
	if (!copy)
		return -1;
	memcpy(copy, path, len);
	/*
	 * Another name of a live inode replaces its name; a gone one's stays beside the new:
	 * the inode number was reused, and the rows of the old file's writers keep its name.
	 */
	if (e && e->state == NAME_LIVE)
		drop(t, (int)(e - t->e));
	while (t->oldest >= 0 &&
	       ((t->n >= t->max && t->free_list < 0) || t->bytes + len > t->max_bytes)) {
		drop(t, t->oldest);
		t->dropped++;
	}
	int i;

	if (t->free_list >= 0) {
		i = t->free_list;
		t->free_list = t->e[i].next_ino;
	} else {
		i = t->n++;
	}
	e = &t->e[i];
	*e = (struct name_entry){ .dev = dev, .disk = disk, .ino = ino, .where = where,
				  .path = copy, .writer = writer,
				  .heard = t->now };
	t->bytes += len;
	t->held++;
	e->next_ino = t->by_ino[ino_bucket(t, ino)];
	t->by_ino[ino_bucket(t, ino)] = i;
	e->next_where = t->by_where[where_bucket(t, where)];
	t->by_where[where_bucket(t, where)] = i;
	age_newest(t, i);
	return 0;
}

void name_table_gone(struct name_table *t, uint64_t where, enum name_state state, pid_t by)
{
	for (int i = t->by_where[where_bucket(t, where)]; i >= 0; i = t->e[i].next_where)
		if (t->e[i].where == where && t->e[i].path && t->e[i].state == NAME_LIVE) {
			t->e[i].state = state;
			t->e[i].gone_by = by;
		}
}

bool name_table_heard_again(struct name_table *t, uint64_t where, dev_t dev,
			    unsigned long long ino, pid_t writer)
{
	for (int i = t->by_where[where_bucket(t, where)]; i >= 0; i = t->e[i].next_where) {
		struct name_entry *e = &t->e[i];

		if (e->where == where && e->ino == ino && e->dev == dev && e->path &&
		    e->state != NAME_DELETED) {
			e->state = NAME_LIVE;
			e->writer = writer;
			unage(t, i);
			age_newest(t, i);
			return true;
		}
	}
	return false;
}

int name_table_move(struct name_table *t, uint64_t from, unsigned long long ino,
		    uint64_t to, const char *path, pid_t by)
{
	struct name_entry *e = NULL;
	size_t len = strlen(path) + 1;
	char *copy;

	/* the file renamed over, if any, is unlinked by it */
	for (int i = t->by_where[where_bucket(t, to)]; i >= 0; i = t->e[i].next_where)
		if (t->e[i].where == to && t->e[i].path && t->e[i].ino != ino &&
		    t->e[i].state != NAME_DELETED) {
			t->e[i].state = NAME_DELETED;
			t->e[i].gone_by = by;
		}
	for (int i = t->by_where[where_bucket(t, from)]; i >= 0 && !e; i = t->e[i].next_where)
		if (t->e[i].where == from && t->e[i].path && (!ino || t->e[i].ino == ino))
			e = &t->e[i];
	if (!e)
		return 1;
	copy = malloc(len);
	if (!copy)
		return -1;
	memcpy(copy, path, len);
	int i = (int)(e - t->e);

	unchain(t, &t->by_where[where_bucket(t, e->where)], i,
		offsetof(struct name_entry, next_where));
	t->bytes += len - (strlen(e->path) + 1);
	free(e->path);
	e->path = copy;
	e->where = to;
	e->state = NAME_RENAMED;
	e->next_where = t->by_where[where_bucket(t, to)];
	t->by_where[where_bucket(t, to)] = i;
	unage(t, i);
	age_newest(t, i);
	return 0;
}

const struct name_entry *name_table_find(const struct name_table *t, bool have_bdi, dev_t bdi,
					 unsigned long long ino, pid_t pid, unsigned since)
{
	const struct name_entry *other = NULL;

	/* the chain is newest first: entries go in at its head */
	for (int i = t->by_ino[ino_bucket(t, ino)]; i >= 0; i = t->e[i].next_ino) {
		const struct name_entry *e = &t->e[i];

		if (e->ino != ino || (have_bdi ? e->dev != bdi && e->disk != bdi : major(e->dev)))
			continue;
		if (e->writer == pid || (e->state == NAME_DELETED && pid && e->gone_by == pid))
			return e;
		if (!other && e->state != NAME_DELETED && e->heard <= since)
			other = e;
	}
	return other;
}

unsigned long long name_table_dropped(const struct name_table *t)
{
	return t->dropped;
}

int name_table_count(const struct name_table *t)
{
	return t->held;
}
