/* SPDX-License-Identifier: MIT */
/* The registry as the control channel's texts (fmt/control_msg.h): events, formats, counts. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tpoint/tpoint.h>
#include "control_text.h"
#include "event_filter.h"
#include "fmt/control_msg.h"
#include "hist_set.h"
#include "registry.h"
#include "trigger.h"

/* What was written, for the caller to send: all of it, or what fitted. */
static void text_out(struct ctl_text *t, char **buf, size_t *len)
{
	*buf = t->buf;
	*len = t->len;
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

/* The slot's triggers as the kernel's trigger file lists them, one "; "-separated line. */
static char *triggers_text(const struct event_slot *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	tp_trigger_slot_describe(s, f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	while (len && buf[len - 1] == '\n')
		buf[--len] = 0;
	/* "a\nb" -> "a; b": a byte longer a line, so into a new buffer */
	char *joined = malloc(2 * len + 1), *o = joined;

	for (size_t i = 0; joined && i < len; i++) {
		if (buf[i] == '\n') {
			*o++ = ';';
			*o++ = ' ';
		} else {
			*o++ = buf[i];
		}
	}
	if (joined)
		*o = 0;
	free(buf);
	return joined;
}

void tp_registry_describe(char **buf, size_t *len)
{
	struct ctl_text t = { 0 };

	tp_registry_lock();
	for (uint32_t i = 0; i < tp_nslots; i++) {
		const struct event_slot *s = &tp_slots[i];
		char *triggers;

		/* A synthetic event no longer defined is gone, as from the kernel's list (its
		 * slot keeps its format for the records written: synth_events.c). */
		if (!s->ev && !strcmp(s->system, HIST_SYNTH_SYSTEM))
			continue;
		triggers = triggers_text(s);

		tp_registry_slot_prepare(&tp_slots[i]);
		tp_ctl_event_row_put(&t, &(struct ctl_event_row){
			.id = s->id, .system = s->system, .event = s->name, .enabled = s->record,
			.condition = s->condition, .filter = tp_registry_slot_filter_text(s),
			.refusal = s->broken ? CTL_REFUSAL_FORMAT
					     : s->fn_failed ? CTL_REFUSAL_REG : CTL_REFUSAL_NONE,
			.reg_error = s->fn_error, .why = s->refused,
			.triggers = triggers ? triggers : "" });
		free(triggers);
	}
	tp_registry_unlock();
	text_out(&t, buf, len);
}

void tp_registry_formats(char **buf, size_t *len)
{
	struct ctl_text t = { 0 };

	tp_registry_lock();
	for (uint32_t i = 0; i < tp_nslots; i++) {
		tp_registry_slot_prepare(&tp_slots[i]);
		tp_ctl_text_add(&t, "%s\n", tp_slots[i].format);
	}
	tp_registry_unlock();
	text_out(&t, buf, len);
}

void tp_registry_stats_text(char **buf, size_t *len)
{
	int n = tpoint_stats(NULL, 0);
	struct tpoint_event_stats *st = n > 0 ? calloc((size_t)n, sizeof(*st)) : NULL;
	struct ctl_text t = { 0 };

	n = st ? tpoint_stats(st, n) : 0;
	for (int i = 0; i < n; i++)
		tp_ctl_stat_row_put(&t, &(struct ctl_stat_row){
			.system = st[i].system, .event = st[i].name,
			.v = { st[i].hits, st[i].cond_skipped, st[i].filtered, st[i].recorded,
			       st[i].lost },
			.condition = st[i].condition, .usdt = st[i].usdt }, CTL_ROW_SOCKET);
	free(st);
	text_out(&t, buf, len);
}
