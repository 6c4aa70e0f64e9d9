/* SPDX-License-Identifier: MIT */
/*
 * Reading a ring-buffer page as tpoint writes it: 8-byte data records (type_len 0 with an
 * explicit length) and time extends. Used by the drain thread, and by the tool when it
 * salvages the pages of a process that was killed.
 */
#include <string.h>
#include <tpoint/event.h>
#include "spool_format.h"

size_t page_decode(const char *data, uint32_t from, uint32_t commit, uint64_t *clock, char *out,
		   uint32_t *stopped)
{
	uint32_t off = from;
	size_t used = 0;

	if (commit > TPOINT_PAGE_DATA_END)
		commit = 0; /* not a page of ours: never read past it */
	while (off + 8 <= commit) {
		uint32_t w, arr;

		memcpy(&w, data + off, 4);
		memcpy(&arr, data + off + 4, 4);
		if ((w & 31) == 30) { /* time extend */
			*clock += ((uint64_t)arr << TPOINT_DELTA_BITS) + (w >> 5);
			off += 8;
			continue;
		}
		uint32_t size = arr - 4;

		if ((w & 31) != 0 || arr < 12 || size > commit - off - 8)
			break; /* not ours: stop rather than pass garbage on */
		*clock += w >> 5;
		struct spool_record r = { *clock, size, 0 };

		memcpy(out + used, &r, sizeof(r));
		memcpy(out + used + sizeof(r), data + off + 8, size);
		used += sizeof(r) + size;
		off += 8 + size;
	}
	*stopped = off;
	return used;
}
