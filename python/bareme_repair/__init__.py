"""The verifiers taskset package ``bareme-repair``: a repair task (issue 28)
with its task-owned tools and bundled harness (see ``bareme.repair_vf``).
verifiers imports a taskset by its id and takes the one ``Taskset`` (and the
one ``Harness``, its default harness) this module exports:
``vf eval bareme-repair --env.taskset.repair paie-fr-repair``."""

from bareme.repair_vf import (
    RepairHarness,
    RepairHarnessConfig,
    RepairTaskset,
    RepairTasksetConfig,
    load_environment,
)

__all__ = [
    "RepairHarness",
    "RepairHarnessConfig",
    "RepairTaskset",
    "RepairTasksetConfig",
    "load_environment",
]
