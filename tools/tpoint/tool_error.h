/* SPDX-License-Identifier: MIT */
/*
 * The tool's messages: "tpoint VERB: message\n" on stderr, the message escaped when stderr
 * is a terminal (it names what other processes and files said). tool_error() for what went
 * wrong, tool_warn() for a note the work goes on after; they print the same way, so a
 * message keeps its text whichever it is.
 */
#ifndef TPOINT_TOOL_ERROR_H
#define TPOINT_TOOL_ERROR_H

void tool_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tool_warn(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Each line of `lines` (may be NULL) as an error of its own, after `prefix`. */
void tool_error_lines(const char *verb, const char *prefix, const char *lines);

#endif
