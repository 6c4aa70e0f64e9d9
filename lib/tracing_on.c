/* SPDX-License-Identifier: MIT */
/*
 * The process's tracing_on (see tracing_on.h). One word counts the switches (even: on, odd:
 * off), so a switch is one compare-and-swap from the state it leaves, and the switch it makes
 * has the number the word had: its slot in the log, written by the one thread that made it.
 */
#include <stdlib.h>
#include <string.h>
#include <tpoint/tpoint.h>
#include "env.h"
#include "log.h"
#include "tracing_on.h"

uint64_t tp_tracing_switches;
static uint64_t stamps[TP_TRACING_LOG_MAX]; /* 0: being written */

uint32_t tp_tracing_claim(bool on)
{
	uint64_t w = __atomic_load_n(&tp_tracing_switches, __ATOMIC_RELAXED);

	do {
		if (!(w & 1) == on)
			return 0;
	} while (!__atomic_compare_exchange_n(&tp_tracing_switches, &w, w + 1, true,
					      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	return w < TP_TRACING_LOG_MAX ? (uint32_t)w + 1 : TP_TRACING_LOG_MAX + 1;
}

void tp_tracing_stamp(uint32_t slot_plus_1, uint64_t clock)
{
	if (slot_plus_1 && slot_plus_1 <= TP_TRACING_LOG_MAX)
		__atomic_store_n(&stamps[slot_plus_1 - 1], clock ? clock : 1, __ATOMIC_RELEASE);
}

bool tp_tracing_switch(bool on, uint64_t clock)
{
	uint32_t slot = tp_tracing_claim(on);

	tp_tracing_stamp(slot, clock);
	return slot != 0;
}

uint32_t tp_tracing_log(uint32_t from, uint64_t *out, uint32_t max, uint64_t *total)
{
	uint64_t n = __atomic_load_n(&tp_tracing_switches, __ATOMIC_ACQUIRE);
	uint32_t k = 0;

	*total = n;
	if (n > TP_TRACING_LOG_MAX)
		n = TP_TRACING_LOG_MAX;
	for (uint64_t i = from; i < n && k < max; i++) {
		uint64_t c = __atomic_load_n(&stamps[i], __ATOMIC_ACQUIRE);

		if (!c)
			break; /* its thread is between its switch and its stamp: next time */
		out[k++] = c;
	}
	return k;
}

void tp_tracing_after_fork(void)
{
	uint64_t n = __atomic_load_n(&tp_tracing_switches, __ATOMIC_ACQUIRE);

	for (uint64_t i = 0; i < n && i < TP_TRACING_LOG_MAX; i++)
		if (!__atomic_load_n(&stamps[i], __ATOMIC_RELAXED))
			__atomic_store_n(&stamps[i], tpoint_arch_clock(), __ATOMIC_RELEASE);
}

void tp_tracing_from_env(void)
{
	const char *v = tp_getenv(TP_ENV_TRACING_ON);

	if (!v || !strcmp(v, "1"))
		return;
	if (!strcmp(v, "0"))
		tp_tracing_switch(false, 1); /* off from the start: before every record */
	else
		tp_notice("TPOINT_TRACING_ON='%s': expected 0 or 1; tracing stays on", v);
}
