// SPDX-License-Identifier: MIT
/*
 * outplace_test - an output written beside its target and put in place whole (lib/outplace.c)
 * on its own, with the directory walk it stands on (lib/ownfile.c): the side names, a file
 * and a directory committed (a directory there exchanged, its old files gone), discarded
 * sides leave nothing, each side has a name of its own, and a place whose directory
 * descriptor the program closed reaches the same directory again, or refuses one that
 * took its path.
 *
 * Exit 0 when every check passes; each failed check prints one line (tests/testutil.h).
 */
#include "testutil.h"
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "outplace.h"

static char top[PATH_MAX / 4]; /* the test's directory: room left for the names under it */

/* The names in directory `dir` (under top), in readdir's order, as one string. */
static const char *names(const char *dir, char *out, size_t len)
{
	char path[PATH_MAX];
	struct dirent *de;
	size_t at = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", top, dir);
	out[0] = '\0';
	d = opendir(path);
	if (!d)
		return "(no directory)";
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			at += (size_t)snprintf(out + at, len - at, "%s ", de->d_name);
	closedir(d);
	return out;
}

static void put(int dfd, const char *name, const char *text)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	REQUIRE(fd >= 0, "create %s: %s", name, strerror(errno));
	CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text), "write %s", name);
	close(fd);
}

static const char *get(const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return "(none)";
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* ".NAME.WHAT-" and six letters or digits */
static bool side_named(const char *side, const char *name, const char *what)
{
	char want[NAME_MAX + 1];
	size_t n = (size_t)snprintf(want, sizeof(want), ".%s.%s-", name, what);

	if (strncmp(side, want, n) || strlen(side) != n + 6)
		return false;
	for (size_t i = n; side[i]; i++)
		if (!((side[i] >= 'a' && side[i] <= 'z') || (side[i] >= 'A' && side[i] <= 'Z') ||
		      (side[i] >= '0' && side[i] <= '9')))
			return false;
	return true;
}

static void file_committed(void)
{
	char path[PATH_MAX], side[OUTPLACE_SIDE_MAX], buf[256], err[256];
	struct outplace pl;
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/f/out.dat", top);
	REQUIRE(!tp_outplace_open(&pl, path, err, sizeof(err)), "open %s: %s", path, err);
	CHECK(!strcmp(pl.name, "out.dat"), "the name: %s", pl.name);
	fd = tp_outplace_side(&pl, "tmp", false, 0600, side);
	REQUIRE(fd >= 0, "side: %s", strerror(-fd));
	CHECK(side_named(side, "out.dat", "tmp"), "the side's name: %s", side);
	CHECK(write(fd, "new", 3) == 3, "write the side");
	CHECK(fstat(fd, &st) == 0 && (st.st_mode & 0777) == 0600, "the mode asked: %o",
	      (unsigned)st.st_mode & 0777);
	close(fd);
	CHECK(!strcmp(get("f/out.dat", buf, sizeof(buf)), "old"), "before the commit: %s", buf);
	CHECK(tp_outplace_commit(&pl, side, false, true) == 0, "commit a file");
	CHECK(!strcmp(get("f/out.dat", buf, sizeof(buf)), "new"), "after: %s", buf);
	CHECK(!strcmp(names("f", buf, sizeof(buf)), "out.dat "), "nothing beside it: %s", buf);

	/* a side discarded: nothing left */
	fd = tp_outplace_side(&pl, "tmp", false, 0600, side);
	REQUIRE(fd >= 0, "side: %s", strerror(-fd));
	close(fd);
	tp_outplace_discard(&pl, side, false);
	CHECK(!strcmp(names("f", buf, sizeof(buf)), "out.dat "), "discarded, nothing left: %s",
	      buf);
	tp_outplace_close(&pl);
	CHECK(pl.dir.fd == -1, "closed");
	tu_note("a file: written as .out.dat.tmp-XXXXXX, renamed over out.dat, or discarded");
}

/* A side directory made, with one file in it. */
static void side_dir_with(struct outplace *pl, char *side, const char *file, const char *text)
{
	int ret = tp_outplace_side(pl, "tmp", true, 0700, side), dfd;

	REQUIRE(ret == 0, "side directory: %s", strerror(-ret));
	dfd = openat(pl->dir.fd, side, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	REQUIRE(dfd >= 0, "open the side");
	put(dfd, file, text);
	close(dfd);
}

static void dir_committed(void)
{
	char path[PATH_MAX], side[OUTPLACE_SIDE_MAX], buf[256];
	struct outplace pl;

	snprintf(path, sizeof(path), "%s/d/ctf", top);
	REQUIRE(!tp_outplace_open(&pl, path, NULL, 0), "open %s", path);
	/* none there yet */
	side_dir_with(&pl, side, "one", "first");
	CHECK(side_named(side, "ctf", "tmp"), "the side's name: %s", side);
	CHECK(tp_outplace_commit(&pl, side, true, false) == 0, "commit a new directory");
	CHECK(!strcmp(get("d/ctf/one", buf, sizeof(buf)), "first"), "in place: %s", buf);
	/* one there: exchanged, the old one's files removed with it */
	side_dir_with(&pl, side, "two", "second");
	CHECK(tp_outplace_commit(&pl, side, true, true) == 0, "commit over a directory");
	CHECK(!strcmp(names("d/ctf", buf, sizeof(buf)), "two "), "the new one's files: %s", buf);
	CHECK(!strcmp(names("d", buf, sizeof(buf)), "ctf "), "nothing beside it: %s", buf);
	/* a side directory with files, discarded */
	side_dir_with(&pl, side, "x", "x");
	tp_outplace_discard(&pl, side, true);
	CHECK(!strcmp(names("d", buf, sizeof(buf)), "ctf "), "discarded: %s", buf);
	tp_outplace_close(&pl);
	tu_note("a directory: made beside, renamed in or exchanged with the old one, the old one removed");
}

/* A side's name is new each time; one that would not fit NAME_MAX is refused, not cut. */
static void side_exclusive(void)
{
	char path[PATH_MAX], side[OUTPLACE_SIDE_MAX], name[NAME_MAX + 1];
	struct outplace pl;
	int fd;

	memset(name, 'n', 244);
	name[244] = '\0';
	snprintf(path, sizeof(path), "%s/x/%s", top, name);
	REQUIRE(!tp_outplace_open(&pl, path, NULL, 0), "open a long name");
	fd = tp_outplace_side(&pl, "tmp", false, 0600, side);
	CHECK(fd == -ENAMETOOLONG, "a side name past NAME_MAX: %d", fd);
	tp_outplace_close(&pl);

	/* twenty sides at once: twenty names */
	snprintf(path, sizeof(path), "%s/x/a", top);
	REQUIRE(!tp_outplace_open(&pl, path, NULL, 0), "open x/a");
	for (int i = 0; i < 20; i++) {
		fd = tp_outplace_side(&pl, "tmp", false, 0600, side);
		REQUIRE(fd >= 0, "side %d: %s", i, strerror(-fd));
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/x", top);
	DIR *d = opendir(path);
	int n = 0;

	for (struct dirent *de; d && (de = readdir(d));)
		n += side_named(de->d_name, "a", "tmp");
	if (d)
		closedir(d);
	CHECK(n == 20, "twenty distinct sides: %d", n);
	tp_outplace_close(&pl);
	tu_note("a side is made exclusively, under a name of its own each time");
}

/* The program closed the directory's descriptor: the same directory reached again, not another. */
static void dir_lost(void)
{
	char path[PATH_MAX], moved[PATH_MAX], side[OUTPLACE_SIDE_MAX], buf[256];
	struct outplace pl;
	int fd, kept;

	snprintf(path, sizeof(path), "%s/l/out", top);
	REQUIRE(!tp_outplace_open(&pl, path, NULL, 0), "open %s", path);
	kept = pl.dir.fd;
	close(kept);
	CHECK(tp_outplace_dir(&pl) >= 0, "the same directory reached again");
	fd = tp_outplace_side(&pl, "tmp", false, 0600, side);
	REQUIRE(fd >= 0, "side: %s", strerror(-fd));
	close(fd);
	CHECK(tp_outplace_commit(&pl, side, false, false) == 0, "committed there");
	CHECK(!strcmp(names("l", buf, sizeof(buf)), "out "), "in l: %s", buf);

	/* the directory renamed, another made at its path, our descriptor closed */
	snprintf(moved, sizeof(moved), "%s/l.moved", top);
	snprintf(path, sizeof(path), "%s/l", top);
	REQUIRE(!rename(path, moved), "rename l");
	REQUIRE(!mkdir(path, 0755), "mkdir l again");
	close(pl.dir.fd);
	CHECK(tp_outplace_dir(&pl) == -ESTALE, "another directory at the path is refused");
	CHECK(tp_outplace_side(&pl, "tmp", false, 0600, side) < 0, "no side made there");
	CHECK(!strcmp(names("l", buf, sizeof(buf)), ""), "nothing in the new l: %s", buf);
	tp_outplace_close(&pl);
	tu_note("a closed directory descriptor: reached again by its path, if it is the same directory");
}

int main(void)
{
	const char *base = getenv("TPOINT_TEST_TMP");
	char cmd[PATH_MAX + 16];
	int dfd;

	umask(022);
	snprintf(top, sizeof(top), "%s/outplace_test.XXXXXX", base && *base ? base : "/tmp");
	REQUIRE(mkdtemp(top), "mkdtemp %s: %s", top, strerror(errno));
	dfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	REQUIRE(dfd >= 0, "open %s", top);
	REQUIRE(!mkdirat(dfd, "f", 0755) && !mkdirat(dfd, "d", 0755) && !mkdirat(dfd, "x", 0755) &&
			!mkdirat(dfd, "l", 0755),
		"mkdir");
	put(dfd, "f/out.dat", "old");
	close(dfd);

	file_committed();
	dir_committed();
	side_exclusive();
	dir_lost();

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", top);
	return tu_finish();
}
