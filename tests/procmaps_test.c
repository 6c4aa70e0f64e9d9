// SPDX-License-Identifier: MIT
/*
 * procmaps_test - the reader of /proc/self/maps (lib/procmaps.c) on its own: lines as the
 * kernel writes them, lines that are not, and the walk of this process's own mappings
 * (its stack, its code, a mapping made for the test).
 *
 * Exit 0 when every check passes; each check prints one line.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "procmaps.h"

static int checks, failures;

static void check(bool ok, const char *what)
{
	checks++;
	if (!ok)
		failures++;
	printf("%s: %s\n", ok ? "ok" : "FAIL", what);
}

static bool parse(const char *line, struct tp_map *m)
{
	return tp_maps_parse_line(line, strlen(line), m);
}

struct find {
	uintptr_t addr;
	struct tp_map m;
	bool found;
	unsigned count;
};

static bool find_addr(void *ctx, const struct tp_map *m)
{
	struct find *f = ctx;

	f->count++;
	if (f->addr >= m->lo && f->addr < m->hi) {
		f->m = *m;
		f->found = true;
		return false;
	}
	return true;
}

static int stays_here;

int main(void)
{
	struct tp_map m;

	check(parse("55d0c2a1b000-55d0c2a1c000 r-xp 00001000 fe:01 1234   /usr/bin/prog", &m) &&
	      m.lo == 0x55d0c2a1b000 && m.hi == 0x55d0c2a1c000 && m.pgoff == 0x1000 &&
	      m.readable && m.executable && !strcmp(m.path, "/usr/bin/prog"),
	      "a file's code: range, offset, permissions, path");
	check(parse("7ffd1000-7ffd2000 rw-p 00000000 00:00 0                          [stack]",
		    &m) && !m.executable && !strcmp(m.path, "[stack]"), "the stack, by name");
	check(parse("7f0000000000-7f0000001000 ---p 00000000 00:00 0", &m) && !m.readable &&
	      m.path[0] == '\0', "a guard page: not readable, no path");
	check(parse("1000-2000 r-xp 0 08:01 5 /a path/with spaces (deleted)", &m) &&
	      !strcmp(m.path, "/a path/with spaces (deleted)"), "a path with spaces kept whole");
	check(!parse("", &m) && !parse("zz-10 r-xp 0 0:0 0", &m) && !parse("2000-1000 r-xp 0 0:0 0", &m) &&
	      !parse("1000-2000", &m) && !parse("1000 2000 r-xp 0 0:0 0", &m),
	      "lines that are not mappings are refused");
	check(!parse("11111111111111111-2 r-xp 0 0:0 0", &m), "an address of more than 64 bits");

	char longline[400];

	snprintf(longline, sizeof(longline), "1000-2000 r-xp 0 0:0 1 /%0300d", 0);
	check(parse(longline, &m) && m.path[0] == '\0', "a path too long is none, not cut");

	struct find f = { .addr = (uintptr_t)__builtin_frame_address(0) };

	check(tp_maps_each(find_addr, &f) == 0 && f.found && f.m.readable,
	      "the walk finds the mapping of this frame, readable");
	f = (struct find){ .addr = (uintptr_t)&main };
	check(tp_maps_each(find_addr, &f) == 0 && f.found && f.m.executable && f.m.path[0] == '/',
	      "the walk finds main() in an executable mapping of a file");
	f = (struct find){ .addr = (uintptr_t)&stays_here };
	check(tp_maps_each(find_addr, &f) == 0 && f.found && !f.m.executable,
	      "a variable is in a mapping that is not executable");

	/* Many mappings: more than one read of the file, lines cut between reads. */
	void *maps[300];
	for (int i = 0; i < 300; i++)
		maps[i] = mmap(NULL, 4096, i & 1 ? PROT_READ : PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	f = (struct find){ .addr = (uintptr_t)maps[0] }; /* made first: the highest */
	check(tp_maps_each(find_addr, &f) == 0 && f.found && f.count > 100,
	      "300 mappings more: the first one made is found after them, through several reads");
	f = (struct find){ .addr = 0 };
	check(tp_maps_each(find_addr, &f) == 0 && !f.found && f.count > 300,
	      "every line is read when nothing stops the walk");
	for (int i = 0; i < 300; i++)
		munmap(maps[i], 4096);

	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
