//! What minijinja's compiler would fold, sized before it folds it.
//!
//! The compiler evaluates an expression of literals once, at compile time
//! (`"x" * 100000000`, `[1] * 10000000000000000000`), out of reach of the
//! guarded operators that run at render time. So a template's syntax tree
//! is read first and every expression the compiler would fold is sized by
//! the rules the operators follow: a template whose folded constants would
//! pass the budget, or build a list past the item bound, is refused before
//! it is compiled (a folded repetition could also overflow minijinja's own
//! count of items).

use minijinja::machinery::ast::{BinOpKind, CallArg, Expr, Stmt, UnaryOpKind};
use minijinja::value::ValueKind;

/// The bounds a rendering keeps (`guard`), which folding must keep too.
#[derive(Clone, Copy)]
pub(crate) struct Bounds {
    /// Bytes of text in all.
    pub(crate) bytes: usize,
    /// Items of one list.
    pub(crate) items: usize,
    /// Estimated bytes of one item of a list.
    pub(crate) item_bytes: usize,
}

/// What a constant expression folds to, as far as its size goes.
#[derive(Clone, Copy)]
enum Folded {
    /// A text of this many bytes.
    Text(usize),
    /// A list of this many items.
    Items(usize),
    /// An integer (it may repeat a text or a list).
    Int(i128),
    /// Anything else: a number that is not an integer, a boolean, a map
    /// written out in the template.
    Other,
}

/// Sums what the folded constants of a template build.
struct Sizer {
    /// Bytes built by folding, intermediate results included.
    bytes: usize,
    /// Where the first expression past a bound starts (line, column).
    past: Option<(u16, u16)>,
    /// Bound on the text of a folded value that is not a text or a list:
    /// it is written in the template.
    source: usize,
    bounds: Bounds,
}

/// Refuses a template whose folded constants would build more than the
/// budget: the message, or `None`.
pub(crate) fn check(template: &Stmt<'_>, source_len: usize, bounds: Bounds) -> Option<String> {
    let mut sizer = Sizer {
        bytes: 0,
        past: None,
        source: source_len,
        bounds,
    };
    sizer.stmt(template);
    let Bounds { bytes, items, .. } = bounds;
    match sizer.past {
        Some((line, col)) => Some(format!(
            "the constant expression at line {line}, column {col} builds more than {bytes} bytes or {items} items when compiled"
        )),
        None if sizer.bytes > bytes => Some(format!(
            "the template's constant expressions build more than {bytes} bytes when compiled"
        )),
        None => None,
    }
}

impl Sizer {
    fn stmts(&mut self, body: &[Stmt<'_>]) {
        for s in body {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt<'_>) {
        match s {
            Stmt::Template(t) => self.stmts(&t.children),
            Stmt::EmitExpr(e) => self.expr(&e.expr),
            Stmt::EmitRaw(_) => {}
            Stmt::ForLoop(f) => {
                self.expr(&f.target);
                self.expr(&f.iter);
                if let Some(e) = &f.filter_expr {
                    self.expr(e);
                }
                self.stmts(&f.body);
                self.stmts(&f.else_body);
            }
            Stmt::IfCond(c) => {
                self.expr(&c.expr);
                self.stmts(&c.true_body);
                self.stmts(&c.false_body);
            }
            Stmt::WithBlock(w) => {
                for (a, b) in &w.assignments {
                    self.expr(a);
                    self.expr(b);
                }
                self.stmts(&w.body);
            }
            Stmt::Set(s) => {
                self.expr(&s.target);
                self.expr(&s.expr);
            }
            Stmt::SetBlock(s) => {
                self.expr(&s.target);
                if let Some(f) = &s.filter {
                    self.expr(f);
                }
                self.stmts(&s.body);
            }
            Stmt::AutoEscape(a) => {
                self.expr(&a.enabled);
                self.stmts(&a.body);
            }
            Stmt::FilterBlock(f) => {
                self.expr(&f.filter);
                self.stmts(&f.body);
            }
            Stmt::Block(b) => self.stmts(&b.body),
            Stmt::Import(i) => {
                self.expr(&i.expr);
                self.expr(&i.name);
            }
            Stmt::FromImport(i) => {
                self.expr(&i.expr);
                for (a, b) in &i.names {
                    self.expr(a);
                    if let Some(b) = b {
                        self.expr(b);
                    }
                }
            }
            Stmt::Extends(e) => self.expr(&e.name),
            Stmt::Include(i) => self.expr(&i.name),
            Stmt::Macro(m) => {
                for e in m.args.iter().chain(&m.defaults) {
                    self.expr(e);
                }
                self.stmts(&m.body);
            }
            Stmt::CallBlock(c) => {
                self.expr(&c.call.expr);
                self.args(&c.call.args);
                for e in c.macro_decl.args.iter().chain(&c.macro_decl.defaults) {
                    self.expr(e);
                }
                self.stmts(&c.macro_decl.body);
            }
            Stmt::Do(d) => {
                self.expr(&d.call.expr);
                self.args(&d.call.args);
            }
        }
    }

    fn args(&mut self, args: &[CallArg<'_>]) {
        for a in args {
            match a {
                CallArg::Pos(e)
                | CallArg::Kwarg(_, e)
                | CallArg::PosSplat(e)
                | CallArg::KwargSplat(e) => self.expr(e),
            }
        }
    }

    /// An expression as the compiler meets it: folded whole when constant,
    /// else its parts, each met the same way.
    fn expr(&mut self, e: &Expr<'_>) {
        if let Some(folded) = self.fold(e, e) {
            self.built(folded, e);
            return;
        }
        match e {
            Expr::Var(_) | Expr::Const(_) => {}
            Expr::Slice(s) => {
                self.expr(&s.expr);
                for part in [&s.start, &s.stop, &s.step].into_iter().flatten() {
                    self.expr(part);
                }
            }
            Expr::UnaryOp(u) => self.expr(&u.expr),
            Expr::BinOp(b) => {
                self.expr(&b.left);
                self.expr(&b.right);
            }
            Expr::Compare(c) => {
                self.expr(&c.expr);
                for op in &c.ops {
                    self.expr(&op.expr);
                }
            }
            Expr::IfExpr(i) => {
                self.expr(&i.test_expr);
                self.expr(&i.true_expr);
                if let Some(f) = &i.false_expr {
                    self.expr(f);
                }
            }
            Expr::Filter(f) => {
                if let Some(e) = &f.expr {
                    self.expr(e);
                }
                self.args(&f.args);
            }
            Expr::Test(t) => {
                self.expr(&t.expr);
                self.args(&t.args);
            }
            Expr::GetAttr(g) => self.expr(&g.expr),
            Expr::GetItem(g) => {
                self.expr(&g.expr);
                self.expr(&g.subscript_expr);
            }
            Expr::Call(c) => {
                self.expr(&c.expr);
                self.args(&c.args);
            }
            Expr::List(l) => {
                for i in &l.items {
                    self.expr(i);
                }
            }
            Expr::Map(m) => {
                for k in m.keys.iter().chain(&m.values) {
                    self.expr(k);
                }
            }
        }
    }

    /// Counts what a folded value takes, marking `at` when it is past a bound.
    fn built(&mut self, folded: Folded, at: &Expr<'_>) {
        let bytes = match folded {
            Folded::Text(n) => n,
            Folded::Items(n) => {
                if n > self.bounds.items {
                    self.mark(at);
                }
                n.saturating_mul(self.bounds.item_bytes)
            }
            Folded::Int(_) | Folded::Other => 0,
        };
        if bytes > self.bounds.bytes {
            self.mark(at);
        }
        self.bytes = self.bytes.saturating_add(bytes);
    }

    fn mark(&mut self, at: &Expr<'_>) {
        if self.past.is_none() {
            let span = expr_span(at);
            self.past = Some((span.start_line, span.start_col));
        }
    }

    /// What `e` folds to, as minijinja's `as_const` would fold it, or
    /// `None` when it is not constant; what each operation builds on the
    /// way is counted (`top` is where a bound passed is reported).
    fn fold(&mut self, e: &Expr<'_>, top: &Expr<'_>) -> Option<Folded> {
        match e {
            Expr::Const(c) => Some(value(&c.value)),
            Expr::List(l) => l
                .items
                .iter()
                .all(|i| matches!(i, Expr::Const(_)))
                .then_some(Folded::Items(l.items.len())),
            Expr::Map(m) => m
                .keys
                .iter()
                .chain(&m.values)
                .all(|i| matches!(i, Expr::Const(_)))
                .then_some(Folded::Other),
            Expr::UnaryOp(u) => {
                let inner = self.fold(&u.expr, top)?;
                Some(match (&u.op, inner) {
                    (UnaryOpKind::Neg, Folded::Int(n)) => {
                        n.checked_neg().map_or(Folded::Other, Folded::Int)
                    }
                    _ => Folded::Other,
                })
            }
            Expr::Compare(c) => {
                self.fold(&c.expr, top)?;
                for op in &c.ops {
                    self.fold(&op.expr, top)?;
                }
                Some(Folded::Other)
            }
            Expr::BinOp(b) => {
                let left = self.fold(&b.left, top)?;
                let right = self.fold(&b.right, top)?;
                let result = self.binop(&b.op, left, right);
                if !matches!(b.op, BinOpKind::Concat | BinOpKind::Add | BinOpKind::Mul) {
                    return Some(result);
                }
                // An intermediate value of a folded expression is built too.
                self.built(result, top);
                Some(result)
            }
            _ => None,
        }
    }

    fn binop(&self, op: &BinOpKind, left: Folded, right: Folded) -> Folded {
        use Folded::{Int, Items, Other, Text};
        let int = |r: Option<i128>| r.map_or(Other, Int);
        match (op, left, right) {
            (BinOpKind::Concat, a, b) => Text(self.text(a).saturating_add(self.text(b))),
            (BinOpKind::Add, Text(a), Text(b)) => Text(a.saturating_add(b)),
            (BinOpKind::Add, Items(a), Items(b)) => Items(a.saturating_add(b)),
            (BinOpKind::Add, Int(a), Int(b)) => int(a.checked_add(b)),
            (BinOpKind::Mul, Text(s), Int(n)) | (BinOpKind::Mul, Int(n), Text(s)) => {
                Text(s.saturating_mul(times(n)))
            }
            (BinOpKind::Mul, Items(s), Int(n)) | (BinOpKind::Mul, Int(n), Items(s)) => {
                Items(s.saturating_mul(times(n)))
            }
            (BinOpKind::Mul, Int(a), Int(b)) => int(a.checked_mul(b)),
            // A text or a list repeated by a number not known here: as
            // large as it could be.
            (BinOpKind::Mul, Text(_), _) | (BinOpKind::Mul, _, Text(_)) => Text(usize::MAX),
            (BinOpKind::Mul, Items(_), _) | (BinOpKind::Mul, _, Items(_)) => Items(usize::MAX),
            (BinOpKind::Sub, Int(a), Int(b)) => int(a.checked_sub(b)),
            (BinOpKind::FloorDiv, Int(a), Int(b)) => int(a.checked_div_euclid(b)),
            (BinOpKind::Rem, Int(a), Int(b)) => int(a.checked_rem_euclid(b)),
            (BinOpKind::Pow, Int(a), Int(b)) => {
                int(u32::try_from(b).ok().and_then(|b| a.checked_pow(b)))
            }
            _ => Other,
        }
    }

    /// The bytes of a folded value written as text, at most.
    fn text(&self, f: Folded) -> usize {
        match f {
            Folded::Text(n) => n,
            // `[1, 2]` as text: each item and its separator.
            Folded::Items(n) => n.saturating_mul(self.source.max(8)),
            Folded::Int(_) => 40,
            Folded::Other => self.source.max(64),
        }
    }
}

/// How many times a repetition by `n` repeats (none for a negative `n`).
fn times(n: i128) -> usize {
    usize::try_from(n).unwrap_or(if n < 0 { 0 } else { usize::MAX })
}

/// A literal's size.
fn value(v: &minijinja::Value) -> Folded {
    match v.kind() {
        ValueKind::String => Folded::Text(v.as_str().map_or(0, str::len)),
        ValueKind::Seq => Folded::Items(v.len().unwrap_or(usize::MAX)),
        ValueKind::Number => v
            .as_i64()
            .map(i128::from)
            .or_else(|| i128::try_from(v.clone()).ok())
            .map_or(Folded::Other, Folded::Int),
        _ => Folded::Other,
    }
}

fn expr_span(e: &Expr<'_>) -> minijinja::machinery::Span {
    match e {
        Expr::Var(x) => x.span(),
        Expr::Const(x) => x.span(),
        Expr::Slice(x) => x.span(),
        Expr::UnaryOp(x) => x.span(),
        Expr::BinOp(x) => x.span(),
        Expr::Compare(x) => x.span(),
        Expr::IfExpr(x) => x.span(),
        Expr::Filter(x) => x.span(),
        Expr::Test(x) => x.span(),
        Expr::GetAttr(x) => x.span(),
        Expr::GetItem(x) => x.span(),
        Expr::Call(x) => x.span(),
        Expr::List(x) => x.span(),
        Expr::Map(x) => x.span(),
    }
}
