//! A turn's report to the table (issue 51), made in the transaction that records the turn
//! (so it goes out if and only if the turn is on the record): one mail to every player at
//! the table with an address on file, as a game master sends it, each carrying the reply
//! address of the player's own power for the round now in play.

use warlog_events::by_mail::report::{turn_report, ReportLinks};
use warlog_events::by_mail::token::{issue, reply_address, TurnRef};
use warlog_events::game::{GameLog, GameStreamEvent};
use warlog_store::mail::{DirectMail, Recipient};

use crate::mail_desk::MailDesk;
use crate::write::EventMail;

/// The report mails of a command of orders whose appended events are `events` (its record
/// first); none when the service sends no mail or the command is not orders.
pub(super) fn report_mails(
    desk: &MailDesk,
    before: &GameLog,
    events: &[GameStreamEvent],
    after: &GameLog,
) -> Vec<EventMail> {
    let Some((GameStreamEvent::Orders(record), played)) = events.split_first() else {
        return Vec::new();
    };
    if !desk.reports
        || !matches!(
            record.command,
            warlog_events::orders::Command::Orders { .. }
        )
    {
        return Vec::new();
    }
    let game_id = &before.created.game_id;
    let links = ReportLinks {
        game: desk.link(&format!("/games/{game_id}")),
        map: desk.link(&format!("/games/{game_id}?version={}", after.version)),
    };
    let report = turn_report(before, record, played, after, &links);
    let mut seen = std::collections::BTreeSet::new();
    after
        .state
        .seats
        .iter()
        .filter(|(_, seat)| seen.insert(seat.player.clone()))
        .map(|(power, seat)| {
            let reply_to = desk.replies.as_ref().and_then(|replies| {
                let token = issue(
                    &replies.key,
                    &TurnRef {
                        game_id: game_id.clone(),
                        round: after.state.round,
                        power: *power,
                        player: seat.player.clone(),
                    },
                )?;
                Some(reply_address(&token, &replies.domain))
            });
            EventMail {
                event: 0,
                mail: DirectMail {
                    reply_to,
                    ..DirectMail::notice(
                        format!("report-{game_id}-{}-{}", before.version + 1, seat.player),
                        Recipient::Player(seat.player.clone()),
                        report.subject.clone(),
                        report.text.clone(),
                    )
                },
            }
        })
        .collect()
}
