"""The analyzer of the official index (Anserini's default English analyzer on Lucene 9.5): tokens, possessives, lower
case, stop words and Lucene's Porter stems.  Expected values are what Lucene 9.5.0 itself produced for these inputs
(``benchmarks/personalwab_lucene_agreement.py`` compares every document and query with a running Lucene)."""

from __future__ import annotations

import pytest

from personal_envs.personalwab.analysis import analyze, tokenize
from personal_envs.personalwab.porter import stem

# Word -> Lucene 9.5 PorterStemFilter output.
LUCENE_STEMS = {
    "technology": "technolog", "technologies": "technolog", "analogy": "analog", "archaeology": "archaeolog",
    "assembly": "assembl", "possibly": "possibl", "visibly": "visibl", "incredibly": "incred", "ostensibly": "ostens",
    "us": "us", "bs": "bs", "s": "s", "y": "y", "generalization": "gener", "oscillators": "oscil",
    "conditional": "condit", "rational": "ration", "relational": "relat", "hopefully": "hopefulli",
    "sensibility": "sensibl", "electrical": "electr", "formalize": "formal", "adjustable": "adjust",
    "irritant": "irrit", "replacement": "replac", "adoption": "adopt", "communism": "commun", "effective": "effect",
    "bowdlerize": "bowdler", "probate": "probat", "rate": "rate", "cease": "ceas", "controlling": "control",
    "rolling": "roll", "hopping": "hop", "filing": "file", "agreed": "agre", "feed": "feed", "plastered": "plaster",
    "motoring": "motor", "sing": "sing", "conflated": "conflat", "troubled": "troubl", "sized": "size",
    "fizzed": "fizz", "failing": "fail", "happy": "happi", "sky": "sky", "caresses": "caress", "ponies": "poni",
    "ties": "ti", "cats": "cat", "yes": "ye", "played": "plai", "generously": "gener", "traditional": "tradit",
    "decisiveness": "decis", "triplicate": "triplic", "hopeful": "hope", "goodness": "good", "revival": "reviv",
    "allowance": "allow", "inference": "infer", "airliner": "airlin", "gyroscopic": "gyroscop",
    "defensible": "defens", "dependent": "depend", "homologous": "homolog", "activate": "activ",
    "angularity": "angular", "controller": "control", "rolled": "roll",
}


@pytest.mark.parametrize("word", sorted(LUCENE_STEMS))
def test_porter_stems_as_lucene(word):
    assert stem(word) == LUCENE_STEMS[word]


def test_lucene_departures_from_the_snowball_porter_stemmer():
    """The three places where Lucene (Porter's reference code) and PyStemmer's Snowball "porter" disagree."""
    import Stemmer

    snowball = Stemmer.Stemmer("porter")
    for word, lucene in (("technology", "technolog"), ("assembly", "assembl"), ("us", "us")):
        assert stem(word) == lucene != snowball.stemWord(word)


def test_tokenizer_word_rules():
    text = "10:30 a:b 1,000 1;2 1.5.6 a.b.c v1.2 1.a e.g. don't _ab_ __ a_b 3/4\" 5'11\" 2x4"
    assert tokenize(text) == ["10", "30", "a:b", "1,000", "1;2", "1.5.6", "a.b.c", "v1.2", "1", "a", "e.g",
                              "don't", "_ab_", "a_b", "3", "4", "5'11", "2x4"]
    assert tokenize("x" * 300) == ["x" * 255, "x" * 45]  # Lucene's maximum token length


def test_tokenizer_unicode_rules():
    assert tokenize("日本語テキストひらがな한국어 ภาษาไทย") == ["日", "本", "語", "テキスト", "ひ", "ら", "が", "な",
                                                            "한국어", "ภาษาไทย"]
    # Pictographs are tokens (also those newer Unicode dropped from Extended_Pictographic); other symbols are not.
    assert tokenize("★ ☆ ® © ™ ✔ ✔️ ♫ € ½ ° × — …") == ["★", "®", "©", "™", "✔", "✔️", "♫"]
    assert tokenize("👍🏽 👨\u200d👩\u200d👧 🇺🇸 1️⃣") == ["👍🏽", "👨\u200d👩\u200d👧", "🇺🇸", "1️⃣"]
    assert tokenize("co\u00adop café naïve") == ["co\u00adop", "café", "naïve"]
    assert tokenize("テキ_and_kitchen aℹb") == ["テキ_and_kitchen", "aℹb"]


def test_analyzer_filters():
    assert analyze("The runner's batteries are running") == ["runner", "batteri", "run"]
    assert analyze("this is not what they were") == ["what", "were"]  # only Lucene's 33 stop words go
    assert analyze("JOHN’S it's U.S.A. U.S. e.g.") == ["john", "u.s.a", "u.", "e.g"]
    assert analyze("İstanbul ΣΟΦΟΣ") == ["istanbul", "σοφοσ"]  # Java lower case, one code point at a time
    assert analyze('\\u2026 \\n\\nfoo') == ["u2026", "n", "nfoo"]  # escapes in str() / json.dumps text
    assert analyze("") == []


def test_lucene_bridge_agrees_when_a_jar_is_given(tmp_path):
    """With ``PERSONAL_ENVS_ANSERINI_JAR`` (Anserini 0.22.1's fat jar), the terms of mixed texts equal Lucene's."""
    import os

    jar = os.environ.get("PERSONAL_ENVS_ANSERINI_JAR")
    if not jar:
        pytest.skip("set PERSONAL_ENVS_ANSERINI_JAR to compare with a running Lucene")
    from benchmarks.personalwab_lucene_agreement import Lucene

    texts = ["The runner's 3.5-inch TECHNOLOGY assembly, e.g. 1,000 units; don't ★ ✔️ 👍🏽 日本",
             "- Details: {\"Brand\": \"Caf\\u00e9\"}\n- Features: ['a\\nb', \"it's\"]", "x" * 600, "U.S.A. vs us"]
    assert Lucene(jar, tmp_path).lines("analyze", texts, tmp_path) == [analyze(t) for t in texts]
