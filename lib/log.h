/* SPDX-License-Identifier: MIT */
/* lib/log.c: what the library says (TPOINT_DEBUG, tpoint_set_log()), and tp_getenv(). */
#ifndef TPOINT_LOG_H
#define TPOINT_LOG_H

#include "hidden.h"

HIDDEN void tp_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define tp_err(...) tp_log(0, __VA_ARGS__)
#define tp_warn(...) tp_log(1, __VA_ARGS__)
#define tp_debug(...) tp_log(2, __VA_ARGS__)
/*
 * Said even without TPOINT_DEBUG, to the log callback, else stderr: only about a recording
 * asked for by name that the library refuses to make, or that can hold nothing.
 */
HIDDEN void tp_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
HIDDEN void tp_log_init_from_env(void);
/* getenv() of TPOINT_* and XDG_RUNTIME_DIR: NULL in a setuid/setcap program (AT_SECURE). */
HIDDEN const char *tp_getenv(const char *name);

#endif
