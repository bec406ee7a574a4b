"""Observation featurisation for RL: every text field and screenshot of a ``Dict`` observation to one fixed ``Box``.

* Text fields: a signed hashing vectoriser (word unigrams and bigrams, ``log1p`` counts, L2-normalised) into
  ``text_dim`` bins per field (stable across processes: CRC32, not Python's salted ``hash``), or MiniLM sentence
  embeddings (384 per field, ``encoder="minilm"``; needs the ``llm`` extra).
* Image fields (``H x W x 3`` uint8 ``Box``, e.g. ``screenshot``): area-downsampled to ``image_size`` (grayscale by
  default), scaled to [0, 1] and flattened.
* Other numeric ``Box`` fields are flattened and clipped to [-1, 1] after dividing by their bound.

The layout (field order and slices) is in :attr:`FeatureObservation.layout`.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from PIL import Image

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
#: Characters of a text field the hashing vectoriser reads (longer text is cut; keeps steps cheap).
MAX_HASHED_CHARS = 200_000
MINILM_DIM = 384


class TextHasher:
    """Signed feature hashing of word unigrams and bigrams into ``dim`` bins (L2-normalised float32).

    Args:
        dim: Number of bins.
        bigrams: Also hash adjacent word pairs.
        max_chars: Characters of the text read.
    """

    def __init__(self, dim: int = 256, bigrams: bool = True, max_chars: int = MAX_HASHED_CHARS) -> None:
        if dim < 1:
            raise ValueError(f"dim must be positive, got {dim}")
        self.dim = dim
        self.bigrams = bigrams
        self.max_chars = max_chars
        self._cache: dict[str, tuple[int, float]] = {}

    def tokens(self, text: str) -> list[str]:
        """The hashed tokens of ``text``."""
        words = [w.lower() for w in _TOKEN.findall(text[: self.max_chars])]
        if self.bigrams:
            return words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]
        return words

    def _bucket(self, token: str) -> tuple[int, float]:
        cached = self._cache.get(token)
        if cached is None:
            code = zlib.crc32(token.encode("utf-8"))
            cached = (code % self.dim, 1.0 if (code >> 31) & 1 else -1.0)
            if len(self._cache) < 1_000_000:
                self._cache[token] = cached
        return cached

    def __call__(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        counts: dict[tuple[int, float], int] = {}
        for token in self.tokens(text):
            key = self._bucket(token)
            counts[key] = counts.get(key, 0) + 1
        for (index, sign), count in counts.items():
            vector[index] += sign * np.log1p(count)
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm > 0 else vector


def downsample_image(image: np.ndarray, size: tuple[int, int], grayscale: bool = True) -> np.ndarray:
    """An ``H x W x 3`` uint8 image reduced to ``size`` = (height, width), in [0, 1], as a flat float32 vector."""
    array = np.asarray(image, dtype=np.uint8)
    if array.ndim == 2:
        array = np.repeat(array[:, :, None], 3, axis=2)
    picture = Image.fromarray(array[:, :, :3])
    if grayscale:
        picture = picture.convert("L")
    picture = picture.resize((size[1], size[0]), Image.Resampling.BOX)
    return (np.asarray(picture, dtype=np.float32) / 255.0).reshape(-1)


def _is_text(space: spaces.Space[Any]) -> bool:
    return isinstance(space, spaces.Text)


def _is_image(space: spaces.Space[Any]) -> bool:
    return isinstance(space, spaces.Box) and space.dtype == np.uint8 and len(space.shape) == 3


class ObservationFeaturizer:
    """Turns a ``Dict`` observation into one float32 vector in [-1, 1] (what :class:`FeatureObservation` emits;
    also used by saved policies that read raw observations).

    Args:
        space: The env's ``Dict`` observation space.
        fields, text_dim, encoder, image_size, grayscale: See :class:`FeatureObservation`.
        extractor: A callable ``observation -> vector`` with a ``dim`` attribute, used instead of the per-field
            features (e.g. :class:`personal_envs.personalwab.features.PersonalWABFeatures`).
    """

    def __init__(
        self, space: spaces.Space[Any], fields: Sequence[str] | None = None, text_dim: int = 256,
        encoder: str = "hash", image_size: tuple[int, int] = (24, 16), grayscale: bool = True,
        extractor: Any = None,
    ) -> None:
        if not isinstance(space, spaces.Dict):
            raise TypeError(f"FeatureObservation needs a Dict observation space, got {space}")
        if encoder not in ("hash", "minilm"):
            raise ValueError(f"encoder must be 'hash' or 'minilm', got {encoder!r}")
        self.space = space
        self.extractor = extractor
        self.encoder = encoder
        self.hasher = TextHasher(text_dim)
        self.image_size = image_size
        self.grayscale = grayscale
        self._memo: dict[tuple[str, str], np.ndarray] = {}
        #: field -> (kind, start, stop) of its slice in the feature vector.
        self.layout: dict[str, tuple[str, int, int]] = {}
        if extractor is not None:
            self.dim = int(extractor.dim)
            self.layout["extractor"] = ("extractor", 0, self.dim)
            return
        chosen = list(fields) if fields is not None else sorted(space.spaces)
        unknown = [key for key in chosen if key not in space.spaces]
        if unknown:
            raise KeyError(f"unknown observation fields {unknown}; available: {sorted(space.spaces)}")
        offset = 0
        for key in chosen:
            sub = space.spaces[key]
            if _is_text(sub):
                kind, width = "text", (MINILM_DIM if encoder == "minilm" else text_dim)
            elif _is_image(sub):
                kind, width = "image", image_size[0] * image_size[1] * (1 if grayscale else 3)
            elif isinstance(sub, spaces.Box):
                kind, width = "box", int(np.prod(sub.shape))
            else:
                if fields is not None:
                    raise TypeError(f"field {key!r} has unsupported space {sub}")
                continue
            self.layout[key] = (kind, offset, offset + width)
            offset += width
        if offset == 0:
            raise ValueError("no text, image or Box field to featurise")
        self.dim = offset

    def __call__(self, observation: Any) -> np.ndarray:
        if self.extractor is not None:
            return np.clip(np.asarray(self.extractor(observation), dtype=np.float32), -1.0, 1.0)
        vector = np.zeros(self.dim, dtype=np.float32)
        texts: list[tuple[int, int, str]] = []
        for key, (kind, start, stop) in self.layout.items():
            value = observation.get(key) if isinstance(observation, dict) else None
            if value is None:
                continue
            if kind == "text":
                if self.encoder == "minilm":
                    texts.append((start, stop, str(value)))
                else:
                    vector[start:stop] = self._hashed(key, str(value))
            elif kind == "image":
                vector[start:stop] = downsample_image(value, self.image_size, self.grayscale)
            else:
                sub = self.space[key]
                assert isinstance(sub, spaces.Box)
                bound = np.maximum(np.abs(np.asarray(sub.low, np.float64)), np.abs(np.asarray(sub.high, np.float64)))
                bound = np.where(np.isfinite(bound) & (bound > 0), bound, 1.0)
                flat = (np.asarray(value, np.float64) / bound).reshape(-1)
                vector[start:stop] = np.clip(flat, -1.0, 1.0)
        if texts:
            from personal_envs.core.embedding import embed

            rows = embed([text[:MAX_HASHED_CHARS] for _, _, text in texts])
            for (start, stop, _), row in zip(texts, rows, strict=True):
                vector[start:stop] = np.clip(row, -1.0, 1.0)
        return vector

    def _hashed(self, key: str, text: str) -> np.ndarray:
        """Hashed features of a text field, memoised (a history or instruction comes back every step)."""
        memo_key = (key, text)
        row = self._memo.get(memo_key)
        if row is None:
            row = self.hasher(text)
            if len(self._memo) >= 4096:
                self._memo.clear()
            self._memo[memo_key] = row
        return row


class FeatureObservation(gym.ObservationWrapper[np.ndarray, Any, Any], gym.utils.RecordConstructorArgs):
    """A ``Dict`` observation of text and images as one ``Box(-1, 1, (D,), float32)`` vector.

    Args:
        env: An env whose observation space is a ``Dict``.
        fields: Keys to featurise, in this order (default: every text, image and numeric ``Box`` field, sorted).
        text_dim: Bins per text field (hashing encoder).
        encoder: ``"hash"`` (default) or ``"minilm"``.
        image_size: (height, width) of downsampled images.
        grayscale: Downsample images to one channel.
        extractor: A benchmark's own feature extractor (see :class:`ObservationFeaturizer`).
    """

    def __init__(
        self, env: gym.Env[Any, Any], fields: Sequence[str] | None = None, text_dim: int = 256,
        encoder: str = "hash", image_size: tuple[int, int] = (24, 16), grayscale: bool = True,
        extractor: Any = None,
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, fields=fields, text_dim=text_dim, encoder=encoder,
                                                 image_size=image_size, grayscale=grayscale, extractor=extractor)
        gym.ObservationWrapper.__init__(self, env)
        self.featurizer = ObservationFeaturizer(env.observation_space, fields, text_dim, encoder, image_size,
                                                grayscale, extractor)
        self.encoder = encoder
        self.layout = self.featurizer.layout
        self.observation_space = spaces.Box(-1.0, 1.0, (self.featurizer.dim,), np.float32)

    def observation(self, observation: Any) -> np.ndarray:
        return self.featurizer(observation)

    def action_masks(self) -> np.ndarray:
        """The action mask of an inner :class:`~personal_envs.wrappers.discrete.DiscreteActions` (MaskablePPO)."""
        return np.asarray(self.env.get_wrapper_attr("action_masks")())


class SlotHistory(gym.Wrapper[np.ndarray, Any, Any, Any], gym.utils.RecordConstructorArgs):
    """Appends to a feature vector which fixed slots the agent has chosen in this episode (one 0/1 per slot) and
    the fraction of the step limit used, so a memoryless policy knows what it already tried (multi-turn).

    Wraps a :class:`FeatureObservation` over a ``Discrete`` :class:`~personal_envs.wrappers.discrete.DiscreteActions`.

    Args:
        no_repeat: Also mask every slot whose action (function and arguments) was already taken in this episode:
            the same call twice returns the same result, so repeating it only spends a step.
    """

    def __init__(self, env: gym.Env[Any, Any], no_repeat: bool = False) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, no_repeat=no_repeat)
        gym.Wrapper.__init__(self, env)
        self.no_repeat = no_repeat
        self.taken = TakenActions()
        self.fixed_slots: tuple[str, ...] = tuple(env.get_wrapper_attr("fixed_slots"))
        self.max_steps = max(1, int(getattr(env.unwrapped, "max_steps", 0) or 1))
        inner = env.observation_space
        assert isinstance(inner, spaces.Box) and inner.shape is not None
        self.observation_space = spaces.Box(-1.0, 1.0, (inner.shape[0] + len(self.fixed_slots) + 1,), np.float32)
        self.chosen = np.zeros(len(self.fixed_slots), np.float32)
        self.steps = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        observation, info = self.env.reset(seed=seed, options=options)
        self.chosen[:] = 0.0
        self.steps = 0
        self.taken.clear()
        return self._with_history(observation), info

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        slot = int(np.asarray(action).reshape(-1)[0])
        if 0 <= slot < len(self.fixed_slots):
            self.chosen[slot] = 1.0
        self.taken.add(self.env.get_wrapper_attr("action")(action))
        self.steps += 1
        observation, reward, terminated, truncated, info = self.env.step(action)
        return self._with_history(observation), reward, terminated, truncated, info

    def _with_history(self, observation: np.ndarray) -> np.ndarray:
        return history_features(observation, self.chosen, self.steps, self.max_steps)

    def action_masks(self) -> np.ndarray:
        """The inner action mask (MaskablePPO), without the slots of actions already taken when ``no_repeat``."""
        masks = np.asarray(self.env.get_wrapper_attr("action_masks")())
        if not self.no_repeat:
            return masks
        return self.taken.mask(masks, self.env.get_wrapper_attr("action"))


class TakenActions:
    """The JSON actions taken in an episode, to mask a repeat of any of them (:class:`SlotHistory` ``no_repeat``)."""

    def __init__(self) -> None:
        self._keys: set[str] = set()

    def clear(self) -> None:
        self._keys.clear()

    def add(self, action: dict[str, Any]) -> None:
        self._keys.add(_action_key(action))

    def mask(self, masks: np.ndarray, action_of: Any) -> np.ndarray:
        """``masks`` with every valid slot whose action (``action_of(slot)``) was already taken set to False; if that
        leaves no valid slot, ``masks`` unchanged."""
        if not self._keys:
            return masks
        kept = np.array([bool(valid) and _action_key(action_of(slot)) not in self._keys
                         for slot, valid in enumerate(masks)], dtype=bool)
        return kept if kept.any() else masks


def _action_key(action: dict[str, Any]) -> str:
    return json.dumps(action, sort_keys=True, default=str)


def history_features(observation: np.ndarray, chosen: np.ndarray, steps: int, max_steps: int) -> np.ndarray:
    """A feature vector with the chosen-slot flags and the step fraction appended (:class:`SlotHistory`)."""
    extra = np.append(chosen, min(1.0, steps / max(1, max_steps))).astype(np.float32)
    return np.concatenate([np.asarray(observation, np.float32), extra])
