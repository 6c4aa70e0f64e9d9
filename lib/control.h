/* SPDX-License-Identifier: MIT */
/* lib/control.c: the control thread. */
#ifndef TPOINT_CONTROL_H
#define TPOINT_CONTROL_H

#include "hidden.h"

HIDDEN void tp_control_start(void);
HIDDEN void tp_control_fork_prepare(void);
HIDDEN void tp_control_after_fork(void);

#endif
