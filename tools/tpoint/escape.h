/* SPDX-License-Identifier: MIT */
/*
 * Text another process chose (its name, its answers, its file names) as it may be printed:
 * no terminal control sequence gets out.
 */
#ifndef TPOINT_ESCAPE_H
#define TPOINT_ESCAPE_H

#include <stddef.h>

/* s into out: control bytes, C1 controls and bad UTF-8 as \xHH, '\' as \\. Returns out. */
const char *text_escaped(const char *s, char *out, size_t len);

#endif
