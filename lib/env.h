/* SPDX-License-Identifier: MIT */
/*
 * The environment variables of the runtime, by name: the library reads them (lib/env.c;
 * handover.c's own hand-over variables between images), and the tool sets some of them for
 * the programs it starts (tools/tpoint/record.c), with these names; it links none of
 * lib/env.c's functions.
 */
#ifndef TPOINT_ENV_H
#define TPOINT_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <tpoint/tpoint.h>
#include "hidden.h"

/* Set by the user (tpoint(3) describes each). */
#define TP_ENV_DEBUG "TPOINT_DEBUG"
#define TP_ENV_EVENTS "TPOINT_EVENTS"
#define TP_ENV_FILTER "TPOINT_FILTER"
#define TP_ENV_TRIGGER "TPOINT_TRIGGER"
#define TP_ENV_TRACING_ON "TPOINT_TRACING_ON"
#define TP_ENV_RECORD "TPOINT_RECORD"
#define TP_ENV_BUFFER_SIZE "TPOINT_BUFFER_SIZE"
#define TP_ENV_MODE "TPOINT_MODE"
#define TP_ENV_COMPRESS "TPOINT_COMPRESS"
#define TP_ENV_SPOOL_PACK "TPOINT_SPOOL_PACK"
#define TP_ENV_JUMP_LABEL "TPOINT_JUMP_LABEL"
#define TP_ENV_CONTROL "TPOINT_CONTROL"
#define TP_ENV_SNAPSHOT_DIR "TPOINT_SNAPSHOT_DIR"
/* Where the control sockets are (lib/fmt/control_msg.h says the rule). */
#define TP_ENV_RUNTIME_DIR "XDG_RUNTIME_DIR"
/* Set by `tpoint record` for the program it starts: spool into this directory. */
#define TP_ENV_SPOOL_DIR "TPOINT_SPOOL_DIR"
/* Set by the library for its children and the images after exec (handover.c, session_env.c). */
#define TP_ENV_RECORD_OWNER "TPOINT_RECORD_OWNER"
#define TP_ENV_POOL "TPOINT_POOL"
#define TP_ENV_COLLECT "TPOINT_COLLECT"
#define TP_ENV_WATCH "TPOINT_WATCH"

/*
 * lib/env.c: each setting read, and parsed, where its use asks for it: some are read again
 * (a forked child reads TPOINT_RECORD; the library sets TPOINT_RECORD_OWNER itself), and a
 * bad value is said where it is used. NULL: not set (or a setuid program: tp_getenv()).
 */
HIDDEN const char *tp_env_record(void);
HIDDEN const char *tp_env_spool_dir(void);
/* Where a snapshot trigger writes its files (snapshot_trigger.c). */
HIDDEN const char *tp_env_snapshot_dir(void);
HIDDEN const char *tp_env_record_owner(void);
/* This process owns TPOINT_RECORD's file: its children record beside it. */
HIDDEN void tp_env_set_record_owner(const char *pid);
HIDDEN const char *tp_env_events(void);
HIDDEN const char *tp_env_filter(void);
HIDDEN const char *tp_env_trigger(void);
/* TPOINT_BUFFER_SIZE into *bytes when set and valid; a bad value is said, *bytes kept. */
HIDDEN void tp_env_buffer_size(size_t *bytes);
/* TPOINT_MODE into *mode when set and valid; a bad value is said, *mode kept. */
HIDDEN void tp_env_mode(enum tpoint_mode *mode);
/* TPOINT_COMPRESS's codec spec, malloc'ed, or NULL for none (unset, empty or "none"). */
HIDDEN char *tp_env_compress(void);
/* TPOINT_SPOOL_PACK: false when it turns packing off (a bad value is said). */
HIDDEN bool tp_env_spool_pack(void);
/* TPOINT_JUMP_LABEL=0: no code patching. */
HIDDEN bool tp_env_jump_label_off(void);

#endif
