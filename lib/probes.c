/* SPDX-License-Identifier: MIT */
/*
 * In-process probes (tpoint_probe_register()): a copy-on-write set per event, published with
 * release for the hit path, changed under the registry lock (registry.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <tpoint/tpoint.h>
#include "registry.h"

TPOINT_EXPORT int tpoint_probe_register(struct tpoint_event *ev, void (*func)(void), void *data)
{
	struct tpoint_probe_set *old, *set;
	uint32_t n;

	if (!ev || !func)
		return -EINVAL;
	tp_registry_lock();
	old = ev->probes;
	n = old ? old->count : 0;
	for (uint32_t i = 0; i < n; i++)
		if (old->probe[i].func == func && old->probe[i].data == data) {
			tp_registry_unlock();
			return -EEXIST;
		}
	set = malloc(sizeof(*set) + (n + 1) * sizeof(set->probe[0]));
	if (!set) {
		tp_registry_unlock();
		return -ENOMEM;
	}
	set->count = n + 1;
	if (n)
		memcpy(set->probe, old->probe, n * sizeof(set->probe[0]));
	set->probe[n].func = func;
	set->probe[n].data = data;
	/* Release: the set is complete before a hit can load it. */
	__atomic_store_n(&ev->probes, set, __ATOMIC_RELEASE);
	tp_registry_set_enable_word(ev, (ev->enabled & TPOINT_ENABLED_MASK) | TPOINT_ENABLED_PROBES);
	/*
	 * The old set is not freed: a thread may still be walking it, and nothing tells when it
	 * is done. Registration is rare; this costs a few bytes per change.
	 */
	tp_registry_unlock();
	tp_registry_run_fn_calls();
	return 0;
}

TPOINT_EXPORT int tpoint_probe_unregister(struct tpoint_event *ev, void (*func)(void), void *data)
{
	struct tpoint_probe_set *old, *set = NULL;
	uint32_t n, j = 0;
	int found = -ENOENT;

	if (!ev || !func)
		return -EINVAL;
	tp_registry_lock();
	old = ev->probes;
	n = old ? old->count : 0;
	if (n > 1) {
		set = malloc(sizeof(*set) + (n - 1) * sizeof(set->probe[0]));
		if (!set) {
			tp_registry_unlock();
			return -ENOMEM;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		if (found == -ENOENT && old->probe[i].func == func && old->probe[i].data == data) {
			found = 0;
			continue;
		}
		if (set && j < n - 1)
			set->probe[j++] = old->probe[i];
	}
	if (found < 0) {
		free(set);
		tp_registry_unlock();
		return found;
	}
	if (set)
		set->count = j;
	if (!set)
		tp_registry_set_enable_word(ev, ev->enabled & TPOINT_ENABLED_MASK &
						    ~TPOINT_ENABLED_PROBES);
	__atomic_store_n(&ev->probes, set, __ATOMIC_RELEASE);
	/* The last probe of a TRACE_EVENT_FN event may have been its last user. */
	if (ev->unreg)
		tp_fn_calls_pending = true;
	tp_registry_unlock();
	tp_registry_run_fn_calls();
	return 0;
}
