/* SPDX-License-Identifier: MIT */
/* x86-64: the invariant TSC, read without serialisation (ordering against other loads and
 * stores does not matter to a trace timestamp, and rdtscp/lfence would double the cost). */
#ifndef TPOINT_ARCH_X86_64_H
#define TPOINT_ARCH_X86_64_H

#define TPOINT_ARCH_CLOCK_NAME "x86-tsc"

static inline uint64_t tpoint_arch_clock(void)
{
	return __builtin_ia32_rdtsc();
}

/*
 * rseq's cpu_id (offset 4 in struct rseq) of this thread, whose rseq area lies `rseq_offset`
 * bytes from the thread pointer: one instruction through %fs, where the generic form loads
 * the thread pointer first. As asm, not __seg_fs: that needs GNU C, and this header serves
 * ISO C and C++ too. The displacement is spelled in the template, not passed as an "i"
 * operand: without optimisation an inline function's argument is no constant, and the asm
 * would not build at -O0.
 */
static inline uint32_t tpoint_arch_rseq_cpu_id(ptrdiff_t rseq_offset)
{
	uint32_t v;

	__asm__ __volatile__("movl %%fs:4(%1), %0" : "=r"(v) : "r"(rseq_offset));
	return v;
}
#define TPOINT_ARCH_RSEQ_CPU_ID 1

/*
 * A jump-label site (<tpoint/jump_label.h>): the instruction as compiled, a 5-byte
 * `jmp rel32` to the site's checked block (%l0), which the runtime turns into the 5-byte NOP
 * `nopl 0x0(%rax,%rax,1)` while the event is off. Spelled as bytes so that the assembler
 * can never pick the 2-byte form.
 */
#define TPOINT_ARCH_JUMP_INSN "1:\t.byte 0xe9\n\t.long %l0 - 2f\n2:\n\t"
#define TPOINT_ARCH_JUMP_LABEL 1

/*
 * The asm constraint of an operand that is a symbol's address, printed bare by %c: the
 * assembler makes an offset of it (the object's event table, stage 6). An immediate, in PIC
 * code too, for a local or hidden symbol.
 */
#define TPOINT_ARCH_SYMBOL "i"

#endif
