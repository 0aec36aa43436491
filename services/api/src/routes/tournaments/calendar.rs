//! The tournament's calendar (RFC 5545): round deadlines and scheduled games. Every event
//! is transparent (`TRANSP:TRANSPARENT`): a deadline or a game played by mail over days
//! does not make its subscribers busy. A deadline is a moment, so it has no `DTEND` (an
//! event whose end equals its start is invalid; one without an end lasts no time).

use actix_web::http::header;
use actix_web::{get, web, HttpResponse};
use time::OffsetDateTime;
use warlog_league::tournament::Tournament;
use warlog_rules::game::Moment;
use warlog_store::StoreError;

use crate::error::ApiError;
use crate::public_url::PublicUrl;
use crate::tournaments::*;
use crate::AppState;

/// The tournament's calendar (RFC 5545), to subscribe to.
///
/// One event per round deadline and one per scheduled game (from its round's seating to
/// the round's deadline); every event is transparent, so it does not make a subscriber
/// busy. A game's event links to its page when the service knows its public address.
#[utoipa::path(get, path = "/v1/tournaments/{id}/calendar.ics", tag = "tournaments",
    params(("id" = String, Path)),
    responses(
        (status = 200, description = "iCalendar", body = String, content_type = "text/calendar"),
    ))]
#[get("/v1/tournaments/{id}/calendar.ics")]
pub async fn tournament_calendar(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    let tournament = load_tournament(&client, &id).await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/calendar; charset=utf-8"))
        .insert_header((
            header::CONTENT_DISPOSITION,
            format!("attachment; filename=\"tournament-{id}.ics\""),
        ))
        .body(calendar(&tournament, state.public_url.as_ref())))
}

/// The iCalendar text of a tournament. A game's event links to its page only when the
/// service knows its public address: a calendar application cannot open a bare path.
pub fn calendar(tournament: &Tournament, public_url: Option<&PublicUrl>) -> String {
    let created = &tournament.created;
    let stamp = ics_time(created.at);
    let mut lines = vec![
        "BEGIN:VCALENDAR".to_owned(),
        "VERSION:2.0".to_owned(),
        "PRODID:-//warlog//tournaments//EN".to_owned(),
        "CALSCALE:GREGORIAN".to_owned(),
        format!("X-WR-CALNAME:{}", ics_text(&created.name)),
    ];
    for (i, deadline) in created.deadlines.iter().enumerate() {
        let round = i + 1;
        lines.extend([
            "BEGIN:VEVENT".to_owned(),
            format!(
                "UID:round-{round}-deadline.{}@warlog",
                created.tournament_id
            ),
            format!("DTSTAMP:{stamp}"),
            format!("DTSTART:{}", ics_time(*deadline)),
            "TRANSP:TRANSPARENT".to_owned(),
            format!(
                "SUMMARY:{}",
                ics_text(&format!("{}: round {round} deadline", created.name))
            ),
            "END:VEVENT".to_owned(),
        ]);
    }
    let played = tournament.tables_as_played();
    for (round, tables) in tournament.rounds.iter().zip(&played) {
        let deadline = created.deadlines.get(round.round as usize - 1).copied();
        for game in &round.games {
            let seats = tables
                .iter()
                .find(|t| t.table == game.table)
                .map(|t| {
                    t.seats
                        .iter()
                        .map(|(p, who)| format!("{} ({})", who, p.name()))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            lines.extend([
                "BEGIN:VEVENT".to_owned(),
                format!("UID:game-{}@warlog", game.game_id),
                format!("DTSTAMP:{stamp}"),
                format!("DTSTART:{}", ics_time(round.at)),
                "TRANSP:TRANSPARENT".to_owned(),
            ]);
            // Played until the round's deadline, when it is later than the seating.
            if let Some(end) = deadline.filter(|end| *end > round.at) {
                lines.push(format!("DTEND:{}", ics_time(end)));
            }
            lines.extend([
                format!(
                    "SUMMARY:{}",
                    ics_text(&format!(
                        "{}: round {}, table {}",
                        created.name, round.round, game.table
                    ))
                ),
                format!("DESCRIPTION:{}", ics_text(&seats)),
            ]);
            if let Some(base) = public_url {
                lines.push(format!(
                    "URL:{}",
                    base.join(&format!("/games/{}", game.game_id))
                ));
            }
            lines.push("END:VEVENT".to_owned());
        }
    }
    lines.push("END:VCALENDAR".to_owned());
    let mut out = String::new();
    for line in lines {
        fold_line(&line, &mut out);
    }
    out
}

fn ics_time(at: Moment) -> String {
    i64::try_from(at.unix_seconds())
        .ok()
        .and_then(|s| OffsetDateTime::from_unix_timestamp(s).ok())
        .map(|t| {
            format!(
                "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
                t.year(),
                u8::from(t.month()),
                t.day(),
                t.hour(),
                t.minute(),
                t.second()
            )
        })
        .unwrap_or_default()
}

/// RFC 5545 TEXT: backslash, semicolon, comma and newline escaped.
fn ics_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | ';' | ',' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

/// Lines longer than 75 octets are folded (CRLF and a space), never inside a character.
fn fold_line(line: &str, out: &mut String) {
    let mut width = 0;
    for c in line.chars() {
        if width + c.len_utf8() > 75 {
            out.push_str("\r\n ");
            width = 1;
        }
        out.push(c);
        width += c.len_utf8();
    }
    out.push_str("\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_calendar_lines_fold_at_75_octets_without_splitting_a_character() {
        let mut out = String::new();
        let line = format!("SUMMARY:{}", "é".repeat(60));
        fold_line(&line, &mut out);
        for physical in out.split("\r\n").filter(|l| !l.is_empty()) {
            assert!(physical.len() <= 75, "{physical:?}");
        }
        let unfolded = out.replace("\r\n ", "");
        assert_eq!(unfolded, format!("{line}\r\n"));
    }

    #[test]
    fn calendar_text_escapes_commas_semicolons_and_newlines() {
        assert_eq!(ics_text("a,b;c\\d\ne"), "a\\,b\\;c\\\\d\\ne");
    }
}
