"""Next-item recommenders behind PersonalWAB's ``get_recommendations_by_history`` tool.

:class:`SequentialRecommender` is a SASRec-style self-attentive model trained on users' purchase sequences; it
scores the whole catalog with one matrix product and returns the top k. :class:`PopularityRecommender` is the
baseline. :func:`hit_rate_at_k` and :func:`ndcg_at_k` evaluate either on ``(history, next item)`` cases.

Training objective (chosen because it learns much better than the original SASRec loss): cross-entropy of the true
next item against the catalog at every position. When the catalog has at most ``num_negatives`` items the softmax
is exact over the full catalog; otherwise each batch shares ``num_negatives`` uniformly sampled negatives (a
sampled softmax; uniform sampling needs no log-Q correction, and sampled negatives that equal the positive are
masked). The original SASRec binary cross-entropy with one random negative per position is available as
``loss="bce"``.

torch is imported only when a :class:`SequentialRecommender` is built (or loaded), so importing this module is
cheap. Everything is deterministic on CPU for a given seed: training runs with a fixed thread count (default 1,
which is also the fastest on a shared machine), its own seeded generators and a forked global RNG (the caller's
torch RNG state is left untouched).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    import torch

    from personal_envs.personalwab.sasrec import SASRecNet

FORMAT_VERSION = 1
TORCH_INSTALL_HINT = "pip install 'personal-envs[rl]'  (or: pip install torch==2.13.0)"
LOSSES = ("ce", "bce")
_FIT_KEYS = ("epochs", "batch_size", "lr")
#: ``SequentialRecommender.cached`` trains in a child process by default from this catalog size on.
SUBPROCESS_TRAINING_MIN_ITEMS = 5000


class TorchMissingError(ImportError):
    """Raised when the sequential recommender is used without PyTorch installed."""


def _import_torch() -> Any:
    try:
        import torch
    except ImportError as exc:
        raise TorchMissingError(
            f"The PersonalWAB sequential recommender (SASRec) needs PyTorch, which is not installed. "
            f"Install it with: {TORCH_INSTALL_HINT}"
        ) from exc
    return torch


class Recommender(Protocol):
    """Anything that ranks catalog items as the next purchase after a history."""

    def recommend(self, history: Sequence[str], k: int = 10, exclude_history: bool = False) -> list[str]: ...


# ----------------------------------------------------------------------------------------------- input hygiene


def _unique_ids(item_ids: Iterable[Any]) -> list[str]:
    """Catalog ids as strings, duplicates removed, first occurrence order kept."""
    seen: dict[str, None] = {}
    for item in item_ids:
        if isinstance(item, str) and item:
            seen.setdefault(item, None)
    return list(seen)


def _as_id_list(history: Any) -> list[str]:
    """Coerce whatever the agent passed into a list of candidate id strings (never raises)."""
    if history is None:
        return []
    if isinstance(history, str):
        return [history]
    if isinstance(history, bytes | bytearray):
        return [bytes(history).decode("utf-8", "replace")]
    if isinstance(history, dict):
        return []
    try:
        values = list(history)
    except TypeError:
        return []
    return [value for value in values if isinstance(value, str)]


def _as_k(k: Any, catalog_size: int) -> int:
    """A usable k in ``[0, catalog_size]``; non-numbers fall back to 10."""
    if isinstance(k, bool) or not isinstance(k, int | float | np.integer | np.floating):
        k = 10
    if isinstance(k, float | np.floating) and not math.isfinite(float(k)):
        k = 10
    return max(0, min(int(k), catalog_size))


class _Catalog:
    """The id <-> index mapping (index 0 is padding, items are 1..n) plus training-set popularity."""

    def __init__(self, item_ids: Sequence[str]) -> None:
        self.ids = _unique_ids(item_ids)
        self.index = {item: position + 1 for position, item in enumerate(self.ids)}
        self.counts = np.zeros(len(self.ids) + 1, dtype=np.int64)
        self._popular_order: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.ids)

    def encode(self, items: Iterable[str]) -> list[int]:
        return [self.index[item] for item in items if item in self.index]

    def count(self, sequences: Iterable[Sequence[int]]) -> None:
        self.counts[:] = 0
        for sequence in sequences:
            np.add.at(self.counts, np.asarray(sequence, dtype=np.int64), 1)
        self._popular_order = None

    def popular_order(self) -> np.ndarray:
        """Item indices (1-based) by descending count, ties in catalog order."""
        if self._popular_order is None:
            self._popular_order = np.argsort(-self.counts[1:], kind="stable") + 1
        return self._popular_order

    def most_popular(self, k: int, exclude: set[int]) -> list[str]:
        out: list[str] = []
        for index in self.popular_order():
            if len(out) >= k:
                break
            if int(index) not in exclude:
                out.append(self.ids[int(index) - 1])
        return out


# ------------------------------------------------------------------------------------------ popularity baseline


class PopularityRecommender:
    """Baseline: recommend the items bought most often in the training sequences, whatever the history."""

    def __init__(self, item_ids: Sequence[str]) -> None:
        self._catalog = _Catalog(item_ids)

    @property
    def item_ids(self) -> list[str]:
        """The catalog, in index order."""
        return list(self._catalog.ids)

    def fit(self, sequences: Sequence[Sequence[str]], **_ignored: Any) -> dict:
        """Count purchases; returns ``{"final_loss": None, "seconds": ..., "interactions": ...}``."""
        started = time.perf_counter()
        encoded = [self._catalog.encode(_as_id_list(sequence)) for sequence in sequences]
        self._catalog.count(encoded)
        return {
            "final_loss": None,
            "seconds": time.perf_counter() - started,
            "interactions": int(self._catalog.counts.sum()),
        }

    def recommend(self, history: Sequence[str], k: int = 10, exclude_history: bool = False) -> list[str]:
        """Top-k most popular items (optionally skipping the ones in ``history``)."""
        count = _as_k(k, len(self._catalog))
        exclude = set(self._catalog.encode(_as_id_list(history))) if exclude_history else set()
        return self._catalog.most_popular(count, exclude)


# ------------------------------------------------------------------------------------------- SASRec recommender


@contextlib.contextmanager
def _torch_threads(torch: Any, threads: int) -> Iterator[None]:
    """Run with a fixed intra-op thread count, restoring the caller's afterwards (the call costs < 1 us)."""
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


@contextlib.contextmanager
def _seeded_torch(torch: Any, seed: int, threads: int) -> Iterator[None]:
    """Fixed threads and a seeded, forked global RNG (for dropout); the caller's state is restored on exit.

    ``torch.use_deterministic_algorithms`` is deliberately not switched on: it costs ~70 MB of resident memory
    the first time, and every CPU kernel this model uses (embedding lookup and backward, matmul, SDPA, LayerNorm,
    Adam) is already deterministic at a fixed thread count; the tests check bit-identical weights.
    """
    with _torch_threads(torch, threads), torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


class SequentialRecommender:
    """SASRec-style self-attentive sequential recommender trained on user histories, top-k over the whole catalog.

    ``recommend`` uses only the last ``max_len`` known items of the history (unknown ids are dropped first, as in
    the official PersonalWAB tool); a history with no known item falls back to popularity. It never raises on bad
    input (None, a bare string, non-string entries, thousands of ids, duplicates, a weird ``k``).
    """

    def __init__(
        self,
        item_ids: Sequence[str],
        *,
        max_len: int = 30,
        hidden: int = 64,
        layers: int = 2,
        heads: int = 2,
        dropout: float = 0.2,
        seed: int = 0,
        loss: str = "ce",
        num_negatives: int = 1024,
        weight_decay: float = 0.0,
        threads: int = 1,
    ) -> None:
        if max_len < 1 or hidden < 1 or layers < 1 or heads < 1:
            raise ValueError("max_len, hidden, layers and heads must be positive")
        if hidden % heads:
            raise ValueError(f"hidden ({hidden}) must be divisible by heads ({heads})")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        if loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
        self._torch = _import_torch()
        from personal_envs.personalwab.sasrec import SASRecNet

        self._catalog = _Catalog(item_ids)
        if not len(self._catalog):
            raise ValueError("the catalog (item_ids) is empty")
        self.config: dict[str, Any] = {
            "max_len": int(max_len),
            "hidden": int(hidden),
            "layers": int(layers),
            "heads": int(heads),
            "dropout": float(dropout),
            "seed": int(seed),
            "loss": loss,
            "num_negatives": int(num_negatives),
            "weight_decay": float(weight_decay),
            "threads": max(1, int(threads)),
        }
        with _seeded_torch(self._torch, self.config["seed"], self.config["threads"]):
            self._net: SASRecNet = SASRecNet(
                len(self._catalog),
                max_len=max_len,
                hidden=hidden,
                layers=layers,
                heads=heads,
                dropout=dropout,
            )
        self._net.eval()
        self._scoring_matrix: torch.Tensor | None = None
        self._trained = False
        self.training_stats: dict[str, Any] = {}
        self.loaded_from_cache = False

    # ---------------------------------------------------------------------------------------------- properties

    @property
    def item_ids(self) -> list[str]:
        """The catalog, in index order (duplicates in the constructor argument removed)."""
        return list(self._catalog.ids)

    @property
    def max_len(self) -> int:
        """How many of the most recent known history items a recommendation looks at."""
        return int(self.config["max_len"])

    @property
    def is_trained(self) -> bool:
        """False until ``fit`` has seen at least one transition (until then ``recommend`` uses popularity)."""
        return self._trained

    # ------------------------------------------------------------------------------------------------ training

    def _training_windows(self, encoded: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        """Left-padded ``(inputs, targets)`` windows of length max_len covering every transition once."""
        max_len = self.max_len
        inputs: list[np.ndarray] = []
        targets: list[np.ndarray] = []
        for sequence in encoded:
            end = len(sequence)
            while end >= 2:
                start = max(0, end - max_len - 1)
                window = sequence[start:end]
                row_in = np.zeros(max_len, dtype=np.int64)
                row_out = np.zeros(max_len, dtype=np.int64)
                row_in[max_len - len(window) + 1 :] = window[:-1]
                row_out[max_len - len(window) + 1 :] = window[1:]
                inputs.append(row_in)
                targets.append(row_out)
                end = start + 1  # the next window ends where this one's first input was
        if not inputs:
            empty = np.zeros((0, max_len), dtype=np.int64)
            return empty, empty
        return np.stack(inputs), np.stack(targets)

    def _batch_loss(
        self, inputs: torch.Tensor, targets: torch.Tensor, generator: torch.Generator
    ) -> torch.Tensor:
        torch = self._torch
        functional = torch.nn.functional
        states = self._net.encode(inputs)
        valid = targets > 0
        states = states[valid]  # [positions, hidden]
        positives = targets[valid]
        weights = self._net.item_embedding.weight
        num_items = len(self._catalog)
        if self.config["loss"] == "bce":
            negatives = torch.randint(1, num_items + 1, positives.shape, generator=generator)
            pos_logits = (states * weights[positives]).sum(-1)
            neg_logits = (states * weights[negatives]).sum(-1)
            ones, zeros = torch.ones_like(pos_logits), torch.zeros_like(neg_logits)
            return functional.binary_cross_entropy_with_logits(
                pos_logits, ones
            ) + functional.binary_cross_entropy_with_logits(neg_logits, zeros)
        if num_items <= self.config["num_negatives"]:
            logits = states @ weights[1:].T
            return functional.cross_entropy(logits, positives - 1)
        negatives = torch.randint(1, num_items + 1, (self.config["num_negatives"],), generator=generator)
        pos_logits = (states * weights[positives]).sum(-1, keepdim=True)
        neg_logits = states @ weights[negatives].T
        neg_logits = neg_logits.masked_fill(negatives.unsqueeze(0) == positives.unsqueeze(1), float("-inf"))
        logits = torch.cat([pos_logits, neg_logits], dim=1)
        return functional.cross_entropy(logits, torch.zeros_like(positives))

    def fit(
        self,
        sequences: Sequence[Sequence[str]],
        *,
        epochs: int = 30,
        batch_size: int = 128,
        lr: float = 1e-3,
        progress: bool = False,
    ) -> dict:
        """Train on chronological purchase sequences (unknown ids dropped); returns training statistics.

        Popularity (the fallback) is always counted. The stats hold ``final_loss`` (mean loss of the last epoch,
        None if there was nothing to learn from), ``seconds``, ``epochs``, ``steps``, ``windows``,
        ``transitions`` and ``epoch_losses``. Calling ``fit`` again continues from the current weights (with a
        fresh optimizer) and recounts popularity from the new sequences. Not thread-safe: do not train two
        models concurrently in one process (the thread count and dropout RNG are process-global in torch).
        """
        torch = self._torch
        started = time.perf_counter()
        encoded = [self._catalog.encode(_as_id_list(sequence)) for sequence in sequences]
        self._catalog.count(encoded)
        inputs, targets = self._training_windows(encoded)
        transitions = int((targets > 0).sum())
        epoch_losses: list[float] = []
        steps = 0
        if transitions and epochs > 0:
            batch_size = max(1, int(batch_size))
            seed = self.config["seed"]
            order_rng = np.random.default_rng(seed)
            with _seeded_torch(torch, seed, self.config["threads"]):
                generator = torch.Generator().manual_seed(seed)
                optimizer = torch.optim.Adam(
                    self._net.parameters(), lr=lr, weight_decay=self.config["weight_decay"]
                )
                all_inputs = torch.from_numpy(inputs)
                all_targets = torch.from_numpy(targets)
                self._net.train()
                epoch_range: Iterable[int] = range(int(epochs))
                if progress:
                    from tqdm import tqdm

                    epoch_range = tqdm(epoch_range, desc="SASRec", unit="epoch")
                lengths = (targets > 0).sum(axis=1)
                for _ in epoch_range:
                    total, batches = 0.0, 0
                    for rows in _length_bucketed_batches(order_rng, lengths, batch_size):
                        width = int(lengths[rows].max())
                        row_index = torch.from_numpy(rows)
                        batch_inputs = all_inputs[row_index, -width:]
                        batch_targets = all_targets[row_index, -width:]
                        loss = self._batch_loss(batch_inputs, batch_targets, generator)
                        optimizer.zero_grad(set_to_none=True)
                        loss.backward()
                        optimizer.step()
                        total += float(loss.detach())
                        batches += 1
                    steps += batches
                    epoch_losses.append(total / max(1, batches))
                    if progress and hasattr(epoch_range, "set_postfix"):
                        epoch_range.set_postfix(loss=f"{epoch_losses[-1]:.4f}")
                self._net.eval()
                with torch.no_grad():
                    self._net.item_embedding.weight[0].zero_()
            self._trained = True
            self._scoring_matrix = None
        self.training_stats = {
            "final_loss": epoch_losses[-1] if epoch_losses else None,
            "seconds": time.perf_counter() - started,
            "epochs": len(epoch_losses),
            "steps": steps,
            "windows": len(inputs),
            "transitions": transitions,
            "epoch_losses": epoch_losses,
            "loss": self.config["loss"],
        }
        return dict(self.training_stats)

    def give_catalogue(self, groups: Mapping[str, Sequence[str]]) -> int:
        """Place items never seen in training among similar catalogue items, as a deployed recommender that knows
        its catalogue would: an unseen item's embedding becomes the mean embedding of the trained items sharing its
        most specific group key (e.g. ``[category|store, category]``).  Returns how many items were placed.

        Args:
            groups: ``item id -> group keys``, most specific first.
        """
        if not self._trained:
            return 0
        torch = self._torch
        counts = self._catalog.counts
        members: dict[str, list[int]] = {}
        for item, keys in groups.items():
            index = self._catalog.index.get(item)
            if index is not None and counts[index] > 0:
                for key in keys:
                    members.setdefault(key, []).append(index)
        weight = self._net.item_embedding.weight
        placed = 0
        with torch.no_grad():
            for item, keys in groups.items():
                index = self._catalog.index.get(item)
                if index is None or counts[index] > 0:
                    continue
                peers = next((members[key] for key in keys if members.get(key)), None)
                if peers:
                    weight[index] = weight[torch.tensor(peers)].mean(dim=0)
                    placed += 1
        self._scoring_matrix = None
        return placed

    # ----------------------------------------------------------------------------------------------- inference

    def _item_matrix(self) -> torch.Tensor:
        """Contiguous ``[hidden, num_items + 1]`` copy of the item embeddings: scoring the catalog is one GEMV
        that reads it sequentially (about twice as fast as multiplying by the transposed embedding table)."""
        if self._scoring_matrix is None:
            self._scoring_matrix = self._net.item_embedding.weight.detach().T.contiguous()
        return self._scoring_matrix

    def recommend(self, history: Sequence[str], k: int = 10, exclude_history: bool = False) -> list[str]:
        """The k items most likely to come next after ``history`` (parent_asin sequence, oldest first)."""
        return self.recommend_many([history], k=k, exclude_history=exclude_history)[0]

    def recommend_many(
        self, histories: Sequence[Sequence[str]], k: int = 10, exclude_history: bool = False
    ) -> list[list[str]]:
        """Batched :meth:`recommend` (one forward pass for all histories with known items)."""
        torch = self._torch
        count = _as_k(k, len(self._catalog))
        encoded = [self._catalog.encode(_as_id_list(history)) for history in _as_id_lists(histories)]
        results: list[list[str]] = [[] for _ in encoded]
        if count == 0:
            return results
        model_rows = [row for row, items in enumerate(encoded) if items and self._trained]
        model_row_set = set(model_rows)
        for row, items in enumerate(encoded):
            if row not in model_row_set:
                results[row] = self._catalog.most_popular(count, set(items) if exclude_history else set())
        if not model_rows:
            return results
        max_len = self.max_len
        width = max(min(len(encoded[row]), max_len) for row in model_rows)
        batch = np.zeros((len(model_rows), width), dtype=np.int64)
        for position, row in enumerate(model_rows):
            recent = encoded[row][-max_len:]
            batch[position, width - len(recent) :] = recent
        with torch.inference_mode(), _torch_threads(torch, self.config["threads"]):
            scores = self._net.last_state(torch.from_numpy(batch)) @ self._item_matrix()
            scores[:, 0] = float("-inf")
            if exclude_history:
                for position, row in enumerate(model_rows):
                    scores[position, torch.tensor(sorted(set(encoded[row])))] = float("-inf")
            top = torch.topk(scores, k=min(count, scores.shape[1]), dim=1)
            top_indices = top.indices.tolist()
            top_finite = torch.isfinite(top.values).tolist()
        for position, row in enumerate(model_rows):
            results[row] = [
                self._catalog.ids[index - 1]
                for index, finite in zip(top_indices[position], top_finite[position], strict=True)
                if finite
            ]
        return results

    # -------------------------------------------------------------------------------------------- persistence

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write config, catalog, popularity, weights and stats to ``path`` (atomically); returns the path."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "format_version": FORMAT_VERSION,
            "config": dict(self.config),
            "item_ids": list(self._catalog.ids),
            "counts": self._catalog.counts.tolist(),
            "trained": self._trained,
            "training_stats": json.loads(json.dumps(self.training_stats)),
            "state_dict": self._net.state_dict(),
        }
        handle, temp_name = tempfile.mkstemp(prefix=target.name, suffix=".tmp", dir=target.parent)
        os.close(handle)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp_name, 0o666 & ~umask)  # mkstemp creates 0600; a cache may be shared
        try:
            self._torch.save(payload, temp_name)
            os.replace(temp_name, target)
        finally:
            if os.path.exists(temp_name):
                os.unlink(temp_name)
        return target

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> SequentialRecommender:
        """Load a model written by :meth:`save` (weights-only unpickling: no code runs from the file)."""
        torch = _import_torch()
        payload = torch.load(Path(path), map_location="cpu", weights_only=True)
        if not isinstance(payload, dict) or payload.get("format_version") != FORMAT_VERSION:
            raise ValueError(f"{path} is not a SequentialRecommender file (format {FORMAT_VERSION})")
        model = cls(payload["item_ids"], **payload["config"])
        model._net.load_state_dict(payload["state_dict"])
        model._net.eval()
        model._scoring_matrix = None
        model._catalog.counts = np.asarray(payload["counts"], dtype=np.int64)
        model._trained = bool(payload["trained"])
        model.training_stats = dict(payload["training_stats"])
        return model

    @classmethod
    def cache_key(cls, item_ids: Sequence[str], sequences: Sequence[Sequence[str]], **kwargs: Any) -> str:
        """sha256 over the catalog, the sequences and every hyperparameter that changes the trained model."""
        model_kwargs, fit_kwargs = _split_kwargs(kwargs)
        fit_kwargs.pop("progress", None)  # display only: does not change the trained model
        probe = _default_config() | model_kwargs
        digest = hashlib.sha256()
        digest.update(f"sasrec-v{FORMAT_VERSION}\n".encode())
        digest.update(json.dumps(sorted(probe.items()), default=str).encode())
        digest.update(json.dumps(sorted((_default_fit() | fit_kwargs).items()), default=str).encode())
        digest.update(b"\nitems\n")
        for item in item_ids:
            digest.update(str(item).encode("utf-8", "replace") + b"\x00")
        digest.update(b"\nsequences\n")
        for sequence in sequences:
            digest.update(json.dumps(list(_as_id_list(sequence))).encode() + b"\n")
        return digest.hexdigest()

    @classmethod
    def cached(
        cls,
        item_ids: Sequence[str],
        sequences: Sequence[Sequence[str]],
        cache_dir: Path,
        *,
        train_in_subprocess: bool | None = None,
        **fit_kwargs: Any,
    ) -> SequentialRecommender:
        """Train once and reuse: loads ``cache_dir/<key>.pt`` if present, else trains, saves and returns.

        ``fit_kwargs`` may mix constructor hyperparameters (max_len, hidden, ..., seed) and fit arguments
        (epochs, batch_size, lr, progress); the key is :meth:`cache_key`. The returned model's
        ``loaded_from_cache`` says which happened. A corrupt cache file is replaced by a freshly trained model.
        Concurrent callers (parallel envs) take a file lock, so only one of them trains.

        With ``train_in_subprocess`` training runs in a child Python process and this process only loads the
        result: training's transient memory (optimizer state, activations, allocator high-water mark: about
        +250 MB at 35,772 items) never lands in the caller. The weights are the same as in-process training
        (deterministic, one thread); if the child fails, training falls back to this process with a warning.
        The default (None) uses a child for catalogs of at least ``SUBPROCESS_TRAINING_MIN_ITEMS`` items, where
        the memory matters more than the child's start-up (a second torch import, a few seconds).
        """
        item_list = list(item_ids)
        sequence_list = [list(_as_id_list(sequence)) for sequence in sequences]
        model_kwargs, train_kwargs = _split_kwargs(fit_kwargs)
        key = cls.cache_key(item_list, sequence_list, **fit_kwargs)
        folder = Path(cache_dir)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{key}.pt"
        with _exclusive_lock(folder / f"{key}.lock"):
            if path.is_file():
                try:
                    model = cls.load(path)
                except Exception:  # noqa: BLE001 - an unreadable cache entry is simply rebuilt
                    path.unlink(missing_ok=True)
                else:
                    model.loaded_from_cache = True
                    return model
            if train_in_subprocess is None:
                train_in_subprocess = len(set(item_list)) >= SUBPROCESS_TRAINING_MIN_ITEMS
            if train_in_subprocess:
                try:
                    _train_in_child(item_list, sequence_list, model_kwargs, train_kwargs, path)
                    return cls.load(path)
                except (OSError, RuntimeError, ValueError) as exc:
                    warnings.warn(
                        f"recommender training subprocess failed ({exc}); training in-process", stacklevel=2
                    )
            model = cls(item_list, **model_kwargs)
            model.fit(sequence_list, **train_kwargs)
            model.save(path)
            return model


@contextlib.contextmanager
def _exclusive_lock(lock_path: Path) -> Iterator[None]:
    """An advisory inter-process lock on ``lock_path`` (a no-op where fcntl is unavailable)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    with open(lock_path, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _train_in_child(
    item_ids: list[str],
    sequences: list[list[str]],
    model_kwargs: dict[str, Any],
    fit_kwargs: dict[str, Any],
    out_path: Path,
) -> None:
    """Train and save to ``out_path`` in a fresh interpreter (raises RuntimeError if it fails)."""
    job = {
        "item_ids": item_ids,
        "sequences": sequences,
        "model_kwargs": model_kwargs,
        "fit_kwargs": fit_kwargs,
        "out": str(out_path),
    }
    handle, job_name = tempfile.mkstemp(prefix="train-job-", suffix=".json", dir=out_path.parent)
    with os.fdopen(handle, "w", encoding="utf-8") as job_file:
        json.dump(job, job_file)
    show_progress = bool(fit_kwargs.get("progress"))
    code = "import sys; from personal_envs.personalwab.recommender import _run_training_job; _run_training_job(sys.argv[1])"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(entry for entry in sys.path if entry)}
    try:
        result = subprocess.run(
            [sys.executable, "-c", code, job_name],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=None if show_progress else subprocess.PIPE,
            text=True,
            check=False,
        )
    finally:
        os.unlink(job_name)
    if result.returncode != 0 or not out_path.is_file():
        detail = (result.stderr or "").strip().splitlines()[-1:] or [f"exit code {result.returncode}"]
        raise RuntimeError(detail[0])


def _run_training_job(job_path: str) -> None:
    """Child-process entry point of :func:`_train_in_child`."""
    job = json.loads(Path(job_path).read_text(encoding="utf-8"))
    model = SequentialRecommender(job["item_ids"], **job["model_kwargs"])
    model.fit(job["sequences"], **job["fit_kwargs"])
    model.save(job["out"])


def _length_bucketed_batches(
    rng: np.random.Generator, lengths: np.ndarray, batch_size: int
) -> list[np.ndarray]:
    """Shuffled batches of row indices where rows of similar length are grouped (less padding to compute).

    Rows are shuffled, cut into pools of 16 batches, sorted by length inside each pool, split into batches, and
    the batches are shuffled again. Deterministic for a given generator state.
    """
    order = rng.permutation(len(lengths))
    pool = batch_size * 16
    batches: list[np.ndarray] = []
    for first in range(0, len(order), pool):
        members = order[first : first + pool]
        members = members[np.argsort(lengths[members], kind="stable")]
        batches.extend(members[start : start + batch_size] for start in range(0, len(members), batch_size))
    return [batches[i] for i in rng.permutation(len(batches))]


def _as_id_lists(histories: Any) -> list[Any]:
    if histories is None or isinstance(histories, str | bytes | dict):
        return []
    try:
        return list(histories)
    except TypeError:
        return []


def _default_config() -> dict[str, Any]:
    return {
        "max_len": 30,
        "hidden": 64,
        "layers": 2,
        "heads": 2,
        "dropout": 0.2,
        "seed": 0,
        "loss": "ce",
        "num_negatives": 1024,
        "weight_decay": 0.0,
        "threads": 1,
    }


def _default_fit() -> dict[str, Any]:
    return {"epochs": 30, "batch_size": 128, "lr": 1e-3}


def _split_kwargs(kwargs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Separate constructor hyperparameters from fit arguments; unknown names raise TypeError."""
    model_kwargs: dict[str, Any] = {}
    fit_kwargs: dict[str, Any] = {}
    model_names = set(_default_config())
    for name, value in kwargs.items():
        if name in model_names:
            model_kwargs[name] = value
        elif name in _FIT_KEYS or name == "progress":
            fit_kwargs[name] = value
        else:
            raise TypeError(f"unknown SequentialRecommender argument {name!r}")
    return model_kwargs, fit_kwargs


# ---------------------------------------------------------------------------------------------------- metrics


def _ranked_lists(model: Recommender, histories: list[Sequence[str]], k: int) -> list[list[str]]:
    batched = getattr(model, "recommend_many", None)
    if callable(batched):
        ranked: list[list[str]] = []
        for first in range(0, len(histories), 256):
            ranked.extend(batched(histories[first : first + 256], k=k))
        return ranked
    return [model.recommend(history, k=k) for history in histories]


def hit_rate_at_k(model: Recommender, test_cases: Sequence[tuple[Sequence[str], str]], k: int = 10) -> float:
    """Share of cases whose held-out next item is in the model's top k (0.0 for no cases)."""
    cases = list(test_cases)
    if not cases:
        return 0.0
    ranked = _ranked_lists(model, [history for history, _ in cases], k)
    hits = sum(1 for (_, target), top in zip(cases, ranked, strict=True) if target in top[:k])
    return hits / len(cases)


def ndcg_at_k(model: Recommender, test_cases: Sequence[tuple[Sequence[str], str]], k: int = 10) -> float:
    """Mean NDCG@k with one relevant item per case: ``1 / log2(rank + 1)`` if it is ranked within k, else 0."""
    cases = list(test_cases)
    if not cases:
        return 0.0
    ranked = _ranked_lists(model, [history for history, _ in cases], k)
    total = 0.0
    for (_, target), top in zip(cases, ranked, strict=True):
        if target in top[:k]:
            total += 1.0 / math.log2(top.index(target) + 2)
    return total / len(cases)
