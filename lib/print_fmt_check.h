/* SPDX-License-Identifier: MIT */
/*
 * print_fmt_check.h - whether libtraceevent can evaluate a print fmt (print_fmt_check.c): an
 * event it cannot render stays off. Used by the runtime (registry) and `tpoint list --check`.
 * Pure, libc only.
 */
#ifndef TPOINT_PRINT_FMT_CHECK_H
#define TPOINT_PRINT_FMT_CHECK_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

/*
 * 0 if libtraceevent 1.7.1 can render print_fmt, else -EINVAL with a one-line reason naming
 * the construct in why (docs/TRACEDAT-FORMAT.md): %c, float conversions, %px, %pK, '^',
 * '->' other than REC->field, sizeof of a typedef, calls of functions libtraceevent does not
 * know, and a print fmt that does not start with a string literal. Run it on the text after
 * enum substitution. Runtime-only problems (signed comparisons, ...) are not detected.
 */
int tpoint_print_fmt_check(const char *print_fmt, char *why, size_t whylen);

#pragma GCC visibility pop

#endif /* TPOINT_PRINT_FMT_CHECK_H */
