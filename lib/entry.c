/* SPDX-License-Identifier: MIT */
/*
 * The public entry points that reach across the layers: an object's registration and
 * tpoint_enable()/tpoint_disable(). Each does the registry's part (registry.c, patterns.c),
 * then tells the layers above it: a new event gets its filter by name (event_filter.c), the
 * patterns and the client's globs (patterns.c); the session starts recording what is enabled
 * (session.c), and TPOINT_FILTER's filters meet their events (env_filters.c). The public
 * calls of the session are here too, so that this file is the one that the program's calls
 * reach first.
 */
#include <tpoint/tpoint.h>
#include "env_filters.h"
#include "event_filter.h"
#include "init.h"
#include "patterns.h"
#include "registry.h"
#include "session.h"
#include "synth_events.h"
#include "trigger.h"

/*
 * Pulls init.o, and its constructor, into programs linked with libtpoint.a: they call
 * nothing of it, but a program that registers events or records calls into this file.
 */
__attribute__((used)) static const char *const pull_in_init = &tp_init_linked;

/* A slot just filled (under the registry lock): what the layers above want of its event. */
static void slot_added(struct event_slot *s)
{
	tp_registry_slot_apply_filter(s);
	tp_trigger_slot_added(s);
	tp_registry_slot_apply_patterns(s);
	s->client = tp_registry_slot_client_matches(s);
	tp_registry_slot_apply(s);
}

/* A slot whose object goes (under the registry lock). */
static void slot_removed(struct event_slot *s)
{
	tp_registry_slot_drop_filter(s);
	tp_trigger_slot_drop(s);
}

TPOINT_EXPORT void tpoint_module_register(const struct tpoint_module *mod)
{
	if (!tp_registry_add_module(mod, slot_added))
		return;
	tp_trigger_module_added(); /* TPOINT_TRIGGER's items that wanted a later event */
	/* TPOINT_EVENTS names events before they register: they record from here on. */
	tp_env_filters_check();
	tp_session_keep_enabled();
	tp_registry_run_fn_calls();
}

TPOINT_EXPORT void tpoint_module_unregister(const struct tpoint_module *mod)
{
	/* The compiled filter and the triggers of each event of the object are freed after a
	 * grace period. */
	if (tp_registry_remove_module(mod, slot_removed))
		tp_registry_run_fn_calls();
}

/*
 * The process's synthetic events register as objects do (synth_events.c, which stands
 * below this file): given these calls as the library loads, and the definitions that came
 * before them (TPOINT_TRIGGER, read by another constructor) registered now.
 */
__attribute__((constructor)) static void synth_calls_init(void)
{
	tp_synth_events_set_calls(tpoint_module_register, tpoint_module_unregister);
	tp_synth_events_sync();
}

TPOINT_EXPORT int tpoint_enable(const char *list)
{
	int ret = tp_registry_enable_patterns(list, true, false);

	if (ret > 0) {
		tp_env_filters_check();
		tp_session_keep_enabled(); /* enabled means recording, in memory at least */
	}
	tp_registry_run_fn_calls();
	return ret;
}

TPOINT_EXPORT int tpoint_disable(const char *list)
{
	int ret = tp_registry_enable_patterns(list, false, false);

	tp_registry_run_fn_calls();
	return ret;
}

TPOINT_EXPORT int tpoint_record_start(const char *path)
{
	return tp_session_record_start(path);
}

TPOINT_EXPORT int tpoint_record_stop(void)
{
	return tp_session_record_stop();
}

TPOINT_EXPORT int tpoint_flush(void)
{
	return tp_session_flush();
}

TPOINT_EXPORT int tpoint_set_buffer_size(size_t bytes)
{
	return tp_session_set_buffer_size(bytes);
}

TPOINT_EXPORT int tpoint_set_mode(enum tpoint_mode mode)
{
	return tp_session_set_mode(mode);
}
