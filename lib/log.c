/* SPDX-License-Identifier: MIT */
/*
 * The library never prints on its own: messages go to a replaceable callback. One exception,
 * tp_say(): TPOINT_RECORD asked for a file and nothing could go into it.
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

void log_init_from_env(void)
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

/*
 * The one message the library prints without TPOINT_DEBUG (registry_say_nothing_enabled()):
 * to the program's log callback if it set one, else to stderr.
 */
void tp_say(const char *fmt, ...)
{
	tpoint_log_fn fn = __atomic_load_n(&log_fn, __ATOMIC_ACQUIRE);
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (fn)
		fn(0, msg, log_arg);
	else
		fprintf(stderr, "tpoint: %s\n", msg);
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
