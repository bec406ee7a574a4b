"""Trajectories of eval runs, the viewer page that shows them, and the plots of a run's results.

* :mod:`.recorder` writes one directory per episode (``trajectory.json`` plus deduplicated screenshots) from the
  eval runner's step loop, atomically, next to the results file;
* :mod:`.store` finds and reads runs and their trajectories;
* :mod:`.viewer` renders the run page, the episode pages and the side-by-side comparison (served on loopback by
  ``personal-envs view RUN``, exported to static HTML with ``--export DIR``, inline in Jupyter with
  :func:`show_episode`);
* :mod:`.plots` draws the per-category bars and success-against-steps charts of ``personal-envs plot``.
"""

from personal_envs.trajectories.recorder import EpisodeWriter, TrajectoryRecorder, trajectory_root
from personal_envs.trajectories.store import Run, load_runs, load_trajectory
from personal_envs.trajectories.viewer import show_episode

__all__ = ["EpisodeWriter", "Run", "TrajectoryRecorder", "load_runs", "load_trajectory", "show_episode",
           "trajectory_root"]
