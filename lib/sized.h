/* SPDX-License-Identifier: MIT */
/* Out-structs that may grow (tpoint_stats_sized(), tpoint_jump_stats_sized()). */
#ifndef TPOINT_SIZED_H
#define TPOINT_SIZED_H

#include <stddef.h>
#include <string.h>

/*
 * A public out-struct into a caller's copy of `size` bytes (tpoint_stats_sized()): what both
 * know, then zeroes for fields the caller's newer header has and this library does not.
 */
static inline void tp_copy_sized(void *dst, size_t size, const void *src, size_t have)
{
	memcpy(dst, src, size < have ? size : have);
	if (size > have)
		memset((char *)dst + have, 0, size - have);
}

#endif
