"""Text measured as Chromium measures it on this machine: the fonts' own advances, pair kerning and font fallback.

Chromium shapes text with HarfBuzz over Skia's unhinted (subpixel) glyph advances, applies the font's pair kerning,
falls back per character to the next font that has a glyph (here Liberation, then DejaVu), and sizes a text
fragment with the sum of its advances rounded up to its layout unit (1/64 px).  Line metrics follow Skia and
Blink: ascent, descent and line gap rounded to whole pixels, the normal line height their sum.

:func:`text_width` and :func:`line_metrics` answer with these rules for the families the project's pages use;
:mod:`personal_envs.textmode.pixel_layout` lays out the phone's screens with them.  Without the font files the
measures fall back to fixed estimates (and pixel parity with Chromium is lost).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

_FONT_DIR = Path("/usr/share/fonts/truetype")
#: Font files per (family kind, bold), in fallback order: the first one with a glyph for a character draws it.
FALLBACKS: dict[tuple[str, bool], tuple[str, ...]] = {
    ("sans", False): ("liberation/LiberationSans-Regular.ttf", "dejavu/DejaVuSans.ttf"),
    ("sans", True): ("liberation/LiberationSans-Bold.ttf", "dejavu/DejaVuSans-Bold.ttf"),
    ("serif", False): ("liberation/LiberationSerif-Regular.ttf", "dejavu/DejaVuSerif.ttf", "dejavu/DejaVuSans.ttf"),
    ("serif", True): ("liberation/LiberationSerif-Bold.ttf", "dejavu/DejaVuSerif-Bold.ttf",
                      "dejavu/DejaVuSans-Bold.ttf"),
    ("mono", False): ("liberation/LiberationMono-Regular.ttf", "dejavu/DejaVuSansMono.ttf", "dejavu/DejaVuSans.ttf"),
    ("mono", True): ("liberation/LiberationMono-Bold.ttf", "dejavu/DejaVuSansMono-Bold.ttf",
                     "dejavu/DejaVuSans-Bold.ttf"),
}
#: Advance (in em) of a character no installed font has (Chromium draws a missing-glyph box of this width here).
MISSING_ADVANCE = 748 / 2048
_FIXED = 65536.0


@dataclass(frozen=True)
class LineMetrics:
    """Whole-pixel vertical metrics of a font at one size, as Blink rounds them."""

    ascent: int
    descent: int
    line_gap: int

    @property
    def line_spacing(self) -> int:
        """The height of a line with ``line-height: normal``."""
        return self.ascent + self.descent + self.line_gap


class Face:
    """One font file: advances, the pair kerning of its ``kern`` feature and its vertical metrics (font units)."""

    def __init__(self, path: Path) -> None:
        from fontTools.ttLib import TTFont

        font = TTFont(str(path), lazy=True)
        self.units_per_em = float(font["head"].unitsPerEm)
        cmap = font.getBestCmap()
        metrics = font["hmtx"].metrics
        order = {name: index for index, name in enumerate(font.getGlyphOrder())}
        #: character -> (glyph index, advance in font units)
        self.glyphs: dict[int, tuple[int, int]] = {
            code: (order[name], metrics[name][0]) for code, name in cmap.items() if name in metrics
        }
        self.kerning: dict[tuple[int, int], int] = _pair_kerning(font, order)
        hhea = font["hhea"]
        self.ascent, self.descent, self.line_gap = float(hhea.ascent), float(-hhea.descent), float(hhea.lineGap)
        font.close()

    def line_metrics(self, size: float) -> LineMetrics:
        """Blink's metrics at ``size`` px: ascent, descent and line gap each rounded to whole pixels (without
        subpixel text positioning no pixel moves from the ascent to the descent)."""
        scale = size / self.units_per_em
        return LineMetrics(_round_half_up(self.ascent * scale), _round_half_up(self.descent * scale),
                           _round_half_up(self.line_gap * scale))


def _round_half_up(value: float) -> int:
    return math.floor(value + 0.5)


def _pair_kerning(font: object, order: dict[str, int]) -> dict[tuple[int, int], int]:
    """Horizontal pair adjustments (font units) of the GPOS lookups the ``kern`` feature uses, else the kern table."""
    pairs: dict[tuple[int, int], int] = {}
    try:
        table = font["GPOS"].table  # type: ignore[index]
    except KeyError:
        table = None
    if table is not None and table.FeatureList is not None:
        lookups = sorted({index for record in table.FeatureList.FeatureRecord if record.FeatureTag == "kern"
                          for index in record.Feature.LookupListIndex})
        for lookup_index in lookups:
            lookup = table.LookupList.Lookup[lookup_index]
            for sub in lookup.SubTable:
                if lookup.LookupType == 9:
                    sub = sub.ExtSubTable
                if getattr(sub, "LookupType", 2) != 2 or not hasattr(sub, "Format"):
                    continue
                _read_pair_subtable(sub, order, pairs)
        return pairs
    try:
        legacy = font["kern"].kernTables[0].kernTable  # type: ignore[index]
    except (KeyError, IndexError, AttributeError):
        return pairs
    for (left, right), value in legacy.items():
        if left in order and right in order:
            pairs[(order[left], order[right])] = int(value)
    return pairs


def _read_pair_subtable(sub: object, order: dict[str, int], pairs: dict[tuple[int, int], int]) -> None:
    coverage = [order[name] for name in sub.Coverage.glyphs]  # type: ignore[attr-defined]
    if sub.Format == 1:  # type: ignore[attr-defined]
        for first, pair_set in zip(coverage, sub.PairSet, strict=True):  # type: ignore[attr-defined]
            for record in pair_set.PairValueRecord:
                value = getattr(record.Value1, "XAdvance", 0) if record.Value1 is not None else 0
                key = (first, order[record.SecondGlyph])
                if value and key not in pairs:
                    pairs[key] = int(value)
        return
    class_one = sub.ClassDef1.classDefs  # type: ignore[attr-defined]
    class_two = sub.ClassDef2.classDefs  # type: ignore[attr-defined]
    seconds: dict[int, list[int]] = {}
    for name, klass in class_two.items():
        seconds.setdefault(klass, []).append(order[name])
    names = {index: name for name, index in order.items()}
    for first in coverage:
        row = sub.Class1Record[class_one.get(names[first], 0)]  # type: ignore[attr-defined]
        for klass, record in enumerate(row.Class2Record):
            value = getattr(record.Value1, "XAdvance", 0) if record.Value1 is not None else 0
            if not value or klass == 0:
                continue
            for second in seconds.get(klass, ()):
                pairs.setdefault((first, second), int(value))


@lru_cache(maxsize=32)
def _face(relative: str) -> Face | None:
    path = _FONT_DIR / relative
    try:
        return Face(path)
    except Exception:  # noqa: BLE001 - a missing or unreadable font: the next one in the list draws
        return None


@lru_cache(maxsize=16)
def faces(kind: str, bold: bool) -> tuple[Face, ...]:
    """The installed faces of a family kind (``sans``, ``serif``, ``mono``), in fallback order."""
    found = tuple(face for face in (_face(name) for name in FALLBACKS[(kind, bold)]) if face is not None)
    return found


def family_kind(font_family: str) -> str:
    """``sans``, ``serif`` or ``mono`` for a CSS ``font-family`` list (its first family Chromium knows here)."""
    for family in font_family.lower().split(","):
        name = family.strip().strip("\"'")
        if "mono" in name or "courier" in name:
            return "mono"
        if name == "serif" or "times" in name or "liberation serif" in name or "dejavu serif" in name:
            return "serif"
        if any(word in name for word in ("sans", "helvetica", "arial", "system-ui", "verdana")):
            return "sans"
    return "serif"


def _fixed(value: float) -> float:
    """``value`` as HarfBuzz's 16.16 fixed point carries it."""
    return round(value * _FIXED) / _FIXED


class Measurer:
    """Widths of text in one family kind and weight, at any size (advances cached per size)."""

    def __init__(self, kind: str, bold: bool) -> None:
        self.faces = faces(kind, bold)
        self._advances: dict[tuple[int, float], tuple[int, float, int]] = {}
        self._kern_cache: dict[tuple[int, float], float] = {}

    def _glyph(self, code: int, size: float) -> tuple[int, float, int]:
        """(face index, advance in px, glyph index) of a character at ``size``."""
        key = (code, size)
        found = self._advances.get(key)
        if found is None:
            found = (-1, _fixed(MISSING_ADVANCE * size), -1)
            for index, face in enumerate(self.faces):
                glyph = face.glyphs.get(code)
                if glyph is not None:
                    found = (index, _fixed(glyph[1] * size / face.units_per_em), glyph[0])
                    break
            self._advances[key] = found
        return found

    def width(self, text: str, size: float) -> float:
        """Exact advance width of ``text`` at ``size`` px (before rounding to layout units)."""
        total = 0.0
        previous = (-2, -1)
        faces_ = self.faces
        for char in text:
            face_index, advance, glyph = self._glyph(ord(char), size)
            total += advance
            if face_index == previous[0] and face_index >= 0:
                units = faces_[face_index].kerning.get((previous[1], glyph))
                if units:
                    total += _fixed(units * size / faces_[face_index].units_per_em)
            previous = (face_index, glyph)
        return total

    def prefix(self, text: str, size: float) -> tuple[list[float], list[float]]:
        """Cumulative advances of ``text`` (``[0] + ...``, kerning between neighbours included) and the kerning
        each character gets from the one before it (to drop at a line start)."""
        sums = [0.0]
        kerns = [0.0]
        total = 0.0
        previous = (-2, -1)
        faces_ = self.faces
        for char in text:
            face_index, advance, glyph = self._glyph(ord(char), size)
            kern = 0.0
            if face_index == previous[0] and face_index >= 0:
                units = faces_[face_index].kerning.get((previous[1], glyph))
                if units:
                    kern = _fixed(units * size / faces_[face_index].units_per_em)
            total += advance + kern
            sums.append(total)
            kerns.append(kern)
            previous = (face_index, glyph)
        return sums, kerns

    def faces_used(self, text: str) -> set[int]:
        """Indices (into :attr:`faces`) of the faces that draw some character of ``text``."""
        return {self._glyph(ord(char), 16.0)[0] for char in text}


@lru_cache(maxsize=16)
def measurer(kind: str, bold: bool) -> Measurer:
    """The shared :class:`Measurer` of a family kind and weight."""
    return Measurer(kind, bold)


def ceil_unit(value: float) -> float:
    """``value`` rounded up to Blink's layout unit (1/64 px), as a text fragment's width is."""
    return math.ceil(value * 64.0 - 1e-6) / 64.0


def text_width(text: str, size: float, font_family: str = "sans-serif", bold: bool = False) -> float:
    """Width in px of ``text`` on one line (rounded up to the layout unit)."""
    return ceil_unit(measurer(family_kind(font_family), bold).width(text, size))


@lru_cache(maxsize=256)
def line_metrics(kind: str, bold: bool, size: float, face_index: int = 0) -> LineMetrics:
    """Rounded line metrics of face ``face_index`` of a family kind at ``size`` px."""
    found = faces(kind, bold)
    if not found:
        ascent = _round_half_up(size * 0.9)
        return LineMetrics(ascent, _round_half_up(size * 0.25), 0)
    return found[min(face_index, len(found) - 1)].line_metrics(size)
