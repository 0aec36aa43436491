//! `warlog heads` and `warlog verify`: publish every stream's head, and check later (after a
//! restore, say) that the database still holds every chain whole and every published head
//! on it.

use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use deadpool_postgres::GenericClient;
use warlog_store::verify::{check_stream, stream_ids_after, Mismatch, PublishedHead};

use crate::CliError;

/// Streams read from the database at a time.
const BATCH: u32 = 500;

/// Writes every stream's current head as a JSON line; how many.
pub async fn heads(client: &impl GenericClient, out: &mut impl Write) -> Result<u64, CliError> {
    let mut count = 0;
    let mut after = String::new();
    loop {
        let streams = stream_ids_after(client, &after, BATCH).await?;
        for stream in &streams {
            match check_stream(client, stream, None).await? {
                Ok(head) => {
                    let line =
                        serde_json::to_string(&head).map_err(|e| CliError::Other(e.to_string()))?;
                    writeln!(out, "{line}")?;
                    count += 1;
                }
                Err(mismatch) => {
                    return Err(CliError::Other(format!(
                        "{}: {mismatch}; no heads are published from a broken log",
                        stream.as_str()
                    )))
                }
            }
        }
        match streams.last() {
            Some(last) if streams.len() == BATCH as usize => after = last.as_str().to_owned(),
            _ => return Ok(count),
        }
    }
}

/// Reads a heads file written by `warlog heads`.
pub fn read_heads(path: &Path) -> Result<BTreeMap<String, PublishedHead>, CliError> {
    let file = std::fs::File::open(path)
        .map_err(|e| CliError::Other(format!("{}: {e}", path.display())))?;
    let mut heads = BTreeMap::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let head: PublishedHead = serde_json::from_str(&line)
            .map_err(|e| CliError::Other(format!("{} line {}: {e}", path.display(), i + 1)))?;
        heads.insert(head.stream.clone(), head);
    }
    Ok(heads)
}

/// What `warlog verify` found.
#[derive(Debug, Default)]
pub struct Verified {
    pub streams: u64,
    pub published_checked: u64,
    pub problems: Vec<(String, Mismatch)>,
}

impl Verified {
    /// The report people read.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (stream, problem) in &self.problems {
            out.push_str(&format!("FAIL {stream}: {problem}\n"));
        }
        out.push_str(&format!(
            "{} streams checked, every chain recomputed from its genesis; {} published heads \
             compared; {}\n",
            self.streams,
            self.published_checked,
            match self.problems.len() {
                0 => "verdict: passed".to_owned(),
                1 => "verdict: failed, 1 stream does not match".to_owned(),
                n => format!("verdict: failed, {n} streams do not match"),
            }
        ));
        out
    }
}

/// Checks every stream of the database, and every head of `published`.
pub async fn verify(
    client: &impl GenericClient,
    published: &BTreeMap<String, PublishedHead>,
) -> Result<Verified, CliError> {
    let progress = std::io::stderr().is_terminal();
    let mut report = Verified::default();
    let mut seen = std::collections::BTreeSet::new();
    let mut after = String::new();
    loop {
        let streams = stream_ids_after(client, &after, BATCH).await?;
        for stream in &streams {
            let head = published.get(stream.as_str());
            if head.is_some() {
                report.published_checked += 1;
                seen.insert(stream.as_str().to_owned());
            }
            if let Err(mismatch) = check_stream(client, stream, head).await? {
                report.problems.push((stream.as_str().to_owned(), mismatch));
            }
            report.streams += 1;
            if progress && report.streams % 1000 == 0 {
                let _ = writeln!(std::io::stderr(), "{} streams checked", report.streams);
            }
        }
        match streams.last() {
            Some(last) if streams.len() == BATCH as usize => after = last.as_str().to_owned(),
            _ => break,
        }
    }
    for stream in published.keys().filter(|s| !seen.contains(*s)) {
        report.published_checked += 1;
        report.problems.push((stream.clone(), Mismatch::Missing));
    }
    Ok(report)
}
