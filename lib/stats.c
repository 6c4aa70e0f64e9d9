/* SPDX-License-Identifier: MIT */
/*
 * tpoint_stats(): each registered event's name and condition (the registry) with its counts
 * summed over threads (writer.c), for the program itself and the control channel.
 */
#include <errno.h>
#include <stdio.h>
#include <tpoint/tpoint.h>
#include "registry.h"
#include "sized.h"
#include "writer.h"

/*
 * The size of the struct as the first version declared it (x86-64, arm64): the least a
 * caller may ask for, and what callers of the first version's tpoint_stats() have.
 */
#define EVENT_STATS_V1_SIZE 184
_Static_assert(sizeof(struct tpoint_event_stats) >= EVENT_STATS_V1_SIZE,
	       "the struct only grows at its end");

TPOINT_EXPORT int tpoint_stats_sized(struct tpoint_event_stats *out, int max, size_t size)
{
	int n;

	if (max < 0 || (max > 0 && !out) || size < EVENT_STATS_V1_SIZE)
		return -EINVAL;
	tp_registry_lock();
	n = (int)tp_nslots;
	for (int i = 0; i < n && i < max; i++) {
		struct tpoint_counters c;
		struct tpoint_event_stats st = { .enabled = tp_slots[i].record };

		tp_registry_slot_prepare(&tp_slots[i]);
		/* The object of an event is loaded while its slot has it (under the lock). */
		if (tp_slots[i].ev)
			st.usdt = __atomic_load_n(&tp_slots[i].ev->enabled, __ATOMIC_RELAXED) >>
				  TPOINT_ENABLED_USDT_SHIFT;
		tp_counters_sum((uint32_t)i, &c);
		snprintf(st.system, sizeof(st.system), "%s", tp_slots[i].system);
		snprintf(st.name, sizeof(st.name), "%s", tp_slots[i].name);
		st.condition = tp_slots[i].condition;
		st.cond_skipped = c.cond_skipped;
		st.filtered = c.filtered;
		st.lost = c.lost;
		st.recorded = c.recorded;
		st.hits = st.cond_skipped + st.filtered + st.recorded + st.lost;
		tp_copy_sized((char *)out + (size_t)i * size, size, &st, sizeof(st));
	}
	tp_registry_unlock();
	return n;
}

/* Programs built against the first version: its struct is this one. */
TPOINT_EXPORT int(tpoint_stats)(struct tpoint_event_stats *out, int max)
{
	return tpoint_stats_sized(out, max, EVENT_STATS_V1_SIZE);
}
