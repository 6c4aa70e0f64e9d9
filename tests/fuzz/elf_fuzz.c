// SPDX-License-Identifier: MIT
/*
 * elf_fuzz - libFuzzer harness for the ELF reader of `tpoint list` (tools/tpoint/list.c: the
 * section headers, the tpoint_meta section, records of either byte order) and the format
 * builder and print-format checks behind it (lib/format.c). Built by tests/fuzz/run.sh.
 *
 * An input is a file `tpoint list` is pointed at: anything, a hostile binary included. It is
 * a memfd, opened by its /proc/self/fd/N name; each input is listed as `tpoint list FILE`,
 * `tpoint list --format FILE` and `tpoint list --check FILE` do, and read as
 * `tpoint record` reads a program's events (elf_events()). What is printed goes to
 * /dev/null, the tool's error messages are formatted and dropped.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tool.h"

#include "tool_stubs.h"

static int elf_fd;
static char elf_path[32];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	elf_fd = fuzz_input_file("elf", elf_path, sizeof(elf_path));
	return 0;
}

static void count_event(const char *system, const char *name, const char *refused, void *arg)
{
	/* Every string the reader gives must be a whole one. */
	*(size_t *)arg += strlen(system) + strlen(name) + strlen(refused);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const opts[] = { NULL, "--format", "--check" };
	size_t chars = 0;

	if (ftruncate(elf_fd, 0) || (size && pwrite(elf_fd, data, size, 0) != (ssize_t)size))
		abort();
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		char *argv[4];
		int argc = 0;

		argv[argc++] = (char *)"list";
		if (opts[i])
			argv[argc++] = (char *)opts[i];
		argv[argc++] = elf_path;
		argv[argc] = NULL;
		cmd_list(argc, argv);
	}
	fflush(stdout);
	if (elf_events(elf_path, count_event, &chars) < 0)
		abort(); /* -ENOMEM: the inputs are small */
	return 0;
}
