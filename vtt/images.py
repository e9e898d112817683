"""Uploaded images: checked by content, re-encoded, resized; nothing of the original is kept.

Every upload (a portrait, a battle map) goes through ``open_upload``: the type
is what Pillow finds in the bytes (PNG, JPEG or WebP; never the file name or
the browser's content type), at most ``MAX_BYTES`` and ``MAX_SIDE`` pixels a
side, fully decoded (a truncated file fails here), EXIF orientation applied.
The stored files are new WebP encodings made from the decoded pixels, so EXIF,
comments, colour-profile tricks or anything appended to the file are gone.

Stored names: ``campaigns/<campaign id>/<kind>/<random>-<variant>.webp``; the
media view (``vtt.media``) serves them only to members of that campaign.
"""

from __future__ import annotations

import io
import secrets
import warnings
from dataclasses import dataclass
from typing import IO

from PIL import Image, ImageDraw, ImageOps, UnidentifiedImageError

MAX_BYTES = 10 * 1024 * 1024
MAX_SIDE = 4096
FORMATS = ("PNG", "JPEG", "WEBP")
TOKEN_SIZE = 128  # px: a token is at most 64 CSS px, sharp on 2x screens
SHEET_SIZE = 512  # px: the longest side of the sheet-size portrait
MAP_THUMB = 320  # px: the map library's preview
WEBP_QUALITY = 82

# A decompression bomb (few bytes, huge pixel count) is refused before decoding.
Image.MAX_IMAGE_PIXELS = MAX_SIDE * MAX_SIDE

TOO_BIG = "The file is larger than 10 MB."
NOT_IMAGE = "This is not a PNG, JPEG or WebP image."
TOO_LARGE = "The image is too large: at most 4096 × 4096 pixels."
DAMAGED = "The image is damaged or incomplete."
EMPTY = "The file is empty."


class BadImage(ValueError):
    """An upload that is refused; ``str(exc)`` is the message for the form."""


def open_upload(upload: IO[bytes]) -> Image.Image:
    """The decoded image of an uploaded file (Django ``UploadedFile`` or a binary file object).

    Raises ``BadImage`` with a sentence for the form.
    """
    size = getattr(upload, "size", None)
    if size is not None and size > MAX_BYTES:
        raise BadImage(TOO_BIG)
    if size == 0:
        raise BadImage(EMPTY)
    upload.seek(0)
    data = upload.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise BadImage(TOO_BIG)
    if not data:
        raise BadImage(EMPTY)
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            image: Image.Image = Image.open(io.BytesIO(data), formats=FORMATS)
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            raise BadImage(TOO_LARGE) from exc
        except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
            raise BadImage(NOT_IMAGE) from exc
        if image.width > MAX_SIDE or image.height > MAX_SIDE:
            raise BadImage(TOO_LARGE)
        if image.width < 1 or image.height < 1:
            raise BadImage(DAMAGED)
        try:
            image.load()
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            raise BadImage(TOO_LARGE) from exc
        except (OSError, SyntaxError, ValueError, EOFError) as exc:
            raise BadImage(DAMAGED) from exc
    try:
        image = ImageOps.exif_transpose(image)
    except (OSError, ValueError, SyntaxError) as exc:  # a broken orientation tag
        raise BadImage(DAMAGED) from exc
    has_alpha = image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info)
    return image.convert("RGBA" if has_alpha else "RGB")


def encode(image: Image.Image) -> bytes:
    """WebP bytes of ``image`` (no metadata: Pillow writes none unless asked)."""
    out = io.BytesIO()
    image.save(out, "WEBP", quality=WEBP_QUALITY, method=4)
    return out.getvalue()


def round_token(image: Image.Image, size: int = TOKEN_SIZE) -> Image.Image:
    """A square centre crop with everything outside the circle transparent."""
    square = ImageOps.fit(image.convert("RGBA"), (size, size), Image.Resampling.LANCZOS)
    # Draw the mask at 4x and shrink it: a smooth edge.
    big = Image.new("L", (size * 4, size * 4), 0)
    ImageDraw.Draw(big).ellipse((0, 0, size * 4 - 1, size * 4 - 1), fill=255)
    mask = big.resize((size, size), Image.Resampling.LANCZOS)
    alpha = Image.new("L", (size, size), 0)
    alpha.paste(square.getchannel("A"), mask=mask)
    square.putalpha(alpha)
    return square


def fit_within(image: Image.Image, side: int) -> Image.Image:
    copy = image.copy()
    copy.thumbnail((side, side), Image.Resampling.LANCZOS)
    return copy


def new_stem(campaign_id: int, kind: str) -> str:
    """``campaigns/7/portraits/3f9c...`` (the variant and extension are added per file)."""
    return f"campaigns/{int(campaign_id)}/{kind}/{secrets.token_hex(16)}"


@dataclass
class Portrait:
    token: bytes  # round, TOKEN_SIZE square, transparent corners
    sheet: bytes  # longest side SHEET_SIZE


@dataclass
class MapPicture:
    image: bytes
    thumb: bytes
    width: int
    height: int


def portrait_from(upload: IO[bytes]) -> Portrait:
    image = open_upload(upload)
    return Portrait(token=encode(round_token(image)), sheet=encode(fit_within(image, SHEET_SIZE)))


def map_from(upload: IO[bytes]) -> MapPicture:
    image = open_upload(upload)
    return MapPicture(
        image=encode(image),
        thumb=encode(fit_within(image, MAP_THUMB)),
        width=image.width,
        height=image.height,
    )
