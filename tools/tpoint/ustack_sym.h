/* SPDX-License-Identifier: MIT */
/*
 * ustack_sym - user stacks named: the ftrace:user_stack records of a trace.dat printed by
 * `tpoint report` as function+offset, from the mappings the process recorded with them
 * (tpoint:user_stack_map records: start, end, file offset, path) and the symbols of those
 * files as they are on disk now (.symtab, else .dynsym).
 *
 *	=> stack_c+0x13 [ustacktarget]	a function of that file
 *	=> [libc.so.6+0x271ca]		in that file, in no symbol it has
 *	=> 0x1000			in no mapping recorded
 */
#ifndef TPOINT_USTACK_SYM_H
#define TPOINT_USTACK_SYM_H

#include <stddef.h>
#include <stdint.h>
#include <event-parse.h>

#include "tracedat_read.h"

struct ustack_sym;

/*
 * For a file that holds ftrace:user_stack: its mappings gathered (one pass over its
 * records), and the printer of its user stacks registered with `tep`, which has its
 * formats. NULL when the file has no user stacks, or out of memory (then they print as
 * their format says, addresses).
 */
struct ustack_sym *ustack_sym_attach(struct tep_handle *tep, const struct tracedat *td);
void ustack_sym_free(struct ustack_sym *s);

/* Mapping and naming, for the printer and the tests. */
int ustack_sym_add_map(struct ustack_sym *s, uint32_t tgid, uint64_t start, uint64_t end,
		       uint64_t pgoff, const char *path);
/* "name+0xoff [file]", "[file+0xoff]" or "0xaddr" into buf. */
void ustack_sym_name(struct ustack_sym *s, uint32_t tgid, uint64_t addr, char *buf, size_t len);

#endif
