/* SPDX-License-Identifier: MIT */
/*
 * Packing of spool pages (SPOOL_PAGE_PACKED), so that the drain writes fewer bytes: where
 * the spool's file system is the drain's bottleneck (tmpfs taking new pages at 2 GB/s on a
 * VM, a slow disk), a full-speed writer outruns it and loses records.
 *
 * The transform: each byte is XOR-ed with the byte `lag` bytes before it (lag: the length of
 * the range's first record, so that a record meets the same field of the record before it:
 * the same event id and pid, a similar delta, similar values), then zeros are left out:
 *
 *	for each block of 64 bytes (the last one may be shorter):
 *		u64 mask	bit i: byte i of the block is not zero
 *		the non-zero bytes, in order
 *
 * Unpacking is portable; packing is only fast with a byte-compress instruction (x86-64:
 * AVX-512 VBMI2, lib/arch/pack_x86_64.c). Without one the drain writes pages as they are.
 */
#ifndef TPOINT_PACK_H
#define TPOINT_PACK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "internal.h"

#define PACK_BLOCK 64u
/* Room packing `n` bytes may need: every mask, every byte, and one block's over-store. */
#define PACK_BOUND(n) ((n) + ((n) + PACK_BLOCK - 1) / PACK_BLOCK * 8u + PACK_BLOCK)

/* Pack n bytes at `in` into `out` (PACK_BOUND(n) bytes of room); returns the bytes used. */
typedef size_t (*pack_fn)(const uint8_t *in, uint32_t n, uint32_t lag, uint8_t *out);

/* This machine's packer, or NULL when it has none worth using. */
HIDDEN pack_fn pack_encoder(void);

/*
 * The first step of unpacking: n bytes of `out` from the `size` bytes at `in`, each block's
 * non-zero bytes back in their places, zeros elsewhere. 0, or -1 when `in` is not a packing
 * of n bytes (pack_block_mask() refuses a block, or a byte is left over).
 */
typedef int (*pack_expand_fn)(const uint8_t *in, size_t size, uint32_t n, uint8_t *out);

/*
 * The mask of the block of `k` bytes whose packing starts at in + *at, which moves past it:
 * 0, or -1 when it cannot be one (cut short, a bit past the k bytes, more bytes than the
 * `size` there are).
 */
static inline int pack_block_mask(const uint8_t *in, size_t size, size_t *at, uint32_t k,
				  uint64_t *mask)
{
	if (size - *at < 8)
		return -1;
	memcpy(mask, in + *at, 8);
	*at += 8;
	if ((k < PACK_BLOCK && (*mask >> k)) || size - *at < (size_t)__builtin_popcountll(*mask))
		return -1;
	return 0;
}

/* The portable expander, and unpacking with a given one (pack_decode() picks the fastest). */
HIDDEN int pack_expand_portable(const uint8_t *in, size_t size, uint32_t n, uint8_t *out);
HIDDEN int pack_decode_with(pack_expand_fn expand, const uint8_t *in, size_t size, uint32_t n,
			    uint32_t lag, uint8_t *out);

#if defined(__x86_64__)
/* The architecture's packer and expander if this CPU has what they need, else NULL
 * (lib/arch/pack_<arch>.c). */
HIDDEN pack_fn pack_arch_encoder(void);
HIDDEN pack_expand_fn pack_arch_expander(void);
#define PACK_ARCH 1
#endif

/*
 * Unpack `n` bytes from the `size` bytes at `in` into `out`. 0, or -1 when `in` is not a
 * packing of n bytes (damaged): then `out` holds nothing to use.
 */
HIDDEN int pack_decode(const uint8_t *in, size_t size, uint32_t n, uint32_t lag, uint8_t *out);

/* The lag for a range of page bytes: its first record's length when sane, else 8. */
HIDDEN uint32_t pack_lag(const char *bytes, uint32_t len);

#endif
