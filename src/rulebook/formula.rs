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

/// What a free formula's names resolve to: the rulebook's one namespace and
/// the types of its steps and groups. A file of many formulas (a generator's
/// profiles and their perturbations) builds it once, not once per formula.
pub(crate) struct FreeNames {
    names: HashMap<Arc<str>, Binding>,
    step_types: Vec<Type>,
    group_types: Vec<Type>,
}

impl Rulebook {
    /// The namespace free formulas over this rulebook resolve against.
    pub(crate) fn free_names(&self) -> FreeNames {
        FreeNames {
            names: self.names(),
            step_types: self.steps.iter().map(|s| s.ty.clone()).collect(),
            group_types: self
                .groups
                .iter()
                .map(|g| Type::List(Box::new(Type::Record(g.shape))))
                .collect(),
        }
    }

    /// Resolves `text` over every input, parameter, table, step and group of
    /// this rulebook, and types it; problems are relative to `text`.
    /// `locals` are names bound to the evaluator's first local slots.
    pub(crate) fn free_formula(
        &self,
        text: &str,
        locals: Vec<(Arc<str>, Type)>,
    ) -> Result<(Formula, Type), Vec<ExprProblem>> {
        self.free_formula_in(&self.free_names(), text, locals)
    }

    /// [`Rulebook::free_formula`] against a namespace built once
    /// ([`Rulebook::free_names`] of this rulebook).
    pub(crate) fn free_formula_in(
        &self,
        free: &FreeNames,
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
        let scope = Scope::top(
            &free.names,
            &self.shapes,
            &self.tables,
            &free.step_types,
            &free.group_types,
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
