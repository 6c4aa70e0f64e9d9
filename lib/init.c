/* SPDX-License-Identifier: MIT */
/*
 * What the library does on its own, at the top of its layers: as it loads (the log, the
 * thread-exit hook, the environment's settings and recording, the control thread), at exit,
 * and around fork(), where each module below gets its turn in an order that matters: the
 * locks taken before the fork, the child's state reset before its recording goes on.
 */
#include <pthread.h>
#include <stdlib.h>
#include <tpoint/tpoint.h>
#include "control.h"
#include "drain.h"
#include "env_filters.h"
#include "handover.h"
#include "init.h"
#include "jump.h"
#include "log.h"
#include "patterns.h"
#include "registry.h"
#include "session.h"
#include "session_env.h"
#include "snapshot_trigger.h"
#include "spool_context.h"
#include "spool_out.h"
#include "synth_events.h"
#include "tracing_on.h"
#include "writer.h"

/* What entry.c refers to, so that a program linked with libtpoint.a gets this file. */
const char tp_init_linked = 1;

static void fork_prepare(void)
{
	tp_session_lock();
	/* No fork in the middle of a patch: the child would inherit a half-written site. */
	tp_jump_fork_prepare();
	tp_spool_fork_prepare();
	tp_control_fork_prepare();
	tp_snapshot_trigger_fork_prepare();
}

static void fork_parent(void)
{
	tp_snapshot_trigger_fork_parent();
	tp_jump_fork_parent();
	tp_session_unlock();
}

static void fork_child(void)
{
	struct session_parent parent;

	tp_session_fork_child(&parent);
	tp_jump_fork_child();
	tp_registry_after_fork();
	tp_synth_events_after_fork();
	tp_registry_client_after_fork();
	tp_writer_after_fork();
	tp_tracing_after_fork(); /* before the child's recording reads the switches */
	tp_spool_after_fork();
	tp_spool_stats_forget(); /* the child counts from zero (tp_writer_after_fork()) */
	tp_control_after_fork();
	tp_watch_after_fork();
	tp_session_env_after_fork(&parent);
	tp_snapshot_trigger_after_fork();
}

__attribute__((constructor)) static void tpoint_init(void)
{
	tp_log_init_from_env();
	if (tp_writer_init() < 0)
		tp_err("no thread-exit hook; pages of exited threads are read at the end");
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	tp_session_configure_from_env();
	tp_session_env_start();
	/* TPOINT_TRIGGER's synthetic events, as objects that register once recording runs. */
	tp_synth_events_sync();
	/* TPOINT_EVENTS alone: the events that registered already record into memory. */
	tp_env_filters_check();
	tp_session_keep_enabled();
	atexit(tp_session_env_at_exit);
	tp_control_start();
}
