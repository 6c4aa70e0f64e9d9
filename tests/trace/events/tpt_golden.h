/* SPDX-License-Identifier: MIT */
/*
 * Events of golden_test: every field kind and every print helper that libtraceevent renders,
 * so that one recording, read back by `trace-cmd report`, checks the whole chain from
 * TP_STRUCT__entry to the text a user sees.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_golden

#if !defined(_TRACE_TPT_GOLDEN_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_GOLDEN_H

#include <tpoint/tracepoint.h>

/* Types the events use; the header is read once per stage, the types must appear once. */
#ifndef TPT_GOLDEN_TYPES
#define TPT_GOLDEN_TYPES
struct golden_pt {
	s32 x;
	s32 y;
};

enum golden_state {
	GOLDEN_IDLE = 0,
	GOLDEN_RUN = 5,
	GOLDEN_DONE = 9,
};

#define GOLDEN_READ 0x1
#define GOLDEN_WRITE 0x2
#define GOLDEN_SYNC 0x4
#endif

/* The print format names the enum constants; the runtime must put their values in. */
TRACE_DEFINE_ENUM(GOLDEN_IDLE);
TRACE_DEFINE_ENUM(GOLDEN_RUN);
TRACE_DEFINE_ENUM(GOLDEN_DONE);

/* Plain fields of every size and signedness, a struct, arrays and both dynamic kinds. */
TRACE_EVENT(golden_fields,

	TP_PROTO(u8 a, s16 b, u32 c, s64 d, u64 e, const struct golden_pt *pt, const char *tag,
		 const char *name, const u32 *vals, int nvals),

	TP_ARGS(a, b, c, d, e, pt, tag, name, vals, nvals),

	TP_STRUCT__entry(
		__field(	u8,			a		)
		__field(	s16,			b		)
		__field(	u32,			c		)
		__field(	s64,			d		)
		__field(	u64,			e		)
		__field_struct(	struct golden_pt,	pt		)
		__array(	char,			tag,	8	)
		__string(	name,			name		)
		__dynamic_array(u32,			vals,	nvals	)
	),

	TP_fast_assign(
		__entry->a = a;
		__entry->b = b;
		__entry->c = c;
		__entry->d = d;
		__entry->e = e;
		__entry->pt = *pt;
		memset(__entry->tag, 0, sizeof(__entry->tag));
		strncpy(__entry->tag, tag, sizeof(__entry->tag) - 1);
		__assign_str(name);
		if (nvals) /* vals may be NULL then, and memcpy(NULL) is undefined even for 0 */
			memcpy(__get_dynamic_array(vals), vals, (size_t)nvals * sizeof(u32));
	),

	/*
	 * %hd, not %d: libtraceevent 1.7.1 does not sign-extend a 16-bit field for %d
	 * (-1234 prints as 64302); with the h modifier it does.
	 */
	TP_printk("a=%u b=%hd c=%#x d=%lld e=%llu pt=%s tag=%s name=%s vals=%s",
		  __entry->a, __entry->b, __entry->c, __entry->d, __entry->e,
		  __print_hex(__entry->pt, 8), __entry->tag, __get_str(name),
		  __print_array(__get_dynamic_array(vals), __get_dynamic_array_len(vals) / 4, 4))
);

/* The table-driven helpers, and __print_hex on a dynamic and on a fixed array. */
TRACE_EVENT(golden_bits,

	TP_PROTO(unsigned long flags, int state, const u8 *buf, int len, const u8 *mac),

	TP_ARGS(flags, state, buf, len, mac),

	TP_STRUCT__entry(
		__field(	unsigned long,	flags		)
		__field(	int,		state		)
		__array(	u8,		mac,	6	)
		__dynamic_array(u8,		buf,	len	)
	),

	TP_fast_assign(
		__entry->flags = flags;
		__entry->state = state;
		memcpy(__entry->mac, mac, 6);
		memcpy(__get_dynamic_array(buf), buf, (size_t)len);
	),

	TP_printk("flags=%s state=%s buf=%s mac=%s",
		  __print_flags(__entry->flags, "|",
				{ GOLDEN_READ, "READ" },
				{ GOLDEN_WRITE, "WRITE" },
				{ GOLDEN_SYNC, "SYNC" }),
		  __print_symbolic(__entry->state,
				   { GOLDEN_IDLE, "idle" },
				   { GOLDEN_RUN, "run" },
				   { GOLDEN_DONE, "done" }),
		  __print_hex(__get_dynamic_array(buf), __get_dynamic_array_len(buf)),
		  __print_hex(__entry->mac, 6))
);

/* One class, three kinds of events made from it. */
DECLARE_EVENT_CLASS(golden_class,

	TP_PROTO(int id, const char *what),

	TP_ARGS(id, what),

	TP_STRUCT__entry(
		__field(	int,	id		)
		__string(	what,	what		)
	),

	TP_fast_assign(
		__entry->id = id;
		__assign_str(what);
	),

	TP_printk("id=%d what=%s", __entry->id, __get_str(what))
);

DEFINE_EVENT(golden_class, golden_open,
	TP_PROTO(int id, const char *what),
	TP_ARGS(id, what)
);

/* Only even ids: the odd ones must be counted as skipped by the condition, not recorded. */
DEFINE_EVENT_CONDITION(golden_class, golden_maybe,
	TP_PROTO(int id, const char *what),
	TP_ARGS(id, what),
	TP_CONDITION(id % 2 == 0)
);

/* Same record as the class, its own text. */
DEFINE_EVENT_PRINT(golden_class, golden_alt,
	TP_PROTO(int id, const char *what),
	TP_ARGS(id, what),
	TP_printk("alt #%d <%s>", __entry->id, __get_str(what))
);

#endif /* _TRACE_TPT_GOLDEN_H */

/* Outside the guard, as in the kernel. */
#include <tpoint/define_trace.h>
