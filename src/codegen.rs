//! Rust source from a rulebook's plan: the generator behind `bareme compile`.
//!
//! The generated module holds one function that evaluates a case the way
//! the interpreter's untraced road does, with the same operations
//! (`compiled::rt`), but with the plan's dispatch and memo gone: every step
//! is a typed local (`Num`, `bool`, or `Value` when its kind varies), a group
//! over constant rows is unrolled row by row, a group over a list input is a
//! loop over a struct of its item steps.
//!
//! Steps are computed in dependency order where first needed: before the
//! check that reads them, or inside the branch of the decision whose answer
//! reads them. That is every step the walker may compute, and maybe more;
//! as any fault or surprise makes the code give up and hand the case to the
//! interpreter (see `compiled`), computing more never changes an outcome.
//! A formula the generator does not compile gives up where it is needed, and
//! is listed in [`Generated::fallbacks`].

use std::collections::HashMap;
use std::fmt::Write as _;

use rust_decimal::Decimal;
use sha2::{Digest, Sha256};

use crate::eval::plan::{Code, GroupCode, Plan, StepCode};
use crate::rulebook::model::{
    CheckOutcome, Func, Node, NodeKind, OutputValue, ParamValue, Rulebook,
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
        step_ty: vec![Ty::Val; rb.steps.len()],
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
         #![allow(unreachable_code, unused_mut, unused_variables, unused_parens, clippy::all)]\n\
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
}

impl Ty {
    fn numeric(self) -> bool {
        matches!(self, Ty::Dec | Ty::Num)
    }

    /// The type both branches of a choice fit.
    fn join(self, other: Ty) -> Ty {
        match (self, other) {
            (a, b) if a == b => a,
            (a, b) if a.numeric() && b.numeric() => Ty::Num,
            _ => Ty::Val,
        }
    }

    /// The type arithmetic on these operands is done in: decimals unless a
    /// fraction may be met. A `Value` operand is read as the other operand's
    /// type (a fraction where a decimal is expected gives the case up).
    fn arith(self, other: Ty) -> Ty {
        match (self, other) {
            (Ty::Num, _) | (_, Ty::Num) | (Ty::Val, Ty::Val) => Ty::Num,
            _ => Ty::Dec,
        }
    }

    fn rust(self) -> &'static str {
        match self {
            Ty::Dec => "Decimal",
            Ty::Num => "Num",
            Ty::Bool => "bool",
            Ty::Val => "Value",
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
            (a, b) if a == b && !(a == Ty::Val && self.place) => t.clone(),
            (Ty::Val, Ty::Val) => format!("{t}.clone()"),
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
    step_ty: Vec<Ty>,
    groups: Vec<Option<GroupForm>>,
}

impl Gen<'_> {
    fn run(&mut self) -> String {
        let mut out = String::from(
            "fn run(rb: &Rulebook, facts: &Facts) -> Option<Outcome> {\n    \
             if !fits(rb, facts) {\n        return None;\n    }\n    \
             let x = &facts.values;\n",
        );
        out.push_str(&self.budget());
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
        out
    }

    /// A guard against cases whose evaluation could exceed the step budget:
    /// the interpreter then decides. Every node the walker evaluates spends at
    /// most two units (a field read spends for its base), and it evaluates a
    /// formula once, a group's formulas once per item.
    fn budget(&self) -> String {
        let rb = self.rb;
        let formulas = |steps: &[crate::rulebook::model::Step]| -> u64 {
            steps
                .iter()
                .map(|s| {
                    nodes(&s.expr.node)
                        + s.when.as_ref().map_or(0, |w| nodes(&w.node))
                        + s.otherwise.as_ref().map_or(0, |o| nodes(&o.node))
                })
                .sum()
        };
        let mut fixed = formulas(&rb.steps);
        fixed += rb
            .checks
            .iter()
            .filter_map(|c| c.when.as_ref())
            .map(|w| nodes(&w.node))
            .sum::<u64>();
        for d in &rb.decisions {
            fixed += d.cite.iter().map(|(w, _)| nodes(&w.node)).sum::<u64>();
            for o in &d.answer {
                if let OutputValue::Value { expr, .. } = &o.value {
                    fixed += nodes(&expr.node);
                }
            }
        }
        for p in &rb.params {
            if let ParamValue::Dated { at, .. } = &p.value {
                fixed += nodes(&at.node);
            }
        }
        let per_item: u64 = rb
            .groups
            .iter()
            .map(|g| formulas(&g.steps) + nodes(&g.over.node))
            .sum();
        let mut out = String::from("    let mut items: u64 = 1;\n");
        let mut nested = false;
        for (g, group) in rb.groups.iter().enumerate() {
            nested |= group.steps.iter().any(|s| {
                let mut found = false;
                visit_node(&s.expr.node, &mut |n| {
                    found |= matches!(n.kind, NodeKind::Comprehension { .. })
                });
                found
            });
            match (&self.plan.groups[g], &group.over.node.kind) {
                (GroupCode::Rows(rows), _) => {
                    let _ = writeln!(out, "    items += {};", rows.len());
                }
                (GroupCode::Any(_), NodeKind::Input(i)) => {
                    let _ = writeln!(out, "    items += items_len(&x[{i}]);");
                }
                // A group this code does not compute gives up before it is read.
                _ => {}
            }
        }
        let per_case = if nested { "items * items" } else { "items" };
        let _ = writeln!(
            out,
            "    if ({fixed}u64 + {per_item}u64).saturating_mul({per_case}).saturating_mul(2) > budget(rb) {{\n        \
             return None;\n    }}"
        );
        out
    }

    /// The answer of decision `d`, chosen by check `k`, returned.
    fn decision(&mut self, k: usize, d: usize, out: &mut String) -> Gened<()> {
        let (rb, plan) = (self.rb, self.plan);
        let decision = &rb.decisions[d];
        let mut cites = Vec::new();
        for (c, (when, _)) in decision.cite.iter().enumerate() {
            let code = Plan::lower(rb, &when.node);
            self.needs(&code, out)?;
            cites.push((c, self.expr(&code, Scope::default())?));
        }
        let mut fields = Vec::new();
        for (o, output) in decision.answer.iter().enumerate() {
            let (Some(Some(code)), OutputValue::Value { format, .. }) =
                (plan.answers[d].get(o), &output.value)
            else {
                return Err(Unsupported(format!(
                    "answer field `{}` lists a group's items",
                    output.key
                )));
            };
            self.needs(code, out)?;
            let e = self.expr(code, Scope::default())?;
            let value = match e.ty {
                Ty::Dec => format!("answer_dec({}, Format::{format:?}, &clauses)?", e.text),
                Ty::Num => format!("answer_num({}, Format::{format:?}, &clauses)?", e.text),
                _ => format!(
                    "answer({}, Format::{format:?}, &clauses)?",
                    e.as_value().borrow()
                ),
            };
            fields.push((output.key.clone(), value));
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
            "        let mut answer = serde_json::Map::with_capacity({});",
            fields.len()
        );
        for (key, value) in fields {
            let _ = writeln!(
                out,
                "        answer.insert({:?}.to_string(), {value});",
                &*key
            );
        }
        out.push_str("        return Some(Outcome::Answer(serde_json::Value::Object(answer)));\n");
        Ok(())
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

    fn step(&mut self, i: usize, out: &mut String) -> Gened<()> {
        let plan = self.plan;
        let code = &plan.steps[i];
        self.step_needs(code, out)?;
        let e = self
            .step_code(code, Scope::default())
            .map_err(|Unsupported(why)| {
                Unsupported(format!("step `{}`: {why}", self.rb.steps[i].name))
            })?;
        self.step_ty[i] = e.ty;
        let _ = writeln!(
            out,
            "    let s{i}: {} = {}; // {}",
            e.ty.rust(),
            e.to(e.ty),
            self.rb.steps[i].name
        );
        Ok(())
    }

    fn step_needs(&mut self, code: &StepCode, out: &mut String) -> Gened<()> {
        for c in step_codes(code) {
            self.needs(c, out)?;
        }
        Ok(())
    }

    fn param(&mut self, i: usize, out: &mut String) -> Gened<()> {
        let rb = self.rb;
        let ParamValue::Dated { at, .. } = &rb.params[i].value else {
            return Ok(());
        };
        let code = Plan::lower(rb, &at.node);
        self.needs(&code, out)?;
        let key = self.expr(&code, Scope::default())?;
        let key = match key.ty {
            Ty::Val => key.borrow(),
            _ => format!("&{}", key.to(Ty::Val)),
        };
        let _ = writeln!(
            out,
            "    let p{i}: Value = dated(rb, {i}, {key})?; // {}",
            rb.params[i].name
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
        match &plan.groups[g] {
            GroupCode::Rows(rows) => {
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
                                    row: None,
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
                let NodeKind::Input(input) = group.over.node.kind else {
                    return Err(Unsupported(format!(
                        "group `{name}` is over `{}`, not a list input",
                        group.over.text
                    )));
                };
                let mut body = String::new();
                let mut locals: Vec<Option<(String, Ty)>> = vec![None; steps.len()];
                for j in item_order(steps)? {
                    let scope = Scope {
                        item: Some(("(*it)", &locals)),
                        row: None,
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
                self.structs.push(decl);
                let _ = writeln!(out, "    // group {name}");
                let _ = writeln!(out, "    let gl{g} = items(&x[{input}])?;");
                let _ = writeln!(
                    out,
                    "    let mut g{g}: Vec<G{g}> = Vec::with_capacity(gl{g}.len());"
                );
                let _ = writeln!(out, "    for it in gl{g}.iter() {{");
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
        let mut value = self.expr(&code.expr, sc)?;
        if let Some((places, mode)) = code.round {
            value = match value.ty {
                Ty::Val => Ex::new(
                    format!(
                        "round_value({}, {places}, RoundingMode::{mode:?})?",
                        value.to(Ty::Val)
                    ),
                    Ty::Val,
                ),
                _ => round_point(value, places, mode),
            };
        }
        let Some(when) = &code.when else {
            return Ok(value);
        };
        let cond = self.expr(when, sc)?.to(Ty::Bool);
        let otherwise = match &code.otherwise {
            Some(o) => self.expr(o, sc)?,
            None => Ex::new("Value::Absent".into(), Ty::Val),
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
            Code::Input(i) => Ex::place(format!("x[{i}]")),
            Code::Step(i) => self.local(format!("s{i}"), self.step_ty[*i]),
            Code::Param(i) => Ex::place(format!("p{i}")),
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
                let b = self.expr(base, sc)?;
                Ex::new(
                    format!("field({}, {index})?", b.as_value().borrow()),
                    Ty::Val,
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
                if !a.ty.numeric() && !b.ty.numeric() {
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
                let (a, b) = (self.expr(a, sc)?, self.expr(b, sc)?);
                Ex::new(
                    format!("({} && {})", a.to(Ty::Bool), b.to(Ty::Bool)),
                    Ty::Bool,
                )
            }
            Code::Or(a, b) => {
                let (a, b) = (self.expr(a, sc)?, self.expr(b, sc)?);
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
                let (a, b) = (self.expr(&parts.1, sc)?, self.expr(&parts.2, sc)?);
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
                    values.push(self.expr(value, sc)?);
                }
                values.push(self.expr(otherwise, sc)?);
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
            Code::Round(x, places, mode) => round_point(self.expr(x, sc)?, *places, *mode),
            Code::Extremum(func, args) => {
                let max = *func == Func::Max;
                let args = args
                    .iter()
                    .map(|a| self.expr(a, sc))
                    .collect::<Gened<Vec<Ex>>>()?;
                let ty = args.iter().fold(args[0].ty, |t, a| t.join(a.ty));
                let mut text = args[0].to(ty);
                for a in &args[1..] {
                    text = match ty {
                        Ty::Dec => format!("better_dec({text}, {}, {max})", a.text),
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
                for a in args {
                    let e = self.expr(a, sc)?;
                    if e.ty != Ty::Val {
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
                Ex::new(text, Ty::Val)
            }
            Code::IsMissing(a) => {
                let e = self.expr(a, sc)?;
                match e.ty {
                    Ty::Val => Ex::new(format!("({}).is_missing()", e.text), Ty::Bool),
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
            } => {
                let form = self.group_form(*group)?;
                let mut text = String::from("{ let mut t = Decimal::ZERO;");
                let add = |gen: &mut Self, text: &mut String, row: &[(String, Ty)]| -> Gened<()> {
                    let scope = Scope {
                        item: sc.item,
                        row: Some(row),
                    };
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

    /// A node the plan leaves to the walker: the calendar and table functions
    /// the rulebooks use are compiled, anything else gives up.
    fn tree(&mut self, node: &Node, sc: Scope) -> Gened<Ex> {
        let rb = self.rb;
        let NodeKind::Call(func, args) = &node.kind else {
            return Err(Unsupported(format!(
                "{} is not compiled",
                kind_name(&node.kind)
            )));
        };
        let arg = |gen: &mut Self, i: usize| -> Gened<Ex> {
            let code = Plan::lower(rb, &args[i]);
            gen.expr(&code, sc)
        };
        Ok(match (func, args.len()) {
            (Func::Pow, 2) => {
                let (a, b) = (arg(self, 0)?.to(Ty::Num), arg(self, 1)?.to(Ty::Num));
                Ex::new(format!("pow({a}, {b})?"), Ty::Dec)
            }
            (Func::Day, 1) => Ex::new(
                format!("day({})?", arg(self, 0)?.as_value().borrow()),
                Ty::Dec,
            ),
            (Func::DaysInMonth, 1) => Ex::new(
                format!("days_in_month({})?", arg(self, 0)?.as_value().borrow()),
                Ty::Dec,
            ),
            (Func::Lookup, n) if n >= 2 => {
                let NodeKind::Table(t) = args[0].kind else {
                    return Err(Unsupported("`lookup` of something not a table".into()));
                };
                let keys = (1..n)
                    .map(|i| arg(self, i).map(|k| k.to(Ty::Val)))
                    .collect::<Gened<Vec<String>>>()?;
                Ex::new(
                    format!("lookup(rb, facts, {t}, &[{}])?", keys.join(", ")),
                    Ty::Val,
                )
            }
            _ => return Err(Unsupported(format!("`{func:?}` is not compiled"))),
        })
    }

    fn group_form(&self, g: usize) -> Gened<GroupForm> {
        self.groups
            .get(g)
            .cloned()
            .flatten()
            .ok_or_else(|| Unsupported(format!("group {g} is read before it is computed")))
    }

    /// A local: a `Value` one is read in place.
    fn local(&self, name: String, ty: Ty) -> Ex {
        match ty {
            Ty::Val => Ex::place(name),
            _ => Ex::new(name, ty),
        }
    }

    /// A constant: numbers and booleans inline, other values in statics built once.
    fn constant(&mut self, v: &Value) -> Gened<Ex> {
        let (init, ty, decl) = match v {
            Value::Number(d) => (num_literal(*d), Ty::Dec, "const"),
            Value::Bool(b) => return Ok(Ex::new(b.to_string(), Ty::Bool)),
            Value::Absent => return Ok(Ex::new("Value::Absent".into(), Ty::Val)),
            Value::Null => return Ok(Ex::new("Value::Null".into(), Ty::Val)),
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
            Ty::Val => self.clone(),
            _ => Ex::new(self.to(Ty::Val), Ty::Val),
        }
    }
}

/// A rounding point on a number.
fn round_point(x: Ex, places: u32, mode: crate::rounding::RoundingMode) -> Ex {
    let text = match x.ty {
        Ty::Dec => format!("round_dec({}, {places}, RoundingMode::{mode:?})", x.text),
        _ => format!(
            "round({}, {places}, RoundingMode::{mode:?})?",
            x.to(Ty::Num)
        ),
    };
    Ex::new(text, Ty::Dec)
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

fn code_deps(code: &Code, out: &mut Vec<Dep>) {
    visit_code(code, &mut |c| match c {
        Code::Step(i) => out.push(Dep::Step(*i)),
        Code::Param(i) => out.push(Dep::Param(*i)),
        Code::SumColumn(g, _) | Code::SumRows { group: g, .. } => out.push(Dep::Group(*g)),
        Code::Tree(node) => visit_node(node, &mut |n| match n.kind {
            NodeKind::Step(i) => out.push(Dep::Step(i)),
            NodeKind::Param(i) => out.push(Dep::Param(i)),
            NodeKind::Group(g) => out.push(Dep::Group(g)),
            _ => {}
        }),
        _ => {}
    });
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
    match code {
        Code::Field(a, _)
        | Code::Not(a)
        | Code::Neg(a)
        | Code::Round(a, ..)
        | Code::IsMissing(a) => visit_code(a, f),
        Code::Arith(_, a, b) | Code::Compare(_, a, b) | Code::And(a, b) | Code::Or(a, b) => {
            visit_code(a, f);
            visit_code(b, f);
        }
        Code::If(parts) => {
            visit_code(&parts.0, f);
            visit_code(&parts.1, f);
            visit_code(&parts.2, f);
        }
        Code::Match(s, arms, o) => {
            visit_code(s, f);
            for (_, v) in arms {
                visit_code(v, f);
            }
            visit_code(o, f);
        }
        Code::Extremum(_, args) | Code::Coalesce(args) => {
            for a in args {
                visit_code(a, f);
            }
        }
        Code::SumRows { filter, body, .. } => {
            if let Some(filter) = filter {
                visit_code(filter, f);
            }
            visit_code(body, f);
        }
        _ => {}
    }
}

fn visit_node(node: &Node, f: &mut dyn FnMut(&Node)) {
    f(node);
    for c in node.children() {
        visit_node(c, f);
    }
}

/// The nodes of a formula, each evaluated at most once per evaluation of it
/// (a comprehension's body once per item: counted by the caller).
fn nodes(node: &Node) -> u64 {
    let mut n = 0;
    visit_node(node, &mut |_| n += 1);
    n
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
