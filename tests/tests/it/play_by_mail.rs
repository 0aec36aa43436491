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
use crate::notices::{mail_server, Delivered, MailServer};

const PLAYERS: [&str; 5] = ["ann", "bob", "cy", "di", "ed"];
const MAILBOX: (&str, &str) = ("turns", "turns-secret");
const WAIT: Duration = Duration::from_secs(60);

/// How a reply reaches warlog.
#[derive(Debug, Clone, Copy)]
enum Via {
    /// The operator's mail server delivers it to warlog's listener over LMTP.
    Lmtp,
    /// Over SMTP to the same listener.
    Smtp,
    /// It lands in the operator's mailbox, which warlog reads over IMAP.
    Imap,
}

/// A league playing by mail: the service, its mail server, its mailbox and one game.
struct League {
    db: TestDb,
    addr: SocketAddr,
    outgoing: MailServer,
    mailbox: Dovecot,
    listener: u16,
    game: String,
    /// The game master's token.
    gm: String,
    /// Power (as the API names it) to player.
    seats: BTreeMap<String, String>,
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

/// The service with mail in both ways, five players with addresses on file and a new
/// Cut-Throat game among them; none when Dovecot is not installed (and not required).
async fn a_league_playing_by_mail() -> Option<League> {
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
            "--public-url",
            "https://league.example",
        ],
    )
    .await;
    let admin = token(&db, "root", Role::Admin).await;
    for player in PLAYERS {
        http(
            addr,
            "POST",
            "/v1/players",
            Some(&admin),
            json!({"handle": player}),
            201,
        )
        .await;
        let email = json!({"email": format!("{player}@club.example")});
        http(
            addr,
            "PUT",
            &format!("/v1/players/{player}/email"),
            Some(&admin),
            email,
            200,
        )
        .await;
    }
    let gm = token(&db, "alice", Role::Gm).await;
    let created = http(
        addr,
        "POST",
        "/v1/games",
        Some(&gm),
        json!({"ruleset": "cutthroat", "players": PLAYERS}),
        201,
    )
    .await;
    let game = created["game_id"].as_str().expect("an id").to_owned();
    let view = http(
        addr,
        "GET",
        &format!("/v1/games/{game}"),
        None,
        Value::Null,
        200,
    )
    .await;
    let seats = view["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| {
            (
                s["power"].as_str().expect("a power").to_owned(),
                s["player"].as_str().expect("a player").to_owned(),
            )
        })
        .collect();
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

    async fn version(&self) -> u64 {
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
    async fn your_move(&self, power: &str, round: u32) -> Delivered {
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
    async fn send(&self, via: Via, from: &str, to: &str, raw: &RawMail) {
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
    async fn reply(
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
    async fn moved_past(&self, version: u64) -> u64 {
        eventually("the turn on the record", WAIT, || async {
            let now = self.version().await;
            (now > version).then_some(now)
        })
        .await
    }

    /// The answer to `player`'s mail whose subject ends with `subject`, once sent.
    async fn answer(&self, player: &str, about: &RawMail) -> Delivered {
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
fn reply_to(player: &str, mail: &Delivered, subject: &str, text: &str) -> RawMail {
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

const ORDER: [&str; 5] = [
    "russia",
    "germany",
    "united-kingdom",
    "japan",
    "united-states",
];

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
    // Round 1: no combat in Cut-Throat; each power ends its turn, by reply.
    for (power, via) in ORDER.iter().zip(channels) {
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
    for player in PLAYERS {
        let reports = eventually(&format!("{player}'s ten reports"), WAIT, || async {
            let reports = report_mails(&league, player);
            (reports.len() >= 10).then_some(reports)
        })
        .await;
        assert_eq!(reports.len(), 10, "{player}: one report a turn");
        let fought = reports
            .iter()
            .find(|r| r.body().contains("Ukraine"))
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
    let recorded = league.export().await;
    let text: String = recorded
        .iter()
        .map(|e| serde_json::to_string(e).expect("json"))
        .collect();
    assert_eq!(
        text.matches("\"by_mail\"").count(),
        10,
        "each turn came by mail"
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
        (inbox.len() == 4
            && inbox
                .iter()
                .all(|(_, flags)| flags.iter().any(|f| f == "$WarlogDecided")))
        .then_some(())
    })
    .await;
}
