/* SPDX-License-Identifier: MIT */
/* The default call site of bench/jump.c (load the enable word and branch); defines the event. */
#define CREATE_TRACE_POINTS
#include "trace/events/bench_jump.h"
#include "jump_sites.h"

BENCH_JUMP_LOOP(loop_load_branch, trace_jump_off(i, i * 3, i ^ 0x5a5a5a5aull))
