"""Type stubs of bareme: rulebooks, exact evaluation, task generators and rubrics.

Answers, tasks and reports are the JSON the ``bareme`` command prints, read
by ``json.loads`` (numbers with a fraction as ``decimal.Decimal``); each
``*_json`` method gives that text byte for byte.
"""

import os
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence, TypedDict

_Path = str | os.PathLike[str]
_Case = Mapping[str, Any] | str | bytes
"""A case: a dict (no float anywhere: money is never a float; amounts as
strings or ``Decimal``), or its JSON text (numbers kept as written)."""

class Diagnostic(TypedDict):
    code: str
    """Stable code, e.g. ``check::unknown_name`` or ``load::io``."""
    message: str
    file: str
    line: int | None
    """1-based, None for a problem without a place (an unreadable file)."""
    column: int | None

class BaremeError(Exception):
    """The base of bareme's errors."""

class RulebookError(BaremeError):
    """A rulebook, generator or rubric that cannot be read or has problems."""

    diagnostics: list[Diagnostic]
    """Every problem found, in order."""

class CaseRejected(BaremeError):
    """A case the rulebook refuses (``bareme eval`` exits 2)."""

    path: str
    """The field, dotted with ``[i]`` for list items; ``$`` is the case itself."""
    message: str
    """Why, citing the rule."""

class RulebookFault(BaremeError):
    """The rulebook failed on a valid case (``bareme eval`` exits 4), or its
    trace passed its bounds (2,000,000 records, 192 MiB of JSON)."""

class Rulebook:
    """A checked rulebook version."""

    @staticmethod
    def load(path: _Path) -> Rulebook:
        """Loads and checks a rulebook (a version folder or its ``rulebook.toml``).

        Raises ``RulebookError`` with its diagnostics."""
    @property
    def id(self) -> str:
        """``"luma-payroll"``."""
    @property
    def version(self) -> str:
        """``"3"``."""
    @property
    def hash(self) -> str:
        """SHA-256 hex of the rulebook's text, as tasks record it."""
    def check(self) -> list[Diagnostic]:
        """The warnings of ``bareme check``."""
    def case_schema(self) -> dict[str, Any]:
        """The JSON Schema (draft 2020-12) of a case, as ``bareme schema --case``."""
    def evaluate(
        self, case: _Case, trace: bool = False, ablate: Sequence[str] | None = None
    ) -> dict[str, Any]:
        """The answer, as ``bareme eval`` prints it (``trace=True``: ``{"answer", "trace"}``
        as ``--trace json``), under the named ablations if any.

        Raises ``CaseRejected`` (also for a float in the case), ``RulebookFault``,
        and ``ValueError`` for an unknown ablation."""
    def evaluate_json(
        self, case: _Case, trace: bool = False, ablate: Sequence[str] | None = None
    ) -> str:
        """As ``evaluate``, the line ``bareme eval`` prints, without its newline."""
    def evaluate_batch(
        self,
        cases: Iterable[_Case],
        jobs: int | None = None,
        trace: bool = False,
        ablate: Sequence[str] | None = None,
    ) -> list[dict[str, Any]]:
        """One item per case, as ``eval --batch``: the answer or
        ``{"error": {"path", "message"}}``; on ``jobs`` threads (1 to 256; None: every core).
        Python's cyclic garbage collector is paused during the call (the
        answers hold no cycles) and left as it was found."""
    def evaluate_batch_json(
        self,
        cases: Iterable[_Case],
        jobs: int | None = None,
        trace: bool = False,
        ablate: Sequence[str] | None = None,
    ) -> list[str]:
        """As ``evaluate_batch``, the lines ``eval --batch`` writes."""

class Generator:
    """A task generator, checked against the rulebook version it names."""

    @staticmethod
    def load(
        path: _Path, rulebook: _Path | None = None, options: Mapping[str, bool] | None = None
    ) -> Generator:
        """Loads a ``generator-<n>.toml``; raises ``RulebookError``. ``options``
        sets prompt switches the generator declares, as ``bareme generate
        --option`` does (``{"documents": True}``); an undeclared one is a
        ``ValueError``."""
    @property
    def name(self) -> str:
        """``"luma-payroll/generator-4"``."""
    @property
    def options(self) -> dict[str, bool]:
        """Every prompt switch the generator declares, with its value."""
    @property
    def rulebook(self) -> Rulebook:
        """The rulebook it draws from."""
    def generate(
        self,
        n: int,
        seed: int,
        start: int = 0,
        level: int | None = None,
        jobs: int | None = None,
        exclude: Sequence[Sequence[str]] | None = None,
    ) -> list[dict[str, Any]]:
        """Tasks ``start..start+n`` of ``seed``, as ``bareme generate`` writes them
        (a duplicate of an earlier index drawn again). ``exclude``: other sets'
        task lines, whose cases are drawn again as ``generate --exclude`` does
        (still exactly ``n`` tasks)."""
    def generate_json(
        self,
        n: int,
        seed: int,
        start: int = 0,
        level: int | None = None,
        jobs: int | None = None,
        exclude: Sequence[Sequence[str]] | None = None,
    ) -> list[str]:
        """As ``generate``, the task lines themselves."""

class Rubric:
    """A rubric, checked against the rulebook version it names."""

    @staticmethod
    def load(
        path: _Path, rulebook: _Path | None = None, all_or_nothing: bool = False
    ) -> Rubric:
        """Loads a ``rubric-<n>.toml``; raises ``RulebookError``."""
    @property
    def name(self) -> str:
        """``"luma-payroll/rubric-8"``."""
    @property
    def rulebook_hash(self) -> str:
        """SHA-256 (hex) of the rulebook the rubric was checked against."""
    def score(
        self,
        task: Mapping[str, Any] | str,
        reply: str,
        explanation_grade: float | Decimal | str | None = None,
    ) -> dict[str, Any]:
        """The line ``bareme score`` writes for this reply: ``{"id", "score",
        "max", …, "components": […]}``, ``score`` and ``max`` floats.

        Raises ``ValueError`` for a task of another rulebook version, one
        whose ``expected`` is not what the rulebook gives for its case (as
        ``bareme score`` refuses it), or a grade outside [0, 1]."""
    def score_json(
        self,
        task: Mapping[str, Any] | str,
        reply: str,
        explanation_grade: float | Decimal | str | None = None,
    ) -> str:
        """As ``score``, the line itself."""
    def reference_reply(self, task: Mapping[str, Any] | str) -> str:
        """The reply that earns the top score: the reference answer in the rubric's envelope."""

def diff(old_path: _Path, new_path: _Path) -> dict[str, Any]:
    """As ``bareme diff OLD NEW --format json``."""

def rulebooks_dir() -> Path:
    """The bundled rulebook sets (``$BAREME_RULEBOOKS`` overrides)."""

def rulebook_path(relative: str) -> Path:
    """``rulebooks_dir() / relative``."""

def calculate(expression: str) -> str:
    """An expression of bareme's grammar on decimals, evaluated exactly:
    ``calculate("round(0.04 * 3450.00, 2)") == "138.00"``. Raises
    ``ValueError`` with the text a model reads."""

def table_rows(rulebook: Rulebook, case: Mapping[str, Any] | str, table: str) -> list[tuple[str, str]]:
    """The rows of ``table`` in force for ``case`` (the case's own, validated,
    or the rulebook's): ``(name, row as JSON text)``. Raises ``ValueError``."""

def case_part(case: Mapping[str, Any] | str, keys: Sequence[str]) -> str | None:
    """The case's ``keys`` (those present, in its order) as indented JSON
    text, numbers as written; None when it holds none of them."""

class Repair:
    """A repair task: its hidden cases drawn once, shared by its sessions."""

    @staticmethod
    def load(path: str | os.PathLike[str]) -> Repair: ...
    @property
    def prompt(self) -> str: ...
    def session(self) -> RepairSession: ...
    def verify(self, text: str) -> dict[str, Any]: ...

class RepairSession:
    """One agent's session: the stored candidate and the four tools."""

    def inspect_business(self, section: str) -> str: ...
    def read_rulebook(self) -> str: ...
    def replace_rulebook(self, text: str) -> str: ...
    def calculate_cart(self, cart_id: str) -> str: ...
    def verify(self) -> dict[str, Any]: ...
