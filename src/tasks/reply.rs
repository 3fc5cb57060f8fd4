//! The reply line: one model's reply to one task, as a replies file holds
//! it (`bareme score`, `rescore`, the rubric diff), and as `bareme
//! baselines --replies-out` writes it. Read as strictly as a task line.

use rust_decimal::Decimal;
use serde_json::Value;
use std::str::FromStr;

use super::json::{lone_halves_marked, read_json, JsonFault};

/// One line of a replies file.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplyLine {
    /// `id`: the task it answers.
    pub id: String,
    /// `reply`, the model's text, or why the line holds none: a model's
    /// failure graded at the floor, not the file's.
    pub reply: ReplyText,
    /// `explanation_grade`, an outside grade of the explanation (null: none).
    pub grade: Option<Decimal>,
    /// `strategy`, on the lines `bareme baselines --replies-out` writes.
    pub strategy: Option<String>,
}

/// A reply line's `reply`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplyText {
    /// The text.
    Text(String),
    /// Absent, or not a string: graded `reply::not_text`.
    NotText,
    /// A string with half a surrogate pair (`"\ud800"`, as Python's
    /// `json.dumps` writes one), which no Unicode text holds: graded
    /// `reply::lone_surrogate`.
    LoneSurrogate,
}

impl From<Option<String>> for ReplyText {
    fn from(text: Option<String>) -> Self {
        text.map_or(ReplyText::NotText, ReplyText::Text)
    }
}

/// Why a line is not a reply line.
#[derive(Debug, thiserror::Error)]
pub enum ReplyError {
    /// Not one JSON value, a key twice, a byte order mark.
    #[error("the line {0}")]
    Json(JsonFault),
    /// Not an object.
    #[error("a reply line is a JSON object {{\"id\", \"reply\", \"explanation_grade\"?}}")]
    NotObject,
    /// No `id`, or one that is not a string.
    #[error("the line has no string `id`")]
    NoId,
    /// `explanation_grade` is a number no decimal holds.
    #[error("reply {id}: `explanation_grade` {found} is not a grade")]
    Grade {
        /// The reply's id.
        id: String,
        /// The number as written.
        found: String,
    },
    /// `explanation_grade` is not a number.
    #[error("reply {id}: `explanation_grade` is a number in [0, 1]")]
    GradeType {
        /// The reply's id.
        id: String,
    },
    /// `strategy` is not a string.
    #[error("reply {id}: `strategy` must be a string")]
    Strategy {
        /// The reply's id.
        id: String,
    },
    /// A key no reply line has.
    #[error("reply {id}: unknown key `{key}` (a reply line holds `id`, `reply`, `explanation_grade` and `strategy`)")]
    Unknown {
        /// The reply's id.
        id: String,
        /// The key.
        key: String,
    },
}

impl ReplyLine {
    /// Bytes of text the line holds (its id and reply), for bounding how
    /// many are read at once.
    pub fn text_bytes(&self) -> usize {
        let reply = match &self.reply {
            ReplyText::Text(text) => text.len(),
            _ => 0,
        };
        self.id.len() + reply
    }

    /// A reply line from its text, read strictly. A line whose only fault
    /// is half a surrogate pair in its `reply` is read, its reply
    /// [`ReplyText::LoneSurrogate`]: one model's output cannot stop a run.
    pub fn from_json(text: &str) -> Result<ReplyLine, ReplyError> {
        let (value, fault) = match read_json(text) {
            Ok(value) => (value, None),
            Err(fault) => match lone_halves_marked(text) {
                Some(marked) => match read_json(&marked.text) {
                    Ok(value) => (value, Some((fault, marked))),
                    Err(_) => return Err(ReplyError::Json(fault)),
                },
                None => return Err(ReplyError::Json(fault)),
            },
        };
        let Value::Object(mut o) = value else {
            return Err(ReplyError::NotObject);
        };
        let id = match o.shift_remove("id") {
            Some(Value::String(s)) => s,
            _ => return Err(ReplyError::NoId),
        };
        let reply = match (o.shift_remove("reply"), fault) {
            (Some(Value::String(s)), None) => ReplyText::Text(s),
            (_, None) => ReplyText::NotText,
            // The halves replaced were the reply's alone; anywhere else
            // (the id, a key) the line is the file's fault.
            (Some(Value::String(s)), Some((_, marked))) if marked.all_in(&s) => {
                ReplyText::LoneSurrogate
            }
            (_, Some((fault, _))) => return Err(ReplyError::Json(fault)),
        };
        let grade = match o.shift_remove("explanation_grade") {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) => {
                let text = n.to_string();
                let grade = Decimal::from_str(&text)
                    .or_else(|_| Decimal::from_scientific(&text))
                    .ok()
                    .or_else(|| below_precision(&text))
                    .ok_or_else(|| ReplyError::Grade {
                        id: id.clone(),
                        found: text,
                    })?;
                Some(grade)
            }
            Some(_) => return Err(ReplyError::GradeType { id }),
        };
        let strategy = match o.shift_remove("strategy") {
            None => None,
            Some(Value::String(s)) => Some(s),
            Some(_) => return Err(ReplyError::Strategy { id }),
        };
        if let Some(key) = o.keys().next() {
            return Err(ReplyError::Unknown {
                key: key.clone(),
                id,
            });
        }
        Ok(ReplyLine {
            id,
            reply,
            grade,
            strategy,
        })
    }
}

/// A number written with an exponent below what a decimal holds (`1e-29`,
/// `2.5e-300`: Python's `json.dumps` writes small floats so), as the
/// decimal it rounds to at 28 places: 0 and its sign. Anything else is
/// `None`.
fn below_precision(text: &str) -> Option<Decimal> {
    let (mantissa, exponent) = text.split_once(['e', 'E'])?;
    let exponent: i64 = exponent.parse().ok()?;
    let mut v = Decimal::from_str(mantissa).ok()?;
    // Below zero by any amount is out of [0, 1]; rounded it would read 0.
    if exponent >= 0 || (v.is_sign_negative() && !v.is_zero()) {
        return None;
    }
    // Each division by ten rounds at 28 places: a mantissa of at most 29
    // digits is 0 within sixty of them, however far the exponent goes.
    for _ in 0..exponent.unsigned_abs().min(64) {
        v = v.checked_div(Decimal::TEN)?;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::ReplyLine;
    use rust_decimal::Decimal;

    /// A judge's grade written by Python's `json.dumps` (`1e-29`) stopped
    /// the whole run as "not a grade", where `1e-28` and the same number
    /// written out in full were read.
    #[test]
    fn a_grade_below_a_decimal_s_precision_reads_as_what_it_rounds_to() {
        let grade = |g: &str| {
            ReplyLine::from_json(&format!(r#"{{"id": "t", "explanation_grade": {g}}}"#))
                .map(|r| r.grade)
                .map_err(|e| e.to_string())
        };
        for tiny in ["1e-29", "2.5e-29", "1E-300", "9.99e-999999999"] {
            assert_eq!(grade(tiny), Ok(Some(Decimal::ZERO)), "{tiny}");
        }
        assert_eq!(grade("1e-28"), Ok(Some(Decimal::new(1, 28))));
        assert_eq!(grade("0.75"), Ok(Some(Decimal::new(75, 2))));
        assert_eq!(grade("-0e-40"), Ok(Some(Decimal::ZERO)));
        assert_eq!(
            grade("-1e-30"),
            Err("reply t: `explanation_grade` -1e-30 is not a grade".to_string())
        );
        // Too large is no grade at all.
        assert_eq!(
            grade("1e400"),
            Err("reply t: `explanation_grade` 1e+400 is not a grade".to_string())
        );
    }
}
