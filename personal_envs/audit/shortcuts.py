"""``personal-envs audit shortcuts``: do degenerate policies or short action programs beat the honest baselines?

For one id, :func:`audit_shortcuts` runs, on the same tasks and seeds (``budget`` tasks spread over the id's task
list), with the eval runner's :func:`~personal_envs.runner.run_episode`:

* the oracle and the honest non-oracle baselines the benchmark names in its :class:`~personal_envs.audit.spec.
  AuditSpec` (registered policies, made as ``personal-envs eval`` makes them);
* the fixed degenerate family (:data:`~personal_envs.audit.programs.DEGENERATE`: finish at once, no-op until the step
  limit, always ask, ask something irrelevant then finish, always act, repeat the first action, random) and the
  benchmark's own degenerate policies (submit every URL seen, search with the instruction verbatim, close every
  banner without reading);
* a beam search over action programs of length <= ``max_length`` (each step the ``rank``-th candidate of a family
  the observation offers; the episode is then finished): every one-step program, then the ``beam`` best extended
  by one step, up to ``max_programs`` programs.

A degenerate or searched program whose mean score is above the best honest baseline's is flagged, unless the
benchmark documents it (:attr:`AuditSpec.documented`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym

from personal_envs.audit.programs import CandidateSource, Choice, Script, degenerate_policies
from personal_envs.audit.report import AuditReport, Row, judge
from personal_envs.audit.spec import AuditSpec
from personal_envs.core.errors import InputError
from personal_envs.core.registration import entry_for, load_object
from personal_envs.policies.base import Policy
from personal_envs.runner import make_policy, run_episode
from personal_envs.wrappers.candidates import default_candidates

#: Default settings of the command.
DEFAULT_BUDGET = 8
DEFAULT_BEAM = 2
DEFAULT_MAX_PROGRAMS = 40
MAX_LENGTH = 3
#: Candidates of one family a search step may choose among (the first ``RANKS`` the observation offers).
RANKS = 2


def audit_spec(env_id: str, env_kwargs: Mapping[str, Any] | None = None) -> AuditSpec:
    """The :class:`AuditSpec` the id's registration names, for these env arguments (``KeyError`` with what to do
    if it names none)."""
    entry = entry_for(env_id)
    if not entry.audit:
        raise KeyError(f"{env_id} registers no audit spec (EnvEntry.audit); its benchmark must name one")
    spec: AuditSpec = load_object(entry.audit)(env_id, dict(env_kwargs or {}))
    return spec


def example(played: Sequence[str], limit: int = 60) -> str:
    """The first actions of an episode, each cut to ``limit`` characters, repeats folded (``wait() x4``)."""
    folded: list[list[Any]] = []
    for label in played:
        short = label if len(label) <= limit else label[: limit - 1] + "\u2026"
        if folded and folded[-1][0] == short:
            folded[-1][1] += 1
        else:
            folded.append([short, 1])
    return " > ".join(f"{label} x{count}" if count > 1 else str(label) for label, count in folded)


def spread(num_tasks: int, budget: int) -> list[int]:
    """``budget`` task indices spread evenly over ``num_tasks`` (all of them when the budget covers them)."""
    if budget >= num_tasks:
        return list(range(num_tasks))
    return sorted({(i * num_tasks) // budget for i in range(budget)})


class _Evaluator:
    """Runs a policy on the audited tasks and turns the records into a :class:`Row`."""

    def __init__(self, env: gym.Env[Any, Any], env_id: str, tasks: Sequence[int], seed: int) -> None:
        self.env = env
        self.env_id = env_id
        self.tasks = list(tasks)
        self.seed = seed
        self.max_env_steps = int(getattr(env.unwrapped, "max_steps", 100)) + 5
        self.task_set = ""

    def __call__(self, policy: Policy, name: str, kind: str) -> Row:
        row = Row(name, kind)
        for index in self.tasks:
            record = run_episode(self.env, policy, env_id=self.env_id, policy_name=name, episode=index,
                                 seed=self.seed + index, max_env_steps=self.max_env_steps)
            if record["error"]:
                row.errors.append(f"task {index}: {str(record['error']).splitlines()[0]}")
            row.scores.append(0.0 if record["error"] else float(record["score"]))
            row.steps.append(int(record["steps"]))
            if not self.task_set:
                self.task_set = str((record.get("task_info") or {}).get("task_set") or "")
            if index == self.tasks[0]:
                row.example = example(getattr(policy, "played", []) or [])
        return row


def _search(evaluate: _Evaluator, spec: AuditSpec, source: CandidateSource, first_observation: dict[str, Any],
            beam: int, max_programs: int, max_length: int) -> list[Row]:
    """Beam search over programs of :class:`Choice` steps (each followed by the env's finishing action).  A program
    whose first episode ended before its last step (a finishing choice) is not extended."""
    families = source.families(first_observation)
    items = [Choice(family, rank) for rank in range(RANKS) for family, count in families.items() if rank < count]
    rows: list[Row] = []
    frontier: list[tuple[Choice, ...]] = [()]
    for _length in range(max_length):
        level: list[tuple[tuple[Choice, ...], Row]] = []
        for prefix in frontier:
            for item in items:
                if len(rows) >= max_programs:
                    break
                program = (*prefix, item)
                name = " > ".join(str(step) for step in program)
                script = Script(name, program, spec.finish, source, tail="finish")
                row = evaluate(script, name, "search")
                rows.append(row)
                if row.steps and row.steps[0] > len(program):  # the episode outlived the program: extendable
                    level.append((program, row))
        level.sort(key=lambda pair: (-pair[1].mean, len(pair[0])))
        frontier = [program for program, _ in level[:beam]]
        if not frontier or len(rows) >= max_programs:
            break
    return rows


def audit_shortcuts(env_id: str, budget: int = DEFAULT_BUDGET, *, beam: int = DEFAULT_BEAM,
                    max_programs: int = DEFAULT_MAX_PROGRAMS, max_length: int = MAX_LENGTH, seed: int = 0,
                    env_kwargs: Mapping[str, Any] | None = None) -> AuditReport:
    """Audit ``env_id`` on ``budget`` tasks (see the module docstring).

    Args:
        env_id: A registered id.
        budget: Tasks each program runs on (spread over the task list).
        beam: Programs extended at each search length.
        max_programs: Most searched programs (0: no search).
        max_length: Longest searched program.
        seed: Base seed (task ``i`` runs with ``seed + i``; also the random policy's).
        env_kwargs: Env arguments on top of the spec's (``data_dir`` for an official release...).
    """
    if budget < 1:
        raise InputError(f"budget must be at least 1, got {budget}")
    spec = audit_spec(env_id, env_kwargs)
    kwargs = {**spec.env_kwargs, **dict(env_kwargs or {})}
    env = gym.make(env_id, **kwargs)
    try:
        base = env.unwrapped
        num_tasks = int(getattr(base, "num_tasks", 1))
        tasks = spread(num_tasks, budget)
        evaluate = _Evaluator(env, env_id, tasks, seed)
        source = CandidateSource(spec.candidates(env) if spec.candidates else default_candidates(env),
                                 spec.extra_candidates)

        def registered(name: str) -> Policy:
            return make_policy(env_id, name, env, seed=seed)

        rows: list[Row] = []
        if spec.oracle:
            rows.append(evaluate(registered(spec.oracle), spec.oracle, "oracle"))
        rows += [evaluate(registered(name), name, "baseline") for name in spec.baselines]
        for name, policy in degenerate_policies(spec, source, env, seed, registered).items():
            rows.append(evaluate(policy, name, "degenerate"))
        if max_programs > 0:
            observation, _ = env.reset(seed=seed + tasks[0], options={"task_index": tasks[0]})
            rows += _search(evaluate, spec, source, observation, beam, max_programs, max_length)
        threshold, source_name = judge(rows, spec.baselines, spec.documented)
        return AuditReport(env_id, evaluate.task_set or "default data", tasks, num_tasks, rows, tuple(spec.baselines),
                           threshold, source_name, dict(env_kwargs or {}))
    finally:
        env.close()
