"""Lucene's English stop words (``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``), which Anserini's default English
analyzer removes from the official search index and from queries."""

STOPWORDS: frozenset[str] = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with"]
)
