#!/usr/bin/env python3
"""An independent Python reading of the four seed rubrics, compared with
`bareme score` on thousands of perturbed and malformed replies.

Each scorer below is written from the specs ("Rubric" sections and precise
readings of ../../../shared/specs/*.md), not from the rubric files: Luma
rubric 8, paie-fr rubric 1, succession-fr rubric 1, sales-tax rubric 1.
Replies are drawn from generated tasks (and, for sales-tax, from the
conformance cases): the reference answer, then damaged — fields changed,
keys added, dropped or duplicated, amounts written as French strings or
exponent forms or with three decimals, NaN, huge numbers, lists, null,
fences, tags doubled or missing, BOMs, padding past the size limit. Every
reply's score must agree to 1e-9, and so must whether it is malformed.

Stdlib only; run from the repository root:
    python3 tests/differential/rubrics.py --bareme target/debug/bareme --n 3000 --seed 1
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import subprocess
import sys
import tempfile
import tomllib
from decimal import MAX_EMAX, MIN_EMIN, Decimal, getcontext
from pathlib import Path

getcontext().prec = 80
getcontext().Emax = MAX_EMAX
getcontext().Emin = MIN_EMIN


class Bad(Exception):
    """A malformed reply."""


class Num(str):
    """A JSON number as written."""


# ---------------------------------------------------------------- strict JSON


def strict_json(text: str):
    def pairs(ps):
        d = {}
        for k, v in ps:
            if k in d:
                raise Bad("duplicate key")
            d[k] = v
        return d

    def const(name):
        raise Bad("constant " + name)

    try:
        v = json.loads(text, object_pairs_hook=pairs, parse_constant=const,
                       parse_int=Num, parse_float=Num)
    except Bad:
        raise
    except (ValueError, RecursionError):
        raise Bad("invalid JSON")

    def walk(x, depth):
        if isinstance(x, (dict, list)):
            depth += 1
            if depth > 32:
                raise Bad("too deep")
            items = x.items() if isinstance(x, dict) else enumerate(x)
            for k, y in items:
                if isinstance(k, str):
                    surrogates(k)
                walk(y, depth)
        elif isinstance(x, str) and not isinstance(x, Num):
            surrogates(x)

    def surrogates(s):
        if any(0xD800 <= ord(c) <= 0xDFFF for c in s):
            raise Bad("lone surrogate")

    walk(v, 0)
    return v


def jaccard(a, b) -> Decimal:
    a, b = set(a), set(b)
    if not a | b:
        return Decimal(1)
    return Decimal(len(a & b)) / Decimal(len(a | b))


def plain(s) -> Decimal | None:
    if isinstance(s, str) and re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", s):
        return Decimal(s)
    return None


def is_json_str(x):
    return isinstance(x, str) and not isinstance(x, Num)


# ---------------------------------------------------------------- Luma rubric 8

LUMA_FIELDS = {
    "calculate": ["decision", "currency", "gross_pay", "employee_contribution", "allowed_deduction",
                  "taxable_pay", "income_tax", "net_pay", "clauses"],
    "clarify": ["decision", "reason_code", "clauses"],
    "retrieve": ["decision", "field", "value", "clauses"],
}
LUMA_MONEY = ["gross_pay", "employee_contribution", "allowed_deduction", "taxable_pay", "income_tax", "net_pay"]
LUMA_DERIVED = ["employee_contribution", "taxable_pay", "income_tax", "net_pay"]


def luma8(expected, reply: str, grade):
    """(score, malformed)."""
    try:
        if len(reply) > 16000:
            raise Bad("too long")
        v = strict_json(reply)
        if not isinstance(v, dict):
            raise Bad("not an object")
        d = v.get("decision")
        if not is_json_str(d) or d not in LUMA_FIELDS:
            raise Bad("decision")
        keys = set(LUMA_FIELDS[d])
        if not keys <= set(v) or not set(v) <= keys | {"explanation"}:
            raise Bad("keys")
        if "explanation" in v and not is_json_str(v["explanation"]):
            raise Bad("explanation")
        if d == "calculate":
            for k in LUMA_MONEY:
                if not is_json_str(v[k]) or not re.fullmatch(r"[0-9]+\.[0-9]{2}", v[k]):
                    raise Bad("money")
        c = v["clauses"]
        if not isinstance(c, list) or not all(is_json_str(x) and re.fullmatch(r"R[1-9]", x) for x in c) \
                or len(set(c)) != len(c):
            raise Bad("clauses")
    except Bad:
        return Decimal("-0.5"), True
    if d != expected["decision"]:
        return Decimal("-0.5"), False
    j = jaccard(v["clauses"], expected["clauses"])
    accepted = 0.95 + 0 * 0  # placeholder, replaced below
    accepted = Decimal("0.95") + Decimal("0.05") * j
    if d == "calculate":
        def right(k):
            if k == "currency":
                return is_json_str(v[k]) and v[k] == expected[k]
            return Decimal(v[k]) == Decimal(expected[k])
        if all(right(k) for k in LUMA_FIELDS[d] if k not in ("decision", "clauses")):
            return accepted, False
        acc = Decimal(sum(right(k) for k in LUMA_DERIVED)) / 4
        return min(Decimal("-0.5") + Decimal("0.2") * acc, Decimal("-0.3")), False
    if d == "clarify":
        if not (is_json_str(v["reason_code"]) and v["reason_code"] == expected["reason_code"]):
            return Decimal("-0.5"), False
        # The explanation rule (spec, rubric 8): an empty or missing
        # explanation scores 0, whatever grade is given; a non-empty one
        # without a grade is the deterministic part alone (ungraded).
        if str(v.get("explanation", "")).strip() == "":
            return Decimal("0.9") * accepted, False
        if grade is not None:
            return Decimal("0.9") * accepted + Decimal("0.1") * grade, False
        return accepted, False
    ok = is_json_str(v["field"]) and v["field"] == expected["field"] \
        and plain(v["value"]) is not None and plain(v["value"]) == Decimal(expected["value"])
    return (accepted if ok else Decimal("-0.5")), False


# ---------------------------------------------------------------- French amounts

SPACE = " \u00a0\u202f"
PAD = " \t\r\n\u00a0\u202f"


def french(s: str, padding: bool) -> Decimal:
    core = rf"-?(?:[0-9]{{1,3}}(?:[{SPACE}][0-9]{{3}})+|[0-9]+)(?:[.,][0-9]{{1,2}})?(?:[{SPACE}]?€)?"
    if padding:
        s = s.strip(PAD)
    if not re.fullmatch(core, s):
        raise Bad("amount string")
    t = s.replace("€", "").replace(",", ".")
    for c in SPACE:
        t = t.replace(c, "")
    return Decimal(t)


def json_amount(n: Num, max_exp_digits: int | None, max_int_digits: int | None) -> Decimal:
    m = re.fullmatch(r"-?([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?)([0-9]+))?", n)
    if m is None:
        raise Bad("number")
    int_part, frac, _, exp = m.groups()
    if exp is None:
        if frac is not None and len(frac) > 2:
            raise Bad("three decimals as written")
        if frac is None and max_int_digits is not None and len(int_part) > max_int_digits:
            raise Bad("long integer")
        return Decimal(n)
    if max_exp_digits is not None and len(exp.lstrip("0")) > max_exp_digits:
        raise Bad("long exponent")
    value = Decimal(n)
    if value != 0 and value.normalize().as_tuple().exponent < -2:
        raise Bad("decimals by value")
    return value


def amount(x, padding, max_exp_digits, max_int_digits) -> Decimal:
    if isinstance(x, Num):
        value = json_amount(x, max_exp_digits, max_int_digits)
    elif isinstance(x, str):
        value = french(x, padding)
    else:
        raise Bad("not an amount")
    if abs(value) > Decimal(10) ** 9:
        raise Bad("too large")
    return value


# ---------------------------------------------------------------- paie-fr rubric 1

PAIE_KEYS = ["brut", "total_cotisations_salariales", "net_imposable", "prelevement_source",
             "net_a_payer", "cout_employeur"]


def paie1(expected, reply: str, grade):
    try:
        opens = [m.start() for m in re.finditer("<bulletin>", reply, re.I | re.A)]
        closes = [m.start() for m in re.finditer("</bulletin>", reply, re.I | re.A)]
        if len(opens) != 1 or len(closes) != 1 or closes[0] < opens[0] + len("<bulletin>"):
            raise Bad("tag")
        body = reply[opens[0] + len("<bulletin>"):closes[0]]
        t = body.strip(" \t\r\n")
        if t.startswith("```"):
            rest = t[3:]
            if not rest.endswith("```"):
                raise Bad("fence")
            inner = rest[:-3]
            nl = inner.find("\n")
            nl = len(inner) if nl < 0 else nl
            if inner[:nl].strip(" \t\r\n").lower() not in ("", "json"):
                raise Bad("fence language")
            body = inner[nl:]
        if body.startswith("\ufeff"):
            raise Bad("bom")
        v = strict_json(body)
        if not isinstance(v, dict) or set(v) != set(PAIE_KEYS):
            raise Bad("keys")
        got = {k: amount(v[k], True, 6, None) for k in PAIE_KEYS}
    except Bad:
        return Decimal(0), True
    right = {k: got[k] == Decimal(expected[k]) for k in PAIE_KEYS}
    if all(right.values()):
        return Decimal(1), False
    if not right["brut"]:
        return Decimal(0), False
    s = (Decimal("0.35") * right["net_a_payer"] + Decimal("0.25") * right["cout_employeur"]
         + Decimal("0.15") * right["total_cotisations_salariales"] + Decimal("0.15") * right["net_imposable"]
         + Decimal("0.10") * (right["prelevement_source"] and right["net_imposable"]))
    return Decimal("0.5") * s, False


# ---------------------------------------------------------------- succession-fr rubric 1


def succession1(expected, reply: str, grade):
    try:
        if len(reply) > 200000:
            raise Bad("too long")
        opens = [m.start() for m in re.finditer("<droits>", reply)]
        if len(opens) != 1:
            raise Bad("tag")
        start = opens[0] + len("<droits>")
        end = reply.find("</droits>", start)
        if end < 0:
            raise Bad("unclosed")
        body = reply[start:end]
        if body.strip(" \t\r\n").startswith("```"):
            raise Bad("fence")
        if body.startswith("\ufeff"):
            raise Bad("bom")
        v = strict_json(body)
        if not isinstance(v, dict) or set(v) != {"beneficiaires", "total_droits"}:
            raise Bad("keys")
        b = v["beneficiaires"]
        if not isinstance(b, dict) or set(b) != set(expected["beneficiaires"]):
            raise Bad("ids")
        got = {}
        for i in b:
            if not isinstance(b[i], dict) or set(b[i]) != {"part_taxable", "droits"}:
                raise Bad("keys")
            for k in ("part_taxable", "droits"):
                got[(i, k)] = amount(b[i][k], False, None, 12)
        total = amount(v["total_droits"], False, None, 12)
    except Bad:
        return Decimal(0), True
    fields = [((i, k), Decimal(expected["beneficiaires"][i][k]), w)
              for i in expected["beneficiaires"] for k, w in (("part_taxable", Decimal("0.4")), ("droits", Decimal("0.6")))]
    etotal = Decimal(expected["total_droits"])
    if all(got[key] == e for key, e, _ in fields) and total == etotal:
        return Decimal(1), False
    if any(e == 0 and got[key] != 0 for key, e, _ in fields) or (etotal == 0 and total != 0):
        return Decimal(0), False
    num = sum((w for key, e, w in fields if e != 0 and got[key] == e), Decimal(0))
    den = sum((w for key, e, w in fields if e != 0), Decimal(0))
    return (Decimal("0.45") * num / den if den else Decimal(0)), False


# ---------------------------------------------------------------- sales-tax rubric 1

MONEY = re.compile(r"-?[0-9]+\.[0-9]{2}")


def sales1(expected, reply: str, grade):
    try:
        v = strict_json(reply)
        if not isinstance(v, dict) or set(v) != {"cart_id", "lines", "subtotal", "tax", "total"}:
            raise Bad("keys")
        if not is_json_str(v["cart_id"]) or not isinstance(v["lines"], list):
            raise Bad("types")
        for line in v["lines"]:
            if not isinstance(line, dict) or set(line) != {"id", "jurisdiction", "net", "tax", "total"}:
                raise Bad("line keys")
            if not is_json_str(line["id"]) or not is_json_str(line["jurisdiction"]):
                raise Bad("types")
            for k in ("net", "tax", "total"):
                if not is_json_str(line[k]) or not MONEY.fullmatch(line[k]):
                    raise Bad("money")
        for k in ("subtotal", "tax", "total"):
            if not is_json_str(v[k]) or not MONEY.fullmatch(v[k]):
                raise Bad("money")
    except Bad:
        return Decimal(0), True
    el, gl = expected["lines"], v["lines"]
    money = [(g[k], e[k]) for g, e in zip(gl, el) for k in ("net", "tax", "total")]
    money += [(v[k], expected[k]) for k in ("subtotal", "tax", "total")]
    n_money = 3 * len(el) + 3
    same_ids = [line["id"] for line in gl] == [line["id"] for line in el]
    all_right = same_ids and v["cart_id"] == expected["cart_id"] \
        and all(g["jurisdiction"] == e["jurisdiction"] for g, e in zip(gl, el)) \
        and all(Decimal(a) == Decimal(b) for a, b in money)
    if all_right:
        return Decimal(1), False
    if not same_ids:
        return Decimal(0), False
    right = sum(Decimal(a) == Decimal(b) for a, b in money)
    return Decimal("0.45") * Decimal(right) / Decimal(n_money), False


# ---------------------------------------------------------------- replies


def fmt_amount(rng, value: str, family: str) -> str:
    """An amount written as a solver might: JSON text of one value (one in
    twenty-five in a form the rubric refuses)."""
    d = Decimal(value)
    r = rng.random()
    if r >= 0.7 and r < 0.8 and rng.random() < 0.8:
        r = rng.random() * 0.7
    if r < 0.3:
        return json.dumps(value) if family != "succession" else str(d)
    if r < 0.45:
        s = f"{d:,.2f}".replace(",", rng.choice(SPACE)).replace(".", rng.choice(",."))
        if rng.random() < 0.5:
            s += rng.choice(["€", " €", "\u00a0€"])
        return json.dumps(s, ensure_ascii=rng.random() < 0.5)
    if r < 0.6:
        digits = str(int(d * 100))
        return f"{digits}e-2" if rng.random() < 0.5 else f"{digits}E-2"
    if r < 0.7:
        return str(d.quantize(Decimal("0.01")))
    if r < 0.75:
        return str(d.quantize(Decimal("0.001")))
    if r < 0.8:
        return rng.choice(["NaN", "Infinity", "1e1000000", "0e1234567", "1e999999", "12345678901234",
                           "1000000000", "1000000000.01", "-0", "null", "true", "[]", "{}",
                           '"41,169"', '"EUR 12.00"', '"+5.00"', '"1e3"', '" 12.00 "', '"12.00 + 0"',
                           '"1 000 000 000,00"', '"\\ud800"'])
    if r < 0.9:
        return str(d + Decimal(rng.choice(["0.01", "-0.01", "1", "0.5"])))
    return json.dumps(str(d))


def render(rng, obj, family: str, amount_keys) -> str:
    """JSON text of an answer object, amounts written in drawn styles."""
    if isinstance(obj, dict):
        items = list(obj.items())
        if rng.random() < 0.03 and items:
            items.append(rng.choice(items))
        parts = []
        for k, x in items:
            if k in amount_keys and isinstance(x, (str, int)) and not isinstance(x, bool) and plain(str(x)) is not None:
                parts.append(f"{json.dumps(k)}: {fmt_amount(rng, str(x), family)}")
            else:
                parts.append(f"{json.dumps(k)}: {render(rng, x, family, amount_keys)}")
        sep = rng.choice([", ", ",", ",\n  "])
        return "{" + sep.join(parts) + "}"
    if isinstance(obj, list):
        return "[" + ", ".join(render(rng, x, family, amount_keys) for x in obj) + "]"
    return json.dumps(obj, ensure_ascii=rng.random() < 0.5)


def mutate(rng, exp, family):
    a = json.loads(json.dumps(exp))
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        r = rng.random()
        if family == "luma":
            keys = list(a)
            k = rng.choice(keys)
            if r < 0.35 and k in LUMA_MONEY + ["value"]:
                if plain(a[k]) is not None:
                    a[k] = str(Decimal(a[k]) + Decimal(rng.choice(["0.01", "-0.01", "1"])))
                    if Decimal(a[k]) < 0:
                        a[k] = "0.00"
            elif r < 0.45:
                a["decision"] = rng.choice(["calculate", "clarify", "retrieve", "refuse", 3])
            elif r < 0.55:
                a["clauses"] = rng.choice([[], ["R1"], ["R1", "R7"], ["R7", "R9"], ["R1", "R2", "R3", "R4", "R5", "R6", "R9"],
                                           ["R1", "R1"], ["R10"], "R1", [1]])
            elif r < 0.62:
                a["explanation"] = rng.choice(["Because R7.", None, 3, ""])
            elif r < 0.68:
                a[rng.choice(["score", "passed", "ground_truth"])] = True
            elif r < 0.74:
                a.pop(k, None)
            elif r < 0.8 and "reason_code" in a:
                a["reason_code"] = rng.choice(["MISSING_GROSS_PAY", "MISSING_PAYROLL_MONTH", "NO_APPLICABLE_REFERENCE",
                                               "CONFLICTING_GROSS_PAY", None])
            elif r < 0.86 and "value" in a:
                v = a["value"] if isinstance(a["value"], str) else "0.04"
                a["value"] = rng.choice([v + "0", v.rstrip("0"), 0.04, "4%", v + " "])
            elif r < 0.9 and "field" in a:
                a["field"] = rng.choice(["contribution_rate", "contribution_cap", "deduction_cap", 1])
            elif r < 0.95 and "currency" in a:
                a["currency"] = rng.choice(["EUR", 5, None, "LCR"])
            elif "gross_pay" in a:
                a[rng.choice(LUMA_MONEY)] = rng.choice(["1205.1", "1205", "-1.00", "1,205.12", 1205.12, None])
        elif family == "paie":
            k = rng.choice(PAIE_KEYS)
            if r < 0.6 and plain(a.get(k)) is not None:
                a[k] = str(Decimal(a[k]) + Decimal(rng.choice(["0.01", "-0.01", "10"])))
            elif r < 0.7:
                a.pop(k, None)
            elif r < 0.8:
                a["extra"] = "1"
            else:
                a[k] = rng.choice([None, True, [a.get(k)], {"v": 1}, "3,582.69", "1e3"])
        elif family == "succession":
            ids = list(a["beneficiaires"])
            if not ids:
                continue
            i = rng.choice(ids)
            k = rng.choice(["part_taxable", "droits"])
            if not isinstance(a["beneficiaires"][i], dict):
                continue
            if r < 0.5 and isinstance(a["beneficiaires"][i].get(k), int):
                a["beneficiaires"][i][k] = a["beneficiaires"][i][k] + rng.choice([1, -1, 100])
            elif r < 0.6 and isinstance(a["total_droits"], int):
                a["total_droits"] = a["total_droits"] + 1
            elif r < 0.7:
                a["beneficiaires"].pop(i, None)
            elif r < 0.75:
                a["beneficiaires"]["B99"] = {"part_taxable": 0, "droits": 0}
            elif r < 0.82:
                a["beneficiaires"][i][k] = rng.choice([0, 1])
            elif r < 0.9:
                a["beneficiaires"][i][k] = rng.choice([None, False, [1], "41,169", "12345.678"])
            else:
                a["beneficiaires"][i]["extra"] = 1
        else:  # sales
            if r < 0.4 and a["lines"]:
                line = rng.choice(a["lines"])
                kk = rng.choice(["net", "tax", "total"])
                if plain(line.get(kk)) is not None:
                    line[kk] = f'{Decimal(line[kk]) + Decimal(rng.choice(["0.01", "-0.01"])):.2f}'
            elif r < 0.5:
                kk = rng.choice(["subtotal", "tax", "total"])
                if plain(a.get(kk)) is not None:
                    a[kk] = f"{Decimal(a[kk]) + Decimal('0.01'):.2f}"
            elif r < 0.58 and a["lines"]:
                rng.choice(a["lines"])["jurisdiction"] = "STATE_X"
            elif r < 0.65 and len(a["lines"]) > 1:
                i, j = rng.sample(range(len(a["lines"])), 2)
                a["lines"][i], a["lines"][j] = a["lines"][j], a["lines"][i]
            elif r < 0.7 and a["lines"]:
                a["lines"].pop()
            elif r < 0.75:
                a["cart_id"] = rng.choice(["X", 1, None])
            elif r < 0.85 and a["lines"]:
                rng.choice(a["lines"])[rng.choice(["net", "tax", "total"])] = rng.choice(["1.5", "1", 1.5, "1.500", None, "-0.00"])
            elif r < 0.9 and a["lines"]:
                rng.choice(a["lines"])["id"] = "L999"
            else:
                a["lines"].append(dict(a["lines"][0]) if a["lines"] else {"id": "L1"})
    return a


def wrap(rng, body: str, family: str) -> str:
    r = rng.random()
    if family == "paie":
        if r < 0.05:
            return body
        fenced = f"```{rng.choice(['json', 'JSON', '', 'python'])}\n{body}\n```" if rng.random() < 0.3 else body
        tag = rng.choice(["bulletin", "BULLETIN", "Bulletin"])
        text = f"Voici le bulletin.\n<{tag}>\n{fenced}\n</{tag}>\nFin."
        if rng.random() < 0.04:
            text += "<bulletin>"
        if rng.random() < 0.04:
            text = "</bulletin>" + text
        return text
    if family == "succession":
        if r < 0.05:
            return body
        inner = f"```json\n{body}\n```" if rng.random() < 0.05 else body
        tag = "droits" if rng.random() < 0.95 else "DROITS"
        text = f"Calcul.\n<{tag}>\n{inner}\n</{tag}>"
        if rng.random() < 0.1:
            text = "</droits> " + text + " </droits>"
        if rng.random() < 0.03:
            text += "<droits>"
        if rng.random() < 0.02:
            text += " " * 200001
        return text
    # bare JSON
    if r < 0.04:
        return f"```json\n{body}\n```"
    if r < 0.07:
        return "Answer: " + body
    if r < 0.09:
        return "\ufeff" + body
    if r < 0.12:
        return rng.choice([" ", "\n", "\t", "\r\n"]) + body + rng.choice([" ", "\n", ""])
    if r < 0.14:
        return body + " " + body
    if r < 0.16 and family == "luma":
        return body[:-1] + ', "explanation": "' + "x" * 16000 + '"}'
    if r < 0.18:
        return "[" * 40 + "]" * 40
    return body


def luma_grade(rng):
    return None if rng.random() < 0.5 else Decimal(rng.choice(["0", "0.5", "1", "0.25"]))


# ---------------------------------------------------------------- tasks


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def generated(bareme, generator, n, seed, out: Path):
    r = run([bareme, "generate", generator, "-n", str(n), "--seed", str(seed), "--out", str(out)])
    if r.returncode != 0:
        sys.exit(f"generate failed: {r.stderr}")
    return [json.loads(line) for line in out.read_text().splitlines()]


def sales_tasks(bareme, tmp: Path):
    text = Path("rulebooks/sales-tax/v1/rulebook.toml").read_text()
    digest = hashlib.sha256(text.replace("\r\n", "\n").encode()).hexdigest()
    cases = []
    for f in sorted(Path("rulebooks/sales-tax/v1/cases").glob("*.toml")):
        doc = tomllib.loads(f.read_text())
        case = doc.get("case")
        if isinstance(case, str):
            cases.append((f.stem, json.loads(case)))
    batch = tmp / "sales-cases.jsonl"
    batch.write_text("".join(json.dumps(c) + "\n" for _, c in cases))
    r = run([bareme, "eval", "rulebooks/sales-tax/v1", "--batch", str(batch)])
    tasks = []
    for (name, case), line in zip(cases, r.stdout.splitlines()):
        expected = json.loads(line)
        if "error" not in expected:
            tasks.append({"id": name, "rulebook": "sales-tax@1", "rulebook_hash": digest,
                          "case": case, "expected": expected})
    return tasks


FAMILIES = {
    "luma": ("rulebooks/luma-payroll/rubric-8.toml", luma8, set()),
    "paie": ("rulebooks/paie-fr/rubric-1.toml", paie1, set(PAIE_KEYS)),
    "succession": ("rulebooks/succession-fr/rubric-1.toml", succession1, {"part_taxable", "droits", "total_droits"}),
    "sales": ("rulebooks/sales-tax/rubric-1.toml", sales1, set()),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bareme", default="target/debug/bareme")
    ap.add_argument("--n", type=int, default=3000, help="replies per rubric")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    failures = 0
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        tasks = {
            "luma": generated(args.bareme, "rulebooks/luma-payroll/generator-4.toml", 150, args.seed, tmp / "luma.jsonl"),
            "paie": generated(args.bareme, "rulebooks/paie-fr/generator-1.toml", 40, args.seed, tmp / "paie.jsonl"),
            "succession": generated(args.bareme, "rulebooks/succession-fr/generator-1.toml", 40, args.seed, tmp / "succ.jsonl"),
            "sales": sales_tasks(args.bareme, tmp),
        }
        for family, (rubric, scorer, amount_keys) in FAMILIES.items():
            ts = tasks[family]
            task_file = tmp / f"{family}-tasks.jsonl"
            task_file.write_text("".join(json.dumps(t) + "\n" for t in ts))
            replies, wanted = [], []
            for i in range(args.n):
                t = rng.choice(ts)
                exp = t["expected"]
                if family == "luma" and rng.random() < 0.25:
                    exp_used = rng.choice(ts)["expected"]  # another task's answer: wrong decisions, traps
                else:
                    exp_used = exp
                answer = mutate(rng, exp_used, family)
                body = render(rng, answer, family, amount_keys)
                reply = wrap(rng, body, family)
                grade = luma_grade(rng) if family == "luma" else None
                line = {"id": t["id"], "reply": reply}
                if grade is not None:
                    line["explanation_grade"] = float(grade)
                replies.append(line)
                wanted.append(scorer(exp, reply, grade))
            reply_file = tmp / f"{family}-replies.jsonl"
            reply_file.write_text("".join(json.dumps(r) + "\n" for r in replies))
            r = run([args.bareme, "score", rubric, "--tasks", str(task_file), "--replies", str(reply_file)])
            if r.returncode != 0:
                sys.exit(f"bareme score {rubric} failed ({r.returncode}): {r.stderr[-2000:]}")
            got = [json.loads(line) for line in r.stdout.splitlines()]
            assert len(got) == len(replies), (len(got), len(replies))
            bad = 0
            counts = {"malformed": 0, "max": 0, "between": 0}
            for reply, (score, malformed), g in zip(replies, wanted, got):
                gs = Decimal(str(g["score"]))
                gm = "malformed" in g
                counts["malformed" if malformed else ("max" if score == 1 else "between")] += 1
                if abs(gs - score) > Decimal("1e-9") or gm != malformed:
                    bad += 1
                    if bad <= 5:
                        print(f"MISMATCH {family} {reply['id']}: bareme {gs} malformed={gm} ({g.get('malformed')}), "
                              f"python {score} malformed={malformed}\n  reply: {reply['reply'][:400]!r}")
            failures += bad
            print(f"{family}: {len(replies)} replies, {bad} mismatches; python: {counts}")
    if failures:
        sys.exit(1)
    print(f"{failures} failed, all rubrics agree")


if __name__ == "__main__":
    main()
