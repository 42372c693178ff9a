//! A Luxi client: Ganeti's local protocol over a unix socket
//! (`Ganeti/Luxi.hs`, `Ganeti/UDSServer.hs`), for the planners' `-L`.
//!
//! Luxi vocabulary: a *method* (`Query`, `QueryClusterInfo`, and for job
//! submission `SubmitJob`, `WaitForJobChange`, `QueryJobs`) with a list
//! of *args*; the master daemon (luxid) answers `{"success": bool,
//! "result": ...}`. Each message on the socket is one JSON text followed
//! by the byte 0x03. [`Client::call`] sends one request and waits for its
//! reply; every failure is a [`LuxiError`] value naming the socket and the
//! method (nothing panics, nothing is printed here).
//!
//! The socket I/O lives in the shell, not in `read`: reading never does
//! I/O (ARCHITECTURE.md, "Layers"), so the reply envelope and the query
//! results are decoded by `read::live::luxi` from the bytes this client
//! hands over, and the same decoding is tested on captured replies
//! without a socket. The client knows nothing about queries: job
//! submission (`-X`) can use it as it is.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use crate::read::json::{parse_document, Value};
use crate::read::live::luxi::{envelope, EnvelopeError};
use crate::write::json::Json;
use crate::write::luxi::request;

/// The query socket hbal reads when `-L` has no value.
pub const DEFAULT_SOCKET: &str = "/var/run/ganeti/socket/ganeti-query";

/// The largest reply (Luxi message or RAPI resource) read: 1 GiB. The
/// four replies of a 10,000-node cluster take tens of MiB; a reply that
/// grows past this is refused before more memory is taken.
pub const MAX_REPLY: usize = 1 << 30;

/// How long one read or write may wait (Ganeti's `luxiDefRwto`, 60 s).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The end-of-message byte.
const ETX: u8 = 0x03;

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
pub enum LuxiError {
    /// The socket cannot be opened.
    #[error("cannot connect to the Luxi socket {socket}: {error}")]
    Connect {
        socket: String,
        error: std::io::Error,
    },
    /// Sending or receiving failed (including a timeout).
    #[error("Luxi call {method} on {socket}: {error}")]
    Io {
        socket: String,
        method: String,
        error: std::io::Error,
    },
    /// The server closed the connection before the end of the reply.
    #[error("Luxi call {method} on {socket}: the connection was closed before the reply ended")]
    Closed { socket: String, method: String },
    /// The reply is not JSON, or not `{"success": ..., "result": ...}`.
    #[error("Luxi call {method}: malformed reply: {message}")]
    Malformed { method: String, message: String },
    /// The master refused the call (`success` false), with its error.
    #[error("Luxi call {method} failed: {message}")]
    Failed { method: String, message: String },
    /// The reply grew past [`MAX_REPLY`] without ending.
    #[error(
        "the reply to {method} on {socket} is larger than {} MiB, the most hailstone reads",
        MAX_REPLY >> 20
    )]
    TooLarge { socket: String, method: String },
}

/// One reply whose envelope was checked: `success` true.
pub struct Reply {
    method: String,
    bytes: Vec<u8>,
}

impl Reply {
    /// The reply `bytes` (a whole message, without its 0x03) to `method`,
    /// once its envelope says `success`.
    ///
    /// # Errors
    ///
    /// A malformed reply, or the master's error.
    pub fn checked(method: &str, bytes: Vec<u8>) -> Result<Reply, LuxiError> {
        let reply = Reply {
            method: method.to_owned(),
            bytes,
        };
        let doc = parse_document(&reply.bytes).map_err(|e| reply.malformed(e.to_string()))?;
        match envelope(&doc) {
            Ok(_) => {}
            Err(EnvelopeError::Malformed(m)) => return Err(reply.malformed(m)),
            Err(EnvelopeError::Failed(message)) => {
                return Err(LuxiError::Failed {
                    method: method.to_owned(),
                    message,
                })
            }
        }
        drop(doc);
        Ok(reply)
    }

    /// The raw reply message (without its 0x03).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// `read` given the reply's `result`.
    ///
    /// # Errors
    ///
    /// Never for a reply [`Client::call`] returned (it checked the
    /// envelope); a [`LuxiError::Malformed`] otherwise.
    pub fn with_result<T>(&self, read: impl FnOnce(Value<'_>) -> T) -> Result<T, LuxiError> {
        let doc = parse_document(&self.bytes).map_err(|e| self.malformed(e.to_string()))?;
        let result = envelope(&doc).map_err(|e| match e {
            EnvelopeError::Malformed(m) | EnvelopeError::Failed(m) => self.malformed(m),
        })?;
        Ok(read(result))
    }

    fn malformed(&self, message: String) -> LuxiError {
        LuxiError::Malformed {
            method: self.method.clone(),
            message,
        }
    }
}

/// A connection to a Luxi socket.
pub struct Client {
    socket: String,
    stream: UnixStream,
    /// Bytes received after the last reply's 0x03.
    pending: Vec<u8>,
}

impl Client {
    /// Connects to `socket`; each later read or write waits at most
    /// `timeout`.
    ///
    /// # Errors
    ///
    /// [`LuxiError::Connect`].
    pub fn connect(socket: &str, timeout: Duration) -> Result<Client, LuxiError> {
        let connect_error = |error| LuxiError::Connect {
            socket: socket.to_owned(),
            error,
        };
        let stream = UnixStream::connect(socket).map_err(connect_error)?;
        stream
            .set_read_timeout(Some(timeout))
            .and_then(|()| stream.set_write_timeout(Some(timeout)))
            .map_err(connect_error)?;
        Ok(Client {
            socket: socket.to_owned(),
            stream,
            pending: Vec::new(),
        })
    }

    /// Calls `method` with `args` (a JSON array) and returns the
    /// reply once its envelope says `success`.
    ///
    /// # Errors
    ///
    /// I/O, a closed connection, a malformed reply, or the master's error.
    pub fn call(&mut self, method: &str, args: &Json) -> Result<Reply, LuxiError> {
        let io_error = |error| LuxiError::Io {
            socket: self.socket.clone(),
            method: method.to_owned(),
            error,
        };
        let mut message = request(method, args).into_bytes();
        message.push(ETX);
        self.stream.write_all(&message).map_err(io_error)?;
        self.stream.flush().map_err(io_error)?;
        let bytes = self.receive(method)?;
        Reply::checked(method, bytes)
    }

    /// The next message: the bytes up to the next 0x03.
    fn receive(&mut self, method: &str) -> Result<Vec<u8>, LuxiError> {
        let mut scanned = 0;
        loop {
            if let Some(end) = self.pending[scanned..].iter().position(|&b| b == ETX) {
                let end = scanned + end;
                let rest = self.pending.split_off(end + 1);
                let mut message = std::mem::replace(&mut self.pending, rest);
                message.pop();
                return Ok(message);
            }
            scanned = self.pending.len();
            let mut chunk = [0u8; 65536];
            let n = match self.stream.read(&mut chunk) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) => {
                    return Err(LuxiError::Io {
                        socket: self.socket.clone(),
                        method: method.to_owned(),
                        error,
                    })
                }
            };
            if n == 0 {
                return Err(LuxiError::Closed {
                    socket: self.socket.clone(),
                    method: method.to_owned(),
                });
            }
            if self.pending.len().saturating_add(n) > MAX_REPLY {
                return Err(LuxiError::TooLarge {
                    socket: self.socket.clone(),
                    method: method.to_owned(),
                });
            }
            self.pending.extend_from_slice(&chunk[..n]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixListener;

    /// A server that answers each request with the next canned reply
    /// (written in two pieces, to test the framing), and returns the
    /// requests it got.
    fn serve(replies: Vec<Vec<u8>>) -> (String, std::thread::JoinHandle<Vec<Vec<u8>>>) {
        let dir = std::env::temp_dir().join(format!(
            "hailstone-luxi-unit-{}-{}",
            std::process::id(),
            replies.len()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("sock");
        let listener = UnixListener::bind(&path).unwrap();
        let handle = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            let mut requests = Vec::new();
            let mut buf = Vec::new();
            for reply in replies {
                loop {
                    if let Some(i) = buf.iter().position(|&b| b == ETX) {
                        let rest = buf.split_off(i + 1);
                        buf.pop();
                        requests.push(std::mem::replace(&mut buf, rest));
                        break;
                    }
                    let mut chunk = [0u8; 4096];
                    let n = s.read(&mut chunk).unwrap();
                    if n == 0 {
                        return requests;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                }
                let (a, b) = reply.split_at(reply.len() / 2);
                s.write_all(a).unwrap();
                s.flush().unwrap();
                s.write_all(b).unwrap();
            }
            requests
        });
        (path.to_string_lossy().into_owned(), handle)
    }

    #[test]
    fn a_call_sends_one_framed_request_and_reads_the_reply() {
        let (path, server) = serve(vec![
            b"{\"success\":true,\"result\":[1,2]}\x03".to_vec(),
            b"{\"success\":false,\"result\":[\"OpPrereqError\",[\"no such job\",\"wrong_input\"]]}\x03"
                .to_vec(),
        ]);
        let mut client = Client::connect(&path, Duration::from_secs(5)).unwrap();
        let reply = client
            .call("QueryJobs", &crate::write::luxi::query_job_status(&[1]))
            .unwrap();
        let len = reply
            .with_result(|v| v.as_array().map(|a| a.len()))
            .unwrap();
        assert_eq!(len, Some(2));
        let err = client
            .call("QueryJobs", &Json::Arr(Vec::new()))
            .err()
            .unwrap();
        assert_eq!(
            err.to_string(),
            "Luxi call QueryJobs failed: OpPrereqError: no such job, wrong_input"
        );
        let requests = server.join().unwrap();
        assert_eq!(
            requests,
            vec![
                b"{\"method\":\"QueryJobs\",\"args\":[[1],[\"status\"]]}".to_vec(),
                b"{\"method\":\"QueryJobs\",\"args\":[]}".to_vec()
            ]
        );
    }

    #[test]
    fn a_closed_connection_and_a_bad_reply_are_errors() {
        let (path, server) = serve(vec![b"not json\x03".to_vec()]);
        let mut client = Client::connect(&path, Duration::from_secs(5)).unwrap();
        let err = client.call("Query", &Json::Arr(Vec::new())).err().unwrap();
        assert!(matches!(err, LuxiError::Malformed { .. }), "{err}");
        let err = client.call("Query", &Json::Arr(Vec::new())).err().unwrap();
        // The server is gone: the request cannot be written, or no reply
        // comes.
        assert!(
            matches!(err, LuxiError::Closed { .. } | LuxiError::Io { .. }),
            "{err}"
        );
        server.join().unwrap();
        let err = Client::connect("/nonexistent/hailstone.sock", Duration::from_secs(1))
            .err()
            .unwrap();
        assert!(err
            .to_string()
            .starts_with("cannot connect to the Luxi socket /nonexistent/hailstone.sock: "));
    }
}
