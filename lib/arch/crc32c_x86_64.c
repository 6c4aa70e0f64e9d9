// SPDX-License-Identifier: MIT
/*
 * x86-64 CRC32C (crc32c.h) with SSE4.2's crc32 instruction, eight bytes at a time. The
 * instruction takes 3 cycles and can start every cycle, so one chain of it runs at a third
 * of its speed: a long buffer goes as three chains over three neighbouring runs of LANE
 * bytes, and their values are joined by what LANE zero bytes do to a CRC (a linear map of
 * its 32 bits, applied by four table lookups). A full spool page is two such rounds.
 */
#if defined(__x86_64__)
#include <nmmintrin.h>
#include <string.h>
#include "../crc32c.h"

#define LANE 680u /* a page's 4080 bytes of records: two rounds of three */

/* shift[k][b]: the CRC register's byte k being b, after LANE zero bytes. */
static uint32_t shift[4][256];

__attribute__((target("sse4.2")))
static uint32_t zeros_after(uint32_t c)
{
	uint64_t x = c;

	for (unsigned i = 0; i < LANE; i += 8)
		x = _mm_crc32_u64(x, 0);
	return (uint32_t)x;
}

static uint32_t lane_shift(uint32_t c)
{
	return shift[0][c & 0xff] ^ shift[1][(c >> 8) & 0xff] ^ shift[2][(c >> 16) & 0xff] ^
	       shift[3][c >> 24];
}

__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t c = ~crc;

	for (; len >= 3 * LANE; len -= 3 * LANE, s += 3 * LANE) {
		uint64_t b = 0, d = 0;

		for (unsigned i = 0; i < LANE; i += 8) {
			uint64_t x, y, z;

			memcpy(&x, s + i, 8);
			memcpy(&y, s + LANE + i, 8);
			memcpy(&z, s + 2 * LANE + i, 8);
			c = _mm_crc32_u64(c, x);
			b = _mm_crc32_u64(b, y);
			d = _mm_crc32_u64(d, z);
		}
		/* A then B then C, from A's, B's and C's own (B and C from 0): linear. */
		c = lane_shift(lane_shift((uint32_t)c) ^ (uint32_t)b) ^ (uint32_t)d;
	}
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
	static int filled;
	uint32_t col[32];

	__builtin_cpu_init();
	if (!__builtin_cpu_supports("sse4.2"))
		return NULL;
	/* The map's columns, then its table; callers that race fill the same values. */
	if (!__atomic_load_n(&filled, __ATOMIC_ACQUIRE)) {
		for (int i = 0; i < 32; i++)
			col[i] = zeros_after(1u << i);
		for (int k = 0; k < 4; k++)
			for (uint32_t b = 0; b < 256; b++) {
				uint32_t v = 0;

				for (int j = 0; j < 8; j++)
					if (b & (1u << j))
						v ^= col[8 * k + j];
				shift[k][b] = v;
			}
		__atomic_store_n(&filled, 1, __ATOMIC_RELEASE);
	}
	return crc32c_sse42;
}
#endif
