/* SPDX-License-Identifier: MIT */
/*
 * Stage 1: the record of each event class, as it lies in the ring buffer. For
 *
 *	DECLARE_EVENT_CLASS(foo, ..., TP_STRUCT__entry(__field(u32, a) __string(s, src)
 *						       __array(char, c, 16)), ...)
 * it emits
 *	struct tpoint_raw_foo {
 *		uint64_t __tpoint_common;	common_type, common_flags, common_preempt_count,
 *						common_pid: the kernel's struct trace_entry
 *		u32 a;
 *		uint32_t __data_loc_s;		(length << 16) | offset of the string
 *						from the record's start
 *		char c[16];
 *		char __data[];			the dynamic fields' bytes
 *	};
 *
 * A __rel_ field (__rel_string, __rel_dynamic_array, ...) is a "uint32_t __rel_loc_x" word
 * instead: (length << 16) | offset from the end of that word. Every other dynamic field
 * (__string_len, __vstring, __bitmask, __cpumask, __sockaddr) is a __data_loc word.
 */
#define __field(type, item) type item;
#define __field_ext(type, item, filter_type) type item;
#define __field_struct(type, item) type item;
#define __array(type, item, len) type item[len];
#define __dynamic_array(type, item, len) uint32_t __data_loc_##item;
#define __string(item, src) __dynamic_array(char, item, -1)
#define __string_len(item, src, len) __dynamic_array(char, item, -1)
#define __vstring(item, fmt, ap) __dynamic_array(char, item, -1)
#define __bitmask(item, nr_bits) __dynamic_array(unsigned long, item, -1)
#define __cpumask(item) __dynamic_array(unsigned long, item, -1)
#define __sockaddr(item, len) __dynamic_array(u8, item, len)
#define __field_struct_ext(type, item, filter_type) type item;
#define __rel_dynamic_array(type, item, len) uint32_t __rel_loc_##item;
#define __rel_string(item, src) __rel_dynamic_array(char, item, -1)
#define __rel_string_len(item, src, len) __rel_dynamic_array(char, item, -1)
#define __rel_bitmask(item, nr_bits) __rel_dynamic_array(unsigned long, item, -1)
#define __rel_cpumask(item) __rel_dynamic_array(unsigned long, item, -1)
#define __rel_sockaddr(item, len) __rel_dynamic_array(u8, item, len)

#define TP_STRUCT__entry(...) __VA_ARGS__

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)                        \
	struct tpoint_raw_##name {                                                             \
		uint64_t __tpoint_common;                                                      \
		tstruct __extension__ char __data[];                                          \
	}
#include <tpoint/stages/classes_only.h>
