/* SPDX-License-Identifier: MIT */
/*
 * Stage 6: the event descriptors and what runs once an event is enabled.
 *
 *	static inline void __tpoint_emit_foo(proto, struct tpoint_event *ev)	(per class)
 *	{
 *		struct tpoint_data_offsets_foo __data_offsets;
 *		size = __tpoint_get_offsets_foo(&__data_offsets, args);
 *		struct tpoint_raw_foo *__entry = tpoint_reserve(fixed part + size, &stream);
 *		if (!__entry) { __tpoint_emit_slow_foo(args, ev); return; }	(a tail call)
 *		__entry->__data_loc_s = __data_offsets.s;	(each dynamic field)
 *		{ TP_fast_assign }
 *		tpoint_publish(ev, stream, size): the clock, publish, count it;
 *	}
 *	__tpoint_emit_filtered_foo() is the same, out of line, ending in a tail call to
 *	tpoint_filter_commit_v2() (the filter judges, the library publishes or drops it);
 *	__tpoint_emit_slow_foo() has tpoint_make_room_v1() make room, then records through
 *	__tpoint_emit_filtered_foo(). __tpoint_record_class_foo(args, ev) is the inline one out
 *	of line, for the class's DEFINE_EVENTs; __tpoint_probes_class_foo(args, ev) their probe
 *	loop. The inline path calls nothing that returns to it, so it keeps the record's state
 *	in the registers a call would clobber.
 *
 *	struct tpoint_event __tpoint_event_bar = { 0, 0, TPOINT_ABI, ... };	(per event)
 *	void __tpoint_hit_bar(proto)
 *	{
 *		(asm: the entry of the object's table: offsets of the descriptor and records)
 *		if (!(TP_CONDITION)) { count it as skipped by the condition; return; }
 *		if (word == RECORD): a TRACE_EVENT's __tpoint_record_bar(args), which inlines
 *			__tpoint_emit_foo with the descriptor a constant; a DEFINE_EVENT's
 *			__tpoint_record_class_foo(args, &__tpoint_event_bar)	(tail calls)
 *		else if (word == RECORD | FILTER): __tpoint_emit_filtered_foo(args, &event)
 *		else: __tpoint_other_bar(args): the USDT probe, probes (a TRACE_EVENT's loop is
 *			in it, a DEFINE_EVENT calls its class's), a record	(cold)
 *	}
 *
 * The call site reached __tpoint_hit_bar only because the event's enable word was set, so
 * nothing here runs -- the condition included -- while the event is off.
 */
#define __field(type, item)
#define __field_ext(type, item, filter_type)
#define __field_struct(type, item)
#define __field_struct_ext(type, item, filter_type)
#define __array(type, item, len)
#define __dynamic_array(type, item, len) __entry->__data_loc_##item = __data_offsets.item;
#define __string(item, src) __dynamic_array(char, item, -1)
#define __string_len(item, src, len) __dynamic_array(char, item, -1)
#define __vstring(item, fmt, ap) __dynamic_array(char, item, -1)
#define __bitmask(item, nr_bits) __dynamic_array(unsigned long, item, -1)
#define __cpumask(item) __dynamic_array(unsigned long, item, -1)
#define __sockaddr(item, len) __dynamic_array(u8, item, len)
#define __rel_dynamic_array(type, item, len) __entry->__rel_loc_##item = __data_offsets.item;
#define __rel_string(item, src) __rel_dynamic_array(char, item, -1)
#define __rel_string_len(item, src, len) __rel_dynamic_array(char, item, -1)
#define __rel_bitmask(item, nr_bits) __rel_dynamic_array(unsigned long, item, -1)
#define __rel_cpumask(item) __rel_dynamic_array(unsigned long, item, -1)
#define __rel_sockaddr(item, len) __rel_dynamic_array(u8, item, len)

#define TP_STRUCT__entry(...) __VA_ARGS__
#define TP_fast_assign(...) __VA_ARGS__

#define __get_dynamic_array(field)                                                            \
	((void *)((char *)__entry + (__entry->__data_loc_##field & 0xffff)))
#define __get_dynamic_array_len(field) ((__entry->__data_loc_##field >> 16) & 0xffff)
#define __get_str(field) ((char *)__get_dynamic_array(field))
/* A __rel_loc word counts from its own end. */
#define __get_rel_dynamic_array(field)                                                        \
	((void *)((char *)&__entry->__rel_loc_##field + sizeof(uint32_t) +                      \
		  (__entry->__rel_loc_##field & 0xffff)))
#define __get_rel_dynamic_array_len(field) ((__entry->__rel_loc_##field >> 16) & 0xffff)
#define __get_rel_str(field) ((char *)__get_rel_dynamic_array(field))
#define __get_bitmask(field) ((char *)__get_dynamic_array(field))
#define __get_cpumask(field) ((char *)__get_dynamic_array(field))
#define __get_rel_bitmask(field) ((char *)__get_rel_dynamic_array(field))
#define __get_rel_cpumask(field) ((char *)__get_rel_dynamic_array(field))
#define __get_sockaddr(field) ((struct sockaddr *)__get_dynamic_array(field))
#define __get_rel_sockaddr(field) ((struct sockaddr *)__get_rel_dynamic_array(field))
/*
 * Both forms, __assign_str(dst) and __assign_str(dst, src), copy the source measured when the
 * record was sized, as the kernel's one-argument form does: the string cannot overflow its
 * room if it changed in between. One variadic parameter, not (dst, ...): ISO C before C23
 * wants an argument for the "..." of the one-argument form. A __string's source brings its
 * NUL; a __string_len's gets one (dst##_len_ has 2 elements then, a constant).
 */
#define __assign_str(...) TPOINT_ASSIGN_STR_(TPOINT_FIRST_ARG(__VA_ARGS__))
#define TPOINT_ASSIGN_STR_(dst) TPOINT_ASSIGN_STR(dst) /* expands dst before it is pasted */
#define TPOINT_ASSIGN_STR(dst)                                                                \
	TPOINT_COPY_STR(__get_str(dst), __get_dynamic_array_len(dst), dst)
#define TPOINT_COPY_STR(to, len, dst)                                                         \
	do {                                                                                   \
		if (sizeof(__data_offsets.dst##_len_) == 2)                                    \
			tpoint_copy_str_nul(to, len, __data_offsets.dst##_ptr_);               \
		else if (__tpoint_inline_copy)                                                 \
			tpoint_copy_short(to, __data_offsets.dst##_ptr_, len);                 \
		else                                                                           \
			memcpy(to, __data_offsets.dst##_ptr_, len);                            \
	} while (0)
/* The kernel's 6.x forms with a source and a length: the same copy. */
#define __assign_str_len(...) __assign_str(__VA_ARGS__)
#define __assign_rel_str(...) TPOINT_ASSIGN_REL_STR_(TPOINT_FIRST_ARG(__VA_ARGS__))
#define __assign_rel_str_len(...) __assign_rel_str(__VA_ARGS__)
#define TPOINT_ASSIGN_REL_STR_(dst) TPOINT_ASSIGN_REL_STR(dst)
#define TPOINT_ASSIGN_REL_STR(dst)                                                            \
	TPOINT_COPY_STR(__get_rel_str(dst), __get_rel_dynamic_array_len(dst), dst)
/* vsnprintf again, into the room measured: the same text, or its first part. */
#define __assign_vstr(dst, fmt, va)                                                           \
	tpoint_vstr_copy(__get_str(dst), __get_dynamic_array_len(dst), (fmt), (va))
/* At most the field's room: an nr_bits larger than the field's does not overflow it. */
#define __assign_bitmask(dst, src, nr_bits)                                                   \
	tpoint_copy_min(__get_dynamic_array(dst), __get_dynamic_array_len(dst), (src),         \
			TPOINT_BITMASK_BYTES(nr_bits))
#define __assign_cpumask(dst, src)                                                            \
	tpoint_copy_min(__get_dynamic_array(dst), __get_dynamic_array_len(dst), (src),         \
			TPOINT_BITMASK_BYTES(nr_cpumask_bits))
#define __assign_rel_bitmask(dst, src, nr_bits)                                               \
	tpoint_copy_min(__get_rel_dynamic_array(dst), __get_rel_dynamic_array_len(dst), (src), \
			TPOINT_BITMASK_BYTES(nr_bits))
#define __assign_rel_cpumask(dst, src)                                                        \
	tpoint_copy_min(__get_rel_dynamic_array(dst), __get_rel_dynamic_array_len(dst), (src), \
			TPOINT_BITMASK_BYTES(nr_cpumask_bits))
#define __assign_sockaddr(dst, src, len)                                                      \
	tpoint_copy_min(__get_dynamic_array(dst), __get_dynamic_array_len(dst), (src), (len))
#define __assign_rel_sockaddr(dst, src, len)                                                  \
	tpoint_copy_min(__get_rel_dynamic_array(dst), __get_rel_dynamic_array_len(dst), (src), \
			(len))

/*
 * Size, reserve through `reserve` (on_null when it failed), fill, and `finish`: publish and
 * count the record, or have a filter judge it first.
 */
#define TPOINT_EMIT_BODY(name, args, tstruct, assign, reserve, on_null, finish, inline_copy,   \
			 too_long)                                                             \
	struct tpoint_data_offsets_##name __data_offsets;                                       \
	struct tpoint_stream *__stream;                                                         \
	const int __tpoint_inline_copy = inline_copy;                                           \
	uint32_t __payload = (uint32_t)offsetof(struct tpoint_raw_##name, __data) +             \
			     __tpoint_get_offsets_##name(&__data_offsets, args);                \
	if (__payload > TPOINT_MAX_PAYLOAD) {                                                   \
		tpoint_count_lost_v1(__ev);                                                     \
		return;                                                                         \
	}                                                                                       \
	/* A record too long to copy its strings inline goes out of line (a constant test,  \
	 * gone, for an event of fixed size). */                                             \
	if (__tpoint_inline_copy && __payload > TPOINT_INLINE_COPY_MAX) {                       \
		too_long;                                                                       \
		return;                                                                         \
	}                                                                                       \
	struct tpoint_raw_##name *__entry = (struct tpoint_raw_##name *)reserve;                \
	if (__builtin_expect(!__entry, 0)) {                                                    \
		on_null;                                                                        \
		return;                                                                         \
	}                                                                                       \
	tstruct                                                                                 \
	{ assign; }                                                                             \
	finish;
/* Stamp, publish and count. */
#define TPOINT_FINISH_COMMIT tpoint_publish(__ev, __stream, __entry, __payload)
/*
 * The kernel's missing "never mind": a filter judges the filled record, in the library,
 * which publishes and counts it or drops it: a tail call, so that nothing here lives across
 * it.
 */
#define TPOINT_FINISH_FILTER tpoint_filter_commit_v2(__ev, __stream, __payload)
/*
 * TP_printk's arguments compiled in a function that is never called, as the kernel compiles
 * them: a field that does not exist, or a helper used wrongly, is a compiler error that names
 * it, not a format that fails when the trace is read.
 */
#define TPOINT_CHECK_PRINT(name, class_name, print)                                          \
	static __attribute__((unused)) void __tpoint_check_print_##name(                       \
		const struct tpoint_raw_##class_name *__entry)                                 \
	{                                                                                      \
		print;                                                                         \
	}
#define TP_printk(...) tpoint_printk_args(__VA_ARGS__)
#define __print_flags(flag, delim, ...) ((void)(flag), (const char *)(delim))
#define __print_symbolic(value, ...) ((void)(value), "")
#define __print_flags_u64(flag, delim, ...) ((void)(flag), (const char *)(delim))
#define __print_symbolic_u64(value, ...) ((void)(value), "")
/*
 * Any object's bytes, a struct's too (tpoint always allowed it), or an expression (buf + 1):
 * cast to void, never evaluated (the function is never called), so that clang does not
 * warn of sizeof on a decayed array.
 */
#define __print_hex(buf, buf_len) ((void)(buf), (void)(buf_len), "")
#define __print_hex_str(buf, buf_len) ((void)(buf), (void)(buf_len), "")
#define __print_hex_dump(prefix_str, prefix_type, rowsize, groupsize, buf, len, ascii)         \
	((void)(prefix_str), (void)(prefix_type), (void)(rowsize), (void)(groupsize),           \
	 (void)(ascii), (void)(buf), (void)(len), "")
#define __print_array(array, count, el_size)                                                  \
	tpoint_print_array_check((array), (count), TPOINT_PRINT_ARRAY_EL_SIZE(el_size))
#define __print_dynamic_array(array, el_size)                                                 \
	__print_array(__get_dynamic_array(array), __get_dynamic_array_len(array) / (el_size),  \
		      el_size)
#define __print_ns_to_secs(value) ((uint64_t)(value) / 1000000000u)
#define __print_ns_without_secs(value) ((uint32_t)((uint64_t)(value) % 1000000000u))

/*
 * Three ways to record a class's event. The inline one has no filter to ask: a call there
 * would keep the record's state alive across it, in registers that cost a save and a
 * restore on every event. An event with a filter has TPOINT_ENABLED_FILTER set and records
 * through the out-of-line one, which hands the filled record to the library to judge and
 * publish. Both go to the slow path when the fast one fails: the library makes room, and the
 * out-of-line path records there (asking a filter if there is one, as a filter set while a
 * hit is under way may find it).
 */
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)                        \
	TPOINT_CHECK_PRINT(name, name, print)                                                  \
	static void __tpoint_emit_filtered_##name(proto, struct tpoint_event *__ev);           \
	/* The library makes room, and the filtered path, which asks a filter if there is one, \
	 * records into it: the slow path has no copy of the fill of its own. */               \
	static __attribute__((noinline)) void __tpoint_emit_slow_##name(                       \
		proto, struct tpoint_event *__ev)                                              \
	{                                                                                      \
		struct tpoint_data_offsets_##name __data_offsets;                              \
		uint32_t __payload = (uint32_t)offsetof(struct tpoint_raw_##name, __data) +    \
				     __tpoint_get_offsets_##name(&__data_offsets, args);       \
		if (__payload <= TPOINT_MAX_PAYLOAD &&                                         \
		    !tpoint_make_room_v1(__ev, tpoint_record_total(__payload)))                \
			return;                                                                \
		__tpoint_emit_filtered_##name(args, __ev);                                     \
	}                                                                                      \
	static __attribute__((noinline)) void __tpoint_emit_filtered_##name(                   \
		proto, struct tpoint_event *__ev)                                              \
	{                                                                                      \
		TPOINT_EMIT_BODY(name, PARAMS(args), PARAMS(tstruct), PARAMS(assign),          \
				 tpoint_reserve(__payload, &__stream),                          \
				 __tpoint_emit_slow_##name(args, __ev), TPOINT_FINISH_FILTER,   \
				 0, (void)0)                                                    \
	}                                                                                      \
	static inline __attribute__((always_inline)) void __tpoint_emit_##name(               \
		proto, struct tpoint_event *__ev)                                              \
	{                                                                                      \
		TPOINT_EMIT_BODY(name, PARAMS(args), PARAMS(tstruct), PARAMS(assign),          \
				 tpoint_reserve(__payload, &__stream),                          \
				 __tpoint_emit_slow_##name(args, __ev), TPOINT_FINISH_COMMIT,   \
				 1, __tpoint_emit_filtered_##name(args, __ev))                  \
	}                                                                                      \
	/* The recording of the class's DEFINE_EVENTs, one copy for all (unused otherwise). */\
	static __attribute__((noinline, unused)) void __tpoint_record_class_##name(            \
		proto, struct tpoint_event *__ev)                                              \
	{                                                                                      \
		__tpoint_emit_##name(args, __ev);                                              \
	}                                                                                      \
	/* Their probe loop, the same. */                                                     \
	static __attribute__((noinline, cold, unused)) void __tpoint_probes_class_##name(      \
		proto, struct tpoint_event *__ev)                                              \
	{                                                                                      \
		TPOINT_PROBES_LOOP(name, PARAMS(proto), PARAMS(args))                          \
	}                                                                                      \
	TPOINT_DECL_END

/* Call the event's probes (acquire: the set's contents were written before it was
 * published), then record it if it records (the word read again: fewer values live across
 * the calls, and a smaller unwind table). */
#define TPOINT_PROBES_LOOP(template, proto, args)                                             \
	const struct tpoint_probe_set *__ps = (const struct tpoint_probe_set *)                \
		__atomic_load_n(&__ev->probes, __ATOMIC_ACQUIRE);                              \
	if (__ps)                                                                              \
		for (const struct tpoint_probe *__p = __ps->probe, *__end = __p + __ps->count; \
		     __p < __end; __p++)                                                       \
			((void (*)(void *, proto))__p->func)(__p->data, args);                 \
	if (__atomic_load_n(&__ev->enabled, __ATOMIC_RELAXED) & TPOINT_ENABLED_RECORD)         \
		__tpoint_emit_filtered_##template(args, __ev);

/*
 * What an event records and probes with. OWN for a TRACE_EVENT, its class's only event:
 * functions of its own, the descriptor a constant in them. SHARED for a DEFINE_EVENT: its
 * class's, the descriptor passed last, in a register, as the kernel passes its
 * trace_event_file: no code of the event's own but its hit function and its cold path.
 */
#define TPOINT_RECORD_FN_OWN(template, name, proto, args)
#define TPOINT_RECORD_FN_SHARED(template, name, proto, args)
#define TPOINT_RECORD_CALL_OWN(template, name, args)                                          \
	__tpoint_emit_##template(args, &TPOINT_EVENT_SYM(name))
#define TPOINT_RECORD_CALL_SHARED(template, name, args)                                       \
	__tpoint_record_class_##template(args, &TPOINT_EVENT_SYM(name))
/* A TRACE_EVENT's loop is in its out-of-line function (__tpoint_other_*). */
#define TPOINT_PROBES_CALL_OWN(template, proto, args)                                         \
	do {                                                                                   \
		TPOINT_PROBES_LOOP(template, PARAMS(proto), PARAMS(args))                      \
	} while (0)
#define TPOINT_PROBES_CALL_SHARED(template, proto, args)                                      \
	__tpoint_probes_class_##template(args, __ev)

/*
 * The event's entry in its object's table (struct tpoint_event_ref), as offsets the
 * assembler computes: asm in the hit function (emitted once, as the function is; a copy
 * the compiler might make of it is found by the registry to name a descriptor twice, and
 * skipped), which names the records as operands, so that the compiler keeps them and
 * spells their names as it emits them; the descriptor by a hidden alias, which the linker
 * resolves inside a shared library (the global symbol may be preempted there).
 */
#define TPOINT_EVENT_REF(template, name)                                                      \
	__asm__ __volatile__(".pushsection tpoint_events, \"a\"\n\t"                           \
			     ".balign 4\n\t"                                                   \
			     ".long %c0 - ., %c1 - ., %c2 - .\n\t"                             \
			     ".popsection"                                                     \
			     :                                                                 \
			     : TPOINT_ARCH_SYMBOL(&__tpoint_local_##name),                     \
			       TPOINT_ARCH_SYMBOL(&__tpoint_meta_class_##template),             \
			       TPOINT_ARCH_SYMBOL(&__tpoint_meta_event_##name))

#define TPOINT_DEFINE_HIT(template, name, proto, args, cond, kind)                           \
	TPOINT_DEFINE_HIT_FN(template, name, PARAMS(proto), PARAMS(args), PARAMS(cond), NULL, NULL, \
			     kind)
/* kind: OWN or SHARED (TPOINT_RECORD_FN_*). */
#define TPOINT_DEFINE_HIT_FN(template, name, proto, args, cond, reg, unreg, kind)             \
	struct tpoint_event TPOINT_EVENT_SYM(name) TPOINT_USDT_SECTION = {                     \
		0, 0, TPOINT_ABI, 0, 0, 0, NULL, NULL, reg, unreg                              \
	};                                                                                     \
	extern struct tpoint_event __tpoint_local_##name                                       \
		__attribute__((alias(TPOINT_STR(TPOINT_EVENT_SYM(name))), visibility("hidden"))); \
	TPOINT_RECORD_FN_##kind(template, name, PARAMS(proto), PARAMS(args))                   \
	/* Everything else, out of line: the USDT probe (<tpoint/usdt.h>) when a consumer is  \
	 * attached, then the probes (which record after them), or a record. The word is     \
	 * read again: it may have changed since the hit read it. */                          \
	static __attribute__((noinline, cold)) void __tpoint_other_##name(proto)               \
	{                                                                                      \
		struct tpoint_event *__ev = &TPOINT_EVENT_SYM(name);                           \
		uint32_t __enabled = __atomic_load_n(&__ev->enabled, __ATOMIC_RELAXED);         \
		if (TPOINT_USDT && __enabled > TPOINT_ENABLED_MASK)                            \
			TPOINT_USDT_PROBE(TPOINT_SYSTEM_STR, #name,                            \
					  TPOINT_STR(TPOINT_EVENT_SYM(name)), args);           \
		if (__enabled & TPOINT_ENABLED_PROBES)                                         \
			TPOINT_PROBES_CALL_##kind(template, PARAMS(proto), PARAMS(args));      \
		else if (__enabled & TPOINT_ENABLED_RECORD)                                    \
			__tpoint_emit_filtered_##template(args, __ev);                         \
	}                                                                                      \
	/* The condition first, then one compare for the common case, recording alone, and \
	 * a tail call; the next compare for a record that a filter judges (FILTER is only   \
	 * ever set with RECORD). A false condition returns without saving a register. */    \
	__attribute__((noinline)) void TPOINT_HIT_SYM(name)(proto)                             \
	{                                                                                      \
		struct tpoint_event *__ev = &TPOINT_EVENT_SYM(name);                           \
		TPOINT_EVENT_REF(template, name);                                              \
		if (!(cond)) {                                                                 \
			tpoint_count_one(&tpoint_counters_of(__ev)->cond_skipped);             \
			return;                                                                \
		}                                                                              \
		if (__builtin_expect(tpoint_enabled_peek(__ev) == TPOINT_ENABLED_RECORD, 1))   \
			TPOINT_RECORD_CALL_##kind(template, name, PARAMS(args));               \
		else if (__atomic_load_n(&__ev->enabled, __ATOMIC_RELAXED) == /* not merged */ \
			 (TPOINT_ENABLED_RECORD | TPOINT_ENABLED_FILTER))                      \
			__tpoint_emit_filtered_##template(args, __ev);                         \
		else                                                                           \
			__tpoint_other_##name(args);                                           \
	}                                                                                      \
	TPOINT_DECL_END

#define DEFINE_EVENT(template, name, proto, args)                                             \
	TPOINT_DEFINE_HIT(template, name, PARAMS(proto), PARAMS(args), 1, SHARED)
#define DEFINE_EVENT_CONDITION(template, name, proto, args, cond)                            \
	TPOINT_DEFINE_HIT(template, name, PARAMS(proto), PARAMS(args), PARAMS(cond), SHARED)
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)                               \
	TPOINT_CHECK_PRINT(name, template, print)                                              \
	TPOINT_DEFINE_HIT(template, name, PARAMS(proto), PARAMS(args), 1, SHARED)
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)                               \
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct), PARAMS(assign), \
			    PARAMS(print));                                                    \
	TPOINT_DEFINE_HIT(name, name, PARAMS(proto), PARAMS(args), 1, OWN)
#define TRACE_EVENT_CONDITION(name, proto, args, cond, tstruct, assign, print)               \
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct), PARAMS(assign), \
			    PARAMS(print));                                                    \
	TPOINT_DEFINE_HIT(name, name, PARAMS(proto), PARAMS(args), PARAMS(cond), OWN)
#define DEFINE_EVENT_FN(template, name, proto, args, reg, unreg)                             \
	TPOINT_DEFINE_HIT_FN(template, name, PARAMS(proto), PARAMS(args), 1, reg, unreg, SHARED)
#define TRACE_EVENT_FN(name, proto, args, tstruct, assign, print, reg, unreg)                 \
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct), PARAMS(assign), \
			    PARAMS(print));                                                    \
	TPOINT_DEFINE_HIT_FN(name, name, PARAMS(proto), PARAMS(args), 1, reg, unreg, OWN)
#define TRACE_EVENT_FN_COND(name, proto, args, cond, tstruct, assign, print, reg, unreg)      \
	DECLARE_EVENT_CLASS(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct), PARAMS(assign), \
			    PARAMS(print));                                                    \
	TPOINT_DEFINE_HIT_FN(name, name, PARAMS(proto), PARAMS(args), PARAMS(cond), reg, unreg, \
			     OWN)
#define TRACE_DEFINE_ENUM(a) TPOINT_DECL_END
#define TRACE_DEFINE_SIZEOF(a) TPOINT_DECL_END
