"""A small price-history chart as PNG, drawn without a plotting library: one line per GPU,
axes, and the price range and dates in a 5x7 bitmap font. Colours are named in the message."""

from __future__ import annotations

import struct
import zlib

WIDTH, HEIGHT = 480, 240
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 56, 12, 12, 28
COLOURS = [("blue", (31, 119, 180)), ("orange", (255, 127, 14)), ("green", (44, 160, 44)),
           ("red", (214, 39, 40)), ("purple", (148, 103, 189)), ("brown", (140, 86, 75))]
# 5x7 glyphs for the characters the labels use (rows top to bottom, 5 bits each).
_FONT = {
    "0": [14, 17, 19, 21, 25, 17, 14], "1": [4, 12, 4, 4, 4, 4, 14], "2": [14, 17, 1, 2, 4, 8, 31],
    "3": [31, 2, 4, 2, 1, 17, 14], "4": [2, 6, 10, 18, 31, 2, 2], "5": [31, 16, 30, 1, 1, 17, 14],
    "6": [6, 8, 16, 30, 17, 17, 14], "7": [31, 1, 2, 4, 8, 8, 8], "8": [14, 17, 17, 14, 17, 17, 14],
    "9": [14, 17, 17, 15, 1, 2, 12], ".": [0, 0, 0, 0, 0, 12, 12], "-": [0, 0, 0, 31, 0, 0, 0],
    "$": [4, 15, 20, 14, 5, 30, 4], " ": [0] * 7, "/": [1, 1, 2, 4, 8, 16, 16], "h": [16, 16, 22, 25, 17, 17, 17],
}


class _Canvas:
    def __init__(self):
        self.px = bytearray(b"\xff" * WIDTH * HEIGHT * 3)

    def dot(self, x: int, y: int, rgb) -> None:
        if 0 <= x < WIDTH and 0 <= y < HEIGHT:
            i = (y * WIDTH + x) * 3
            self.px[i:i + 3] = bytes(rgb)

    def line(self, x0, y0, x1, y1, rgb, thick: int = 1) -> None:
        steps = max(abs(x1 - x0), abs(y1 - y0), 1)
        for k in range(steps + 1):
            x = round(x0 + (x1 - x0) * k / steps)
            y = round(y0 + (y1 - y0) * k / steps)
            for dx in range(thick):
                for dy in range(thick):
                    self.dot(x + dx, y + dy, rgb)

    def text(self, x: int, y: int, s: str, rgb=(60, 60, 60)) -> None:
        for ch in s:
            for row, bits in enumerate(_FONT.get(ch, _FONT[" "])):
                for col in range(5):
                    if bits & (1 << (4 - col)):
                        self.dot(x + col, y + row, rgb)
            x += 6

    def png(self) -> bytes:
        raw = b"".join(b"\x00" + bytes(self.px[y * WIDTH * 3:(y + 1) * WIDTH * 3]) for y in range(HEIGHT))

        def chunk(kind: bytes, data: bytes) -> bytes:
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def history_png(series: dict[str, list[tuple[str, float]]]) -> tuple[bytes, dict[str, str]]:
    """PNG bytes and the colour name of each series (for the legend in the message text)."""
    c = _Canvas()
    points = [p for values in series.values() for p in values]
    x0, y0, x1, y1 = MARGIN_LEFT, HEIGHT - MARGIN_BOTTOM, WIDTH - MARGIN_RIGHT, MARGIN_TOP
    c.line(x0, y0, x1, y0, (120, 120, 120))
    c.line(x0, y0, x0, y1, (120, 120, 120))
    legend: dict[str, str] = {}
    if not points:
        return c.png(), legend
    dates = sorted({d for d, _ in points})
    low, high = min(v for _, v in points), max(v for _, v in points)
    span = (high - low) or max(high, 1.0) * 0.1
    low, high = max(0.0, low - span * 0.1), high + span * 0.1

    def xy(date: str, value: float) -> tuple[int, int]:
        i = dates.index(date)
        x = x0 + (x1 - x0) * (i / max(1, len(dates) - 1))
        y = y0 - (y0 - y1) * (value - low) / (high - low)
        return round(x), round(y)

    for (name, values), (colour, rgb) in zip(series.items(), COLOURS):
        legend[name] = colour
        values = sorted(values)
        for (da, va), (db, vb) in zip(values, values[1:]):
            c.line(*xy(da, va), *xy(db, vb), rgb, thick=2)
        for d, v in values:
            x, y = xy(d, v)
            c.line(x - 2, y, x + 2, y, rgb, thick=2)
    c.text(2, y1, f"${high:.2f}")
    c.text(2, y0 - 7, f"${low:.2f}")
    c.text(x0, y0 + 8, dates[0])
    c.text(x1 - 6 * len(dates[-1]), y0 + 8, dates[-1])
    return c.png(), legend
