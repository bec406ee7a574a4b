"""Real backends started with the Docker SDK: one small layer (:mod:`.deployment`) and the definitions of what it
starts (:mod:`.webmall` for the official WebMall shops).  ``personal-envs backend up|down|status NAME``."""

from personal_envs.backends.deployment import Deployment, deployment_status, remove_deployment
from personal_envs.backends.engine import BackendError, EngineUnavailable, connect
from personal_envs.backends.spec import BackendSpec, ContainerSpec, HealthCheck, VolumeRestore

__all__ = [
    "BackendError",
    "BackendSpec",
    "ContainerSpec",
    "Deployment",
    "EngineUnavailable",
    "HealthCheck",
    "VolumeRestore",
    "connect",
    "deployment_status",
    "remove_deployment",
]
