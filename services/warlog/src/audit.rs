//! `warlog audit FILE.ndjson [--seed HEX]`: the offline auditor. It reads an export, runs
//! the same checks as the server's `/audit` ([`warlog_events::audit`]) and exits non-zero
//! naming the first mismatch. No database, no network.

use std::io::{BufRead, Write};
use std::path::Path;

use warlog_events::audit::audit_game;
use warlog_events::RecordedEvent;
use warlog_rules::dice::GameSeed;

use crate::CliError;

/// Reads an NDJSON export: one event a line, as `GET /v1/games/{id}/events` writes it.
pub fn read_export(reader: impl BufRead) -> Result<Vec<RecordedEvent>, CliError> {
    let mut events = Vec::new();
    for (i, line) in reader.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let event: RecordedEvent = serde_json::from_str(&line)
            .map_err(|e| CliError::Other(format!("line {}: not an exported event: {e}", i + 1)))?;
        events.push(event);
    }
    Ok(events)
}

/// Parses a seed given as 64 hex digits.
pub fn parse_seed(hex_seed: &str) -> Result<GameSeed, CliError> {
    hex::decode(hex_seed.trim())
        .ok()
        .and_then(|b| <[u8; 32]>::try_from(b).ok())
        .map(GameSeed::from_bytes)
        .ok_or_else(|| CliError::Other("--seed takes 64 hex digits (32 bytes)".to_owned()))
}

pub fn run(file: &Path, seed: Option<&str>, json: bool) -> Result<(), CliError> {
    let reader = std::io::BufReader::new(
        std::fs::File::open(file)
            .map_err(|e| CliError::Other(format!("{}: {e}", file.display())))?,
    );
    let events = read_export(reader)?;
    let seed = seed.map(parse_seed).transpose()?;
    let report = audit_game(&events, seed.as_ref());
    let mut out = std::io::stdout();
    if json {
        let text =
            serde_json::to_string_pretty(&report).map_err(|e| CliError::Other(e.to_string()))?;
        writeln!(out, "{text}")?;
    } else {
        write!(out, "{}", report.render())?;
    }
    match report.first_failure() {
        None => Ok(()),
        Some(check) => Err(CliError::Other(format!(
            "audit failed: {}{}: {}",
            check.name,
            check
                .event
                .map(|v| format!(" at event {v}"))
                .unwrap_or_default(),
            check.detail
        ))),
    }
}
