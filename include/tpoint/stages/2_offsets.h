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
 */
#define __field(type, item)
#define __field_ext(type, item, filter_type)
#define __field_struct(type, item)
#define __array(type, item, len)
#define __dynamic_array(type, item, len) uint32_t item;
#define __string(item, src) uint32_t item; const char *item##_ptr_;

#define TP_STRUCT__entry(...) __VA_ARGS__

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)                        \
	struct tpoint_data_offsets_##name {                                                    \
		tstruct uint32_t __tpoint_unused;                                              \
	}
#include <tpoint/stages/classes_only.h>
