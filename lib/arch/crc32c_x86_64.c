// SPDX-License-Identifier: MIT
/*
 * x86-64 CRC32C (crc32c.h) with SSE4.2's crc32 instruction, eight bytes at a time. One
 * chain of them: a 4 KiB page is 512 instructions of 3 cycles' latency, well under the cost
 * of writing the page (`make bench`, spool_crc); three interleaved chains would need their
 * results combined, which is not worth it at that size.
 */
#if defined(__x86_64__)
#include <nmmintrin.h>
#include <string.h>
#include "../crc32c.h"

__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t c = ~crc;

	for (; len >= 8; len -= 8, s += 8) {
		uint64_t w;

		memcpy(&w, s, 8);
		c = _mm_crc32_u64(c, w);
	}
	crc = (uint32_t)c;
	while (len--)
		crc = _mm_crc32_u8(crc, *s++);
	return ~crc;
}

crc32c_fn tp_crc32c_arch(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("sse4.2") ? crc32c_sse42 : NULL;
}
#endif
