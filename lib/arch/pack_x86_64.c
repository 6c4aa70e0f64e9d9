// SPDX-License-Identifier: MIT
/*
 * x86-64 packing of spool pages (pack.h), with AVX-512: 64 bytes at a time, XOR-ed with the
 * bytes `lag` before them; each word's length from its count of leading zeros (AVX-512 CD),
 * the bytes it keeps moved together in a register by VBMI2's byte compress and stored whole
 * (the memory form of vpcompressb is microcoded and ten times slower on AMD Zen 4; the
 * over-store is what PACK_BOUND's last block is for). All in vector registers: the lengths
 * worked out on the 64-bit mask of non-zero bytes instead, with scalar shifts and masks, cost
 * three times as much. The readers' unpacking expands the bytes back with the same
 * instructions' counterpart.
 */
#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>
#include "../pack_arch.h"

#define PACK_TARGET __attribute__((target("avx512f,avx512bw,avx512cd,avx512vbmi2,bmi2")))

PACK_TARGET static size_t pack_avx512(const uint8_t *in, uint32_t n, uint32_t lag, uint8_t *out)
{
	/* Byte 0 of each word to all its bytes (the shuffle works within 16-byte lanes). */
	const __m512i word_byte0 = _mm512_set_epi64(0x0808080808080808ll, 0, 0x0808080808080808ll,
						    0, 0x0808080808080808ll, 0,
						    0x0808080808080808ll, 0);
	const __m512i byte_in_word = _mm512_set1_epi64(0x0706050403020100ll);
	const __m512i eight = _mm512_set1_epi64(8);
	uint8_t *o = out;

	for (uint32_t i = 0; i < n; i += PACK_BLOCK) {
		uint32_t k = n - i < PACK_BLOCK ? n - i : PACK_BLOCK;
		__mmask64 valid = k == PACK_BLOCK ? ~0ull : (1ull << k) - 1;
		/* The bytes that have a byte `lag` before them in the range. */
		__mmask64 back = valid;

		if (i < lag)
			back = lag - i < PACK_BLOCK ? valid & (~0ull << (lag - i)) : 0;
		__m512i x = _mm512_maskz_loadu_epi8(valid, in + i);
		/* Masked-out bytes are not read: the address may be before the range. */
		__m512i y = _mm512_maskz_loadu_epi8(back, (const void *)((uintptr_t)in + i - lag));
		__m512i d = _mm512_xor_si512(x, y);
		/* Each word's length: 8 less its whole leading zero bytes (a zero word: 0). */
		__m512i len = _mm512_sub_epi64(eight, _mm512_srli_epi64(_mm512_lzcnt_epi64(d), 3));
		/* Its bytes below that length are kept. */
		__mmask64 keep = _mm512_cmplt_epu8_mask(byte_in_word,
							_mm512_shuffle_epi8(len, word_byte0));
		/* The eight lengths as bytes, then as nibbles. */
		uint64_t len_bytes = (uint64_t)_mm_cvtsi128_si64(_mm512_cvtepi64_epi8(len));
		uint32_t lengths = (uint32_t)_pext_u64(len_bytes, 0x0f0f0f0f0f0f0f0full);

		memcpy(o, &lengths, 4);
		_mm512_storeu_si512((void *)(o + 4), _mm512_maskz_compress_epi8(keep, d));
		o += 4 + __builtin_popcountll(keep);
	}
	return (size_t)(o - out);
}

/*
 * Unpacking's first step (pack.h): each block's bytes loaded (only as many as its lengths
 * add up to: never past the input) and expanded into their places in one instruction; the
 * mask for that is each word's 2^len - 1, looked up a byte at a time by a shuffle.
 */
PACK_TARGET static int expand_avx512(const uint8_t *in, size_t size, uint32_t n, uint8_t *out)
{
	const __m128i low_bits = _mm_setr_epi8(0, 1, 3, 7, 15, 31, 63, 127, -1, 0, 0, 0, 0,
					       0, 0, 0);
	size_t at = 0;

	for (uint32_t i = 0; i < n; i += PACK_BLOCK) {
		uint32_t k = n - i < PACK_BLOCK ? n - i : PACK_BLOCK, count;
		uint64_t lengths;

		if (pack_block_lengths(in, size, &at, k / 8, &lengths, &count) < 0)
			return -1;
		uint64_t keep = (uint64_t)_mm_cvtsi128_si64(
			_mm_shuffle_epi8(low_bits, _mm_cvtsi64_si128((long long)lengths)));
		__m512i v = _mm512_maskz_loadu_epi8(count == 64 ? ~0ull : (1ull << count) - 1,
						    in + at);

		_mm512_mask_storeu_epi8(out + i, k == PACK_BLOCK ? ~0ull : (1ull << k) - 1,
					_mm512_maskz_expand_epi8(keep, v));
		at += count;
	}
	return at == size ? 0 : -1;
}

static int has_avx512_packing(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
	       __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512vbmi2") &&
	       __builtin_cpu_supports("bmi2");
}

pack_fn tp_pack_arch_encoder(void)
{
	return has_avx512_packing() ? pack_avx512 : NULL;
}

pack_expand_fn tp_pack_arch_expander(void)
{
	return has_avx512_packing() ? expand_avx512 : NULL;
}
#endif
