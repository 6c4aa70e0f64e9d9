// SPDX-License-Identifier: MIT
/* The portable half of spool-page packing (pack.h): the lag, and unpacking. */
#include <string.h>
#include "pack.h"

uint32_t pack_lag(const char *bytes, uint32_t len)
{
	uint32_t w[2], lag;

	if (len < 8)
		return 8;
	memcpy(w, bytes, 8);
	/* type_len 0: an explicit length (record + 4) follows the header word. */
	lag = (w[0] & 31u) == 0 ? w[1] + 4u : 8u;
	return lag >= 8 && lag <= TPOINT_PAGE_DATA && !(lag & 7u) ? lag : 8u;
}

int pack_expand_portable(const uint8_t *in, size_t size, uint32_t n, uint8_t *out)
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

			memcpy(o, in + at, len);
			memset(o + len, 0, 8 - len);
			at += len;
		}
	}
	return at == size ? 0 : -1;
}

int pack_decode(const uint8_t *in, size_t size, uint32_t n, uint32_t lag, uint8_t *out)
{
	static pack_expand_fn expand;
	pack_expand_fn e = __atomic_load_n(&expand, __ATOMIC_RELAXED);

	if (!e) { /* once; threads that race here store the same */
#ifdef PACK_ARCH
		e = pack_arch_expander();
#endif
		if (!e)
			e = pack_expand_portable;
		__atomic_store_n(&expand, e, __ATOMIC_RELAXED);
	}
	return pack_decode_with(e, in, size, n, lag, out);
}

int pack_decode_with(pack_expand_fn expand, const uint8_t *in, size_t size, uint32_t n,
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

pack_fn pack_encoder(void)
{
#ifdef PACK_ARCH
	return pack_arch_encoder();
#else
	return NULL; /* no byte-compress instruction known here: pages go as they are */
#endif
}
