#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Damage a little-endian trace.dat version 7 file (tpoint's, zstd) in one named way.

usage: damage.py KIND IN OUT

Writes OUT and prints the line tpoint report must say of it (after "tpoint report: OUT: ").
The offsets are found by walking the file as trace-cmd.dat.v7(5) lays it out, not assumed.
"""
import struct
import sys


def u16(b, at):
    return struct.unpack_from("<H", b, at)[0]


def u32(b, at):
    return struct.unpack_from("<I", b, at)[0]


def u64(b, at):
    return struct.unpack_from("<Q", b, at)[0]


def layout(b):
    """The header's end, the options section's offset, and its options (id, offset, size)."""
    at = 18
    name_at = at
    at = b.index(b"\0", at) + 1
    at = b.index(b"\0", at) + 1
    opts_field = at
    opts = u64(b, at)
    found = []
    p = opts + 16
    while True:
        oid, size = u16(b, p), u32(b, p + 2)
        found.append((oid, p, size))
        if oid == 0:
            break
        p += 6 + size
    return name_at, opts_field, opts, found


def option(found, oid):
    return next(o for o in found if o[0] == oid)


def main():
    kind, src, dst = sys.argv[1:4]
    b = bytearray(open(src, "rb").read())
    name_at, opts_field, opts, found = layout(b)
    _, bopt, _ = option(found, 3)
    section = u64(b, bopt + 6)
    cpu = u32(b, bopt + 6 + 8 + 1 + 5 + 8)  # the first CPU listed, after name "", clock "mono"
    cpu0 = u64(b, bopt + 6 + 8 + 1 + 5 + 8 + 4)  # its data
    chunk0 = cpu0 + 4
    if kind == "codec":
        b[name_at:name_at + 4] = b"zsta"
        want = "version 7: compression 'zsta' is not supported (zstd, zlib or none)"
    elif kind == "pagesize":
        struct.pack_into("<I", b, 14, 0)
        want = "version 7: page size 0 is out of range (64..134217728)"
    elif kind == "options_offset":
        struct.pack_into("<Q", b, opts_field, len(b) + 100)
        want = ("version 7: truncated: the options section needs 16 bytes at offset %d, "
                "file has %d" % (len(b) + 100, len(b)))
    elif kind == "options_id":
        struct.pack_into("<H", b, opts, 5)
        want = ("version 7: the options section at offset %d is a section of id 5, "
                "expected 0" % opts)
    elif kind == "loop":
        _, done, _ = option(found, 0)
        struct.pack_into("<Q", b, done + 6, opts)
        want = "version 7: the options sections loop: offset %d comes twice" % opts
    elif kind == "no_header_info":
        _, o16, _ = option(found, 16)
        struct.pack_into("<H", b, o16, 0x7400)
        want = ("version 7: no HEADER_INFO section (option 16): the page and record layout "
                "is unknown")
    elif kind == "section_usize":
        _, o18, _ = option(found, 18)
        sec = u64(b, o18 + 6)
        csize, usize = u32(b, sec + 16), u32(b, sec + 20)
        struct.pack_into("<I", b, sec + 20, usize + 1)
        want = ("version 7: the EVENT_FORMATS section at offset %d: zstd cannot decompress "
                "its %d bytes into the %d it declares" % (sec, csize, usize + 1))
    elif kind == "section_id":
        _, o18, _ = option(found, 18)
        sec = u64(b, o18 + 6)
        struct.pack_into("<H", b, sec, 17)
        want = ("version 7: the EVENT_FORMATS section at offset %d is a section of id 17, "
                "expected 18" % sec)
    elif kind == "buffer_section":
        struct.pack_into("<H", b, section, 16)
        want = ("version 7: the BUFFER section of buffer '' at offset %d is a section of "
                "id 16, expected 3" % section)
    elif kind == "chunk_usize":
        csize, usize = u32(b, chunk0), u32(b, chunk0 + 4)
        struct.pack_into("<I", b, chunk0 + 4, usize + 4096)
        want = ("version 7: chunk 0 of CPU %d of buffer '' at offset %d: zstd cannot "
                "decompress its %d bytes into the %d it declares" % (cpu, chunk0, csize, usize + 4096))
    elif kind == "chunk_csize":
        struct.pack_into("<I", b, chunk0, 0x7fffffff)
        want = ("version 7: truncated: chunk 0 of CPU %d of buffer '' needs 2147483647 bytes "
                "at offset %d, file has %d" % (cpu, chunk0 + 8, len(b)))
    elif kind == "chunk_odd":
        csize, usize = u32(b, chunk0), u32(b, chunk0 + 4)
        struct.pack_into("<I", b, chunk0 + 4, usize - 1)
        want = ("version 7: CPU %d of buffer '' (offset %d) holds %d bytes of pages, not a "
                "multiple of the page size 4096" % (cpu, cpu0, usize - 1))
    elif kind == "cpu_past_end":
        entry = bopt + 6 + 8 + 1 + 5 + 8 + 4
        struct.pack_into("<Q", b, entry, len(b) - 2)
        want = ("version 7: truncated: CPU %d of buffer '' needs %d bytes at offset %d, file "
                "has %d" % (cpu, u64(b, entry + 8), len(b) - 2, len(b)))
    else:
        sys.exit("damage.py: unknown kind " + kind)
    open(dst, "wb").write(b)
    print(want)


if __name__ == "__main__":
    main()
