"""The Porter stemmer as Lucene's ``PorterStemFilter`` applies it (the analyzer of the official PersonalWAB index).

Lucene stems with Martin Porter's own reference implementation, which departs from the 1980 paper (and from the
Snowball ``porter`` stemmer that PyStemmer ships) in three ways:

* step 2 rewrites ``-bli`` to ``-ble`` (the paper: ``-abli`` to ``-able``), so "assembly" becomes "assembl", not
  "assembli";
* step 2 adds ``-logi`` to ``-log``: "technology" becomes "technolog", not "technologi";
* words of one or two letters are left alone: "us" stays "us" and "bs" stays "bs" (Snowball: "u", "b").

In each step the suffixes sharing a last-but-one letter are tried in a fixed order and only the first that matches
is considered: if its condition fails, no other suffix of that group is tried.  Letters other than a, e, i, o, u and
y (digits, accented letters) count as consonants; ``y`` is a consonant at the start of a word or after a vowel.
"""

from __future__ import annotations

from functools import lru_cache

_VOWELS = frozenset("aeiou")

# Step 2 rules: (suffix, replacement), grouped by the suffix's last-but-one letter, in the order tried.
_STEP2: dict[str, tuple[tuple[str, str], ...]] = {
    "a": (("ational", "ate"), ("tional", "tion")),
    "c": (("enci", "ence"), ("anci", "ance")),
    "e": (("izer", "ize"),),
    "l": (("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous")),
    "o": (("ization", "ize"), ("ation", "ate"), ("ator", "ate")),
    "s": (("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous")),
    "t": (("aliti", "al"), ("iviti", "ive"), ("biliti", "ble")),
    "g": (("logi", "log"),),
}
# Step 3 rules, grouped by the suffix's last letter.
_STEP3: dict[str, tuple[tuple[str, str], ...]] = {
    "e": (("icate", "ic"), ("ative", ""), ("alize", "al")),
    "i": (("iciti", "ic"),),
    "l": (("ical", "ic"), ("ful", "")),
    "s": (("ness", ""),),
}
# Step 4 suffixes removed when the rest has a measure above one ("ion" only after s or t).
_STEP4: dict[str, tuple[str, ...]] = {
    "a": ("al",),
    "c": ("ance", "ence"),
    "e": ("er",),
    "i": ("ic",),
    "l": ("able", "ible"),
    "n": ("ant", "ement", "ment", "ent"),
    "o": ("ion", "ou"),
    "s": ("ism",),
    "t": ("ate", "iti"),
    "u": ("ous",),
    "v": ("ive",),
    "z": ("ize",),
}


def _consonant(word: str, i: int) -> bool:
    letter = word[i]
    if letter in _VOWELS:
        return False
    if letter == "y":
        return i == 0 or not _consonant(word, i - 1)
    return True


def _measure(stem: str) -> int:
    """Porter's m: the number of vowel-consonant sequences in ``stem`` ([C](VC)^m[V])."""
    count, i, n = 0, 0, len(stem)
    while i < n and _consonant(stem, i):
        i += 1
    while i < n:
        while i < n and not _consonant(stem, i):
            i += 1
        if i >= n:
            break
        while i < n and _consonant(stem, i):
            i += 1
        count += 1
    return count


def _has_vowel(stem: str) -> bool:
    return any(not _consonant(stem, i) for i in range(len(stem)))


def _double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
    """Ends consonant-vowel-consonant, the last not w, x or y (then a short word takes an ``e``)."""
    if len(word) < 3:
        return False
    i = len(word) - 1
    if not _consonant(word, i) or _consonant(word, i - 1) or not _consonant(word, i - 2):
        return False
    return word[i] not in "wxy"


def _step1ab(word: str) -> str:
    if word.endswith("s"):
        if word.endswith(("sses", "ies")):  # -sses to -ss, -ies to -i
            word = word[:-2]
        elif not word.endswith("ss"):
            word = word[:-1]
    if word.endswith("eed"):
        if _measure(word[:-3]) > 0:
            word = word[:-1]
        return word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
            word = word[: -len(suffix)]
            if word.endswith(("at", "bl", "iz")):
                return word + "e"
            if _double_consonant(word) and word[-1] not in "lsz":
                return word[:-1]
            if _measure(word) == 1 and _cvc(word):
                return word + "e"
            return word
    return word


def _step1c(word: str) -> str:
    if word.endswith("y") and _has_vowel(word[:-1]):
        return word[:-1] + "i"
    return word


def _replace_first(word: str, rules: dict[str, tuple[tuple[str, str], ...]], key: int) -> str:
    """The first rule of the group of ``word[key]`` whose suffix ends ``word``, applied if the rest's m > 0."""
    if len(word) < -key:
        return word
    for suffix, replacement in rules.get(word[key], ()):
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            return stem + replacement if _measure(stem) > 0 else word
    return word


def _step4(word: str) -> str:
    if len(word) < 2:
        return word
    for suffix in _STEP4.get(word[-2], ()):
        if not word.endswith(suffix):
            continue
        stem = word[: -len(suffix)]
        if suffix == "ion" and not (stem and stem[-1] in "st"):
            continue
        return stem if _measure(stem) > 1 else word
    return word


def _step5(word: str) -> str:
    if word.endswith("e"):
        stem = word[:-1]
        m = _measure(stem)
        if m > 1 or (m == 1 and not _cvc(stem)):
            word = stem
    if word.endswith("ll") and _measure(word) > 1:
        word = word[:-1]
    return word


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """The stem of a lower-case ``word`` as Lucene's Porter stemmer makes it (one- and two-letter words unchanged)."""
    if len(word) <= 2 if word.isascii() else len(word.encode("utf-16-le")) <= 4:
        return word
    for step in (_step1ab, _step1c):
        word = step(word)
    word = _replace_first(word, _STEP2, -2)
    word = _replace_first(word, _STEP3, -1)
    return _step5(_step4(word))
