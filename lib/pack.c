// SPDX-License-Identifier: MIT
/* The portable half of spool-page packing (pack.h): the lag, packing and unpacking. */
#include <string.h>
#include "pack.h"
#include "ringbuf.h"

uint32_t tp_pack_lag(const char *bytes, uint32_t len)
{
	uint32_t w[2], lag;

	if (len < 8)
		return 8;
	memcpy(w, bytes, 8);
	lag = tp_rb_record_len(w[0], w[1]);
	return lag >= 8 && lag <= TPOINT_PAGE_DATA && !(lag & 7u) ? lag : 8u;
}

/*
 * A word at a time: the XOR, the count of bytes up to the last non-zero one in memory order
 * (a little-endian count of leading zeros), the whole word stored and the output moved on
 * by that count, so that the next word's store covers what this one kept no more of
 * (PACK_BOUND's slack takes the last over-store).
 */
size_t tp_pack_portable(const uint8_t *in, uint32_t n, uint32_t lag, uint8_t *out)
{
	uint8_t *o = out;

	for (uint32_t i = 0; i < n; i += PACK_BLOCK) {
		uint32_t words = (n - i < PACK_BLOCK ? n - i : PACK_BLOCK) / 8, lengths = 0;
		uint8_t *head = o;

		o += 4;
		for (uint32_t j = 0; j < words; j++) {
			uint32_t at = i + 8 * j, len;
			uint64_t w, before = 0, le;

			memcpy(&w, in + at, 8);
			if (at >= lag)
				memcpy(&before, in + at - lag, 8);
			w ^= before;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			le = __builtin_bswap64(w);
#else
			le = w;
#endif
			len = le ? (71u - (uint32_t)__builtin_clzll(le)) / 8 : 0;
			memcpy(o, &w, 8);
			o += len;
			lengths |= len << (4 * j);
		}
		memcpy(head, &lengths, 4);
	}
	return (size_t)(o - out);
}

/* Row j: a word's first j bytes in memory order, whatever the byte order (the bytes kept). */
static const uint8_t kept_bytes[9][8] = {
	{ 0 },
	{ 0xff },
	{ 0xff, 0xff },
	{ 0xff, 0xff, 0xff },
	{ 0xff, 0xff, 0xff, 0xff },
	{ 0xff, 0xff, 0xff, 0xff, 0xff },
	{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
};

/*
 * A word at a time: 8 bytes loaded and the kept ones masked, or where fewer than 8 are left
 * in the input (its last words), a byte copy: never a read past `size`.
 */
int tp_pack_expand_portable(const uint8_t *in, size_t size, uint32_t n, uint8_t *out)
{
	size_t at = 0;

	for (uint32_t i = 0; i < n; i += PACK_BLOCK) {
		uint32_t words = (n - i < PACK_BLOCK ? n - i : PACK_BLOCK) / 8, count;
		uint64_t lengths;

		if (pack_block_lengths(in, size, &at, words, &lengths, &count) < 0)
			return -1;
		for (uint32_t j = 0; j < words; j++, lengths >>= 8) {
			uint8_t *o = out + i + 8 * j;
			uint32_t len = (uint32_t)lengths & 0xffu;
			uint64_t w = 0, keep;

			if (size - at >= 8) {
				memcpy(&w, in + at, 8);
				memcpy(&keep, kept_bytes[len], 8);
				w &= keep;
			} else {
				for (uint32_t b = 0; b < len; b++)
					((uint8_t *)&w)[b] = in[at + b];
			}
			memcpy(o, &w, 8);
			at += len;
		}
	}
	return at == size ? 0 : -1;
}

int tp_pack_decode(const uint8_t *in, size_t size, uint32_t n, uint32_t lag, uint8_t *out)
{
	static pack_expand_fn expand;
	pack_expand_fn e = __atomic_load_n(&expand, __ATOMIC_RELAXED);

	if (!e) { /* once; threads that race here store the same */
#ifdef PACK_ARCH
		e = tp_pack_arch_expander();
#endif
		if (!e)
			e = tp_pack_expand_portable;
		__atomic_store_n(&expand, e, __ATOMIC_RELAXED);
	}
	return tp_pack_decode_with(e, in, size, n, lag, out);
}

int tp_pack_decode_with(pack_expand_fn expand, const uint8_t *in, size_t size, uint32_t n,
			uint32_t lag, uint8_t *out)
{
	uint64_t w, v;

	/* Whole words only: the expanders rely on it. */
	if (!lag || (lag & 7u) || (n & 7u) || expand(in, size, n, out) < 0)
		return -1;
	/* Then the XOR with the word `lag` bytes before, in order: that one is whole by now. */
	for (uint32_t i = lag; i < n; i += 8) {
		memcpy(&w, out + i, 8);
		memcpy(&v, out + i - lag, 8);
		w ^= v;
		memcpy(out + i, &w, 8);
	}
	return 0;
}

pack_fn tp_pack_encoder(void)
{
#ifdef PACK_ARCH
	pack_fn arch = tp_pack_arch_encoder();

	if (arch)
		return arch;
#endif
	return tp_pack_portable;
}
