/* SPDX-License-Identifier: MIT */
/*
 * filter_program.h - the parts of a compiled filter (struct filter, filter_eval.h) that only the
 * compiler (filter.c, filter_parse.c) and the evaluator (filter_eval.c) read: how a string
 * pattern is laid out.
 */
#ifndef TPOINT_FILTER_PROGRAM_H
#define TPOINT_FILTER_PROGRAM_H

#include <stdint.h>

/* A pattern element is a byte (0..255), any byte, or class number (e - ELEM_CLASS). */
#define ELEM_ANY 256u
#define ELEM_CLASS 257u

/* A run of pattern elements that matches exactly len bytes. */
struct fseg {
	uint32_t elem;
	uint32_t len;
};

#endif
