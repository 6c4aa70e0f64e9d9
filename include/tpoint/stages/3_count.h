/* SPDX-License-Identifier: MIT */
/*
 * Stage 3: the number of fields of each event class, which sizes stage 4's field array:
 *
 *	enum { __tpoint_nfields_foo = 0 +1 +1 };
 */
#define __field(type, item) +1
#define __field_ext(type, item, filter_type) +1
#define __field_struct(type, item) +1
#define __array(type, item, len) +1
#define __dynamic_array(type, item, len) +1
#define __string(item, src) +1
#define __string_len(item, src, len) +1
#define __vstring(item, fmt, ap) +1
#define __bitmask(item, nr_bits) +1
#define __cpumask(item) +1
#define __sockaddr(item, len) +1
#define __field_struct_ext(type, item, filter_type) +1
#define __rel_dynamic_array(type, item, len) +1
#define __rel_string(item, src) +1
#define __rel_string_len(item, src, len) +1
#define __rel_bitmask(item, nr_bits) +1
#define __rel_cpumask(item) +1
#define __rel_sockaddr(item, len) +1

#define TP_STRUCT__entry(...) __VA_ARGS__

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)                        \
	enum { __tpoint_nfields_##name = 0 tstruct }
#include <tpoint/stages/classes_only.h>
