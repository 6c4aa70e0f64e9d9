/* SPDX-License-Identifier: MIT */
/*
 * tpoint convert - trace.dat files into CTF (babeltrace2, Trace Compass) or JSON lines
 * (ctf.c, json.c), or into the other trace.dat version (convert_tracedat.c); the outputs
 * are put in place by conv_output.c.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "conv_output.h"
#include "convert_backend.h"
#include "options.h"
#include "tool.h"

#define VERB "convert"

static const struct opts_spec convert_opts = {
	.verb = VERB,
	.usage = (const char *const[]){
		"tpoint convert --to ctf|json -o OUT [--force] [FILE...]",
		"tpoint convert --to v6|v7 [--compress[=zstd|zlib[:LEVEL]]] -o OUT [--force]",
		"               [FILE]", NULL },
	.about = "Convert trace.dat files (default trace.dat) for other readers.\n",
	.opts = (const struct opt[]){
		{ 't', 't', "to", OPT_VALUE, "FORMAT",
		  "ctf: a CTF 1.8 trace in the directory OUT, for babeltrace2 and\n"
		  "  Trace Compass: one stream file per CPU and the metadata\n"
		  "json: JSON lines in the file OUT ('-': standard output), one object\n"
		  "  per event, all files merged by time (keys in tpoint(1))\n"
		  "v6: trace.dat version 6, uncompressed (what every reader takes)\n"
		  "v7: trace.dat version 7, compressed: --compress=zstd (the default)\n"
		  "  or zlib, with an optional :LEVEL", 0 },
		OPT_OUTPUT("OUT", "the output; it is written under a temporary name and renamed\n"
				  "when complete"),
		/* -f is the filter everywhere else (and in trace-cmd) */
		OPT_FORCE('f', "replace an OUT that exists and is not empty"),
		{ 'z', 0, "compress", OPT_MAYBE_VALUE, "C", "with --to v7: zstd (default) or zlib[:LEVEL]", 0 },
		OPT_END,
	},
	.after = "Exit status: 0 converted, 1 a damaged input, an event not converted faithfully\n"
		 "(named on stderr) or a write error, 2 usage error.\n",
};

int cmd_convert(int argc, char **argv)
{
	struct opts o;
	static char *default_file[] = { "trace.dat" };
	const char *to = NULL, *out = NULL, *compress = NULL;
	bool tracedat;
	bool force = false;
	char **files;
	size_t nr;
	struct outplace pl;
	struct conv cv;
	int opt, ret;

	/* options after the files too: `tpoint convert FILE --to v7 -o OUT` */
	opts_start(&o, &convert_opts, argc, argv);
	while ((opt = opts_next(&o)) != OPTS_END) {
		const char *optarg = o.value;

		switch (opt) {
		case 't':
			to = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case OPT_ID_FORCE:
			force = true;
			break;
		case 'z':
			compress = optarg ? optarg : "";
			break;
		default:
			return opts_exit(opt);
		}
	}
	optind = o.ind;
	if (!to) {
		tool_error(VERB, "--to is needed: ctf, json, v6 or v7");
		return EXIT_USAGE;
	}
	tracedat = !strcmp(to, "v6") || !strcmp(to, "v7");
	if (strcmp(to, "ctf") && strcmp(to, "json") && !tracedat) {
		tool_error(VERB, "--to %s: expected ctf, json, v6 or v7", to);
		return EXIT_USAGE;
	}
	if (compress && strcmp(to, "v7")) {
		tool_error(VERB, "--compress goes with --to v7 (got --to %s)", to);
		return EXIT_USAGE;
	}
	if (!out || !*out) {
		tool_error(VERB, "-o is needed: the %s to write", !strcmp(to, "ctf") ?
			   "directory" : "file ('-': standard output)");
		return EXIT_USAGE;
	}
	if (!strcmp(to, "ctf") && !strcmp(out, "-")) {
		tool_error(VERB, "-o -: CTF is a directory, not a stream");
		return EXIT_USAGE;
	}
	files = optind < argc ? argv + optind : default_file;
	nr = optind < argc ? (size_t)(argc - optind) : 1;
	if (tracedat) {
		if (nr > 1 || !strcmp(out, "-")) {
			tool_error(VERB, "--to %s: %s", to, nr > 1 ? "one input file at a time" :
				   "-o -: a trace.dat is written to a file");
			return EXIT_USAGE;
		}
		conv_catch_signals();
		return convert_tracedat(files[0], to, compress, out, force);
	}

	conv_catch_signals(); /* a stopped conversion removes what it wrote */
	if (conv_open(&cv, VERB, files, nr))
		return EXIT_FAIL;
	if (!strcmp(out, "-")) {
		cv.progress = false;
		ret = json_write(&cv, stdout, "standard output") || cv.problems ? EXIT_FAIL :
										    EXIT_OK;
	} else if (place_open(&pl, out)) {
		ret = EXIT_FAIL;
	} else {
		ret = !strcmp(to, "ctf") ? convert_ctf(&cv, &pl, force) :
					   convert_json(&cv, &pl, force);
		tp_outplace_close(&pl);
	}
	conv_close(&cv);
	return ret;
}
