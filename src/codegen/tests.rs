//! Tests of the generator's own choices; compiled modules are tested in `tests/it/compiled.rs`.

use super::*;
use crate::model::code::{Code, CodeKind};

const RULEBOOK: &str = r#"
[rulebook]
id = "fallback"
version = 1
schema = 1

[inputs.x]
type = "decimal"
required = true

[steps.doubled]
expr = "x * 2"

[[checks]]
when = "x < 0"
reject = "x"
message = "negative"

[[checks]]
decision = "d"

[decisions.d.answer]
doubled = { expr = "doubled", format = "decimal" }
"#;

/// A form the generator does not compile (none that the checker lets
/// through is known; this one is planted)
/// gives up where it is needed, and is named.
#[test]
fn what_is_not_compiled_gives_the_case_up_and_is_named() {
    let mut rb = crate::parse_rulebook("fallback.toml", RULEBOOK).expect("valid");
    let whole = generate(&rb);
    assert!(whole.fallbacks.is_empty(), "{:?}", whole.fallbacks);
    assert!(whole.source.contains("s0 = Some(mul_dec(number(&x[0])?, K"));

    rb.steps[0].expr.code = Code {
        span: crate::span::Span::default(),
        kind: CodeKind::Local(3),
    };
    let given_up = generate(&rb);
    assert_eq!(
        given_up.fallbacks,
        ["decision `d`: step `doubled`: a comprehension variable is not compiled"]
    );
    // The rejecting check is still compiled; the decision gives up.
    assert!(given_up.source.contains("if (number(&x[0])? < K"));
    assert!(given_up
        .source
        .contains("    // check 2\n        return None;\n    None\n}"));
    assert_ne!(given_up.fingerprint, whole.fingerprint);
}
