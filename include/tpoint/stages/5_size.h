/* SPDX-License-Identifier: MIT */
/*
 * Stage 5: per event class, a function that measures the dynamic fields before the record
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
/*
 * Each dynamic field once, for both location words: `rel` is 0 for a __data_loc word, and
 * for a __rel_loc word its own end (__tpoint_rel_end()): the kernel's __rel_loc offset counts
 * from the end of the word itself, so that a record can be moved inside a bigger one (its
 * user events) without rewriting it. A constant either way: no instruction more.
 */
#define __tpoint_size_array(type, item, len, rel)                                            \
	{                                                                                      \
		uint32_t __len = (uint32_t)(len) * (uint32_t)sizeof(type);                      \
		__size = (__size + (uint32_t)__alignof__(type) - 1u) &                         \
			 ~((uint32_t)__alignof__(type) - 1u);                                  \
		__data_offsets->item = (__len << 16) | (uint32_t)(__data_start + __size - (rel)); \
		__size += __len;                                                               \
	}
#define __tpoint_size_string(item, src, rel)                                                  \
	{                                                                                      \
		const char *__s = (const char *)(src);                                         \
		if (!__s)                                                                      \
			__s = "(null)";                                                        \
		uint32_t __len = (uint32_t)strlen(__s) + 1u;                                    \
		__data_offsets->item##_ptr_ = __s;                                             \
		__data_offsets->item = (__len << 16) | (uint32_t)(__data_start + __size - (rel)); \
		__size += __len;                                                               \
	}
/* `len` bytes of src and a NUL; a NULL src is "(null)", cut to `len` like any other. */
#define __tpoint_size_string_len(item, src, len, rel)                                         \
	{                                                                                      \
		const char *__s = (const char *)(src);                                         \
		size_t __n = (size_t)(len);                                                    \
		if (!__s) {                                                                    \
			__s = "(null)";                                                        \
			__n = __n < 6 ? __n : 6;                                               \
		}                                                                              \
		__n = __n < TPOINT_MAX_PAYLOAD ? __n : TPOINT_MAX_PAYLOAD;                     \
		uint32_t __len = (uint32_t)__n + 1u;                                            \
		__data_offsets->item##_ptr_ = __s;                                             \
		__data_offsets->item = (__len << 16) | (uint32_t)(__data_start + __size - (rel)); \
		__size += __len;                                                               \
	}
#define __tpoint_rel_end(item) (offsetof(__tpoint_raw_t, __rel_loc_##item) + 4u)
#define __dynamic_array(type, item, len) __tpoint_size_array(type, item, len, 0u)
#define __string(item, src) __tpoint_size_string(item, src, 0u)
#define __string_len(item, src, len) __tpoint_size_string_len(item, src, len, 0u)
/* What vsnprintf makes of fmt and *ap, NUL included, at most TPOINT_EVENT_STR_MAX bytes. */
#define __vstring(item, fmt, ap)                                                              \
	__dynamic_array(char, item, tpoint_vstr_len((fmt), (ap)))
#define __bitmask(item, nr_bits)                                                              \
	__dynamic_array(unsigned long, item, TPOINT_BITS_TO_LONGS(nr_bits))
#define __cpumask(item) __bitmask(item, nr_cpumask_bits)
#define __sockaddr(item, len) __dynamic_array(uint8_t, item, len)
#define __field_struct_ext(type, item, filter_type)
#define __rel_dynamic_array(type, item, len)                                                  \
	__tpoint_size_array(type, item, len, __tpoint_rel_end(item))
#define __rel_string(item, src) __tpoint_size_string(item, src, __tpoint_rel_end(item))
#define __rel_string_len(item, src, len)                                                      \
	__tpoint_size_string_len(item, src, len, __tpoint_rel_end(item))
#define __rel_bitmask(item, nr_bits)                                                          \
	__rel_dynamic_array(unsigned long, item, TPOINT_BITS_TO_LONGS(nr_bits))
#define __rel_cpumask(item) __rel_bitmask(item, nr_cpumask_bits)
#define __rel_sockaddr(item, len) __rel_dynamic_array(uint8_t, item, len)

#define TP_STRUCT__entry(...) __VA_ARGS__

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)                        \
	static inline __attribute__((always_inline)) uint32_t __tpoint_get_offsets_##name(    \
		struct tpoint_data_offsets_##name *__data_offsets, proto)                      \
	{                                                                                      \
		/* The record, for __tpoint_rel_end(): a __rel_loc word counts from its end. */ \
		typedef struct tpoint_raw_##name __tpoint_raw_t;                               \
		(void)sizeof(__tpoint_raw_t);                                                  \
		const size_t __data_start = offsetof(struct tpoint_raw_##name, __data);        \
		uint32_t __size = 0;                                                           \
		(void)__data_offsets;                                                          \
		(void)__data_start;                                                            \
		tstruct;                                                                       \
		return __size;                                                                 \
	}                                                                                      \
	TPOINT_DECL_END
#include <tpoint/stages/classes_only.h>
