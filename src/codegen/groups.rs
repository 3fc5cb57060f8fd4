//! Per-item groups in generated code: computed unrolled or in a loop, and
//! read by a sum of a column, a sum over rows, or whole as a list.
//!
//! A group over constant rows is unrolled row by row (each item step a
//! local, known steps folded in), so a payslip's schedule is straight-line
//! arithmetic; a group over a list input is a loop filling a `Vec` of a
//! struct of its item steps. Readers of a group go through [`GroupForm`], so
//! they work on either.
//!
//! Invariant: a group is read only after it is computed on the branch at
//! hand; otherwise generation gives up.

use std::fmt::Write as _;

use super::deps::item_order;
use super::state::{spend, step_spend, Gen, Gened, GroupForm, Scope, Unsupported};
use super::ty::{Ex, Ty};
use crate::model::code::Code;
use crate::model::{SpecializedRow, Step};

impl Gen<'_> {
    pub(super) fn group(&mut self, g: usize, out: &mut String) -> Gened<()> {
        let rb = self.rb;
        let group = &rb.groups[g];
        let steps: Vec<&Step> = match &group.specialized {
            Some(s) => s.rows.iter().flat_map(|r| &r.steps).collect(),
            None => group.steps.iter().collect(),
        };
        for step in steps {
            self.step_needs(step, out)?;
        }
        let per_item: u64 = group.steps.iter().map(step_spend).sum();
        let _ = writeln!(out, "    spent += {};", spend(Some(&group.over)));
        let form = match &group.specialized {
            Some(s) => GroupForm::Rows(self.unrolled(g, &s.rows, per_item, out)?),
            None => GroupForm::List(self.looped(g, &group.steps, per_item, out)?),
        };
        self.groups[g] = Some(form);
        Ok(())
    }

    /// A group over constant rows, row by row: the locals of each row's steps.
    fn unrolled(
        &mut self,
        g: usize,
        rows: &[SpecializedRow],
        per_item: u64,
        out: &mut String,
    ) -> Gened<Vec<Vec<(String, Ty)>>> {
        let group = &self.rb.groups[g];
        let name = &group.name;
        let _ = writeln!(out, "    spent += {};", per_item * rows.len() as u64);
        let _ = writeln!(out, "    // group {name}, unrolled");
        let _ = writeln!(out, "    let gi{g} = constant_items(rb, {g})?;");
        let _ = writeln!(
            out,
            "    if gi{g}.len() != {} {{\n        return None;\n    }}",
            rows.len()
        );
        let mut form = Vec::with_capacity(rows.len());
        for (r, row) in rows.iter().enumerate() {
            let steps = &row.steps;
            let item = format!("gi{g}[{r}]");
            let mut locals: Vec<Option<(String, Ty)>> = vec![None; steps.len()];
            for j in item_order(steps)? {
                let local = format!("g{g}r{r}s{j}");
                let fixed = row.known.get(j).and_then(Option::as_ref);
                let scope = Scope {
                    item: Some((&item, &locals)),
                    group: Some(g),
                    ..Scope::default()
                };
                // A known step's citations are constant (`rulebook::fold`).
                let (e, cites) = match fixed {
                    Some(v) => (self.constant(v)?, String::new()),
                    None => (
                        self.item_step(g, j, &steps[j], scope)?,
                        self.item_cites(g, j, &steps[j], scope, "    ")?,
                    ),
                };
                let _ = writeln!(out, "    let {local}: {} = {};", e.ty.rust(), e.to(e.ty));
                out.push_str(&cites);
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
        Ok(form)
    }

    /// A group over a list, as a loop filling a `Vec` of struct `G{g}`: the
    /// types of the struct's fields.
    fn looped(
        &mut self,
        g: usize,
        steps: &[Step],
        per_item: u64,
        out: &mut String,
    ) -> Gened<Vec<Ty>> {
        let rb = self.rb;
        let group = &rb.groups[g];
        let name = &group.name;
        self.needs(&group.over.code, out)?;
        let over = self.expr(&group.over.code, Scope::default())?.to(Ty::Val);
        let mut body = String::new();
        let mut locals: Vec<Option<(String, Ty)>> = vec![None; steps.len()];
        for j in item_order(steps)? {
            let scope = Scope {
                item: Some(("(*it)", &locals)),
                group: Some(g),
                ..Scope::default()
            };
            let e = self.item_step(g, j, &steps[j], scope)?;
            let cites = self.item_cites(g, j, &steps[j], scope, "        ")?;
            let _ = writeln!(body, "        let i{j}: {} = {};", e.ty.rust(), e.to(e.ty));
            body.push_str(&cites);
            locals[j] = Some((format!("i{j}"), e.ty));
        }
        let tys: Vec<Ty> = locals
            .iter()
            .map(|l| l.as_ref().map_or(Ty::Val, |l| l.1))
            .collect();
        let mut decl = format!("/// The steps of one item of group `{name}`.\nstruct G{g} {{\n");
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
        Ok(tys)
    }

    /// Step `j` of an item of group `g`; what is not compiled is named after it.
    fn item_step(&mut self, g: usize, j: usize, step: &Step, sc: Scope) -> Gened<Ex> {
        let group = &self.rb.groups[g];
        self.step_code(step, sc).map_err(|Unsupported(why)| {
            Unsupported(format!(
                "group `{}` step `{}`: {why}",
                group.name, group.steps[j].name
            ))
        })
    }

    /// The `cite` conditions of step `j` of an item of group `g`.
    fn item_cites(
        &mut self,
        g: usize,
        j: usize,
        step: &Step,
        sc: Scope,
        indent: &str,
    ) -> Gened<String> {
        let group = &self.rb.groups[g];
        self.cite_checks(step, sc, indent)
            .map_err(|Unsupported(why)| {
                Unsupported(format!(
                    "group `{}` step `{}` citation: {why}",
                    group.name, group.steps[j].name
                ))
            })
    }

    pub(super) fn group_form(&self, g: usize) -> Gened<GroupForm> {
        self.groups
            .get(g)
            .cloned()
            .flatten()
            .ok_or_else(|| Unsupported(format!("group {g} is read before it is computed")))
    }

    /// `sum(g.field)`: decimals only.
    pub(super) fn sum_column(&self, g: usize, j: usize) -> Gened<Ex> {
        let dec = |name: String, ty: Ty| {
            Ex {
                text: name,
                ty,
                place: true,
            }
            .to(Ty::Dec)
        };
        let text = match self.group_form(g)? {
            // Two units a row, as the interpreter's `SumColumn` spends.
            GroupForm::Rows(rows) => {
                let mut text =
                    format!("{{ spent += {}; let mut t = Decimal::ZERO;", 2 * rows.len());
                for row in &rows {
                    let (name, ty) = &row[j];
                    let _ = write!(text, " t = add_dec(t, {})?;", dec(name.clone(), *ty));
                }
                text.push_str(" t }");
                text
            }
            GroupForm::List(tys) => format!(
                "{{ spent += 2 * g{g}.len() as u64; let mut t = Decimal::ZERO; \
                 for r in g{g}.iter() {{ t = add_dec(t, {})?; }} t }}",
                dec(format!("r.s{j}"), tys[j])
            ),
        };
        Ok(Ex::new(text, Ty::Dec))
    }

    /// `sum([body for x in g if filter])`, each item's fields read in place.
    pub(super) fn sum_rows(
        &mut self,
        group: usize,
        filter: Option<&Code>,
        body: &Code,
        nodes: u64,
        sc: Scope,
    ) -> Gened<Ex> {
        let form = self.group_form(group)?;
        let mut text = String::from("{ let mut t = Decimal::ZERO;");
        let add = |gen: &mut Self, text: &mut String, row: &[(String, Ty)]| -> Gened<()> {
            let scope = Scope {
                row: Some(row),
                ..sc
            };
            let _ = write!(text, " spent += {};", 2 * nodes);
            // Decimals only: a fraction gives the case up.
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
        Ok(Ex::new(text, Ty::Dec))
    }

    /// A group read whole: the list of its items' records.
    pub(super) fn group_list(&mut self, g: usize) -> Gened<Ex> {
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
}
