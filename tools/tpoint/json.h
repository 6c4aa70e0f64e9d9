/* SPDX-License-Identifier: MIT */
/*
 * The tool's one JSON string writer (json.c), for every --json: text from programs, files
 * and file names, whatever its bytes, as a JSON string that parses strictly in UTF-8.
 */
#ifndef TPOINT_JSON_H
#define TPOINT_JSON_H

/* s as a JSON string, quotes included, on stdout. */
void json_print_str(const char *s);

#endif
