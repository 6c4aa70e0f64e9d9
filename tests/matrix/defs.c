/* SPDX-License-Identifier: MIT */
/*
 * The build matrix's defining file (CREATE_TRACE_POINTS), compiled as C or as C++: the other
 * file, main.c, calls the events it defines, compiled in either language too.
 */
#define CREATE_TRACE_POINTS
#include <trace/events/tpt_matrix.h>
