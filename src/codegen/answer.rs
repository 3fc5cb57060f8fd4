//! The answer of a decision in generated code: its clauses and its fields
//! (an `outcome::Answer`), in the formats the rulebook declares.
//!
//! A decision's answer is generated inside the branch of the check that
//! chooses it, so the steps only that answer reads are computed only there.
//! Fields are written by the runtime's `answer` functions, which write what
//! the interpreter writes; a field listing a group's items lists them item
//! by item, unrolled or in a loop as the group is.
//!
//! Invariant: the budget is checked before an answer is returned, so
//! compiled code never answers where the interpreter would run out.

use std::fmt::Write as _;

use super::deps::code_deps;
use super::state::Dep;
use super::state::GroupForm;
use super::state::{spend, Gen, Gened, Scope, Unsupported};
use super::ty::Ty;
use crate::model::{Format, Formula, Output, OutputValue};

impl Gen<'_> {
    /// The answer of decision `d`, chosen by check `k`, returned.
    pub(super) fn decision(&mut self, k: usize, d: usize, out: &mut String) -> Gened<()> {
        let rb = self.rb;
        let decision = &rb.decisions[d];
        let scope = Scope {
            decided: Some((k, d)),
            ..Scope::default()
        };
        let mut cites = Vec::new();
        for (c, (when, _)) in decision.cite.iter().enumerate() {
            self.needs(&when.code, out)?;
            let _ = writeln!(out, "        spent += {};", spend(Some(when)));
            cites.push((c, self.expr(&when.code, scope)?));
        }
        let mut fields = Vec::new();
        for output in &decision.answer {
            fields.push((output.key.clone(), self.output(output, scope, out)?));
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
            "        let mut object = Vec::with_capacity({});",
            fields.len()
        );
        for (key, value) in fields {
            let _ = writeln!(
                out,
                "        object.push((Arc::from({:?}), {value}));",
                &*key
            );
        }
        out.push_str(
            "        if spent > budget(rb, facts) {\n            return None;\n        }\n",
        );
        let _ = writeln!(out, "        return answered(rb, {d}, object);");
        Ok(())
    }

    /// One answer field, as an expression of its value (which reads `clauses`);
    /// a field listing a group's items lists them item by item.
    fn output(&mut self, output: &Output, sc: Scope, out: &mut String) -> Gened<String> {
        match &output.value {
            OutputValue::Value { expr, format } => self.value_field(expr, *format, sc, out),
            OutputValue::Each { group, fields, key } => {
                self.each_field(*group, fields, key.as_ref(), sc, out)
            }
        }
    }

    /// A value in its format.
    fn value_field(
        &mut self,
        expr: &Formula,
        format: Format,
        sc: Scope,
        out: &mut String,
    ) -> Gened<String> {
        let code = &expr.code;
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

    /// The items of group `g`, one object of `fields` each (keyed by `key`
    /// when given): what the fields read is computed before the listing.
    fn each_field(
        &mut self,
        g: usize,
        fields: &[Output],
        key: Option<&Formula>,
        sc: Scope,
        out: &mut String,
    ) -> Gened<String> {
        if sc.item.is_some() {
            return Err(Unsupported("items listed inside an item".into()));
        }
        self.compute(Dep::Group(g), out)?;
        let mut deps = Vec::new();
        for f in fields {
            if let OutputValue::Value { expr, .. } = &f.value {
                code_deps(&expr.code, &mut deps);
            }
        }
        if let Some(k) = key {
            code_deps(&k.code, &mut deps);
        }
        for dep in deps {
            self.compute(dep, out)?;
        }
        let form = self.group_form(g)?;
        let mut text = String::from("{ let mut listed = Vec::new();");
        match &form {
            GroupForm::Rows(rows) => {
                for (r, row) in rows.iter().enumerate() {
                    let locals: Vec<Option<(String, Ty)>> = row.iter().cloned().map(Some).collect();
                    let place = format!("gi{g}[{r}]");
                    text.push(' ');
                    text.push_str(&self.listed_item(g, &place, &locals, fields, key, sc)?);
                }
            }
            GroupForm::List(tys) => {
                let locals: Vec<Option<(String, Ty)>> = tys
                    .iter()
                    .enumerate()
                    .map(|(j, ty)| Some((format!("r.s{j}"), *ty)))
                    .collect();
                let _ = write!(text, " for (it, r) in gl{g}.iter().zip(g{g}.iter()) {{ ");
                text.push_str(&self.listed_item(g, "(*it)", &locals, fields, key, sc)?);
                text.push_str(" }");
            }
        }
        let _ = write!(text, " each(listed, {})? }}", key.is_some());
        Ok(text)
    }

    /// One item's object, pushed to `listed` with its key.
    fn listed_item(
        &mut self,
        g: usize,
        place: &str,
        locals: &[Option<(String, Ty)>],
        fields: &[Output],
        key: Option<&Formula>,
        sc: Scope,
    ) -> Gened<String> {
        let scope = Scope {
            item: Some((place, locals)),
            group: Some(g),
            ..sc
        };
        let mut text = format!("{{ let mut o = Vec::with_capacity({});", fields.len());
        for f in fields {
            // Fields are formulas of the item; none reads what is not computed.
            let mut none = String::new();
            let json = self.output(f, scope, &mut none)?;
            if !none.is_empty() {
                return Err(Unsupported("an item field reads an uncomputed step".into()));
            }
            let _ = write!(text, " o.push((Arc::from({:?}), {json}));", &*f.key);
        }
        let name = match key {
            Some(k) => {
                let e = self.expr(&k.code, scope)?;
                format!(
                    "{{ spent += {}; Some(item_key({})?) }}",
                    spend(Some(k)),
                    e.as_value().borrow()
                )
            }
            None => "None".into(),
        };
        let _ = write!(text, " listed.push(({name}, Fields(o))); }}");
        Ok(text)
    }
}
