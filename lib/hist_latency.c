/* SPDX-License-Identifier: MIT */
/*
 * hist_latency.c - the short form of a latency histogram (`--latency sys:start,sys:end --key F
 * [--by G]`, see hist_set.h), written out as the kernel's synthetic event and triggers, the
 * way Documentation/trace/histogram.rst builds wakeup_latency: a timestamp saved per key on
 * the start event, the difference taken on the end event and traced into a synthetic event,
 * whose own trigger makes the histogram (by G, then the latency in powers of two, in µs).
 */
#include <stdio.h>
#include <string.h>
#include "hist_set.h"

static const struct filter_field *field(const struct filter_field *f, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].name, name))
			return &f[i];
	return NULL;
}

/* The synthetic field's type for an event's field (synth_field_size()'s names). */
static int synth_type(const struct filter_field *f, char *buf, size_t len)
{
	if (f->kind == FILTER_STR_ARRAY && f->size <= HIST_STR_VAR_MAX)
		snprintf(buf, len, "char"); /* the size goes after the name: "char cmd[16]" */
	else if (f->kind == FILTER_NUM && (f->size == 1 || f->size == 2 || f->size == 4 ||
					   f->size == 8))
		snprintf(buf, len, "%c%u", f->is_signed ? 's' : 'u', f->size * 8u);
	else
		return -1;
	return 0;
}

static int say(char *err, size_t len, const char *what, const char *name)
{
	snprintf(err, len, what, name);
	return -1;
}

int tp_hist_latency_expand(const char *pair, const char *key, const char *by,
			   const struct filter_field *start_fields, size_t nstart,
			   const struct filter_field *end_fields, size_t nend, char *synth,
			   size_t synth_len, char *triggers, size_t triggers_len, char *err,
			   size_t err_len)
{
	char start[2 * HIST_NAME_MAX + 2], end[2 * HIST_NAME_MAX + 2], type[32], *colon;
	const char *comma = strchr(pair, ',');
	const struct filter_field *b = NULL;
	bool by_start = false;
	int n;

	if (!comma || (size_t)(comma - pair) >= sizeof(start) || strlen(comma + 1) >= sizeof(end))
		return say(err, err_len, "--latency '%s': expected SYSTEM:START,SYSTEM:END", pair);
	snprintf(start, sizeof(start), "%.*s", (int)(comma - pair), pair);
	snprintf(end, sizeof(end), "%s", comma + 1);
	if (!strchr(start, ':') || !strchr(end, ':') || strchr(end, ','))
		return say(err, err_len, "--latency '%s': expected SYSTEM:START,SYSTEM:END", pair);
	if (!field(start_fields, nstart, key) || !field(end_fields, nend, key))
		return say(err, err_len, "--key '%s': not a field of both events", key);
	if (by) {
		b = field(end_fields, nend, by);
		if (!b) {
			b = field(start_fields, nstart, by);
			by_start = true;
		}
		if (!b)
			return say(err, err_len, "--by '%s': not a field of either event", by);
		if (synth_type(b, type, sizeof(type)))
			return say(err, err_len, "--by '%s': a number or a char[N] string is needed "
				   "(a synthetic event holds no dynamic string here)", by);
	}
	if (b && b->kind == FILTER_STR_ARRAY)
		n = snprintf(synth, synth_len, "latency u64 lat; char %s[%u]", by, b->size);
	else if (b)
		n = snprintf(synth, synth_len, "latency u64 lat; %s %s", type, by);
	else
		n = snprintf(synth, synth_len, "latency u64 lat");
	if (n < 0 || (size_t)n >= synth_len)
		return say(err, err_len, "%s", "--latency: the names are too long");
	colon = strchr(start, ':');
	*colon = 0; /* start is now SYSTEM, colon + 1 the event: onmatch() writes SYSTEM.EVENT */
	n = snprintf(triggers, triggers_len,
		     "%s:%s:hist:keys=%s:ts0=common_timestamp.usecs%s%s;"
		     "%s:hist:keys=%s:lat=common_timestamp.usecs-$ts0:"
		     "onmatch(%s.%s).trace(latency,$lat%s%s);"
		     HIST_SYNTH_SYSTEM ":latency:hist:keys=%s%slat.log2:sort=%s%slat",
		     start, colon + 1, key, by_start ? ",by0=" : "", by_start ? by : "",
		     end, key, start, colon + 1, b ? "," : "", !b ? "" : by_start ? "$by0" : by,
		     b ? by : "", b ? "," : "", b ? by : "", b ? "," : "");
	if (n < 0 || (size_t)n >= triggers_len)
		return say(err, err_len, "%s", "--latency: the names are too long");
	return 0;
}
