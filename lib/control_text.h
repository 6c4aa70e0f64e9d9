/* SPDX-License-Identifier: MIT */
/* lib/control_text.c: the texts of the control protocol from the registry. */
#ifndef TPOINT_CONTROL_TEXT_H
#define TPOINT_CONTROL_TEXT_H

#include <stddef.h>
#include "hidden.h"

HIDDEN int tp_registry_enabled_count(void);
/* Texts of the control protocol (fmt/control_msg.h), malloc'ed into *buf. */
HIDDEN void tp_registry_describe(char **buf, size_t *len);
HIDDEN void tp_registry_formats(char **buf, size_t *len);
HIDDEN void tp_registry_stats_text(char **buf, size_t *len);

#endif
