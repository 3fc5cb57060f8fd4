//! Mean scores of a set of replies: overall, per tier and per level of the
//! tasks they answer. Shared by `bareme score`, `rescore` and `baselines`.

use rust_decimal::Decimal;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

use super::grade::number;
use crate::tasks::Task;

/// Places of a printed mean.
const MEAN_PLACES: u32 = 6;

/// A sum of scores and how many.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// The sum.
    pub sum: Decimal,
    /// How many scores.
    pub n: usize,
}

impl Tally {
    /// Adds a score.
    pub fn add(&mut self, score: Decimal) {
        self.sum += score;
        self.n += 1;
    }

    /// The mean to six places (0 with no score).
    pub fn mean(&self) -> Decimal {
        if self.n == 0 {
            Decimal::ZERO
        } else {
            (self.sum / Decimal::from(self.n as u64)).round_dp(MEAN_PLACES)
        }
    }

    /// `{"replies", "mean"}`; the mean of no reply is `null`, not a 0 that
    /// reads as every reply wrong.
    pub fn to_json(&self) -> Value {
        json!({"replies": self.n, "mean": self.mean_json()})
    }

    /// The mean as JSON: `null` with no score.
    fn mean_json(&self) -> Value {
        match self.n {
            0 => Value::Null,
            _ => number(self.mean()),
        }
    }
}

/// Means overall, per tier and per level.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Means {
    /// Every reply.
    pub all: Tally,
    /// By the task's `tier`.
    pub tiers: BTreeMap<String, Tally>,
    /// By the task's `level`.
    pub levels: BTreeMap<i64, Tally>,
}

impl Means {
    /// Counts a reply's score under its task's tier and level.
    pub fn add(&mut self, task: &Task, score: Decimal) {
        self.all.add(score);
        if let Some(t) = &task.tier {
            self.tiers.entry(t.clone()).or_default().add(score);
        }
        if let Some(l) = task.level {
            self.levels.entry(l).or_default().add(score);
        }
    }

    /// The groups as (label, tally): `all`, `tier payslip`, `level 1`.
    pub fn groups(&self) -> Vec<(String, Tally)> {
        let mut out = vec![("all".to_string(), self.all)];
        out.extend(self.tiers.iter().map(|(k, v)| (format!("tier {k}"), *v)));
        out.extend(self.levels.iter().map(|(k, v)| (format!("level {k}"), *v)));
        out
    }

    /// `{"replies", "mean", "tiers": {…}, "levels": {…}}`.
    pub fn to_json(&self) -> Value {
        let tiers: Map<String, Value> = self
            .tiers
            .iter()
            .map(|(k, v)| (k.clone(), v.to_json()))
            .collect();
        let levels: Map<String, Value> = self
            .levels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_json()))
            .collect();
        json!({
            "replies": self.all.n,
            "mean": self.all.mean_json(),
            "tiers": tiers,
            "levels": levels,
        })
    }
}
