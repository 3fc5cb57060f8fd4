"""The verifiers taskset package ``bareme-tools``: a task set in the seed's
tool mode, its record behind task-owned tools, with its bundled harness (see
``bareme.tools_vf``). verifiers imports a taskset by its id and takes the
one ``Taskset`` (and the one ``Harness``, its default harness) this module
exports: ``vf eval bareme-tools --env.taskset.system luma-payroll``."""

from bareme.tools_vf import (
    ToolHarness,
    ToolHarnessConfig,
    ToolTaskset,
    ToolTasksetConfig,
    load_environment,
)

__all__ = [
    "ToolHarness",
    "ToolHarnessConfig",
    "ToolTaskset",
    "ToolTasksetConfig",
    "load_environment",
]
