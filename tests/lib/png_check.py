"""png_check.py - what report.sh asserts about a PNG, with the standard library alone.

Usage: png_check.py FILE WIDTH HEIGHT COLOR...
The file must be a PNG (signature, IHDR) of WIDTH x HEIGHT, decode (zlib,
filters undone), hold more than a few distinct colours, show each COLOR
(#rrggbb, the legend's swatches) exactly, and have coloured lines drawn
below the legend. Exits 1 with the reason.
"""
import struct
import sys
import zlib


def fail(why):
    print(f"{sys.argv[1]}: {why}")
    sys.exit(1)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def decode(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("no PNG signature")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if zlib.crc32(kind + body) != struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0]:
            fail(f"bad CRC in {kind}")
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    if not ihdr:
        fail("no IHDR")
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        fail(f"unexpected format: depth {depth}, colour type {ctype}, interlace {interlace}")
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    if len(raw) != h * (stride + 1):
        fail(f"IDAT holds {len(raw)} bytes, not {h} rows of {stride + 1}")
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + (0, a, b, (a + b) // 2, paeth(a, b, c))[f]) & 0xFF
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


def main():
    path, want_w, want_h, colors = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    w, h, rows = decode(open(path, "rb").read())
    if (w, h) != (want_w, want_h):
        fail(f"{w}x{h}, want {want_w}x{want_h}")
    seen = {p for row in rows for p in row}
    if len(seen) < 20:
        fail(f"only {len(seen)} distinct colours: blank or nearly")
    for c in colors:
        rgb = tuple(int(c[i:i + 2], 16) for i in (1, 3, 5))
        if rgb not in seen:
            fail(f"colour {c} appears nowhere")
    # the lines: saturated pixels under the title and legend
    legend_h = 28 + 16 * ((len(colors) + 3) // 4)
    drawn = sum(1 for row in rows[legend_h:] for p in row if max(p) - min(p) > 60)
    if drawn < 300:
        fail(f"only {drawn} coloured pixels in the plot: no lines drawn")


main()
