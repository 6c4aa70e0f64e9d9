/* SPDX-License-Identifier: MIT */
/*
 * The library prints nothing on its own: messages go to a replaceable callback, set by
 * tpoint_set_log() or by TPOINT_DEBUG=1. One kind of message is the exception
 * (tp_notice()): a recording or filter the user asked for by name (TPOINT_RECORD,
 * TPOINT_FILTER) that the library refuses to make, could not complete, or that nothing
 * could go into.
 *
 * Every variable the library reads goes through tp_getenv() here: a program that runs with
 * more privilege than its caller (setuid, setgid, file capabilities) obeys none of them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <tpoint/tpoint.h>
#include "env.h"
#include "log.h"

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
	const char *v = tp_getenv(TP_ENV_DEBUG);

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

/*
 * The variables of the caller a privileged program must not obey: every TPOINT_* (file
 * names, descriptors, events) and XDG_RUNTIME_DIR (where the control socket goes).
 */
static bool env_is_ours(const char *entry)
{
	return !strncmp(entry, "TPOINT_", 7) || !strncmp(entry, "XDG_RUNTIME_DIR=", 16);
}

/*
 * Ignored variables get one line, the first time any is asked for: the user who set
 * TPOINT_RECORD for a setuid program learns why no file came.
 */
static void say_env_ignored(void)
{
	extern char **environ;
	char names[400];
	size_t len = 0;
	bool cut = false;

	names[0] = 0;
	for (char **e = environ; e && *e; e++) {
		size_t n = strcspn(*e, "=");

		if (!env_is_ours(*e))
			continue;
		if (len + n + 3 >= sizeof(names)) {
			cut = true;
			break;
		}
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%.*s", len ? ", " : "",
					(int)n, *e);
	}
	if (len)
		tp_notice("%s%s ignored: this program runs with privileges its caller does not "
			  "have (setuid, setgid or file capabilities); root can still trace it "
			  "through its control socket (tpoint record -p)", names, cut ? ", ..." : "");
}

/*
 * getenv() for the library's variables, with secure_getenv()'s rule: nothing when the
 * kernel marked this program's execution secure (AT_SECURE).
 */
const char *tp_getenv(const char *name)
{
	static int said;

	if (!getauxval(AT_SECURE))
		return getenv(name);
	if (!__atomic_exchange_n(&said, 1, __ATOMIC_ACQ_REL))
		say_env_ignored();
	return NULL;
}
