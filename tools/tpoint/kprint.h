/* SPDX-License-Identifier: MIT */
/*
 * kprint - the kernel's text for the print helpers that libtraceevent 1.7.1 prints its own way.
 *
 * The kernel prints __print_array as "{0x1,0x2}" (trace_print_array_seq), a cpumask as a
 * bitmask: 32-bit hex words, most significant first (trace_print_bitmask_seq, "%*pb"), and
 * "%*pbl" as a list of set bits ("0-3,8"; lib/vsprintf.c bitmap_list_string). libtraceevent
 * 1.7.1 prints "1 2", a CPU list, and the pointer followed by "bl". These helpers are built in
 * to its parser (event-parse.c process_function() looks them up before any function a program
 * or plugin registers), so they cannot be replaced by registering a function of the same name.
 *
 * Instead the renderer rewrites the print fmt of a format before libtraceevent parses it:
 *	__print_array(...)		-> __tpoint_kernel_array(__print_array(...))
 *	__get_cpumask(f)		-> __get_bitmask(f)	(and the __rel_ forms)
 *	"%*pbl", W, P			-> "%s", __tpoint_bitmap_list(W, __get_bitmask(f))
 *	"%*pb", W, P			-> "%s", __tpoint_bitmap_hex(W, __get_bitmask(f))
 * where P is __get_dynamic_array(f) or a bitmask/cpumask getter of field f; and sizeof(int)
 * and sizeof(long long) (and their unsigned forms) become 4 and 8, the values libtraceevent
 * gives them, because its parser of those reads a token it has freed (1.7.1, fixed in 1.7.2). The functions
 * registered here take libtraceevent's own text of the inner helper (it reads the record, with
 * its byte order and bounds) and reprint it as the kernel does. The rewrite only touches the
 * copy given to libtraceevent: the file keeps the kernel's format text.
 */
#ifndef TPOINT_KPRINT_H
#define TPOINT_KPRINT_H

#include <stddef.h>
#include <event-parse.h>

/* Registers the __tpoint_* functions the rewritten formats call. 0, or -1. */
int kprint_register(struct tep_handle *tep);

/*
 * The format text `text` (`len` bytes, a tracefs "format" file) with its print fmt rewritten
 * as above, malloc'd and NUL-terminated, its length in *out_len; NULL when out of memory.
 * A text with nothing to rewrite, or that does not look like a format, comes back unchanged.
 */
char *kprint_rewrite(const char *text, size_t len, size_t *out_len);

#endif
