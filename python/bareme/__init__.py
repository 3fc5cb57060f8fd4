"""bareme for Python: versioned rulebooks, exact evaluation, task generators and rubrics.

The engine is the Rust library (the extension ``bareme._bareme``); every
answer, task and score is the JSON the ``bareme`` command prints, read with
``json.loads`` (a number with a fraction as ``decimal.Decimal``: money is
never a float). The ``*_json`` methods give that text itself.

>>> import bareme
>>> rb = bareme.Rulebook.load(bareme.rulebook_path("luma-payroll/v3"))
>>> rb.evaluate({"task": "payslip", "gross_pay": "2500.00", "payroll_month": "2026-03"})["net_pay"]
'2237.50'

The tools of a tool environment (``bareme.tools_vf``) are the engine's
too: ``calculate`` (an expression on decimals, exactly), ``table_rows`` (a
table's rows in force for a case) and ``case_part`` (part of a record).

Errors: ``RulebookError`` (``.diagnostics``), ``CaseRejected`` (``.path``,
``.message``) and ``RulebookFault``, all ``BaremeError``. The GIL is
released while the engine works.
"""

from __future__ import annotations

import json as _json
import os as _os
from pathlib import Path as _Path

from ._bareme import (
    BaremeError,
    CaseRejected,
    Generator,
    Repair,
    RepairSession,
    Rubric,
    Rulebook,
    RulebookError,
    RulebookFault,
)
from ._bareme import _diff_json, _source_rulebooks, calculate, case_part, table_rows

__all__ = [
    "BaremeError",
    "CaseRejected",
    "Generator",
    "Repair",
    "RepairSession",
    "Rubric",
    "Rulebook",
    "RulebookError",
    "RulebookFault",
    "calculate",
    "case_part",
    "diff",
    "rulebooks_dir",
    "rulebook_path",
    "table_rows",
]


def diff(old_path: str | _os.PathLike, new_path: str | _os.PathLike) -> dict:
    """Two rulebook versions compared, as ``bareme diff OLD NEW --format json``
    prints the report (the structural diff, and the verdict on the
    generators and rubrics beside OLD). Raises ``RulebookError``."""
    return _json.loads(_diff_json(_os.fspath(old_path), _os.fspath(new_path)))


def rulebooks_dir() -> _Path:
    """The folder of the bundled rulebook sets: ``$BAREME_RULEBOOKS`` if set,
    else ``bareme/rulebooks`` beside this file if a packager put a copy
    there, else the ``rulebooks/`` of the repository checkout the module was
    built from (``pip install ./python`` records it: keep the checkout, or
    set ``$BAREME_RULEBOOKS``)."""
    env = _os.environ.get("BAREME_RULEBOOKS")
    if env:
        return _Path(env)
    beside = _Path(__file__).resolve().parent / "rulebooks"
    if beside.is_dir():
        return beside
    return _Path(_source_rulebooks()).resolve()


def rulebook_path(relative: str) -> _Path:
    """A path under ``rulebooks_dir()``: ``rulebook_path("luma-payroll/v3")``."""
    return rulebooks_dir() / relative
