/* SPDX-License-Identifier: MIT */
/*
 * hist_names_self - the names that .sym and .sym-offset keys of the process's own
 * histograms print with: read at print time from the process's mappings (/proc/self/maps)
 * and the symbols of the files mapped (lib/fmt/ustack_names.c), as the kernel's %ps and %pS
 * name a kernel address: "name", or "name+0xoff/0xsize". A function of another file than
 * the program says which, as the kernel's names of a module's functions do:
 * "name [libfoo.so.1]". An address in no function prints as the kernel prints one it cannot
 * name. Nothing is read until a key asks.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fmt/ustack_names.h"
#include "hist_names_self.h"
#include "procmaps.h"

struct self_names {
	struct hist_names names;
	struct ustack_names *u; /* read on the first key that asks */
	bool read;
	char exe[TP_MAPS_PATH_MAX]; /* the program's own file */
};

static bool add_map(void *ctx, const struct tp_map *m)
{
	struct self_names *s = ctx;

	if (m->path[0] == '/' && m->executable)
		tp_ustack_names_add_map(s->u, (uint32_t)getpid(), m->lo, m->hi, m->pgoff, m->path);
	return true;
}

static int self_sym(void *ctx, uint64_t addr, bool with_offset, char *buf, size_t len)
{
	struct self_names *s = ctx;
	struct ustack_symbol sym;
	const char *file = "";

	if (!s->read) {
		ssize_t n = readlink("/proc/self/exe", s->exe, sizeof(s->exe) - 1);

		s->exe[n > 0 ? n : 0] = 0;
		s->read = true;
		s->u = tp_ustack_names_new();
		if (s->u && tp_maps_each(add_map, s) < 0) {
			tp_ustack_names_free(s->u);
			s->u = NULL;
		}
	}
	if (!s->u || tp_ustack_names_symbol(s->u, (uint32_t)getpid(), addr, &sym) != 2)
		return 0;
	if (strcmp(sym.path, s->exe))
		file = sym.file;
	if (with_offset)
		snprintf(buf, len, "%s+0x%" PRIx64 "/0x%" PRIx64 "%s%s%s", sym.name, sym.offset,
			 sym.size, *file ? " [" : "", file, *file ? "]" : "");
	else
		snprintf(buf, len, "%s%s%s%s", sym.name, *file ? " [" : "", file, *file ? "]" : "");
	return 1;
}

struct hist_names *tp_hist_names_self_new(void)
{
	struct self_names *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->names.sym = self_sym;
	s->names.ctx = s;
	return &s->names;
}

void tp_hist_names_self_free(struct hist_names *names)
{
	struct self_names *s = (struct self_names *)(void *)names;

	if (!s)
		return;
	tp_ustack_names_free(s->u);
	free(s);
}
