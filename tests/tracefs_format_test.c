// SPDX-License-Identifier: MIT
/*
 * tracefs_format_test - the one reader of tracefs format text (lib/fmt/tracefs_format.c) on
 * its own: the fields of a kernel format and of header_page, the "name:"/"ID:" header and
 * each way it can be wrong, and the print fmt's REC->field check. Its callers: the strict
 * trace.dat reader (tests/report/run.sh: its messages), select.c (tests/record_cli.sh: -f on
 * a program's events), top_dirty.c (tests/top.sh).
 *
 * Exit 0 when every check passes; each failing check prints one line.
 */
#include <stdio.h>
#include <string.h>

#include "fmt/tracefs_format.h"

static int checks, failures;

#define CHECK(cond, what)                                                                     \
	do {                                                                                  \
		checks++;                                                                     \
		if (!(cond)) {                                                                \
			failures++;                                                           \
			printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, what);                 \
		}                                                                             \
	} while (0)

static const char fmt[] =
	"name: writeback_dirty_inode\n"
	"ID: 1234\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char name[32];\toffset:8;\tsize:32;\tsigned:0;\n"
	"\tfield:unsigned long ino;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] path;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\tfield:long delta;\toffset:56;\tsize:8;\tsigned:1;\n"
	"\tfield:int nolayout;\n"
	"\n"
	"print fmt: \"name=%s ino=%lu\", REC->name, REC->ino\n";

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static bool named(const struct tracefs_field *f, const char *name)
{
	return f->name_len == strlen(name) && !memcmp(f->name, name, f->name_len);
}

static bool typed(const struct tracefs_field *f, const char *type)
{
	return f->type_len == strlen(type) && !memcmp(f->type, type, f->type_len);
}

static void test_fields(void)
{
	struct tracefs_field f[8];
	size_t pos = 0, n = 0;

	while (n < 8 && tp_tracefs_next_field(fmt, strlen(fmt), &pos, &f[n]))
		n++;
	CHECK(n == 6, "six fields with a layout (the one without is skipped)");
	CHECK(named(&f[0], "common_type") && typed(&f[0], "unsigned short") && f[0].offset == 0 &&
	      f[0].size == 2 && !f[0].is_signed, "common_type");
	CHECK(named(&f[1], "common_pid") && f[1].offset == 4 && f[1].is_signed, "common_pid");
	CHECK(named(&f[2], "name") && typed(&f[2], "char") && f[2].array && !f[2].dynamic &&
	      f[2].size == 32, "char name[32]");
	CHECK(named(&f[3], "ino") && typed(&f[3], "unsigned long") && f[3].offset == 40,
	      "unsigned long ino");
	CHECK(named(&f[4], "path") && typed(&f[4], "char") && f[4].dynamic && !f[4].array,
	      "__data_loc char[] path");
	CHECK(named(&f[5], "delta") && f[5].is_signed, "long delta, signed");
	/* what a filter or a histogram reads each as */
	CHECK(tp_tracefs_field_kind(&f[0]) == 0 && tp_tracefs_field_kind(&f[3]) == 0,
	      "integers are numbers");
	CHECK(tp_tracefs_field_kind(&f[2]) == 1, "char[32] is a string");
	CHECK(tp_tracefs_field_kind(&f[4]) == 2, "__data_loc char[] is a dynamic string");
	f[6] = f[3];
	f[6].size = 3;
	CHECK(tp_tracefs_field_kind(&f[6]) == -1, "a 3-byte field is not a number");
	f[6].array = true;
	f[6].type = "int";
	f[6].type_len = 3;
	CHECK(tp_tracefs_field_kind(&f[6]) == -1, "an int array is neither");
	/* a slice: no byte past len is read, and the fields stop there */
	pos = 0;
	n = 0;
	while (tp_tracefs_next_field(fmt, (size_t)(strstr(fmt, "\tfield:char") - fmt), &pos, &f[0]))
		n++;
	CHECK(n == 2, "a slice ends the fields");
}

static void test_layout(void)
{
	unsigned long off = 99, size = 99;
	size_t len = strlen(header_page);

	CHECK(!tp_tracefs_field_layout(header_page, len, "commit", &off, &size) && off == 8 &&
	      size == 8, "header_page commit");
	CHECK(!tp_tracefs_field_layout(header_page, len, "data", &off, &size) && off == 16 &&
	      size == 4080, "header_page data");
	CHECK(tp_tracefs_field_layout(header_page, len, "stamp", &off, &size),
	      "a suffix of a name is not the name");
	CHECK(!tp_tracefs_field_layout(fmt, strlen(fmt), "common_pid", &off, &size) && off == 4 &&
	      size == 4, "format common_pid");
	CHECK(tp_tracefs_field_layout("\tfield: u64 x;\toffset:;\tsize:8;\n", 30, "x", &off, &size),
	      "no digits");
	CHECK(tp_tracefs_has_field(fmt, strlen(fmt), "name", 4), "has name");
	CHECK(tp_tracefs_has_field(fmt, strlen(fmt), "path", 4), "has path (data_loc)");
	CHECK(!tp_tracefs_has_field(fmt, strlen(fmt), "nam", 3), "no nam");
}

static enum tracefs_header_error header(const char *text, struct tracefs_header *h)
{
	return tp_tracefs_parse_header(text, strlen(text), h);
}

static void test_header(void)
{
	struct tracefs_header h;

	CHECK(header(fmt, &h) == TRACEFS_HEADER_OK && h.id == 1234 && h.name_len == 21 &&
	      !memcmp(h.name, "writeback_dirty_inode", 21), "the header");
	CHECK(header("nam: x\nID: 1\n", &h) == TRACEFS_HEADER_NO_NAME, "no name:");
	CHECK(header("name: \nID: 1\n", &h) == TRACEFS_HEADER_BAD_NAME, "empty name");
	CHECK(header("name: x", &h) == TRACEFS_HEADER_BAD_NAME, "no newline");
	CHECK(header("name: x\nid: 1\n", &h) == TRACEFS_HEADER_NO_ID && h.name_len == 1,
	      "no ID:, the name kept");
	CHECK(header("name: x\nID: 65536\n", &h) == TRACEFS_HEADER_BAD_ID, "ID over 65535");
	CHECK(header("name: x\nID: 12", &h) == TRACEFS_HEADER_BAD_ID, "ID without newline");
	CHECK(header("name: x\nID: 65535\n", &h) == TRACEFS_HEADER_OK && h.id == 65535,
	      "ID 65535");
}

static void test_print_fields(void)
{
	char why[128] = "";
	const char *bad = "\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
			  "print fmt: \"REC->b %d\", REC->a, REC -> b\n";

	CHECK(!tp_tracefs_check_print_fields(fmt, strlen(fmt), why, sizeof(why)), "fields known");
	CHECK(tp_tracefs_check_print_fields(bad, strlen(bad), why, sizeof(why)) &&
	      !strcmp(why, "the print fmt uses REC->b, which is not a field"),
	      "REC->b outside the literal is refused");
	CHECK(!tp_tracefs_check_print_fields("no print fmt", 12, why, sizeof(why)), "none");
}

int main(void)
{
	test_fields();
	test_layout();
	test_header();
	test_print_fields();
	printf("tracefs_format_test: %d checks, %d failed\n", checks, failures);
	return failures != 0;
}
