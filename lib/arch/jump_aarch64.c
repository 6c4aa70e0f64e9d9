/* SPDX-License-Identifier: MIT */
/*
 * arm64 jump-label sites: `b <target>` and `nop`. The architecture allows B and NOP to replace
 * each other while other cores execute them (ARM ARM, "concurrent modification and execution
 * of instructions"): one aligned 32-bit store, the data cache cleaned and the instruction
 * cache invalidated to the point of unification, and every core synchronised so that none
 * keeps running the old instruction from its pipeline.
 */
#if defined(__aarch64__)
#include <string.h>
#include "../jump_arch.h"

#define INSN_NOP 0xd503201fu
#define INSN_B 0x14000000u

void tp_jump_arch_insn(uint8_t out[JUMP_INSN_SIZE], const uint8_t *site, const uint8_t *target,
		       bool on)
{
	uint32_t insn = INSN_NOP;

	if (on) /* imm26, in words; a site and its block are in one object, well within 128 MiB */
		insn = INSN_B | ((uint32_t)((target - site) >> 2) & 0x03ffffffu);
	memcpy(out, &insn, sizeof(insn));
}

int tp_jump_arch_init(char *why, size_t len)
{
	(void)why;
	(void)len;
	return 0;
}

/* No trap: B and NOP replace each other in one store. */
uint64_t tp_jump_arch_traps(void)
{
	return 0;
}

void tp_jump_arch_patch(const struct jump_patch *p, size_t n, void (*sync)(void))
{
	for (size_t i = 0; i < n; i++) {
		uint32_t insn;

		tp_jump_arch_insn((uint8_t *)&insn, p[i].site, p[i].target, p[i].on);
		__atomic_store_n((uint32_t *)(void *)p[i].site, insn, __ATOMIC_RELAXED);
		__builtin___clear_cache((char *)p[i].site, (char *)p[i].site + JUMP_INSN_SIZE);
	}
	sync();
}
#endif
