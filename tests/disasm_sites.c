/* SPDX-License-Identifier: MIT */
/*
 * The call sites that both machine-code tests judge: disasm_test.sh as compiled, and
 * jump_disasm.sh built with -DTPOINT_JUMP_LABEL, as the library patched them. In a file of
 * their own: nothing in it tells the compiler what expensive() does or when the events are
 * on.
 */
#include "trace/events/disasm.h"

extern u64 expensive(u64 x);

void site_plain(u64 x)
{
	tpoint_trace(disasm_plain, expensive(x), expensive(x + 1), expensive(x + 2));
}

void site_cond(u64 x)
{
	tpoint_trace(disasm_cond, expensive(x), expensive(x + 1), expensive(x + 2));
}
