/* SPDX-License-Identifier: MIT */
/*
 * The library prints nothing on its own: messages go to a replaceable callback, set by
 * tpoint_set_log() or by TPOINT_DEBUG=1. One kind of message is the exception
 * (tp_notice()): a recording or filter the user asked for by name (TPOINT_RECORD,
 * TPOINT_FILTER) that the library refuses to make, could not complete, or that nothing
 * could go into.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static tpoint_log_fn log_fn;
static void *log_arg;

static void log_stderr(int level, const char *msg, void *arg)
{
	static const char *const prefix[] = { "error", "warning", "debug" };

	(void)arg;
	fprintf(stderr, "tpoint: %s: %s\n", prefix[level < 0 ? 0 : level > 2 ? 2 : level], msg);
}

void tp_log_init_from_env(void)
{
	const char *v = getenv("TPOINT_DEBUG");

	if (v && *v && strcmp(v, "0") != 0 && !log_fn)
		log_fn = log_stderr;
}

TPOINT_EXPORT void tpoint_set_log(tpoint_log_fn fn, void *arg)
{
	log_arg = arg;
	__atomic_store_n(&log_fn, fn, __ATOMIC_RELEASE);
}

void tp_log(int level, const char *fmt, ...)
{
	tpoint_log_fn fn = __atomic_load_n(&log_fn, __ATOMIC_ACQUIRE);
	char msg[512];
	va_list ap;

	if (!fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fn(level, msg, log_arg);
}

/*
 * The messages printed without TPOINT_DEBUG: TPOINT_RECORD named something the library will
 * not write (a device, a FIFO, a link, a directory it cannot write in), a file into which no
 * event could go (nothing enabled, tp_registry_say_nothing_enabled()), or one it could not
 * complete (where the recording is kept instead); a TPOINT_FILTER that cannot be set. The
 * user asked for a file or a filter and would otherwise find nothing, an empty file or an
 * unfiltered one, with no word why. One line on stderr, unless the program's log callback
 * takes it.
 */
void tp_notice(const char *fmt, ...)
{
	tpoint_log_fn fn = __atomic_load_n(&log_fn, __ATOMIC_ACQUIRE);
	char msg[4096]; /* paths, each up to PATH_MAX, and the command that names them twice */
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (fn)
		fn(0, msg, log_arg);
	else
		fprintf(stderr, "tpoint: %s\n", msg);
}
