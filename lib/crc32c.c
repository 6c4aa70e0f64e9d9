/* SPDX-License-Identifier: MIT */
/* CRC32C: see crc32c.h. The portable one here, the instruction's in lib/arch/. */
#include <string.h>
#include "crc32c.h"

#define CRC32C_POLY 0x82f63b78u /* Castagnoli's, bits reflected */

/* Slicing by 8: table[k][b] is byte b's CRC followed by k zero bytes. Filled once. */
static uint32_t table[8][256];

static void fill_table(void)
{
	for (uint32_t b = 0; b < 256; b++) {
		uint32_t c = b;

		for (int i = 0; i < 8; i++)
			c = c & 1 ? (c >> 1) ^ CRC32C_POLY : c >> 1;
		table[0][b] = c;
	}
	for (uint32_t b = 0; b < 256; b++)
		for (int k = 1; k < 8; k++)
			table[k][b] = (table[k - 1][b] >> 8) ^ table[0][table[k - 1][b] & 0xff];
}

uint32_t tp_crc32c_portable(uint32_t crc, const void *p, size_t len)
{
	static int filled;
	const unsigned char *s = p;

	/* Threads that fill it at once write the same values. */
	if (!__atomic_load_n(&filled, __ATOMIC_ACQUIRE)) {
		fill_table();
		__atomic_store_n(&filled, 1, __ATOMIC_RELEASE);
	}
	crc = ~crc;
	for (; len >= 8; len -= 8, s += 8) {
		uint64_t w;

		memcpy(&w, s, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		w = __builtin_bswap64(w);
#endif
		w ^= crc;
		crc = table[7][w & 0xff] ^ table[6][(w >> 8) & 0xff] ^
		      table[5][(w >> 16) & 0xff] ^ table[4][(w >> 24) & 0xff] ^
		      table[3][(w >> 32) & 0xff] ^ table[2][(w >> 40) & 0xff] ^
		      table[1][(w >> 48) & 0xff] ^ table[0][w >> 56];
	}
	while (len--)
		crc = (crc >> 8) ^ table[0][(crc ^ *s++) & 0xff];
	return ~crc;
}

#if !defined(__x86_64__) && !defined(__aarch64__)
crc32c_fn tp_crc32c_arch(void)
{
	return NULL;
}
#endif

uint32_t tp_crc32c(uint32_t crc, const void *p, size_t len)
{
	/* Picked once, with what it needs made (tables); threads that race pick the same. */
	static crc32c_fn fn;
	crc32c_fn f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);

	if (!f) {
		f = tp_crc32c_arch();
		if (!f)
			f = tp_crc32c_portable;
		__atomic_store_n(&fn, f, __ATOMIC_RELEASE);
	}
	return f(crc, p, len);
}
