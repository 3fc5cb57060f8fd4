//! Rust source from a rulebook's plan: the generator behind `bareme compile`.
//!
//! The generated module holds one function that evaluates a case the way
//! the interpreter's untraced road does, with the same operations
//! (`compiled::rt`), but with the plan's dispatch and memo of values gone:
//! a step is a typed local (`Decimal` where no fraction can arise, `Num`,
//! `bool`, or `Value` when its kind varies), a group over constant rows is
//! unrolled row by row, a group over a list is a loop over a struct of its
//! item steps.
//!
//! A step is computed where it is first needed on the branch at hand: before
//! the check that reads it, inside the branch of the decision whose answer
//! reads it, or on the side of an `and`, `if` or `coalesce` that reads it.
//! Its local is an `Option`, so a step needed on two branches is computed
//! once. That is what the walker computes, or a little more; as any fault or
//! surprise makes the code give up and hand the case to the interpreter (see
//! `compiled`), computing more never changes an outcome. A formula the
//! generator does not compile gives up where it is needed, and is listed in
//! [`Generated::fallbacks`].

use std::collections::HashMap;
use std::fmt::Write as _;

use rust_decimal::Decimal;
use sha2::{Digest, Sha256};

use crate::expr::BinOp;
use crate::model::plan::{node_count, Code, GroupCode, Plan, StepCode};
use crate::model::{
    CheckOutcome, Formula, Func, InputKind, Node, NodeKind, Output, OutputValue, ParamValue,
    Rulebook, Step,
};
use crate::value::Value;

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
        plan: &rb.plan,
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
         use bareme::compiled::rt::*;\n\
         use bareme::compiled::Compiled;\n\
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

/// The Rust type of a generated expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    /// `Decimal`: a decimal number, never missing (most of a payslip).
    Dec,
    /// `Num`: a decimal or an exact fraction, never missing.
    Num,
    /// `bool`.
    Bool,
    /// `Value`: any other kind, or one that may be missing.
    Val,
    /// `Value` known to hold a decimal or nothing (a decimal input, a step
    /// with no `otherwise`), never a fraction: read as a decimal where one
    /// is expected.
    Opt,
}

impl Ty {
    fn numeric(self) -> bool {
        matches!(self, Ty::Dec | Ty::Num)
    }

    /// Held in a `Value`.
    fn is_value(self) -> bool {
        matches!(self, Ty::Val | Ty::Opt)
    }

    /// The type both branches of a choice fit.
    fn join(self, other: Ty) -> Ty {
        match (self, other) {
            (a, b) if a == b => a,
            (Ty::Dec | Ty::Opt, Ty::Dec | Ty::Opt) => Ty::Opt,
            (a, b) if a.numeric() && b.numeric() => Ty::Num,
            _ => Ty::Val,
        }
    }

    /// The type arithmetic on these operands is done in: decimals unless a
    /// fraction may be met. (A boolean gives the case up either way.)
    fn arith(self, other: Ty) -> Ty {
        let decimal = |t| matches!(t, Ty::Dec | Ty::Opt | Ty::Bool);
        if decimal(self) && decimal(other) {
            Ty::Dec
        } else {
            Ty::Num
        }
    }

    fn rust(self) -> &'static str {
        match self {
            Ty::Dec => "Decimal",
            Ty::Num => "Num",
            Ty::Bool => "bool",
            Ty::Val | Ty::Opt => "Value",
        }
    }
}

/// A generated expression.
#[derive(Clone, Debug)]
struct Ex {
    text: String,
    ty: Ty,
    /// A `Value` that can be borrowed in place (an input, a local), not a temporary.
    place: bool,
}

impl Ex {
    fn new(text: String, ty: Ty) -> Ex {
        Ex {
            text,
            ty,
            place: false,
        }
    }

    fn place(text: String) -> Ex {
        Ex {
            text,
            ty: Ty::Val,
            place: true,
        }
    }

    /// The expression as type `to`: a conversion that fails gives up, as the
    /// plan bails on a value of the wrong kind.
    fn to(&self, to: Ty) -> String {
        let t = &self.text;
        match (self.ty, to) {
            (a, b) if a == b && !(a.is_value() && self.place) => t.clone(),
            (a, b) if a.is_value() && b.is_value() => {
                if self.place {
                    format!("{t}.clone()")
                } else {
                    t.clone()
                }
            }
            (Ty::Dec, Ty::Opt) => format!("Value::Number({t})"),
            (Ty::Opt, Ty::Dec) => format!("number({})?", self.borrow()),
            (Ty::Opt, Ty::Num) => format!("Num::Dec(number({})?)", self.borrow()),
            (Ty::Opt, Ty::Bool) => format!("truth({})?", self.borrow()),
            (Ty::Dec, Ty::Num) => format!("Num::Dec({t})"),
            (Ty::Num, Ty::Dec) => format!("dec_of({t})?"),
            (Ty::Dec, Ty::Val) => format!("Value::Number({t})"),
            (Ty::Num, Ty::Val) => format!("value({t})"),
            (Ty::Bool, Ty::Val) => format!("Value::Bool({t})"),
            (Ty::Val, Ty::Dec) => format!("number({})?", self.borrow()),
            (Ty::Val, Ty::Num) => format!("num({})?", self.borrow()),
            (Ty::Val, Ty::Bool) => format!("truth({})?", self.borrow()),
            (_, to) => format!("{{ let _ = {t}; None::<{}>? }}", to.rust()),
        }
    }

    /// A `&Value` of a `Value` expression.
    fn borrow(&self) -> String {
        if self.place {
            format!("&{}", self.text)
        } else {
            format!("&({})", self.text)
        }
    }
}

/// Something computed once per case, before whatever reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dep {
    Step(usize),
    Group(usize),
    Param(usize),
}

/// How the items of a generated group are held.
#[derive(Clone, Debug)]
enum GroupForm {
    /// Unrolled: the local of step `j` of row `r`, with its type.
    Rows(Vec<Vec<(String, Ty)>>),
    /// `Vec` of struct `G{g}`; the type of each field `s{j}`.
    List(Vec<Ty>),
}

/// What names mean where an expression is generated.
#[derive(Clone, Copy, Default)]
struct Scope<'s> {
    /// The current item (a `Value` place) and its steps' locals.
    item: Option<ItemLocals<'s>>,
    /// The item a `SumRows` body is at: its steps' locals.
    row: Option<&'s [(String, Ty)]>,
    /// Comprehension variables bound (`l0`, `l1`, …, innermost last).
    depth: usize,
    /// The group whose item is current.
    group: Option<usize>,
    /// In an answer: the deciding check and its decision, which `decision`
    /// and `reason` read.
    decided: Option<(usize, usize)>,
}

/// An item (a `Value` place) and the locals of its steps computed so far.
type ItemLocals<'s> = (&'s str, &'s [Option<(String, Ty)>]);

/// A formula the generator does not compile.
struct Unsupported(String);

type Gened<T> = Result<T, Unsupported>;

struct Gen<'r> {
    rb: &'r Rulebook,
    plan: &'r Plan,
    consts: Vec<String>,
    const_names: HashMap<String, String>,
    structs: Vec<String>,
    fallbacks: Vec<String>,
    /// What the code generated so far has computed, innermost branch last.
    done: Vec<Dep>,
    /// What is being generated (a cycle gives up).
    busy: Vec<Dep>,
    /// The type of each step's local, once generated.
    step_ty: Vec<Option<Ty>>,
    /// Whether each parameter has a local.
    param_used: Vec<bool>,
    groups: Vec<Option<GroupForm>>,
}

impl<'r> Gen<'r> {
    fn run(&mut self) -> String {
        let mut out = String::new();
        let rb = self.rb;
        let plan = self.plan;
        for (k, check) in rb.checks.iter().enumerate() {
            let _ = writeln!(out, "    // check {}", k + 1);
            let cond = match check.when.as_ref().map(|_| &plan.checks[k]) {
                Some(Some(code)) => Some(code),
                _ => None,
            };
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

    /// The answer of decision `d`, chosen by check `k`, returned.
    fn decision(&mut self, k: usize, d: usize, out: &mut String) -> Gened<()> {
        let rb = self.rb;
        let decision = &rb.decisions[d];
        let scope = Scope {
            decided: Some((k, d)),
            ..Scope::default()
        };
        let mut cites = Vec::new();
        for (c, (when, _)) in decision.cite.iter().enumerate() {
            let code = Plan::lower(rb, &when.node);
            self.needs(&code, out)?;
            let _ = writeln!(out, "        spent += {};", spend(Some(when)));
            cites.push((c, self.expr(&code, scope)?));
        }
        let mut fields = Vec::new();
        for (o, output) in decision.answer.iter().enumerate() {
            let code = self.plan.answers[d].get(o).cloned().flatten();
            fields.push((
                output.key.clone(),
                self.output(output, code.as_ref(), scope, out)?,
            ));
        }
        let _ = writeln!(out, "        let mut clauses = clauses(rb, {k})?;");
        for (c, e) in cites {
            let _ = writeln!(
                out,
                "        if {} {{\n            cite(rb, {d}, {c}, &mut clauses)?;\n        }}",
                e.to(Ty::Bool)
            );
        }
        let _ = writeln!(
            out,
            "        let mut object = serde_json::Map::with_capacity({});",
            fields.len()
        );
        for (key, value) in fields {
            let _ = writeln!(
                out,
                "        object.insert({:?}.to_string(), {value});",
                &*key
            );
        }
        out.push_str(
            "        if spent > budget(rb) {\n            return None;\n        }\n        \
             return Some(Outcome::Answer(serde_json::Value::Object(object)));\n",
        );
        Ok(())
    }

    /// One answer field, as an expression of its JSON (which reads `clauses`).
    /// `code` is the plan's for a value field; a field listing a group's
    /// items lists them item by item.
    fn output(
        &mut self,
        output: &Output,
        code: Option<&Code>,
        sc: Scope,
        out: &mut String,
    ) -> Gened<String> {
        let rb = self.rb;
        match &output.value {
            OutputValue::Value { expr, format } => {
                let lowered;
                let code = match code {
                    Some(code) => code,
                    None => {
                        lowered = Plan::lower(rb, &expr.node);
                        &lowered
                    }
                };
                self.needs(code, out)?;
                let e = self.expr(code, sc)?;
                let json = match e.ty {
                    Ty::Dec => format!("answer_dec({}, Format::{format:?}, &clauses)?", e.text),
                    Ty::Num => format!("answer_num({}, Format::{format:?}, &clauses)?", e.text),
                    _ => format!(
                        "answer({}, Format::{format:?}, &clauses)?",
                        e.as_value().borrow()
                    ),
                };
                Ok(format!("{{ spent += {}; {json} }}", spend(Some(expr))))
            }
            OutputValue::Each {
                group: g,
                fields,
                key,
            } => {
                let g = *g;
                if sc.item.is_some() {
                    return Err(Unsupported("items listed inside an item".into()));
                }
                self.compute(Dep::Group(g), out)?;
                let mut deps = Vec::new();
                for f in fields {
                    if let OutputValue::Value { expr, .. } = &f.value {
                        code_deps(&Plan::lower(rb, &expr.node), &mut deps);
                    }
                }
                if let Some(k) = key {
                    code_deps(&Plan::lower(rb, &k.node), &mut deps);
                }
                for dep in deps {
                    self.compute(dep, out)?;
                }
                let form = self.group_form(g)?;
                let item = |gen: &mut Self, place: &str, locals: &[Option<(String, Ty)>]| {
                    let scope = Scope {
                        item: Some((place, locals)),
                        group: Some(g),
                        ..sc
                    };
                    let mut text = format!(
                        "{{ let mut o = serde_json::Map::with_capacity({});",
                        fields.len()
                    );
                    for f in fields {
                        // Fields are formulas of the item; none reads what is not computed.
                        let mut none = String::new();
                        let json = gen.output(f, None, scope, &mut none)?;
                        if !none.is_empty() {
                            return Err(Unsupported(
                                "an item field reads an uncomputed step".into(),
                            ));
                        }
                        let _ = write!(text, " o.insert({:?}.to_string(), {json});", &*f.key);
                    }
                    let name = match key {
                        Some(k) => {
                            let e = gen.expr(&Plan::lower(rb, &k.node), scope)?;
                            format!(
                                "{{ spent += {}; Some(item_key({})?) }}",
                                spend(Some(k)),
                                e.as_value().borrow()
                            )
                        }
                        None => "None".into(),
                    };
                    let _ = write!(
                        text,
                        " listed.push(({name}, serde_json::Value::Object(o))); }}"
                    );
                    Ok(text)
                };
                let mut text = String::from("{ let mut listed = Vec::new();");
                match &form {
                    GroupForm::Rows(rows) => {
                        for (r, row) in rows.iter().enumerate() {
                            let locals: Vec<Option<(String, Ty)>> =
                                row.iter().cloned().map(Some).collect();
                            let place = format!("gi{g}[{r}]");
                            text.push(' ');
                            text.push_str(&item(self, &place, &locals)?);
                        }
                    }
                    GroupForm::List(tys) => {
                        let locals: Vec<Option<(String, Ty)>> = tys
                            .iter()
                            .enumerate()
                            .map(|(j, ty)| Some((format!("r.s{j}"), *ty)))
                            .collect();
                        let _ = write!(text, " for (it, r) in gl{g}.iter().zip(g{g}.iter()) {{ ");
                        text.push_str(&item(self, "(*it)", &locals)?);
                        text.push_str(" }");
                    }
                }
                let _ = write!(text, " each_json(listed, {})? }}", key.is_some());
                Ok(text)
            }
        }
    }

    /// Generates, into `out`, whatever `code` reads that is not computed yet.
    fn needs(&mut self, code: &Code, out: &mut String) -> Gened<()> {
        let mut deps = Vec::new();
        code_deps(code, &mut deps);
        for dep in deps {
            self.compute(dep, out)?;
        }
        Ok(())
    }

    fn compute(&mut self, dep: Dep, out: &mut String) -> Gened<()> {
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
        let plan = self.plan;
        let code = &plan.steps[i];
        let name = &self.rb.steps[i].name;
        let res = self
            .step_needs(code, out)
            .and_then(|()| self.step_code(code, Scope::default()));
        let e = res.map_err(|Unsupported(why)| Unsupported(format!("step `{name}`: {why}")))?;
        if self.step_ty[i].is_some_and(|ty| ty != e.ty) {
            return Err(Unsupported(format!("step `{name}` is typed two ways")));
        }
        self.step_ty[i] = Some(e.ty);
        let _ = writeln!(
            out,
            "    if s{i}.is_none() {{ // {name}\n        spent += {};\n        s{i} = Some({});\n    }}",
            step_spend(&self.rb.steps[i]),
            e.to(e.ty),
        );
        Ok(())
    }

    /// What a step reads whenever it is computed: its condition, or its
    /// formula when it has none.
    fn step_needs(&mut self, code: &StepCode, out: &mut String) -> Gened<()> {
        self.needs(code.when.as_ref().unwrap_or(&code.expr), out)
    }

    /// `code` on a branch: what it reads is computed on the branch too, in
    /// a block, and forgotten after it.
    fn lazy(&mut self, code: &Code, sc: Scope) -> Gened<Ex> {
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
        let code = Plan::lower(rb, &at.node);
        self.needs(&code, out)?;
        let key = self.expr(&code, Scope::default())?.as_value();
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

    fn group(&mut self, g: usize, out: &mut String) -> Gened<()> {
        let rb = self.rb;
        let group = &rb.groups[g];
        let plan = self.plan;
        let codes: Vec<&StepCode> = match &plan.groups[g] {
            GroupCode::Rows(rows) => rows.iter().flatten().collect(),
            GroupCode::Any(steps) => steps.iter().collect(),
        };
        for code in codes {
            self.step_needs(code, out)?;
        }
        let name = &group.name;
        let per_item: u64 = group.steps.iter().map(step_spend).sum();
        let _ = writeln!(out, "    spent += {};", spend(Some(&group.over)));
        match &plan.groups[g] {
            GroupCode::Rows(rows) => {
                let _ = writeln!(out, "    spent += {};", per_item * rows.len() as u64);
                let known = group.specialized.as_ref();
                let _ = writeln!(out, "    // group {name}, unrolled");
                let _ = writeln!(out, "    let gi{g} = constant_items(rb, {g})?;");
                let _ = writeln!(
                    out,
                    "    if gi{g}.len() != {} {{\n        return None;\n    }}",
                    rows.len()
                );
                let mut form = Vec::with_capacity(rows.len());
                for (r, steps) in rows.iter().enumerate() {
                    let item = format!("gi{g}[{r}]");
                    let mut locals: Vec<Option<(String, Ty)>> = vec![None; steps.len()];
                    for j in item_order(steps)? {
                        let local = format!("g{g}r{r}s{j}");
                        let fixed = known
                            .and_then(|k| k.get(r))
                            .and_then(|row| row.known.get(j))
                            .and_then(Option::as_ref);
                        let e = match fixed {
                            Some(v) => self.constant(v)?,
                            None => {
                                let scope = Scope {
                                    item: Some((&item, &locals)),
                                    group: Some(g),
                                    ..Scope::default()
                                };
                                self.step_code(&steps[j], scope)
                                    .map_err(|Unsupported(why)| {
                                        Unsupported(format!(
                                            "group `{name}` step `{}`: {why}",
                                            group.steps[j].name
                                        ))
                                    })?
                            }
                        };
                        let _ = writeln!(out, "    let {local}: {} = {};", e.ty.rust(), e.to(e.ty));
                        locals[j] = Some((local, e.ty));
                    }
                    // Every item step has a local: `item_order` lists them all.
                    form.push(
                        locals
                            .into_iter()
                            .map(|l| l.unwrap_or_else(|| ("Value::Absent".into(), Ty::Val)))
                            .collect(),
                    );
                }
                self.groups[g] = Some(GroupForm::Rows(form));
            }
            GroupCode::Any(steps) => {
                let over = Plan::lower(rb, &group.over.node);
                self.needs(&over, out)?;
                let over = self.expr(&over, Scope::default())?.to(Ty::Val);
                let mut body = String::new();
                let mut locals: Vec<Option<(String, Ty)>> = vec![None; steps.len()];
                for j in item_order(steps)? {
                    let scope = Scope {
                        item: Some(("(*it)", &locals)),
                        group: Some(g),
                        ..Scope::default()
                    };
                    let e = self
                        .step_code(&steps[j], scope)
                        .map_err(|Unsupported(why)| {
                            Unsupported(format!(
                                "group `{name}` step `{}`: {why}",
                                group.steps[j].name
                            ))
                        })?;
                    let _ = writeln!(body, "        let i{j}: {} = {};", e.ty.rust(), e.to(e.ty));
                    locals[j] = Some((format!("i{j}"), e.ty));
                }
                let tys: Vec<Ty> = locals
                    .iter()
                    .map(|l| l.as_ref().map_or(Ty::Val, |l| l.1))
                    .collect();
                let mut decl =
                    format!("/// The steps of one item of group `{name}`.\nstruct G{g} {{\n");
                for (j, ty) in tys.iter().enumerate() {
                    let _ = writeln!(decl, "    s{j}: {},", ty.rust());
                }
                decl.push_str("}\n");
                // A group computed in two branches is declared once.
                if !self.structs.contains(&decl) {
                    self.structs.push(decl);
                }
                let _ = writeln!(out, "    // group {name}");
                let _ = writeln!(out, "    let go{g}: Value = {over};");
                let _ = writeln!(out, "    let gl{g} = items(&go{g})?;");
                let _ = writeln!(
                    out,
                    "    let mut g{g}: Vec<G{g}> = Vec::with_capacity(gl{g}.len());"
                );
                let _ = writeln!(out, "    for it in gl{g}.iter() {{");
                let _ = writeln!(out, "        spent += {per_item};");
                out.push_str(&body);
                let fields: Vec<String> = (0..tys.len()).map(|j| format!("s{j}: i{j}")).collect();
                let _ = writeln!(out, "        g{g}.push(G{g} {{ {} }});", fields.join(", "));
                out.push_str("    }\n");
                self.groups[g] = Some(GroupForm::List(tys));
            }
        }
        Ok(())
    }

    /// A step's value: condition, formula, rounding point.
    fn step_code(&mut self, code: &StepCode, sc: Scope) -> Gened<Ex> {
        let value = |gen: &mut Self| match code.round {
            Some((places, mode)) => gen.rounded(&code.expr, places, mode, true, sc),
            None => gen.expr(&code.expr, sc),
        };
        let value = match code.when {
            Some(_) => self.lazy_by(&code.expr, value)?,
            None => value(self)?,
        };
        let Some(when) = &code.when else {
            return Ok(value);
        };
        let cond = self.expr(when, sc)?.to(Ty::Bool);
        let otherwise = match &code.otherwise {
            Some(o) => self.lazy(o, sc)?,
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

    fn expr(&mut self, code: &Code, sc: Scope) -> Gened<Ex> {
        Ok(match code {
            Code::Const(v) => self.constant(v)?,
            Code::Input(i) => Ex {
                ty: value_ty(self.rb.inputs.get(*i).map(|input| &input.kind)),
                ..Ex::place(format!("x[{i}]"))
            },
            Code::Step(i) => match self.step_ty[*i].unwrap_or(Ty::Val) {
                ty if ty.is_value() => Ex {
                    ty,
                    ..Ex::place(format!("(*s{i}.as_ref()?)"))
                },
                ty => Ex::new(format!("s{i}?"), ty),
            },
            Code::Param(i) => Ex::place(format!("(*p{i}.as_ref()?)")),
            Code::Item => match sc.item {
                Some((item, _)) => Ex::place(item.to_string()),
                None => return Err(Unsupported("the item is read outside its group".into())),
            },
            Code::ItemStep(j) => match sc.item.and_then(|(_, steps)| steps.get(*j)?.clone()) {
                Some((name, ty)) => self.local(name, ty),
                None => {
                    return Err(Unsupported(
                        "an item step is read before it is known".into(),
                    ))
                }
            },
            Code::Field(base, index) => {
                let kind = match self.input_kind(base, sc) {
                    Some(InputKind::Record { fields, .. }) => fields.get(*index).map(|f| &f.kind),
                    _ => None,
                };
                let b = self.expr(base, sc)?;
                Ex::new(
                    format!("field({}, {index})?", b.as_value().borrow()),
                    value_ty(kind),
                )
            }
            Code::Arith(op, a, b) => {
                let f = match op {
                    crate::expr::BinOp::Add => "add",
                    crate::expr::BinOp::Sub => "sub",
                    crate::expr::BinOp::Mul => "mul",
                    _ => "div",
                };
                let (a, b) = (self.expr(a, sc)?, self.expr(b, sc)?);
                match (f, a.ty.arith(b.ty)) {
                    ("div", Ty::Dec) => Ex::new(
                        format!("div_dec({}, {})?", a.to(Ty::Dec), b.to(Ty::Dec)),
                        Ty::Num,
                    ),
                    ("div", _) | (_, Ty::Num) => Ex::new(
                        format!("{f}({}, {})?", a.to(Ty::Num), b.to(Ty::Num)),
                        Ty::Num,
                    ),
                    (f, _) => Ex::new(
                        format!("{f}_dec({}, {})?", a.to(Ty::Dec), b.to(Ty::Dec)),
                        Ty::Dec,
                    ),
                }
            }
            Code::Compare(op, a, b) => {
                let (a, b) = (self.expr(a, sc)?, self.expr(b, sc)?);
                let number = |t: Ty| t.numeric() || t == Ty::Opt;
                let numbers = (number(a.ty) && number(b.ty))
                    || (a.ty.numeric() && b.ty == Ty::Val)
                    || (a.ty == Ty::Val && b.ty.numeric());
                if !numbers {
                    let ord = format!(
                        "cmp_value({}, {})?",
                        a.as_value().borrow(),
                        b.as_value().borrow()
                    );
                    return Ok(Ex::new(format!("BinOp::{op:?}.holds({ord})"), Ty::Bool));
                }
                match a.ty.arith(b.ty) {
                    // Decimals compare as the walker compares two numbers.
                    Ty::Dec => Ex::new(
                        format!("({} {} {})", a.to(Ty::Dec), op.symbol(), b.to(Ty::Dec)),
                        Ty::Bool,
                    ),
                    _ => Ex::new(
                        format!(
                            "BinOp::{op:?}.holds(cmp_num({}, {})?)",
                            a.to(Ty::Num),
                            b.to(Ty::Num)
                        ),
                        Ty::Bool,
                    ),
                }
            }
            Code::And(a, b) => {
                let (a, b) = (self.expr(a, sc)?, self.lazy(b, sc)?);
                Ex::new(
                    format!("({} && {})", a.to(Ty::Bool), b.to(Ty::Bool)),
                    Ty::Bool,
                )
            }
            Code::Or(a, b) => {
                let (a, b) = (self.expr(a, sc)?, self.lazy(b, sc)?);
                Ex::new(
                    format!("({} || {})", a.to(Ty::Bool), b.to(Ty::Bool)),
                    Ty::Bool,
                )
            }
            Code::Not(a) => Ex::new(format!("!{}", self.expr(a, sc)?.to(Ty::Bool)), Ty::Bool),
            Code::Neg(a) => {
                let a = self.expr(a, sc)?;
                match a.ty {
                    Ty::Dec => Ex::new(format!("(-{})", a.text), Ty::Dec),
                    _ => Ex::new(format!("neg({})", a.to(Ty::Num)), Ty::Num),
                }
            }
            Code::If(parts) => {
                let c = self.expr(&parts.0, sc)?.to(Ty::Bool);
                let (a, b) = (self.lazy(&parts.1, sc)?, self.lazy(&parts.2, sc)?);
                let ty = a.ty.join(b.ty);
                Ex::new(
                    format!("if {c} {{ {} }} else {{ {} }}", a.to(ty), b.to(ty)),
                    ty,
                )
            }
            Code::Match(scrutinee, arms, otherwise) => {
                let s = self.expr(scrutinee, sc)?.as_value();
                let mut text = format!("{{ let m = {};", s.borrow());
                let mut values = Vec::with_capacity(arms.len() + 1);
                let mut literals = Vec::with_capacity(arms.len());
                for (literal, value) in arms {
                    literals.push(self.constant(literal)?.as_value());
                    values.push(self.lazy(value, sc)?);
                }
                values.push(self.lazy(otherwise, sc)?);
                let ty = values.iter().fold(values[0].ty, |t, v| t.join(v.ty));
                if arms.is_empty() {
                    text.push_str(" if m.is_missing() { return None; }");
                }
                for (literal, value) in literals.iter().zip(&values) {
                    let _ = write!(
                        text,
                        " if matches(m, {})? {{ {} }} else",
                        literal.borrow(),
                        value.to(ty)
                    );
                }
                let _ = write!(text, " {{ {} }} }}", values[values.len() - 1].to(ty));
                Ex::new(text, ty)
            }
            Code::Round(x, places, mode) => self.rounded(x, *places, *mode, false, sc)?,
            Code::Extremum(func, args) => {
                let max = *func == Func::Max;
                let args = args
                    .iter()
                    .map(|a| self.expr(a, sc))
                    .collect::<Gened<Vec<Ex>>>()?;
                // Arguments must be present: a decimal or nothing is a decimal here.
                let ty = match args.iter().fold(args[0].ty, |t, a| t.join(a.ty)) {
                    Ty::Opt => Ty::Dec,
                    ty => ty,
                };
                let mut text = args[0].to(ty);
                for a in &args[1..] {
                    text = match ty {
                        Ty::Dec => format!("better_dec({text}, {}, {max})", a.to(ty)),
                        Ty::Num => format!("better_num({text}, {}, {max})?", a.to(ty)),
                        _ => format!("better_value({text}, {}, {max})?", a.to(Ty::Val)),
                    };
                }
                Ex::new(text, if ty.numeric() { ty } else { Ty::Val })
            }
            Code::Coalesce(args) => {
                let mut text = String::from("{");
                let mut closed = 0;
                let mut ended = false;
                let mut ty = Ty::Opt;
                for (i, a) in args.iter().enumerate() {
                    let e = if i == 0 {
                        self.expr(a, sc)?
                    } else {
                        self.lazy(a, sc)?
                    };
                    ty = ty.join(e.ty);
                    if !e.ty.is_value() {
                        let _ = write!(text, " {} ", e.to(Ty::Val));
                        ended = true;
                        break;
                    }
                    let _ = write!(
                        text,
                        " let c = {}; if !c.is_missing() {{ c }} else {{",
                        e.to(Ty::Val)
                    );
                    closed += 1;
                }
                if !ended {
                    text.push_str(" Value::Absent ");
                }
                text.push_str(&"}".repeat(closed));
                text.push('}');
                Ex::new(text, if ty == Ty::Opt { Ty::Opt } else { Ty::Val })
            }
            Code::IsMissing(a) => {
                let e = self.expr(a, sc)?;
                match e.ty {
                    Ty::Val | Ty::Opt => Ex::new(format!("({}).is_missing()", e.text), Ty::Bool),
                    _ => Ex::new(format!("{{ let _ = {}; false }}", e.text), Ty::Bool),
                }
            }
            Code::SumColumn(g, j) => {
                let form = self.group_form(*g)?;
                Ex::new(sum_column(*g, *j, &form), Ty::Dec)
            }
            Code::SumRows {
                group,
                filter,
                body,
                nodes,
            } => {
                let form = self.group_form(*group)?;
                let mut text = String::from("{ let mut t = Decimal::ZERO;");
                let add = |gen: &mut Self, text: &mut String, row: &[(String, Ty)]| -> Gened<()> {
                    let scope = Scope {
                        row: Some(row),
                        ..sc
                    };
                    let _ = write!(text, " spent += {};", 2 * nodes);
                    // The plan sums decimals only: a fraction gives the case up.
                    let b = gen.expr(body, scope)?.to(Ty::Dec);
                    let add = format!("t = add_dec(t, {b})?;");
                    match filter {
                        Some(f) => {
                            let f = gen.expr(f, scope)?.to(Ty::Bool);
                            let _ = write!(text, " if {f} {{ {add} }}");
                        }
                        None => {
                            let _ = write!(text, " {add}");
                        }
                    }
                    Ok(())
                };
                match &form {
                    GroupForm::Rows(rows) => {
                        for row in rows {
                            add(self, &mut text, row)?;
                        }
                    }
                    GroupForm::List(tys) => {
                        let row: Vec<(String, Ty)> = tys
                            .iter()
                            .enumerate()
                            .map(|(j, ty)| (format!("r.s{j}"), *ty))
                            .collect();
                        let _ = write!(text, " for r in g{group}.iter() {{");
                        add(self, &mut text, &row)?;
                        text.push_str(" }");
                    }
                }
                text.push_str(" t }");
                Ex::new(text, Ty::Dec)
            }
            Code::RowField(j) => match sc.row.and_then(|row| row.get(*j)) {
                Some((name, ty)) => self.local(name.clone(), *ty),
                None => return Err(Unsupported("a row field is read outside its sum".into())),
            },
            Code::Tree(node) => self.tree(node, sc)?,
        })
    }

    /// `x` at a rounding point. A step's rounding keeps a missing value
    /// (`keep_missing`); `round()` needs a number. `a × b / 10^k` (a payslip
    /// line) rounds in one step.
    fn rounded(
        &mut self,
        x: &Code,
        places: u32,
        mode: crate::num::RoundingMode,
        keep_missing: bool,
        sc: Scope,
    ) -> Gened<Ex> {
        if let Code::Arith(BinOp::Div, product, divisor) = x {
            if let Code::Arith(BinOp::Mul, a, b) = &**product {
                let (a, b, d) = (
                    self.expr(a, sc)?,
                    self.expr(b, sc)?,
                    self.expr(divisor, sc)?,
                );
                if a.ty.arith(b.ty) == Ty::Dec && d.ty.arith(Ty::Dec) == Ty::Dec {
                    return Ok(Ex::new(
                        format!(
                            "mul_div_round({}, {}, {}, {places}, RoundingMode::{mode:?})?",
                            a.to(Ty::Dec),
                            b.to(Ty::Dec),
                            d.to(Ty::Dec)
                        ),
                        Ty::Dec,
                    ));
                }
            }
        }
        let value = self.expr(x, sc)?;
        Ok(match value.ty {
            Ty::Val | Ty::Opt if keep_missing => Ex::new(
                format!(
                    "round_value({}, {places}, RoundingMode::{mode:?})?",
                    value.to(Ty::Val)
                ),
                Ty::Val,
            ),
            _ => round_point(value, places, mode),
        })
    }

    /// A node the plan leaves to the walker: comprehensions, the decision
    /// taken, a group read whole, and the functions of lists, tables and
    /// calendars, each by the runtime function that does what the walker does.
    fn tree(&mut self, node: &Node, sc: Scope) -> Gened<Ex> {
        let rb = self.rb;
        let (func, args) = match &node.kind {
            NodeKind::Call(func, args) => (func, args.as_slice()),
            NodeKind::Local(i) if *i < sc.depth => return Ok(Ex::place(format!("(*l{i})"))),
            NodeKind::Comprehension { body, list, filter } => {
                let list = self.node(list, sc)?.as_value();
                let d = sc.depth;
                let inner = Scope { depth: d + 1, ..sc };
                let keep = match filter {
                    Some(f) => format!("if {} ", self.node(f, inner)?.to(Ty::Bool)),
                    None => String::new(),
                };
                let body_text = self.node(body, inner)?.to(Ty::Val);
                let per_item = 2 * (node_count(body) + filter.as_deref().map_or(0, node_count));
                return Ok(Ex::new(
                    format!(
                        "{{ let mut out: Vec<Value> = Vec::new(); for l{d} in items({})?.iter() {{ \
                         spent += {per_item}; {keep}{{ out.push({body_text}); }} }} Value::List(out.into()) }}",
                        list.borrow()
                    ),
                    Ty::Val,
                ));
            }
            NodeKind::Decision => {
                let (_, d) = sc
                    .decided
                    .ok_or_else(|| Unsupported("`decision` is read before an answer".into()))?;
                return self.constant(&Value::Text(rb.decisions[d].name.clone()));
            }
            NodeKind::Reason => {
                let (k, _) = sc
                    .decided
                    .ok_or_else(|| Unsupported("`reason` is read before an answer".into()))?;
                return match &rb.checks[k].outcome {
                    CheckOutcome::Decide {
                        reason: Some(r), ..
                    } => self.constant(&Value::Text(r.clone())),
                    _ => Ok(Ex::new("Value::Absent".into(), Ty::Opt)),
                };
            }
            NodeKind::Clauses => return Ok(Ex::new("Value::Absent".into(), Ty::Opt)),
            NodeKind::Group(g) => return self.group_list(*g),
            other => return Err(Unsupported(format!("{} is not compiled", kind_name(other)))),
        };
        let table = |i: usize| match args.get(i).map(|a| &a.kind) {
            Some(NodeKind::Table(t)) => Ok(*t),
            _ => Err(Unsupported(format!("`{func:?}` of something not a table"))),
        };
        let arg = |gen: &mut Self, i: usize, ty: Ty| -> Gened<String> {
            let e = gen.node(&args[i], sc)?;
            Ok(match ty {
                Ty::Val => e.as_value().borrow(),
                ty => e.to(ty),
            })
        };
        let n = args.len();
        let (text, ty) = match (func, n) {
            (Func::Pow, 2) => {
                let (a, b) = (arg(self, 0, Ty::Num)?, arg(self, 1, Ty::Num)?);
                (format!("pow({a}, {b})?"), Ty::Dec)
            }
            (Func::Day, 1) => (format!("day({})?", arg(self, 0, Ty::Val)?), Ty::Dec),
            (Func::DaysInMonth, 1) => (
                format!("days_in_month({})?", arg(self, 0, Ty::Val)?),
                Ty::Dec,
            ),
            (Func::Lookup, 2..) => {
                let t = table(0)?;
                let keys = (1..n)
                    .map(|i| self.node(&args[i], sc).map(|k| k.to(Ty::Val)))
                    .collect::<Gened<Vec<String>>>()?;
                (
                    format!("lookup(rb, facts, {t}, &[{}])?", keys.join(", ")),
                    Ty::Val,
                )
            }
            (Func::PeriodRow, 2) => {
                let t = table(0)?;
                let key = arg(self, 1, Ty::Val)?;
                (format!("period_row(rb, facts, {t}, {key})?"), Ty::Val)
            }
            (Func::RangeRow, 2) => {
                let t = table(0)?;
                let x = arg(self, 1, Ty::Num)?;
                (format!("range_row(rb, facts, {t}, {x})?"), Ty::Val)
            }
            (Func::Scale, 2 | 3) => {
                let t = table(0)?;
                let x = arg(self, 1, Ty::Num)?;
                let round_each = match args.get(2).map(|a| &a.kind) {
                    Some(NodeKind::Const(Value::Number(p))) => {
                        let p = crate::eval::ops::whole(*p, "places")
                            .map_err(|e| Unsupported(format!("`scale`: {e}")))?;
                        u32::try_from(p).ok()
                    }
                    _ => None,
                };
                (
                    format!("scale(rb, facts, {t}, {x}, {round_each:?})?"),
                    Ty::Num,
                )
            }
            (Func::Rows, 1) => (format!("table_rows(rb, facts, {})?", table(0)?), Ty::Val),
            (Func::Count, 1) => (format!("count({})?", arg(self, 0, Ty::Val)?), Ty::Dec),
            (Func::Sum, 1) => (format!("sum({})?", arg(self, 0, Ty::Val)?), Ty::Num),
            (Func::Any | Func::All, 1) => (
                format!(
                    "any_all({}, {})?",
                    arg(self, 0, Ty::Val)?,
                    *func == Func::Any
                ),
                Ty::Bool,
            ),
            (Func::Min | Func::Max, 1) => (
                format!(
                    "extremum_of({}, {})?",
                    arg(self, 0, Ty::Val)?,
                    *func == Func::Max
                ),
                Ty::Val,
            ),
            (Func::FindIndex, 1) => (format!("find_index({})?", arg(self, 0, Ty::Val)?), Ty::Val),
            (Func::Get, 2) => {
                let (m, k) = (arg(self, 0, Ty::Val)?, arg(self, 1, Ty::Val)?);
                (format!("get({m}, {k})?"), Ty::Val)
            }
            (Func::Keys | Func::Values, 1) => (
                format!(
                    "keys_values({}, {})?",
                    arg(self, 0, Ty::Val)?,
                    *func == Func::Keys
                ),
                Ty::Val,
            ),
            (Func::Abs, 1) => (format!("abs({})", arg(self, 0, Ty::Num)?), Ty::Num),
            (Func::Clamp, 3) => {
                let x = arg(self, 0, Ty::Num)?;
                let lo = arg(self, 1, Ty::Num)?;
                let hi = arg(self, 2, Ty::Num)?;
                (format!("clamp({x}, {lo}, {hi})?"), Ty::Num)
            }
            (Func::Age, 2) => {
                let (a, b) = (arg(self, 0, Ty::Val)?, arg(self, 1, Ty::Val)?);
                (format!("age({a}, {b})?"), Ty::Dec)
            }
            (Func::DaysBetween, 2) => {
                let (a, b) = (arg(self, 0, Ty::Val)?, arg(self, 1, Ty::Val)?);
                (format!("days_between({a}, {b})?"), Ty::Dec)
            }
            (Func::AddYears, 2) => {
                let (a, b) = (arg(self, 0, Ty::Val)?, arg(self, 1, Ty::Num)?);
                (format!("add_years({a}, {b})?"), Ty::Val)
            }
            (Func::AddMonths, 2) => {
                let (a, b) = (arg(self, 0, Ty::Val)?, arg(self, 1, Ty::Num)?);
                (format!("add_months({a}, {b})?"), Ty::Val)
            }
            (Func::MonthOf, 1) => (format!("month_of({})?", arg(self, 0, Ty::Val)?), Ty::Val),
            (Func::Year, 1) => (format!("year({})?", arg(self, 0, Ty::Val)?), Ty::Dec),
            (Func::IsNull, 1) => (
                format!("({} == &Value::Null)", arg(self, 0, Ty::Val)?),
                Ty::Bool,
            ),
            (Func::Date | Func::Month, 1) => return self.node(&args[0], sc),
            _ => return Err(Unsupported(format!("`{func:?}` is not compiled"))),
        };
        Ok(Ex::new(text, ty))
    }

    /// A formula node inside a tree node: lowered as its context was, then generated.
    fn node(&mut self, node: &Node, sc: Scope) -> Gened<Ex> {
        let code = match sc.row {
            Some(_) => Plan::lower_in_row(self.rb, node),
            None => Plan::lower(self.rb, node),
        };
        self.expr(&code, sc)
    }

    /// A group read whole: the list of its items' records.
    fn group_list(&mut self, g: usize) -> Gened<Ex> {
        let as_value = |name: &str, ty: Ty| {
            Ex {
                text: name.to_string(),
                ty,
                place: true,
            }
            .to(Ty::Val)
        };
        let text = match self.group_form(g)? {
            GroupForm::Rows(rows) => {
                let records: Vec<String> = rows
                    .iter()
                    .map(|row| {
                        let fields: Vec<String> =
                            row.iter().map(|(name, ty)| as_value(name, *ty)).collect();
                        format!("item_record(rb, {g}, vec![{}])?", fields.join(", "))
                    })
                    .collect();
                format!("Value::List(Arc::from(vec![{}]))", records.join(", "))
            }
            GroupForm::List(tys) => {
                let fields: Vec<String> = tys
                    .iter()
                    .enumerate()
                    .map(|(j, ty)| as_value(&format!("r.s{j}"), *ty))
                    .collect();
                format!(
                    "{{ let mut list = Vec::with_capacity(g{g}.len()); for r in g{g}.iter() {{ \
                     list.push(item_record(rb, {g}, vec![{}])?); }} Value::List(list.into()) }}",
                    fields.join(", ")
                )
            }
        };
        Ok(Ex::new(text, Ty::Val))
    }

    fn group_form(&self, g: usize) -> Gened<GroupForm> {
        self.groups
            .get(g)
            .cloned()
            .flatten()
            .ok_or_else(|| Unsupported(format!("group {g} is read before it is computed")))
    }

    /// The declared kind of what `code` reads, when it reads an input, a
    /// field of one, or an item of a list input.
    fn input_kind(&self, code: &Code, sc: Scope<'_>) -> Option<&'r InputKind> {
        let rb: &'r Rulebook = self.rb;
        match code {
            Code::Input(i) => rb.inputs.get(*i).map(|input| &input.kind),
            Code::Field(base, index) => match self.input_kind(base, sc)? {
                InputKind::Record { fields, .. } => fields.get(*index).map(|f| &f.kind),
                _ => None,
            },
            Code::Item => {
                let g = sc.group?;
                match self.input_kind(
                    &Plan::lower(rb, &rb.groups.get(g)?.over.node),
                    Scope::default(),
                )? {
                    InputKind::List { item, .. } => Some(&item.kind),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// A local: a `Value` one is read in place.
    fn local(&self, name: String, ty: Ty) -> Ex {
        match ty {
            Ty::Val | Ty::Opt => Ex {
                ty,
                ..Ex::place(name)
            },
            _ => Ex::new(name, ty),
        }
    }

    /// A constant: numbers and booleans inline, other values in statics built once.
    fn constant(&mut self, v: &Value) -> Gened<Ex> {
        let (init, ty, decl) = match v {
            Value::Number(d) => (num_literal(*d), Ty::Dec, "const"),
            Value::Bool(b) => return Ok(Ex::new(b.to_string(), Ty::Bool)),
            Value::Absent => return Ok(Ex::new("Value::Absent".into(), Ty::Opt)),
            Value::Null => return Ok(Ex::new("Value::Null".into(), Ty::Opt)),
            Value::Text(t) => (
                format!("LazyLock::new(|| text({:?}))", &**t),
                Ty::Val,
                "static",
            ),
            Value::Date(d) => {
                use chrono::Datelike;
                let init = format!(
                    "LazyLock::new(|| date({}, {}, {}))",
                    d.year(),
                    d.month(),
                    d.day()
                );
                (init, Ty::Val, "static")
            }
            Value::Month(m) => (
                format!(
                    "Value::Month(Month {{ year: {}, month: {} }})",
                    m.year, m.month
                ),
                Ty::Val,
                "const",
            ),
            other => {
                return Err(Unsupported(format!(
                    "a constant {} is not compiled",
                    other.kind_name()
                )))
            }
        };
        let name = match self.const_names.get(&init) {
            Some(name) => name.clone(),
            None => {
                let name = format!("K{}", self.const_names.len());
                let rust_ty = match (ty, decl) {
                    (Ty::Dec, _) => "Decimal",
                    (_, "static") => "LazyLock<Value>",
                    _ => "Value",
                };
                self.consts
                    .push(format!("{decl} {name}: {rust_ty} = {init};"));
                self.const_names.insert(init, name.clone());
                name
            }
        };
        Ok(match (ty, decl) {
            (Ty::Dec, _) => Ex::new(name, Ty::Dec),
            (_, "static") => Ex::place(format!("(*{name})")),
            _ => Ex::place(name),
        })
    }
}

impl Ex {
    /// The same expression, as a `Value`.
    fn as_value(&self) -> Ex {
        match self.ty {
            Ty::Val | Ty::Opt => self.clone(),
            _ => Ex::new(self.to(Ty::Val), Ty::Val),
        }
    }
}

/// A rounding point on a number.
fn round_point(x: Ex, places: u32, mode: crate::num::RoundingMode) -> Ex {
    let text = match x.ty {
        Ty::Dec => format!("round_dec({}, {places}, RoundingMode::{mode:?})", x.text),
        _ => format!(
            "round({}, {places}, RoundingMode::{mode:?})?",
            x.to(Ty::Num)
        ),
    };
    Ex::new(text, Ty::Dec)
}

/// How a value of an input of this kind is held: a decimal input holds a
/// decimal or nothing.
fn value_ty(kind: Option<&InputKind>) -> Ty {
    match kind {
        Some(InputKind::Money(_) | InputKind::Decimal(_) | InputKind::Integer { .. }) => Ty::Opt,
        _ => Ty::Val,
    }
}

/// `sum(g.field)`: the plan sums decimals only.
fn sum_column(g: usize, j: usize, form: &GroupForm) -> String {
    let dec = |name: String, ty: Ty| {
        Ex {
            text: name,
            ty,
            place: true,
        }
        .to(Ty::Dec)
    };
    match form {
        GroupForm::Rows(rows) => {
            let mut text = String::from("{ let mut t = Decimal::ZERO;");
            for row in rows {
                let (name, ty) = &row[j];
                let _ = write!(text, " t = add_dec(t, {})?;", dec(name.clone(), *ty));
            }
            text.push_str(" t }");
            text
        }
        GroupForm::List(tys) => format!(
            "{{ let mut t = Decimal::ZERO; for r in g{g}.iter() {{ t = add_dec(t, {})?; }} t }}",
            dec(format!("r.s{j}"), tys[j])
        ),
    }
}

/// A decimal as a `const` expression, digits and scale as held.
fn num_literal(d: Decimal) -> String {
    let m = d.mantissa().unsigned_abs();
    format!(
        "Decimal::from_parts({}, {}, {}, {}, {})",
        m as u32,
        (m >> 32) as u32,
        (m >> 64) as u32,
        d.is_sign_negative(),
        d.scale()
    )
}

/// The order to compute an item's steps in: each after the item steps it reads.
fn item_order(steps: &[StepCode]) -> Gened<Vec<usize>> {
    fn visit(j: usize, steps: &[StepCode], state: &mut [u8], order: &mut Vec<usize>) -> Gened<()> {
        match state[j] {
            2 => return Ok(()),
            1 => return Err(Unsupported("an item step depends on itself".into())),
            _ => {}
        }
        state[j] = 1;
        let mut reads = Vec::new();
        for c in step_codes(&steps[j]) {
            item_deps(c, &mut reads);
        }
        for k in reads {
            if k < steps.len() {
                visit(k, steps, state, order)?;
            }
        }
        state[j] = 2;
        order.push(j);
        Ok(())
    }
    let mut state = vec![0u8; steps.len()];
    let mut order = Vec::with_capacity(steps.len());
    for j in 0..steps.len() {
        visit(j, steps, &mut state, &mut order)?;
    }
    Ok(order)
}

/// A step's codes in the order they run: condition, formula, otherwise.
fn step_codes(code: &StepCode) -> impl Iterator<Item = &Code> {
    code.when
        .iter()
        .chain(std::iter::once(&code.expr))
        .chain(code.otherwise.iter())
}

/// What `code` reads whenever it is evaluated; what it reads only on some
/// branch is computed on that branch (`Gen::lazy`).
fn code_deps(code: &Code, out: &mut Vec<Dep>) {
    match code {
        Code::Step(i) => out.push(Dep::Step(*i)),
        Code::Param(i) => out.push(Dep::Param(*i)),
        Code::SumColumn(g, _) | Code::SumRows { group: g, .. } => out.push(Dep::Group(*g)),
        Code::Tree(node) => visit_node(node, &mut |n| match n.kind {
            NodeKind::Step(i) => out.push(Dep::Step(i)),
            NodeKind::Param(i) => out.push(Dep::Param(i)),
            NodeKind::Group(g) => out.push(Dep::Group(g)),
            _ => {}
        }),
        // What every branch reads is read whenever the choice is made.
        Code::If(parts) => {
            let both = shared_deps([&parts.1, &parts.2]);
            out.extend(both);
        }
        Code::Match(_, arms, otherwise) => {
            let all = shared_deps(
                arms.iter()
                    .map(|(_, v)| v)
                    .chain(std::iter::once(&**otherwise)),
            );
            out.extend(all);
        }
        _ => {}
    }
    for c in children(code, true) {
        code_deps(c, out);
    }
}

/// What every one of `codes` reads whenever it is evaluated.
fn shared_deps<'c>(codes: impl IntoIterator<Item = &'c Code>) -> Vec<Dep> {
    let mut shared: Option<Vec<Dep>> = None;
    for code in codes {
        let mut deps = Vec::new();
        code_deps(code, &mut deps);
        shared = Some(match shared {
            None => deps,
            Some(prev) => prev.into_iter().filter(|d| deps.contains(d)).collect(),
        });
    }
    shared.unwrap_or_default()
}

fn item_deps(code: &Code, out: &mut Vec<usize>) {
    visit_code(code, &mut |c| match c {
        Code::ItemStep(j) => out.push(*j),
        Code::Tree(node) => visit_node(node, &mut |n| {
            if let NodeKind::ItemStep(j) = n.kind {
                out.push(j);
            }
        }),
        _ => {}
    });
}

/// Calls `f` on `code` and every code under it, parents first.
fn visit_code(code: &Code, f: &mut dyn FnMut(&Code)) {
    f(code);
    for c in children(code, false) {
        visit_code(c, f);
    }
}

/// The codes directly under `code`; with `strict`, only those evaluated
/// whenever `code` is (not the right of `and`/`or`, the branches of `if`
/// and `match`, the later arguments of `coalesce`).
fn children(code: &Code, strict: bool) -> Vec<&Code> {
    match code {
        Code::Field(a, _)
        | Code::Not(a)
        | Code::Neg(a)
        | Code::Round(a, ..)
        | Code::IsMissing(a) => vec![a],
        Code::And(a, b) | Code::Or(a, b) if strict => {
            let _ = b;
            vec![a]
        }
        Code::Arith(_, a, b) | Code::Compare(_, a, b) | Code::And(a, b) | Code::Or(a, b) => {
            vec![a, b]
        }
        Code::If(parts) if strict => vec![&parts.0],
        Code::If(parts) => vec![&parts.0, &parts.1, &parts.2],
        Code::Match(s, _, _) if strict => vec![s],
        Code::Match(s, arms, o) => std::iter::once(&**s)
            .chain(arms.iter().map(|(_, v)| v))
            .chain(std::iter::once(&**o))
            .collect(),
        Code::Coalesce(args) if strict => args.iter().take(1).collect(),
        Code::Extremum(_, args) | Code::Coalesce(args) => args.iter().collect(),
        Code::SumRows { filter, body, .. } => filter
            .iter()
            .map(|f| &**f)
            .chain(std::iter::once(&**body))
            .collect(),
        _ => Vec::new(),
    }
}

fn visit_node(node: &Node, f: &mut dyn FnMut(&Node)) {
    f(node);
    for c in node.children() {
        visit_node(c, f);
    }
}

/// What the walker may spend on a formula, comprehension bodies once (the
/// generated loops count their items): a unit per node, and one more for
/// the base of a field read in place.
fn spend(formula: Option<&Formula>) -> u64 {
    formula.map_or(0, |f| 2 * node_count(&f.node))
}

fn step_spend(step: &Step) -> u64 {
    spend(step.when.as_ref()) + spend(Some(&step.expr)) + spend(step.otherwise.as_ref())
}

fn kind_name(kind: &NodeKind) -> &'static str {
    match kind {
        NodeKind::Comprehension { .. } => "a list comprehension",
        NodeKind::Group(_) => "a group read whole",
        NodeKind::Local(_) => "a comprehension variable",
        NodeKind::Decision => "`decision`",
        NodeKind::Reason => "`reason`",
        NodeKind::Clauses => "`clauses`",
        _ => "this form",
    }
}

#[cfg(test)]
mod tests;
