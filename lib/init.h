/* SPDX-License-Identifier: MIT */
/* lib/init.c: the constructor and the fork handlers. */
#ifndef TPOINT_INIT_H
#define TPOINT_INIT_H

#include "hidden.h"

HIDDEN extern const char tp_init_linked;

#endif
