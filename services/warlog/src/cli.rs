//! Command line and environment: every option has a flag and a `WARLOG_*` variable
//! (`DATABASE_URL` for the database).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "warlog",
    version,
    about = "Event-sourced league and ranking service for Axis & Allies associations"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub database: DatabaseArgs,

    /// Log format: human-readable text or one JSON object per line.
    #[arg(long, env = "WARLOG_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text, global = true)]
    pub log_format: LogFormat,

    /// Serve with demo data: `warlog --demo` is `warlog demo`.
    #[arg(long, env = "WARLOG_DEMO")]
    pub demo: bool,

    /// Options of `serve`, which is also what runs when no command is given.
    #[command(flatten)]
    pub serve: ServeArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Args)]
pub struct DatabaseArgs {
    /// PostgreSQL connection string. Without it: 127.0.0.1:5432 if it answers, else a
    /// private cluster under --data-dir.
    #[arg(long, env = "DATABASE_URL", global = true, hide_env_values = true)]
    pub database_url: Option<String>,

    /// Where the private PostgreSQL cluster lives when one is needed: the same place
    /// whatever directory warlog runs from ($XDG_DATA_HOME/warlog/pg, for root
    /// /var/lib/warlog/pg, else ~/.local/share/warlog/pg).
    #[arg(
        long,
        env = "WARLOG_DATA_DIR",
        default_value_os_t = warlog_store::discover::default_data_dir(),
        global = true
    )]
    pub data_dir: PathBuf,

    /// The database to use on a discovered server (ignored with DATABASE_URL).
    #[arg(long, env = "WARLOG_DATABASE", default_value = "warlog", global = true)]
    pub database: String,

    /// The role pooled connections switch to (read and append events only); empty to keep
    /// the login user's rights.
    #[arg(long, env = "WARLOG_DB_ROLE", default_value = warlog_store::APP_ROLE, global = true)]
    pub db_role: String,

    /// The login role the service connects as once the migrations (run as the owner) are
    /// done: it has only the service role's rights and cannot RESET ROLE to more. Empty, or
    /// a role that cannot log in, keeps the login user with SET ROLE (a warning says so),
    /// which `serve` refuses when that user is a superuser (see --allow-superuser).
    #[arg(long, env = "WARLOG_DB_LOGIN_ROLE", default_value = warlog_store::SERVICE_LOGIN, global = true)]
    pub db_login_role: String,

    /// A streaming standby of the same database for board views (`Consistency-Token`
    /// keeps a client's reads after its own writes).
    #[arg(
        long,
        env = "WARLOG_READ_DATABASE_URL",
        global = true,
        hide_env_values = true
    )]
    pub read_database_url: Option<String>,

    /// The login role's password, where the server asks for one.
    #[arg(
        long,
        env = "WARLOG_DB_LOGIN_PASSWORD",
        global = true,
        hide_env_values = true,
        conflicts_with = "db_login_password_file"
    )]
    pub db_login_password: Option<String>,

    /// A file holding the login role's password (a mounted secret); one trailing newline
    /// is not part of it.
    #[arg(long, env = "WARLOG_DB_LOGIN_PASSWORD_FILE", global = true)]
    pub db_login_password_file: Option<PathBuf>,

    /// A file holding the password of DATABASE_URL's user (the schema's owner, who
    /// migrates), so the URL need not carry it.
    #[arg(long, env = "WARLOG_DATABASE_PASSWORD_FILE", global = true)]
    pub database_password_file: Option<PathBuf>,

    /// Serve even when the service's connections would be a superuser's (a superuser can
    /// undo every guard the database keeps). Without it, `serve` refuses to start so.
    #[arg(long, env = "WARLOG_ALLOW_SUPERUSER", global = true)]
    pub allow_superuser: bool,

    /// Connections in the pool.
    #[arg(long, env = "WARLOG_POOL_SIZE", default_value_t = 16, global = true)]
    pub pool_size: usize,
}

/// The default of `--ladder-head-max-age-ms`.
pub const DEFAULT_LADDER_HEAD_MAX_AGE_MS: u64 = 500;

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(
        long,
        env = "WARLOG_BIND",
        default_value = "127.0.0.1:8080",
        global = true
    )]
    pub bind: String,

    /// HTTP worker threads (default: one per core).
    #[arg(long, env = "WARLOG_WORKERS", global = true)]
    pub workers: Option<usize>,

    /// How often projectors poll when no notification wakes them, in milliseconds.
    #[arg(
        long,
        env = "WARLOG_PROJECTOR_POLL_MS",
        default_value_t = 1000,
        global = true
    )]
    pub projector_poll_ms: u64,

    /// The skill rating's tau: added (in quadrature) to every sigma before a game, so
    /// ratings keep moving over a long career. OpenSkill's default is 25/300; 0 gives the
    /// pure Plackett-Luce model. `rebuild league` must use the value `serve` used.
    #[arg(long, env = "WARLOG_SKILL_TAU", default_value_t = 25.0 / 300.0, global = true)]
    pub skill_tau: f64,

    /// How long a ladder's head (the league state a first page shows) may be reused before
    /// it is read again, in milliseconds: a newly projected game reaches the first page of
    /// the ladders within this time. 0 reads it on every request.
    #[arg(
        long,
        env = "WARLOG_LADDER_HEAD_MAX_AGE_MS",
        default_value_t = DEFAULT_LADDER_HEAD_MAX_AGE_MS,
        global = true
    )]
    pub ladder_head_max_age_ms: u64,

    /// Origins whose pages may read the public resources (comma-separated; `*` for any).
    #[arg(
        long,
        env = "WARLOG_CORS_ORIGINS",
        value_delimiter = ',',
        global = true
    )]
    pub cors_origins: Vec<String>,

    /// The first wait before a failed webhook delivery is tried again, in milliseconds;
    /// each further failure doubles it, up to `--webhook-retry-max-s`.
    #[arg(
        long,
        env = "WARLOG_WEBHOOK_RETRY_BASE_MS",
        default_value_t = 5000,
        global = true
    )]
    pub webhook_retry_base_ms: u64,

    /// The longest wait between a webhook delivery's attempts, in seconds.
    #[arg(
        long,
        env = "WARLOG_WEBHOOK_RETRY_MAX_S",
        default_value_t = 3600,
        global = true
    )]
    pub webhook_retry_max_s: u64,

    /// How long one webhook delivery attempt may take, in seconds.
    #[arg(
        long,
        env = "WARLOG_WEBHOOK_TIMEOUT_S",
        default_value_t = 10,
        global = true
    )]
    pub webhook_timeout_s: u64,

    /// Internal receivers webhooks may reach (comma-separated): networks in CIDR form
    /// (`10.1.2.0/24`, `127.0.0.1/32`) and host names. Every other loopback, private,
    /// link-local or otherwise internal address is refused.
    #[arg(
        long,
        env = "WARLOG_WEBHOOK_ALLOW",
        value_delimiter = ',',
        global = true
    )]
    pub webhook_allow: Vec<String>,

    /// The key webhook secrets are sealed with at rest: 64 hex digits (`openssl rand -hex
    /// 32`). Without it a public development key is used, and a warning says so.
    #[arg(
        long,
        env = "WARLOG_WEBHOOK_KEY",
        global = true,
        hide_env_values = true,
        conflicts_with = "webhook_key_file"
    )]
    pub webhook_key: Option<String>,

    /// A file holding the webhook key (a mounted secret).
    #[arg(long, env = "WARLOG_WEBHOOK_KEY_FILE", global = true)]
    pub webhook_key_file: Option<PathBuf>,

    /// Live webhook subscriptions one token name may have.
    #[arg(
        long,
        env = "WARLOG_WEBHOOK_MAX_PER_OWNER",
        default_value_t = warlog_api::webhooks::DEFAULT_MAX_PER_OWNER,
        global = true
    )]
    pub webhook_max_per_owner: u32,

    /// Attempts after which a webhook delivery is given up on (dead-lettered).
    #[arg(
        long,
        env = "WARLOG_WEBHOOK_MAX_ATTEMPTS",
        default_value_t = 20,
        global = true
    )]
    pub webhook_max_attempts: u32,

    /// Age, in hours, after which a webhook delivery not yet accepted is given up on.
    #[arg(
        long,
        env = "WARLOG_WEBHOOK_MAX_AGE_H",
        default_value_t = 72,
        global = true
    )]
    pub webhook_max_age_h: u64,

    /// Consecutive failed attempts after which a webhook subscription is paused until its
    /// owner resumes it.
    #[arg(
        long,
        env = "WARLOG_WEBHOOK_PAUSE_AFTER",
        default_value_t = 10,
        global = true
    )]
    pub webhook_pause_after: u32,

    /// The mail server "your move" mails go out through: `smtp://host:port` (plain, for a
    /// relay on the operator's network), `smtp://host?tls=required` (STARTTLS) or
    /// `smtps://user:password@host` (TLS). Without it no mail is sent, and none is queued.
    #[arg(
        long,
        env = "WARLOG_SMTP_URL",
        global = true,
        hide_env_values = true,
        conflicts_with = "smtp_url_file"
    )]
    pub smtp_url: Option<String>,

    /// A file holding the SMTP URL (a mounted secret, when it carries a password).
    #[arg(long, env = "WARLOG_SMTP_URL_FILE", global = true)]
    pub smtp_url_file: Option<PathBuf>,

    /// The sender of "your move" mails: `warlog@club.example` or `League
    /// <warlog@club.example>`. Needed with `--smtp-url`.
    #[arg(long, env = "WARLOG_MAIL_FROM", global = true)]
    pub mail_from: Option<String>,

    /// Attempts after which a mail is given up on.
    #[arg(
        long,
        env = "WARLOG_MAIL_MAX_ATTEMPTS",
        default_value_t = 10,
        global = true
    )]
    pub mail_max_attempts: u32,

    /// Hours after its turn began when a mail not yet sent is given up on (old news).
    #[arg(
        long,
        env = "WARLOG_MAIL_MAX_AGE_H",
        default_value_t = 24,
        global = true
    )]
    pub mail_max_age_h: u64,

    /// Turns by mail: the domain of the reply address each "your move" mail and turn report
    /// carries (`turn+TOKEN@domain`). Default: the domain of `--mail-from`. Replies reach
    /// warlog through `--imap-url` or `--mail-listen`.
    #[arg(long, env = "WARLOG_MAIL_REPLY_DOMAIN", global = true)]
    pub mail_reply_domain: Option<String>,

    /// Turns by mail: the mailbox players' replies arrive in, read over IMAP
    /// (`imaps://user:password@host/INBOX`; `imap://` only for a server on this host).
    #[arg(
        long,
        env = "WARLOG_IMAP_URL",
        global = true,
        hide_env_values = true,
        conflicts_with = "imap_url_file"
    )]
    pub imap_url: Option<String>,

    /// A file holding the IMAP URL (a mounted secret).
    #[arg(long, env = "WARLOG_IMAP_URL_FILE", global = true)]
    pub imap_url_file: Option<PathBuf>,

    /// A PEM file of the roots the IMAP server's certificate is checked against (a private
    /// server's own); without it, the Mozilla roots.
    #[arg(long, env = "WARLOG_IMAP_CA_FILE", global = true)]
    pub imap_ca_file: Option<PathBuf>,

    /// Seconds between looks at the mailbox when the server offers no IDLE (and the
    /// longest an IDLE lasts).
    #[arg(long, env = "WARLOG_IMAP_POLL_S", default_value_t = 60, global = true)]
    pub imap_poll_s: u64,

    /// Turns by mail: listen for the operator's mail server on this address, speaking LMTP
    /// and SMTP (`127.0.0.1:2424`), so Postfix or Exim can deliver replies to it.
    #[arg(long, env = "WARLOG_MAIL_LISTEN", global = true)]
    pub mail_listen: Option<String>,

    /// The receiving mail server whose `Authentication-Results` headers are trusted for
    /// DMARC (its authserv-id, e.g. `mx.club.example`). Without it no DMARC check is made,
    /// and the record says so.
    #[arg(long, env = "WARLOG_MAIL_AUTHSERV_ID", global = true)]
    pub mail_authserv_id: Option<String>,

    /// The largest mail taken, in kB; a larger one is refused in words.
    #[arg(long, env = "WARLOG_MAIL_MAX_KB", default_value_t = 256, global = true)]
    pub mail_max_kb: usize,

    /// The address the service is reached at from outside (`https://league.example`):
    /// calendar events link to their games with it, and "your move" mails and webhooks to
    /// the turn page. Without it calendars carry no link, and mails a path only.
    #[arg(long, env = "WARLOG_PUBLIC_URL", global = true)]
    pub public_url: Option<String>,

    /// Exact odds (`POST /v1/odds`) a minute per client address; 0 for no limit.
    #[arg(
        long,
        env = "WARLOG_ODDS_PER_MINUTE",
        default_value_t = warlog_api::rate_limit::DEFAULT_ODDS_PER_MINUTE,
        global = true
    )]
    pub odds_per_minute: u32,

    /// Exact odds computed at once, from all clients together; beyond it, 503 with
    /// Retry-After. Default: the machine's cores.
    #[arg(long, env = "WARLOG_ODDS_AT_ONCE", global = true)]
    pub odds_at_once: Option<usize>,

    /// Hours a dice table must not roll before anyone may have its seed revealed (with the
    /// link mailed with its rolls, either player may at any time).
    #[arg(
        long,
        env = "WARLOG_DICE_REVEAL_IDLE_H",
        default_value_t = warlog_api::dice_tables::DEFAULT_IDLE_HOURS,
        value_parser = clap::value_parser!(u64).range(1..=24 * 366),
        global = true
    )]
    pub dice_reveal_idle_h: u64,

    /// Dice rolls (`POST /api/roll`) a minute per client address, over every table; 0 for
    /// no limit.
    #[arg(
        long,
        env = "WARLOG_DICE_ROLLS_PER_MINUTE",
        default_value_t = warlog_api::dice_tables::DEFAULT_ROLLS_PER_MINUTE,
        global = true
    )]
    pub dice_rolls_per_minute: u32,

    /// The domains whose addresses dice rolls are mailed to (comma-separated; `*` for any;
    /// a domain allows its subdomains). Anyone may ask for a roll naming any two addresses,
    /// so none is mailed unless allowed here. Needs `--smtp-url`.
    #[arg(
        long,
        env = "WARLOG_DICE_MAIL_DOMAINS",
        value_delimiter = ',',
        global = true
    )]
    pub dice_mail_domains: Vec<String>,

    /// Whether a roll may name only addresses registered (and confirmed by a mailed link)
    /// at /dice/register: `auto` (on whenever rolls are mailed, as on TripleA's official
    /// dice server), `on` (needs --smtp-url) or `off`.
    #[arg(
        long,
        env = "WARLOG_DICE_REGISTRATION",
        default_value = "auto",
        global = true
    )]
    pub dice_registration: String,

    /// Dice roll mails a minute to one address from one client, over every table; 0 for
    /// no limit.
    #[arg(
        long,
        env = "WARLOG_DICE_MAILS_PER_ADDRESS",
        default_value_t = warlog_api::dice_tables::DEFAULT_MAILS_PER_ADDRESS_PER_MINUTE,
        global = true
    )]
    pub dice_mails_per_address: u32,

    /// Dice rolls a minute from one client at one table (a stranger naming the players
    /// spends only their own); 0 for no limit.
    #[arg(
        long,
        env = "WARLOG_DICE_TABLE_ROLLS_PER_MINUTE",
        default_value_t = warlog_api::dice_tables::DEFAULT_TABLE_ROLLS_PER_MINUTE,
        global = true
    )]
    pub dice_table_rolls_per_minute: u32,

    /// Reverse proxies (addresses or networks, comma-separated) whose `X-Forwarded-For`
    /// names the client for the per-client limits; without them the client is the
    /// connection's peer.
    #[arg(
        long,
        env = "WARLOG_TRUSTED_PROXIES",
        value_delimiter = ',',
        global = true
    )]
    pub trusted_proxies: Vec<String>,
}

/// What `warlog audit` checks, and its exit codes.
const AUDIT_HELP: &str = "\
A game's audit: the file is a whole stream from version 1 and its hash chain holds; it
reaches the --head given; the seed matches the commitment in GameCreated; the seats are
the seed's draw; every recorded order (OrdersGiven) is decided again on the board before
it, by its sender's right, and gives exactly the events that follow it; every die is the
seed's; the final IPC counts and the placements are the board's.
A tournament's audit (its export, then its games') seats every round again from its
revealed seed, checks each game against its table and its own audit, and prints the
standings computed from the games' results.
The league's audit (--ladder, with the exports of the games it ranks) audits each game,
recomputes every player's points, games, wins and title, and names the first row of the
published ladder that differs.
A dice table's audit (its one export, dice-<id>): every revealed seed is the one its
epoch committed to; every roll's index is its place and every die of a revealed epoch is
the seed's (the rolls of an epoch not revealed yet are not checked); with --dice-key,
every roll is signed by the service over its table, index, dice and date.

One line per check, one line per finding (with the event's version), then the verdict.

Exit codes:
  0  passed: every check was made and held
  1  failed: at least one finding
  2  the files or the arguments could not be read
  3  partial: nothing failed, but some checks could not be made (listed)";

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the HTTP API (the default).
    Serve,
    /// Serve, and fill an empty database with scripted games and a small tournament played
    /// through the API, for a first look at http://localhost:8080/.
    Demo,
    /// Apply the database migrations and exit.
    Migrate,
    /// Empty a read model and replay the whole event log into it.
    Rebuild {
        /// The projector: stream_catalog, game_summaries, tournament_summaries, league or
        /// webhooks (which keeps the deliveries made and adds any missing).
        projector: String,
    },
    /// Print the OpenAPI document.
    Openapi,
    /// Exact odds of a battle, e.g. `warlog odds --attacker "3 inf, 1 arm" --defender "2 inf"`.
    Odds(OddsArgs),
    /// Bearer tokens for the API.
    Token {
        #[command(subcommand)]
        token: TokenCommand,
    },
    /// Audit exported logs offline, with no database: a game's, a tournament's with its
    /// games', a published points ladder with the games it ranks, or a dice table's.
    #[command(after_help = AUDIT_HELP)]
    Audit {
        /// NDJSON exports (`GET /v1/streams/{stream}/events` with
        /// `Accept: application/x-ndjson`): one game's, a tournament's and its games', one
        /// dice table's, or (with --ladder) the games a ladder ranks.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The game's seed (64 hex digits), if not revealed in the log.
        #[arg(long)]
        seed: Option<String>,
        /// A head published earlier (`GET /v1/streams/{stream}/head`), as VERSION:HASH: the
        /// file must reach that version with that hash, so a file cut short is caught.
        #[arg(long)]
        head: Option<String>,
        /// A published points ladder (`GET /v1/leaderboards/points?ruleset=R&season=S` as
        /// JSON, every page in order: repeat the flag) to recompute from the game files.
        #[arg(long)]
        ladder: Vec<PathBuf>,
        /// The dice service's public key, to check a dice table's signatures: the 32-byte
        /// Ed25519 key in base64, as `public_key` in `GET /.well-known/warlog-dice-key`.
        #[arg(long, value_name = "BASE64")]
        dice_key: Option<String>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Ask the service on `--bind` for a route (a container's health check, where the image
    /// has no curl): exit 0 when it answers 200, 1 otherwise.
    Probe {
        /// The route to ask for.
        #[arg(long, default_value = "/readyz")]
        path: String,
    },
    /// Print every stream's head (version and hash) as JSON lines, for publication: a
    /// later `warlog verify --heads FILE` proves the log still holds them.
    Heads,
    /// Recompute every stream's chain in the database from its genesis, and compare the
    /// heads published earlier; names every stream that does not match. Exit 0 passed, 1
    /// failed, 2 unreadable heads file.
    Verify {
        /// A file written by `warlog heads` (JSON lines).
        #[arg(long)]
        heads: Option<PathBuf>,
    },
    /// Benchmarks that print their figures next to a baseline measured in the same run.
    Bench {
        #[command(subcommand)]
        bench: BenchCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Make a token, store its hash, and print it (the only time it is shown).
    Create {
        /// admin, director, gm, player or auditor.
        #[arg(long)]
        role: String,
        /// Who holds it; for a player, the handle seated in games.
        #[arg(long)]
        name: String,
        /// Refuse it after this many days (default: it does not expire).
        #[arg(long)]
        expires_in_days: Option<u32>,
    },
    /// List the tokens: id, holder, role, created, expires, revoked (never the tokens).
    List,
    /// Revoke the token whose id starts with ID (six hex digits or more, from `list`):
    /// refused from the next request on.
    Revoke {
        /// The token's id, or enough of it to name one live token.
        id: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Orders accepted per second through HTTP on one game and across 50, with p50 and p99
    /// latency, against `GET /healthz` as the baseline.
    Orders {
        /// Seconds each workload runs.
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
    },
    /// Leaderboard pages per second with 10,000 players and 100,000 finished games, with
    /// p50 and p99 latency, against `GET /healthz` as the baseline.
    Leaderboard {
        /// Seconds each workload runs.
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
    },
    /// The page of a long game served cold against served kept, with `GET /healthz` as
    /// the baseline.
    GamePage {
        /// Seconds each kept workload runs.
        #[arg(long, default_value_t = 1.0)]
        seconds: f64,
        /// Events in the game.
        #[arg(long, default_value_t = 30_000)]
        events: usize,
    },
    /// Dice rolls per second through `POST /api/roll` (TripleA's form), each client at a
    /// table of its own, against `GET /healthz`; and a table's view once it holds 5,000
    /// rolls against its view at 1,000.
    Dice {
        /// Seconds each workload runs.
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
    },
    /// Turns by mail through the listener (LMTP, kept, decided by the intake) against the
    /// same turn texts over HTTP, in the same run: 20 games, 10 turns each on each path.
    Mail,
    /// Drawing the Classic board as the map (SVG) against the same board view as JSON.
    Map {
        /// Seconds of one slice: each workload runs 5 slices and keeps its best.
        #[arg(long, default_value_t = 0.5)]
        seconds: f64,
    },
    /// A 20-line turn text parsed, planned and decided against the same orders sent as
    /// JSON (deserialised, normalised, decided), in the same run. No database.
    Turn {
        /// Seconds of one slice: each workload runs 5 slices, alternating with the others.
        #[arg(long, default_value_t = 0.5)]
        seconds: f64,
    },
    /// Appends per second by concurrent writers, against plain single-row inserts as the baseline.
    Append {
        /// Seconds of one slice: each workload runs 5 slices, alternating with the ones it
        /// is compared with.
        #[arg(long, default_value_t = 1.0)]
        seconds: f64,
    },
}

#[derive(Debug, Clone, Args)]
pub struct OddsArgs {
    /// Attacking units, e.g. "3 inf, 1 arm, 1 ftr".
    #[arg(long)]
    pub attacker: String,
    /// Defending units, e.g. "2 inf, 1 aa".
    #[arg(long)]
    pub defender: String,
    /// A sea battle (default: land).
    #[arg(long)]
    pub sea: bool,
    /// Battleships bombarding an amphibious assault.
    #[arg(long, default_value_t = 0)]
    pub support_shots: u32,
    /// The attacker's combat order: SA, SAAC, TAAC, KAAC or WI.
    #[arg(long)]
    pub order: Option<String>,
    /// Ruleset whose units to use: classic, cutthroat, aap-historical.
    #[arg(long, default_value = "cutthroat")]
    pub ruleset: String,
    /// The defender's standing order of loss, unit codes first lost first, e.g. "arm, inf".
    #[arg(long)]
    pub defender_order_of_loss: Option<String>,
    /// The defender's submarines submerge when attacked (sea battles).
    #[arg(long)]
    pub submerge: bool,
    /// The defender's battleships do not take the first hits as damage.
    #[arg(long)]
    pub battleships_do_not_absorb: bool,
    /// The attacking power (ccp, japan, ...): an attacking CCP stack never counts for AAP's
    /// heavy weapons.
    #[arg(long, value_parser = power)]
    pub attacker_power: Option<warlog_rules::board::Power>,
    /// The defending power: a defending CCP group never counts for heavy weapons.
    #[arg(long, value_parser = power)]
    pub defender_power: Option<warlog_rules::board::Power>,
    /// Attacking guerrillas (AAP's CCP) stop firing, both sides staying: "after N" rounds
    /// (0: before the first die) or "at N" units left.
    #[arg(long, value_parser = blend_in)]
    pub attacker_blend_in: Option<warlog_rules::game::named::NamedRetreat>,
    /// Defending guerrillas stop firing, as a standing order says: "after N" or "at N".
    #[arg(long, value_parser = blend_in)]
    pub defender_blend_in: Option<warlog_rules::game::named::NamedRetreat>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// When guerrillas blend in: `after 2` (rounds) or `at 3` (units left).
fn blend_in(text: &str) -> Result<warlog_rules::game::named::NamedRetreat, String> {
    use warlog_rules::game::named::NamedRetreat;
    let refused = || format!("{text:?}: \"after N\" (rounds) or \"at N\" (units left)");
    let (word, n) = text.trim().split_once(' ').ok_or_else(refused)?;
    let n: u32 = n.trim().parse().map_err(|_| refused())?;
    match word {
        "after" => Ok(NamedRetreat::AfterRound(n)),
        "at" => Ok(NamedRetreat::WhenAtMost(n)),
        _ => Err(refused()),
    }
}

/// A power as the API names it (`ccp`, `united-kingdom`).
fn power(text: &str) -> Result<warlog_rules::board::Power, String> {
    serde_json::from_value(serde_json::Value::String(text.to_owned()))
        .map_err(|_| format!("{text:?} is not a power (russia, germany, united-kingdom, japan, united-states, ccp, kmt, npn)"))
}
