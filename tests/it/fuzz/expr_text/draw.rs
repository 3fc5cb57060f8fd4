//! Typed random expressions drawn from the grammar: each draw is an
//! expression of the type asked for, over the template's names.

use super::*;

// ---------------------------------------------------------------- typed generator

#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    Num,
    Bool,
    Text,
    Date,
    Month,
    Nums,
    Bools,
    Dates,
    People,
    Person,
}

const SCALARS: [Ty; 5] = [Ty::Num, Ty::Bool, Ty::Text, Ty::Date, Ty::Month];

const ALL: [Ty; 10] = [
    Ty::Num,
    Ty::Bool,
    Ty::Text,
    Ty::Date,
    Ty::Month,
    Ty::Nums,
    Ty::Bools,
    Ty::Dates,
    Ty::People,
    Ty::Person,
];

/// A typed random expression over the template's names, mostly well typed.
pub fn generate(rng: &mut Rng) -> String {
    let depth = if rng.random_bool(0.05) {
        rng.random_range(8..40)
    } else {
        rng.random_range(0..6)
    };
    let ty = if rng.random_bool(0.5) {
        Ty::Num
    } else {
        *SCALARS.choose(rng).unwrap_or(&Ty::Num)
    };
    let mut g = Gen {
        rng,
        locals: Vec::new(),
        fuel: 400,
    };
    g.expr(ty, depth)
}

struct Gen<'a> {
    rng: &'a mut Rng,
    locals: Vec<(String, Ty)>,
    fuel: usize,
}

impl Gen<'_> {
    fn pick<'s>(&mut self, items: &[&'s str]) -> &'s str {
        items.choose(self.rng).copied().unwrap_or("x")
    }

    fn sub(&mut self, ty: Ty, depth: u32) -> String {
        let e = self.expr(ty, depth.saturating_sub(1));
        if e.contains(' ') {
            format!("({e})")
        } else {
            e
        }
    }

    fn local(&mut self, ty: Ty) -> Option<String> {
        let found: Vec<String> = self
            .locals
            .iter()
            .filter(|(_, t)| *t == ty)
            .map(|(n, _)| n.clone())
            .collect();
        found.choose(self.rng).cloned()
    }

    /// A comprehension over a list of `item` type, giving items of `out` type.
    fn comprehension(&mut self, list: Ty, item: Ty, out: Ty, depth: u32) -> String {
        let var = format!("v{}", self.locals.len());
        let source = self.sub(list, depth);
        // A quarter of them bind the item's index (a number) too.
        let index = self
            .rng
            .random_bool(0.25)
            .then(|| format!("i{}", self.locals.len()));
        if let Some(i) = &index {
            self.locals.push((i.clone(), Ty::Num));
        }
        self.locals.push((var.clone(), item));
        let body = self.sub(out, depth);
        let cond = if self.rng.random_bool(0.5) {
            format!(" if {}", self.sub(Ty::Bool, depth))
        } else {
            String::new()
        };
        self.locals.pop();
        let names = match index {
            Some(i) => {
                self.locals.pop();
                format!("{i}, {var}")
            }
            None => var,
        };
        format!("[{body} for {names} in {source}{cond}]")
    }

    fn expr(&mut self, want: Ty, depth: u32) -> String {
        // Now and then an expression of another type, for the type checker.
        let ty = if self.rng.random_bool(0.04) {
            *ALL.choose(self.rng).unwrap_or(&want)
        } else {
            want
        };
        if depth == 0 || self.fuel == 0 {
            return self.leaf(ty);
        }
        self.fuel -= 1;
        let d = depth;
        match ty {
            Ty::Num => match self.rng.random_range(0..33) {
                0..=5 => {
                    let op = self.pick(&["+", "-", "*", "/", "+", "*"]);
                    format!("{} {op} {}", self.sub(Ty::Num, d), self.sub(Ty::Num, d))
                }
                6 => format!("-{}", self.sub(Ty::Num, d)),
                7 => format!(
                    "if {} then {} else {}",
                    self.sub(Ty::Bool, d),
                    self.sub(Ty::Num, d),
                    self.sub(Ty::Num, d)
                ),
                8 => {
                    let f = self.pick(&["min", "max"]);
                    let n = self.rng.random_range(2..5);
                    let args: Vec<String> = (0..n).map(|_| self.sub(Ty::Num, d)).collect();
                    format!("{f}({})", args.join(", "))
                }
                9 => {
                    let f = self.pick(&["min", "max", "sum"]);
                    format!("{f}({})", self.sub(Ty::Nums, d))
                }
                10 => format!("count({})", {
                    let t = *[Ty::Nums, Ty::Bools, Ty::Dates, Ty::People]
                        .choose(self.rng)
                        .unwrap_or(&Ty::Nums);
                    self.sub(t, d)
                }),
                11 => format!("abs({})", self.sub(Ty::Num, d)),
                12 => format!(
                    "clamp({}, {}, {})",
                    self.sub(Ty::Num, d),
                    self.sub(Ty::Num, d),
                    self.sub(Ty::Num, d)
                ),
                13 => {
                    let places = self.places();
                    let mode = self.pick(&bareme::unstable::num::RoundingMode::NAMES);
                    if self.rng.random_bool(0.5) {
                        format!("round({}, {places}, {mode})", self.sub(Ty::Num, d))
                    } else {
                        format!("round({}, {places})", self.sub(Ty::Num, d))
                    }
                }
                14 => {
                    let f = self.pick(&["floor", "ceil"]);
                    let places = self.places();
                    format!("{f}({}, {places})", self.sub(Ty::Num, d))
                }
                15 => {
                    let exp = if self.rng.random_bool(0.5) {
                        self.pick(&[
                            "2",
                            "-1",
                            "0.5",
                            "0.25",
                            "1.75",
                            "-2",
                            "4096",
                            "-4096",
                            "4097",
                            "0.3",
                            "0.0009765625",
                            "100",
                            "28",
                        ])
                        .to_string()
                    } else {
                        self.sub(Ty::Num, d)
                    };
                    format!("pow({}, {exp})", self.sub(Ty::Num, d))
                }
                16 => {
                    if self.rng.random_bool(0.5) {
                        format!("scale(bands, {})", self.sub(Ty::Num, d))
                    } else {
                        let places = self.places();
                        format!("scale(bands, {}, {places})", self.sub(Ty::Num, d))
                    }
                }
                17 => format!("range_row(ages, {}).share", self.sub(Ty::Num, d)),
                18 => format!("lookup(bykey, {}).amount", self.sub(Ty::Text, d)),
                19 => format!("period_row(sched, {}).rate", {
                    let t = if self.rng.random_bool(0.7) {
                        Ty::Month
                    } else {
                        Ty::Date
                    };
                    self.sub(t, d)
                }),
                20 => format!("days_in_month({})", {
                    let t = if self.rng.random_bool(0.5) {
                        Ty::Month
                    } else {
                        Ty::Date
                    };
                    self.sub(t, d)
                }),
                21 => {
                    let f = self.pick(&["days_between", "age"]);
                    format!("{f}({}, {})", self.sub(Ty::Date, d), self.sub(Ty::Date, d))
                }
                22 => format!("day({})", self.sub(Ty::Date, d)),
                23 => format!("year({})", {
                    let t = if self.rng.random_bool(0.5) {
                        Ty::Month
                    } else {
                        Ty::Date
                    };
                    self.sub(t, d)
                }),
                24 => format!("find_index({})", self.sub(Ty::Bools, d)),
                25 => format!("get(prices, {})", self.sub(Ty::Text, d)),
                26 => format!(
                    "coalesce({}, {})",
                    self.sub(Ty::Num, d),
                    self.sub(Ty::Num, d)
                ),
                27 => format!(
                    "match {} {{ 'a' => {}, 'b' | 'c' => {}, else => {} }}",
                    self.sub(Ty::Text, d),
                    self.sub(Ty::Num, d),
                    self.sub(Ty::Num, d),
                    self.sub(Ty::Num, d)
                ),
                28 => format!(
                    "match {} {{ 1 => {}, 2.5 => {}, else => {} }}",
                    self.sub(Ty::Num, d),
                    self.sub(Ty::Num, d),
                    self.sub(Ty::Num, d),
                    self.sub(Ty::Num, d)
                ),
                29 => format!("{}.amount", self.sub(Ty::Person, d)),
                30 => "count(prices)".to_string(),
                // A name per depth, so nested bindings never hide each other.
                31 => format!(
                    "let lv{d} = {}; lv{d} * 2 - {}",
                    self.sub(Ty::Num, d),
                    self.sub(Ty::Num, d)
                ),
                _ => self.leaf(Ty::Num),
            },
            Ty::Bool => match self.rng.random_range(0..16) {
                0 => format!("not {}", self.sub(Ty::Bool, d)),
                1 | 2 => {
                    let op = self.pick(&["and", "or"]);
                    format!("{} {op} {}", self.sub(Ty::Bool, d), self.sub(Ty::Bool, d))
                }
                3..=5 => {
                    let op = self.pick(&["<", "<=", ">", ">=", "==", "!="]);
                    format!("{} {op} {}", self.sub(Ty::Num, d), self.sub(Ty::Num, d))
                }
                6 => {
                    let op = self.pick(&["==", "!="]);
                    format!("{} {op} {}", self.sub(Ty::Text, d), self.sub(Ty::Text, d))
                }
                7 => {
                    let t = if self.rng.random_bool(0.5) {
                        Ty::Date
                    } else {
                        Ty::Month
                    };
                    let op = self.pick(&["<", "<=", ">", ">=", "==", "!="]);
                    format!("{} {op} {}", self.sub(t, d), self.sub(t, d))
                }
                8 => {
                    let f = self.pick(&["is_missing", "is_null"]);
                    let t = *ALL.choose(self.rng).unwrap_or(&Ty::Num);
                    format!("{f}({})", self.sub(t, d))
                }
                9 => {
                    let f = self.pick(&["any", "all"]);
                    format!("{f}({})", self.sub(Ty::Bools, d))
                }
                10 => format!(
                    "if {} then {} else {}",
                    self.sub(Ty::Bool, d),
                    self.sub(Ty::Bool, d),
                    self.sub(Ty::Bool, d)
                ),
                11 => format!(
                    "coalesce({}, {})",
                    self.sub(Ty::Bool, d),
                    self.sub(Ty::Bool, d)
                ),
                12 => {
                    let op = self.pick(&["in", "not in"]);
                    format!("{} {op} ['a', 'b']", self.sub(Ty::Text, d))
                }
                13 => {
                    let op = self.pick(&["in", "not in"]);
                    format!("{} {op} [1, 2.5, 0]", self.sub(Ty::Num, d))
                }
                _ => self.leaf(Ty::Bool),
            },
            Ty::Text => match self.rng.random_range(0..6) {
                0 => format!(
                    "if {} then {} else {}",
                    self.sub(Ty::Bool, d),
                    self.sub(Ty::Text, d),
                    self.sub(Ty::Text, d)
                ),
                1 => format!(
                    "coalesce({}, {})",
                    self.sub(Ty::Text, d),
                    self.sub(Ty::Text, d)
                ),
                2 => format!("{}.name", self.sub(Ty::Person, d)),
                3 => format!(
                    "match {} {{ 'a' => {}, else => {} }}",
                    self.sub(Ty::Text, d),
                    self.sub(Ty::Text, d),
                    self.sub(Ty::Text, d)
                ),
                _ => self.leaf(Ty::Text),
            },
            Ty::Date => match self.rng.random_range(0..8) {
                0 => format!(
                    "add_years({}, {})",
                    self.sub(Ty::Date, d),
                    self.sub(Ty::Num, d)
                ),
                1 => format!(
                    "add_months({}, {})",
                    self.sub(Ty::Date, d),
                    self.sub(Ty::Num, d)
                ),
                2 => {
                    let f = self.pick(&["min", "max"]);
                    format!("{f}({}, {})", self.sub(Ty::Date, d), self.sub(Ty::Date, d))
                }
                3 => {
                    let f = self.pick(&["min", "max"]);
                    format!("{f}({})", self.sub(Ty::Dates, d))
                }
                4 => format!(
                    "if {} then {} else {}",
                    self.sub(Ty::Bool, d),
                    self.sub(Ty::Date, d),
                    self.sub(Ty::Date, d)
                ),
                5 => format!(
                    "coalesce({}, {})",
                    self.sub(Ty::Date, d),
                    self.sub(Ty::Date, d)
                ),
                _ => self.leaf(Ty::Date),
            },
            Ty::Month => match self.rng.random_range(0..6) {
                0 => format!("month_of({})", self.sub(Ty::Date, d)),
                1 => format!(
                    "add_months({}, {})",
                    self.sub(Ty::Month, d),
                    self.sub(Ty::Num, d)
                ),
                2 => {
                    let f = self.pick(&["min", "max"]);
                    format!(
                        "{f}({}, {})",
                        self.sub(Ty::Month, d),
                        self.sub(Ty::Month, d)
                    )
                }
                _ => self.leaf(Ty::Month),
            },
            Ty::Nums => match self.rng.random_range(0..6) {
                0 => self.comprehension(Ty::Nums, Ty::Num, Ty::Num, d),
                1 => self.comprehension(Ty::People, Ty::Person, Ty::Num, d),
                2 => format!("{}.amount", self.sub(Ty::People, d)),
                _ => self.leaf(Ty::Nums),
            },
            Ty::Bools => match self.rng.random_range(0..4) {
                0 => self.comprehension(Ty::Nums, Ty::Num, Ty::Bool, d),
                1 => self.comprehension(Ty::Dates, Ty::Date, Ty::Bool, d),
                _ => self.leaf(Ty::Bools),
            },
            Ty::Dates => match self.rng.random_range(0..3) {
                0 => self.comprehension(Ty::Dates, Ty::Date, Ty::Date, d),
                _ => self.leaf(Ty::Dates),
            },
            Ty::People => match self.rng.random_range(0..3) {
                0 => self.comprehension(Ty::People, Ty::Person, Ty::Person, d),
                _ => self.leaf(Ty::People),
            },
            Ty::Person => self.leaf(Ty::Person),
        }
    }

    fn places(&mut self) -> String {
        self.pick(&["0", "2", "2", "4", "28", "29", "1"])
            .to_string()
    }

    fn year(&mut self) -> &'static str {
        self.pick(&["2026", "2024", "1900", "0001", "2000", "0000", "9999"])
    }

    fn leaf(&mut self, ty: Ty) -> String {
        if let Some(local) = self.local(ty).filter(|_| self.rng.random_bool(0.7)) {
            return local;
        }
        match ty {
            Ty::Num => {
                if self.rng.random_bool(0.5) {
                    self.pick(&["x", "y", "n", "f", "p", "cap", "rec.a", "x", "n"])
                        .to_string()
                } else {
                    number(self.rng)
                }
            }
            Ty::Bool => self.pick(&["b", "true", "false", "b"]).to_string(),
            Ty::Text => self
                .pick(&["t", "e", "'a'", "\"b\"", "''", "'ÿ\u{202e}'", "'long text'"])
                .to_string(),
            Ty::Date => {
                if self.rng.random_bool(0.6) {
                    self.pick(&["d", "d2", "rec.when"]).to_string()
                } else {
                    let y = self.year();
                    let md = self.pick(&["01-01", "02-28", "02-29", "12-31", "03-14", "01-31"]);
                    format!("date('{y}-{md}')")
                }
            }
            Ty::Month => {
                if self.rng.random_bool(0.6) {
                    "m".to_string()
                } else {
                    let y = self.year();
                    let mm = self.pick(&["01", "02", "07", "12"]);
                    format!("month('{y}-{mm}')")
                }
            }
            Ty::Nums => self
                .pick(&["xs", "pi.double", "values(prices)", "people.age"])
                .to_string(),
            Ty::Bools => "bs".to_string(),
            Ty::Dates => "ds".to_string(),
            Ty::People => "people".to_string(),
            Ty::Person => "range_row(ages, 1)".to_string(),
        }
    }
}

/// A number literal: small, long, tiny or huge.
fn number(rng: &mut Rng) -> String {
    match rng.random_range(0..10) {
        0 => "79228162514264337593543950335".into(),
        1 => "0.0000000000000000000000000001".into(),
        2 => format!("{}", rng.random_range(0..100_000u32)),
        3 => format!(
            "{}.{:0width$}",
            rng.random_range(0..1000u32),
            rng.random_range(0..100u32),
            width = 2
        ),
        4 => "9".repeat(rng.random_range(20..40)),
        _ => format!("{}", rng.random_range(0..20u32)),
    }
}
