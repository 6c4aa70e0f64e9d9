// SPDX-License-Identifier: MIT
/*
 * x86-64 packing of spool pages (pack.h), with AVX-512 VBMI2's byte compress: 64 bytes at a
 * time, XOR-ed with the bytes `lag` before them, their non-zero bytes moved together in a
 * register and stored whole (the memory form of vpcompressb is microcoded and ten times
 * slower on AMD Zen 4; the over-store is what PACK_BOUND's last block is for). About 3 ns
 * per 40-byte record on this project's VM, where writing one to tmpfs costs 15-23 ns. The
 * readers' unpacking expands the bytes back with the same instructions' counterpart.
 */
#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>
#include "../pack.h"

__attribute__((target("avx512f,avx512bw,avx512vbmi2"))) static size_t
pack_avx512(const uint8_t *in, uint32_t n, uint32_t lag, uint8_t *out)
{
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
		__mmask64 nz = _mm512_test_epi8_mask(d, d);

		memcpy(o, &nz, 8);
		_mm512_storeu_si512((void *)(o + 8), _mm512_maskz_compress_epi8(nz, d));
		o += 8 + __builtin_popcountll(nz);
	}
	return (size_t)(o - out);
}

/* Unpacking's first step (pack.h): each block's bytes loaded (only as many as its mask
 * has bits: never past the input) and expanded into their places in one instruction. */
__attribute__((target("avx512f,avx512bw,avx512vbmi2"))) static int
expand_avx512(const uint8_t *in, size_t size, uint32_t n, uint8_t *out)
{
	size_t at = 0;

	for (uint32_t i = 0; i < n; i += PACK_BLOCK) {
		uint32_t k = n - i < PACK_BLOCK ? n - i : PACK_BLOCK;
		uint64_t mask;
		unsigned cnt;

		if (pack_block_mask(in, size, &at, k, &mask) < 0)
			return -1;
		cnt = (unsigned)__builtin_popcountll(mask);
		__m512i v = _mm512_maskz_loadu_epi8(cnt == 64 ? ~0ull : (1ull << cnt) - 1, in + at);

		_mm512_mask_storeu_epi8(out + i, k == PACK_BLOCK ? ~0ull : (1ull << k) - 1,
					_mm512_maskz_expand_epi8(mask, v));
		at += cnt;
	}
	return at == size ? 0 : -1;
}

static int has_vbmi2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
	       __builtin_cpu_supports("avx512vbmi2");
}

pack_fn pack_arch_encoder(void)
{
	return has_vbmi2() ? pack_avx512 : NULL;
}

pack_expand_fn pack_arch_expander(void)
{
	return has_vbmi2() ? expand_avx512 : NULL;
}
#endif
