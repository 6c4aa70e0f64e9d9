/* SPDX-License-Identifier: MIT */
/*
 * The page reader: the records of a ring-buffer page as tpoint writes it (lib/ringbuf.h), for
 * the drain thread (the running clock where a page's spooled bytes end) and the salvage of a
 * killed process (its pages' records as spool records).
 */
#include <string.h>
#include "ringbuf.h"
#include "spool_format.h"

uint64_t tp_page_clock_after(const char *bytes, uint32_t len, uint64_t clock)
{
	const char *p = bytes, *payload;
	uint32_t size;

	while (tp_rb_next(&p, bytes + len, &clock, &payload, &size))
		;
	return clock;
}

size_t tp_page_decode(const char *data, uint32_t from, uint32_t commit, uint64_t *clock, char *out,
		      uint32_t *stopped)
{
	const char *p = data + from, *payload;
	size_t used = 0;
	uint32_t size;

	if (commit > TPOINT_PAGE_DATA_END || from > commit)
		commit = from; /* not a page of ours: never read past it */
	while (tp_rb_next(&p, data + commit, clock, &payload, &size)) {
		struct spool_record r = { *clock, size, 0 };

		memcpy(out + used, &r, sizeof(r));
		memcpy(out + used + sizeof(r), payload, size);
		used += sizeof(r) + size;
	}
	*stopped = (uint32_t)(p - data);
	return used;
}
