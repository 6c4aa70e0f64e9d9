/* SPDX-License-Identifier: MIT */
/*
 * tpoint/tracepoint.h - the kernel's tracepoint definition language, for C programs.
 *
 * A trace header is written exactly as in the kernel:
 *
 *	#undef TRACE_SYSTEM
 *	#define TRACE_SYSTEM sample
 *	#if !defined(_TRACE_SAMPLE_H) || defined(TRACE_HEADER_MULTI_READ)
 *	#define _TRACE_SAMPLE_H
 *	#include <tpoint/tracepoint.h>
 *	TRACE_EVENT(...);
 *	#endif
 *	#include <tpoint/define_trace.h>
 *
 * Included normally, TRACE_EVENT(name, ...) declares, for every file that calls it:
 *
 *	static inline void trace_name(proto);          one relaxed load and a predicted branch
 *	                                               (-DTPOINT_JUMP_LABEL: one NOP, patched)
 *	static inline bool trace_name_enabled(void);
 *	static inline int register_trace_name(void (*probe)(void *data, proto), void *data);
 *	static inline int unregister_trace_name(void (*probe)(void *data, proto), void *data);
 *
 * While the event is off, trace_name(args) is one relaxed load and a branch predicted not
 * taken; the out-of-line hit function behind it, and so the event's TP_CONDITION, never runs.
 * As in the kernel, trace_name() is a function: C evaluates arguments that have side effects
 * (function calls, volatile reads) before the test, while plain values, field reads and
 * arithmetic are moved behind it by the compiler and cost nothing. For arguments that must
 * not run at all while the event is off, write tpoint_trace(name, args...) (a macro, like
 * LTTng's tracepoint()) or test trace_name_enabled() first, as kernel code does.
 *
 * One .c file defines CREATE_TRACE_POINTS before including the header; <tpoint/define_trace.h>
 * then re-reads the header through the stages in <tpoint/stages/> and emits the record layout,
 * the format description, the out-of-line hit function and the registration of every event.
 */
#ifndef TPOINT_TRACEPOINT_H
#define TPOINT_TRACEPOINT_H

#include <stdint.h>
#include <string.h>
#include <tpoint/event.h>

#ifndef TPOINT_NO_KERNEL_TYPES
/* The kernel's fixed-size types, so that event headers port unchanged. */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
#endif
/* struct cpumask and the other kernel notions the field macros use. */
#include <tpoint/kernel.h>

#define TPOINT_STR_(...) #__VA_ARGS__
#define TPOINT_STR(...) TPOINT_STR_(__VA_ARGS__)
#define TPOINT_CAT_(a, b) a##b
#define TPOINT_CAT(a, b) TPOINT_CAT_(a, b)
/* The first of one or more arguments; the `~` gives the "..." an argument even then. */
#define TPOINT_FIRST_ARG(...) TPOINT_FIRST_ARG_(__VA_ARGS__, ~)
#define TPOINT_FIRST_ARG_(first, ...) first

#define PARAMS(...) __VA_ARGS__
#define TP_PROTO(...) __VA_ARGS__
#define TP_ARGS(...) __VA_ARGS__
#define TP_CONDITION(...) __VA_ARGS__
/* perf's annotations of TP_PROTO arguments: plain values here. */
#define __perf_count(c) (c)
#define __perf_task(t) (t)

/*
 * The event's descriptor, defined by the file that sets CREATE_TRACE_POINTS. Its name says
 * so: a program whose trace header no file defines (no CREATE_TRACE_POINTS, or a header that
 * does not end with #include <tpoint/define_trace.h>) fails to link with "undefined reference
 * to `__tpoint_event_NAME__made_by_CREATE_TRACE_POINTS'".
 */
#define TPOINT_EVENT_SYM(name) __tpoint_event_##name##__made_by_CREATE_TRACE_POINTS
#define TPOINT_HIT_SYM(name) __tpoint_hit_##name

#ifdef __cplusplus
#define TPOINT_BOOL bool
/* The generated symbols have C linkage in C++ too, so that C and C++ files define and call
 * each other's events. */
#define TPOINT_EXTERN_C extern "C"
#else
#define TPOINT_BOOL _Bool
#define TPOINT_EXTERN_C extern
#endif

/*
 * The end of every expansion of an event macro (TRACE_EVENT() and the rest), in every stage.
 * A trace header puts `;` after each, as in the kernel; that `;` then completes this
 * declaration instead of standing alone outside a function, which ISO C (-pedantic) and
 * clang's -Wextra-semi reject. Macros made of two others put the `;` between them. A struct
 * declared again and again is neither code nor a warning.
 */
#define TPOINT_DECL_END struct tpoint_decl_end

/* The call site's test: load and branch, or with -DTPOINT_JUMP_LABEL a patched instruction. */
#include <tpoint/jump_label.h>

#endif /* TPOINT_TRACEPOINT_H */

/*
 * The declaration stage lies outside the include guard: <tpoint/define_trace.h> undefines
 * these macros when it is done, and the next trace header's #include brings them back.
 */
#ifndef TRACE_EVENT

#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print) TPOINT_DECL_END
#define TRACE_DEFINE_ENUM(a) TPOINT_DECL_END
#define TRACE_DEFINE_SIZEOF(a) TPOINT_DECL_END

#define DEFINE_EVENT(template, name, proto, args)                                             \
	TPOINT_EXTERN_C struct tpoint_event TPOINT_EVENT_SYM(name);                            \
	TPOINT_EXTERN_C void TPOINT_HIT_SYM(name)(proto);                                      \
	TPOINT_DEFINE_JUMP_SITE(name)                                                          \
	static inline __attribute__((always_inline)) void trace_##name(proto)                  \
	{                                                                                      \
		if (TPOINT_SITE_ON(name))                                                      \
			TPOINT_HIT_SYM(name)(args);                                            \
	}                                                                                      \
	static inline TPOINT_BOOL trace_##name##_enabled(void)                                 \
	{                                                                                      \
		return __atomic_load_n(&TPOINT_EVENT_SYM(name).enabled, __ATOMIC_RELAXED) != 0; \
	}                                                                                      \
	static inline int register_trace_##name(void (*probe)(void *__data, proto),          \
						void *data)                                    \
	{                                                                                      \
		return tpoint_probe_register(&TPOINT_EVENT_SYM(name), (void (*)(void))probe,  \
					     data);                                            \
	}                                                                                      \
	static inline int unregister_trace_##name(void (*probe)(void *__data, proto),        \
						  void *data)                                  \
	{                                                                                      \
		return tpoint_probe_unregister(&TPOINT_EVENT_SYM(name), (void (*)(void))probe, \
					       data);                                          \
	}                                                                                      \
	TPOINT_DECL_END

#define DEFINE_EVENT_CONDITION(template, name, proto, args, cond)                            \
	DEFINE_EVENT(template, name, PARAMS(proto), PARAMS(args))
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)                               \
	DEFINE_EVENT(template, name, PARAMS(proto), PARAMS(args))

#define TRACE_EVENT(name, proto, args, tstruct, assign, print)                               \
	DEFINE_EVENT(name, name, PARAMS(proto), PARAMS(args))
#define TRACE_EVENT_CONDITION(name, proto, args, cond, tstruct, assign, print)               \
	DEFINE_EVENT(name, name, PARAMS(proto), PARAMS(args))
/* reg() runs before the event goes on (non-zero keeps it off), unreg() after it went off. */
#define DEFINE_EVENT_FN(template, name, proto, args, reg, unreg)                             \
	DEFINE_EVENT(template, name, PARAMS(proto), PARAMS(args))
#define TRACE_EVENT_FN(name, proto, args, tstruct, assign, print, reg, unreg)                 \
	DEFINE_EVENT(name, name, PARAMS(proto), PARAMS(args))
#define TRACE_EVENT_FN_COND(name, proto, args, cond, tstruct, assign, print, reg, unreg)      \
	DEFINE_EVENT(name, name, PARAMS(proto), PARAMS(args))

#endif /* TRACE_EVENT */

#ifndef tpoint_trace
/*
 * tpoint_trace(name, args...): trace_<name>(args...) that evaluates nothing at all while the
 * event is off -- its arguments included, whatever their side effects (like LTTng's
 * tracepoint()). trace_<name>() is a function, as in the kernel: C evaluates the arguments
 * that have side effects (calls) before its enabled test; plain values and arithmetic are
 * moved behind the test by the compiler and cost nothing.
 */
#define tpoint_trace(name, ...)                                                               \
	do {                                                                                   \
		if (TPOINT_SITE_ON(name))                                                      \
			TPOINT_HIT_SYM(name)(__VA_ARGS__);                                     \
	} while (0)
#endif
