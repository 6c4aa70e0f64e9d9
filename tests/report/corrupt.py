#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Damage a little-endian trace.dat v6 file from gen_tracedat.py in one named way.

usage: corrupt.py KIND IN OUT

Each kind breaks one thing that tpoint report must name exactly (run.sh holds
the expected lines).  Offsets are found in the file, not assumed, except where
gen_tracedat.py's layout is the point (the page numbers).
"""
import struct
import sys


def u64(b, at):
    return struct.unpack_from("<Q", b, at)[0]


def table(b):
    """File offset of the flyrecord table."""
    return b.index(b"flyrecord\0") + 10


def cpu_range(b, cpu):
    t = table(b) + 16 * cpu
    return u64(b, t), u64(b, t + 8)


def main():
    kind, src, dst = sys.argv[1:4]
    b = bytearray(open(src, "rb").read())
    page = struct.unpack_from("<I", b, 14)[0]
    if kind == "empty":
        b = bytearray()
    elif kind == "magic":
        b[0] = 0x18
    elif kind == "version5":
        b[10] = ord("5")
    elif kind == "version7":
        b[10] = ord("7")
    elif kind == "long3":
        b[13] = 3
    elif kind == "pagesize0":
        struct.pack_into("<I", b, 14, 0)
    elif kind == "header_page_empty":
        at = b.index(b"header_page\0") + 12
        size = u64(b, at)
        b = b[:at] + struct.pack("<Q", 0) + b[at + 8 + size:]
    elif kind == "cut_meta":
        b = b[:1000]
    elif kind == "cut_cpu":
        b = b[:len(b) - page]
    elif kind == "commit_big":
        off, _ = cpu_range(b, 0)
        struct.pack_into("<Q", b, off + page + 8, 5000)
    elif kind == "event_len":
        off, _ = cpu_range(b, 1)
        # first event of CPU 1: type_len 0 with a length word of 2
        struct.pack_into("<II", b, off + 16, 0, 2)
    elif kind == "lost_count":
        # CPU 0's last page stores a lost count: make its commit leave no room for it
        off, size = cpu_range(b, 0)
        last = off + size - page
        struct.pack_into("<Q", b, last + 8, (3 << 30) | (page - 16))
    elif kind == "cmdline":
        at = b.index(b"4301 db writer\n")
        b[at:at + 4] = b"x301"
    elif kind == "overlap":
        t = table(b)
        b[t + 16:t + 24] = b[t:t + 8]
    elif kind == "size_odd":
        t = table(b)
        struct.pack_into("<Q", b, t + 8, u64(b, t + 8) - 100)
    elif kind == "missing_field":
        at = b.index(b"\tfield:u32 flags;")
        b[at:at + 17] = b"\tfield:u32 flagz;"
    elif kind == "nonascii":
        at = b.index(b"name: sample\n")
        b[at + 6] = 0xe9
    elif kind == "dup_id":
        at = b.index(b"ID: 1002\n")
        b[at:at + 9] = b"ID: 1001\n"
    elif kind == "options_end":
        # the options block loses its terminating id 0
        at = b.index(b"flyrecord\0")
        b[at - 2:at] = b"\x09\x00"
    else:
        sys.exit("corrupt.py: unknown kind " + kind)
    open(dst, "wb").write(bytes(b))


if __name__ == "__main__":
    main()
