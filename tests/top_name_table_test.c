// SPDX-License-Identifier: MIT
/*
 * top_name_table_test - the bounded table of inode names of tpoint top
 * (tools/tpoint/top_name_table.c) on its own: a name found by (disk, inode) and only there,
 * renamed and unlinked names marked, a name replaced in place, and the bounds: beyond them
 * the oldest names go first, are counted, and the newest stay. tests/top_names.sh checks it
 * end to end with the kernel's events.
 *
 * Exit 0 when every check passes.
 */
#include "testutil.h"
#include <sys/sysmacros.h>
#include "top_name_table.h"

static const char *found(const struct name_table *t, int have, dev_t bdi, unsigned long long ino)
{
	const struct name_entry *e = name_table_find(t, have, bdi, ino, 0, ~0u);

	return e ? e->path : "(none)";
}

static uint64_t where(const char *dir, const char *name)
{
	return name_hash(name_hash(NAME_HASH_START, dir, strlen(dir) + 1), name, strlen(name));
}

int main(void)
{
	struct name_table *t = name_table_new(4, 0);
	dev_t part = makedev(8, 1), disk = makedev(8, 0), shm = makedev(0, 26);

	CHECK(t != NULL, "a table of 4");
	name_table_set(t, part, disk, 12, where("d", "a"), "/d/a", 1);
	name_table_set(t, shm, shm, 12, where("s", "a"), "/dev/shm/a", 1);
	CHECK(!strcmp(found(t, 1, disk, 12), "/d/a"), "found by the partition's disk");
	CHECK(!strcmp(found(t, 1, part, 12), "/d/a"), "found by the partition itself");
	CHECK(!strcmp(found(t, 0, 0, 12), "/dev/shm/a"), "without a device: the tmpfs file");
	CHECK(!strcmp(found(t, 1, makedev(9, 0), 12), "(none)"), "another disk: no name");
	CHECK(!strcmp(found(t, 1, disk, 13), "(none)"), "another inode: no name");

	/* two tmpfs, one inode number: the writer's, else the newest */
	name_table_set(t, makedev(0, 27), makedev(0, 27), 12, where("t", "a"), "/tmp/t/a", 7);
	CHECK(!strcmp(name_table_find(t, 0, 0, 12, 1, ~0u)->path, "/dev/shm/a"), "the writer's tmpfs");
	CHECK(!strcmp(name_table_find(t, 0, 0, 12, 7, ~0u)->path, "/tmp/t/a"), "the other's tmpfs");
	CHECK(!strcmp(name_table_find(t, 0, 0, 12, 9, ~0u)->path, "/tmp/t/a"), "no writer's: the newest");
	name_table_gone(t, where("d", "a"), NAME_DELETED, 3);
	CHECK(name_table_find(t, 1, disk, 12, 1, ~0u)->state == NAME_DELETED, "unlinked: marked deleted");
	name_table_set(t, part, disk, 12, where("d", "b"), "/d/b", 1);
	CHECK(!strcmp(found(t, 1, disk, 12), "/d/b") && name_table_find(t, 1, disk, 12, 0, ~0u)->state ==
	      NAME_LIVE, "named again: the new name, live");
	name_table_gone(t, where("d", "a"), NAME_RENAMED, 3);
	CHECK(name_table_find(t, 1, disk, 12, 0, ~0u)->state == NAME_LIVE, "the old name's going: no effect");
	name_table_gone(t, where("d", "b"), NAME_RENAMED, 3);
	CHECK(name_table_find(t, 1, disk, 12, 1, ~0u)->state == NAME_RENAMED, "renamed away: marked");
	CHECK(name_table_count(t) == 4 && name_table_dropped(t) == 0,
	      "4 held (the unlinked name too), none dropped");
	/* the renamed file's inode number reused: both names held, each for its writer */
	name_table_set(t, part, disk, 12, where("d", "c"), "/d/c", 5);
	CHECK(!name_table_find(t, 1, disk, 12, 9, ~0u) || strcmp(name_table_find(t, 1, disk, 12, 9, ~0u)->path, "/d/b"),
	      "an unlinked or renamed name: its writer's only");
	CHECK(!strcmp(name_table_find(t, 1, disk, 12, 1, ~0u)->path, "/d/b") &&
	      !strcmp(name_table_find(t, 1, disk, 12, 5, ~0u)->path, "/d/c") &&
	      !strcmp(name_table_find(t, 1, disk, 12, 9, ~0u)->path, "/d/c"),
	      "an inode number reused: the old name for its writer, else the new");

	for (unsigned long long ino = 100; ino < 104; ino++) {
		char path[32];

		snprintf(path, sizeof(path), "/d/%llu", ino);
		name_table_set(t, part, disk, ino, where("d", path), path, 1);
	}
	CHECK(name_table_count(t) == 4 && name_table_dropped(t) == 5, "9 names in 4: 5 dropped");
	CHECK(!strcmp(found(t, 1, disk, 12), "(none)") && !strcmp(found(t, 0, 0, 12), "(none)"),
	      "the oldest went first");
	CHECK(!strcmp(found(t, 1, disk, 100), "/d/100") && !strcmp(found(t, 1, disk, 103), "/d/103"),
	      "the newest stay");
	/* heard of again: the newest, so 101 goes next */
	name_table_set(t, part, disk, 100, where("d", "/d/100"), "/d/100", 1);
	name_table_set(t, part, disk, 104, where("d", "/d/104"), "/d/104", 1);
	CHECK(!strcmp(found(t, 1, disk, 100), "/d/100") && !strcmp(found(t, 1, disk, 101), "(none)"),
	      "a name heard of again is kept over an older one");
	/* a name heard after a row's first event is not another process's */
	name_table_clock(t, 5);
	name_table_set(t, part, disk, 200, where("d", "late"), "/d/late", 3);
	CHECK(!name_table_find(t, 1, disk, 200, 4, 4) && name_table_find(t, 1, disk, 200, 4, 5) &&
	      name_table_find(t, 1, disk, 200, 3, 0), "heard since: the writer's only");
	name_table_free(t);

	/* renames (FAN_RENAME) and a rename over a file; names over time */
	t = name_table_new(16, 0);
	name_table_clock(t, 1);
	name_table_set(t, part, disk, 30, where("d", "s.txt"), "/d/s.txt", 20);
	name_table_set(t, part, disk, 31, where("d", "tmp1"), "/d/tmp1", 21);
	CHECK(name_table_of(t, part, 31) && !strcmp(name_table_of(t, part, 31)->path, "/d/tmp1") &&
	      !name_table_of(t, part, 32), "the name of a file held, none of another");
	name_table_clock(t, 2);
	CHECK(name_table_move(t, where("d", "tmp1"), 31, where("d", "s.txt"), "/d/s.txt", 22) == 0,
	      "moved");
	const struct name_entry *e = name_table_find(t, 1, disk, 31, 21, 2);

	CHECK(e && !strcmp(e->path, "/d/s.txt") && e->state == NAME_RENAMED,
	      "renamed: the new name, marked, for its writer");
	e = name_table_find(t, 1, disk, 31, 99, 1);
	CHECK(e && e->state == NAME_RENAMED, "renamed: the new name for another process too");
	e = name_table_find(t, 1, disk, 30, 20, ~0u);
	CHECK(e && !strcmp(e->path, "/d/s.txt") && e->state == NAME_DELETED,
	      "the file renamed over: deleted");
	CHECK(name_table_find(t, 1, disk, 30, 22, 0) && !name_table_find(t, 1, disk, 30, 99, 2),
	      "a deleted name: the unlinker's too (it dirtied it), no other process's");
	name_table_set(t, part, disk, 30, where("d", "s.txt"), "/d/s.txt", 23);
	e = name_table_find(t, 1, disk, 30, 20, ~0u);
	CHECK(e && e->state == NAME_DELETED && name_table_find(t, 1, disk, 30, 23, ~0u)->state ==
	      NAME_LIVE, "a deleted name written again: a new file, the old one's writer keeps it");
	CHECK(name_table_heard_again(t, where("d", "s.txt"), part, 30, 24) &&
	      name_table_find(t, 1, disk, 30, 24, ~0u)->state == NAME_LIVE &&
	      !name_table_heard_again(t, where("d", "s.txt"), part, 77, 24) &&
	      !name_table_heard_again(t, where("d", "other"), part, 30, 24),
	      "heard again: the same file under the same name only");
	CHECK(name_table_move(t, where("d", "nothing"), 0, where("d", "y"), "/d/y", 1) == 1,
	      "moving a name not held: 1");
	name_table_free(t);

	/* the byte bound: names of 100 bytes in 350 bytes */
	t = name_table_new(100, 350);
	for (unsigned long long ino = 1; ino <= 10; ino++) {
		char path[100];

		memset(path, 'x', sizeof(path) - 1);
		path[99] = 0;
		path[0] = (char)('a' + ino);
		name_table_set(t, part, disk, ino, ino, path, 1);
	}
	CHECK(name_table_count(t) == 3 && name_table_dropped(t) == 7, "the byte bound: 3 held");
	CHECK(name_table_find(t, 1, disk, 10, 0, ~0u) && !name_table_find(t, 1, disk, 7, 0, ~0u),
	      "the byte bound: the newest held");
	name_table_free(t);

	tu_note("%d checks", tu_checks);
	return tu_finish();
}
