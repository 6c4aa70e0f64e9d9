/* SPDX-License-Identifier: MIT */
/* lib/env_filters.c: TPOINT_FILTER. */
#ifndef TPOINT_ENV_FILTERS_H
#define TPOINT_ENV_FILTERS_H

#include "hidden.h"

HIDDEN void tp_env_filters_parse(const char *value);
/* Events registered: the filters that name them are tried on them. */
HIDDEN void tp_env_filters_check(void);
/* At exit: the filters whose event never registered, said. */
HIDDEN void tp_env_filters_report(void);

#endif
