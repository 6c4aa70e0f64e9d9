/* SPDX-License-Identifier: MIT */
/*
 * Text another process chose (its name, its answers, its file names, the strings of its
 * records) as it may be printed: no terminal control sequence gets out.
 *
 * The escaped form: control bytes (C0 and DEL), C1 controls (raw 0x80-0x9f and U+0080-U+009F
 * in UTF-8, which a UTF-8 terminal obeys as ESC-sequences: U+009B is CSI) and bytes that
 * are not UTF-8 as \xHH, and '\' as \\, so that the escaped text says which it was. Valid
 * UTF-8 from U+00A0 up goes out as it is.
 *
 * Only a terminal needs it: piped output stays byte for byte what the process or the file
 * said (the tool's report is trace-cmd report's, byte for byte).
 */
#ifndef TPOINT_ESCAPE_H
#define TPOINT_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* s into out: escaped as above. Returns out; 4 * strlen(s) + 1 bytes never cut it. */
const char *text_escaped(const char *s, char *out, size_t len);

/* Whether f is a terminal, where text from others is shown escaped (asked once a stream). */
bool text_tty(FILE *f);

/*
 * s as f may show it: s itself when f is not a terminal, else text_escaped(s, buf, len).
 * For text that goes into a printf() of the tool's own words.
 */
const char *text_for(FILE *f, const char *s, char *buf, size_t len);

/* s on f: as it is when f is not a terminal, else escaped (however long). */
void text_put(FILE *f, const char *s);

/*
 * n bytes of s on f, escaped, however long; with lines, '\n' and '\t' go out as they are
 * (a rendered record, a format text: the tool's own line breaks are in them).
 */
void text_write_escaped(FILE *f, const char *s, size_t n, bool lines);

#endif
