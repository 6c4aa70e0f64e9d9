/* SPDX-License-Identifier: MIT */
/* The registry as the control channel's texts (control_proto.h): events, formats, counts. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tpoint/tpoint.h>
#include "control_text.h"
#include "event_filter.h"
#include "registry.h"

static void text_add(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void text_add(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !*cap)
		return;
	if (*len + (size_t)n + 1 > *cap) {
		size_t c = *cap * 2 + (size_t)n;
		char *b = realloc(*buf, c);

		if (!b) {
			*cap = 0; /* give up: the caller sends what it has */
			return;
		}
		*buf = b;
		*cap = c;
	}
	va_start(ap, fmt);
	vsnprintf(*buf + *len, *cap - *len, fmt, ap);
	va_end(ap);
	*len += (size_t)n;
}

int tp_registry_enabled_count(void)
{
	int n = 0;

	tp_registry_lock();
	for (uint32_t i = 0; i < tp_nslots; i++)
		n += tp_slots[i].record;
	tp_registry_unlock();
	return n;
}

void tp_registry_describe(char **buf, size_t *len)
{
	size_t cap = 4096;

	*buf = malloc(cap);
	*len = 0;
	if (!*buf)
		return;
	tp_registry_lock();
	for (uint32_t i = 0; i < tp_nslots; i++) {
		char fn_why[64] = "";

		tp_registry_slot_prepare(&tp_slots[i]);
		if (tp_slots[i].fn_failed)
			snprintf(fn_why, sizeof(fn_why), "reg function returned %d",
				 tp_slots[i].fn_error);
		text_add(buf, len, &cap, "%u\t%s:%s\t%d\t%s\t%s\t%s\n", tp_slots[i].id,
			 tp_slots[i].system, tp_slots[i].name, tp_slots[i].record,
			 tp_slots[i].condition,
			 tp_registry_slot_filter_text(&tp_slots[i]),
			 tp_slots[i].broken
				 ? (tp_slots[i].refused ? tp_slots[i].refused : "refused")
				 : fn_why);
	}
	tp_registry_unlock();
}

void tp_registry_formats(char **buf, size_t *len)
{
	size_t cap = 16384;

	*buf = malloc(cap);
	*len = 0;
	if (!*buf)
		return;
	tp_registry_lock();
	for (uint32_t i = 0; i < tp_nslots; i++) {
		tp_registry_slot_prepare(&tp_slots[i]);
		text_add(buf, len, &cap, "%s\n", tp_slots[i].format);
	}
	tp_registry_unlock();
}

void tp_registry_stats_text(char **buf, size_t *len)
{
	int n = tpoint_stats(NULL, 0);
	struct tpoint_event_stats *st = n > 0 ? calloc((size_t)n, sizeof(*st)) : NULL;
	size_t cap = 4096;

	*len = 0;
	*buf = malloc(cap);
	if (!*buf || !st) {
		free(st);
		return;
	}
	n = tpoint_stats(st, n);
	for (int i = 0; i < n; i++)
		text_add(buf, len, &cap, "%s:%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%s\t%u\n",
			 st[i].system, st[i].name, (unsigned long long)st[i].hits,
			 (unsigned long long)st[i].cond_skipped, (unsigned long long)st[i].filtered,
			 (unsigned long long)st[i].recorded, (unsigned long long)st[i].lost,
			 st[i].condition, st[i].usdt);
	free(st);
}
