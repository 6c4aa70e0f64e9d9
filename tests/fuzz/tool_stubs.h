/* SPDX-License-Identifier: MIT */
/*
 * What the tool's main.c would give the harnesses that link parts of the tool (elf_fuzz,
 * tracedat_fuzz): its name, and error reporters that format each message, so that a bad
 * format or argument is still caught, and drop it.
 */
#ifndef TPOINT_FUZZ_TOOL_STUBS_H
#define TPOINT_FUZZ_TOOL_STUBS_H

#include <stdarg.h>
#include <stdio.h>

const char *tool_name = "tpoint";

void tool_error(const char *verb, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	(void)verb;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
}

void tool_error_lines(const char *verb, const char *prefix, const char *lines)
{
	(void)verb;
	(void)prefix;
	(void)lines;
}

#endif
