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
 *		char c[16];
 *		char __data[];			the dynamic fields' bytes
 *	};
 */
#define __field(type, item) type item;
#define __field_ext(type, item, filter_type) type item;
#define __field_struct(type, item) type item;
#define __array(type, item, len) type item[len];
#define __dynamic_array(type, item, len) uint32_t __data_loc_##item;
#define __string(item, src) __dynamic_array(char, item, -1)

#define TP_STRUCT__entry(...) __VA_ARGS__

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)                        \
	struct tpoint_raw_##name {                                                             \
		uint64_t __tpoint_common;                                                      \
		tstruct __extension__ char __data[];                                          \
	}
#include <tpoint/stages/classes_only.h>
