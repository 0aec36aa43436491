//! `warlog audit FILE... [--seed HEX] [--head VERSION:HASH] [--dice-key BASE64] [--json]`:
//! the offline auditor. It reads exports (a game's, a tournament's with its games', a dice
//! table's), runs the same checks as the server's `/audit`
//! ([`warlog_events::audit`]), prints one line per check and per finding, and exits with
//! 0 (passed), 1 (failed), 2 (the files or arguments could not be read, as for any usage
//! error) or 3 (partial). No database,
//! no network.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use warlog_events::audit::dice_table::public_key_from_base64;
use warlog_events::audit::{audit_dice_table, audit_game, AuditReport, Outcome};
use warlog_events::{ChainHead, Hash, RecordedEvent, StreamCategory};
use warlog_league::audit::audit_tournament;
use warlog_league::ladder_audit::{audit_ladder, PublishedLadder};
use warlog_rules::dice::GameSeed;

use crate::CliError;

/// Exit code: the files could not be read, or the arguments are wrong (clap's code for a
/// usage error too).
pub const UNREADABLE: u8 = 2;
/// Exit code: nothing failed, but some checks could not be made.
pub const PARTIAL: u8 = 3;

/// Reads an NDJSON export: one event a line, as `GET /v1/streams/{stream}/events` writes it.
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

/// Parses the dice service's public key, base64 as `GET /.well-known/warlog-dice-key` gives
/// it.
pub fn parse_dice_key(text: &str) -> Result<[u8; 32], CliError> {
    public_key_from_base64(text).map_err(|why| {
        CliError::Other(format!(
            "--dice-key takes the service's Ed25519 public key, 32 bytes in base64 as \
             `public_key` in GET /.well-known/warlog-dice-key: {why}"
        ))
    })
}

/// Parses a published head, `VERSION:HASH` (as `GET /v1/streams/{stream}/head` gives them).
pub fn parse_head(text: &str) -> Result<ChainHead, CliError> {
    let bad = || {
        CliError::Other(format!(
            "--head takes VERSION:HASH, a version and 64 hex digits, not {text:?}"
        ))
    };
    let (version, hash) = text.trim().split_once(':').ok_or_else(bad)?;
    Ok(ChainHead {
        version: version.parse().map_err(|_| bad())?,
        hash: Hash::try_from(hash.to_owned()).map_err(|_| bad())?,
    })
}

fn read_file(file: &Path) -> Result<Vec<RecordedEvent>, CliError> {
    let reader = std::io::BufReader::new(
        std::fs::File::open(file)
            .map_err(|e| CliError::Other(format!("{}: {e}", file.display())))?,
    );
    read_export(reader).map_err(|e| CliError::Other(format!("{}: {e}", file.display())))
}

/// What `warlog audit` was given.
#[derive(Debug, Clone, Default)]
pub struct AuditInput {
    pub files: Vec<PathBuf>,
    /// The game's seed, 64 hex digits.
    pub seed: Option<String>,
    /// A published head, VERSION:HASH.
    pub head: Option<String>,
    /// The pages of a published points ladder.
    pub ladder: Vec<PathBuf>,
    /// The dice service's public key, base64.
    pub dice_key: Option<String>,
}

impl AuditInput {
    /// Files to audit, and nothing else.
    pub fn files(files: &[PathBuf]) -> Self {
        AuditInput {
            files: files.to_vec(),
            ..AuditInput::default()
        }
    }
}

/// Runs the audit and prints its report; the error carries the exit code.
pub fn run(input: &AuditInput, json: bool) -> Result<(), CliError> {
    match audit_files(input) {
        Ok(report) => {
            print(&report, json)?;
            match report.outcome {
                Outcome::Passed => Ok(()),
                Outcome::Failed => Err(CliError::Exit(1)),
                Outcome::Partial => Err(CliError::Exit(PARTIAL)),
            }
        }
        Err(error) => {
            writeln!(std::io::stderr(), "warlog audit: {error}")?;
            Err(CliError::Exit(UNREADABLE))
        }
    }
}

pub fn audit_files(input: &AuditInput) -> Result<AuditReport, CliError> {
    let seed = input.seed.as_deref().map(parse_seed).transpose()?;
    let head = input.head.as_deref().map(parse_head).transpose()?;
    let dice_key = input.dice_key.as_deref().map(parse_dice_key).transpose()?;
    if !input.ladder.is_empty() {
        let pages = input
            .ladder
            .iter()
            .map(|f| read_ladder(f))
            .collect::<Result<Vec<_>, _>>()?;
        let games = input
            .files
            .iter()
            .map(|f| read_file(f))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(audit_ladder(&pages, &games));
    }
    let Some((first, rest)) = input.files.split_first() else {
        return Err(CliError::Other("give the export to audit".to_owned()));
    };
    let events = read_file(first)?;
    let category = events.first().map(|e| e.stream_id.category());
    match category {
        Some(StreamCategory::Tournament) => {
            let games = rest
                .iter()
                .map(|f| read_file(f))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(audit_tournament(&events, &games, head.as_ref()))
        }
        Some(StreamCategory::Game) | None if rest.is_empty() => {
            Ok(audit_game(&events, seed.as_ref(), head.as_ref()))
        }
        Some(StreamCategory::Game) | None => Err(CliError::Other(
            "a game is audited from its one export; give one file".to_owned(),
        )),
        Some(StreamCategory::Dice) if rest.is_empty() => Ok(audit_dice_table(
            &events,
            head.as_ref(),
            dice_key.as_ref().map(|key| key.as_slice()),
        )),
        Some(StreamCategory::Dice) => Err(CliError::Other(
            "a dice table is audited from its one export; give one file".to_owned(),
        )),
        Some(other) => Err(CliError::Other(format!(
            "{}: a {} stream; warlog audit reads a game's export, a tournament's \
             followed by its games', or a dice table's",
            first.display(),
            other.as_str()
        ))),
    }
}

fn read_ladder(file: &Path) -> Result<PublishedLadder, CliError> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| CliError::Other(format!("{}: {e}", file.display())))?;
    serde_json::from_str(&text).map_err(|e| {
        CliError::Other(format!(
            "{}: not a ladder page as GET /v1/leaderboards/points gives it: {e}",
            file.display()
        ))
    })
}

fn print(report: &AuditReport, json: bool) -> Result<(), CliError> {
    let mut out = std::io::stdout();
    if json {
        let text =
            serde_json::to_string_pretty(report).map_err(|e| CliError::Other(e.to_string()))?;
        writeln!(out, "{text}")?;
    } else {
        let colour = out.is_terminal() && std::env::var_os("NO_COLOR").is_none();
        write!(out, "{}", paint(&report.render(), colour))?;
    }
    Ok(())
}

/// Colours the verdict words, and only for a terminal.
fn paint(text: &str, colour: bool) -> String {
    if !colour {
        return text.to_owned();
    }
    text.lines()
        .map(|line| {
            let code = if line.starts_with("FAIL") || line.starts_with("verdict: failed") {
                "31"
            } else if line.starts_with("PASS") || line.starts_with("verdict: passed") {
                "32"
            } else if line.starts_with("SKIP") || line.starts_with("verdict: partial") {
                "33"
            } else {
                return format!("{line}\n");
            };
            format!("\u{1b}[{code}m{line}\u{1b}[0m\n")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_published_head_reads_as_version_and_hash_and_anything_else_is_refused() {
        let hash = "ab".repeat(32);
        let head = parse_head(&format!("212:{hash}")).expect("a head");
        assert_eq!(head.version, 212);
        assert_eq!(head.hash.to_hex(), hash);
        for bad in ["212", "x:ab", &format!("-1:{hash}"), "212:abc"] {
            let error = parse_head(bad).expect_err("refused");
            assert!(error.to_string().contains("VERSION:HASH"), "{error}");
        }
    }

    fn temp_file(text: &str) -> PathBuf {
        let path = std::env::temp_dir().join(format!("warlog-audit-{}.txt", uuid::Uuid::new_v4()));
        std::fs::write(&path, text).expect("written");
        path
    }

    #[test]
    fn files_that_are_not_exports_or_ladders_are_refused_by_name() {
        let garbage = temp_file("not json\n");
        let error = audit_files(&AuditInput::files(std::slice::from_ref(&garbage)))
            .expect_err("not an export");
        assert!(
            error.to_string().contains("line 1: not an exported event"),
            "{error}"
        );
        let error = audit_files(&AuditInput {
            ladder: vec![garbage.clone()],
            ..AuditInput::default()
        })
        .expect_err("not a ladder");
        assert!(error.to_string().contains("not a ladder page"), "{error}");
        let error = audit_files(&AuditInput::default()).expect_err("no file");
        assert!(error.to_string().contains("give the export"), "{error}");
        let _ = std::fs::remove_file(garbage);
    }

    /// `events` as the export's NDJSON, in a file.
    fn export_file(events: &[RecordedEvent]) -> PathBuf {
        let lines: Vec<String> = events
            .iter()
            .map(|e| serde_json::to_string(e).expect("an event as JSON"))
            .collect();
        temp_file(&(lines.join("\n") + "\n"))
    }

    #[test]
    fn a_dice_tables_export_is_audited_with_the_dice_key_and_partly_without_it() {
        use warlog_events::audit::dice_table::sample::{change_first_die, SampleTable};
        // Given a dice table's export: a hundred rolls, then its seed revealed
        let mut table = SampleTable::open();
        table.roll(100).reveal();
        let events = table.recorded();
        let file = export_file(&events);
        let input = |dice_key: Option<String>| AuditInput {
            dice_key,
            ..AuditInput::files(std::slice::from_ref(&file))
        };
        // When it is audited with the key the service publishes, it passes
        let key = table.keys.public_key_base64();
        let report = audit_files(&input(Some(key.clone()))).expect("the file reads");
        assert_eq!(report.outcome, Outcome::Passed, "{}", report.render());
        let text = report.render();
        assert!(
            text.contains("PASS dice: 100 rolls recomputed die by die from the revealed seeds\n"),
            "{text}"
        );
        assert!(
            text.contains("PASS signatures: 100 signatures are"),
            "{text}"
        );
        // And without it the signatures are not checked: partial, not failed
        let report = audit_files(&input(None)).expect("the file reads");
        assert_eq!(report.outcome, Outcome::Partial, "{}", report.render());
        assert!(report
            .render()
            .contains("SKIP signatures: no public key was given"));
        // And a key that is not one is refused naming the option
        let error = audit_files(&input(Some("not a key".to_owned()))).expect_err("refused");
        assert!(error.to_string().starts_with("--dice-key takes"), "{error}");
        // And with a die changed (the chain hashed again) it fails naming the roll
        let mut forged = events.clone();
        change_first_die(&mut forged, 58);
        let forged_file = export_file(&forged);
        let report = audit_files(&AuditInput {
            dice_key: Some(key),
            ..AuditInput::files(std::slice::from_ref(&forged_file))
        })
        .expect("the file reads");
        assert_eq!(report.outcome, Outcome::Failed, "{}", report.render());
        let text = report.render();
        assert!(
            text.contains("FAIL dice: 1 finding\n  event 58: the record says"),
            "{text}"
        );
        // And a second file is refused: a table is audited from its one export
        let error = audit_files(&AuditInput::files(&[file.clone(), forged_file.clone()]))
            .expect_err("two files");
        assert!(error.to_string().contains("its one export"), "{error}");
        let _ = std::fs::remove_file(file);
        let _ = std::fs::remove_file(forged_file);
    }

    #[test]
    fn verdicts_are_coloured_only_for_a_terminal() {
        let text = "FAIL orders: 1 finding\n  event 7: ...\nverdict: failed (1 finding)\n";
        assert_eq!(paint(text, false), text);
        let coloured = paint(text, true);
        assert!(coloured.starts_with("\u{1b}[31mFAIL"), "{coloured:?}");
        assert!(coloured.contains("  event 7: ...\n"), "{coloured:?}");
    }
}
