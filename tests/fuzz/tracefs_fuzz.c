// SPDX-License-Identifier: MIT
/*
 * tracefs_fuzz - libFuzzer harness for the reader of tracefs format text
 * (lib/fmt/tracefs_format.c), which reads the formats of untrusted trace.dat files. Built
 * by tests/fuzz/run.sh. The input is a format text of exactly its size (no NUL after it:
 * ASan sees a read past its end); every function runs on it. What it checks besides not
 * crashing: each field's name and type lie inside the text and inside their line, and a
 * field found by the iterator is one tp_tracefs_has_field() knows.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/tracefs_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *end = text + size;
	struct tracefs_field f;
	struct tracefs_header h;
	unsigned long off, len;
	size_t pos = 0;
	char why[128];

	while (tp_tracefs_next_field(text, size, &pos, &f)) {
		if (f.name < text || f.name + f.name_len > end || f.type < text ||
		    f.type + f.type_len > end || memchr(f.name, '\n', f.name_len) || !f.name_len)
			abort();
		if (pos > size)
			abort();
	}
	if (tp_tracefs_parse_header(text, size, &h) == TRACEFS_HEADER_OK &&
	    (h.name < text || h.name + h.name_len > end || h.id > 0xffff))
		abort();
	tp_tracefs_field_layout(text, size, "common_type", &off, &len);
	tp_tracefs_field_layout(text, size, "commit", &off, &len);
	tp_tracefs_has_field(text, size, "x", 1);
	tp_tracefs_check_print_fields(text, size, why, sizeof(why));
	return 0;
}
