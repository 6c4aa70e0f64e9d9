/* SPDX-License-Identifier: MIT */
/*
 * Stage 4a: per event class, a function that measures the dynamic fields before the record
 * is reserved, and says where each one will lie:
 *
 *	static inline uint32_t __tpoint_get_offsets_foo(struct tpoint_data_offsets_foo *o, proto)
 *	{
 *		uint32_t size = 0;
 *		{ s = src or "(null)"; len = strlen(s) + 1;
 *		  o->s = (len << 16) | (offsetof(struct tpoint_raw_foo, __data) + size);
 *		  o->s_ptr_ = s; size += len; }
 *		return size;
 *	}
 *
 * Each dynamic array starts at its element type's alignment, so that TP_fast_assign may
 * store through a typed pointer.
 */
#define __field(type, item)
#define __field_ext(type, item, filter_type)
#define __field_struct(type, item)
#define __array(type, item, len)
#define __dynamic_array(type, item, len)                                                      \
	{                                                                                      \
		uint32_t __len = (uint32_t)(len) * (uint32_t)sizeof(type);                      \
		__size = (__size + (uint32_t)__alignof__(type) - 1u) &                         \
			 ~((uint32_t)__alignof__(type) - 1u);                                  \
		__data_offsets->item = (__len << 16) | (uint32_t)(__data_start + __size);      \
		__size += __len;                                                               \
	}
#define __string(item, src)                                                                   \
	{                                                                                      \
		const char *__s = (const char *)(src);                                         \
		if (!__s)                                                                      \
			__s = "(null)";                                                        \
		uint32_t __len = (uint32_t)strlen(__s) + 1u;                                    \
		__data_offsets->item##_ptr_ = __s;                                             \
		__data_offsets->item = (__len << 16) | (uint32_t)(__data_start + __size);      \
		__size += __len;                                                               \
	}

#define TP_STRUCT__entry(...) __VA_ARGS__

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)                        \
	static inline __attribute__((always_inline)) uint32_t __tpoint_get_offsets_##name(    \
		struct tpoint_data_offsets_##name *__data_offsets, proto)                      \
	{                                                                                      \
		const size_t __data_start = offsetof(struct tpoint_raw_##name, __data);        \
		uint32_t __size = 0;                                                           \
		(void)__data_offsets;                                                          \
		(void)__data_start;                                                            \
		tstruct;                                                                       \
		return __size;                                                                 \
	}                                                                                      \
	TPOINT_DECL_END
#include <tpoint/stages/classes_only.h>
