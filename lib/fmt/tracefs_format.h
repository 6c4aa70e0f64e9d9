/* SPDX-License-Identifier: MIT */
/*
 * tracefs_format - the text of a tracefs "format" file, read in one place:
 *
 *	name: NAME
 *	ID: N
 *	format:
 *		field:unsigned short common_type;	offset:0;	size:2;	signed:0;
 *		...
 *		field:__data_loc char[] path;	offset:12;	size:4;	signed:0;
 *
 *	print fmt: "...", REC->x
 *
 * The kernel writes it (events/SYS/NAME/format, header_page), the library writes it
 * (lib/format.c), trace.dat files carry it, and the tool reads it: a strict reader of
 * trace.dat (tools/tpoint/tracedat_read.c) on untrusted bytes, the selection's filter
 * compiler (select.c) and `tpoint top` (top_dirty.c) on the kernel's and programs' own.
 * Every function takes a length and reads no byte past it, nor needs a NUL: the text may be
 * a slice of a file. Only libc.
 */
#ifndef TPOINT_FMT_TRACEFS_FORMAT_H
#define TPOINT_FMT_TRACEFS_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

/* One "field:" line. The pointers are into the text; nothing is NUL-terminated. */
struct tracefs_field {
	const char *type;     /* "unsigned long", "char" ("__data_loc " and a "[]" left out) */
	size_t type_len;
	const char *name;     /* the identifier ("comm" of "char comm[16]") */
	size_t name_len;
	bool dynamic;         /* __data_loc: a u32 (length << 16 | offset) */
	bool array;           /* NAME[N] */
	unsigned long offset, size;
	bool is_signed;
};

/*
 * The next "field:" line of text[*pos, len) with its offset, size and signed (a line that
 * lacks one of them, or whose declaration has no type or no name, is skipped): 1 and
 * *f filled, or 0 when no more. *pos moves past the line.
 */
int tp_tracefs_next_field(const char *text, size_t len, size_t *pos, struct tracefs_field *f);

/*
 * How a filter or a histogram can read a field (the values of lib/filter.h's enum
 * filter_field_kind): 0 an integer of 1, 2, 4 or 8 bytes, 1 a char[N] string, 2 a
 * __data_loc char[] string; -1 anything else (structs, other arrays), which neither reads.
 */
int tp_tracefs_field_kind(const struct tracefs_field *f);

/*
 * The offset and size of field `name` (NUL-terminated), found as the last word before the
 * first ';' of a line (header_page's lines too), digits only: 0, or -1 when absent or not
 * readable. What the strict trace.dat reader checks common_type and the pages' layout with.
 */
int tp_tracefs_field_layout(const char *text, size_t len, const char *name, unsigned long *offset,
			 unsigned long *size);

/* Is name (name_len bytes) the name of one of the text's "field:" lines? */
bool tp_tracefs_has_field(const char *text, size_t len, const char *name, size_t name_len);

/* "name: NAME\nID: N\n" at the start of a format text. */
enum tracefs_header_error {
	TRACEFS_HEADER_OK = 0,
	TRACEFS_HEADER_NO_NAME,  /* does not start with "name: " */
	TRACEFS_HEADER_BAD_NAME, /* no newline after the name, an empty name, or over 255 bytes */
	TRACEFS_HEADER_NO_ID,    /* no "ID: " line after the name */
	TRACEFS_HEADER_BAD_ID,   /* not 1..6 digits ending the line, or over 65535 */
};
struct tracefs_header {
	const char *name; /* into the text, name_len bytes */
	size_t name_len;
	unsigned int id;
};
/* Reads the header; on TRACEFS_HEADER_NO_ID and _BAD_ID the name is already set. */
enum tracefs_header_error tp_tracefs_parse_header(const char *text, size_t len,
					       struct tracefs_header *h);

/*
 * Whether every REC->name in the "print fmt:" line names one of the format's fields:
 * libtraceevent 1.7.1 crashes on __print_flags(REC->missing, ...) and prints 0 for
 * REC->missing elsewhere. 0 (also when there is no print fmt), or -1 with the reason in why.
 */
int tp_tracefs_check_print_fields(const char *text, size_t len, char *why, size_t whylen);

#endif
