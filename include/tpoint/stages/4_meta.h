/* SPDX-License-Identifier: MIT */
/*
 * Stage 4: the "tpoint_meta" section records (<tpoint/meta.h>), read by the runtime to build
 * each event's tracefs format, and by `tpoint list FILE` without running the program. For
 *
 *	TRACE_EVENT_CONDITION(foo, ..., TP_CONDITION(x > 1),
 *			      TP_STRUCT__entry(__field(u32, a)), ..., TP_printk("a=%u", __entry->a))
 * it emits
 *	static const struct {
 *		struct tpoint_meta_class h;
 *		struct tpoint_meta_field f[1];		{ align, size, signed, kind, len, "u32", "a" }
 *		char print[];				"\"a=%u\", REC->a"
 *	} __tpoint_meta_class_foo = ...;
 *	static const struct {
 *		struct tpoint_meta_event h;		system, "foo", class "foo"
 *		char cond[];				"x > 1": the source text, unexpanded
 *		char print[];				"" (the class's), or DEFINE_EVENT_PRINT's
 *	} __tpoint_meta_event_foo = ...;
 *
 * The print format is made as the kernel makes it: __entry becomes REC, the helpers
 * (__print_flags, __get_str, ...) stay as text, and the arguments are stringified after
 * macro expansion. The field count comes from the enum that 3_count.h emitted.
 */
#ifdef __cplusplus
#include <type_traits>
#define TPOINT_IS_SIGNED(type) ((uint8_t)std::is_signed<type>::value)
#define TPOINT_ALIGNOF(type) alignof(type)
#else
#define TPOINT_IS_SIGNED(type) ((uint8_t)((type)-1 < (type)1))
/* _Alignof, not __alignof__: the alignment inside a struct (u64 is 4 there on i386). */
#define TPOINT_ALIGNOF(type) _Alignof(type)
#endif

#define TPOINT_META_HDR(obj, kind_)                                                           \
	{ TPOINT_META_MAGIC, kind_, TPOINT_META_VERSION, (uint32_t)sizeof(obj) }

#define TPOINT_META_ATTR __attribute__((section(TPOINT_META_SECTION), used, aligned(8)))

#define TPOINT_META_FIELD(type, item, kind_, size_, align_, signed_, len)                     \
	{ (uint16_t)(align_), (uint16_t)(size_), signed_, kind_, 0, (uint32_t)(len), #type, #item },

#define __field(type, item)                                                                   \
	TPOINT_META_FIELD(type, item, TPOINT_FIELD_PLAIN, sizeof(type), TPOINT_ALIGNOF(type),     \
			  TPOINT_IS_SIGNED(type), 0)
#define __field_ext(type, item, filter_type) __field(type, item)
#define __field_struct(type, item)                                                            \
	TPOINT_META_FIELD(type, item, TPOINT_FIELD_PLAIN, sizeof(type), TPOINT_ALIGNOF(type), 0, 0)
#define __array(type, item, len)                                                              \
	TPOINT_META_FIELD(type, item, TPOINT_FIELD_ARRAY, sizeof(type) * (len),                \
			  TPOINT_ALIGNOF(type), TPOINT_IS_SIGNED(type), len)
#define __dynamic_array(type, item, len)                                                      \
	TPOINT_META_FIELD(type, item, TPOINT_FIELD_DYNAMIC, 4, 4, TPOINT_IS_SIGNED(type), 0)
#define __string(item, src) __dynamic_array(char, item, -1)
#define __string_len(item, src, len) __dynamic_array(char, item, -1)
#define __vstring(item, fmt, ap) __dynamic_array(char, item, -1)
#define __bitmask(item, nr_bits) __dynamic_array(unsigned long, item, -1)
#define __cpumask(item) TPOINT_META_FIELD(cpumask_t, item, TPOINT_FIELD_CPUMASK, 4, 4, 0, 0)
#define __sockaddr(item, len) __dynamic_array(u8, item, len)
#define __field_struct_ext(type, item, filter_type) __field_struct(type, item)
#define __rel_dynamic_array(type, item, len)                                                  \
	TPOINT_META_FIELD(type, item, TPOINT_FIELD_REL_DYNAMIC, 4, 4, TPOINT_IS_SIGNED(type), 0)
#define __rel_string(item, src) __rel_dynamic_array(char, item, -1)
#define __rel_string_len(item, src, len) __rel_dynamic_array(char, item, -1)
#define __rel_bitmask(item, nr_bits) __rel_dynamic_array(unsigned long, item, -1)
#define __rel_cpumask(item)                                                                   \
	TPOINT_META_FIELD(cpumask_t, item, TPOINT_FIELD_REL_CPUMASK, 4, 4, 0, 0)
#define __rel_sockaddr(item, len) __rel_dynamic_array(u8, item, len)

#define TP_STRUCT__entry(...) __VA_ARGS__
#undef TP_CONDITION
#define TP_CONDITION(...) #__VA_ARGS__

#define __entry REC
/* The format's spelling, escapes and all (stringified), unlike the kernel's, which pastes
 * its value and so loses a \" or \n in it. Adjacent literals stay adjacent; the reader
 * joins them. */
#define TP_printk(...) TPOINT_STR(__VA_ARGS__)
/*
 * The helpers stay as text for the reader to evaluate, except these, which the kernel also
 * rewrites in its format text (and __print_dynamic_array, which it keeps): the u64 forms are the plain ones (libtraceevent computes in
 * 64 bits on every host), and the nanosecond splits are arithmetic.
 */
#define __print_flags_u64(...) __print_flags(__VA_ARGS__)
#define __print_symbolic_u64(...) __print_symbolic(__VA_ARGS__)
/* libtraceevent 1.7.1 does not know __print_dynamic_array: its kernel definition, in text. */
#define __print_dynamic_array(array, el_size)                                                 \
	__print_array(__get_dynamic_array(array), __get_dynamic_array_len(array) / (el_size),  \
		      (el_size))
#define __print_ns_to_secs(val) (val) / 1000000000UL
#define __print_ns_without_secs(val) (val) % 1000000000UL

#define TPOINT_SYSTEM_STR TPOINT_STR(TRACE_SYSTEM)

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)                        \
	static const struct {                                                                  \
		struct tpoint_meta_class h;                                                    \
		struct tpoint_meta_field f[__tpoint_nfields_##name];                           \
		char print_fmt[sizeof(print)];                                                 \
	} __tpoint_meta_class_##name TPOINT_META_ATTR = {                                      \
		{ TPOINT_META_HDR(__tpoint_meta_class_##name, TPOINT_META_CLASS),              \
		  TPOINT_SYSTEM_STR, #name, __tpoint_nfields_##name,                           \
		  (uint32_t)offsetof(struct tpoint_raw_##name, __data) },                      \
		{ tstruct },                                                                   \
		print                                                                          \
	}

#define TPOINT_META_EVENT(template, name, cond, print)                                       \
	static const struct {                                                                  \
		struct tpoint_meta_event h;                                                    \
		char condition[sizeof(cond)];                                                  \
		char print_fmt[sizeof(print)];                                                 \
	} __tpoint_meta_event_##name TPOINT_META_ATTR = {                                      \
		{ TPOINT_META_HDR(__tpoint_meta_event_##name, TPOINT_META_EVENT),              \
		  TPOINT_SYSTEM_STR, #name, #template, (uint32_t)sizeof(cond),                 \
		  (uint32_t)sizeof(print) },                                                   \
		cond,                                                                          \
		print                                                                          \
	}

#define DEFINE_EVENT(template, name, proto, args) TPOINT_META_EVENT(template, name, "", "")
#define DEFINE_EVENT_CONDITION(template, name, proto, args, cond)                            \
	TPOINT_META_EVENT(template, name, cond, "")
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)                               \
	TPOINT_META_EVENT(template, name, "", print)
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)                               \
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct), PARAMS(assign), \
			    PARAMS(print));                                                    \
	DEFINE_EVENT(name, name, PARAMS(proto), PARAMS(args))
#define TRACE_EVENT_CONDITION(name, proto, args, cond, tstruct, assign, print)               \
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct), PARAMS(assign), \
			    PARAMS(print));                                                    \
	DEFINE_EVENT_CONDITION(name, name, PARAMS(proto), PARAMS(args), PARAMS(cond))

#define DEFINE_EVENT_FN(template, name, proto, args, reg, unreg)                             \
	DEFINE_EVENT(template, name, PARAMS(proto), PARAMS(args))
#define TRACE_EVENT_FN(name, proto, args, tstruct, assign, print, reg, unreg)                 \
	TRACE_EVENT(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct), PARAMS(assign),       \
		    PARAMS(print))
#define TRACE_EVENT_FN_COND(name, proto, args, cond, tstruct, assign, print, reg, unreg)      \
	TRACE_EVENT_CONDITION(name, PARAMS(proto), PARAMS(args), PARAMS(cond), PARAMS(tstruct), \
			      PARAMS(assign), PARAMS(print))

#define TRACE_DEFINE_ENUM(a)                                                                 \
	static const struct tpoint_meta_enum TPOINT_CAT(__tpoint_meta_enum_, a)                \
		TPOINT_META_ATTR = { TPOINT_META_HDR(struct tpoint_meta_enum, TPOINT_META_ENUM), \
				     TPOINT_SYSTEM_STR, #a, (int64_t)(a) }
#define TRACE_DEFINE_SIZEOF(a)                                                               \
	static const struct tpoint_meta_enum TPOINT_CAT(__tpoint_meta_sizeof_, a)              \
		TPOINT_META_ATTR = { TPOINT_META_HDR(struct tpoint_meta_enum, TPOINT_META_ENUM), \
				     TPOINT_SYSTEM_STR, "sizeof(" #a ")", (int64_t)sizeof(a) }
