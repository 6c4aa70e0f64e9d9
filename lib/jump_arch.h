/* SPDX-License-Identifier: MIT */
/*
 * What jump.c asks of an architecture to rewrite jump-label sites (lib/arch/jump_<arch>.c).
 * The generic part finds the sites, makes their pages writable and back, and decides what
 * each site must become; the architecture knows the instructions and how to change one
 * safely while other threads execute it.
 */
#ifndef TPOINT_JUMP_ARCH_H
#define TPOINT_JUMP_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tpoint/tpoint.h>
#include "hidden.h"


#if defined(__x86_64__)
#define JUMP_INSN_SIZE 5
#elif defined(__aarch64__)
#define JUMP_INSN_SIZE 4
#endif

#ifdef JUMP_INSN_SIZE
struct jump_patch {
	uint8_t *site;
	const uint8_t *target;
	bool on; /* the jump to target, else the NOP */
};

/* The bytes of the site's instruction in the state `on`. */
HIDDEN void tp_jump_arch_insn(uint8_t out[JUMP_INSN_SIZE], const uint8_t *site,
			      const uint8_t *target, bool on);
/*
 * Once, before the first patch: whatever the architecture needs to patch safely (x86-64:
 * the SIGTRAP handler). 0, or -errno with the reason in why.
 */
HIDDEN int tp_jump_arch_init(char *why, size_t len);
/*
 * Rewrite every site of `p` (at most JUMP_ARCH_BATCH) while other threads may run through
 * them. The pages are writable and executable meanwhile; sync() makes every thread of the
 * process see the code written so far (membarrier SYNC_CORE).
 */
#define JUMP_ARCH_BATCH 64
HIDDEN void tp_jump_arch_patch(const struct jump_patch *p, size_t n, void (*sync)(void));
/* Threads that met a site while it was being patched and were moved on (x86-64's INT3). */
HIDDEN uint64_t tp_jump_arch_traps(void);
#endif

#endif
