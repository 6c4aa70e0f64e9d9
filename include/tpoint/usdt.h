/* SPDX-License-Identifier: MIT */
/*
 * tpoint/usdt.h - every event is also a USDT probe, as <sys/sdt.h> would declare it, so that
 * bpftrace, perf, gdb and SystemTap find it with no extra step (usdt:PATH:system:name).
 *
 * <tpoint/stages/6_hit.h> includes this; nothing here is for direct use. Each event defined
 * by CREATE_TRACE_POINTS gets one probe, in its hit path behind TP_CONDITION, written out
 * as the stapsdt format defines it:
 *
 *	a `nop` (the probe's address), and in the non-allocated section .note.stapsdt a note
 *	of type 3, owner "stapsdt": the nop's address, the address of .stapsdt.base (tools
 *	compare it with where the object was loaded, for prelinked files), the address of the
 *	semaphore, the provider (TRACE_SYSTEM), the name, and the arguments as
 *	"size@location ...": the size in bytes, negative for a signed integer, the location in
 *	the assembler's syntax (a register, a memory operand, or $constant).
 *
 * The semaphore is the high half of the event's enable word (<tpoint/event.h>), so that the
 * call site's one load and one branch see an attached consumer without another instruction;
 * the event descriptor lives in the section .probes because that is where tools (bcc, and so
 * bpftrace) look for semaphores when they turn an address into the file offset the kernel's
 * uprobe counts in.
 *
 * The probe sits in the object that defines the event, not at each call site: the kernel
 * counts in a semaphore of the probed file, and a call site in another object (a program
 * calling a library's event) tests the defining object's word. The probe fires only after
 * TP_CONDITION holds, in the cold part of the hit path, so the recording path keeps its
 * instructions.
 *
 * Arguments are the TP_PROTO arguments in order, the first TPOINT_USDT_MAX_ARGS of them (the
 * format's limit). An integer, enum, bool or pointer is carried as it is (pointers as 8-byte
 * unsigned); any other (a struct or a floating-point value) is carried as the constant 0,
 * so that the arguments after it keep their numbers.
 *
 * -DTPOINT_NO_USDT compiles an event file without probes; architectures other than x86-64
 * and arm64 have none either.
 */
#ifndef TPOINT_USDT_H
#define TPOINT_USDT_H

#if !defined(TPOINT_NO_USDT) && (defined(__x86_64__) || defined(__aarch64__))
#define TPOINT_USDT 1
#else
#define TPOINT_USDT 0
#endif

#define TPOINT_USDT_MAX_ARGS 12

/* The semaphore's byte offset in struct tpoint_event: the high half of `enabled`. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define TPOINT_USDT_SEMAPHORE_OFFSET "+0"
#else
#define TPOINT_USDT_SEMAPHORE_OFFSET "+2"
#endif

/*
 * One argument: the value the note locates (the argument, or 0 for a type no tool reads),
 * and its size, negated for a signed integer, as an "n" operand that %c prints bare.
 */
#ifdef __cplusplus
#include <type_traits>
template <typename T> struct tpoint_usdt_carried {
	static const bool value = std::is_integral<T>::value || std::is_enum<T>::value ||
				  std::is_pointer<T>::value;
};
template <typename T>
static inline typename std::enable_if<tpoint_usdt_carried<T>::value, T>::type
tpoint_usdt_value(T v)
{
	return v;
}
template <typename T>
static inline typename std::enable_if<!tpoint_usdt_carried<T>::value, int>::type
tpoint_usdt_value(const T &)
{
	return 0;
}
#define TPOINT_USDT_VALUE(x) tpoint_usdt_value(x)
#define TPOINT_USDT_SIGNED(x) std::is_signed<decltype(tpoint_usdt_value(x))>::value
#else
/* GCC's and clang's type classes: integer, char, enum, bool, pointer, reference. */
#define TPOINT_USDT_CARRIED(x)                                                                \
	(__builtin_classify_type(x) >= 1 && __builtin_classify_type(x) <= 6)
#define TPOINT_USDT_VALUE(x) __builtin_choose_expr(TPOINT_USDT_CARRIED(x), (x), 0)
#define TPOINT_USDT_SIGNED(x)                                                                 \
	__builtin_choose_expr(__builtin_classify_type(TPOINT_USDT_VALUE(x)) == 5, 0,            \
			      (__typeof__(TPOINT_USDT_VALUE(x)))-1 <                          \
				      (__typeof__(TPOINT_USDT_VALUE(x)))1)
#endif
#define TPOINT_USDT_SIZE(x)                                                                   \
	(TPOINT_USDT_SIGNED(x) ? -(int)sizeof(TPOINT_USDT_VALUE(x))                             \
			       : (int)sizeof(TPOINT_USDT_VALUE(x)))

#define TPOINT_USDT_OP(i, x) [s##i] "n"(TPOINT_USDT_SIZE(x)), [a##i] "nor"(TPOINT_USDT_VALUE(x))
#define TPOINT_USDT_FMT(i) "%c[s" #i "]@%[a" #i "]"

/* How many arguments (up to 24), and the first 12 of them. */
#define TPOINT_USDT_NARGS(...)                                                                \
	TPOINT_USDT_NARGS_(__VA_ARGS__, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,     \
			   11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, ~)
#define TPOINT_USDT_NARGS_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15,   \
			   a16, a17, a18, a19, a20, a21, a22, a23, a24, n, ...)               \
	n
#define TPOINT_USDT_CAT_(a, b) a##b
#define TPOINT_USDT_CAT(a, b) TPOINT_USDT_CAT_(a, b)

#define TPOINT_USDT_FMT_1 TPOINT_USDT_FMT(0)
#define TPOINT_USDT_FMT_2 TPOINT_USDT_FMT_1 " " TPOINT_USDT_FMT(1)
#define TPOINT_USDT_FMT_3 TPOINT_USDT_FMT_2 " " TPOINT_USDT_FMT(2)
#define TPOINT_USDT_FMT_4 TPOINT_USDT_FMT_3 " " TPOINT_USDT_FMT(3)
#define TPOINT_USDT_FMT_5 TPOINT_USDT_FMT_4 " " TPOINT_USDT_FMT(4)
#define TPOINT_USDT_FMT_6 TPOINT_USDT_FMT_5 " " TPOINT_USDT_FMT(5)
#define TPOINT_USDT_FMT_7 TPOINT_USDT_FMT_6 " " TPOINT_USDT_FMT(6)
#define TPOINT_USDT_FMT_8 TPOINT_USDT_FMT_7 " " TPOINT_USDT_FMT(7)
#define TPOINT_USDT_FMT_9 TPOINT_USDT_FMT_8 " " TPOINT_USDT_FMT(8)
#define TPOINT_USDT_FMT_10 TPOINT_USDT_FMT_9 " " TPOINT_USDT_FMT(9)
#define TPOINT_USDT_FMT_11 TPOINT_USDT_FMT_10 " " TPOINT_USDT_FMT(10)
#define TPOINT_USDT_FMT_12 TPOINT_USDT_FMT_11 " " TPOINT_USDT_FMT(11)

/* Each takes one argument more than it uses (`~`), so that its "..." is never empty. */
#define TPOINT_USDT_OPS_1(a0, ...) TPOINT_USDT_OP(0, a0)
#define TPOINT_USDT_OPS_2(a0, a1, ...) TPOINT_USDT_OPS_1(a0, ~), TPOINT_USDT_OP(1, a1)
#define TPOINT_USDT_OPS_3(a0, a1, a2, ...) TPOINT_USDT_OPS_2(a0, a1, ~), TPOINT_USDT_OP(2, a2)
#define TPOINT_USDT_OPS_4(a0, a1, a2, a3, ...)                                                \
	TPOINT_USDT_OPS_3(a0, a1, a2, ~), TPOINT_USDT_OP(3, a3)
#define TPOINT_USDT_OPS_5(a0, a1, a2, a3, a4, ...)                                            \
	TPOINT_USDT_OPS_4(a0, a1, a2, a3, ~), TPOINT_USDT_OP(4, a4)
#define TPOINT_USDT_OPS_6(a0, a1, a2, a3, a4, a5, ...)                                        \
	TPOINT_USDT_OPS_5(a0, a1, a2, a3, a4, ~), TPOINT_USDT_OP(5, a5)
#define TPOINT_USDT_OPS_7(a0, a1, a2, a3, a4, a5, a6, ...)                                    \
	TPOINT_USDT_OPS_6(a0, a1, a2, a3, a4, a5, ~), TPOINT_USDT_OP(6, a6)
#define TPOINT_USDT_OPS_8(a0, a1, a2, a3, a4, a5, a6, a7, ...)                                \
	TPOINT_USDT_OPS_7(a0, a1, a2, a3, a4, a5, a6, ~), TPOINT_USDT_OP(7, a7)
#define TPOINT_USDT_OPS_9(a0, a1, a2, a3, a4, a5, a6, a7, a8, ...)                            \
	TPOINT_USDT_OPS_8(a0, a1, a2, a3, a4, a5, a6, a7, ~), TPOINT_USDT_OP(8, a8)
#define TPOINT_USDT_OPS_10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, ...)                       \
	TPOINT_USDT_OPS_9(a0, a1, a2, a3, a4, a5, a6, a7, a8, ~), TPOINT_USDT_OP(9, a9)
#define TPOINT_USDT_OPS_11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, ...)                  \
	TPOINT_USDT_OPS_10(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, ~), TPOINT_USDT_OP(10, a10)
#define TPOINT_USDT_OPS_12(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, ...)             \
	TPOINT_USDT_OPS_11(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, ~),                     \
		TPOINT_USDT_OP(11, a11)

#ifdef __LP64__
#define TPOINT_USDT_ADDR ".8byte"
#else
#define TPOINT_USDT_ADDR ".4byte"
#endif

/*
 * The probe: a nop, its note, and (once per object, in a COMDAT group as sdt.h has it) the
 * one-byte .stapsdt.base. provider and name are string literals, semaphore the symbol name of
 * the event descriptor, as text: an "i" operand cannot carry an address in PIC code.
 */
#define TPOINT_USDT_ASM(provider, name, semaphore, argfmt)                                    \
	"990:\tnop\n\t"                                                                        \
	".pushsection .note.stapsdt,\"?\",\"note\"\n\t"                                        \
	".balign 4\n\t"                                                                        \
	".4byte 992f-991f, 994f-993f, 3\n"                                                     \
	"991:\t.asciz \"stapsdt\"\n"                                                           \
	"992:\t.balign 4\n"                                                                    \
	"993:\t" TPOINT_USDT_ADDR " 990b\n\t" TPOINT_USDT_ADDR " _.stapsdt.base\n\t"           \
	TPOINT_USDT_ADDR " " semaphore TPOINT_USDT_SEMAPHORE_OFFSET "\n\t"                     \
	".asciz \"" provider "\"\n\t"                                                          \
	".asciz \"" name "\"\n\t"                                                              \
	".asciz \"" argfmt "\"\n"                                                              \
	"994:\t.balign 4\n\t"                                                                  \
	".popsection\n\t"                                                                      \
	".ifndef _.stapsdt.base\n\t"                                                           \
	".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n\t"              \
	".weak _.stapsdt.base\n\t"                                                             \
	".hidden _.stapsdt.base\n"                                                             \
	"_.stapsdt.base:\n\t"                                                                  \
	".space 1\n\t"                                                                         \
	".size _.stapsdt.base, 1\n\t"                                                          \
	".popsection\n\t"                                                                      \
	".endif"

#define TPOINT_USDT_PROBE_N(n, provider, name, semaphore, ...)                                \
	__asm__ __volatile__(TPOINT_USDT_ASM(provider, name, semaphore,                        \
					     TPOINT_USDT_CAT(TPOINT_USDT_FMT_, n))             \
			     : : TPOINT_USDT_CAT(TPOINT_USDT_OPS_, n)(__VA_ARGS__, ~))
#define TPOINT_USDT_PROBE(provider, name, semaphore, ...)                                     \
	TPOINT_USDT_PROBE_N(TPOINT_USDT_NARGS(__VA_ARGS__), provider, name, semaphore, __VA_ARGS__)

/*
 * The event descriptor, semaphore included, where tools look for semaphores. Aligned to 8
 * as its type is: gcc would align an object of 32 bytes or more to 32, 64 bytes a
 * descriptor of 48 (the fields a hit reads, its first 16 bytes, never cross a cache line).
 */
#if TPOINT_USDT
#define TPOINT_USDT_SECTION __attribute__((section(".probes"), aligned(8)))
#else
#define TPOINT_USDT_SECTION __attribute__((aligned(8)))
#endif

#endif /* TPOINT_USDT_H */
