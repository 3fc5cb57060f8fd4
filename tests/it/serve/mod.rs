//! `bareme serve` (issue 27) tested as a caller uses it: the binary started
//! on a free loopback port (port 0), requests over plain HTTP/1.1, the
//! SQLite file in a temporary folder. Every loop is bounded in count.

mod contract;
mod hostile;
mod load;

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `bareme serve`; killed when dropped.
pub struct Server {
    child: Child,
    /// `127.0.0.1:<port>`.
    pub addr: String,
}

impl Server {
    /// Starts the service on `db` with these extra flags; waits for the
    /// line that names its port.
    pub fn start(db: &Path, flags: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_bareme"))
            .current_dir(crate::root())
            .args(["serve", "--addr", "127.0.0.1:0", "--db"])
            .arg(db)
            .args(flags)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("bareme serve starts");
        let mut line = String::new();
        let out = child.stdout.take().expect("piped stdout");
        BufReader::new(out)
            .read_line(&mut line)
            .expect("a first line");
        let addr = line
            .trim()
            .strip_prefix("listening on http://")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
        Server { child, addr }
    }

    /// Kills the process at once (SIGKILL) and waits for it.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Sends the process a signal (`INT`, `TERM`) with `kill`, and waits
    /// for it to end, at most 30 s (then it is killed and the test fails).
    pub fn signal(&mut self, signal: &str) -> std::process::ExitStatus {
        let sent = Command::new("kill")
            .args([format!("-{signal}"), self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(sent.success(), "kill -{signal} failed");
        for _ in 0..300 {
            if let Some(status) = self.child.try_wait().expect("the child's status") {
                return status;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        panic!("bareme serve did not end within 30 s of SIG{signal}");
    }

    /// A request with a raw body; the status, headers (lower-cased names)
    /// and body.
    pub fn raw(&self, method: &str, path: &str, body: &[u8]) -> Reply {
        request(&self.addr, method, path, body).expect("the server answers")
    }

    /// A request; the status and the body as JSON (panics when not JSON).
    pub fn json(&self, method: &str, path: &str, body: &str) -> (u16, Value) {
        let r = self.raw(method, path, body.as_bytes());
        let v = serde_json::from_slice(&r.body).unwrap_or_else(|e| {
            panic!(
                "{method} {path}: {} not JSON ({e}): {}",
                r.status,
                String::from_utf8_lossy(&r.body)
            )
        });
        (r.status, v)
    }

    /// `GET /tasks?<query>` that must succeed: the run.
    pub fn run(&self, query: &str) -> Value {
        let (status, v) = self.json("GET", &format!("/tasks?{query}"), "");
        assert_eq!(status, 200, "{v}");
        v
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP reply.
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One HTTP/1.1 request on its own connection (`Connection: close`), its
/// body sent as JSON.
pub fn request(addr: &str, method: &str, path: &str, body: &[u8]) -> std::io::Result<Reply> {
    let json = "Content-Type: application/json\r\n";
    request_with(addr, method, path, json, body)
}

/// [`request`] with these header lines (each ending in CRLF) besides
/// `Host`, `Connection` and `Content-Length`.
pub fn request_with(
    addr: &str,
    method: &str,
    path: &str,
    headers: &str,
    body: &[u8],
) -> std::io::Result<Reply> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{headers}Content-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    // A body the server refuses early may close the connection before it
    // is all sent: the reply is still read.
    let _ = stream.write_all(body);
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| std::io::Error::other("no header end"))?;
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other("no status"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"))
    {
        body = dechunk(&body);
    }
    Ok(Reply {
        status,
        headers,
        body,
    })
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = b.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&b[..end]).trim(), 16).unwrap_or(0);
        if size == 0 || end + 2 + size > b.len() {
            break;
        }
        out.extend_from_slice(&b[end + 2..end + 2 + size]);
        b = &b[(end + 4 + size).min(b.len())..];
    }
    out
}

/// A fresh folder for a store.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("bareme-serve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The flags of a server the tests do not rate-limit.
pub const OPEN: &[&str] = &["--rate-limit", "100000"];

/// A submission body.
pub fn submission(run_id: &str, answers: &[(&str, &str)]) -> String {
    let answers: Vec<Value> = answers
        .iter()
        .map(|(id, reply)| serde_json::json!({"id": id, "reply": reply}))
        .collect();
    serde_json::json!({"run_id": run_id, "answers": answers}).to_string()
}

/// Asserts the error shape `{"error": {"code", "message"}}` with a 4xx status.
pub fn assert_client_error(status: u16, v: &Value, what: &str) {
    assert!((400..500).contains(&status), "{what}: status {status} {v}");
    assert!(v["error"]["code"].is_string(), "{what}: {v}");
    assert!(v["error"]["message"].is_string(), "{what}: {v}");
}

/// A decimal as the server writes it: a JSON number, trailing zeros removed.
pub fn decimal(d: rust_decimal::Decimal) -> Value {
    bareme::unstable::score::number(d)
}
