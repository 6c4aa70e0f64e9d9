/* SPDX-License-Identifier: MIT */
/*
 * What every histogram of the tool needs from an event besides its records, in one place for
 * `tpoint report --hist` (report_hist.c) and `tpoint hist -k` (hist_kernel.c): the event's
 * fields typed from its tracefs format text, as the filter types them
 * (tp_tracefs_field_kind()), and the kernel's symbols for .sym and .sym-offset.
 */
#ifndef TPOINT_HIST_FIELDS_H
#define TPOINT_HIST_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "filter.h"

struct tep_handle;

/* An event's fields: fields[0..n), whose names point into text (a copy of the format). */
struct hist_fields {
	char *text;
	struct filter_field *fields;
	size_t n;
};

/*
 * The fields of a format text (the `format` file, or a trace.dat's copy of it; `len` bytes,
 * no NUL needed) that can be keys or values: numbers, char[N] and __data_loc strings; the
 * others (structs, other arrays) are left out. 0, or -1 out of memory (*out freed).
 */
int hist_fields_parse(const char *format, size_t len, struct hist_fields *out);
void hist_fields_free(struct hist_fields *f);

/* A libtraceevent handle that knows the kallsyms text (`len` bytes), or NULL. */
struct tep_handle *hist_kallsyms(const char *text, size_t len);
/* struct hist_names' sym() over hist_kallsyms()'s handle: %ps and %pS as the kernel's. */
int hist_kernel_sym(void *tep, uint64_t addr, bool with_offset, char *buf, size_t len);

#endif
