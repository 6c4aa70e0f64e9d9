// SPDX-License-Identifier: MIT
/*
 * The spool chunks' checksum (lib/crc32c.h): CRC32C's check value, the CPU's instruction
 * and the portable table giving the same value for every length and alignment, continued
 * in parts as in one piece, and one flipped bit always seen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "crc32c.h"

static int failed;

#define CHECK(cond, ...)                                 \
	do {                                             \
		if (!(cond)) {                           \
			printf("FAIL: " __VA_ARGS__);    \
			printf("\n");                    \
			failed = 1;                      \
		}                                        \
	} while (0)

int main(void)
{
	static unsigned char buf[5000];
	crc32c_fn arch = tp_crc32c_arch();
	crc32c_fn fns[3] = { tp_crc32c_portable, tp_crc32c, arch };
	unsigned seed = 1;

	for (size_t i = 0; i < sizeof(buf); i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (unsigned char)(seed >> 16);
	}
	for (int f = 0; f < 3 && fns[f]; f++) {
		CHECK(fns[f](0, "123456789", 9) == 0xe3069283u, "fn %d: check value %08x", f,
		      fns[f](0, "123456789", 9));
		CHECK(fns[f](0, "", 0) == 0, "fn %d: of nothing", f);
	}
	for (size_t off = 0; off < 8; off++)
		for (size_t len = 0; len < 300; len += 1 + len / 16) {
			uint32_t want = tp_crc32c_portable(0, buf + off, len);

			for (int f = 1; f < 3 && fns[f]; f++)
				CHECK(fns[f](0, buf + off, len) == want, "fn %d at %zu, %zu bytes", f,
				      off, len);
			for (size_t cut = 0; cut <= len; cut += 1 + len / 5)
				CHECK(tp_crc32c(tp_crc32c(0, buf + off, cut), buf + off + cut,
						len - cut) == want,
				      "in parts at %zu of %zu", cut, len);
		}
	/* Long enough for the instruction's three chains (x86-64), at every alignment. */
	for (size_t len = 2000; len <= 4096; len += 1 + len / 7)
		for (size_t off = 0; off < 8; off++)
			CHECK(tp_crc32c(0, buf + off, len) == tp_crc32c_portable(0, buf + off, len),
			      "%zu bytes at %zu", len, off);
	CHECK(tp_crc32c(0, buf, 4096) == tp_crc32c_portable(0, buf, 4096), "a page");
	CHECK(tp_crc32c(0, buf, sizeof(buf)) == tp_crc32c_portable(0, buf, sizeof(buf)), "more");
	/* One flipped bit of a page, anywhere, changes the value. */
	uint32_t page = tp_crc32c(0, buf, 4096);

	for (size_t bit = 0; bit < 4096 * 8; bit += 7) {
		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
		CHECK(tp_crc32c(0, buf, 4096) != page, "bit %zu flipped, same value", bit);
		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
	}
	printf("%s: crc32c with %s\n", failed ? "FAIL" : "ok",
	       arch ? "the CPU's instruction and the table" : "the table");
	return failed;
}
