//! Deciding one message of the inbox: read it, find its reply address and the game, have
//! the domain decide who is writing (`warlog_events::by_mail::intake::authenticated`) before
//! anything the mail says is read, take the turn out of the reply and check it is of the
//! turn in play (`intake::in_turn`), then preview the turn or write it
//! through the one write path, keyed by the message so that deciding it twice writes it
//! once. Every refusal is a sentence for the sender; nothing is appended for one.

use time::OffsetDateTime;
use warlog_events::by_mail::intake::{authenticated, in_turn, Letter, MailRefusal};
use warlog_events::by_mail::reply_text::turn_of_reply;
use warlog_events::by_mail::token::{token_in_address, ReplyToken};
use warlog_events::game::GameLog;
use warlog_events::orders::ByMail;
use warlog_events::sender::Role;
use warlog_events::turn::{only_any_time_orders, plan_turn};
use warlog_events::StreamId;
use warlog_rules::board::Power;
use warlog_rules::game::Moment;
use warlog_store::inbox::{message_recorded, InboxMessage};
use warlog_store::mail::{addresses_of, player_of_address};
use warlog_store::StoreError;

use super::answers::{self, Answer};
use super::incoming::{self, Incoming};
use crate::auth::Identity;
use crate::error::{ApiError, ErrorCode};
use crate::games::{self, GameCommand};
use crate::turns::{self, TurnText};
use crate::write::{self, WriteRequest};
use crate::AppState;

/// What became of a message.
#[derive(Debug)]
pub enum Verdict {
    /// Decided: the outcome in coarse words for the inbox, and the answer to send its
    /// sender (a player on file), if it gets one.
    Decided {
        outcome: String,
        answer: Option<Reply>,
    },
    /// Not decided now (the database is away): the message waits for the next pass.
    PutOff,
}

/// Decides `message`.
pub async fn decide(state: &AppState, message: &InboxMessage) -> Verdict {
    match decide_or_fail(state, message).await {
        Ok(verdict) => verdict,
        Err(error) => {
            tracing::warn!(inbox = message.inbox_id, %error, "a mail could not be decided now; trying again");
            Verdict::PutOff
        }
    }
}

/// An answer to a player's mail: to whom (a handle on file), in reply to which message.
#[derive(Debug)]
pub struct Reply {
    pub handle: String,
    pub in_reply_to: Option<String>,
    pub answer: Answer,
}

/// The sender of a mail being decided, as far as answering it goes.
struct Refusing<'a> {
    handle: Option<String>,
    /// The mail's Message-ID, in angle brackets.
    message_id: Option<String>,
    subject: &'a str,
}

impl Refusing<'_> {
    /// A decision whose outcome is `outcome`, answered with `answer` where the sender is
    /// on file.
    fn answered(&self, outcome: String, answer: Answer) -> Verdict {
        Verdict::Decided {
            outcome,
            answer: self.handle.clone().map(|handle| Reply {
                handle,
                in_reply_to: self.message_id.clone(),
                answer,
            }),
        }
    }

    fn refuse(&self, code: &str, answer: Answer) -> Verdict {
        self.answered(format!("refused {code}"), answer)
    }

    fn because(&self, code: &str, why: &str) -> Verdict {
        self.refuse(code, answers::refused(self.subject, why, None))
    }
}

fn ignored(why: &str) -> Verdict {
    Verdict::Decided {
        outcome: format!("ignored {why}"),
        answer: None,
    }
}

/// Whether an error may pass by itself (the database away, the service busy): the message
/// is then decided later rather than refused.
fn passes(error: &ApiError) -> bool {
    error.code.status().as_u16() == 503 || error.code == ErrorCode::Internal
}

async fn decide_or_fail(state: &AppState, message: &InboxMessage) -> Result<Verdict, ApiError> {
    let desk = &state.mail_desk;
    let Some(incoming) = incoming::read(&message.raw, desk.authserv_id.as_deref()) else {
        return Ok(ignored("unreadable"));
    };
    if incoming.automatic {
        return Ok(ignored("automatic"));
    }
    let client = state.store.pool().get().await.map_err(StoreError::from)?;
    // Answers go only to an address on file: a stranger's mail is refused in silence, so
    // the service never mails an address nobody gave it.
    let handle = match &incoming.from {
        Some(from) => player_of_address(&client, from).await?,
        None => None,
    };
    let refusing = Refusing {
        handle,
        message_id: incoming.message_id.as_ref().map(|id| format!("<{id}>")),
        subject: &incoming.subject,
    };
    if message.oversized || message.raw.len() > desk.max_message_bytes {
        return Ok(refusing.because(
            "too-large",
            &format!(
                "it is larger than {} kB, the most warlog takes: send the turn as plain \
                 text, without attachments",
                desk.max_message_bytes / 1024
            ),
        ));
    }
    let Some(replies) = desk.replies.clone() else {
        return Ok(refusing.because("no-intake", "this service does not take turns by mail"));
    };
    let token = match reply_token(message, &incoming) {
        // Not a reply to any of the service's mails: not answered, so a mailbox that also
        // receives other mail (an autoresponder's, say) starts no exchange.
        None => return Ok(ignored("no-token")),
        Some(Err(why)) => return Ok(refusing.because("bad-token", &why)),
        Some(Ok(token)) => token,
    };
    let stream = match StreamId::of(warlog_events::StreamCategory::Game, &token.game_id()) {
        Ok(stream) => stream,
        Err(_) => {
            return Ok(refusing.because("another-game", &MailRefusal::AnotherGame.to_string()))
        }
    };
    let log = match games::load(&client, &state.games, &stream).await {
        Ok(log) => log,
        Err(error) if error.code == ErrorCode::GameNotFound => {
            return Ok(refusing.because("another-game", &MailRefusal::AnotherGame.to_string()))
        }
        Err(error) => return Err(error),
    };
    // Decided before, and its turn recorded, but not marked (a crash in between): the
    // record is the decision, and its report the answer.
    let message_hex = hex::encode(message.message_key);
    if message_recorded(&client, &stream, &message_hex).await? {
        return Ok(recorded());
    }
    let Some(body) = incoming.text.as_deref().filter(|t| !t.trim().is_empty()) else {
        let why = if incoming.attachments_only {
            "it holds attachments and no text: write the turn in the mail itself, as plain text"
        } else {
            "it holds no text: write the turn in the mail itself"
        };
        return Ok(refusing.because("no-text", why));
    };
    let handles: Vec<String> = log
        .state
        .seats
        .values()
        .map(|seat| seat.player.clone())
        .chain(log.proxies.values().map(|p| p.proxy.clone()))
        .collect();
    let addresses = addresses_of(&client, &handles).await?;
    drop(client);
    let now = state.clock.now();
    let at = moment_of(now);
    let from = incoming.from.clone().unwrap_or_default();
    let mut letter = Letter {
        token: &token,
        from: &from,
        dmarc: incoming.dmarc,
        anytime_only: false,
    };
    // Nothing the mail says is read, nor quoted back, before its sender is known.
    let writer = match authenticated(&log, &replies.key, &letter, &addresses, at) {
        Ok(writer) => writer,
        Err(refusal) => return Ok(refusing.because(refusal.code(), &refusal.to_string())),
    };
    let reply = turn_of_reply(&incoming.subject, body);
    let text = reply.text;
    // A NUL (a quoted-printable `=00`, say) is refused as an HTTP body's is: no text the
    // service keeps may hold one.
    if let Some(line) = crate::input_guard::nul_line(&text) {
        return Ok(refusing.because(
            "nul-character",
            &format!(
                "line {line} of the turn {}: write the turn as plain text",
                crate::input_guard::NUL_REFUSED
            ),
        ));
    }
    let planned = match plan_turn(&log, &text) {
        Ok(planned) => planned,
        Err(error) => {
            let error = ApiError::unreadable_turn(error);
            return Ok(refusing.refuse(
                "turn-unreadable",
                answers::refused_turn(&incoming.subject, &error, &text),
            ));
        }
    };
    letter.anytime_only = only_any_time_orders(&planned);
    if let Err(refusal) = in_turn(&log, &letter) {
        return Ok(refusing.because(refusal.code(), &refusal.to_string()));
    }
    let caller = Identity {
        name: writer.sender.name.clone(),
        role: Role::Player,
    };
    if reply.preview {
        return previewed(&refusing, log, &caller, writer.power, at, &text).await;
    }
    let by_mail = ByMail {
        message: message_hex,
        // Taken in by the database's clock, decided by the service's: a record never says a
        // message arrived after it was decided, whatever the two clocks make of it.
        received_at: received_at(&message.received_at).map_or(at, |r| r.min(at)),
        dmarc: incoming.dmarc,
    };
    let path = format!("/v1/games/{}/turn", log.created.game_id);
    let request = WriteRequest::by_mail(caller, &path, &text, now, by_mail)?;
    let command = GameCommand {
        stream,
        commanding: TurnText {
            text: &text,
            power: Some(writer.power),
        },
    };
    let written = write::run(state, &request, &command).await;
    turn_written(written, &refusing, &text)
}

/// A preview asked for: what the turn would do, answered; nothing is written.
async fn previewed(
    refusing: &Refusing<'_>,
    log: GameLog,
    caller: &Identity,
    power: Power,
    at: Moment,
    text: &str,
) -> Result<Verdict, ApiError> {
    let (sender, previewed_text) = (caller.sender(), text.to_owned());
    let previewed = tokio::task::spawn_blocking(move || {
        turns::preview(&log, sender, at, &previewed_text, Some(power), None)
    })
    .await
    .map_err(|_| ApiError::new(ErrorCode::Internal, "a preview stopped"))?;
    let answer = match previewed {
        Ok(preview) => answers::preview(refusing.subject, &preview, text),
        Err(error) if passes(&error) => return Err(error),
        Err(error) => answers::refused_turn(refusing.subject, &error, text),
    };
    Ok(refusing.answered("previewed".to_owned(), answer))
}

/// What writing the turn came to: recorded, put off (an error that passes by itself), or
/// refused with the reason answered.
fn turn_written<T>(
    written: Result<T, ApiError>,
    refusing: &Refusing<'_>,
    text: &str,
) -> Result<Verdict, ApiError> {
    match written {
        Ok(_) => Ok(recorded()),
        Err(error) if passes(&error) => Err(error),
        Err(error) => Ok(refusing.refuse(
            error.code.as_str(),
            answers::refused_turn(refusing.subject, &error, text),
        )),
    }
}

/// A message whose turn is recorded: nothing to answer, the turn's report goes to the
/// players.
fn recorded() -> Verdict {
    Verdict::Decided {
        outcome: "recorded".to_owned(),
        answer: None,
    }
}

/// The token of the reply address the message was sent to: the envelope's recipients
/// where there was an envelope (they are where the mail server delivered it), else the
/// headers'. A mail to two seats' reply addresses is one mail for two turns, which the
/// service cannot tell apart: it is refused, so that neither is taken by chance.
fn reply_token(message: &InboxMessage, incoming: &Incoming) -> Option<Result<ReplyToken, String>> {
    let addresses = if message.recipients.is_empty() {
        &incoming.to
    } else {
        &message.recipients
    };
    let mut found: Vec<Result<ReplyToken, MailRefusal>> = Vec::new();
    for token in addresses.iter().filter_map(|a| token_in_address(a)) {
        let token = token.map_err(MailRefusal::from);
        if !found.contains(&token) {
            found.push(token);
        }
    }
    match found.len() {
        0 => None,
        1 => found
            .pop()
            .map(|token| token.map_err(|refusal| refusal.to_string())),
        _ => Some(Err(
            "it was sent to more than one reply address: send each power's turn as a reply \
             to that power's own mail"
                .to_owned(),
        )),
    }
}

fn moment_of(now: OffsetDateTime) -> Moment {
    Moment::from_unix_seconds(u64::try_from(now.unix_timestamp()).unwrap_or(0))
}

/// The inbox's time (RFC 3339) as a moment.
fn received_at(rfc3339: &str) -> Option<Moment> {
    let at = OffsetDateTime::parse(rfc3339, &time::format_description::well_known::Rfc3339).ok()?;
    Some(moment_of(at))
}
