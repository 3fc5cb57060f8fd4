//! The progress bar of a long command on standard error, drawn only when a
//! person watches it: redirected, standard error stays clean for scripts.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A bar counting `what` (`cases`, `replies`), against `total` when known.
pub(super) fn bar(what: &str, total: Option<u64>) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr());
    // No eta: a run's first items often cost more than the rest (a shard of
    // `generate` first computes the signatures before it, the first chunk
    // waits for all its workers), so an early estimate said hours for
    // minutes. Elapsed time and the rate are true from the start.
    let template = match total {
        Some(_) => format!("{{bar:40}} {{pos}}/{{len}} {what}, {{per_sec}}, {{elapsed}}"),
        None => format!("{{spinner}} {{pos}} {what}, {{per_sec}}, {{elapsed}}"),
    };
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar
}
