// SPDX-License-Identifier: MIT
/* tracedat_v6 - the blocks of trace.dat version 6, written: see tracedat_v6.h. */
#include <string.h>

#include "tracedat_v6.h"

void tp_td6_put_bytes(const struct td6_out *o, const void *p, size_t n)
{
	o->write(o->ctx, p, n);
}

/* v's n low bytes in the file's order. */
static void put_number(const struct td6_out *o, uint64_t v, unsigned int n)
{
	unsigned char b[8];

	for (unsigned int i = 0; i < n; i++)
		b[o->big_endian ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
	o->write(o->ctx, b, n);
}

void tp_td6_put_u16(const struct td6_out *o, uint16_t v)
{
	put_number(o, v, 2);
}

void tp_td6_put_u32(const struct td6_out *o, uint32_t v)
{
	put_number(o, v, 4);
}

void tp_td6_put_u64(const struct td6_out *o, uint64_t v)
{
	put_number(o, v, 8);
}

void tp_td6_put_string(const struct td6_out *o, const char *s)
{
	o->write(o->ctx, s, strlen(s) + 1);
}

void tp_td6_put_file_header(const struct td6_out *o, unsigned int long_size, uint32_t page_size)
{
	unsigned char b[2] = { o->big_endian ? 1 : 0, (unsigned char)long_size };

	tp_td6_put_bytes(o, TD_MAGIC, TD_MAGIC_LEN);
	tp_td6_put_string(o, TD_VERSION);
	tp_td6_put_bytes(o, b, 2);
	tp_td6_put_u32(o, page_size);
}

void tp_td6_put_header_info(const struct td6_out *o, const char *header_page, size_t page_len,
			 const char *header_event, size_t event_len)
{
	tp_td6_put_string(o, TD6_TAG_HEADER_PAGE);
	tp_td6_put_text(o, 8, header_page, page_len);
	tp_td6_put_string(o, TD6_TAG_HEADER_EVENT);
	tp_td6_put_text(o, 8, header_event, event_len);
}

void tp_td6_put_text(const struct td6_out *o, unsigned int size_bytes, const void *text,
		  size_t len)
{
	put_number(o, len, size_bytes);
	tp_td6_put_bytes(o, text, len);
}

void tp_td6_put_format2(const struct td6_out *o, const char *head, size_t head_len,
		     const char *body, size_t body_len)
{
	tp_td6_put_u64(o, (uint64_t)head_len + body_len);
	tp_td6_put_bytes(o, head, head_len);
	tp_td6_put_bytes(o, body, body_len);
}

void tp_td6_put_system(const struct td6_out *o, const char *name, uint32_t nformats)
{
	tp_td6_put_string(o, name);
	tp_td6_put_u32(o, nformats);
}

void tp_td6_put_options_start(const struct td6_out *o)
{
	tp_td6_put_bytes(o, TD6_TAG_OPTIONS, TD6_TAG_LEN(TD6_TAG_OPTIONS));
}

void tp_td6_put_option(const struct td6_out *o, uint16_t id, const void *data, uint32_t len)
{
	tp_td6_put_u16(o, id);
	tp_td6_put_u32(o, len);
	tp_td6_put_bytes(o, data, len);
}

void tp_td6_put_options_end(const struct td6_out *o)
{
	tp_td6_put_u16(o, 0); /* version 6: no size follows */
}

void tp_td6_put_flyrecord(const struct td6_out *o)
{
	tp_td6_put_bytes(o, TD6_TAG_FLYRECORD, TD6_TAG_LEN(TD6_TAG_FLYRECORD));
}

void tp_td6_put_cpu_data(const struct td6_out *o, uint64_t offset, uint64_t size)
{
	tp_td6_put_u64(o, offset);
	tp_td6_put_u64(o, size);
}

const char tp_td6_tpoint_header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
const size_t tp_td6_tpoint_header_page_len = sizeof(tp_td6_tpoint_header_page) - 1;

#define TD_STR(x) #x
#define TD_XSTR(x) TD_STR(x)
/* What the kernel's tracefs header_event says, with the constants of tracedat_format.h. */
const char tp_td6_tpoint_header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    " TD_XSTR(TPOINT_TYPE_LEN_BITS) " bits\n"
	"\ttime_delta  :   " TD_XSTR(TPOINT_DELTA_BITS) " bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == " TD_XSTR(RB_TYPE_PADDING) "\n"
	"\ttime_extend : type == " TD_XSTR(RB_TYPE_TIME_EXTEND) "\n"
	"\ttime_stamp : type == " TD_XSTR(RB_TYPE_TIME_STAMP) "\n"
	"\tdata max type_len  == " TD_XSTR(RB_TYPE_DATA_MAX) "\n";
const size_t tp_td6_tpoint_header_event_len = sizeof(tp_td6_tpoint_header_event) - 1;
