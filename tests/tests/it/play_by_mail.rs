//! Play by e-mail (issue 51), end to end against real parts: `warlog serve` with its
//! listener (driven by Python's smtplib, over LMTP and SMTP) and its IMAP reader (reading a
//! real Dovecot over TLS), sending through a mail server in the test. Five players play
//! rounds 1 and 2 of Cut-Throat by replying to their "your move" mails, one asks for a
//! preview first, every player receives every turn's report with every die, and the export
//! passes the offline audit; spoofed, forged, replayed and stale mails are refused in words
//! and append nothing.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{json, Value};
use warlog_api::auth::Role;
use warlog_events::audit::Verdict;
use warlog_tests::{eventually, TestDb};

use crate::dovecot::Dovecot;
use crate::games::{offline_audit, write_export};
use crate::kit::{serve, token};
use crate::mail_clients::{lmtp_send, smtp_send, RawMail};
use crate::notices::{mail_server, seats_of, Delivered, MailServer};
use crate::turns::ORDER;

const PLAYERS: [&str; 5] = ["ann", "bob", "cy", "di", "ed"];
const MAILBOX: (&str, &str) = ("turns", "turns-secret");
const WAIT: Duration = Duration::from_secs(60);

/// How a reply reaches warlog.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Via {
    /// The operator's mail server delivers it to warlog's listener over LMTP.
    Lmtp,
    /// Over SMTP to the same listener.
    Smtp,
    /// It lands in the operator's mailbox, which warlog reads over IMAP.
    Imap,
}

/// A league playing by mail: the service, its mail server, its mailbox and one game.
pub(crate) struct League {
    db: TestDb,
    addr: SocketAddr,
    outgoing: MailServer,
    mailbox: Dovecot,
    listener: u16,
    game: String,
    /// The game master's token.
    gm: String,
    /// Power (as the API names it) to player.
    pub(crate) seats: BTreeMap<String, String>,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Value,
    expect: u16,
) -> Value {
    let mut connection = warlog::client::Connection::open(addr)
        .await
        .expect("connects");
    connection
        .json(method, path, token, &body, expect)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Five players registered with their addresses on file, and a new Cut-Throat game among
/// them, through the API at `addr`: the game, the game master's token and the game's view.
async fn players_and_a_game(db: &TestDb, addr: SocketAddr) -> (String, String, Value) {
    let admin = token(db, "root", Role::Admin).await;
    for player in PLAYERS {
        let handle = json!({"handle": player});
        http(addr, "POST", "/v1/players", Some(&admin), handle, 201).await;
        let email = json!({"email": format!("{player}@club.example")});
        let path = format!("/v1/players/{player}/email");
        http(addr, "PUT", &path, Some(&admin), email, 200).await;
    }
    let gm = token(db, "alice", Role::Gm).await;
    let body = json!({"ruleset": "cutthroat", "players": PLAYERS});
    let created = http(addr, "POST", "/v1/games", Some(&gm), body, 201).await;
    let game = created["game_id"].as_str().expect("an id").to_owned();
    let path = format!("/v1/games/{game}");
    let view = http(addr, "GET", &path, None, Value::Null, 200).await;
    (game, gm, view)
}

/// The service with mail in both ways, five players with addresses on file and a new
/// Cut-Throat game among them; none when Dovecot is not installed (and not required).
pub(crate) async fn a_league_playing_by_mail() -> Option<League> {
    let mailbox = crate::dovecot::start(&[MAILBOX]).await?;
    let db = TestDb::new().await;
    let (smtp_port, outgoing) = mail_server().await;
    let listener = free_port();
    let smtp = format!("smtp://127.0.0.1:{smtp_port}");
    let listen = format!("127.0.0.1:{listener}");
    let imap = mailbox.imaps_url(MAILBOX.0);
    let ca = mailbox.ca_cert_path().display().to_string();
    let addr = serve(
        &db,
        &[
            "--smtp-url",
            &smtp,
            "--mail-from",
            "League <warlog@league.example>",
            "--mail-listen",
            &listen,
            "--imap-url",
            &imap,
            "--imap-ca-file",
            &ca,
            "--imap-poll-s",
            "3",
            "--mail-authserv-id",
            "mx.league.example",
            "--public-url",
            "https://league.example",
        ],
    )
    .await;
    let (game, gm, view) = players_and_a_game(&db, addr).await;
    let seats = seats_of(&view);
    Some(League {
        gm,
        db,
        addr,
        outgoing,
        mailbox,
        listener,
        game,
        seats,
    })
}

impl League {
    async fn view(&self) -> Value {
        http(
            self.addr,
            "GET",
            &format!("/v1/games/{}", self.game),
            None,
            Value::Null,
            200,
        )
        .await
    }

    /// The game's events as the log holds them.
    async fn export(&self) -> Vec<warlog_events::RecordedEvent> {
        let client = self.db.pool.get().await.expect("a connection");
        let stream =
            warlog_events::StreamId::try_from(format!("game-{}", self.game)).expect("a stream");
        warlog_store::read_stream(&client, &stream, 1, u32::MAX)
            .await
            .expect("the events")
    }

    pub(crate) async fn version(&self) -> u64 {
        self.view().await["version"].as_u64().expect("a version")
    }

    /// The mails sent to `player` so far.
    fn mails_to(&self, player: &str) -> Vec<Delivered> {
        let address = format!("{player}@club.example");
        self.outgoing
            .delivered()
            .into_iter()
            .filter(|m| m.to.iter().any(|to| to == &address))
            .collect()
    }

    /// The "your move" mail of `power`'s turn in `round`, once sent.
    pub(crate) async fn your_move(&self, power: &str, round: u32) -> Delivered {
        let player = self.seats[power].clone();
        eventually(
            &format!("{player}'s \"your move\" for round {round}"),
            WAIT,
            || async {
                self.mails_to(&player).into_iter().find(|m| {
                    m.header("Subject").starts_with("Your move")
                        && m.body().contains(&format!("round {round} of"))
                })
            },
        )
        .await
    }

    /// Sends `raw` to warlog as `via` says, from `from` to `to`.
    pub(crate) async fn send(&self, via: Via, from: &str, to: &str, raw: &RawMail) {
        let bytes = raw.to_bytes();
        match via {
            Via::Lmtp => {
                let replies = lmtp_send(self.listener, from, &[to], &bytes)
                    .await
                    .expect("LMTP");
                assert!(
                    replies.iter().all(|(_, code, _)| *code == 250),
                    "{replies:?}"
                );
            }
            Via::Smtp => smtp_send(self.listener, from, &[to], &bytes)
                .await
                .expect("SMTP"),
            Via::Imap => self.mailbox.deliver(MAILBOX.0, &bytes).await,
        }
    }

    /// `power`'s player replies to `to_mail` (its Reply-To) with `text` above the quoted
    /// mail, as a mail program writes a reply.
    pub(crate) async fn reply(
        &self,
        via: Via,
        power: &str,
        to_mail: &Delivered,
        subject: &str,
        text: &str,
    ) -> RawMail {
        let player = &self.seats[power];
        let raw = reply_to(player, to_mail, subject, text);
        self.send(
            via,
            &format!("{player}@club.example"),
            &to_mail.header("Reply-To"),
            &raw,
        )
        .await;
        raw
    }

    /// Waits until the game is past `version`.
    pub(crate) async fn moved_past(&self, version: u64) -> u64 {
        eventually("the turn on the record", WAIT, || async {
            let now = self.version().await;
            (now > version).then_some(now)
        })
        .await
    }

    /// The answer to `player`'s mail whose subject ends with `subject`, once sent.
    pub(crate) async fn answer(&self, player: &str, about: &RawMail) -> Delivered {
        let id = about.message_id();
        eventually(&format!("the answer to {player}'s mail"), WAIT, || async {
            self.mails_to(player).into_iter().find(|m| {
                m.header("In-Reply-To")
                    .contains(id.trim_matches(['<', '>']))
            })
        })
        .await
    }
}

/// A reply from `player` to `mail`: its own Message-ID, the original quoted under an
/// attribution line, and a signature, as mail programs write them.
pub(crate) fn reply_to(player: &str, mail: &Delivered, subject: &str, text: &str) -> RawMail {
    let quoted: String = mail.body().lines().map(|l| format!("> {l}\n")).collect();
    let body = format!(
        "{text}\nOn Sat, 5 Dec 2026 at 10:00, League <warlog@league.example> wrote:\n{quoted}\n-- \n{player}, sent from my phone\n"
    );
    RawMail::reply(
        &format!("{player}@club.example"),
        &mail.header("Reply-To"),
        subject,
        &format!("{}@club.example", uuid::Uuid::new_v4().simple()),
        Some(&mail.header("Message-ID")),
        &body,
    )
}

/// Each power's turn of round 2: Russia fights in Ukraine with its order of loss.
fn round_two(power: &str) -> &'static str {
    match power {
        "russia" => "# Russia, round 2\nbuy 3 infantry\nmove 5 INF: Caucasus > Ukraine\nmove 3 inf, 1 arm from Karelia to Ukraine\nbattle Ukraine; combat SAAC; loss INF, ARM\nplace 3 INF in Russia\nend turn",
        "germany" => "buy 2 INF\nplace 2 INF in Germany\nend turn",
        "united-kingdom" => "Purchase:\nbuy 1 INF\nPlacement:\nplace 1 INF in United Kingdom\ndone",
        "japan" => "buy 1 INF\nplace 1 INF in Japan\nend turn",
        _ => "buy 1 INF\nplace 1 INF in East US\nend turn",
    }
}

fn report_mails(league: &League, player: &str) -> Vec<Delivered> {
    league
        .mails_to(player)
        .into_iter()
        .filter(|m| m.header("Subject").starts_with("Round"))
        .collect()
}

#[actix_web::test]
async fn five_players_play_two_rounds_of_cut_throat_by_mail_and_every_player_gets_every_report() {
    let Some(league) = a_league_playing_by_mail().await else {
        return;
    };
    let channels = [Via::Lmtp, Via::Imap, Via::Smtp, Via::Lmtp, Via::Imap];
    // Round 1: no combat in Cut-Throat; each power ends its turn, by reply. Before the US's
    // turn, Germany's player gives standing orders for Ukraine by replying to a report.
    for (power, via) in ORDER.iter().zip(channels) {
        if *power == "united-states" {
            let germany = league.seats["germany"].clone();
            let report = eventually("the report of Japan's turn", WAIT, || async {
                report_mails(&league, &germany)
                    .into_iter()
                    .rfind(|r| r.header("Subject").starts_with("Round 1, Japan"))
            })
            .await;
            let before = league.version().await;
            let text = "standing orders for Ukraine; loss ARM, INF";
            league
                .reply(Via::Imap, "germany", &report, "Re: my orders", text)
                .await;
            league.moved_past(before).await;
        }
        let mail = league.your_move(power, 1).await;
        assert_eq!(mail.header("Auto-Submitted"), "auto-generated");
        assert!(
            mail.header("Reply-To").starts_with("turn+"),
            "{}",
            mail.header("Reply-To")
        );
        assert!(
            mail.body().contains("reply to this mail with your turn"),
            "{}",
            mail.body()
        );
        let before = league.version().await;
        league
            .reply(via, power, &mail, "Re: Your move", "end turn")
            .await;
        league.moved_past(before).await;
    }
    // Round 2: Russia previews its turn by mail first; nothing counts.
    let mail = league.your_move("russia", 2).await;
    let before = league.version().await;
    let asked = league
        .reply(Via::Lmtp, "russia", &mail, "preview", round_two("russia"))
        .await;
    let russia = league.seats["russia"].clone();
    let preview = league.answer(&russia, &asked).await;
    let words = preview.body();
    assert!(words.contains("Battle in Ukraine"), "{words}");
    assert!(words.contains("Nothing was recorded"), "{words}");
    assert_eq!(preview.header("Auto-Submitted"), "auto-replied");
    assert_eq!(league.version().await, before, "a preview appends nothing");
    for (power, via) in ORDER.iter().zip(channels) {
        let mail = league.your_move(power, 2).await;
        let before = league.version().await;
        league
            .reply(via, power, &mail, "Re: Your move", round_two(power))
            .await;
        league.moved_past(before).await;
    }
    let view = league.view().await;
    assert_eq!(
        (view["round"].as_u64(), view["turn"].as_str()),
        (Some(3), Some("russia"))
    );

    // Every player received every turn's report: ten turns, and the battle's every die.
    let battle = {
        let mut connection = warlog::client::Connection::open(league.addr)
            .await
            .expect("connects");
        let path = format!("/v1/games/{}/battles/1", league.game);
        let (status, body) = connection
            .send_as("GET", &path, None, "text/plain", "")
            .await
            .expect("a battle");
        assert_eq!(status, 200);
        let listing = http(league.addr, "GET", &path, None, Value::Null, 200).await;
        (
            body,
            listing["listing"].as_str().expect("a listing").to_owned(),
        )
    };
    assert!(
        battle.1.contains("lose ARM, INF first"),
        "Germany's standing orders, sent by mail, were followed: {}",
        battle.1
    );
    for player in PLAYERS {
        let reports = eventually(&format!("{player}'s eleven reports"), WAIT, || async {
            let reports = report_mails(&league, player);
            (reports.len() >= 11).then_some(reports)
        })
        .await;
        assert_eq!(
            reports.len(),
            11,
            "{player}: one report a command of orders"
        );
        let fought = reports
            .iter()
            .find(|r| r.header("Subject").starts_with("Round 2, Russia"))
            .unwrap_or_else(|| panic!("{player} got Russia's report"));
        for line in battle.1.lines().filter(|l| !l.trim().is_empty()) {
            assert!(
                fought.body().contains(line.trim()),
                "{player}'s report lacks {line:?}:\n{}",
                fought.body()
            );
        }
        assert!(reports
            .iter()
            .all(|r| r.header("Reply-To").starts_with("turn+")));
    }

    // The record says each turn came by mail, never from whom; with the game ended (its seed
    // revealed), the export passes the offline audit, every die checked.
    http(
        league.addr,
        "POST",
        &format!("/v1/games/{}/end", league.game),
        Some(&league.gm),
        json!({}),
        200,
    )
    .await;
    // The game's page says which orders came by mail.
    let mut connection = warlog::client::Connection::open(league.addr)
        .await
        .expect("connects");
    let page = format!("/games/{}", league.game);
    let (status, page) = connection
        .send("GET", &page, None, "")
        .await
        .expect("the page");
    assert_eq!(status, 200);
    assert!(page.contains(", by mail"), "the channel on the game's page");
    // The operator counts what the intake decided.
    let (_, metrics) = connection
        .send("GET", "/metrics", None, "")
        .await
        .expect("metrics");
    let recorded_by_imap = metrics
        .lines()
        .find(|l| l.starts_with("warlog_mail_decided_total{channel=\"imap\",outcome=\"recorded\"}"))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse::<f64>().ok());
    assert!(recorded_by_imap >= Some(5.0), "{recorded_by_imap:?}");
    // The game over, a reply to its last report is refused in words.
    let russia = league.seats["russia"].clone();
    let last = report_mails(&league, &russia)
        .pop()
        .expect("Russia's player's last report");
    let late = league
        .reply(Via::Lmtp, "russia", &last, "Re: one more", "buy 1 INF")
        .await;
    let answer = league.answer(&russia, &late).await.body();
    assert!(answer.contains("the game is over"), "{answer}");
    let recorded = league.export().await;
    let text: String = recorded
        .iter()
        .map(|e| serde_json::to_string(e).expect("json"))
        .collect();
    assert_eq!(
        text.matches("\"by_mail\"").count(),
        11,
        "each command came by mail"
    );
    assert!(
        text.contains("\"dmarc\":\"not-checked\""),
        "no DMARC check without a trusted server"
    );
    assert!(!text.contains("club.example"), "no address in the export");
    let report = offline_audit(&write_export(&recorded), None);
    assert!(
        report.checks.iter().all(|c| c.verdict == Verdict::Pass),
        "{report:?}"
    );
    // The mailbox's messages are marked once decided.
    eventually("the mailbox's replies marked decided", WAIT, || async {
        let inbox = league.mailbox.inbox(MAILBOX.0).await;
        (inbox.len() == 5
            && inbox
                .iter()
                .all(|(_, flags)| flags.iter().any(|f| f == "$WarlogDecided")))
        .then_some(())
    })
    .await;
}

/// The inbox's outcome for the message `raw`, once decided.
pub(crate) async fn outcome_of(league: &League, raw: &RawMail) -> String {
    let key = warlog_api::mail_in::incoming::key_of_id(&raw.message_id());
    eventually("the mail decided", WAIT, || async {
        let client = league.db.pool.get().await.ok()?;
        let row = client
            .query_opt(
                "SELECT outcome FROM mail_inbox WHERE message_key = $1 AND decided_at IS NOT NULL",
                &[&key.as_slice()],
            )
            .await
            .ok()??;
        row.get::<_, Option<String>>(0)
    })
    .await
}

#[actix_web::test]
async fn spoofed_forged_replayed_and_stale_mails_are_refused_in_words_and_append_nothing() {
    let Some(league) = a_league_playing_by_mail().await else {
        return;
    };
    let mail = league.your_move("russia", 1).await;
    let russia = league.seats["russia"].clone();
    let other = league.seats["germany"].clone();
    let reply_address = mail.header("Reply-To");
    let start = league.version().await;

    // Another player's address with Russia's reply address.
    let spoofed = reply_to(&other, &mail, "Re: Your move", "end turn");
    league
        .send(
            Via::Lmtp,
            &format!("{other}@club.example"),
            &reply_address,
            &spoofed,
        )
        .await;
    let answer = league.answer(&other, &spoofed).await.body();
    assert!(
        answer.contains("did not come from the address on file for Russia's player"),
        "{answer}"
    );
    assert!(
        !answer.contains("@club.example"),
        "no address in an answer: {answer}"
    );

    // A forged token: one digit of the reply address changed.
    let (local, domain) = reply_address.split_once('@').expect("an address");
    let last = local.chars().last().expect("a digit");
    let changed = if last == '0' { '1' } else { '0' };
    let forged_address = format!("{}{changed}@{domain}", &local[..local.len() - 1]);
    let forged = RawMail::reply(
        &format!("{russia}@club.example"),
        &forged_address,
        "Re: Your move",
        &format!("{}@club.example", uuid::Uuid::new_v4().simple()),
        None,
        "end turn\n",
    );
    league
        .send(
            Via::Smtp,
            &format!("{russia}@club.example"),
            &forged_address,
            &forged,
        )
        .await;
    let answer = league.answer(&russia, &forged).await.body();
    assert!(answer.contains("forged or not yours"), "{answer}");
    // One mail to two reply addresses is two turns the service cannot tell apart.
    let doubled = reply_to(&russia, &mail, "Re: Your move", "end turn");
    let replies = lmtp_send(
        league.listener,
        &format!("{russia}@club.example"),
        &[&reply_address, &forged_address],
        &doubled.to_bytes(),
    )
    .await
    .expect("LMTP");
    assert_eq!(replies.len(), 2, "one reply a recipient: {replies:?}");
    let answer = league.answer(&russia, &doubled).await.body();
    assert!(answer.contains("more than one reply address"), "{answer}");
    // The seat's own address and reply address, but the sender's domain disowns the mail
    // (as the league's receiving server found and wrote).
    let disowned = reply_to(&russia, &mail, "Re: Your move", "end turn").with_header(
        "Authentication-Results",
        "mx.league.example; spf=fail smtp.mailfrom=club.example; dmarc=fail header.from=club.example",
    );
    league
        .send(
            Via::Lmtp,
            &format!("{russia}@club.example"),
            &reply_address,
            &disowned,
        )
        .await;
    let answer = league.answer(&russia, &disowned).await.body();
    assert!(answer.contains("(DMARC)"), "{answer}");
    assert_eq!(
        league.version().await,
        start,
        "nothing appended for a refusal"
    );

    // The real turn, then the same message delivered again through the mailbox: one turn.
    let played = league
        .reply(Via::Lmtp, "russia", &mail, "Re: Your move", "end turn")
        .await;
    let after = league.moved_past(start).await;
    league.mailbox.deliver(MAILBOX.0, &played.to_bytes()).await;
    let id = played.message_id();
    eventually("the repeat marked as decided", WAIT, || async {
        let inbox = league.mailbox.inbox(MAILBOX.0).await;
        inbox
            .iter()
            .any(|(message, flags)| *message == id && flags.iter().any(|f| f == "$WarlogDecided"))
            .then_some(())
    })
    .await;
    assert_eq!(
        league.version().await,
        after,
        "a message delivered twice is one turn"
    );

    // Russia's reply address of round 1, used again after its turn: refused in words.
    let stale = reply_to(&russia, &mail, "Re: Your move", "buy 1 INF\nend turn");
    league
        .send(
            Via::Lmtp,
            &format!("{russia}@club.example"),
            &reply_address,
            &stale,
        )
        .await;
    let answer = league.answer(&russia, &stale).await.body();
    assert!(
        answer.contains("this was your turn of round 1 (Russia); it is now Germany's move"),
        "{answer}"
    );
    // A line that cannot be read is named with its column, and nothing is appended.
    let germany = league.your_move("germany", 1).await;
    let typo = league
        .reply(
            Via::Smtp,
            "germany",
            &germany,
            "Re: Your move",
            "buy 2 INF\nmove 1 INF: Germny > East Europe",
        )
        .await;
    let answer = league.answer(&other, &typo).await.body();
    assert!(answer.contains("Line 2, column"), "{answer}");
    assert!(answer.contains("Nothing was recorded"), "{answer}");
    // An automatic reply and a bounce are never answered nor decided as turns.
    let vacation =
        reply_to(&other, &germany, "Out of office", "I am away until Monday.").auto_submitted();
    league
        .send(
            Via::Lmtp,
            &format!("{other}@club.example"),
            &germany.header("Reply-To"),
            &vacation,
        )
        .await;
    assert_eq!(outcome_of(&league, &vacation).await, "ignored automatic");
    let bounce = reply_to(&other, &germany, "Re: Your move", "end turn").bounce();
    league
        .send(Via::Lmtp, "", &germany.header("Reply-To"), &bounce)
        .await;
    assert_eq!(outcome_of(&league, &bounce).await, "ignored automatic");
    assert_eq!(
        league.version().await,
        after,
        "nothing appended for any of them"
    );
    assert!(
        league.mails_to(&other).iter().all(|m| !m
            .header("In-Reply-To")
            .contains(vacation.message_id().trim_matches(['<', '>']))),
        "an automatic mail gets no answer"
    );
}

/// How a mail program dresses a reply.
type Dress = fn(RawMail) -> RawMail;

#[actix_web::test]
async fn turns_arrive_in_every_charset_and_encoding_mail_clients_use() {
    let Some(league) = a_league_playing_by_mail().await else {
        return;
    };
    // Each power's round 1 turn in another dress: HTML only, Latin-1 quoted-printable,
    // base64, format=flowed, and a reply with attachments only (refused, then sent right).
    let dressed: [(&str, Dress); 4] = [
        ("russia", |m| {
            m.html_only(
                "<html><body><p>end turn</p><blockquote>Your move</blockquote></body></html>",
            )
        }),
        ("germany", |m| {
            m.latin1_quoted_printable("# à bientôt, café\nend turn\n")
        }),
        ("united-kingdom", |m| {
            m.base64_utf8("# Großbritannien\nend turn\n")
        }),
        ("japan", |m| {
            m.flowed("# a comment long enough to be wrapped by the mail program at forty columns\nend turn\n")
        }),
    ];
    for (power, dress) in dressed {
        let mail = league.your_move(power, 1).await;
        let player = league.seats[power].clone();
        let before = league.version().await;
        let raw = dress(reply_to(&player, &mail, "Re: Your move", "end turn"));
        league
            .send(
                Via::Lmtp,
                &format!("{player}@club.example"),
                &mail.header("Reply-To"),
                &raw,
            )
            .await;
        assert_eq!(outcome_of(&league, &raw).await, "recorded", "{power}");
        league.moved_past(before).await;
    }
    let mail = league.your_move("united-states", 1).await;
    let player = league.seats["united-states"].clone();
    let attachment = reply_to(&player, &mail, "Re: Your move", "end turn").with_attachment_only();
    league
        .send(
            Via::Imap,
            &format!("{player}@club.example"),
            &mail.header("Reply-To"),
            &attachment,
        )
        .await;
    let answer = league.answer(&player, &attachment).await.body();
    assert!(answer.contains("attachments and no text"), "{answer}");
    let big = reply_to(&player, &mail, "Re: Your move", "end turn").oversized(300 * 1024);
    let refused = smtp_send(
        league.listener,
        &format!("{player}@club.example"),
        &[&mail.header("Reply-To")],
        &big.to_bytes(),
    )
    .await
    .expect_err("over the limit");
    assert!(
        refused.starts_with("552") && refused.contains("limit"),
        "{refused}"
    );
    // Over the limit in the mailbox: only its header is kept, and it is answered in words.
    let large = reply_to(&player, &mail, "Re: Your move", "end turn").oversized(300 * 1024);
    league
        .send(
            Via::Imap,
            &format!("{player}@club.example"),
            &mail.header("Reply-To"),
            &large,
        )
        .await;
    let answer = league.answer(&player, &large).await.body();
    assert!(answer.contains("larger than 256 kB"), "{answer}");
    let view = league.view().await;
    assert_eq!(
        view["turn"].as_str(),
        Some("united-states"),
        "nothing appended"
    );
}

/// The `warlog` binary beside this test's (built by `cargo test --workspace`).
fn warlog_binary() -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("the test binary");
    let bin = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/debug")
        .join("warlog");
    assert!(
        bin.exists(),
        "{} is missing: `cargo test --workspace` builds it (or `cargo build -p warlog`)",
        bin.display()
    );
    bin
}

/// `db`'s address as `DATABASE_URL`, for a `warlog` process of the test's own.
fn database_url(db: &TestDb) -> String {
    use tokio_postgres::config::Host;
    let user = db.config.get_user().unwrap_or("postgres");
    let port = db.config.get_ports().first().copied().unwrap_or(5432);
    let password = db
        .config
        .get_password()
        .map(|p| format!(":{}", String::from_utf8_lossy(p)))
        .unwrap_or_default();
    match db.config.get_hosts().first() {
        Some(Host::Unix(path)) => format!(
            "postgres://{user}{password}@/{}?host={}&port={port}",
            db.name,
            path.display()
        ),
        Some(Host::Tcp(host)) => format!("postgres://{user}{password}@{host}:{port}/{}", db.name),
        None => format!("postgres://{user}{password}@127.0.0.1:{port}/{}", db.name),
    }
}

/// How many commands the game's log holds.
async fn orders_given(client: &tokio_postgres::Client, game: &str) -> i64 {
    client
        .query_one(
            "SELECT count(*) FROM events WHERE stream_id = $1 AND event_type = 'OrdersGiven'",
            &[&format!("game-{game}")],
        )
        .await
        .expect("the log")
        .get(0)
}

/// A `warlog serve` process, killed (SIGKILL) when dropped.
struct Process(std::process::Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `warlog serve` on `db` with mail in through a listener on `listener`, and waits
/// for it to be ready.
async fn start_warlog(db: &TestDb, port: u16, smtp: u16, listener: u16) -> Process {
    let child = std::process::Command::new(warlog_binary())
        .args([
            "serve",
            "--bind",
            &format!("127.0.0.1:{port}"),
            "--smtp-url",
            &format!("smtp://127.0.0.1:{smtp}"),
            "--mail-from",
            "warlog@league.example",
            "--mail-listen",
            &format!("127.0.0.1:{listener}"),
        ])
        .env("DATABASE_URL", database_url(db))
        .env("WARLOG_WORKERS", "1")
        .env("WARLOG_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("warlog starts");
    let process = Process(child);
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().expect("an address");
    eventually("warlog to be ready", WAIT, || async {
        let mut connection = warlog::client::Connection::open(addr).await.ok()?;
        let (status, _) = connection.send("GET", "/readyz", None, "").await.ok()?;
        (status == 200).then_some(())
    })
    .await;
    process
}

#[actix_web::test]
async fn a_server_killed_between_keeping_a_mail_and_deciding_it_records_the_turn_once_after_restart(
) {
    let db = TestDb::new().await;
    let (smtp_port, outgoing) = mail_server().await;
    let (port, listener) = (free_port(), free_port());
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().expect("an address");
    let first = start_warlog(&db, port, smtp_port, listener).await;
    let (game, _, view) = players_and_a_game(&db, addr).await;
    let start = view["version"].as_u64().expect("a version");
    let player = view["seats"]
        .as_array()
        .and_then(|seats| seats.iter().find(|s| s["power"] == "russia"))
        .and_then(|s| s["player"].as_str())
        .expect("Russia's player")
        .to_owned();
    let address = format!("{player}@club.example");
    let mail = eventually("Russia's \"your move\"", WAIT, || async {
        outgoing
            .delivered()
            .into_iter()
            .find(|m| m.to.contains(&address) && m.header("Subject").starts_with("Your move"))
    })
    .await;

    // The log is held (as by a long transaction) so the decision cannot reach it: the mail
    // is kept and claimed, and the server is killed while its decision waits.
    let mut holder = db.admin().await;
    let hold = holder.transaction().await.expect("a transaction");
    hold.batch_execute("LOCK TABLE events IN SHARE ROW EXCLUSIVE MODE")
        .await
        .expect("the log held");
    let raw = reply_to(&player, &mail, "Re: Your move", "end turn");
    let replies = lmtp_send(
        listener,
        &address,
        &[&mail.header("Reply-To")],
        &raw.to_bytes(),
    )
    .await
    .expect("LMTP");
    assert!(
        replies.iter().all(|(_, code, _)| *code == 250),
        "{replies:?}"
    );
    let client = db.admin().await;
    eventually("the kept mail claimed by the intake", WAIT, || async {
        let row = client
            .query_one("SELECT count(*) FROM mail_inbox WHERE attempts > 0", &[])
            .await
            .ok()?;
        (row.get::<_, i64>(0) == 1).then_some(())
    })
    .await;
    drop(first);
    hold.rollback().await.expect("the log released");
    let undecided: i64 = client
        .query_one(
            "SELECT count(*) FROM mail_inbox WHERE decided_at IS NULL",
            &[],
        )
        .await
        .expect("the inbox")
        .get(0);
    assert_eq!(undecided, 1, "the mail is kept, not decided");
    assert_eq!(
        orders_given(&client, &game).await,
        0,
        "nothing appended before the kill"
    );

    // Restarted, the intake takes the mail up once its claim runs out (made to run out now
    // rather than waited for), and the turn is recorded once.
    client
        .execute("UPDATE mail_inbox SET next_attempt_at = now()", &[])
        .await
        .expect("the claim ended");
    let second = start_warlog(&db, port, smtp_port, listener).await;
    eventually("the turn on the record", WAIT, || async {
        let view = http(
            addr,
            "GET",
            &format!("/v1/games/{game}"),
            None,
            Value::Null,
            200,
        )
        .await;
        (view["version"].as_u64()? > start).then_some(())
    })
    .await;
    assert_eq!(orders_given(&client, &game).await, 1);

    // Killed again after the decision but before the message was marked: decided again, it
    // is the first decision's answer, and nothing more is appended.
    drop(second);
    client
        .execute(
            "UPDATE mail_inbox SET decided_at = NULL, outcome = NULL, raw = $1, \
                    next_attempt_at = now()",
            &[&raw.to_bytes()],
        )
        .await
        .expect("the mark undone");
    let _third = start_warlog(&db, port, smtp_port, listener).await;
    let outcome = eventually("the mail decided again", WAIT, || async {
        let row = client
            .query_one("SELECT outcome FROM mail_inbox", &[])
            .await
            .ok()?;
        row.get::<_, Option<String>>(0)
    })
    .await;
    assert_eq!(outcome, "recorded", "the record is the decision");
    assert_eq!(
        orders_given(&client, &game).await,
        1,
        "recorded exactly once"
    );
    let answers: i64 = client
        .query_one(
            "SELECT count(*) FROM mail_outbox WHERE auto_submitted = 'auto-replied'",
            &[],
        )
        .await
        .expect("the outbox")
        .get(0);
    assert_eq!(answers, 0, "no answer says the recorded turn was refused");
}

/// One line a reply, read from the listener.
async fn replies(
    read: &mut tokio::io::BufReader<tokio::net::tcp::OwnedReadHalf>,
    count: usize,
) -> Vec<String> {
    use tokio::io::AsyncBufReadExt;
    let mut lines = Vec::new();
    while lines.len() < count {
        let mut line = String::new();
        read.read_line(&mut line).await.expect("a reply");
        assert!(
            !line.is_empty(),
            "the listener closed early after {lines:?}"
        );
        // A multi-line reply counts once, at its last line.
        if line.as_bytes().get(3) != Some(&b'-') {
            lines.push(line.trim_end().to_owned());
        }
    }
    lines
}

#[actix_web::test]
async fn the_listener_speaks_lmtp_as_a_mail_server_expects_pipelined_and_dot_stuffed() {
    use tokio::io::AsyncWriteExt;
    // The listener alone, with no intake behind it: what it keeps stays as it kept it.
    let db = TestDb::new().await;
    let socket = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let listener = socket.local_addr().expect("an address").port();
    let (_stop, stop) = tokio::sync::watch::channel(false);
    warlog_api::mail_in::listener::spawn_listener(
        socket,
        db.pool.clone(),
        std::sync::Arc::new(warlog_api::mail_in::Doorbell::default()),
        warlog_api::mail_in::listener::ListenerSettings::default(),
        stop,
    );
    let open = || async {
        let socket = tokio::net::TcpStream::connect(("127.0.0.1", listener))
            .await
            .expect("the listener answers");
        let (read, write) = socket.into_split();
        let mut read = tokio::io::BufReader::new(read);
        assert!(replies(&mut read, 1).await[0].starts_with("220 "));
        (read, write)
    };

    // QUIT before any greeting is answered and closes.
    let (mut read, mut write) = open().await;
    write.write_all(b"QUIT\r\n").await.expect("sent");
    assert!(replies(&mut read, 1).await[0].starts_with("221 "));

    // A whole transaction sent at once (pipelined): one reply a command, in order; a
    // recipient that is no reply address refused; the message kept with its stuffed dot
    // undone and its envelope's sender recorded; then an empty message, a lone dot.
    let (mut read, mut write) = open().await;
    let to = "turn+00112233445566778899aabbccddeeff000100aabbccddeeff001122@league.example";
    let pipelined = format!(
        "LHLO mx.league.example\r\nMAIL FROM:<ann@club.example>\r\nRCPT TO:<someone@league.example>\r\n\
         RCPT TO:<{to}>\r\nDATA\r\n"
    );
    write.write_all(pipelined.as_bytes()).await.expect("sent");
    let got = replies(&mut read, 5).await;
    let codes: Vec<&str> = got.iter().map(|l| &l[..3]).collect();
    assert_eq!(codes, ["250", "250", "550", "250", "354"], "{got:?}");
    write
        .write_all(
            b"Message-ID: <dots@club.example>\r\nSubject: dots\r\n\r\n..a line that began with a dot\r\nend turn\r\n.\r\n",
        )
        .await
        .expect("sent");
    assert!(
        replies(&mut read, 1).await[0].starts_with("250 "),
        "one reply for one recipient"
    );
    let client = db.admin().await;
    let raw: Vec<u8> = client
        .query_one(
            "SELECT raw FROM mail_inbox WHERE channel = 'lmtp' ORDER BY inbox_id LIMIT 1",
            &[],
        )
        .await
        .expect("the message kept")
        .get(0);
    let raw = String::from_utf8(raw).expect("text");
    assert!(
        raw.starts_with("Return-Path: <ann@club.example>\r\n"),
        "{raw}"
    );
    assert!(
        raw.contains("\r\n.a line that began with a dot\r\nend turn\r\n"),
        "{raw}"
    );
    assert!(!raw.contains(".."), "{raw}");
    write
        .write_all(format!("MAIL FROM:<>\r\nRCPT TO:<{to}>\r\nDATA\r\n.\r\n").as_bytes())
        .await
        .expect("sent");
    let got = replies(&mut read, 4).await;
    let codes: Vec<&str> = got.iter().map(|l| &l[..3]).collect();
    assert_eq!(
        codes,
        ["250", "250", "354", "250"],
        "an empty message ends at its dot: {got:?}"
    );

    // More recipients than a message may have are put off (452), not taken.
    write
        .write_all(b"MAIL FROM:<ann@club.example>\r\n")
        .await
        .expect("sent");
    replies(&mut read, 1).await;
    let mut last = String::new();
    for n in 0..21 {
        write
            .write_all(format!("RCPT TO:<turn+{n:058}@league.example>\r\n").as_bytes())
            .await
            .expect("sent");
        last = replies(&mut read, 1).await.remove(0);
    }
    assert!(last.starts_with("452 "), "{last}");
    write.write_all(b"RSET\r\nQUIT\r\n").await.expect("sent");
    let got = replies(&mut read, 2).await;
    assert!(
        got[0].starts_with("250 ") && got[1].starts_with("221 "),
        "{got:?}"
    );
}
