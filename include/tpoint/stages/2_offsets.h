/* SPDX-License-Identifier: MIT */
/*
 * Stage 2: per event class, the scratch that the hit function fills while it sizes the
 * dynamic fields, before the record is reserved:
 *
 *	struct tpoint_data_offsets_foo {
 *		uint32_t s;			the data_loc word of __string(s, src)
 *		const char *s_ptr_;		src, measured once and copied by __assign_str(s)
 *		uint32_t __tpoint_unused;
 *	};
 *
 * __string_len and __rel_string_len keep their source the same way; their item##_len_ member
 * (an array of 2, where a NUL-terminated source has 1) tells __assign_str to end the copy
 * with a NUL of its own -- a constant, so that __string's copy stays one memcpy.
 */
#define __field(type, item)
#define __field_ext(type, item, filter_type)
#define __field_struct(type, item)
#define __array(type, item, len)
#define __dynamic_array(type, item, len) uint32_t item;
#define __string(item, src) uint32_t item; const char *item##_ptr_; char item##_len_[1];
#define __string_len(item, src, len) uint32_t item; const char *item##_ptr_; char item##_len_[2];
#define __vstring(item, fmt, ap) uint32_t item;
#define __bitmask(item, nr_bits) uint32_t item;
#define __cpumask(item) uint32_t item;
#define __sockaddr(item, len) uint32_t item;
#define __field_struct_ext(type, item, filter_type)
#define __rel_dynamic_array(type, item, len) uint32_t item;
#define __rel_string(item, src) __string(item, src)
#define __rel_string_len(item, src, len) __string_len(item, src, len)
#define __rel_bitmask(item, nr_bits) uint32_t item;
#define __rel_cpumask(item) uint32_t item;
#define __rel_sockaddr(item, len) uint32_t item;

#define TP_STRUCT__entry(...) __VA_ARGS__

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)                        \
	struct tpoint_data_offsets_##name {                                                    \
		tstruct uint32_t __tpoint_unused;                                              \
	}
#include <tpoint/stages/classes_only.h>
