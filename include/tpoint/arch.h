/* SPDX-License-Identifier: MIT */
/*
 * tpoint/arch.h - the per-architecture primitives that call sites compile inline: a
 * timestamp, the current CPU, and the instruction of a jump-label site. Everything else in
 * tpoint is generic, but for the patching of those sites, in lib/arch/.
 */
#ifndef TPOINT_ARCH_H
#define TPOINT_ARCH_H

#include <stdint.h>
#include <stddef.h>

#if defined(__x86_64__)
#include <tpoint/arch/x86_64.h>
#elif defined(__aarch64__)
#include <tpoint/arch/aarch64.h>
#else
#include <tpoint/arch/generic.h>
#endif

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
/*
 * glibc registers an rseq area for every thread; the kernel keeps its cpu_id current, so the
 * CPU costs one load. Without rseq (older glibc, or the tunable glibc.pthread.rseq=0) the
 * value never changes, and all the pages of a thread are stamped with the CPU where it
 * started recording (page_cpu() in lib/writer.c).
 */
extern const ptrdiff_t __rseq_offset;
static inline uint32_t tpoint_arch_cpu_key(void)
{
#ifdef TPOINT_ARCH_RSEQ_CPU_ID
	return tpoint_arch_rseq_cpu_id(__rseq_offset);
#else
	return *(const volatile uint32_t *)((const char *)__builtin_thread_pointer() + __rseq_offset +
					    4 /* offsetof(struct rseq, cpu_id) */);
#endif
}
#else
static inline uint32_t tpoint_arch_cpu_key(void)
{
	return 0;
}
#endif

#endif /* TPOINT_ARCH_H */
