/* SPDX-License-Identifier: MIT */
/*
 * Packing of spool pages (SPOOL_PAGE_PACKED), so that the drain writes fewer bytes: where
 * the spool's file system is the drain's bottleneck (tmpfs taking new pages at 2 GB/s on a
 * VM, a slow disk), a full-speed writer outruns it and loses records.
 *
 * The transform works on 8-byte words (records are multiples of 8 bytes, and so are the
 * lengths packed): each word is XOR-ed with the word `lag` bytes before it (lag: the length
 * of the range's first record, so that a record meets the same field of the record before
 * it: the same event id and pid, a similar delta, similar values), which leaves mostly
 * small numbers; each is then cut after its last non-zero byte:
 *
 *	for each block of 8 words (64 bytes; the last one may have fewer):
 *		u32 lengths	nibble j: how many of word j's bytes follow, 0..8 (0 past the
 *				block's last word)
 *		the words' first bytes, in order: as many of each as its nibble says
 *
 * "First" is in memory order: a little-endian word's low bytes. Four bits a word cost less
 * than a mask of the non-zero bytes (a bit a byte, spool version 4), for the same bytes
 * where a changed value's zeros are its high bytes (docs/PERFORMANCE.md, "Measurements
 * behind the design").
 *
 * Both directions have a portable form, a word at a time, and a faster one where the CPU
 * can move a block's bytes together in one instruction (x86-64: AVX-512 VBMI2 and CD,
 * lib/arch/pack_x86_64.c). The portable packer costs about five times the vector one, and
 * still less than writing pages as they are: without packing, a full-speed writer into tmpfs
 * lost events, the drain's CPU going nearly all to the kernel's write (docs/PERFORMANCE.md,
 * "Measurements behind the design").
 */
#ifndef TPOINT_PACK_H
#define TPOINT_PACK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <tpoint/tpoint.h>
#include "hidden.h"
#include "pack_arch.h"

/* This machine's fastest packer. */
HIDDEN pack_fn tp_pack_encoder(void);

/* The portable packer, a word at a time in plain C. */
HIDDEN size_t tp_pack_portable(const uint8_t *in, uint32_t n, uint32_t lag, uint8_t *out);

/* The portable expander, and unpacking with a given one (tp_pack_decode() picks the fastest). */
HIDDEN int tp_pack_expand_portable(const uint8_t *in, size_t size, uint32_t n, uint8_t *out);
HIDDEN int tp_pack_decode_with(pack_expand_fn expand, const uint8_t *in, size_t size, uint32_t n,
			       uint32_t lag, uint8_t *out);


/*
 * Unpack `n` bytes from the `size` bytes at `in` into `out`. 0, or -1 when `in` is not a
 * packing of n bytes (damaged): then `out` holds nothing to use.
 */
HIDDEN int tp_pack_decode(const uint8_t *in, size_t size, uint32_t n, uint32_t lag, uint8_t *out);

/* The lag for a range of page bytes: its first record's length when sane, else 8. */
HIDDEN uint32_t tp_pack_lag(const char *bytes, uint32_t len);

#endif
