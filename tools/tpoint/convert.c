/* SPDX-License-Identifier: MIT */
/*
 * tpoint convert - trace.dat files into CTF (babeltrace2, Trace Compass) or JSON lines, or
 * into the other trace.dat version (convert_tracedat.c).
 *
 * The output is written under a temporary name beside it (".NAME.tmp-XXXXXX") and renamed
 * into place only when all of it was written and synced, so that a full disk, a damaged
 * input or an interrupted run never leaves a trace that looks complete. An output that
 * exists and is not empty is replaced only with --force, and then only if it holds nothing
 * but files (a CTF directory, or the file of an earlier run).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert.h"
#include "tool.h"

#define VERB "convert"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tpoint convert --to ctf|json -o OUT [--force] [FILE...]\n"
		"       tpoint convert --to v6|v7 [--compress[=zstd|zlib[:LEVEL]]] -o OUT [--force]\n"
		"                      [FILE]\n"
		"\n"
		"Convert trace.dat files (default trace.dat) for other readers:\n"
		"  --to ctf     a CTF 1.8 trace in the directory OUT, for babeltrace2 and\n"
		"               Trace Compass: one stream file per CPU and the metadata\n"
		"  --to json    JSON lines in the file OUT ('-': standard output), one object\n"
		"               per event, all files merged by time (keys in tpoint(1))\n"
		"  --to v6      trace.dat version 6, uncompressed (what every reader takes)\n"
		"  --to v7      trace.dat version 7, compressed: --compress=zstd (the default)\n"
		"               or zlib, with an optional :LEVEL\n"
		"  -o OUT       the output; it is written under a temporary name and renamed\n"
		"               when complete\n"
		"  --force      replace an OUT that exists and is not empty\n"
		"  -h, --help   this text\n"
		"\n"
		"Exit status: 0 converted, 1 a damaged input, an event not converted faithfully\n"
		"(named on stderr) or a write error, 2 usage error.\n");
}

/* Removes the files of a directory we made, then the directory. */
static void remove_tree(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		rmdir(path);
		return;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(fd, de->d_name, 0);
	closedir(d);
	rmdir(path);
}

/*
 * Whether the output may be written: 0 (*exists says whether something is to be replaced),
 * or -1 with the reason said.
 */
static int check_output(const char *out, bool dir, bool force, bool *exists)
{
	struct stat st;
	bool empty = true;

	*exists = false;
	if (lstat(out, &st)) {
		if (errno == ENOENT)
			return 0;
		tool_error(VERB, "%s: %s", out, strerror(errno));
		return -1;
	}
	*exists = true;
	if (dir && !S_ISDIR(st.st_mode)) {
		tool_error(VERB, "%s: exists and is not a directory; CTF is a directory", out);
		return -1;
	}
	if (!dir && !S_ISREG(st.st_mode)) {
		tool_error(VERB, "%s: exists and is not a regular file", out);
		return -1;
	}
	if (dir) {
		int fd = open(out, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *d = fd < 0 ? NULL : fdopendir(fd);
		struct dirent *de;
		bool subdir = false;

		if (!d) {
			tool_error(VERB, "%s: %s", out, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		while ((de = readdir(d))) {
			struct stat s;

			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			empty = false;
			if (fstatat(fd, de->d_name, &s, AT_SYMLINK_NOFOLLOW) || !S_ISREG(s.st_mode))
				subdir = true;
		}
		closedir(d);
		if (!empty && !force) {
			tool_error(VERB, "%s: exists and is not empty; --force replaces it", out);
			return -1;
		}
		if (!empty && subdir) {
			tool_error(VERB, "%s: holds more than files (a directory, a link); it is "
				   "not replaced, even with --force", out);
			return -1;
		}
	} else if (st.st_size && !force) {
		tool_error(VERB, "%s: exists and is not empty; --force replaces it", out);
		return -1;
	}
	return 0;
}

/* ".BASE.tmp-XXXXXX" (or .old-) beside path, in buf. */
static int side_name(const char *path, const char *what, char *buf, size_t len)
{
	char *copy1 = strdup(path), *copy2 = strdup(path);
	int n = -1;

	if (copy1 && copy2)
		n = snprintf(buf, len, "%s/.%s.%s-XXXXXX", dirname(copy1), basename(copy2), what);
	free(copy1);
	free(copy2);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static mode_t file_mode(mode_t mode)
{
	mode_t mask = umask(0);

	umask(mask);
	return mode & ~mask;
}

/* Puts tmp in out's place; the old out, if any, is removed after. */
static int commit(const char *tmp, const char *out, bool dir, bool exists)
{
	char old[4096];

	if (!exists || !dir) {
		if (rename(tmp, out)) {
			tool_error(VERB, "%s: %s", out, strerror(errno));
			return -1;
		}
		return 0;
	}
	/* a directory: swapped in one step, the old one then removed */
	if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, out, RENAME_EXCHANGE)) {
		remove_tree(tmp);
		return 0;
	}
	if (side_name(out, "old", old, sizeof(old)) || !mkdtemp(old) || rename(out, old) ||
	    rename(tmp, out)) {
		tool_error(VERB, "%s: %s", out, strerror(errno));
		return -1;
	}
	remove_tree(old);
	return 0;
}

static int convert_ctf(struct conv *cv, const char *out, bool force)
{
	char tmp[4096];
	bool exists;
	int fd, ret;

	if (check_output(out, true, force, &exists))
		return EXIT_FAIL;
	if (side_name(out, "tmp", tmp, sizeof(tmp)) || !mkdtemp(tmp)) {
		tool_error(VERB, "%s: cannot make a directory beside it: %s", out, strerror(errno));
		return EXIT_FAIL;
	}
	fd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		tool_error(VERB, "%s: %s", tmp, strerror(errno));
		rmdir(tmp);
		return EXIT_FAIL;
	}
	ret = ctf_write(cv, fd, out);
	if (!ret && (fchmod(fd, file_mode(0777)) || fsync(fd))) {
		tool_error(VERB, "%s: %s", out, strerror(errno));
		ret = -1;
	}
	close(fd);
	if (ret || commit(tmp, out, true, exists)) {
		remove_tree(tmp);
		return EXIT_FAIL;
	}
	return cv->problems ? EXIT_FAIL : EXIT_OK;
}

static int convert_json(struct conv *cv, const char *out, bool force)
{
	char tmp[4096];
	bool exists;
	FILE *f;
	int fd, ret;

	if (!strcmp(out, "-")) {
		cv->progress = false;
		return json_write(cv, stdout, "standard output") || cv->problems ? EXIT_FAIL :
										     EXIT_OK;
	}
	if (check_output(out, false, force, &exists))
		return EXIT_FAIL;
	if (side_name(out, "tmp", tmp, sizeof(tmp)) || (fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
		tool_error(VERB, "%s: cannot make a file beside it: %s", out, strerror(errno));
		return EXIT_FAIL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		tool_error(VERB, "%s: %s", out, strerror(errno));
		close(fd);
		unlink(tmp);
		return EXIT_FAIL;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	ret = json_write(cv, f, out);
	if (!ret && (fchmod(fd, file_mode(0666)) || fsync(fd))) {
		tool_error(VERB, "%s: %s", out, strerror(errno));
		ret = -1;
	}
	if (fclose(f) && !ret) {
		tool_error(VERB, "%s: writing: %s", out, strerror(errno));
		ret = -1;
	}
	if (ret || commit(tmp, out, false, exists)) {
		unlink(tmp);
		return EXIT_FAIL;
	}
	return cv->problems ? EXIT_FAIL : EXIT_OK;
}

int conv_write_file(const char *out, bool force, int (*fill)(int fd, const char *out, void *arg),
		    void *arg)
{
	char tmp[4096];
	bool exists;
	int fd, ret;

	if (check_output(out, false, force, &exists))
		return -1;
	if (side_name(out, "tmp", tmp, sizeof(tmp)) || (fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
		tool_error(VERB, "%s: cannot make a file beside it: %s", out, strerror(errno));
		return -1;
	}
	ret = fill(fd, out, arg);
	if (!ret && (fchmod(fd, file_mode(0666)) || fsync(fd))) {
		tool_error(VERB, "%s: %s", out, strerror(errno));
		ret = -1;
	}
	close(fd);
	if (ret || commit(tmp, out, false, exists)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

int cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "to", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "compress", optional_argument, NULL, 'z' },
		{ NULL, 0, NULL, 0 },
	};
	static char *default_file[] = { "trace.dat" };
	const char *to = NULL, *out = NULL, *compress = NULL;
	bool tracedat;
	bool force = false;
	char **files;
	size_t nr;
	struct conv cv;
	int opt, ret;

	optind = 1;
	opterr = 0;
	/* options after the files too: `tpoint convert FILE --to v7 -o OUT` */
	while ((opt = getopt_long(argc, argv, ":ht:o:f", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 't':
			to = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'f':
			force = true;
			break;
		case 'z':
			compress = optarg ? optarg : "";
			break;
		case ':':
			tool_error(VERB, "option '%s' needs a value", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			if (optopt)
				tool_error(VERB, "unknown option '-%c'; see 'tpoint convert --help'",
					   optopt);
			else
				tool_error(VERB, "unknown option '%s'; see 'tpoint convert --help'",
					   argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (!to) {
		tool_error(VERB, "--to is needed: ctf, json, v6 or v7");
		return EXIT_USAGE;
	}
	tracedat = !strcmp(to, "v6") || !strcmp(to, "v7");
	if (strcmp(to, "ctf") && strcmp(to, "json") && !tracedat) {
		tool_error(VERB, "--to %s: expected ctf, json, v6 or v7", to);
		return EXIT_USAGE;
	}
	if (compress && strcmp(to, "v7")) {
		tool_error(VERB, "--compress goes with --to v7 (got --to %s)", to);
		return EXIT_USAGE;
	}
	if (!out || !*out) {
		tool_error(VERB, "-o is needed: the %s to write", !strcmp(to, "ctf") ?
			   "directory" : "file ('-': standard output)");
		return EXIT_USAGE;
	}
	if (!strcmp(to, "ctf") && !strcmp(out, "-")) {
		tool_error(VERB, "-o -: CTF is a directory, not a stream");
		return EXIT_USAGE;
	}
	files = optind < argc ? argv + optind : default_file;
	nr = optind < argc ? (size_t)(argc - optind) : 1;
	if (tracedat) {
		if (nr > 1 || !strcmp(out, "-")) {
			tool_error(VERB, "--to %s: %s", to, nr > 1 ? "one input file at a time" :
				   "-o -: a trace.dat is written to a file");
			return EXIT_USAGE;
		}
		conv_catch_signals();
		return convert_tracedat(files[0], to, compress, out, force);
	}

	conv_catch_signals(); /* a stopped conversion removes what it wrote */
	if (conv_open(&cv, VERB, files, nr))
		return EXIT_FAIL;
	ret = !strcmp(to, "ctf") ? convert_ctf(&cv, out, force) : convert_json(&cv, out, force);
	conv_close(&cv);
	return ret;
}
