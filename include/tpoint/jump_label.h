/* SPDX-License-Identifier: MIT */
/*
 * tpoint/jump_label.h - call sites as patched code, for files compiled with -DTPOINT_JUMP_LABEL.
 *
 * <tpoint/tracepoint.h> includes this; nothing here is for direct use. The default call site
 * loads the event's enable word and branches. A jump-label site is one instruction instead,
 * which the runtime rewrites when the event is switched:
 *
 *	event off:  nop                       (x86-64: a 5-byte NOP; arm64: NOP)
 *	event on:   jmp <checked block>       (x86-64: jmp rel32; arm64: B)
 *	checked block: if (enable word) __tpoint_hit_<name>(args);
 *
 * While off, the site reads no data at all: no cache line of the enable word, no slot in the
 * branch predictor. The instruction as compiled is the jump, so a site the runtime may not
 * patch (W^X policy, SELinux execmod, no membarrier, TPOINT_JUMP_LABEL=0) simply keeps
 * taking the checked path: the event still works, at the cost of a jump and a load.
 *
 * Every site leaves an entry in the ELF section "tpoint_jump" of its object; a constructor in
 * each file that has sites hands the object's table to the runtime (also on dlopen) and a
 * destructor takes it back (dlclose). Files with and without -DTPOINT_JUMP_LABEL mix freely.
 */
#ifndef TPOINT_JUMP_LABEL_H
#define TPOINT_JUMP_LABEL_H

#include <stdint.h>
#include <tpoint/event.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One site; its addresses are relative to the fields themselves, so they need no relocation. */
struct tpoint_jump_entry {
	int32_t site;   /* the patched instruction, as an offset from this field */
	int32_t target; /* the site's checked block, as an offset from this field */
	struct tpoint_event *event;
};

/* Object load and unload: the bounds of its tpoint_jump section (NULLs if it has none). */
TPOINT_EXPORT void tpoint_jump_register(const struct tpoint_jump_entry *begin,
					const struct tpoint_jump_entry *end);
TPOINT_EXPORT void tpoint_jump_unregister(const struct tpoint_jump_entry *begin,
					  const struct tpoint_jump_entry *end);

#ifdef __cplusplus
}
#endif

#if defined(TPOINT_JUMP_LABEL) && defined(TPOINT_ARCH_JUMP_LABEL)
#define TPOINT_JUMP_SITES 1

/*
 * The site's entry: where the instruction is (label 1), where it jumps, and its event by
 * symbol name -- an "i" operand cannot carry an address in position-independent code. The
 * section is writable only because the event's address may need a dynamic relocation.
 */
#define TPOINT_JUMP_ENTRY(event_sym)                                                          \
	".pushsection tpoint_jump, \"aw\"\n\t"                                                 \
	".balign 8\n\t"                                                                        \
	".long 1b - ., %l0 - .\n\t"                                                            \
	".quad " event_sym "\n\t"                                                              \
	".popsection"

/*
 * tpoint_jump_<name>(): false while the event is off, at the cost of one NOP. Inlined into
 * every call site, so each copy of the asm is a site with an entry of its own.
 */
#define TPOINT_DEFINE_JUMP_SITE(name)                                                         \
	static inline __attribute__((always_inline)) TPOINT_BOOL tpoint_jump_##name(void)     \
	{                                                                                      \
		__asm__ goto(TPOINT_ARCH_JUMP_INSN                                             \
			     TPOINT_JUMP_ENTRY(TPOINT_STR(TPOINT_EVENT_SYM(name)))              \
			     : : : : on);                                                      \
		return 0;                                                                      \
	on:                                                                                    \
		return 1;                                                                      \
	}

/* The test a call site makes: the site, then (in the checked block) the enable word. */
#define TPOINT_SITE_ON(name)                                                                  \
	(__builtin_expect(tpoint_jump_##name(), 0) &&                                           \
	 __atomic_load_n(&TPOINT_EVENT_SYM(name).enabled, __ATOMIC_RELAXED) != 0)

/* This file's share of the object's site table: registered once per object by the runtime. */
extern const struct tpoint_jump_entry __start_tpoint_jump[]
	__attribute__((weak, visibility("hidden")));
extern const struct tpoint_jump_entry __stop_tpoint_jump[]
	__attribute__((weak, visibility("hidden")));

__attribute__((constructor)) static void __tpoint_jump_ctor(void)
{
	tpoint_jump_register(__start_tpoint_jump, __stop_tpoint_jump);
}

__attribute__((destructor)) static void __tpoint_jump_dtor(void)
{
	tpoint_jump_unregister(__start_tpoint_jump, __stop_tpoint_jump);
}

#else /* the default site: load the enable word and branch */

#define TPOINT_DEFINE_JUMP_SITE(name)
#define TPOINT_SITE_ON(name)                                                                  \
	__builtin_expect(__atomic_load_n(&TPOINT_EVENT_SYM(name).enabled, __ATOMIC_RELAXED) != 0, \
			 0)

#endif

#endif /* TPOINT_JUMP_LABEL_H */
