// SPDX-License-Identifier: MIT
/*
 * pack_fuzz - libFuzzer harness for the unpacking and packing of spool pages (lib/pack.c,
 * and the machine's expander and packer in lib/arch/pack_x86_64.c where the CPU has them).
 *
 *   clang -std=gnu11 -g -fsanitize=fuzzer,address,undefined -Ilib -Iinclude \
 *	tests/fuzz/pack_fuzz.c lib/pack.c lib/arch/pack_x86_64.c -o pack_fuzz
 *
 * An input is a u16 length and a u16 lag, then the packed bytes, as a spool's
 * SPOOL_PAGE_PACKED chunk gives them to the readers: anything a damaged or hostile spool
 * could hold. The packed bytes are copied into a buffer of exactly their size, so ASan
 * catches any read past them. Besides not crashing, the harness checks what must hold:
 *	- every expander gives the same verdict, and the same bytes when it accepts;
 *	- what one accepts, every packer (the portable one, the machine's if any) packs again
 *	  into the same bytes, which unpack to the same page and are no longer than the input
 *	  (a packing keeps no needless byte).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pack.h"

#define MAXN TPOINT_PAGE_DATA

static uint8_t out[MAXN], again[MAXN], repacked[2][PACK_BOUND(MAXN)];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pack_expand_fn expanders[2] = { tp_pack_expand_portable, NULL };
	pack_fn packers[2] = { tp_pack_portable, NULL };
	size_t rsize[2] = { 0, 0 };
	uint16_t n16, lag16;
	int verdict = 0;

#ifdef PACK_ARCH
	expanders[1] = tp_pack_arch_expander();
	packers[1] = tp_pack_arch_encoder();
#endif
	if (size < 4)
		return 0;
	memcpy(&n16, data, 2);
	memcpy(&lag16, data + 2, 2);
	uint32_t n = n16 % (MAXN + 1), lag = lag16 % (MAXN + 1);
	size_t psize = size - 4;
	uint8_t *packed = malloc(psize ? psize : 1);

	if (!packed)
		return 0;
	memcpy(packed, data + 4, psize);
	for (int e = 0; e < 2 && expanders[e]; e++) {
		uint8_t *to = e ? again : out;
		int rc = tp_pack_decode_with(expanders[e], packed, psize, n, lag, to);

		if (e && (rc != verdict || (rc == 0 && memcmp(out, again, n))))
			abort(); /* the expanders disagree */
		verdict = rc;
	}
	for (int k = 0; verdict == 0 && k < 2 && packers[k]; k++) {
		rsize[k] = packers[k](out, n, lag, repacked[k]);
		if (rsize[k] > psize || tp_pack_decode(repacked[k], rsize[k], n, lag, again) < 0 ||
		    memcmp(out, again, n))
			abort(); /* the packer does not give back what it was given */
		if (k && (rsize[k] != rsize[0] || memcmp(repacked[k], repacked[0], rsize[0])))
			abort(); /* the packers disagree */
	}
	free(packed);
	return 0;
}
