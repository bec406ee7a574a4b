"""Text analysis as the official PersonalWAB index does it: Anserini's default English analyzer on Lucene 9.5.

The official index (``envs/pwab/functions/search/indexes``, built by ``pyserini.index.lucene`` and searched with
Pyserini's ``LuceneSearcher``, Anserini 0.22 on Lucene 9.5.0) analyzes text with ``DefaultEnglishAnalyzer``:

1. ``StandardTokenizer``: Unicode word segmentation (UAX #29).  A token is a run of letters and digits, joined by
   ``_`` and kept whole across a ``.``, ``'``, ``’`` or ``:`` between letters ("e.g", "don't", "a:b") and a ``.``,
   ``,``, ``;`` or ``'`` between digits ("25.99", "1,000"); each ideograph and each hiragana is a token of its own,
   runs of katakana or of Thai-like scripts are one token; emoji (and pictographic signs such as ``®``, ``™``,
   ``★``, ``✔``) are tokens, with their modifiers and joiners; combining marks and format characters stay inside
   the token.  Tokens longer than 255 UTF-16 units are cut into pieces of 255.
2. ``EnglishPossessiveFilter``: a trailing ``'s`` (also ``’s``, ``＇s``) is removed.
3. ``LowerCaseFilter``: lower case one code point at a time (Java's rules: "İ" becomes "i", "Σ" always "σ").
4. ``StopFilter`` with Lucene's 33 English stop words.
5. ``PorterStemFilter``: :func:`personal_envs.personalwab.porter.stem`.

Character classes come from the Unicode properties of the ``regex`` module, corrected to Lucene 9.5's older tables
where real product text meets them: pictographic signs Lucene counts as emoji (``★``, ``♫``, ``☛`` and others that
newer Unicode no longer lists as Extended_Pictographic) and a few characters newer Unicode counts as letters
(cedilla, tone bars).  Checked against Lucene itself on every code point alone, between letters and between digits
(``benchmarks/personalwab_lucene_agreement.py --analyzer``).
"""

from __future__ import annotations

import re
from functools import lru_cache

import regex

from personal_envs.personalwab.porter import stem
from personal_envs.personalwab.stopwords import STOPWORDS

#: Lucene's ``StandardTokenizer.DEFAULT_MAX_TOKEN_LENGTH`` (UTF-16 units).
MAX_TOKEN_LENGTH = 255

# Pictographic characters Lucene 9.5 emits as emoji that the regex module's Extended_Pictographic lacks.
_EMOJI_EXTRA = (
    "\u2388\u2605\u2607-\u260D\u260F-\u2610\u2612\u2616-\u2617\u2619-\u261C\u261E-\u261F\u2621\u2624-\u2625"
    "\u2627-\u2629\u262B-\u262D\u2630-\u2637\u263B-\u263F\u2641\u2643-\u2647\u2654-\u265E\u2661-\u2662\u2664\u2667"
    "\u2669-\u267A\u267C-\u267D\u2680-\u2685\u2690-\u2691\u2698\u269A\u269D-\u269F\u26A2-\u26A6\u26A8-\u26A9"
    "\u26AC-\u26AF\u26B2-\u26BC\u26BF-\u26C3\u26C6-\u26C7\u26C9-\u26CD\u26D0\u26D2\u26D5-\u26E8\u26EB-\u26EF\u26F6"
    "\u26FB-\u26FC\u26FE-\u2701\u2703-\u2704\u270E\u2710-\u2711\u2765-\u2767"
    "\U0001F000-\U0001F003\U0001F005-\U0001F02B\U0001F030-\U0001F093\U0001F0A0-\U0001F0AE\U0001F0B1-\U0001F0BF"
    "\U0001F0C1-\U0001F0CE\U0001F0D1-\U0001F0F5\U0001F10D-\U0001F10F\U0001F12F\U0001F16C-\U0001F16F\U0001F1AD"
    "\U0001F260-\U0001F265\U0001F322-\U0001F323\U0001F394-\U0001F395\U0001F398\U0001F39C-\U0001F39D"
    "\U0001F3F1-\U0001F3F2\U0001F3F6\U0001F3FB-\U0001F3FF\U0001F4FE\U0001F546-\U0001F548\U0001F54F"
    "\U0001F568-\U0001F56E\U0001F571-\U0001F572\U0001F57B-\U0001F586\U0001F588-\U0001F589\U0001F58E-\U0001F58F"
    "\U0001F591-\U0001F594\U0001F597-\U0001F5A3\U0001F5A6-\U0001F5A7\U0001F5A9-\U0001F5B0\U0001F5B3-\U0001F5BB"
    "\U0001F5BD-\U0001F5C1\U0001F5C5-\U0001F5D0\U0001F5D4-\U0001F5DB\U0001F5DF-\U0001F5E0\U0001F5E2"
    "\U0001F5E4-\U0001F5E7\U0001F5E9-\U0001F5EE\U0001F5F0-\U0001F5F2\U0001F5F4-\U0001F5F9\U0001F6C6-\U0001F6CA"
    "\U0001F6D3-\U0001F6D4\U0001F6E6-\U0001F6E8\U0001F6EA\U0001F6F1-\U0001F6F2\U0001F774-\U0001F77F"
    "\U0001F7D5-\U0001F7D9\U0001F8B0-\U0001F8BB\U0001F8C0-\U0001F8C1\U0001F8D0-\U0001F8D8\U0001FA00-\U0001FA57"
    "\U0001FA60-\U0001FA6D\U0001FB00-\U0001FBFF"
)
# Characters assigned long before Lucene 9.5's tables that newer Unicode made word letters; Lucene skips them.
_NOT_LETTERS = "\u00B8\u02E5-\u02EB\u055A\u058A\u070F\uA708-\uA716"
# ... and one newer Unicode made a letter that Lucene keeps inside words as a format character.
_FORMAT_EXTRA = "\u070F"
# CJK and Kangxi radicals: ideographs to Lucene, not to the Ideographic property.
_RADICALS = "\u2E80-\u2E99\u2E9B-\u2EF3\u2F00-\u2FD5"

_EXTEND = rf"[\p{{WB=Extend}}\p{{WB=Format}}\p{{WB=ZWJ}}{_FORMAT_EXTRA}]"
_EMOJI = rf"[\p{{Extended_Pictographic}}{_EMOJI_EXTRA}]"
_LETTER = rf"[[\p{{WB=ALetter}}\p{{WB=Hebrew_Letter}}]--[{_NOT_LETTERS}]]"
_DIGIT = r"\p{WB=Numeric}"
_CONNECTOR = r"\p{WB=ExtendNumLet}"
_MID_LETTER = r"[\p{WB=MidLetter}\p{WB=MidNumLet}\p{WB=Single_Quote}]"
_MID_NUMBER = r"[\p{WB=MidNum}\p{WB=MidNumLet}\p{WB=Single_Quote}\uFE10\uFE14]"

_KATAKANA = r"\p{WB=Katakana}"

# A word: letters, digits and katakana, joined by connectors ("_"); letters and digits join each other directly,
# katakana only katakana; a mid-letter sign between two letters and a mid-number sign between two digits stay inside.
_WORD = (
    rf"(?:{_CONNECTOR}{_EXTEND}*)*(?:{_LETTER}|{_DIGIT}|{_KATAKANA}){_EXTEND}*"
    rf"(?:(?<=(?:{_LETTER}|{_DIGIT}|{_CONNECTOR}){_EXTEND}*)(?:{_LETTER}|{_DIGIT}){_EXTEND}*"
    rf"|(?<=(?:{_KATAKANA}|{_CONNECTOR}){_EXTEND}*){_KATAKANA}{_EXTEND}*"
    rf"|{_CONNECTOR}{_EXTEND}*"
    rf"|(?<={_LETTER}{_EXTEND}*){_MID_LETTER}{_EXTEND}*{_LETTER}{_EXTEND}*"
    rf"|(?<={_DIGIT}{_EXTEND}*){_MID_NUMBER}{_EXTEND}*{_DIGIT}{_EXTEND}*)*"
)
# An emoji: a pictograph with its presentation selector (then nothing more) or with marks, joiners and skin tones,
# several joined by zero-width joiners; a lone skin tone; a flag (two regional indicators) with its marks; a keycap.
_MODIFIER = r"[\U0001F3FB-\U0001F3FF]"
_PICTOGRAPH = rf"[{_EMOJI}--{_MODIFIER}]"
_EMOJI_SEQUENCE = (
    rf"\p{{Regional_Indicator}}{{2}}{_EXTEND}*|[#*]\uFE0F?\u20E3|{_MODIFIER}(?:[{_EXTEND}--\uFE0F])*"
    rf"|\u200D?{_PICTOGRAPH}(?:\uFE0F(?!{_EXTEND}))?(?:\u200D{_PICTOGRAPH}(?:\uFE0F(?!{_EXTEND}))?|(?<!\uFE0F){_EXTEND})*"
)
# Alternatives in the order that gives the longest token where they overlap (letters that are also pictographs,
# such as "ℹ" and "Ⓜ", join the letters around them).
_TOKEN = regex.compile(
    rf"{_WORD}|{_EMOJI_SEQUENCE}"
    rf"|[\p{{Ideographic}}{_RADICALS}]{_EXTEND}*|\p{{Script=Hiragana}}{_EXTEND}*"
    rf"|(?:\p{{Line_Break=Complex_Context}}{_EXTEND}*)+",
    regex.V1,
)
# The same rules for ASCII text (no marks, pictographs or scripts to handle): much faster.
_ASCII_TOKEN = re.compile(
    r"_*[A-Za-z0-9](?:[A-Za-z0-9_]|(?<=[A-Za-z])[:.'](?=[A-Za-z])|(?<=[0-9])[.,;'](?=[0-9]))*"
)
_POSSESSIVE = ("'s", "'S", "\u2019s", "\u2019S", "\uff07s", "\uff07S")


def _utf16_length(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-16-le")) // 2


def _split_long(token: str) -> list[str]:
    """A token cut into pieces of at most 255 UTF-16 units, as the tokenizer's buffer cuts it."""
    if len(token) <= MAX_TOKEN_LENGTH // 2 or _utf16_length(token) <= MAX_TOKEN_LENGTH:
        return [token]
    pieces: list[str] = []
    current: list[str] = []
    units = 0
    for char in token:
        width = 2 if ord(char) > 0xFFFF else 1
        if units + width > MAX_TOKEN_LENGTH:
            pieces.append("".join(current))
            current, units = [], 0
        current.append(char)
        units += width
    pieces.append("".join(current))
    return pieces


def tokenize(text: str) -> list[str]:
    """The tokens of ``text`` as Lucene's ``StandardTokenizer`` cuts them (original case)."""
    tokens: list[str] = []
    for token in (_ASCII_TOKEN if text.isascii() else _TOKEN).findall(text):
        tokens.extend(_split_long(token))
    return tokens


@lru_cache(maxsize=4096)
def _lower_char(char: str) -> str:
    lowered = char.lower()
    return lowered if len(lowered) == 1 else ("i" if char == "\u0130" else char)


def _lower(token: str) -> str:
    if token.isascii():
        return token.lower()
    return "".join(_lower_char(char) for char in token)


@lru_cache(maxsize=500_000)
def _term(token: str) -> str:
    if token.endswith(_POSSESSIVE):
        token = token[:-2]
    word = _lower(token)
    if not word or word in STOPWORDS:
        return ""
    return stem(word)


def analyze(text: str) -> list[str]:
    """The indexed terms of ``text`` (stop words dropped, Porter stems), in order."""
    terms = (_term(token) for token in tokenize(text))
    return [term for term in terms if term]
