//! Where generated code computes what a formula reads: steps and dated
//! parameters, each in an `Option` local filled where first needed.
//!
//! The interpreter computes a step on first use and memoises it; compiled code
//! does the same without a memo of values by generating, before each
//! formula, the statements that fill the locals it reads (`needs`), and by
//! generating what a formula reads only on one branch inside that branch
//! (`lazy`). A step needed on two branches is computed on whichever runs
//! first, once.
//!
//! Invariant: a dependency that depends on itself gives up
//! ([`Unsupported`]), so generation always ends.

use std::fmt::Write as _;

use super::deps::code_deps;
use super::state::Dep;
use super::state::{spend, step_spend, Gen, Gened, Scope, Unsupported};
use super::ty::{Ex, Ty};
use crate::model::code::{Code, CodeKind};
use crate::model::{ParamValue, Step};
use crate::value::Value;

impl Gen<'_> {
    /// Generates, into `out`, whatever `code` reads that is not computed yet.
    pub(super) fn needs(&mut self, code: &Code, out: &mut String) -> Gened<()> {
        let mut deps = Vec::new();
        code_deps(code, &mut deps);
        for dep in deps {
            self.compute(dep, out)?;
        }
        Ok(())
    }

    /// Generates `dep` and what it reads, on a fresh stack segment when the
    /// stack runs low: a chain of steps recurses as deep as it is long
    /// (bounded at load by `rulebook::depth`).
    pub(super) fn compute(&mut self, dep: Dep, out: &mut String) -> Gened<()> {
        stacker::maybe_grow(1024 * 1024, 8 * 1024 * 1024, || self.compute_now(dep, out))
    }

    fn compute_now(&mut self, dep: Dep, out: &mut String) -> Gened<()> {
        if self.done.contains(&dep) {
            return Ok(());
        }
        if self.busy.contains(&dep) {
            return Err(Unsupported(format!("{dep:?} depends on itself")));
        }
        self.busy.push(dep);
        let res = match dep {
            Dep::Step(i) => self.step(i, out),
            Dep::Param(i) => self.param(i, out),
            Dep::Group(g) => self.group(g, out),
        };
        self.busy.pop();
        res?;
        self.done.push(dep);
        Ok(())
    }

    /// A step, computed where first needed on the branch at hand: its local
    /// `s{i}` is an `Option`, so that a step needed on several branches is
    /// computed once, on whichever runs first.
    fn step(&mut self, i: usize, out: &mut String) -> Gened<()> {
        let rb = self.rb;
        let step = &rb.steps[i];
        let name = &step.name;
        let res = self
            .step_needs(step, out)
            .and_then(|()| self.step_code(step, Scope::default()));
        let e = res.map_err(|Unsupported(why)| Unsupported(format!("step `{name}`: {why}")))?;
        if self.step_ty[i].is_some_and(|ty| ty != e.ty) {
            return Err(Unsupported(format!("step `{name}` is typed two ways")));
        }
        self.step_ty[i] = Some(e.ty);
        let cites = self
            .cite_checks(step, Scope::default(), "        ")
            .map_err(|Unsupported(why)| Unsupported(format!("step `{name}`: {why}")))?;
        let _ = writeln!(
            out,
            "    if s{i}.is_none() {{ // {name}\n        spent += {};\n        s{i} = Some({});\n{cites}    }}",
            step_spend(&self.rb.steps[i]),
            e.to(e.ty),
        );
        Ok(())
    }

    /// What a step reads whenever it is computed: its condition, or its
    /// formula when it has none, and its `cite` conditions.
    pub(super) fn step_needs(&mut self, step: &Step, out: &mut String) -> Gened<()> {
        self.needs(&step.when.as_ref().unwrap_or(&step.expr).code, out)?;
        for (when, _) in &step.cite {
            self.needs(&when.code, out)?;
        }
        Ok(())
    }

    /// A statement per `cite` condition of a step, evaluated for its faults
    /// alone: the interpreter evaluates each after the step's value on both
    /// roads, so a condition that faults gives the case back. Which clauses
    /// they add is seen only in a trace, which compiled code never makes.
    pub(super) fn cite_checks(&mut self, step: &Step, sc: Scope, indent: &str) -> Gened<String> {
        let mut text = String::new();
        for (when, _) in &step.cite {
            // A condition folded to a constant (`rulebook::fold`) cannot fault.
            if matches!(when.code.kind, CodeKind::Const(Value::Bool(_))) {
                continue;
            }
            let cond = self.expr(&when.code, sc)?.to(Ty::Bool);
            let _ = writeln!(text, "{indent}let _ = {cond};");
        }
        Ok(text)
    }

    /// `code` on a branch: what it reads is computed on the branch too, in
    /// a block, and forgotten after it.
    pub(super) fn lazy(&mut self, code: &Code, sc: Scope) -> Gened<Ex> {
        self.lazy_by(code, |gen| gen.expr(code, sc))
    }

    /// The same, generating `code` by `f`.
    fn lazy_by(&mut self, code: &Code, f: impl FnOnce(&mut Self) -> Gened<Ex>) -> Gened<Ex> {
        let mark = self.done.len();
        let mut pre = String::new();
        let res = self.needs(code, &mut pre).and_then(|()| f(self));
        self.done.truncate(mark);
        let e = res?;
        if pre.is_empty() {
            return Ok(e);
        }
        Ok(Ex::new(format!("{{\n{pre}    {} }}", e.to(e.ty)), e.ty))
    }

    fn param(&mut self, i: usize, out: &mut String) -> Gened<()> {
        let rb = self.rb;
        let ParamValue::Dated { at, .. } = &rb.params[i].value else {
            return Ok(());
        };
        self.needs(&at.code, out)?;
        let key = self.expr(&at.code, Scope::default())?.as_value();
        self.param_used[i] = true;
        let _ = writeln!(
            out,
            "    if p{i}.is_none() {{ // {}\n        spent += {};\n        p{i} = Some(dated(rb, {i}, {})?);\n    }}",
            rb.params[i].name,
            spend(Some(at)),
            key.borrow()
        );
        Ok(())
    }

    /// A step's value: condition, formula, rounding point.
    pub(super) fn step_code(&mut self, step: &Step, sc: Scope) -> Gened<Ex> {
        let expr = &step.expr.code;
        let value = |gen: &mut Self| match step.round {
            Some((places, mode)) => gen.rounded(expr, places, mode, true, sc),
            None => gen.expr(expr, sc),
        };
        let value = match step.when {
            Some(_) => self.lazy_by(expr, value)?,
            None => value(self)?,
        };
        let Some(when) = &step.when else {
            return Ok(value);
        };
        let cond = self.expr(&when.code, sc)?.to(Ty::Bool);
        let otherwise = match &step.otherwise {
            Some(o) => self.lazy(&o.code, sc)?,
            None => Ex::new("Value::Absent".into(), Ty::Opt),
        };
        let ty = value.ty.join(otherwise.ty);
        Ok(Ex::new(
            format!(
                "if {cond} {{ {} }} else {{ {} }}",
                value.to(ty),
                otherwise.to(ty)
            ),
            ty,
        ))
    }
}
