/* SPDX-License-Identifier: MIT */
/*
 * tpoint/define_trace.h - included at the bottom of every trace header, outside its guard.
 *
 * It does nothing unless the including file defined CREATE_TRACE_POINTS. Then it re-reads the
 * trace header once per stage; each stage redefines TRACE_EVENT and friends to emit one kind
 * of code (see the comment at the top of each file in <tpoint/stages/>):
 *
 *	1_record.h     struct tpoint_raw_<class>: the record as it lies in the buffer
 *	2_offsets.h    struct tpoint_data_offsets_<class>: where the dynamic fields go
 *	3_count.h      the number of fields of each class
 *	4_meta.h       the "tpoint_meta" section records: fields, print format, condition
 *	5_size.h       the function that measures the dynamic fields
 *	6_hit.h        the descriptors and the out-of-line hit functions, each event's USDT
 *	               probe among them (<tpoint/usdt.h>)
 *	7_register.h   (not a re-read) the constructor that registers this object's events
 *
 * Where the header is found: TRACE_INCLUDE_PATH/TRACE_INCLUDE_FILE.h if TRACE_INCLUDE_PATH is
 * defined (looked up like "file.h"), else <trace/events/TRACE_INCLUDE_FILE.h>.
 * TRACE_INCLUDE_FILE defaults to TRACE_SYSTEM.
 */
#ifdef CREATE_TRACE_POINTS

/* Keep the header's own #include of this file from recursing. */
#undef CREATE_TRACE_POINTS

#include <stddef.h>
#include <tpoint/usdt.h>

#define TPOINT_STRINGIFY_(x) #x
#define TPOINT_STRINGIFY(x) TPOINT_STRINGIFY_(x)

#ifndef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE TRACE_SYSTEM
#endif

#ifndef TRACE_INCLUDE_PATH
#define TPOINT_TRACE_INCLUDE(file) <trace/events/file.h>
#else
#define TPOINT_TRACE_INCLUDE(file) TPOINT_STRINGIFY(TRACE_INCLUDE_PATH/file.h)
#endif
#define TRACE_INCLUDE(file) TPOINT_TRACE_INCLUDE(file)

#define TRACE_HEADER_MULTI_READ

/* Generated functions take the whole TP_PROTO and may use only part of it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
/* Each record ends in a flexible array member (__extension__ in C++), clang's C99 extension. */
#ifdef __clang__
#pragma GCC diagnostic ignored "-Wc99-extensions"
#endif

#include <tpoint/stages/0_reset.h>
#include <tpoint/stages/1_record.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)

#include <tpoint/stages/0_reset.h>
#include <tpoint/stages/2_offsets.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)

#include <tpoint/stages/0_reset.h>
#include <tpoint/stages/3_count.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)

#include <tpoint/stages/0_reset.h>
#include <tpoint/stages/4_meta.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)

#include <tpoint/stages/0_reset.h>
#include <tpoint/stages/5_size.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)

#include <tpoint/stages/0_reset.h>
#include <tpoint/stages/6_hit.h>
#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)

#include <tpoint/stages/7_register.h>

#pragma GCC diagnostic pop

#include <tpoint/stages/0_reset.h>

#undef TRACE_HEADER_MULTI_READ
#undef TRACE_INCLUDE
#undef TPOINT_TRACE_INCLUDE
#undef TRACE_INCLUDE_FILE
#undef TRACE_INCLUDE_PATH

/* The file may define the events of more trace headers. */
#define CREATE_TRACE_POINTS

#endif /* CREATE_TRACE_POINTS */
