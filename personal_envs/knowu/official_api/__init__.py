"""KnowU-Bench's official phone-server HTTP API, both ways.

* :mod:`.server`: ``personal-envs knowu serve`` exposes the simulated phone through the official API, so the
  official client and runner (and agents written for them) drive the embedded phone;
* :mod:`.remote_env`: ``backend="official"`` drives any server speaking that API (the official Android image, or
  our own server) with the same observation keys and actions as the simulator.

:mod:`.protocol` holds what both sides agree on: the routes, the action JSON, the task tags.
"""
