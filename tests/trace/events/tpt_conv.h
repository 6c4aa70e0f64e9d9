/* SPDX-License-Identifier: MIT */
/*
 * Events of tests/convtarget.c, for tests/convert.sh: every kind of field a converter types
 * (integers of each size and sign, hex-printed ones, a pointer, char and integer arrays, a
 * struct, strings, dynamic and relative arrays, a bitmask, symbolic and flags fields), and
 * a conditional event.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_conv

#if !defined(_TRACE_TPT_CONV_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_CONV_H

#include <tpoint/tracepoint.h>

#ifndef CONV_ONCE
#define CONV_ONCE
struct conv_pair { int a, b; };
enum conv_state { CONV_IDLE = 0, CONV_BUSY = 3, CONV_DONE = 7 };
#endif

TRACE_DEFINE_ENUM(CONV_IDLE);
TRACE_DEFINE_ENUM(CONV_BUSY);
TRACE_DEFINE_ENUM(CONV_DONE);

TRACE_EVENT(conv_ints,
	TP_PROTO(long i),
	TP_ARGS(i),
	TP_STRUCT__entry(
		__field(s8, s8v)
		__field(u8, u8v)
		__field(short, s16v)
		__field(unsigned short, u16v)
		__field(int, s32v)
		__field(unsigned int, u32v)
		__field(long long, s64v)
		__field(u64, u64v)
		__field(unsigned long, hexv)
		__field(void *, ptr)
	),
	TP_fast_assign(
		__entry->s8v = (s8)(-i);
		__entry->u8v = (u8)(200 + i);
		__entry->s16v = (short)(-1000 * i);
		__entry->u16v = (unsigned short)(60000 + i);
		__entry->s32v = (int)(-100000 * i);
		__entry->u32v = 4000000000u + (unsigned int)i;
		__entry->s64v = -(1LL << 40) * i;
		__entry->u64v = 18446744073709551615ULL - (u64)i;
		__entry->hexv = 0xdead0000UL + (unsigned long)i;
		__entry->ptr = (void *)(0x1000UL * (unsigned long)(i + 1));
	),
	TP_printk("s8=%d u8=%u s16=%d u16=%u s32=%d u32=%u s64=%lld u64=%llu hex=%lx ptr=%p",
		  __entry->s8v, __entry->u8v, __entry->s16v, __entry->u16v, __entry->s32v,
		  __entry->u32v, __entry->s64v, __entry->u64v, __entry->hexv, __entry->ptr)
);

TRACE_EVENT(conv_arrays,
	TP_PROTO(long i, const char *name, const int *vals, int nvals),
	TP_ARGS(i, name, vals, nvals),
	TP_STRUCT__entry(
		__array(char, tag, 8)
		__array(u8, mac, 6)
		__array(int, quad, 4)
		__field_struct(struct conv_pair, pair)
		__string(name, name)
		__dynamic_array(int, vals, nvals)
		__rel_dynamic_array(u16, shorts, 3)
		__rel_string(rname, name)
		__bitmask(bits, 64)
	),
	TP_fast_assign(
		unsigned long bits = 0x5UL << (i % 8);

		snprintf(__entry->tag, sizeof(__entry->tag), "t%ld", i);
		for (int k = 0; k < 6; k++)
			__entry->mac[k] = (u8)(0x10 * k + (int)(i & 0xf));
		for (int k = 0; k < 4; k++)
			__entry->quad[k] = (int)(k - 2) * (int)i;
		__entry->pair.a = (int)i;
		__entry->pair.b = -1;
		__assign_str(name);
		memcpy(__get_dynamic_array(vals), vals, nvals * sizeof(int));
		for (int k = 0; k < 3; k++)
			((u16 *)__get_rel_dynamic_array(shorts))[k] = (u16)(i + k);
		__assign_rel_str(rname, name);
		__assign_bitmask(bits, &bits, 64);
	),
	TP_printk("tag=%s mac=%s quad=%d,%d,%d,%d name=%s vals={%s} shorts={%s} rname=%s bits=%s",
		  __entry->tag, __print_hex(__entry->mac, 6), __entry->quad[0], __entry->quad[1],
		  __entry->quad[2], __entry->quad[3], __get_str(name),
		  __print_array(__get_dynamic_array(vals),
				__get_dynamic_array_len(vals) / 4, 4),
		  __print_array(__get_rel_dynamic_array(shorts), 3, 2),
		  __get_rel_str(rname), __get_bitmask(bits))
);

TRACE_EVENT(conv_syms,
	TP_PROTO(long i),
	TP_ARGS(i),
	TP_STRUCT__entry(
		__field(int, state)
		__field(unsigned int, flags)
	),
	TP_fast_assign(
		static const int states[] = { CONV_IDLE, CONV_BUSY, CONV_DONE, 5 };

		__entry->state = states[i % 4];
		__entry->flags = (unsigned int)(i % 16) | 0x100;
	),
	TP_printk("state=%s flags=%s",
		  __print_symbolic(__entry->state, { CONV_IDLE, "idle" }, { CONV_BUSY, "busy" },
				   { CONV_DONE, "done" }),
		  __print_flags(__entry->flags, "|", { 1, "A" }, { 2, "B" }, { 4, "C" },
				{ 8, "D" }))
);

TRACE_EVENT_CONDITION(conv_cond,
	TP_PROTO(long i),
	TP_ARGS(i),
	TP_CONDITION(i % 3 == 0),
	TP_STRUCT__entry(__field(long, i)),
	TP_fast_assign(__entry->i = i;),
	TP_printk("i=%ld", __entry->i)
);

#endif

#include <tpoint/define_trace.h>
