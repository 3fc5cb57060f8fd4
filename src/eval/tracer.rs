//! What an evaluation records: nothing ([`NoTrace`]), or every check,
//! step, read, lookup and rounding ([`Recorder`]).
//!
//! The interpreter is generic over its tracer, so it is written once and
//! compiled twice. `Tracer::ON` is a constant: in the untraced machine
//! every `if T::ON` block, and the building of what it would record, is
//! compiled away, and `NoTrace` is a type without data.
//!
//! INVARIANT: a tracer only records; no evaluation result depends on which
//! one runs, except that the untraced machine may take the shortcuts of
//! the lowered code (see `model::plan`), which compute the same values, and
//! the traced one replays known per-item steps (`known.rs`), and the parts
//! of a row's other steps that are the same for every case (`recorded.rs`),
//! which record the same events and reads.

use std::sync::Arc;

use crate::trace::{
    Event, Lookup, OutcomeTrace, ReadTrace, ReportTrace, RoundingTrace, SharedStep, StepEvent,
    StepTrace,
};
use crate::value::Value;

/// What one formula read, looked up and rounded (a step's or a check's).
#[derive(Default)]
pub(super) struct Frame {
    pub(super) reads: Vec<ReadTrace>,
    pub(super) lookups: Vec<Lookup>,
    pub(super) roundings: Vec<RoundingTrace>,
}

/// What a traced evaluation recorded, for the trace around it.
pub(super) struct Recording {
    pub(super) events: Vec<Event>,
    pub(super) outcome: Option<OutcomeTrace>,
    pub(super) reports: Vec<ReportTrace>,
}

/// The interpreter's recorder of what it does.
pub(super) trait Tracer {
    /// Whether anything is recorded. Code that only builds what is
    /// recorded runs under `if T::ON`.
    const ON: bool;

    fn new() -> Self;

    /// Plans room for about `events` more events than planned so far, so
    /// the list does not grow by copying as it fills.
    fn reserve(&mut self, events: usize);

    /// Opens a frame for the reads, lookups and roundings of a formula.
    fn push_frame(&mut self);

    /// Closes the innermost frame, giving what it holds.
    fn pop_frame(&mut self) -> Frame;

    /// Notes a name read, once per frame.
    fn read(&mut self, name: &Arc<str>, value: &Value);

    /// Notes a table row chosen or a scale applied.
    fn lookup(&mut self, lookup: Lookup);

    /// Notes a rounding.
    fn rounding(&mut self, rounding: RoundingTrace);

    /// Notes a check, step or citation, in the order they end.
    fn event(&mut self, event: Event);

    /// The step event noted last, if the last event is one.
    fn last_step(&self) -> Option<&StepTrace>;

    /// The step event noted last, made shareable (moved behind an `Arc`
    /// once), for a known step's replays.
    fn share_last_step(&mut self) -> Option<Arc<SharedStep>>;

    /// How many events are noted so far.
    fn events(&self) -> usize;

    /// Notes a text the trace will hold beside its events (a report's cell).
    fn text(&mut self, len: usize);

    /// Whether more is noted than a trace may hold ([`MAX_TRACE_RECORDS`]):
    /// the machine faults at its next unit spent.
    fn over(&self) -> bool;

    /// Notes how the evaluation ended.
    fn outcome(&mut self, outcome: OutcomeTrace);

    /// Notes the report tables.
    fn reports(&mut self, reports: Vec<ReportTrace>);

    /// What was recorded (`None` when nothing is).
    fn finish(self) -> Option<Recording>;
}

/// Records nothing, and costs nothing.
pub(super) struct NoTrace;

impl Tracer for NoTrace {
    const ON: bool = false;

    #[inline(always)]
    fn new() -> Self {
        NoTrace
    }

    #[inline(always)]
    fn reserve(&mut self, _: usize) {}

    #[inline(always)]
    fn push_frame(&mut self) {}

    #[inline(always)]
    fn pop_frame(&mut self) -> Frame {
        Frame::default()
    }

    #[inline(always)]
    fn read(&mut self, _: &Arc<str>, _: &Value) {}

    #[inline(always)]
    fn lookup(&mut self, _: Lookup) {}

    #[inline(always)]
    fn rounding(&mut self, _: RoundingTrace) {}

    #[inline(always)]
    fn event(&mut self, _: Event) {}

    #[inline(always)]
    fn last_step(&self) -> Option<&StepTrace> {
        None
    }

    #[inline(always)]
    fn share_last_step(&mut self) -> Option<Arc<SharedStep>> {
        None
    }

    #[inline(always)]
    fn events(&self) -> usize {
        0
    }

    #[inline(always)]
    fn text(&mut self, _: usize) {}

    #[inline(always)]
    fn over(&self) -> bool {
        false
    }

    #[inline(always)]
    fn outcome(&mut self, _: OutcomeTrace) {}

    #[inline(always)]
    fn reports(&mut self, _: Vec<ReportTrace>) {}

    #[inline(always)]
    fn finish(self) -> Option<Recording> {
        None
    }
}

/// Records everything, for the trace.
///
/// The reads of every open frame share one stack (`reads`; each frame
/// notes where its own start), so a frame's reads grow without a vector of
/// their own and leave it in one exact allocation when it closes.
pub(super) struct Recorder {
    events: Vec<Event>,
    /// How many events the evaluation planned room for.
    planned: usize,
    /// Open frames, each with where its reads start in `reads`.
    frames: Vec<(usize, Frame)>,
    reads: Vec<ReadTrace>,
    outcome: Option<OutcomeTrace>,
    reports: Vec<ReportTrace>,
    /// Records noted so far, counted as [`MAX_TRACE_RECORDS`] says.
    records: usize,
}

/// The most records a traced evaluation notes: one for each event, read,
/// lookup and rounding, and for each report cell one per 64 bytes of its
/// text and one more. It bounds the trace's memory (a record takes some
/// tens of bytes: its values and texts are mostly shared), which the
/// budget does not: a step that reads a name spends one unit, and a per-item
/// group of 10,000,000 steps recorded 6.5 GB. A payslip notes about 1,500.
/// The JSON a trace is written as has a bound of its own
/// (`trace::MAX_TRACE_BYTES`): a value read again is written again.
pub(crate) const MAX_TRACE_RECORDS: usize = 2_000_000;

impl Tracer for Recorder {
    const ON: bool = true;

    fn new() -> Self {
        Recorder {
            events: Vec::new(),
            planned: 0,
            frames: Vec::new(),
            reads: Vec::new(),
            outcome: None,
            reports: Vec::new(),
            records: 0,
        }
    }

    fn reserve(&mut self, events: usize) {
        self.planned = self.planned.saturating_add(events);
        let more = self.planned.saturating_sub(self.events.len());
        self.events.reserve(more);
    }

    fn push_frame(&mut self) {
        self.frames.push((self.reads.len(), Frame::default()));
    }

    fn pop_frame(&mut self) -> Frame {
        let Some((start, mut frame)) = self.frames.pop() else {
            return Frame::default();
        };
        // Moved in one copy (no allocation when nothing was read), where
        // draining moved them one by one.
        frame.reads = self.reads.split_off(start.min(self.reads.len()));
        frame
    }

    /// The search is linear, and short: a frame holds one read per
    /// distinct name its formula reads, however often each is read, and a
    /// formula names a handful.
    fn read(&mut self, name: &Arc<str>, value: &Value) {
        let Some((start, _)) = self.frames.last() else {
            return;
        };
        let mine = self.reads.get(*start..).unwrap_or_default();
        if !mine.iter().any(|r| r.name == *name) {
            self.reads.push(ReadTrace {
                name: name.clone(),
                value: value.clone(),
            });
            self.records += 1;
        }
    }

    fn lookup(&mut self, lookup: Lookup) {
        if let Some((_, frame)) = self.frames.last_mut() {
            frame.lookups.push(lookup);
            self.records += 1;
        }
    }

    fn rounding(&mut self, rounding: RoundingTrace) {
        if let Some((_, frame)) = self.frames.last_mut() {
            frame.roundings.push(rounding);
            self.records += 1;
        }
    }

    /// A shared step's reads, lookups and roundings are the event's, not
    /// this evaluation's: one record.
    fn event(&mut self, event: Event) {
        self.records += 1;
        self.events.push(event);
    }

    fn last_step(&self) -> Option<&StepTrace> {
        match self.events.last() {
            Some(Event::Step(step)) => Some(step),
            _ => None,
        }
    }

    fn share_last_step(&mut self) -> Option<Arc<SharedStep>> {
        // Taken off the list only when it is a step, and put back shared.
        if !matches!(self.events.last(), Some(Event::Step(_))) {
            return None;
        }
        let Some(Event::Step(step)) = self.events.pop() else {
            return None;
        };
        let shared = match step {
            StepEvent::Own(own) => Arc::new(SharedStep::new(*own)),
            StepEvent::Shared(shared) => shared,
        };
        self.events
            .push(Event::Step(StepEvent::Shared(shared.clone())));
        Some(shared)
    }

    fn events(&self) -> usize {
        self.events.len()
    }

    fn text(&mut self, len: usize) {
        self.records = self.records.saturating_add(1 + len / 64);
    }

    #[inline]
    fn over(&self) -> bool {
        self.records > MAX_TRACE_RECORDS
    }

    fn outcome(&mut self, outcome: OutcomeTrace) {
        self.outcome = Some(outcome);
    }

    fn reports(&mut self, reports: Vec<ReportTrace>) {
        self.reports = reports;
    }

    fn finish(self) -> Option<Recording> {
        Some(Recording {
            events: self.events,
            outcome: self.outcome,
            reports: self.reports,
        })
    }
}

#[cfg(test)]
mod tests;
