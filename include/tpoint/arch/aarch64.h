/* SPDX-License-Identifier: MIT */
/* arm64: the virtual counter, readable from EL0 on Linux. No isb: a trace timestamp may be
 * taken a few instructions early. */
#ifndef TPOINT_ARCH_AARCH64_H
#define TPOINT_ARCH_AARCH64_H

#define TPOINT_ARCH_CLOCK_NAME "cntvct"

static inline uint64_t tpoint_arch_clock(void)
{
	uint64_t v;
	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
}

/*
 * A jump-label site (<tpoint/jump_label.h>): compiled as `b` to the site's checked block
 * (%l0); the runtime turns it into `nop` while the event is off. The architecture lets B and
 * NOP replace each other while other cores execute them.
 */
#define TPOINT_ARCH_JUMP_INSN "1:\tb %l0\n\t"
#define TPOINT_ARCH_JUMP_LABEL 1

/*
 * The asm constraint of an operand that is a symbol's address, printed bare by %c: the
 * assembler makes an offset of it (the object's event table, stage 6). gcc takes no "i" for
 * a symbol in PIC code; "S", an absolute symbolic address, both gcc and clang take.
 */
#define TPOINT_ARCH_SYMBOL "S"

#endif
