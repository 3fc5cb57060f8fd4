//! Rust source from a rulebook's lowered code (`model::plan`): the
//! generator behind `bareme compile`.
//!
//! The generated module holds one function that evaluates a case the way
//! the untraced interpreter does, with the same operations
//! (`compiled::rt`), but with the interpreter's dispatch and memo of values gone:
//! a step is a typed local (`Decimal` where no fraction can arise, `Num`,
//! `bool`, or `Value` when its kind varies), a group over constant rows is
//! unrolled row by row, a group over a list is a loop over a struct of its
//! item steps.
//!
//! A step is computed where it is first needed on the branch at hand: before
//! the check that reads it, inside the branch of the decision whose answer
//! reads it, or on the side of an `and`, `if` or `coalesce` that reads it.
//! Its local is an `Option`, so a step needed on two branches is computed
//! once. That is what the interpreter computes, or a little more; as any fault or
//! surprise makes the code give up and hand the case to the interpreter (see
//! `compiled`), computing more never changes an outcome. A formula the
//! generator does not compile gives up where it is needed, and is listed in
//! [`Generated::fallbacks`].
//!
//! Here: [`generate`], the generator's state (`Gen`) and the layout of the
//! function (checks in order, a branch per check). The type model of
//! generated expressions is in `ty`, what a formula reads in `deps`; the
//! statements that compute steps and parameters in `compute`, groups in
//! `groups`, answers in `answer`; arithmetic, logic and choices in `expr`,
//! and the code written as calls of the runtime in `tree`.

mod answer;
mod compute;
mod deps;
mod expr;
mod groups;
mod state;
mod tree;
mod ty;

use std::collections::HashMap;
use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use crate::model::{CheckOutcome, Rulebook};
use state::{spend, Gen, Scope, Unsupported};
use ty::Ty;

/// A compiled module's source.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The whole module, ready to be written to a `.rs` file.
    pub source: String,
    /// SHA-256 of the generated code, which the module carries.
    pub fingerprint: String,
    /// What was not compiled, and gives every case that needs it to the interpreter.
    pub fallbacks: Vec<String>,
}

/// Generates the compiled module of a checked rulebook.
pub fn generate(rb: &Rulebook) -> Generated {
    let mut gen = Gen {
        rb,
        consts: Vec::new(),
        const_names: HashMap::new(),
        structs: Vec::new(),
        fallbacks: Vec::new(),
        done: Vec::new(),
        busy: Vec::new(),
        step_ty: vec![None; rb.steps.len()],
        param_used: vec![false; rb.params.len()],
        groups: vec![None; rb.groups.len()],
    };
    let run = gen.run();
    let mut body = String::new();
    for c in &gen.consts {
        body.push_str(c);
        body.push('\n');
    }
    for s in &gen.structs {
        body.push('\n');
        body.push_str(s);
    }
    body.push('\n');
    body.push_str(&run);
    let fingerprint = hex(&Sha256::digest(body.as_bytes()));
    let reference = rb.reference();
    let source = format!(
        "//! The rulebook {reference}, compiled by `bareme compile`. Generated: do not edit.\n\
         //!\n\
         //! `COMPILED.bind(&rulebook)` refuses this module for any other rulebook,\n\
         //! or after a change of bareme that would generate other code.\n\
         #![allow(unreachable_code, unused_mut, unused_variables, unused_assignments, unused_parens, dead_code, clippy::all)]\n\
         \n\
         use bareme::unstable::compiled::rt::*;\n\
         use bareme::unstable::compiled::Compiled;\n\
         \n\
         pub static COMPILED: Compiled = Compiled {{\n    \
             reference: {reference:?},\n    \
             fingerprint: {fingerprint:?},\n    \
             run,\n\
         }};\n\
         \n\
         {body}"
    );
    Generated {
        source,
        fingerprint,
        fallbacks: gen.fallbacks,
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

impl Gen<'_> {
    /// The `run` function: the checks in order, each a branch that rejects
    /// or answers, after the declarations of the step and parameter locals.
    fn run(&mut self) -> String {
        let mut out = String::new();
        let rb = self.rb;
        for (k, check) in rb.checks.iter().enumerate() {
            let _ = writeln!(out, "    // check {}", k + 1);
            let cond = check.when.as_ref().map(|w| &w.code);
            let mut branch = String::new();
            if let Some(code) = cond {
                let _ = writeln!(out, "    spent += {};", spend(check.when.as_ref()));
                match self
                    .needs(code, &mut out)
                    .and_then(|_| self.expr(code, Scope::default()))
                {
                    Ok(c) => {
                        let _ = writeln!(out, "    if {} {{", c.to(Ty::Bool));
                    }
                    Err(Unsupported(why)) => {
                        self.fallbacks.push(format!("check {}: {why}", k + 1));
                        out.push_str("    return None;\n");
                        break;
                    }
                }
            }
            let mark = self.done.len();
            match &check.outcome {
                CheckOutcome::Reject { .. } => branch.push_str("        return None;\n"),
                CheckOutcome::Decide { decision, .. } => {
                    if let Err(Unsupported(why)) = self.decision(k, *decision, &mut branch) {
                        self.fallbacks.push(format!(
                            "decision `{}`: {why}",
                            rb.decisions[*decision].name
                        ));
                        branch.push_str("        return None;\n");
                    }
                }
            }
            self.done.truncate(mark);
            if cond.is_some() {
                out.push_str(&branch);
                out.push_str("    }\n");
            } else {
                out.push_str(&branch);
                break;
            }
        }
        out.push_str("    None\n}\n");
        let mut head = String::from(
            "fn run(rb: &Rulebook, facts: &Facts) -> Option<Outcome> {\n    \
             if !fits(rb, facts) {\n        return None;\n    }\n    \
             let x = &facts.values;\n    \
             // Budget units the walker could spend on what this code computes.\n    \
             let mut spent: u64 = 0;\n",
        );
        for (i, ty) in self.step_ty.iter().enumerate() {
            if let Some(ty) = ty {
                let _ = writeln!(
                    head,
                    "    let mut s{i}: Option<{}> = None; // {}",
                    ty.rust(),
                    self.rb.steps[i].name
                );
            }
        }
        for (i, used) in self.param_used.iter().enumerate() {
            if *used {
                let _ = writeln!(
                    head,
                    "    let mut p{i}: Option<Value> = None; // {}",
                    self.rb.params[i].name
                );
            }
        }
        head + &out
    }
}

#[cfg(test)]
mod tests;
