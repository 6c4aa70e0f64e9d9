/* SPDX-License-Identifier: MIT */
/*
 * The runtime's settings from the environment (lib/env.h names them): every TPOINT_* variable
 * the library obeys is read through here (tp_getenv(): none in a setuid program) and parsed
 * here, with the message a bad value gets. handover.c's hand-over variables, a format of
 * its own between images of one process, are read where they are written.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <tpoint/tpoint.h>
#include "env.h"
#include "log.h"
#include "poolsize.h"

const char *tp_env_record(void)
{
	return tp_getenv(TP_ENV_RECORD);
}

const char *tp_env_spool_dir(void)
{
	return tp_getenv(TP_ENV_SPOOL_DIR);
}

const char *tp_env_snapshot_dir(void)
{
	return tp_getenv(TP_ENV_SNAPSHOT_DIR);
}

const char *tp_env_record_owner(void)
{
	return tp_getenv(TP_ENV_RECORD_OWNER);
}

void tp_env_set_record_owner(const char *pid)
{
	setenv(TP_ENV_RECORD_OWNER, pid, 1);
}

const char *tp_env_events(void)
{
	return tp_getenv(TP_ENV_EVENTS);
}

const char *tp_env_filter(void)
{
	return tp_getenv(TP_ENV_FILTER);
}

const char *tp_env_trigger(void)
{
	return tp_getenv(TP_ENV_TRIGGER);
}

void tp_env_buffer_size(size_t *bytes)
{
	const char *v = tp_getenv(TP_ENV_BUFFER_SIZE);
	size_t size;

	if (!v)
		return;
	if (tp_pool_size_parse(v, &size) < 0)
		tp_err("TPOINT_BUFFER_SIZE='%s': expected " TP_POOL_SIZE_EXPECTED "; using "
		       "%zuM", v, *bytes >> 20);
	else
		*bytes = size;
}

void tp_env_mode(enum tpoint_mode *mode)
{
	const char *v = tp_getenv(TP_ENV_MODE);

	if (!v)
		return;
	if (!strcmp(v, "discard"))
		*mode = TPOINT_MODE_DISCARD;
	else if (!strcmp(v, "overwrite"))
		*mode = TPOINT_MODE_OVERWRITE;
	else if (!strcmp(v, "block"))
		*mode = TPOINT_MODE_BLOCK;
	else
		tp_err("TPOINT_MODE='%s': expected 'discard', 'overwrite' or 'block'; using "
		       "discard", v);
}

char *tp_env_compress(void)
{
	const char *v = tp_getenv(TP_ENV_COMPRESS);

	return v && *v && strcmp(v, "none") ? strdup(v) : NULL;
}

bool tp_env_spool_pack(void)
{
	const char *v = tp_getenv(TP_ENV_SPOOL_PACK);

	if (v && strcmp(v, "0") && strcmp(v, "1"))
		tp_err("TPOINT_SPOOL_PACK='%s': expected 0 or 1; packing where the CPU can", v);
	return !v || strcmp(v, "0");
}

bool tp_env_jump_label_off(void)
{
	const char *v = tp_getenv(TP_ENV_JUMP_LABEL);

	return v && !strcmp(v, "0");
}
