/* SPDX-License-Identifier: MIT */
/*
 * What the spool's packer (lib/pack.c, pack.h) and its per-architecture forms
 * (lib/arch/pack_<arch>.c) share: a block's layout (pack.h says the format), the two
 * functions' types, and the architecture's entry points. The per-arch files include this
 * alone, so that they stand below the packer that picks them.
 */
#ifndef TPOINT_PACK_ARCH_H
#define TPOINT_PACK_ARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "hidden.h"

#define PACK_BLOCK 64u
/* Room packing `n` bytes may need: every length word, every byte, one block's over-store. */
#define PACK_BOUND(n) ((n) + ((n) + PACK_BLOCK - 1) / PACK_BLOCK * 4u + PACK_BLOCK)

/*
 * Pack n bytes at `in` into `out` (PACK_BOUND(n) bytes of room); returns the bytes used.
 * n and lag are multiples of 8.
 */
typedef size_t (*pack_fn)(const uint8_t *in, uint32_t n, uint32_t lag, uint8_t *out);

/*
 * The first step of unpacking: n bytes of `out` from the `size` bytes at `in`, each word's
 * bytes back in place, zeros after them. 0, or -1 when `in` is not a packing of n bytes
 * (pack_block_lengths() refuses a block, or a byte is left over). n is a multiple of 8:
 * tp_pack_decode_with() refuses any other.
 */
typedef int (*pack_expand_fn)(const uint8_t *in, size_t size, uint32_t n, uint8_t *out);

/* A block's u32 of nibbles spread to a byte a word (word j's length in byte j). */
static inline uint64_t pack_spread_lengths(uint32_t h)
{
	uint64_t v = h;

	v = (v | v << 16) & 0x0000ffff0000ffffull;
	v = (v | v << 8) & 0x00ff00ff00ff00ffull;
	return (v | v << 4) & 0x0f0f0f0f0f0f0f0full;
}

/*
 * The lengths of the block of `words` words whose packing starts at in + *at, which moves
 * past them: byte j of *lengths is word j's, and *count their sum. 0, or -1 when it cannot
 * be one (cut short, a length over 8 or past the block's words, more bytes than the `size`
 * there are).
 */
static inline int pack_block_lengths(const uint8_t *in, size_t size, size_t *at,
				     uint32_t words, uint64_t *lengths, uint32_t *count)
{
	uint32_t h;
	uint64_t v;

	if (size - *at < 4)
		return -1;
	memcpy(&h, in + *at, 4);
	*at += 4;
	v = pack_spread_lengths(h);
	/* A byte of 9..15 carries into bit 4 when 7 is added; none carries past its byte. */
	if (((v + 0x0707070707070707ull) & 0x1010101010101010ull) ||
	    (words < 8 && (v >> (8 * words))))
		return -1;
	*lengths = v;
	*count = (uint32_t)((v * 0x0101010101010101ull) >> 56);
	return size - *at < *count ? -1 : 0;
}

#if defined(__x86_64__)
/* The architecture's packer and expander if this CPU has what they need, else NULL
 * (lib/arch/pack_<arch>.c). */
HIDDEN pack_fn tp_pack_arch_encoder(void);
HIDDEN pack_expand_fn tp_pack_arch_expander(void);
#define PACK_ARCH 1
#endif

#endif
