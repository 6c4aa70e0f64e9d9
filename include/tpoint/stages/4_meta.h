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
 *		struct tpoint_meta_field f[1];		{ align, size, signed, kind, len }
 *		char s[];				"sys\0foo\0u32\0a\0\"a=%u\", REC->a"
 *	} __tpoint_meta_class_foo = ...;
 *	static const struct {
 *		struct tpoint_meta_event h;
 *		char s[];				"sys\0foo\0foo\0x > 1\0": system, name,
 *							class, the condition's source text
 *							(unexpanded), and "" or DEFINE_EVENT_PRINT's
 *	} __tpoint_meta_event_foo = ...;
 *
 * Every string as long as it is: each field macro expands to a parenthesised tuple, so that
 * TP_STRUCT__entry becomes a sequence (a)(b)(c) that two iterators walk, one for the fixed
 * part of each field and one for its strings (TPOINT_META_EACH()). A name longer than
 * TPOINT_NAME_MAX - 1 is a compile-time error that names it.
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

/* A field as a tuple, for the iterators below. */
#define TPOINT_META_FIELD(type, item, kind_, size_, align_, signed_, len)                     \
	(type, item, kind_, size_, align_, signed_, len)

/*
 * TPOINT_META_EACH(X, (t1, ...)(t2, ...)) is X_A(t1, ...) X_B(t2, ...) ...: each step leaves
 * the name of the other, which the next tuple invokes; the last one left is pasted into
 * X_A_END or X_B_END, which are empty. Any number of fields, no recursion limit.
 */
#define TPOINT_META_EACH(x, seq) TPOINT_META_END_(x##_A seq)
#define TPOINT_META_END_(...) TPOINT_META_END__(__VA_ARGS__)
#define TPOINT_META_END__(...) __VA_ARGS__##_END

/* The fixed part of each field: an initializer of struct tpoint_meta_field. */
#define TPOINT_META_FIXED_ONE(type, item, kind_, size_, align_, signed_, len)                  \
	{ (uint16_t)(align_), (uint16_t)(size_), signed_, kind_, 0, (uint32_t)(len) },
#define TPOINT_META_FIXED_A(...) TPOINT_META_FIXED_ONE(__VA_ARGS__) TPOINT_META_FIXED_B
#define TPOINT_META_FIXED_B(...) TPOINT_META_FIXED_ONE(__VA_ARGS__) TPOINT_META_FIXED_A
#define TPOINT_META_FIXED_A_END
#define TPOINT_META_FIXED_B_END

/* Its strings: type and name, each with its NUL (adjacent literals make one). */
#define TPOINT_META_NAMES_ONE(type, item, ...) #type "\0" #item "\0"
#define TPOINT_META_NAMES_A(...) TPOINT_META_NAMES_ONE(__VA_ARGS__) TPOINT_META_NAMES_B
#define TPOINT_META_NAMES_B(...) TPOINT_META_NAMES_ONE(__VA_ARGS__) TPOINT_META_NAMES_A
#define TPOINT_META_NAMES_A_END
#define TPOINT_META_NAMES_B_END

#ifdef __cplusplus
#define TPOINT_META_ASSERT static_assert
#else
#define TPOINT_META_ASSERT _Static_assert
#endif
/* Readers keep names in TPOINT_NAME_MAX bytes: a longer one is refused here, by name. */
#define TPOINT_META_NAME_OK(str) (sizeof(str) <= TPOINT_NAME_MAX)
#define TPOINT_META_CHECK_ONE(type, item, ...)                                                \
	TPOINT_META_ASSERT(TPOINT_META_NAME_OK(#type) && TPOINT_META_NAME_OK(#item),          \
			   "tpoint: a field type or name is longer than 63 characters: "     \
			   #type " " #item);
#define TPOINT_META_CHECK_A(...) TPOINT_META_CHECK_ONE(__VA_ARGS__) TPOINT_META_CHECK_B
#define TPOINT_META_CHECK_B(...) TPOINT_META_CHECK_ONE(__VA_ARGS__) TPOINT_META_CHECK_A
#define TPOINT_META_CHECK_A_END
#define TPOINT_META_CHECK_B_END
#define TPOINT_META_CHECK_NAME(what, str)                                                     \
	TPOINT_META_ASSERT(TPOINT_META_NAME_OK(str),                                          \
			   "tpoint: " what " longer than 63 characters: " str)

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

/* The class's strings: system, name, each field's type and name, the print format. */
#define TPOINT_META_CLASS_STRS(name, tstruct, print)                                          \
	TPOINT_SYSTEM_STR "\0" #name "\0" TPOINT_META_EACH(TPOINT_META_NAMES, tstruct) print

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)                        \
	TPOINT_META_CHECK_NAME("the system name", TPOINT_SYSTEM_STR);                          \
	TPOINT_META_CHECK_NAME("an event class name", #name);                                  \
	TPOINT_META_EACH(TPOINT_META_CHECK, tstruct)                                           \
	static const struct {                                                                  \
		struct tpoint_meta_class h;                                                    \
		struct tpoint_meta_field f[__tpoint_nfields_##name];                           \
		char s[sizeof(TPOINT_META_CLASS_STRS(name, PARAMS(tstruct), PARAMS(print)))];  \
	} __tpoint_meta_class_##name TPOINT_META_ATTR = {                                      \
		{ TPOINT_META_HDR(__tpoint_meta_class_##name, TPOINT_META_CLASS),              \
		  __tpoint_nfields_##name,                                                     \
		  (uint32_t)offsetof(struct tpoint_raw_##name, __data) },                      \
		{ TPOINT_META_EACH(TPOINT_META_FIXED, tstruct) },                              \
		TPOINT_META_CLASS_STRS(name, PARAMS(tstruct), PARAMS(print))                   \
	}

/* The event's strings: system, name, class, condition, print format override. */
#define TPOINT_META_EVENT_STRS(template, name, cond, print)                                   \
	TPOINT_SYSTEM_STR "\0" #name "\0" #template "\0" cond "\0" print

#define TPOINT_META_EVENT(template, name, cond, print)                                       \
	TPOINT_META_CHECK_NAME("an event name", #name);                                        \
	static const struct {                                                                  \
		struct tpoint_meta_event h;                                                    \
		char s[sizeof(TPOINT_META_EVENT_STRS(template, name, PARAMS(cond),             \
						     PARAMS(print)))];                         \
	} __tpoint_meta_event_##name TPOINT_META_ATTR = {                                      \
		{ TPOINT_META_HDR(__tpoint_meta_event_##name, TPOINT_META_EVENT) },            \
		TPOINT_META_EVENT_STRS(template, name, PARAMS(cond), PARAMS(print))            \
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

#define TPOINT_META_ENUM(sym, strs, value)                                                   \
	TPOINT_META_CHECK_NAME("a TRACE_DEFINE_ENUM/SIZEOF name", strs);                      \
	static const struct {                                                                  \
		struct tpoint_meta_enum h;                                                     \
		char s[sizeof(strs)];                                                          \
	} sym TPOINT_META_ATTR = { { TPOINT_META_HDR(sym, TPOINT_META_ENUM), (int64_t)(value) }, \
				   strs }
#define TRACE_DEFINE_ENUM(a)                                                                 \
	TPOINT_META_ENUM(TPOINT_CAT(__tpoint_meta_enum_, a), TPOINT_SYSTEM_STR "\0" #a, a)
#define TRACE_DEFINE_SIZEOF(a)                                                               \
	TPOINT_META_ENUM(TPOINT_CAT(__tpoint_meta_sizeof_, a),                                 \
			 TPOINT_SYSTEM_STR "\0sizeof(" #a ")", sizeof(a))
