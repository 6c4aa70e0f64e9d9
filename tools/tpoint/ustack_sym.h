/* SPDX-License-Identifier: MIT */
/*
 * ustack_sym - user stacks named: the ftrace:user_stack records of a trace.dat printed by
 * `tpoint report` as "<user stack trace>" and a line a caller, named (ustack_names.h) from
 * the mappings the process recorded with them (tpoint:user_stack_map records).
 */
#ifndef TPOINT_USTACK_SYM_H
#define TPOINT_USTACK_SYM_H

#include <event-parse.h>

#include "tracedat_read.h"

struct ustack_sym;

/*
 * For a file that holds ftrace:user_stack and tpoint:user_stack_map (a file of tpoint's
 * with user stacks): its mappings gathered (one pass over its records), and the printer of
 * its user stacks registered with `tep`, which has its formats. NULL for any other file
 * (the kernel's user stacks print as trace-cmd prints them), or out of memory.
 */
struct ustack_sym *ustack_sym_attach(struct tep_handle *tep, const struct tracedat *td);
void ustack_sym_free(struct ustack_sym *s);

#endif
