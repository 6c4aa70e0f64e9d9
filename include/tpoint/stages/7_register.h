/* SPDX-License-Identifier: MIT */
/*
 * Stage 7: registration. Every event of this object (executable or shared library) has its
 * entry in the "tpoint_events" section (struct tpoint_event_ref, which stage 6 emits) and
 * its meta records in "tpoint_meta"; the linker gives
 * each object its own __start_/__stop_ bounds. A constructor hands both ranges to the runtime
 * when the object is loaded (program start or dlopen), a destructor takes them back when it
 * is unloaded (exit or dlclose). Several files of one object may create trace points: each
 * registers the same ranges, which the runtime takes once.
 */
#ifndef TPOINT_REGISTER_EMITTED
#define TPOINT_REGISTER_EMITTED

extern const struct tpoint_event_ref __start_tpoint_events[]
	__attribute__((weak, visibility("hidden")));
extern const struct tpoint_event_ref __stop_tpoint_events[]
	__attribute__((weak, visibility("hidden")));
extern const char __start_tpoint_meta[] __attribute__((weak, visibility("hidden")));
extern const char __stop_tpoint_meta[] __attribute__((weak, visibility("hidden")));

static const struct tpoint_module __tpoint_this_module = {
	TPOINT_ABI,
	__start_tpoint_events,
	__stop_tpoint_events,
	__start_tpoint_meta,
	__stop_tpoint_meta,
};

__attribute__((constructor)) static void __tpoint_module_ctor(void)
{
	tpoint_module_register(&__tpoint_this_module);
}

__attribute__((destructor)) static void __tpoint_module_dtor(void)
{
	tpoint_module_unregister(&__tpoint_this_module);
}

#endif /* TPOINT_REGISTER_EMITTED */
