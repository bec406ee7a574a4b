"""The set-of-marks overlay as BrowserGym draws it (``browsergym.utils.obs.overlay_som``), re-implemented.

Each flagged element (see ``js/som_flags.js``) with a box of at least 20 px² gets a dashed black outline (2 px, 4 px
dashes, 8 px gaps) and, at its top-left corner raised by half the tag's height less 4 px, a black tag with a white
1 px border and its bid in white, in Pillow's default font at 12 px.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np
from PIL import Image, ImageDraw, ImageFont

#: Font size, outline width and tag margin of BrowserGym's overlay.
FONT_SIZE = 12
LINE_WIDTH = 2
TAG_MARGIN = 2
DASH, GAP = 4, 8


def _dashed(draw: ImageDraw.ImageDraw, start: tuple[float, float], end: tuple[float, float]) -> None:
    (x0, y0), (x1, y1) = start, end
    length = math.hypot(x1 - x0, y1 - y0)
    if length == 0:
        return
    step_x, step_y = (x1 - x0) / length, (y1 - y0) / length
    position = 0.0
    while position < length:
        stop = min(position + DASH, length)
        draw.line((round(x0 + step_x * position), round(y0 + step_y * position),
                   round(x0 + step_x * stop), round(y0 + step_y * stop)), fill=(0, 0, 0, 255), width=LINE_WIDTH)
        position += DASH + GAP


def draw_browsergym_marks(screenshot: np.ndarray, boxes: Mapping[str, tuple[float, float, float, float]],
                          flagged: Iterable[str]) -> np.ndarray:
    """A copy of ``screenshot`` with BrowserGym's marks on the ``flagged`` bids (``boxes``: viewport CSS pixels)."""
    image = Image.fromarray(screenshot).convert("RGBA")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=FONT_SIZE)
    for bid in flagged:
        box = boxes.get(bid)
        if box is None:
            continue
        x, y, width, height = box
        if width * height < 20:
            continue
        corners = [(x, y), (x + width, y), (x + width, y + height), (x, y + height)]
        for index, corner in enumerate(corners):
            _dashed(draw, corner, corners[(index + 1) % 4])
        left, top, right, bottom = font.getbbox(bid)
        size = (int(right - left + 2 * (TAG_MARGIN + 1)), int(bottom - top + 2 * (TAG_MARGIN + 1)))
        tag = Image.new("RGBA", size, "black")
        tag_draw = ImageDraw.Draw(tag)
        tag_draw.text((-left + TAG_MARGIN + 1, -top + TAG_MARGIN + 1), bid, font=font, fill=(255, 255, 255, 255),
                      spacing=0)
        tag_draw.rectangle((0, 0, size[0] - 1, size[1] - 1), fill=None, outline=(255, 255, 255, 255), width=1)
        image.paste(tag, (round(x), round(y - size[1] / 2 + 4)))
    return np.asarray(image.convert("RGB"), dtype=np.uint8)
