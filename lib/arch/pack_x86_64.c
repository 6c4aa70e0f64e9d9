// SPDX-License-Identifier: MIT
/*
 * x86-64 packing of spool pages (pack.h), with AVX-512 VBMI2's byte compress: 64 bytes at a
 * time, XOR-ed with the bytes `lag` before them, their non-zero bytes moved together in a
 * register and stored whole (the memory form of vpcompressb is microcoded and ten times
 * slower on AMD Zen 4; the over-store is what PACK_BOUND's last block is for). About 3 ns
 * per 40-byte record on this project's VM, where writing one to tmpfs costs 15-23 ns.
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

pack_fn pack_arch_encoder(void)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
	    __builtin_cpu_supports("avx512vbmi2"))
		return pack_avx512;
	return NULL;
}
#endif
