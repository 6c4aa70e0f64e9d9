// SPDX-License-Identifier: MIT
/*
 * trigger_dlclose_test - enable_event across dlclose (build/tests/libtp_plugin.so): the
 * event it switches lives in the library, or the trigger does. A target that goes leaves
 * no pointer behind (the trigger fires on, from 4 threads, while it is gone), and comes
 * back switched (its sites on for the trigger) when the library is loaded again; a trigger
 * that goes with its library gives its target back its own state. The refusals of
 * tpoint_set_trigger(): a target that does not exist, a count of 0.
 */
#include "testutil.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_dlmain.h>

typedef int (*enabled_fn)(void);

static char lib_path[PATH_MAX + 32];

static enabled_fn load(void **lib)
{
	enabled_fn en;

	*lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
	REQUIRE(*lib != NULL, "dlopen %s: %s", lib_path, dlerror());
	*(void **)&en = dlsym(*lib, "plugin_enabled");
	REQUIRE(en != NULL, "plugin_enabled found");
	return en;
}

static void *hit(void *arg)
{
	for (int i = 0; i < 10000; i++)
		trace_main_tick((int)(intptr_t)arg, i);
	return NULL;
}

int main(void)
{
	char dir[PATH_MAX];
	pthread_t th[4];
	enabled_fn en;
	void *lib;

	tu_self_dir(dir, sizeof(dir));
	snprintf(lib_path, sizeof(lib_path), "%s/libtp_plugin.so", dir);
	if (access(lib_path, R_OK))
		tu_skip("build/tests/libtp_plugin.so not built (TEST_LIBS)");

	en = load(&lib);
	CHECK(en() == 0, "plugin_work is off: nothing selects it");
	CHECK(tpoint_set_trigger("tpt_dlmain:main_tick", "enable_event:plugin:plugin_work:3") == 0,
	      "enable_event on the library's event");
	CHECK(en() == 1, "plugin_work is on for the trigger (soft mode)");
	CHECK(trace_main_tick_enabled(), "main_tick is on for its trigger");
	CHECK(tpoint_set_trigger("plugin:plugin_work", "enable_event:tpt_dlmain:main_tick") == 0,
	      "a trigger in the library that switches main_tick");
	CHECK(dlclose(lib) == 0, "dlclose: %s", dlerror());

	/* The target is gone: the trigger fires on, flipping a flag by index. */
	for (int i = 0; i < 4; i++)
		REQUIRE(pthread_create(&th[i], NULL, hit, (void *)(intptr_t)i) == 0, "pthread_create");
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	CHECK(trace_main_tick_enabled(), "main_tick keeps its own trigger");

	en = load(&lib);
	CHECK(en() == 1, "loaded again, plugin_work is switched again");
	CHECK(tpoint_set_trigger("tpt_dlmain:main_tick", "!enable_event:plugin:plugin_work") == 0,
	      "the trigger removed");
	CHECK(en() == 0, "plugin_work back off without it");

	/* The refusals (the kernel's: the target must exist; a count above 0). */
	CHECK(tpoint_set_trigger("tpt_dlmain:main_tick", "enable_event:plugin:nosuch") == -ENOENT,
	      "enable_event of an event that does not exist");
	CHECK(tpoint_set_trigger("tpt_dlmain:main_tick", "traceon:0") == -EINVAL, "traceon:0");
	CHECK(tpoint_set_trigger("tpt_dlmain:main_tick", "disable_event:plugin:plugin_work") == 0,
	      "disable_event");
	CHECK(tpoint_set_trigger("tpt_dlmain:main_tick", "enable_event:plugin:plugin_work") ==
		      -EEXIST, "enable_event beside a disable_event of the same event");
	CHECK(dlclose(lib) == 0, "dlclose: %s", dlerror());
	CHECK(tpoint_set_trigger("tpt_dlmain:main_tick", "!disable_event:plugin:plugin_work") == 0,
	      "a trigger whose target is gone is removed");
	CHECK(tpoint_set_trigger("tpt_dlmain:main_tick", "!hist:keys=thread") == -ENOENT,
	      "nothing else there");
	tu_note("enable_event across dlclose: no dangling target, switched again on reload");
	return tu_finish();
}
