//! Just enough HTTP/1.1 client for warlog's own tools (the benchmarks and the demo) to
//! talk to a server they started: one keep-alive connection, JSON bodies.

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use crate::CliError;

fn fail(e: impl std::fmt::Display) -> CliError {
    CliError::Other(e.to_string())
}

/// The body types the tools send.
pub const JSON: &str = "application/json";
pub const FORM: &str = "application/x-www-form-urlencoded";

/// One HTTP/1.1 keep-alive connection: just enough client for the benchmark.
#[derive(Debug)]
pub struct Connection {
    stream: BufReader<TcpStream>,
}

impl Connection {
    pub async fn open(addr: std::net::SocketAddr) -> Result<Self, CliError> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Connection {
            stream: BufReader::new(stream),
        })
    }

    /// Sends a request with a JSON body and returns the status and body.
    pub async fn send(
        &mut self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: &str,
    ) -> Result<(u16, String), CliError> {
        self.send_as(method, path, token, JSON, body).await
    }

    /// Sends a request with a body of `content_type` and returns the status and body.
    pub async fn send_as(
        &mut self,
        method: &str,
        path: &str,
        token: Option<&str>,
        content_type: &str,
        body: &str,
    ) -> Result<(u16, String), CliError> {
        let auth = token
            .map(|t| format!("Authorization: Bearer {t}\r\n"))
            .unwrap_or_default();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: bench\r\n{auth}Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        self.stream.get_mut().write_all(request.as_bytes()).await?;
        let mut line = String::new();
        self.stream.read_line(&mut line).await?;
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| fail(format!("bad status line {line:?}")))?;
        let mut length = 0usize;
        loop {
            line.clear();
            self.stream.read_line(&mut line).await?;
            if line == "\r\n" || line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().map_err(fail)?;
                }
            }
        }
        let mut body = vec![0u8; length];
        self.stream.read_exact(&mut body).await?;
        Ok((status, String::from_utf8_lossy(&body).into_owned()))
    }

    /// Sends a request and parses the answer as JSON; anything but `expected` is an error
    /// that names the request and the answer.
    pub async fn json(
        &mut self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: &serde_json::Value,
        expected: u16,
    ) -> Result<serde_json::Value, CliError> {
        // A GET carries no body: one left unread would be taken for the next request.
        let text = if body.is_null() {
            String::new()
        } else {
            body.to_string()
        };
        let (status, text) = self
            .send(method, path, token, &text)
            .await
            .map_err(|e| fail(format!("{method} {path}: {e}")))?;
        if status != expected {
            return Err(fail(format!("{method} {path} {body}: {status} {text}")));
        }
        serde_json::from_str(&text).map_err(|e| fail(format!("{method} {path}: {e}: {text}")))
    }
}
