"""The verifiers taskset package ``bareme-envs``: bareme's four bundled task
sets (see ``bareme.envs``). verifiers imports a taskset by its id and takes
the one ``Taskset`` subclass this module exports."""

from bareme.envs import BaremeTaskset, BaremeTasksetConfig, load_environment

__all__ = ["BaremeTaskset", "BaremeTasksetConfig", "load_environment"]
