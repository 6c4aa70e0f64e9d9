/* SPDX-License-Identifier: MIT */
/*
 * CRC32C (Castagnoli), the checksum of every spool chunk (lib/spool_format.h): x86-64 and
 * arm64 have an instruction for it (SSE4.2 and ARMv8's CRC32 extension), which the drain
 * uses where the CPU has it (lib/arch/crc32c_<arch>.c), and a table a byte at a time, eight
 * bytes a step, where it has not. The same value either way.
 */
#ifndef TPOINT_CRC32C_H
#define TPOINT_CRC32C_H

#include <stddef.h>
#include <stdint.h>
#include "hidden.h"

/*
 * The CRC32C of `len` bytes at `p` continued from `crc` (0 to start): the value of bytes
 * A then B is tp_crc32c(tp_crc32c(0, A), B). The usual one: its check value, of "123456789",
 * is 0xe3069283.
 */
HIDDEN uint32_t tp_crc32c(uint32_t crc, const void *p, size_t len);

/* The portable one, and the one the CPU has (NULL without): for the tests and the bench. */
typedef uint32_t (*crc32c_fn)(uint32_t crc, const void *p, size_t len);
HIDDEN uint32_t tp_crc32c_portable(uint32_t crc, const void *p, size_t len);
HIDDEN crc32c_fn tp_crc32c_arch(void);

#endif
