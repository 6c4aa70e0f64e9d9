/* SPDX-License-Identifier: MIT */
/* poolsize.c: how big a pool may be. */
#ifndef TPOINT_POOLSIZE_H
#define TPOINT_POOLSIZE_H

#include <stddef.h>
#include "hidden.h"

/*
 * What of `want` bytes of pool this machine can give (poolsize.c): `want`, or less, with
 * the reason in why; below 64 KiB it cannot give one at all.
 */
HIDDEN size_t tp_pool_size_fit(size_t want, char *why, size_t whylen);
/*
 * A pool size as the user writes it (TPOINT_BUFFER_SIZE, tpoint record -b; poolsize.c,
 * the one parser of both): digits, then nothing (bytes) or K, M or G, alone or followed by
 * B or iB, in any case, each a power of 1024; nothing else around it; at least 64 KiB.
 * 0 with *out set, or -EINVAL. TP_POOL_SIZE_EXPECTED is what the refusals say is expected.
 */
HIDDEN int tp_pool_size_parse(const char *s, size_t *out);
#define TP_POOL_MIN_BYTES (64u << 10)
#define TP_POOL_SIZE_EXPECTED \
	"a size of at least 64K, like 8M (bytes, or K, M or G: KiB, MiB, GiB, any case)"

#endif
