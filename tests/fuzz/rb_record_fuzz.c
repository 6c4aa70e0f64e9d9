// SPDX-License-Identifier: MIT
/*
 * rb_record_fuzz - libFuzzer harness for the strict ring-buffer record decoder
 * (lib/fmt/rb_record.c), the one that reads the records of trace.dat files and of the
 * kernel's pages.
 *
 *   clang -std=gnu11 -g -fsanitize=fuzzer,address,undefined -Ilib -Iinclude \
 *	tests/fuzz/rb_record_fuzz.c lib/fmt/rb_record.c -o rb_record_fuzz
 *
 * An input is one byte of flags (TP_RB_*), then a page's data: its every byte is the
 * commit. The data is copied into a buffer of exactly its size, so ASan catches any read
 * past it. Besides not crashing, the harness checks what must hold of every record the
 * decoder accepts: it lies before the commit, the walk moves forward, and a data record's
 * payload (at least the 8-byte common header) is inside the record. The same bytes are
 * also read as a whole page by the page-header decoder (flag bit 2: longs of 4 bytes, else
 * 8), which must keep what it accepts inside the page.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/rb_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *page;
	uint32_t commit, off = 0;
	unsigned int flags;
	uint64_t ts = 0;

	if (size < 1 || size > 65536)
		return 0;
	flags = data[0] & (TP_RB_BIG_ENDIAN | TP_RB_PAD_ENDS_PAGE);
	commit = (uint32_t)(size - 1);
	page = malloc(commit ? commit : 1);
	if (!page)
		return 0;
	memcpy(page, data + 1, commit);
	{
		struct tp_rb_page pg;
		enum tp_rb_page_fault f = tp_rb_page_decode(page, commit, data[0] & 4 ? 4 : 8,
							     flags, &pg);

		if (f == TP_RB_PAGE_OK &&
		    ((uint64_t)pg.data + pg.commit > commit ||
		     (pg.counted && (uint64_t)pg.data + pg.commit + pg.data - 8 > commit)))
			abort();
	}
	while (off < commit) {
		struct tp_rb_rec r;

		if (tp_rb_decode(page, commit, off, flags, &r))
			break;
		if (r.next <= off || r.next > commit)
			abort();
		if (tp_rb_is_data(&r)) {
			if (r.size < 8 || r.payload <= off || r.payload + (uint64_t)r.size != r.next)
				abort();
			/* every payload byte is readable */
			volatile unsigned char sink = page[r.payload] ^ page[r.next - 1];
			(void)sink;
		}
		tp_rb_apply_time(&r, &ts);
		off = r.next;
	}
	free(page);
	return 0;
}
