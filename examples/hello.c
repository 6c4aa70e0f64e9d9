/* SPDX-License-Identifier: MIT */
/*
 * The smallest tpoint program: one event, defined in this file.
 *
 *	TPOINT_EVENTS='hello:*' TPOINT_RECORD=hello.dat ./hello && tpoint report hello.dat
 */
#include <stdio.h>

#define CREATE_TRACE_POINTS
#define TRACE_INCLUDE_PATH .
#include "trace_hello.h"

int main(int argc, char **argv)
{
	for (int i = 0; i < 3; i++)
		trace_hello_greet(argc > 1 ? argv[1] : "world", i);
	puts("hello: 3 greetings traced");
	return 0;
}
