"""KnowU-Bench as published: the official release (ZJU-REAL/KnowU-Bench at a pinned commit) read as data.

* :mod:`.release`: where an official release directory is, its pinned commit, label and file list.
* :mod:`.source`: the official task definitions parsed with :mod:`ast` (never imported or executed), and loaders
  of the official role profiles and logs.
* :mod:`.registry`: builders per official class, the official variant names, and building a variant.
"""
