//! Keys a case writes that its rulebook does not declare: refused, with the
//! declared key a typo most likely meant.
//!
//! A misspelt optional key (`allowed_deductions` for `allowed_deduction`)
//! would otherwise read as absent and give a wrong answer with no error.
//! Every object whose keys the rulebook declares (the case, a record, a
//! list's record items, a supplied table and its rows) is checked, unless
//! the rulebook allows extra keys there (`extra_keys = "allow"`) or names
//! the ones its records carry (`extra_keys = ["id", "label"]`: those are
//! ignored, any other is still refused).
//!
//! An object's unknown key is its first fault: it is reported before any
//! fault of the object's values (a misspelt required key says "did you
//! mean", not "is required"). That costs nothing on a valid case: the
//! validator counts the declared keys it finds present while it reads them,
//! and looks for an unknown key ([`first_unknown`], once, with a set of the
//! declared names: linear in the object) only when that count, with the
//! keys ignored by name that the object holds, falls short of the object's
//! size, or when one of its values is refused ([`unknown_first`]).
//!
//! Invariant: an object's keys are distinct (`JsonView`), and no key is
//! both declared and ignored by name (the checker refuses it), so `present
//! == object.len()` means every key is declared or ignored.

use std::collections::HashSet;
use std::sync::Arc;

use super::json::JsonView;
use crate::facts::CaseError;
use crate::model::{ExtraKeys, Input, InputKind, Rulebook, TableKind};

/// Rejects the first key of `object` (in the case's order) that is neither
/// one of `declared` nor allowed by `extra`, when `present` (the declared
/// keys found in it) says there is one; `what` names a key of this object
/// in the message (`input`, `field`, `row`, `column`).
pub(super) fn refuse_unknown<'j, 'd, J: JsonView<'j>>(
    object: J,
    present: usize,
    declared: impl Iterator<Item = &'d str> + Clone,
    extra: &ExtraKeys,
    path: &str,
    what: &str,
) -> Result<(), CaseError> {
    if *extra == ExtraKeys::Allow || present >= object.len() {
        return Ok(());
    }
    let ignored = extra.ignored();
    let present = present + ignored.iter().filter(|k| object.get(k).is_some()).count();
    if present >= object.len() {
        return Ok(());
    }
    match first_unknown(object, declared.clone(), ignored) {
        Some(key) => Err(unknown(key, declared, path, what)),
        None => Ok(()),
    }
}

/// A fault found inside `object`, unless the object has an unknown key,
/// which is reported instead: what the object holds is judged once its keys
/// are known.
pub(super) fn unknown_first<'j, 'd, J: JsonView<'j>>(
    fault: CaseError,
    extra: &ExtraKeys,
    object: J,
    declared: impl Iterator<Item = &'d str> + Clone,
    path: &str,
    what: &str,
) -> CaseError {
    if *extra == ExtraKeys::Allow || !object.is_object() {
        return fault;
    }
    match first_unknown(object, declared.clone(), extra.ignored()) {
        Some(key) => unknown(key, declared, path, what),
        None => fault,
    }
}

/// The first key of `object` neither in `declared` nor in `ignored`.
fn first_unknown<'j, 'd, J: JsonView<'j>>(
    object: J,
    declared: impl Iterator<Item = &'d str>,
    ignored: &[Arc<str>],
) -> Option<&'j str> {
    let mut known: HashSet<&str> = declared.collect();
    known.extend(ignored.iter().map(|k| &**k));
    object
        .entries()
        .map(|(k, _)| k)
        .find(|k| !known.contains(k))
}

/// The rejection of `key` at `path` (the object's; `$` or empty for the
/// case itself).
pub(crate) fn unknown<'d>(
    key: &str,
    declared: impl Iterator<Item = &'d str>,
    path: &str,
    what: &str,
) -> CaseError {
    let path = if path.is_empty() || path == "$" {
        key.to_string()
    } else {
        format!("{path}.{key}")
    };
    let message = match suggest(key, declared) {
        Some(near) => format!("unknown {what}; did you mean {near}?"),
        None => format!("unknown {what}"),
    };
    CaseError { path, message }
}

/// Checks that a dotted path (`amendment.gross_pay`, `reference_tables.first-half.rate`)
/// names a value the rulebook declares: each part a declared input, field,
/// map key, table row or column, read through objects only. What `bareme
/// sweep --vary` sets must be something the rules read, or every point of
/// the sweep would be the same refusal. Gives the declaration it names.
pub fn check_declared_path<'r>(rb: &'r Rulebook, path: &str) -> Result<&'r Input, CaseError> {
    let mut parts = path.split('.');
    let first = parts.next().unwrap_or_default();
    let names = || rb.inputs.iter().map(|i| &*i.name);
    let Some(mut input) = rb.inputs.iter().find(|i| *i.name == *first) else {
        return Err(unknown(first, names(), "$", "input"));
    };
    let mut at = first.to_string();
    let mut rest = parts.peekable();
    while let Some(part) = rest.next() {
        let next: &Input = match &input.kind {
            InputKind::Record {
                fields,
                pattern: None,
                ..
            } => match fields.iter().find(|f| *f.name == *part) {
                Some(f) => f,
                None => return Err(unknown(part, fields.iter().map(|f| &*f.name), &at, "field")),
            },
            InputKind::Map { item, keys, .. } => match keys {
                Some(keys) if !keys.iter().any(|k| **k == *part) => {
                    return Err(unknown(part, keys.iter().map(|k| &**k), &at, "key"));
                }
                _ => item,
            },
            InputKind::Table { table } => {
                let table = &rb.tables[table.index()];
                let rows = || table.rows.iter().filter_map(|r| r.name.as_deref());
                if matches!(table.kind, TableKind::Periods) && !rows().any(|r| r == part) {
                    return Err(unknown(part, rows(), &at, "row"));
                }
                at = format!("{at}.{part}");
                let Some(column) = rest.next() else {
                    return Err(CaseError {
                        path: at,
                        message: "is a row: name one of its columns".into(),
                    });
                };
                match table.columns.iter().find(|c| *c.name == *column) {
                    Some(c) => {
                        input = c;
                        at = format!("{at}.{column}");
                        continue;
                    }
                    None => {
                        let columns = table.columns.iter().map(|c| &*c.name);
                        return Err(unknown(column, columns, &at, "column"));
                    }
                }
            }
            _ => {
                return Err(CaseError {
                    path: at,
                    message: "has no fields a dotted path can name".into(),
                })
            }
        };
        input = next;
        at = format!("{at}.{part}");
    }
    Ok(input)
}

/// Keys longer than this get no suggestion (the distance is quadratic).
const MAX_SUGGESTED: usize = 256;

/// The declared key `key` most likely misspells: the one nearest by edit
/// distance when it is near (a third of the key's length, at least one
/// edit: two for `bonuss`, none for `note` against `rate`) and no other
/// declared key is as near.
pub(crate) fn suggest<'d>(key: &str, declared: impl Iterator<Item = &'d str>) -> Option<&'d str> {
    let len = key.chars().count();
    if len > MAX_SUGGESTED {
        return None;
    }
    let limit = (len / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    let mut tied = false;
    for name in declared {
        if name.chars().count() > MAX_SUGGESTED {
            continue;
        }
        let d = edit_distance(key, name);
        if d > limit {
            continue;
        }
        match best {
            Some((b, _)) if d > b => {}
            Some((b, _)) if d == b => tied = true,
            _ => {
                best = Some((d, name));
                tied = false;
            }
        }
    }
    best.filter(|_| !tied).map(|(_, name)| name)
}

/// Levenshtein distance in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_a_near_unique_key() {
        let declared = ["allowed_deduction", "gross_pay", "payroll_month"];
        assert_eq!(
            suggest("allowed_deductions", declared.iter().copied()),
            Some("allowed_deduction")
        );
        assert_eq!(
            suggest("bonuss", ["bonus", "level"].into_iter()),
            Some("bonus")
        );
        assert_eq!(suggest("employee_id", declared.iter().copied()), None);
        // Two declared keys one edit away: no guess.
        assert_eq!(suggest("ab", ["aa", "bb"].into_iter()), None);
        // Two edits of four characters is another word.
        assert_eq!(suggest("note", ["rate", "cap"].into_iter()), None);
    }

    #[test]
    fn distance_counts_characters() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("é", "e"), 1);
    }
}
