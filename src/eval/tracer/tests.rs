//! The recorder's own rules: what it shares, and what it leaves in place.

use std::sync::Arc;

use super::{Recorder, Tracer};
use crate::trace::{CheckTrace, Event, StepEvent, StepTrace};
use crate::value::Value;

fn step() -> Event {
    Event::Step(StepEvent::Own(Box::new(StepTrace {
        step: Arc::from("base"),
        item: Some(Arc::from("lines[0]")),
        label: None,
        clauses: Arc::from(Vec::new()),
        cites: Vec::new(),
        detail: false,
        formula: Arc::from("brut"),
        condition: None,
        reads: Vec::new(),
        lookups: Vec::new(),
        roundings: Vec::new(),
        exact: None,
        value: Value::Bool(true),
    })))
}

fn check() -> Event {
    Event::Check(CheckTrace {
        index: 1,
        label: None,
        when: None,
        reads: Vec::new(),
        held: true,
        gives: Arc::from("decision payslip"),
    })
}

#[test]
fn only_a_step_noted_last_is_shared_and_it_stays_in_place() {
    let mut r = Recorder::new();
    r.event(step());
    r.event(check());
    assert!(r.share_last_step().is_none(), "a check is not shared");
    assert_eq!(r.events(), 2, "nor taken off the list");
    assert!(matches!(r.events.last(), Some(Event::Check(_))));

    r.event(step());
    let shared = r.share_last_step().expect("a step noted last");
    assert_eq!(r.events(), 3);
    match r.events.last() {
        Some(Event::Step(StepEvent::Shared(s))) => assert!(Arc::ptr_eq(s, &shared)),
        _ => panic!("the step is put back shared"),
    }
    assert_eq!(&*shared.step().step, "base");
    // Shared again, the same event: no second copy.
    let again = r.share_last_step().expect("still a step");
    assert!(Arc::ptr_eq(&again, &shared));
    assert!(matches!(
        r.events.first(),
        Some(Event::Step(StepEvent::Own(_)))
    ));
}
