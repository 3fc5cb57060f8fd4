//! Case input: the bytes of one case, or of one batch line, to a JSON case.
//!
//! `eval CASE` and `eval --batch` read a case the same way (the library's
//! `CaseText::from_bytes`), so the same bytes
//! give the same answer in both: at most the size limit, UTF-8 or refused
//! (never repaired), then JSON, then out of its `{"case": …}` envelope. Both
//! read the text in one pass into a `CaseText` (the crate's one JSON
//! reader), which refuses an object giving a key twice, naming the key, and
//! any other text serde_json refuses, with serde_json's message.
//!
//! Invariant: no read here holds more than the size limit plus one byte of a
//! case or line in memory, and the limit is at most `MAX_CASE_BYTES`.

use std::io::BufRead;
use std::path::Path;
use std::process::ExitCode;

use bareme::unstable::case::CaseText;
use bareme::unstable::rulebook::load::read_capped;
use bareme::CaseError;

pub use bareme::unstable::embed::case_limit;

/// A file of lines, or standard input for `-`, as every command that reads
/// lines opens it (`eval --batch` and its pages, task and reply files,
/// `verify-trace`).
pub fn open_lines(path: &Path) -> std::io::Result<Box<dyn BufRead>> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(std::io::stdin().lock()));
    }
    Ok(Box::new(std::io::BufReader::new(std::fs::File::open(
        path,
    )?)))
}

/// [`open_lines`], a file that cannot be opened reported: exit 2.
pub fn open_lines_or_exit(path: &Path) -> Result<Box<dyn BufRead>, ExitCode> {
    open_lines(path).map_err(|e| {
        warn!("error: cannot read {}: {e}", path.display());
        ExitCode::from(2)
    })
}

/// Why a case is refused before validation (the size limit is `limit`).
pub fn too_large(limit: usize) -> String {
    bareme::unstable::embed::too_large(limit).message
}

/// Reads one case from a file or, for `-`, standard input, refusing more than `limit` bytes.
pub fn read_case(path: Option<&Path>, limit: usize) -> Result<Vec<u8>, String> {
    let cap = u64::try_from(limit).unwrap_or(u64::MAX);
    let bytes = match path {
        None => return Err("no case given: pass a JSON file, or - for standard input".into()),
        Some(p) if p.as_os_str() == "-" => read_capped(std::io::stdin(), cap)
            .map_err(|e| format!("cannot read standard input: {e}"))?,
        Some(p) => std::fs::File::open(p)
            .and_then(|f| read_capped(f, cap))
            .map_err(|e| format!("cannot read {}: {e}", p.display()))?,
    };
    bytes.ok_or_else(|| too_large(limit))
}

/// The JSON case in `bytes`, as `eval` reads one case: read as
/// [`read_case_text`] reads a batch line (the same refusals), as a value.
pub fn parse_case(bytes: &[u8]) -> Result<serde_json::Value, String> {
    match read_case_text(bytes) {
        Ok(case) => Ok(case.root().to_value()),
        Err(e) if e.path == "$" => Err(e.message),
        Err(e) => Err(format!("{}: {}", e.path, e.message)),
    }
}

/// The JSON case in `bytes`, out of its envelope, as the library reads
/// case text ([`CaseText::from_bytes`]).
pub fn read_case_text(bytes: &[u8]) -> Result<CaseText<'_>, CaseError> {
    CaseText::from_bytes(bytes)
}
