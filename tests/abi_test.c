// SPDX-License-Identifier: MIT
/*
 * abi_test - an object built for another tpoint ABI is refused, said with its ABI, and its
 * events stay off: the hot path of such an object would read the thread's state with another
 * layout. The test hands the library the modules of objects built for ABI 2 and 5 (tables
 * of pointers to descriptors with pointers to their records, those of a real event), of one
 * built for ABI 4 (whose meta record has version 1's fixed 64-byte names) and of one from an
 * unknown future ABI, and checks the messages, that none of their events registers, and
 * that recording and enabling everything leaves them off, while this object's own event
 * records.
 */
#include "testutil.h"

#include "meta_read.h"

/*
 * The descriptor and the module as objects of ABI 1 to 5 laid them out (ABI 1 to 3 ended
 * the descriptor at meta). The library reads only the module's abi of them.
 */
struct tpoint_event_v5 {
	uint32_t enabled;
	uint16_t id;
	uint16_t abi;
	uint32_t index;
	uint32_t registered;
	void *probes;
	void *filter;
	const struct tpoint_meta_class *class_meta;
	const struct tpoint_meta_event *meta;
};
struct tpoint_module_v5 {
	uint32_t abi;
	struct tpoint_event_v5 *const *events_begin;
	struct tpoint_event_v5 *const *events_end;
	const char *meta_begin;
	const char *meta_end;
};

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_abi.h>

static struct tpoint_event_v5 old_ev, abi5_ev, future_ev, abi4_ev;
static struct tpoint_event_v5 *const old_events[] = { &old_ev };
static struct tpoint_event_v5 *const abi5_events[] = { &abi5_ev };
static struct tpoint_event_v5 *const future_events[] = { &future_ev };
static struct tpoint_event_v5 *const abi4_events[] = { &abi4_ev };

/* The event record of an object built for ABI 4: TPOINT_META_VERSION 1. */
static const struct tpoint_meta_event_v1 abi4_meta = {
	{ TPOINT_META_MAGIC, TPOINT_META_EVENT, 1, sizeof(struct tpoint_meta_event_v1) },
	"tpt_old", "abi4_event", "abi4_event", 1, 1
};

/* The entry of this object's table (stage 7's bounds) that names `ev`. */
static const struct tpoint_event_ref *event_ref(const struct tpoint_event *ev)
{
	for (const struct tpoint_event_ref *r = __start_tpoint_events; r < __stop_tpoint_events;
	     r++)
		if (tpoint_event_ref_at(&r->event) == ev)
			return r;
	return NULL;
}

static struct tpoint_module_v5 old_mod = { 2, old_events, old_events + 1, NULL, NULL };
static struct tpoint_module_v5 abi5_mod = { 5, abi5_events, abi5_events + 1, NULL, NULL };
static struct tpoint_module_v5 future_mod = { TPOINT_ABI + 7, future_events, future_events + 1,
					      NULL, NULL };
static struct tpoint_module_v5 abi4_mod = { 4, abi4_events, abi4_events + 1, NULL, NULL };

/* The old objects' modules, handed to the library as their constructors would. */
static void register_old(void)
{
	/* A real event's records, as objects of ABI 2 and 5 would have pointed at them. */
	const struct tpoint_event_ref *ref = event_ref(&TPOINT_EVENT_SYM(abi_now));

	REQUIRE(ref, "this object's table has abi_now");
	old_ev.abi = 2;
	old_ev.class_meta = tpoint_event_ref_at(&ref->class_meta);
	old_ev.meta = tpoint_event_ref_at(&ref->meta);
	abi5_ev = old_ev;
	abi5_ev.abi = 5;
	future_ev = old_ev;
	future_ev.abi = TPOINT_ABI + 7;
	abi4_ev = old_ev;
	abi4_ev.abi = 4;
	abi4_ev.meta = (const struct tpoint_meta_event *)(const void *)&abi4_meta;
	abi4_ev.class_meta = NULL;
	tpoint_module_register((const struct tpoint_module *)(const void *)&old_mod);
	tpoint_module_register((const struct tpoint_module *)(const void *)&abi5_mod);
	tpoint_module_register((const struct tpoint_module *)(const void *)&future_mod);
	tpoint_module_register((const struct tpoint_module *)(const void *)&abi4_mod);
}

int main(int argc, char **argv)
{
	struct tpoint_event_stats st;
	char want[512], cmd[PATH_MAX + 128];
	int ret;

	/*
	 * A program whose recording asks only for the old objects' events: the file holds
	 * nothing, and the library says why as it exits (it said only "matches no event").
	 */
	if (argc > 1 && !strcmp(argv[1], "child")) {
		register_old();
		return 0;
	}
	snprintf(cmd, sizeof(cmd), "TPOINT_RECORD=old.dat TPOINT_EVENTS='tpt_old:*' %s child "
		 ">child.out 2>child.err", argv[0]);
	CHECK(system(cmd) == 0, "%s", cmd);
	snprintf(want, sizeof(want), "tpoint: TPOINT_RECORD=old.dat: TPOINT_EVENTS='tpt_old:*' "
		 "matches no event of this program, so the file holds none; its events built for "
		 "tpoint ABI %d were refused (this library has %d): rebuild them with its headers",
		 4, TPOINT_ABI);
	{
		char err[2048] = "";
		FILE *f = fopen("child.err", "r");
		size_t n = f ? fread(err, 1, sizeof(err) - 1, f) : 0;

		if (f)
			fclose(f);
		err[n] = 0;
		CHECK(strstr(err, want), "the refusal by ABI is said unasked; stderr:\n%s", err);
	}

	tpoint_set_log(tu_log_gather, NULL);
	register_old();
	tu_note("logged:\n%s", tu_logged);

	static const unsigned refused[] = { 2, 5, TPOINT_ABI + 7, 4 };

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		snprintf(want, sizeof(want), "an object built for tpoint ABI %u (this library has "
			 "%d) was not registered: its events stay off", refused[i], TPOINT_ABI);
		CHECK(strstr(tu_logged, want), "the object of ABI %u is refused, said with its ABI",
		      refused[i]);
	}
	CHECK(!old_ev.registered && !abi5_ev.registered && !future_ev.registered &&
	      !abi4_ev.registered, "none registered");

	CHECK(tpoint_enable("tpt_abi:*") == 1, "only this object's event matches");
	ret = tpoint_record_start("abi.dat");
	REQUIRE(ret == 0, "tpoint_record_start: %s", strerror(-ret));
	CHECK(old_ev.enabled == 0 && abi5_ev.enabled == 0 && future_ev.enabled == 0,
	      "recording: they stay off (%u %u %u)", old_ev.enabled, abi5_ev.enabled,
	      future_ev.enabled);
	trace_abi_now(1);
	ret = tpoint_record_stop();
	REQUIRE(ret == 0, "tpoint_record_stop: %s", strerror(-ret));
	CHECK(tu_stats("tpt_abi", "abi_now", &st) == 0 && st.recorded == 1,
	      "this object's event recorded %" PRIu64 ", want 1", st.recorded);
	/* Nothing to undo; must not touch the real one. */
	tpoint_module_unregister((const struct tpoint_module *)(const void *)&old_mod);
	CHECK(TPOINT_EVENT_SYM(abi_now).registered, "unregistering the old module leaves ours");
	return tu_finish();
}
