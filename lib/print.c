// SPDX-License-Identifier: MIT
/* tpoint_printf(): formatted messages as records of the library's own event, tpoint:print. */
#include <stdarg.h>
#include <stdio.h>
#include <tpoint/tpoint.h>

#define CREATE_TRACE_POINTS
#include "print_event.h"

/* Longer messages are cut: a record must fit a page, and the message is built on the stack. */
#define PRINT_MAX 512

int tpoint_vprintf(const char *fmt, va_list ap)
{
	char msg[PRINT_MAX];
	int n;

	if (!trace_print_enabled())
		return 0;
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (n < 0)
		return n;
	trace_print(msg);
	return n < PRINT_MAX ? n : PRINT_MAX - 1;
}

int tpoint_print_enabled(void)
{
	return trace_print_enabled();
}

/* In parentheses: the name is also the macro of <tpoint/tpoint.h> that tests first. */
int (tpoint_printf)(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = tpoint_vprintf(fmt, ap);
	va_end(ap);
	return n;
}
