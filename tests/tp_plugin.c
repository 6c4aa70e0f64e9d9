// SPDX-License-Identifier: MIT
/*
 * tp_plugin - a shared library with tracepoints of its own, for dlopen_test. Its events are
 * created here (CREATE_TRACE_POINTS inside the .so): they register when the library is
 * loaded and unregister when it is unloaded.
 */
#include <stdio.h>

#define CREATE_TRACE_POINTS
#include <trace/events/plugin.h>

#define EXPORT __attribute__((visibility("default")))

/* Emit n events; returns how many calls were made while the event was on. */
EXPORT int plugin_work(int phase, int thread, int n)
{
	char msg[32];
	int on = 0;

	for (int i = 0; i < n; i++) {
		snprintf(msg, sizeof(msg), "p%d-t%d-%d", phase, thread, i);
		on += trace_plugin_work_enabled();
		trace_plugin_work(phase, thread, i, msg);
	}
	return on;
}

EXPORT int plugin_enabled(void)
{
	return trace_plugin_work_enabled();
}
