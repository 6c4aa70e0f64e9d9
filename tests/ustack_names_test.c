// SPDX-License-Identifier: MIT
/*
 * ustack_names_test - the naming of user stack addresses (lib/fmt/ustack_names.c) on
 * its own: this program's own mappings and symbols (it is built with them), an address in
 * no mapping, a mapping of a file that is no ELF file, the last mapping added winning,
 * another process's mappings kept apart, and paths that are never opened.
 *
 * Exit 0 when every check passes; each check prints one line.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt/ustack_names.h"

static int checks, failures;

static void check(bool ok, const char *what, const char *got)
{
	checks++;
	if (!ok)
		failures++;
	printf("%s: %s (%s)\n", ok ? "ok" : "FAIL", what, got);
}

/* A function with a symbol of its own, not inlined. */
__attribute__((noinline)) int named_function(int x)
{
	return x * 3 + 1;
}

/* This program's executable mappings, as tpoint:user_stack_map records them. */
static int add_own_maps(struct ustack_names *s, uint32_t tgid)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, off;
		char perms[8], path[400] = "";

		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %399s", &lo, &hi, perms, &off, path) >= 4 &&
		    perms[2] == 'x' && path[0] == '/' &&
		    tp_ustack_names_add_map(s, tgid, lo, hi, off, path) == 0)
			n++;
	}
	fclose(f);
	return n;
}

int main(void)
{
	struct ustack_names *s = tp_ustack_names_new();
	char name[512], want[64];
	uint32_t me = (uint32_t)getpid();

	check(s && add_own_maps(s, me) > 0, "this program's executable mappings added", "");
	tp_ustack_names_name(s, me, (uintptr_t)named_function + 1, name, sizeof(name));
	check(!strcmp(name, "named_function+0x1 [ustack_names_test]"), "a function of the program, by name",
	      name);
	/* Past its end (it is a few bytes long), an address is in no symbol of the file. */
	tp_ustack_names_name(s, me, (uintptr_t)named_function + 64, name, sizeof(name));
	check(!strncmp(name, "[ustack_names_test+0x", 21) || strstr(name, "named_function") == NULL,
	      "past a function's size: not named after it", name);
	tp_ustack_names_name(s, me, (uintptr_t)main, name, sizeof(name));
	check(!strcmp(name, "main+0x0 [ustack_names_test]"), "main, at its start", name);
	/* (libc's, or a sanitizer's interceptor of it: a shared library either way) */
	tp_ustack_names_name(s, me, (uintptr_t)&strlen, name, sizeof(name));
	check(strstr(name, ".so") != NULL, "a function of a shared library, in that library", name);
	tp_ustack_names_name(s, me + 1, (uintptr_t)named_function, name, sizeof(name));
	snprintf(want, sizeof(want), "0x%" PRIxPTR, (uintptr_t)named_function);
	check(!strcmp(name, want), "another process's address: no mapping of its own", name);
	tp_ustack_names_name(s, me, 0x1000, name, sizeof(name));
	check(!strcmp(name, "0x1000"), "an address in no mapping", name);

	/* A file that is no ELF file: named by the file and the offset in it. */
	FILE *t = fopen("not-elf.bin", "w");

	if (t) {
		fputs("not an ELF file\n", t);
		fclose(t);
	}
	char here[400], path[512];

	if (!getcwd(here, sizeof(here)))
		strcpy(here, ".");
	snprintf(path, sizeof(path), "%s/not-elf.bin", here);
	tp_ustack_names_add_map(s, 77, 0x10000, 0x20000, 0x3000, path);
	tp_ustack_names_name(s, 77, 0x10010, name, sizeof(name));
	check(!strcmp(name, "[not-elf.bin+0x3010]"), "no ELF file: the file and the offset", name);

	/* Mapped again elsewhere (a library loaded anew): the last one added names it. */
	tp_ustack_names_add_map(s, 77, 0x10000, 0x20000, 0x0, "/nonexistent/other.so");
	tp_ustack_names_name(s, 77, 0x10010, name, sizeof(name));
	check(!strcmp(name, "[other.so+0x10]"), "the last mapping added wins", name);
	tp_ustack_names_add_map(s, 77, 0x10000, 0x20000, 0x3000, path); /* known: not added again */
	tp_ustack_names_name(s, 77, 0x10010, name, sizeof(name));
	check(!strcmp(name, "[other.so+0x10]"), "a mapping added again changes nothing", name);

	/* Never opened: device and kernel files, which a hostile file may name. */
	tp_ustack_names_add_map(s, 78, 0x10000, 0x20000, 0, "/dev/zero");
	tp_ustack_names_add_map(s, 78, 0x30000, 0x40000, 0, "/proc/self/mem");
	tp_ustack_names_name(s, 78, 0x10008, name, sizeof(name));
	check(!strcmp(name, "[zero+0x8]"), "/dev/zero is not read", name);
	tp_ustack_names_name(s, 78, 0x30008, name, sizeof(name));
	check(!strcmp(name, "[mem+0x8]"), "/proc/self/mem is not read", name);

	tp_ustack_names_free(s);
	unlink("not-elf.bin");
	printf("%d checks, %d failed\n", checks, failures);
	return failures != 0;
}
