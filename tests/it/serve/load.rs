//! The sandbox under load: callers racing on one run store exactly one
//! result, a process killed mid-load keeps every acknowledged run, and
//! one asked to stop (SIGINT, SIGTERM) stops cleanly.

use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::{Arc, Barrier};

use super::{request, submission, temp_dir, Server, OPEN};

#[test]
fn racing_submissions_of_one_run_store_exactly_one_result() {
    let dir = temp_dir("race");
    let server = Server::start(&dir.join("s.sqlite"), OPEN);
    for round in 0..3 {
        let run = server.run("n=2");
        let run_id = run["run_id"].as_str().unwrap_or("").to_string();
        let ids: Vec<String> = run["tasks"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["id"].as_str().map(String::from))
            .collect();
        // Two identical bodies, two different ones, and readers, at once.
        let bodies = [
            submission(&run_id, &[(&ids[0], "a")]),
            submission(&run_id, &[(&ids[0], "a")]),
            submission(&run_id, &[(&ids[0], "b")]),
            submission(&run_id, &[(&ids[1], "c")]),
        ];
        let barrier = Arc::new(Barrier::new(bodies.len() + 4));
        let mut handles = Vec::new();
        for (i, body) in bodies.iter().cloned().enumerate() {
            let (addr, barrier) = (server.addr.clone(), Arc::clone(&barrier));
            handles.push(std::thread::spawn(move || {
                barrier.wait();
                let r = request(&addr, "POST", "/submit", body.as_bytes()).expect("answered");
                (i, r.status, String::from_utf8_lossy(&r.body).to_string())
            }));
        }
        for _ in 0..4 {
            let (addr, barrier) = (server.addr.clone(), Arc::clone(&barrier));
            handles.push(std::thread::spawn(move || {
                barrier.wait();
                let r = request(&addr, "GET", "/tasks?n=1", b"").expect("answered");
                (usize::MAX, r.status, String::new())
            }));
        }
        let mut by_status: BTreeMap<u16, Vec<(usize, String)>> = BTreeMap::new();
        for h in handles {
            let (i, status, body) = h.join().expect("caller thread");
            if i != usize::MAX {
                by_status.entry(status).or_default().push((i, body));
            } else {
                assert_eq!(status, 200, "round {round}");
            }
        }
        let won = by_status.get(&200).cloned().unwrap_or_default();
        let lost = by_status.get(&409).map(Vec::len).unwrap_or(0);
        assert_eq!(won.len() + lost, 4, "round {round}: {by_status:?}");
        // The winners submitted one body: the identical pair, or one of the others.
        let winners: Vec<usize> = won.iter().map(|(i, _)| *i).collect();
        assert!(
            matches!(winners.as_slice(), [0, 1] | [1, 0] | [0] | [1] | [2] | [3]),
            "round {round}: {winners:?}"
        );
        assert!(
            won.windows(2).all(|w| w[0].1 == w[1].1),
            "one result for the pair"
        );
        let (status, shown) = server.json("GET", &format!("/runs/{run_id}"), "");
        assert_eq!(status, 200);
        let stored: Value = serde_json::from_str(&won[0].1).expect("JSON");
        assert_eq!(shown["scores"], stored["scores"], "round {round}");
    }
}

#[test]
fn a_process_killed_mid_load_keeps_every_acknowledged_run() {
    let dir = temp_dir("durable");
    let db = dir.join("s.sqlite");
    let server = Server::start(&db, OPEN);
    let addr = server.addr.clone();
    // Callers create and submit runs until the server dies under them,
    // each keeping what was acknowledged (a 200 received).
    let mut callers = Vec::new();
    for _ in 0..3 {
        let addr = addr.clone();
        callers.push(std::thread::spawn(move || {
            let mut acked: Vec<(String, Option<String>)> = Vec::new();
            for _ in 0..200 {
                let Ok(r) = request(&addr, "GET", "/tasks?n=2", b"") else {
                    break;
                };
                let Ok(run) = serde_json::from_slice::<Value>(&r.body) else {
                    break;
                };
                let run_id = run["run_id"].as_str().unwrap_or("").to_string();
                acked.push((run_id.clone(), None));
                let id = run["tasks"][0]["id"].as_str().unwrap_or("").to_string();
                let Ok(r) = request(
                    &addr,
                    "POST",
                    "/submit",
                    submission(&run_id, &[(&id, "x")]).as_bytes(),
                ) else {
                    break;
                };
                if r.status != 200 {
                    break;
                }
                let scored: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
                if let Some(last) = acked.last_mut() {
                    last.1 = Some(scored["scores"].to_string());
                }
            }
            acked
        }));
    }
    // Kill once some runs were acknowledged (bounded wait).
    for _ in 0..600 {
        std::thread::sleep(std::time::Duration::from_millis(50));
        let conn = rusqlite::Connection::open(&db).expect("opens");
        let n: i64 = conn
            .query_row("SELECT COUNT(*) FROM submissions", [], |r| r.get(0))
            .unwrap_or(0);
        if n >= 5 {
            break;
        }
    }
    server.kill();
    let acked: Vec<(String, Option<String>)> = callers
        .into_iter()
        .flat_map(|h| h.join().expect("caller"))
        .collect();
    assert!(
        acked.iter().filter(|(_, s)| s.is_some()).count() >= 5,
        "{}",
        acked.len()
    );
    let server = Server::start(&db, OPEN);
    for (run_id, scores) in &acked {
        let (status, shown) = server.json("GET", &format!("/runs/{run_id}"), "");
        assert_eq!(status, 200, "acknowledged run {run_id} lost");
        if let Some(scores) = scores {
            assert_eq!(&shown["scores"].to_string(), scores, "{run_id}");
        }
    }
}

/// SIGTERM (what `kill`, systemd and container runtimes send) is a
/// shutdown as SIGINT is: exit 0 and the store closed, its `-wal` and
/// `-shm` files gone (it ended the process with 143 and left them).
#[test]
fn sigterm_and_sigint_shut_the_service_down_cleanly() {
    let dir = temp_dir("signals");
    for signal in ["TERM", "INT"] {
        let db = dir.join(format!("{signal}.sqlite"));
        let mut server = Server::start(&db, OPEN);
        let run = server.run("n=1");
        let run_id = run["run_id"].as_str().unwrap_or("").to_string();
        let id = run["tasks"][0]["id"].as_str().unwrap_or("").to_string();
        let (status, _) = server.json("POST", "/submit", &submission(&run_id, &[(&id, "x")]));
        assert_eq!(status, 200);
        let status = server.signal(signal);
        assert_eq!(status.code(), Some(0), "SIG{signal}: {status}");
        for end in ["-wal", "-shm"] {
            let mut side = db.clone().into_os_string();
            side.push(end);
            assert!(
                !std::path::Path::new(&side).exists(),
                "SIG{signal} left {side:?}"
            );
        }
        // What was acknowledged is in the file.
        let conn = rusqlite::Connection::open(&db).expect("the store opens");
        let kept: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM submissions WHERE run_id = ?1",
                [&run_id],
                |r| r.get(0),
            )
            .expect("count");
        assert_eq!(kept, 1, "SIG{signal}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
