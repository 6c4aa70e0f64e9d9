/* SPDX-License-Identifier: MIT */
/*
 * tpoint/kernel.h - what the field macros of the kernel's trace headers need in userspace.
 * Included by <tpoint/tracepoint.h>.
 *
 * The mappings (README, "The kernel's vocabulary"):
 *
 *	struct cpumask, cpumask_t   a bitmap of TPOINT_NR_CPUMASK_BITS (1024) CPUs in unsigned
 *	                            longs: glibc's cpu_set_t has the same layout, so
 *	                            tpoint_cpumask(&set) passes one where a cpumask is wanted
 *	cpumask_bits(mask)          its unsigned long words
 *	nr_cpumask_bits             the CPUs this machine may have (sysconf(_SC_NPROCESSORS_CONF),
 *	num_possible_cpus()         read once): the bits a __cpumask records, as the kernel
 *	                            records nr_cpu_ids bits. Define nr_cpumask_bits before
 *	                            including a trace header to record another number.
 *	BITS_PER_LONG, BITS_PER_BYTE
 *
 * The macros are defined only where the program has not defined them, and nothing of this list
 * with TPOINT_NO_KERNEL_TYPES. The rest are helpers of the stages (tpoint_*, TPOINT_*).
 */
#ifndef TPOINT_KERNEL_H
#define TPOINT_KERNEL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The kernel's TRACE_EVENT_STR_MAX: the longest __vstring, its NUL included. */
#define TPOINT_EVENT_STR_MAX 512
#define TPOINT_NR_CPUMASK_BITS 1024
#define TPOINT_BITS_PER_LONG (8 * (int)sizeof(unsigned long))
/* Bitmaps are recorded in whole unsigned longs, as the kernel records them. */
#define TPOINT_BITS_TO_LONGS(nr_bits)                                                          \
	(((size_t)(nr_bits) + (size_t)TPOINT_BITS_PER_LONG - 1) / (size_t)TPOINT_BITS_PER_LONG)
#define TPOINT_BITMASK_BYTES(nr_bits) (TPOINT_BITS_TO_LONGS(nr_bits) * sizeof(unsigned long))


/* The CPUs this machine may have, 1 to TPOINT_NR_CPUMASK_BITS; one sysconf() per object. */
static inline unsigned int tpoint_nr_cpu_ids(void)
{
	static unsigned int n;
	unsigned int v = __atomic_load_n(&n, __ATOMIC_RELAXED);

	if (!v) {
		long c = sysconf(_SC_NPROCESSORS_CONF);

		v = c < 1 ? 1u : c > TPOINT_NR_CPUMASK_BITS ? TPOINT_NR_CPUMASK_BITS : (unsigned)c;
		__atomic_store_n(&n, v, __ATOMIC_RELAXED);
	}
	return v;
}

/*
 * The record's dynamic part lies past the struct that describes its fixed part; the empty asm
 * hides the struct from the compiler's object-size reasoning (-Wstringop-overflow) and costs
 * no instruction.
 */
#define TPOINT_LAUNDER(p) __asm__("" : "+r"(p))

/* The bytes vsnprintf makes of fmt and *ap with the NUL, at most TPOINT_EVENT_STR_MAX. */
static inline uint32_t tpoint_vstr_len(const char *fmt, va_list *ap)
{
	va_list cp;
	int n;

	va_copy(cp, *ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return 1;
	return n + 1 > TPOINT_EVENT_STR_MAX ? TPOINT_EVENT_STR_MAX : (uint32_t)n + 1;
}

static inline void tpoint_vstr_copy(char *to, uint32_t room, const char *fmt, va_list *ap)
{
	va_list cp;

	TPOINT_LAUNDER(to);
	va_copy(cp, *ap);
	if (vsnprintf(to, room, fmt, cp) < 0)
		to[0] = 0;
	va_end(cp);
}

/* Copy want bytes of src into a field of room bytes, and no more than room. */
static inline void tpoint_copy_min(void *to, uint32_t room, const void *src, size_t want)
{
	TPOINT_LAUNDER(to);
	memcpy(to, src, want < room ? want : room);
}

/*
 * A __string's copy on the inline path, at most TPOINT_INLINE_COPY_MAX bytes: 16-byte moves
 * and an overlapping last one, with no call. A call to memcpy() would have the hit function
 * save and restore every register that holds the record's state across it (six pushes and
 * pops for a 32-byte string); longer strings record through the out-of-line path, which
 * calls memcpy().
 */
static inline void tpoint_copy_short(char *to, const char *src, uint32_t len)
{
	char a[16], b[16];
	uint32_t i;

	TPOINT_LAUNDER(to);
	if (len >= 16) {
		for (i = 0; i + 16 < len; i += 16) {
			memcpy(a, src + i, 16);
			memcpy(to + i, a, 16);
		}
		memcpy(a, src + len - 16, 16);
		memcpy(to + len - 16, a, 16);
	} else if (len >= 8) {
		memcpy(a, src, 8);
		memcpy(b, src + len - 8, 8);
		memcpy(to, a, 8);
		memcpy(to + len - 8, b, 8);
	} else if (len >= 4) {
		memcpy(a, src, 4);
		memcpy(b, src + len - 4, 4);
		memcpy(to, a, 4);
		memcpy(to + len - 4, b, 4);
	} else if (len) {
		to[0] = src[0];
		to[len / 2] = src[len / 2];
		to[len - 1] = src[len - 1];
	}
}

/*
 * A __string_len's copy: len - 1 bytes of src and a NUL. The kernel copies len - 1 bytes
 * whatever src holds; a program that gives a length past its string's end would have it
 * read past the string (a crash at a page's end, garbage in the record): the copy stops at
 * the string's NUL instead and zeroes the rest, which prints the same.
 */
static inline void tpoint_copy_str_nul(char *to, uint32_t len, const char *src)
{
	const char *nul = (const char *)memchr(src, 0, len - 1); /* strnlen is not ISO C */
	size_t n = nul ? (size_t)(nul - src) : len - 1;

	TPOINT_LAUNDER(to);
	memcpy(to, src, n);
	memset(to + n, 0, len - n);
}

/* Never called: TP_printk's arguments are compiled as its arguments, so that a field that
 * does not exist is a compiler error that names it. */
static inline void tpoint_printk_args(const char *fmt, ...)
{
	(void)fmt;
}

/* __print_array's first argument is a pointer or an array, its element size 1, 2, 4 or 8. */
static inline const char *tpoint_print_array_check(const void *array, size_t count, int el_size)
{
	(void)array;
	(void)count;
	(void)el_size;
	return "";
}
#ifdef __cplusplus
template <unsigned long N> struct tpoint_print_array_el_size_must_be_1_2_4_or_8;
template <> struct tpoint_print_array_el_size_must_be_1_2_4_or_8<1> { enum { v = 1 }; };
template <> struct tpoint_print_array_el_size_must_be_1_2_4_or_8<2> { enum { v = 2 }; };
template <> struct tpoint_print_array_el_size_must_be_1_2_4_or_8<4> { enum { v = 4 }; };
template <> struct tpoint_print_array_el_size_must_be_1_2_4_or_8<8> { enum { v = 8 }; };
#define TPOINT_PRINT_ARRAY_EL_SIZE(el_size)                                                    \
	((int)tpoint_print_array_el_size_must_be_1_2_4_or_8<(unsigned long)(el_size)>::v)
#else
#define TPOINT_PRINT_ARRAY_EL_SIZE(el_size)                                                    \
	((int)sizeof(struct {                                                                  \
		int __print_array_el_size_must_be_1_2_4_or_8 : ((el_size) == 1 ||              \
			(el_size) == 2 || (el_size) == 4 || (el_size) == 8) ? 1 : -1;           \
	}) * 0 + (int)(el_size))
#endif

#ifndef TPOINT_NO_KERNEL_TYPES
struct cpumask {
	unsigned long bits[TPOINT_NR_CPUMASK_BITS / (8 * sizeof(unsigned long))];
};
typedef struct cpumask cpumask_t;
#ifndef cpumask_bits
#define cpumask_bits(maskp) ((maskp)->bits)
#endif
#ifndef nr_cpumask_bits
#define nr_cpumask_bits tpoint_nr_cpu_ids()
#endif
#ifndef num_possible_cpus
#define num_possible_cpus() tpoint_nr_cpu_ids()
#endif
#ifndef BITS_PER_LONG
#define BITS_PER_LONG TPOINT_BITS_PER_LONG
#endif
#ifndef BITS_PER_BYTE
#define BITS_PER_BYTE 8
#endif
#endif /* TPOINT_NO_KERNEL_TYPES */

/* A cpu_set_t where a cpumask is wanted: the same bits in the same words. */
#define tpoint_cpumask(setp) ((const struct cpumask *)(const void *)(setp))

#endif /* TPOINT_KERNEL_H */
