/* SPDX-License-Identifier: MIT */
/*
 * What the tool's tool_error.c would give the harnesses that link parts of the tool (elf_fuzz,
 * tracedat_fuzz): its name, and error reporters that format each message, so that a bad
 * format or argument is still caught, and drop it.
 */
#ifndef TPOINT_FUZZ_TOOL_STUBS_H
#define TPOINT_FUZZ_TOOL_STUBS_H

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>


/* Formats the message (so that a bad format or argument is still caught) and drops it. */
static void format_and_drop(const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
}

void tool_error(const char *verb, const char *fmt, ...)
{
	va_list ap;

	(void)verb;
	va_start(ap, fmt);
	format_and_drop(fmt, ap);
	va_end(ap);
}

void tool_warn(const char *verb, const char *fmt, ...)
{
	va_list ap;

	(void)verb;
	va_start(ap, fmt);
	format_and_drop(fmt, ap);
	va_end(ap);
}

void tool_error_lines(const char *verb, const char *prefix, const char *lines)
{
	(void)verb;
	(void)prefix;
	(void)lines;
}

/*
 * The file each input is written to, a memfd named by `path` (/proc/self/fd/N) as a user
 * would name a file; the tool's output goes to /dev/null. Its descriptor.
 */
static int fuzz_input_file(const char *name, char *path, size_t len)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0 || null < 0 || dup2(null, STDOUT_FILENO) < 0)
		abort();
	close(null);
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
