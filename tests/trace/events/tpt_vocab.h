/* SPDX-License-Identifier: MIT */
/*
 * The kernel's TRACE_EVENT vocabulary, in the kernel's style: every field macro, assign and
 * get helper and print helper that the kernel's samples/trace_events header uses, used the
 * way it uses them, plus the other helpers of include/trace/stages/. tests/vocab_test.c
 * drives it.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_vocab

#if !defined(_TRACE_TPT_VOCAB_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_VOCAB_H

#include <tpoint/tracepoint.h>

#ifndef VOCAB_ONCE
#define VOCAB_ONCE
enum vocab_level { VOCAB_LOW = 2, VOCAB_MID = 4, VOCAB_HIGH = 8 };
typedef struct vocab_pair { int a, b; } vocab_pair_t;
extern int vocab_regs, vocab_unregs, vocab_reg_result;
int vocab_reg(void);
void vocab_unreg(void);
#endif

TRACE_DEFINE_ENUM(VOCAB_LOW);
TRACE_DEFINE_ENUM(VOCAB_MID);
TRACE_DEFINE_ENUM(VOCAB_HIGH);
TRACE_DEFINE_SIZEOF(vocab_pair_t);

TRACE_EVENT(vocab_all,
	TP_PROTO(const char *name, int num, const int *list, int nlist, const char *str,
		 const unsigned long *bits, int nbits, const struct cpumask *cpus,
		 int head_len, const char *fmt, va_list *va),
	TP_ARGS(name, num, list, nlist, str, bits, nbits, cpus, head_len, fmt, va),
	TP_STRUCT__entry(
		__array(	char,	name,	10			)
		__field(	int,	num				)
		__dynamic_array(int,	list,	nlist			)
		__string(	str,	str				)
		__bitmask(	bits,	nbits				)
		__cpumask(	cpus					)
		__vstring(	msg,	fmt,	va			)
		__string_len(	head,	name,	head_len		)
	),
	TP_fast_assign(
		snprintf(__entry->name, sizeof(__entry->name), "%s", name);
		__entry->num = num;
		memcpy(__get_dynamic_array(list), list, nlist * sizeof(int));
		__assign_str(str, str);
		__assign_bitmask(bits, bits, nbits);
		__assign_cpumask(cpus, cpumask_bits(cpus));
		__assign_vstr(msg, fmt, va);
		__assign_str(head);
	),
	TP_printk("name %s num %d %s %s %s %s %s %s (%s) (%s) %s [%d] %*pbl",
		  __entry->name, __entry->num,
		  __print_symbolic(__entry->num, { 0, "zero" }, { VOCAB_LOW, "LOW" },
				   { VOCAB_MID, "MID" }, { VOCAB_HIGH, "HIGH" }),
		  __print_flags(__entry->num, "|", { 1, "B1" }, { 2, "B2" }, { 4, "B4" },
				{ 8, "B8" }),
		  __print_array(__get_dynamic_array(list),
				__get_dynamic_array_len(list) / sizeof(int), sizeof(int)),
		  __print_dynamic_array(list, sizeof(int)),
		  __get_str(str), __get_str(head),
		  __get_bitmask(bits), __get_cpumask(cpus),
		  __get_str(msg),
		  __get_dynamic_array_len(cpus),
		  __get_dynamic_array_len(cpus),
		  __get_dynamic_array(cpus))
);

TRACE_EVENT_CONDITION(vocab_cond,
	TP_PROTO(const char *s, int n),
	TP_ARGS(s, n),
	TP_CONDITION(!(n % 10)),
	TP_STRUCT__entry(
		__string(	s,	s	)
		__field(	int,	n	)
	),
	TP_fast_assign(
		__assign_str(s);
		__entry->n = n;
	),
	TP_printk("s %s %d", __get_str(s), __entry->n)
);

TRACE_EVENT_FN(vocab_fn,
	TP_PROTO(const char *s, int n),
	TP_ARGS(s, n),
	TP_STRUCT__entry(
		__string(	s,	s	)
		__field(	int,	n	)
	),
	TP_fast_assign(
		__assign_str(s, s);
		__entry->n = n;
	),
	TP_printk("s %s %d", __get_str(s), __entry->n),
	vocab_reg, vocab_unreg
);

DECLARE_EVENT_CLASS(vocab_class,
	TP_PROTO(const char *s, int n),
	TP_ARGS(s, n),
	TP_STRUCT__entry(
		__string(	s,	s	)
		__field(	int,	n	)
	),
	TP_fast_assign(
		__assign_str(s, s);
		__entry->n = n;
	),
	TP_printk("s %s %d", __get_str(s), __entry->n)
);

DEFINE_EVENT(vocab_class, vocab_simple,
	TP_PROTO(const char *s, int n),
	TP_ARGS(s, n));

DEFINE_EVENT_CONDITION(vocab_class, vocab_class_cond,
	TP_PROTO(const char *s, int n),
	TP_ARGS(s, n),
	TP_CONDITION(!(n % 8)));

DEFINE_EVENT_FN(vocab_class, vocab_class_fn,
	TP_PROTO(const char *s, int n),
	TP_ARGS(s, n),
	vocab_reg, vocab_unreg);

DEFINE_EVENT_PRINT(vocab_class, vocab_print,
	TP_PROTO(const char *s, int n),
	TP_ARGS(s, n),
	TP_printk("other %s %d", __get_str(s), __entry->n));

TRACE_EVENT(vocab_rel,
	TP_PROTO(const char *s, int n, const unsigned long *mask, const cpumask_t *cpus,
		 const u16 *vals, int nvals, const char *tail, int tail_len),
	TP_ARGS(s, n, mask, cpus, vals, nvals, tail, tail_len),
	TP_STRUCT__entry(
		__rel_string(		s,	s				)
		__field(		int,	n				)
		__rel_bitmask(		mask,	BITS_PER_BYTE * sizeof(unsigned long))
		__rel_cpumask(		cpus					)
		__rel_dynamic_array(	u16,	vals,	nvals			)
		__rel_string_len(	tail,	tail,	tail_len		)
	),
	TP_fast_assign(
		__assign_rel_str(s, s);
		__entry->n = n;
		__assign_rel_bitmask(mask, mask, BITS_PER_BYTE * sizeof(unsigned long));
		__assign_rel_cpumask(cpus, cpus);
		memcpy(__get_rel_dynamic_array(vals), vals, nvals * sizeof(u16));
		__assign_rel_str(tail);
	),
	TP_printk("rel %s, %d, %s, %s, %s", __get_rel_str(s), __entry->n,
		  __get_rel_bitmask(mask), __get_rel_cpumask(cpus),
		  __get_rel_str(tail))
);

TRACE_EVENT_FN_COND(vocab_more,
	TP_PROTO(u64 flags, u64 sym, u64 ns, const u8 *buf, int len),
	TP_ARGS(flags, sym, ns, buf, len),
	TP_CONDITION(len >= 0),
	TP_STRUCT__entry(
		__field(	u64,	flags			)
		__field(	u64,	sym			)
		__field(	u64,	ns			)
		__field(	int,	size			)
		__dynamic_array(u8,	buf,	len		)
		__sockaddr(	addr,	len			)
	),
	TP_fast_assign(
		__entry->flags = flags;
		__entry->sym = sym;
		__entry->ns = ns;
		__entry->size = sizeof(vocab_pair_t);
		memcpy(__get_dynamic_array(buf), buf, len);
		__assign_sockaddr(addr, buf, len);
	),
	TP_printk("f=%s s=%s t=%llu.%09u hex=%s hs=%s sz=%d/%d n=%d",
		  __print_flags_u64(__entry->flags, "|", { 1ULL << 40, "HI" }, { 1, "LO" }),
		  __print_symbolic_u64(__entry->sym, { 1ULL << 33, "BIG" }, { 3, "THREE" }),
		  __print_ns_to_secs(__entry->ns), __print_ns_without_secs(__entry->ns),
		  __print_hex(__get_dynamic_array(buf), __get_dynamic_array_len(buf)),
		  __print_hex_str(__get_dynamic_array(buf), __get_dynamic_array_len(buf)),
		  __entry->size, (int)sizeof(vocab_pair_t),
		  __get_dynamic_array_len(addr)),
	NULL, NULL
);

#endif /* _TRACE_TPT_VOCAB_H */

#include <tpoint/define_trace.h>
