//! "Your move" (issue 33, part 7): when a power's turn begins its player is told, by mail
//! to the address the player (or an admin) left, through the operator's SMTP server, and by
//! the `turn.started` webhook. The mail server here is a small one in the test, speaking
//! just enough SMTP (greeting, EHLO, MAIL FROM, RCPT TO, DATA, QUIT) to keep what it is
//! sent. The address is private: the player's and the admins' only, never an event, never
//! in a public view, page or export.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::body::MessageBody;
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use clap::Parser;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use warlog_api::auth::Role;
use warlog_api::mail::{MailFrom, MailSettings, Mailer, SmtpUrl};
use warlog_api::{AppState, Telemetry};
use warlog_store::mail::mails_of;
use warlog_store::projector::Projector;
use warlog_store::webhooks::WebhookOutbox;
use warlog_store::StoreMetrics;
use warlog_tests::{eventually, TestDb};

use crate::games::{create_game_for, order, PHASES};
use crate::kit::{assert_problem, call, get, token, Reply, TestApp};
use crate::webhooks::{allowing, deliver_until, quick_settings, receiver, Received, SECRET};

const PLAYERS: [&str; 5] = ["ann", "bob", "cy", "di", "ed"];

/// One message the test's mail server accepted.
#[derive(Debug, Clone, Default)]
pub(crate) struct Delivered {
    pub from: String,
    pub to: Vec<String>,
    /// Headers and body, as sent (dot-stuffing undone).
    pub data: String,
}

impl Delivered {
    /// A header's value, continuation lines unfolded.
    pub fn header(&self, name: &str) -> String {
        let head = self.data.split("\r\n\r\n").next().unwrap_or_default();
        let unfolded = head.replace("\r\n ", " ").replace("\r\n\t", " ");
        unfolded
            .lines()
            .find_map(|line| {
                let (key, value) = line.split_once(':')?;
                key.eq_ignore_ascii_case(name)
                    .then(|| value.trim().to_owned())
            })
            .unwrap_or_default()
    }

    /// The body as text (a quoted-printable one decoded).
    pub fn body(&self) -> String {
        let body = self.data.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        if !self
            .header("Content-Transfer-Encoding")
            .eq_ignore_ascii_case("quoted-printable")
        {
            return body.to_owned();
        }
        let joined = body.replace("=\r\n", "");
        let mut out = Vec::new();
        let bytes = joined.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'=' && i + 2 < bytes.len() {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                if let Ok(byte) = u8::from_str_radix(hex, 16) {
                    out.push(byte);
                    i += 3;
                    continue;
                }
            }
            out.push(bytes[i]);
            i += 1;
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

/// What the mail server keeps, and how it answers each message's end of data (`250 OK`
/// once the queue is empty).
#[derive(Debug, Clone, Default)]
pub(crate) struct MailServer {
    delivered: Arc<Mutex<Vec<Delivered>>>,
    answers: Arc<Mutex<VecDeque<&'static str>>>,
}

impl MailServer {
    pub fn delivered(&self) -> Vec<Delivered> {
        self.delivered.lock().expect("lock").clone()
    }

    /// The next messages are answered so (then `250 OK` again).
    fn answer_next(&self, answers: &[&'static str]) {
        self.answers.lock().expect("lock").extend(answers);
    }
}

/// A mail server on 127.0.0.1 (any free port): its port and what it keeps.
pub(crate) async fn mail_server() -> (u16, MailServer) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let port = listener.local_addr().expect("an address").port();
    let server = MailServer::default();
    let kept = server.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let kept = kept.clone();
            tokio::spawn(async move {
                let _ = converse(socket, kept).await;
            });
        }
    });
    (port, server)
}

/// One SMTP conversation: just enough of RFC 5321 for a client that sends and quits.
async fn converse(socket: tokio::net::TcpStream, server: MailServer) -> std::io::Result<()> {
    let (read, mut write) = socket.into_split();
    let mut lines = BufReader::new(read).lines();
    write
        .write_all(b"220 localhost test mail server\r\n")
        .await?;
    let mut message = Delivered::default();
    while let Some(line) = lines.next_line().await? {
        let command = line.to_ascii_uppercase();
        let answer: String = if command.starts_with("EHLO") || command.starts_with("HELO") {
            "250 localhost".into()
        } else if let Some(from) = command.strip_prefix("MAIL FROM:") {
            message = Delivered {
                from: line[line.len() - from.len()..].trim().to_owned(),
                ..Delivered::default()
            };
            "250 OK".into()
        } else if let Some(to) = command.strip_prefix("RCPT TO:") {
            let to = line[line.len() - to.len()..].trim();
            message
                .to
                .push(to.trim_start_matches('<').trim_end_matches('>').to_owned());
            "250 OK".into()
        } else if command == "DATA" {
            write
                .write_all(b"354 end data with <CR><LF>.<CR><LF>\r\n")
                .await?;
            let mut data = Vec::new();
            while let Some(line) = lines.next_line().await? {
                if line == "." {
                    break;
                }
                data.push(line.strip_prefix('.').unwrap_or(&line).to_owned());
            }
            message.data = data.join("\r\n");
            let answer = server
                .answers
                .lock()
                .expect("lock")
                .pop_front()
                .unwrap_or("250 OK");
            if answer.starts_with('2') {
                server.delivered.lock().expect("lock").push(message.clone());
            }
            answer.into()
        } else if command == "QUIT" {
            write.write_all(b"221 bye\r\n").await?;
            return Ok(());
        } else if command == "RSET" || command == "NOOP" {
            "250 OK".into()
        } else {
            "502 not implemented".into()
        };
        write.write_all(format!("{answer}\r\n").as_bytes()).await?;
    }
    Ok(())
}

/// The app on `db`, as reached at `public_url`, with webhooks to loopback allowed.
macro_rules! app_at {
    ($db:expr, $telemetry:expr, $public_url:expr) => {{
        let mut state = AppState::without_notifier($db.pool.clone(), $telemetry);
        state.public_url = $public_url
            .map(|url: &str| warlog_api::public_url::PublicUrl::try_from(url).expect("a URL"));
        state.webhooks = Arc::new(allowing(&["127.0.0.1/32"]));
        actix_web::test::init_service(warlog_api::app(state, $telemetry)).await
    }};
}

fn with_token(req: TestRequest, token: &str) -> TestRequest {
    req.insert_header(("Authorization", format!("Bearer {token}")))
}

fn email_uri(handle: &str) -> String {
    format!("/v1/players/{handle}/email")
}

async fn set_email<B: MessageBody>(
    app: &impl TestApp<B>,
    token: &str,
    handle: &str,
    body: &Value,
) -> Reply {
    call(
        app,
        with_token(TestRequest::put().uri(&email_uri(handle)), token).set_json(body),
    )
    .await
}

async fn read_email<B: MessageBody>(app: &impl TestApp<B>, token: &str, handle: &str) -> Reply {
    call(app, with_token(get(&email_uri(handle)), token)).await
}

async fn delete_email<B: MessageBody>(app: &impl TestApp<B>, token: &str, handle: &str) -> Reply {
    call(
        app,
        with_token(TestRequest::delete().uri(&email_uri(handle)), token),
    )
    .await
}

/// A player token for each of the players, by handle.
async fn player_tokens(db: &TestDb) -> BTreeMap<String, String> {
    let mut tokens = BTreeMap::new();
    for player in PLAYERS {
        tokens.insert(player.to_owned(), token(db, player, Role::Player).await);
    }
    tokens
}

/// Who sits for each power, by a game's view.
pub(crate) fn seats_of(view: &Value) -> BTreeMap<String, String> {
    view["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| {
            (
                s["power"].as_str().expect("a power").to_owned(),
                s["player"].as_str().expect("a player").to_owned(),
            )
        })
        .collect()
}

/// The game's view: whose turn it is, and who sits for each power.
async fn seats_and_turn<B: MessageBody>(
    app: &impl TestApp<B>,
    game: &str,
) -> (BTreeMap<String, String>, String, Value) {
    let view = call(app, get(&format!("/v1/games/{game}"))).await.json();
    let seats = seats_of(&view);
    let turn = view["turn"].as_str().expect("a turn").to_owned();
    (seats, turn, view)
}

/// Runs the outbox projection until it has applied every event in the log.
async fn project(db: &TestDb, outbox: WebhookOutbox) {
    let projector = Projector::new(db.pool.clone(), outbox, StoreMetrics::unregistered());
    eventually("the outbox projected", Duration::from_secs(30), || async {
        projector.catch_up().await.expect("projected");
        crate::league::caught_up(db, &projector).await.then_some(())
    })
    .await;
}

/// The player of the power whose turn it is ends every phase of it.
async fn plays_a_turn<B: MessageBody>(
    app: &impl TestApp<B>,
    tokens: &BTreeMap<String, String>,
    game: &str,
) {
    let (seats, turn, _) = seats_and_turn(app, game).await;
    let ends = vec![json!({"type": "end_phase"}); PHASES.len()];
    order(app, &tokens[&seats[&turn]], game, &turn, Value::Array(ends)).await;
}

#[actix_web::test]
async fn a_player_is_mailed_when_their_powers_turn_begins_with_a_link_to_the_turn_page() {
    let db = TestDb::new().await;
    let (port, server) = mail_server().await;
    // warlog configured as an operator configures it.
    let smtp = format!("smtp://127.0.0.1:{port}");
    let cli = warlog::cli::Cli::parse_from([
        "warlog",
        "--smtp-url",
        &smtp,
        "--mail-from",
        "Club League <warlog@club.example>",
        "--public-url",
        "https://league.example/",
    ]);
    let warlog::Notices { outbox, mailer } = warlog::notices(&cli.serve).expect("configured");
    let mailer = mailer.expect("mail is configured");
    assert!(outbox.mail);
    let telemetry = Telemetry::new().expect("metrics");
    let app = app_at!(&db, &telemetry, Some("https://league.example"));
    let gm = token(&db, "gus", Role::Gm).await;
    let admin = token(&db, "root", Role::Admin).await;
    let tokens = player_tokens(&db).await;

    // Four players leave their addresses; an admin leaves ed's.
    for player in &PLAYERS[..4] {
        let set = set_email(
            &app,
            &tokens[*player],
            player,
            &json!({"email": format!("{player}@club.example")}),
        )
        .await;
        assert_eq!(set.status, StatusCode::OK, "{:?}", set.json());
        assert_eq!(set.json()["set_by"], *player);
    }
    let set = set_email(&app, &admin, "ed", &json!({"email": " ed@club.example "})).await;
    assert_eq!(set.status, StatusCode::OK, "{:?}", set.json());
    assert_eq!(set.json()["email"], "ed@club.example", "trimmed");
    assert_eq!(set.json()["set_by"], "root");

    // The game is created (its first turn begins) and its first power plays its turn.
    let game = create_game_for(&app, &gm, &PLAYERS).await;
    let (seats, first, view) = seats_and_turn(&app, &game).await;
    let title = view["title"].as_str().expect("a title").to_owned();
    plays_a_turn(&app, &tokens, &game).await;
    let (_, second, _) = seats_and_turn(&app, &game).await;
    assert_ne!(first, second);

    let (stop, stopped) = tokio::sync::watch::channel(false);
    let sender = warlog_api::mail::spawn_mailer(db.pool.clone(), mailer, stopped);
    let projector = Projector::new(db.pool.clone(), outbox, StoreMetrics::unregistered());
    eventually("both turns' mails", Duration::from_secs(60), || async {
        projector.catch_up().await.expect("projected");
        (server.delivered().len() >= 2).then_some(())
    })
    .await;
    let _ = stop.send(true);
    sender.await.expect("the mailer stops");

    let delivered = server.delivered();
    assert_eq!(delivered.len(), 2, "one mail a turn: {delivered:?}");
    let power_name = |power: &str| {
        warlog_rules::board::Power::CLASSIC
            .into_iter()
            .find(|p| serde_json::to_value(p).expect("a power") == power)
            .expect("a classic power")
            .name()
    };
    for (mail, power) in delivered.iter().zip([&first, &second]) {
        let player = &seats[power];
        let address = format!("{player}@club.example");
        assert_eq!(
            mail.to,
            std::slice::from_ref(&address),
            "the envelope's recipient"
        );
        assert_eq!(mail.from, "<warlog@club.example>");
        assert_eq!(mail.header("To"), format!("{player} <{address}>"));
        assert_eq!(mail.header("From"), "\"Club League\" <warlog@club.example>");
        assert_eq!(
            mail.header("Subject"),
            format!("Your move: {} in {title}", power_name(power))
        );
        assert!(mail.header("Content-Type").starts_with("text/plain"));
        assert!(mail.header("Message-ID").ends_with("@warlog>"));
        let body = mail.body();
        assert!(body.starts_with(&format!("Hello {player},")), "{body}");
        assert!(
            body.contains(&format!("\r\nhttps://league.example/games/{game}/turn\r\n")),
            "the turn page, absolute: {body}"
        );
    }
    // The outbox says so too, and a second pass sends nothing again.
    let client = db.pool.get().await.expect("a connection");
    let first_player = &seats[&first];
    let kept = mails_of(&client, first_player).await.expect("read");
    assert_eq!(kept.len(), 1);
    assert_eq!((kept[0].status.as_str(), kept[0].attempts), ("sent", 1));
}

#[actix_web::test]
async fn a_mail_put_off_is_sent_again_and_one_refused_for_good_is_given_up() {
    let db = TestDb::new().await;
    let (port, server) = mail_server().await;
    let mut settings = MailSettings::new(
        SmtpUrl::try_from(format!("smtp://127.0.0.1:{port}").as_str()).expect("a URL"),
        MailFrom::try_from("warlog@club.example").expect("an address"),
    );
    settings.retry_base = Duration::from_millis(20);
    settings.retry_max = Duration::from_millis(100);
    let mailer = Mailer::new(settings).expect("a mailer");
    let outbox = WebhookOutbox {
        public_url: None,
        mail: true,
        replies: None,
    };
    let projector = Projector::new(db.pool.clone(), outbox, StoreMetrics::unregistered());
    let telemetry = Telemetry::new().expect("metrics");
    let app = app_at!(&db, &telemetry, None::<&str>);
    let gm = token(&db, "gus", Role::Gm).await;
    let tokens = player_tokens(&db).await;
    for player in PLAYERS {
        let body = json!({"email": format!("{player}@club.example")});
        let set = set_email(&app, &tokens[player], player, &body).await;
        assert_eq!(set.status, StatusCode::OK);
    }

    // The server puts the first mail off once, then takes it.
    server.answer_next(&["451 4.3.0 try again later"]);
    let game = create_game_for(&app, &gm, &PLAYERS).await;
    let (seats, first, _) = seats_and_turn(&app, &game).await;
    let client = db.pool.get().await.expect("a connection");
    let first_player = &seats[&first];
    eventually("the first mail sent", Duration::from_secs(60), || async {
        projector.catch_up().await.expect("projected");
        mailer.send_due(&db.pool).await.expect("a pass");
        let kept = mails_of(&client, first_player).await.expect("read");
        (kept.first().map(|m| m.status.as_str()) == Some("sent")).then_some(kept)
    })
    .await;
    let kept = mails_of(&client, first_player).await.expect("read");
    assert_eq!(kept[0].attempts, 2, "put off once, then sent");
    assert_eq!(server.delivered().len(), 1);
    // Without a link to the site's address, the turn page is a path.
    assert!(server.delivered()[0]
        .body()
        .contains(&format!("\r\n/games/{game}/turn\r\n")));

    // The next is refused for good: not tried again.
    server.answer_next(&["550 5.1.1 no such mailbox"]);
    plays_a_turn(&app, &tokens, &game).await;
    let (_, second, _) = seats_and_turn(&app, &game).await;
    let second_player = &seats[&second];
    let dead = eventually(
        "the second mail given up",
        Duration::from_secs(60),
        || async {
            projector.catch_up().await.expect("projected");
            mailer.send_due(&db.pool).await.expect("a pass");
            let kept = mails_of(&client, second_player).await.expect("read");
            kept.into_iter().find(|m| m.status == "dead")
        },
    )
    .await;
    assert_eq!(dead.attempts, 1);
    assert_eq!(dead.last_error.as_deref(), Some("rejected 550"));
    assert_eq!(mailer.send_due(&db.pool).await.expect("a pass"), 0);
    assert_eq!(server.delivered().len(), 1);
}

#[actix_web::test]
async fn a_mail_about_a_turn_begun_long_ago_is_given_up_not_sent() {
    let db = TestDb::new().await;
    let (port, server) = mail_server().await;
    let settings = MailSettings::new(
        SmtpUrl::try_from(format!("smtp://127.0.0.1:{port}").as_str()).expect("a URL"),
        MailFrom::try_from("warlog@club.example").expect("an address"),
    );
    let mailer = Mailer::new(settings).expect("a mailer");
    // The game was played two days ago; the projector catches up only now.
    let two_days_ago = time::OffsetDateTime::now_utc().unix_timestamp() - 2 * 86_400;
    let (app, _) = crate::kit::app!(db, clock at two_days_ago);
    let gm = token(&db, "gus", Role::Gm).await;
    let tokens = player_tokens(&db).await;
    for player in PLAYERS {
        let body = json!({"email": format!("{player}@club.example")});
        assert_eq!(
            set_email(&app, &tokens[player], player, &body).await.status,
            StatusCode::OK
        );
    }
    let game = create_game_for(&app, &gm, &PLAYERS).await;
    let (seats, first, _) = seats_and_turn(&app, &game).await;
    let outbox = WebhookOutbox {
        public_url: None,
        mail: true,
        replies: None,
    };
    project(&db, outbox).await;
    assert_eq!(mailer.send_due(&db.pool).await.expect("a pass"), 0);
    let client = db.pool.get().await.expect("a connection");
    let kept = mails_of(&client, &seats[&first]).await.expect("read");
    assert_eq!(kept.len(), 1);
    assert_eq!(
        (kept[0].status.as_str(), kept[0].last_error.as_deref()),
        ("dead", Some("expired"))
    );
    assert!(server.delivered().is_empty());
}

#[actix_web::test]
async fn a_players_address_is_for_the_player_and_admins_only_and_never_public() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let app = app_at!(&db, &telemetry, None::<&str>);
    let gm = token(&db, "gus", Role::Gm).await;
    let admin = token(&db, "root", Role::Admin).await;
    let director = token(&db, "dora", Role::Director).await;
    let tokens = player_tokens(&db).await;
    let (ann, bob) = (&tokens["ann"], &tokens["bob"]);
    let address = json!({"email": "ann.private@club.example"});

    // No address yet; a malformed one is refused with the reason.
    assert_problem(
        &read_email(&app, ann, "ann").await,
        StatusCode::NOT_FOUND,
        "email-not-set",
    );
    for bad in [
        json!({"email": "ann@localhost"}),
        json!({"email": "ann\r\nBcc: eve@evil.example@club.example"}),
        json!({"email": "x".repeat(250) + "@club.example"}),
        json!({"email": "ann@club.example", "name": "Ann"}),
        json!({}),
    ] {
        let refused = set_email(&app, ann, "ann", &bad).await;
        assert_problem(&refused, StatusCode::BAD_REQUEST, "malformed-request");
    }
    let set = set_email(&app, ann, "ann", &address).await;
    assert_eq!(set.status, StatusCode::OK, "{:?}", set.json());

    // Only ann and an admin read, set or remove it.
    let mine = read_email(&app, ann, "ann").await;
    assert_eq!(mine.status, StatusCode::OK);
    assert_eq!(mine.json()["email"], "ann.private@club.example");
    assert_eq!(mine.header("Cache-Control"), "private, no-store");
    assert_eq!(read_email(&app, &admin, "ann").await.status, StatusCode::OK);
    for other in [bob, &director, &gm] {
        assert_problem(
            &read_email(&app, other, "ann").await,
            StatusCode::FORBIDDEN,
            "forbidden",
        );
        let body = json!({"email": "eve@evil.example"});
        assert_problem(
            &set_email(&app, other, "ann", &body).await,
            StatusCode::FORBIDDEN,
            "forbidden",
        );
        assert_problem(
            &delete_email(&app, other, "ann").await,
            StatusCode::FORBIDDEN,
            "forbidden",
        );
    }
    assert_problem(
        &call(&app, get(&email_uri("ann"))).await,
        StatusCode::UNAUTHORIZED,
        "unauthorized",
    );
    assert_eq!(
        read_email(&app, ann, "ann").await.json()["email"],
        "ann.private@club.example",
        "unchanged by the refused writes"
    );

    // ann registers and plays; nothing public shows the address, and no event holds it.
    let registered = call(
        &app,
        crate::kit::post(
            "/v1/players",
            ann,
            &json!({"handle": "ann", "display_name": "Ann"}),
        ),
    )
    .await;
    assert_eq!(registered.status, StatusCode::CREATED);
    crate::league::project_league(&db).await;
    let game = create_game_for(&app, &gm, &PLAYERS).await;
    plays_a_turn(&app, &tokens, &game).await;
    // Without SMTP configured, no mail is queued.
    let outbox = warlog::notices(&warlog::cli::Cli::parse_from(["warlog"]).serve)
        .expect("configured")
        .outbox;
    assert!(!outbox.mail);
    project(&db, outbox).await;
    let admin_db = db.admin().await;
    let queued: i64 = admin_db
        .query_one("SELECT count(*) FROM mail_outbox", &[])
        .await
        .expect("counted")
        .get(0);
    assert_eq!(queued, 0, "no mail rows pile up without a mail server");
    let in_events: i64 = admin_db
        .query_one(
            "SELECT count(*) FROM events \
              WHERE payload::text LIKE '%ann.private%' OR metadata::text LIKE '%ann.private%'",
            &[],
        )
        .await
        .expect("counted")
        .get(0);
    assert_eq!(in_events, 0, "the address is no event");
    for public in [
        "/v1/players/ann".to_owned(),
        "/players/ann".to_owned(),
        "/v1/players?q=ann".to_owned(),
        format!("/v1/games/{game}"),
        format!("/v1/games/{game}/events"),
        format!("/games/{game}"),
        "/v1/events".to_owned(),
        "/v1/streams/player-ann/events".to_owned(),
    ] {
        let reply = call(&app, get(&public)).await;
        assert_eq!(reply.status, StatusCode::OK, "{public}");
        let text = String::from_utf8_lossy(&reply.body);
        assert!(!text.contains("ann.private"), "{public} shows the address");
    }

    // ann removes it; removing it again is no error.
    assert_eq!(
        delete_email(&app, ann, "ann").await.status,
        StatusCode::NO_CONTENT
    );
    assert_problem(
        &read_email(&app, &admin, "ann").await,
        StatusCode::NOT_FOUND,
        "email-not-set",
    );
    assert_eq!(
        delete_email(&app, &admin, "ann").await.status,
        StatusCode::NO_CONTENT
    );
}

#[actix_web::test]
async fn turn_started_is_delivered_for_each_turn_begun_and_never_after_the_game_ended() {
    let db = TestDb::new().await;
    let telemetry = Telemetry::new().expect("metrics");
    let app = app_at!(&db, &telemetry, None::<&str>);
    let director = token(&db, "dora", Role::Director).await;
    let gm = token(&db, "gus", Role::Gm).await;
    let tokens = player_tokens(&db).await;
    let received: Received = Arc::default();
    let (port, receiving) = receiver(0, received.clone());
    let body = json!({
        "url": format!("http://127.0.0.1:{port}/hook"),
        "kinds": ["turn.started"],
        "secret": SECRET,
    });
    let created = call(&app, crate::kit::post("/v1/webhooks", &director, &body)).await;
    assert_eq!(created.status, StatusCode::CREATED, "{:?}", created.json());

    let game = create_game_for(&app, &gm, &PLAYERS).await;
    let (seats, first, view) = seats_and_turn(&app, &game).await;
    plays_a_turn(&app, &tokens, &game).await;
    let (_, second, _) = seats_and_turn(&app, &game).await;
    let settings = quick_settings();
    deliver_until(&db, &settings, &received, "two turns begun", |r| {
        r.len() >= 2
    })
    .await;

    // Deliveries come in any order (a receiver orders them by the event's version).
    let mut bodies: Vec<Value> = received
        .lock()
        .expect("lock")
        .iter()
        .map(|(_, _, _, body)| serde_json::from_str(body).expect("JSON"))
        .collect();
    bodies.sort_by_key(|body| body["event"]["stream_version"].as_u64());
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    for (body, power) in bodies.iter().zip([&first, &second]) {
        assert_eq!(body["kind"], "turn.started");
        assert_eq!(body["game_id"], game.as_str());
        assert_eq!(body["title"], view["title"]);
        assert_eq!(body["power"], power.as_str());
        assert_eq!(body["player"], seats[power].as_str());
        assert_eq!(body["round"], 1);
        assert_eq!(body["links"]["turn"], format!("/games/{game}/turn"));
        assert_eq!(body["links"]["game"], format!("/v1/games/{game}"));
        assert!(body["power_name"].is_string());
    }
    assert_eq!(bodies[0]["event"]["event_type"], "GameCreated");
    assert_eq!(bodies[1]["event"]["event_type"], "PhaseEnded");

    // The game ends: no turn begins after it.
    let ended = crate::games::act(&app, &gm, &game, "end").await;
    assert_eq!(ended.status, StatusCode::OK, "{:?}", ended.json());
    project(&db, WebhookOutbox::default()).await;
    let client = warlog_api::webhooks::http_client(&settings);
    warlog_api::webhooks::deliver_due(&db.pool, &client, &settings, None)
        .await
        .expect("a pass");
    assert_eq!(received.lock().expect("lock").len(), 2);
    receiving.stop(true).await;
}
