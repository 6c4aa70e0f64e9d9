// SPDX-License-Identifier: MIT
/* An event's fields and the kernel's symbols, for the tool's histograms (hist_fields.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "fmt/tracefs_format.h"
#include "hist_fields.h"

_Static_assert(FILTER_NUM == 0 && FILTER_STR_ARRAY == 1 && FILTER_STR_DYN == 2,
	       "tp_tracefs_field_kind() answers in enum filter_field_kind's values");

int hist_fields_parse(const char *format, size_t len, struct hist_fields *out)
{
	const char *body;
	struct tracefs_field tf;
	size_t max = 1, blen, pos = 0;
	char *end;

	memset(out, 0, sizeof(*out));
	out->text = malloc(len + 1);
	if (!out->text)
		return -1;
	memcpy(out->text, format, len);
	out->text[len] = 0;
	body = strstr(out->text, "format:");
	body = body ? body : out->text;
	end = strstr(body, "print fmt:");
	blen = end ? (size_t)(end - body) : strlen(body);
	for (const char *p = body; (p = strstr(p, "field:")); p++)
		max++;
	out->fields = calloc(max, sizeof(*out->fields));
	if (!out->fields) {
		hist_fields_free(out);
		return -1;
	}
	while (tp_tracefs_next_field(body, blen, &pos, &tf)) {
		struct filter_field *x = &out->fields[out->n];
		int kind = tp_tracefs_field_kind(&tf);

		if (kind < 0 || tf.offset > UINT16_MAX || tf.size > UINT16_MAX)
			continue; /* structs and other arrays are no keys */
		((char *)tf.name)[tf.name_len] = 0; /* its line is read: cut there, in the copy */
		*x = (struct filter_field){ tf.name, (uint16_t)tf.offset, (uint16_t)tf.size,
					    tf.is_signed, (uint8_t)kind };
		out->n++;
	}
	return 0;
}

void hist_fields_free(struct hist_fields *f)
{
	free(f->fields);
	free(f->text);
	memset(f, 0, sizeof(*f));
}

struct tep_handle *hist_kallsyms(const char *text, size_t len)
{
	struct tep_handle *tep;
	char *copy;

	if (!len)
		return NULL;
	tep = tep_alloc();
	copy = malloc(len + 1);
	if (!tep || !copy) {
		tep_free(tep);
		free(copy);
		return NULL;
	}
	memcpy(copy, text, len);
	copy[len] = 0;
	tep_parse_kallsyms(tep, copy);
	free(copy);
	return tep;
}

int hist_kernel_sym(void *tep, uint64_t addr, bool with_offset, char *buf, size_t len)
{
	const char *name;
	unsigned long long start;
	unsigned long size;

	if (tep_find_function_info(tep, addr, &name, &start, &size) != 1 || !name)
		return 0;
	if (with_offset)
		snprintf(buf, len, "%s+0x%llx/0x%lx", name, (unsigned long long)addr - start, size);
	else
		snprintf(buf, len, "%s", name);
	return 1;
}
