// SPDX-License-Identifier: MIT
/*
 * arm64 CRC32C (crc32c.h) with the CRC32 extension's crc32cx, eight bytes at a time. The
 * extension is optional before ARMv8.1: compiled in for any arm64 target, used when the
 * kernel says the CPU has it (HWCAP_CRC32), or always when the target guarantees it.
 */
#if defined(__aarch64__)
#include <string.h>
#include <sys/auxv.h>
#include "../crc32c.h"

#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif

/* The extension named in the assembly itself: GCC and clang spell the target attribute
 * differently, and the rest of the file must not assume the CPU has it. */
static uint32_t crc32c_armv8(uint32_t crc, const void *p, size_t len)
{
	const unsigned char *s = p;

	crc = ~crc;
	for (; len >= 8; len -= 8, s += 8) {
		uint64_t w;

		memcpy(&w, s, 8);
		__asm__(".arch_extension crc\n\tcrc32cx %w0, %w0, %x1" : "+r"(crc) : "r"(w));
	}
	while (len--) {
		uint32_t b = *s++;

		__asm__(".arch_extension crc\n\tcrc32cb %w0, %w0, %w1" : "+r"(crc) : "r"(b));
	}
	return ~crc;
}

crc32c_fn tp_crc32c_arch(void)
{
#ifdef __ARM_FEATURE_CRC32
	return crc32c_armv8;
#else
	return getauxval(AT_HWCAP) & HWCAP_CRC32 ? crc32c_armv8 : NULL;
#endif
}
#endif
