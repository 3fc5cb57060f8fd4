//! Free formulas: an expression written outside a rulebook (in a generator
//! or a rubric) over the rulebook's own names, resolved as a step's formula
//! would be, so that a generator is checked against the rulebook it names.

use std::collections::HashMap;
use std::sync::Arc;

use crate::expr::parse_expr;
use crate::model::{Formula, InputId, Rulebook, StepId, TableId, Type};
use crate::rulebook::resolve::{resolve_with_locals, Binding, ExprProblem, Scope};

/// What the "did you mean" searches of one free expression may do, in
/// characters compared: a generator or rubric checks each of its expressions
/// on its own, and each search reads every name of the rulebook.
const SUGGEST_WORK: usize = 1_000_000;

impl Rulebook {
    /// Resolves `text` over every input, parameter, table, step and group of
    /// this rulebook, and types it; problems are relative to `text`.
    /// `locals` are names bound to the evaluator's first local slots.
    pub(crate) fn free_formula(
        &self,
        text: &str,
        locals: Vec<(Arc<str>, Type)>,
    ) -> Result<(Formula, Type), Vec<ExprProblem>> {
        let ast = parse_expr(text).map_err(|e| {
            vec![ExprProblem {
                code: "generate::syntax",
                message: format!("syntax error: {}", e.message),
                span: e.span,
                help: None,
            }]
        })?;
        let names = self.names();
        let step_types: Vec<Type> = self.steps.iter().map(|s| s.ty.clone()).collect();
        let group_types: Vec<Type> = self
            .groups
            .iter()
            .map(|g| Type::List(Box::new(Type::Record(g.shape))))
            .collect();
        let scope = Scope::top(
            &names,
            &self.shapes,
            &self.tables,
            &step_types,
            &group_types,
        );
        let mut problems = Vec::new();
        let mut suggest_work = SUGGEST_WORK;
        let (node, ty) =
            resolve_with_locals(&ast, &scope, locals, &mut problems, &mut suggest_work);
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok((super::lower::formula(Arc::from(text), node, None), ty))
    }

    /// The one namespace of a checked rulebook, as the checker built it.
    fn names(&self) -> HashMap<Arc<str>, Binding> {
        let mut names = HashMap::new();
        for (i, input) in self.inputs.iter().enumerate() {
            names.insert(
                input.name.clone(),
                Binding::Input(InputId::new(i), input.kind.value_type()),
            );
        }
        for (i, table) in self.tables.iter().enumerate() {
            names.insert(table.name.clone(), Binding::Table(TableId::new(i)));
        }
        for (i, param) in self.params.iter().enumerate() {
            names.insert(param.name.clone(), Binding::Param(i, Type::Number));
        }
        for (i, step) in self.steps.iter().enumerate() {
            names.insert(step.name.clone(), Binding::Step(StepId::new(i)));
        }
        for (g, group) in self.groups.iter().enumerate() {
            names.insert(group.name.clone(), Binding::Group(g));
        }
        names
    }
}
