"""Pictures for the browser tests, drawn with Pillow: a battle map with its own grid and portraits."""

from __future__ import annotations

import io
import math
import random

from PIL import Image, ImageDraw, ImageFilter

SQUARE = 100  # px per square in the drawn map


def battle_map(cols: int = 16, rows: int = 12, seed: int = 7) -> bytes:
    """A dungeon-ish map: flagstones, two rooms joined by a corridor, a stream, rubble; JPEG bytes."""
    rnd = random.Random(seed)
    w, h = cols * SQUARE, rows * SQUARE
    image = Image.new("RGB", (w, h), (58, 66, 52))
    draw = ImageDraw.Draw(image)
    for _ in range(1600):  # moss and dirt
        x, y, r = rnd.randrange(w), rnd.randrange(h), rnd.randrange(6, 30)
        tone = rnd.randrange(-14, 14)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=(62 + tone, 72 + tone, 54 + tone))
    rooms = [(1, 1, 7, 6), (9, 4, 15, 11), (6, 3, 10, 5)]
    for x0, y0, x1, y1 in rooms:
        for gx in range(x0, x1):
            for gy in range(y0, y1):
                tone = rnd.randrange(-12, 12)
                box = (gx * SQUARE + 2, gy * SQUARE + 2, (gx + 1) * SQUARE - 2, (gy + 1) * SQUARE - 2)
                draw.rectangle(box, fill=(150 + tone, 140 + tone, 122 + tone))
                draw.line(
                    (box[0], box[1] + 50, box[2], box[1] + 50),
                    fill=(128 + tone, 118 + tone, 100 + tone),
                    width=2,
                )
        draw.rectangle((x0 * SQUARE, y0 * SQUARE, x1 * SQUARE, y1 * SQUARE), outline=(40, 36, 32), width=10)
    for i in range(cols * 6):  # a stream down the left
        x = int(2.5 * SQUARE + 60 * math.sin(i / 5))
        y = i * h // (cols * 6)
        draw.ellipse((x - 40, y - 40, x + 40, y + 40), fill=(52, 98, 128))
    for _ in range(25):  # rubble
        x, y = rnd.randrange(w), rnd.randrange(h)
        draw.polygon([(x, y), (x + 18, y + 6), (x + 10, y + 22), (x - 6, y + 14)], fill=(96, 92, 86))
    image = image.filter(ImageFilter.SMOOTH)
    draw = ImageDraw.Draw(image)
    for gx in range(cols + 1):  # the map's own faint grid, as printed maps have
        draw.line((gx * SQUARE, 0, gx * SQUARE, h), fill=(30, 30, 30), width=1)
    for gy in range(rows + 1):
        draw.line((0, gy * SQUARE, w, gy * SQUARE), fill=(30, 30, 30), width=1)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


def portrait(skin=(224, 180, 140), hair=(70, 40, 20), cloth=(40, 90, 160), size: int = 600) -> bytes:
    """A simple painted head and shoulders; PNG bytes."""
    image = Image.new("RGB", (size, size), (200, 210, 220))
    d = ImageDraw.Draw(image)
    s = size / 100
    d.rectangle((0, 0, size, size), fill=(cloth[0] // 3 + 120, cloth[1] // 3 + 120, cloth[2] // 3 + 120))
    d.ellipse((15 * s, 70 * s, 85 * s, 130 * s), fill=cloth)
    d.ellipse((30 * s, 18 * s, 70 * s, 66 * s), fill=skin)
    d.pieslice((27 * s, 12 * s, 73 * s, 56 * s), 180, 360, fill=hair)
    d.ellipse((39 * s, 38 * s, 45 * s, 44 * s), fill=(30, 30, 30))
    d.ellipse((55 * s, 38 * s, 61 * s, 44 * s), fill=(30, 30, 30))
    d.arc((42 * s, 46 * s, 58 * s, 58 * s), 20, 160, fill=(120, 40, 40), width=max(1, int(s)))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def goblin() -> bytes:
    return portrait(skin=(110, 160, 70), hair=(40, 30, 20), cloth=(100, 60, 40))
