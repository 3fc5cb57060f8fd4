//! The sandbox's store: runs, their tasks and their one submission in an
//! embedded SQLite file (WAL, one transaction per write), so a run that was
//! acknowledged survives a killed process and a restart.
//!
//! The tasks' expected answers are never stored: a run keeps its seed and
//! each task's index in the generator's stream, and the server draws the
//! task again to grade it (drawing is deterministic). What a response shows
//! of a task is stored as its public JSON.

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use std::path::Path;

/// The schema, created on first open; `IF NOT EXISTS` makes reopening a no-op.
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    seed TEXT NOT NULL,
    tier TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    grader TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS tasks (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    position INTEGER NOT NULL,
    draw_index INTEGER NOT NULL,
    public TEXT NOT NULL,
    PRIMARY KEY (run_id, id)
);
CREATE TABLE IF NOT EXISTS submissions (
    run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    body_sha256 TEXT NOT NULL,
    result TEXT NOT NULL,
    created_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_created ON runs(created_ms);
";

/// One task of a run as stored.
#[derive(Clone, Debug)]
pub struct StoredTask {
    /// The task's id in the run.
    pub id: String,
    /// Its index in the generator's stream for the run's seed.
    pub draw_index: u64,
    /// Its public fields as JSON text.
    pub public: String,
}

/// A run as stored.
#[derive(Clone, Debug)]
pub struct StoredRun {
    /// The run's id.
    pub id: String,
    /// The seed its tasks were drawn with.
    pub seed: u64,
    /// The tier asked for.
    pub tier: String,
    /// What drew and grades its tasks ([`Store::create_run`]).
    pub grader: String,
    /// Its tasks, in the order they were served.
    pub tasks: Vec<StoredTask>,
    /// The saved result and the hash of the body that made it, once submitted.
    pub submission: Option<(String, String)>,
}

/// What saving a submission did.
pub enum Saved {
    /// This body's result was stored now.
    New,
    /// The same body was submitted before: its saved result.
    Same(String),
    /// Another body was submitted before: nothing changed.
    Conflict,
}

/// The connection to the store's file.
pub struct Store {
    conn: Connection,
}

impl Store {
    /// Opens (creating if need be) the store at `path`, in WAL mode.
    pub fn open(path: &Path) -> rusqlite::Result<Store> {
        let conn = Connection::open(path)?;
        // WAL: readers do not block the writer; `synchronous = FULL`: a
        // committed transaction is on disk before the reply leaves.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.execute_batch(SCHEMA)?;
        // A file made before runs kept their grader: its runs read as
        // drawn by another (`''`), so none is graded against other tasks.
        let has_grader: bool = conn.query_row(
            "SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'grader'",
            [],
            |r| r.get::<_, i64>(0).map(|n| n > 0),
        )?;
        if !has_grader {
            conn.execute_batch("ALTER TABLE runs ADD COLUMN grader TEXT NOT NULL DEFAULT ''")?;
        }
        Ok(Store { conn })
    }

    /// Deletes the runs created before `cutoff_ms` (their tasks and
    /// submissions go with them).
    pub fn purge(&mut self, cutoff_ms: i64) -> rusqlite::Result<usize> {
        self.conn
            .execute("DELETE FROM runs WHERE created_ms < ?1", params![cutoff_ms])
    }

    /// Stores a new run and its tasks in one transaction. `grader` names
    /// the generator, rulebook and rubric that drew and will grade it:
    /// the tasks are drawn again at grading, so a server started later
    /// with other files must not grade the run against its own.
    pub fn create_run(
        &mut self,
        id: &str,
        seed: u64,
        tier: &str,
        grader: &str,
        created_ms: i64,
        tasks: &[StoredTask],
    ) -> rusqlite::Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO runs (id, seed, tier, created_ms, grader) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![id, seed.to_string(), tier, created_ms, grader],
        )?;
        for (position, t) in tasks.iter().enumerate() {
            tx.execute(
                "INSERT INTO tasks (run_id, id, position, draw_index, public) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![id, t.id, position as i64, t.draw_index as i64, t.public],
            )?;
        }
        tx.commit()
    }

    /// The run `id` if it exists and was created at or after `cutoff_ms`.
    pub fn run(&self, id: &str, cutoff_ms: i64) -> rusqlite::Result<Option<StoredRun>> {
        let head = self
            .conn
            .query_row(
                "SELECT seed, tier, grader FROM runs WHERE id = ?1 AND created_ms >= ?2",
                params![id, cutoff_ms],
                |r| {
                    let text = |i| r.get::<_, String>(i);
                    Ok((text(0)?, text(1)?, text(2)?))
                },
            )
            .optional()?;
        let Some((seed, tier, grader)) = head else {
            return Ok(None);
        };
        let mut stmt = self.conn.prepare_cached(
            "SELECT id, draw_index, public FROM tasks WHERE run_id = ?1 ORDER BY position",
        )?;
        let tasks = stmt
            .query_map(params![id], |r| {
                Ok(StoredTask {
                    id: r.get(0)?,
                    draw_index: r.get::<_, i64>(1)? as u64,
                    public: r.get(2)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let submission = self
            .conn
            .query_row(
                "SELECT body_sha256, result FROM submissions WHERE run_id = ?1",
                params![id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        Ok(Some(StoredRun {
            id: id.to_string(),
            // A seed that does not parse cannot have been written here;
            // such a run is treated as absent.
            seed: match seed.parse() {
                Ok(s) => s,
                Err(_) => return Ok(None),
            },
            tier,
            grader,
            tasks,
            submission,
        }))
    }

    /// Saves the result of a run's first submission, in one transaction
    /// that checks first whether one was saved already.
    pub fn save_submission(
        &mut self,
        run_id: &str,
        body_sha256: &str,
        result: &str,
        created_ms: i64,
    ) -> rusqlite::Result<Saved> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let before: Option<(String, String)> = tx
            .query_row(
                "SELECT body_sha256, result FROM submissions WHERE run_id = ?1",
                params![run_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        if let Some((hash, saved)) = before {
            return Ok(if hash == body_sha256 {
                Saved::Same(saved)
            } else {
                Saved::Conflict
            });
        }
        tx.execute(
            "INSERT INTO submissions (run_id, body_sha256, result, created_ms) VALUES (?1, ?2, ?3, ?4)",
            params![run_id, body_sha256, result, created_ms],
        )?;
        tx.commit()?;
        Ok(Saved::New)
    }
}
