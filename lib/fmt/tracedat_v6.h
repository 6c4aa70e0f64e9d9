/* SPDX-License-Identifier: MIT */
/*
 * tracedat_v6 - the blocks of trace.dat version 6 (trace-cmd.dat.v6(5); what tpoint writes:
 * docs/TRACEDAT-FORMAT.md), written in one place. A version 6 file is, in order:
 *
 *	the file header     magic, "6\0", endianness byte, long-size byte, u32 page size
 *	HEADER_INFO         "header_page\0" u64 size, text; "header_event\0" u64 size, text
 *	FTRACE_EVENTS       u32 count, then count x (u64 size, format text)
 *	EVENT_FORMATS       u32 systems, then per system: name\0, u32 count, count x (u64, text)
 *	KALLSYMS, PRINTK    u32 size, text
 *	CMDLINES            u64 size, "PID COMM\n" lines
 *	                    u32 CPU count
 *	options             "options  \0", then (u16 id, u32 size, data)..., u16 0
 *	flyrecord           "flyrecord\0", per CPU u64 offset and u64 size of its pages,
 *	                    then (with a TRACECLOCK option) u64 size and the clock's text
 *	the pages           page-aligned
 *
 * Version 7 keeps the same metadata blocks, each in a section of its own. Writers: the
 * assembler of recordings (lib/tracedat.c, version 6 and each section of version 7), `tpoint
 * convert --to v7` (tools/tpoint/convert_tracedat.c, the blocks of a file it read), the
 * version 7 reader's version 6 copy (tools/tpoint/tracedat_v7read.c). The strict reader of
 * the same grammar is lib/fmt/tracedat_v6_read.c. Only libc.
 */
#ifndef TPOINT_FMT_TRACEDAT_V6_H
#define TPOINT_FMT_TRACEDAT_V6_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracedat_format.h" /* TD_MAGIC, TD_VERSION, the option ids */

/* The tags of the blocks, each with its NUL (their sizeof() is what the file holds). */
#define TD6_TAG_HEADER_PAGE "header_page"
#define TD6_TAG_HEADER_EVENT "header_event"
#define TD6_TAG_OPTIONS "options  " /* 10 bytes with its NUL */
#define TD6_TAG_FLYRECORD "flyrecord"
#define TD6_TAG_LATENCY "latency  "
#define TD6_TAG_LEN(tag) sizeof(tag)

/* The bytes of the size before each text block: 8, but kallsyms' and printk's 4. */
#define TD6_FORMAT_SIZE_BYTES 8
#define TD6_KALLSYMS_SIZE_BYTES 4
#define TD6_PRINTK_SIZE_BYTES 4
#define TD6_CMDLINES_SIZE_BYTES 8

/*
 * Where the blocks go: write() takes every byte in file order (it keeps its own errors, the
 * serialiser has none), numbers in the byte order big_endian says.
 */
struct td6_out {
	void (*write)(void *ctx, const void *p, size_t n);
	void *ctx;
	bool big_endian;
};

void tp_td6_put_bytes(const struct td6_out *o, const void *p, size_t n);
void tp_td6_put_u16(const struct td6_out *o, uint16_t v);
void tp_td6_put_u32(const struct td6_out *o, uint32_t v);
void tp_td6_put_u64(const struct td6_out *o, uint64_t v);
/* s and its NUL. */
void tp_td6_put_string(const struct td6_out *o, const char *s);

/* The file header: magic, version "6", the endianness byte (o->big_endian), long size, page size. */
void tp_td6_put_file_header(const struct td6_out *o, unsigned int long_size, uint32_t page_size);
/* HEADER_INFO: the two texts, each after its tag and u64 size. */
void tp_td6_put_header_info(const struct td6_out *o, const char *header_page, size_t page_len,
			 const char *header_event, size_t event_len);
/* A text block: its size in size_bytes (4 or 8, TD6_*_SIZE_BYTES), then its bytes. */
void tp_td6_put_text(const struct td6_out *o, unsigned int size_bytes, const void *text,
		  size_t len);
/* An event format made of two parts (a "name: ..\nID: ..\n" head, and the rest): u64 size. */
void tp_td6_put_format2(const struct td6_out *o, const char *head, size_t head_len,
		     const char *body, size_t body_len);
/* A system of EVENT_FORMATS: its name and NUL, and the count of its formats that follow. */
void tp_td6_put_system(const struct td6_out *o, const char *name, uint32_t nformats);
/* "options  ", then tp_td6_put_option()s, then tp_td6_put_options_end(). */
void tp_td6_put_options_start(const struct td6_out *o);
void tp_td6_put_option(const struct td6_out *o, uint16_t id, const void *data, uint32_t len);
void tp_td6_put_options_end(const struct td6_out *o);
/* "flyrecord", then one tp_td6_put_cpu_data() per CPU. */
void tp_td6_put_flyrecord(const struct td6_out *o);
void tp_td6_put_cpu_data(const struct td6_out *o, uint64_t offset, uint64_t size);

/*
 * The header_page and header_event texts of the pages tpoint writes (the kernel's, with the
 * constants of tracedat_format.h): sizeof() - 1 bytes each.
 */
extern const char tp_td6_tpoint_header_page[];
extern const size_t tp_td6_tpoint_header_page_len;
extern const char tp_td6_tpoint_header_event[];
extern const size_t tp_td6_tpoint_header_event_len;

#endif
