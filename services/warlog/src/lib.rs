//! The `warlog` binary's commands. `main.rs` only parses the command line and calls
//! [`run`].

pub mod audit;
pub mod bench;
pub mod bench_dice;
pub mod bench_game;
pub mod bench_http;
pub mod bench_ladder;
pub mod bench_mail;
pub mod bench_map;
pub mod bench_turn;
pub mod cli;
pub mod client;
pub mod demo;
pub mod odds;
pub mod tokens;
pub mod verify;

use std::time::Duration;

use actix_web::HttpServer;
use tokio::sync::watch;
use warlog_api::{AppState, Telemetry};
use warlog_league::rating::SkillModel;
use warlog_store::discover::{self, DiscoveryOptions, Server};
use warlog_store::league::League;
use warlog_store::projections::{ProjectionName, ProjectionSettings};
use warlog_store::projector::{spawn_listener, Notifier, Projector};
use warlog_store::webhooks::WebhookOutbox;
use warlog_store::{connect_pool, EventStore, PoolOptions, StoreMetrics};

use crate::cli::{Cli, Command, DatabaseArgs, LogFormat, ServeArgs};

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Discovery(#[from] discover::DiscoveryError),
    #[error(transparent)]
    Store(#[from] warlog_store::StoreError),
    #[error("database: {}", warlog_store::describe_pg(.0))]
    Database(#[from] tokio_postgres::Error),
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Other(String),
    /// The command has said what it had to and ends with this exit code.
    #[error("exit code {0}")]
    Exit(u8),
}

pub fn init_tracing(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("WARLOG_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Colour only for a terminal: a log file or a collector gets plain text.
    let colour = std::io::IsTerminal::is_terminal(&std::io::stderr())
        && std::env::var_os("NO_COLOR").is_none();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colour)
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Json => builder.json().try_init(),
        LogFormat::Text => builder.compact().try_init(),
    };
}

pub async fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve if cli.demo => serve(&cli.database, &cli.serve, true).await,
        Command::Serve => serve(&cli.database, &cli.serve, false).await,
        Command::Demo => serve(&cli.database, &cli.serve, true).await,
        Command::Migrate => {
            let (server, config) = open_database(&cli.database).await?;
            let applied = prepare_database(&config, &cli.database).await;
            server.shutdown().await;
            let applied = applied?;
            tracing::info!(?applied, "migrations applied");
            Ok(())
        }
        Command::Rebuild { projector } => {
            let (server, config) = open_database(&cli.database).await?;
            let result = rebuild(&cli.database, &cli.serve, &config, &projector).await;
            server.shutdown().await;
            result
        }
        Command::Odds(args) => {
            use std::io::Write;
            let report = odds::report(&args)?;
            writeln!(std::io::stdout(), "{report}")?;
            Ok(())
        }
        Command::Token { token } => {
            use std::io::Write;
            let (server, config) = open_database(&cli.database).await?;
            let result = async {
                migrate(&config).await?;
                // Tokens are written on the administrator's own connection, not as the
                // service's role.
                let client = owner_client(&config).await?;
                tokens::run(&client, token).await
            }
            .await;
            server.shutdown().await;
            write!(std::io::stdout(), "{}", result?)?;
            Ok(())
        }
        Command::Probe { path } => {
            let mut addr: std::net::SocketAddr = cli
                .serve
                .bind
                .parse()
                .map_err(|e| CliError::Other(format!("--bind {}: {e}", cli.serve.bind)))?;
            if addr.ip().is_unspecified() {
                addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
            }
            let answered = async {
                let mut connection = client::Connection::open(addr).await?;
                connection.send("GET", &path, None, "").await
            };
            match tokio::time::timeout(Duration::from_secs(5), answered).await {
                Ok(Ok((200, _))) => Ok(()),
                _ => Err(CliError::Exit(1)),
            }
        }
        Command::Heads => {
            let (server, config) = open_database(&cli.database).await?;
            let result = async {
                let client = owner_client(&config).await?;
                let stdout = std::io::stdout();
                verify::heads(&client, &mut stdout.lock()).await
            }
            .await;
            server.shutdown().await;
            result.map(|_| ())
        }
        Command::Verify { heads } => {
            use std::io::Write;
            let published = match heads.as_deref().map(verify::read_heads).transpose() {
                Ok(published) => published.unwrap_or_default(),
                Err(e) => {
                    writeln!(std::io::stderr(), "{e}")?;
                    return Err(CliError::Exit(2));
                }
            };
            let (server, config) = open_database(&cli.database).await?;
            let result = async {
                let client = owner_client(&config).await?;
                verify::verify(&client, &published).await
            }
            .await;
            server.shutdown().await;
            let report = result?;
            write!(std::io::stdout(), "{}", report.render())?;
            if report.problems.is_empty() {
                Ok(())
            } else {
                Err(CliError::Exit(1))
            }
        }
        Command::Audit {
            files,
            seed,
            head,
            ladder,
            dice_key,
            json,
        } => audit::run(
            &audit::AuditInput {
                files,
                seed,
                head,
                ladder,
                dice_key,
            },
            json,
        ),
        Command::Openapi => {
            use std::io::Write;
            std::io::stdout().write_all(warlog_api::openapi_pretty_json().as_bytes())?;
            Ok(())
        }
        Command::Bench {
            bench: cli::BenchCommand::Map { seconds },
        } => bench_map::map(Duration::from_secs_f64(seconds.clamp(0.01, 60.0))),
        Command::Bench {
            bench: cli::BenchCommand::Turn { seconds },
        } => bench_turn::turn(Duration::from_secs_f64(seconds.clamp(0.01, 60.0))),
        Command::Bench { bench } => {
            let server = discover::discover(&discovery_options(&cli.database)).await?;
            let result = match bench {
                cli::BenchCommand::Append { seconds } => {
                    bench::append(&server, Duration::from_secs_f64(seconds)).await
                }
                cli::BenchCommand::Leaderboard { seconds } => {
                    bench_ladder::leaderboard(&server, Duration::from_secs_f64(seconds)).await
                }
                cli::BenchCommand::Orders { seconds } => {
                    bench_http::orders(&server, Duration::from_secs_f64(seconds)).await
                }
                cli::BenchCommand::Dice { seconds } => {
                    bench_dice::dice(&server, Duration::from_secs_f64(seconds)).await
                }
                cli::BenchCommand::Mail => bench_mail::mail(&server).await,
                cli::BenchCommand::GamePage { seconds, events } => {
                    bench_game::game_page(&server, Duration::from_secs_f64(seconds), events).await
                }
                cli::BenchCommand::Map { .. } | cli::BenchCommand::Turn { .. } => Ok(()),
            };
            server.shutdown().await;
            result
        }
    }
}

fn discovery_options(args: &DatabaseArgs) -> DiscoveryOptions {
    DiscoveryOptions {
        database_url: args.database_url.clone().filter(|u| !u.is_empty()),
        probe_local: true,
        data_dir: args.data_dir.clone(),
    }
}

fn pool_options(args: &DatabaseArgs) -> PoolOptions {
    PoolOptions {
        max_size: args.pool_size.max(1),
        role: Some(args.db_role.clone()).filter(|r| !r.is_empty()),
    }
}

/// A connection with the login user's own rights (an administrator's tool).
async fn owner_client(
    config: &tokio_postgres::Config,
) -> Result<deadpool_postgres::Object, CliError> {
    let pool = connect_pool(
        config.clone(),
        &PoolOptions {
            max_size: 1,
            role: None,
        },
    )
    .await?;
    Ok(pool.get().await.map_err(warlog_store::StoreError::from)?)
}

/// A token made on the owner's own connection: the service's roles may not write tokens.
pub async fn owner_token(
    config: &tokio_postgres::Config,
    name: &str,
    role: warlog_api::auth::Role,
) -> Result<String, CliError> {
    let client = owner_client(config).await?;
    warlog_api::auth::issue_token(&client, name, role)
        .await
        .map_err(|e| CliError::Other(e.detail))
}

/// How the service reaches its database once migrated: the pool its requests use, and
/// the settings its listeners (`LISTEN`) connect with, both as the same login.
#[derive(Debug)]
pub struct ServiceLogin {
    pub pool: deadpool_postgres::Pool,
    pub config: tokio_postgres::Config,
}

/// The service's login: as the login role with the service's rights only, when it can log
/// in; else the login user switching to the service role (`SET ROLE`), with a warning,
/// since such a session could `RESET ROLE`. A superuser's login is refused unless the
/// operator allowed it (`--allow-superuser`): a superuser's session can undo every guard
/// the database keeps (issue 31).
pub async fn service_login(
    config: &tokio_postgres::Config,
    db: &DatabaseArgs,
) -> Result<ServiceLogin, CliError> {
    let (pool, config) = match logged_in_as_service_role(config, db).await? {
        Some(login) => login,
        None => (
            connect_pool(config.clone(), &pool_options(db)).await?,
            config.clone(),
        ),
    };
    let client = pool.get().await.map_err(warlog_store::StoreError::from)?;
    if let Some(user) = warlog_store::superuser_login(&client).await? {
        if !db.allow_superuser {
            return Err(CliError::Other(refusal_to_serve_as_superuser(&user, db)));
        }
        tracing::warn!(
            user,
            "serving as a superuser, as --allow-superuser asks: its session can undo every guard the database keeps"
        );
    }
    Ok(ServiceLogin { pool, config })
}

/// The one line `serve` ends with when it would serve as a superuser.
fn refusal_to_serve_as_superuser(user: &str, db: &DatabaseArgs) -> String {
    let role = &db.db_login_role;
    if role.is_empty() {
        format!(
            "refusing to serve as {user:?}, a superuser: set a login role (--db-login-role, default {}) or pass --allow-superuser",
            warlog_store::SERVICE_LOGIN
        )
    } else {
        format!(
            "refusing to serve as {user:?}, a superuser: the login role {role:?} could not log in (give its password with --db-login-password-file or --db-login-password), or pass --allow-superuser"
        )
    }
}

/// The pool as the service's login role and the settings it logged in with, or `None`
/// when that role is not set or cannot log in.
async fn logged_in_as_service_role(
    config: &tokio_postgres::Config,
    db: &DatabaseArgs,
) -> Result<Option<(deadpool_postgres::Pool, tokio_postgres::Config)>, CliError> {
    if db.db_login_role.is_empty() {
        return Ok(None);
    }
    let mut login = config.clone();
    login.user(&db.db_login_role);
    if let Some(password) = secret(
        db.db_login_password.as_deref(),
        db.db_login_password_file.as_deref(),
    )? {
        login.password(password);
    }
    let options = PoolOptions {
        max_size: db.pool_size.max(1),
        role: None,
    };
    let logged_in = match connect_pool(login.clone(), &options).await {
        Ok(pool) => pool.get().await.map(|_| pool).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    match logged_in {
        Ok(pool) => {
            tracing::info!(role = %db.db_login_role, "connected as the service's login role");
            Ok(Some((pool, login)))
        }
        Err(error) => {
            tracing::warn!(
                role = %db.db_login_role, error,
                "cannot log in as the service's login role: working as the login user with SET ROLE"
            );
            Ok(None)
        }
    }
}

/// A secret given in clear or as a file's content (a mounted secret), without the one
/// trailing newline such files end with.
fn secret(value: Option<&str>, file: Option<&std::path::Path>) -> Result<Option<String>, CliError> {
    if let Some(value) = value {
        return Ok(Some(value.to_owned()));
    }
    let Some(file) = file else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(file)
        .map_err(|e| CliError::Other(format!("cannot read {}: {e}", file.display())))?;
    let text = text.strip_suffix('\n').unwrap_or(&text);
    let text = text.strip_suffix('\r').unwrap_or(text);
    Ok(Some(text.to_owned()))
}

/// Finds the server and the service database on it (creating the database if needed).
async fn open_database(args: &DatabaseArgs) -> Result<(Server, tokio_postgres::Config), CliError> {
    let mut server = discover::discover(&discovery_options(args)).await?;
    if let Some(password) = secret(None, args.database_password_file.as_deref())? {
        server = server.with_password(&password);
    }
    match server.service_database(&args.database).await {
        Ok(config) => {
            tracing::info!(
                server = %server.describe(),
                database = config.get_dbname().unwrap_or_default(),
                "database found"
            );
            Ok((server, config))
        }
        Err(e) => {
            server.shutdown().await;
            Err(e.into())
        }
    }
}

/// Applies the migrations on a connection of its own (not the pool's, whose role may not
/// own the schema).
pub async fn migrate(config: &tokio_postgres::Config) -> Result<Vec<u32>, CliError> {
    let tls = warlog_store::tls::connector().map_err(CliError::Other)?;
    let (mut client, connection) = config.connect(tls).await?;
    let driver = tokio::spawn(connection);
    let applied = warlog_store::migrate(&mut client).await;
    drop(client);
    let _ = driver.await;
    Ok(applied?)
}

/// Migrates as the owner and, when the operator gave the login role a password (a mounted
/// secret in the deploy files), sets it: on a server that asks for passwords, the service
/// can then log in as that role and never as the owner.
async fn prepare_database(
    config: &tokio_postgres::Config,
    db: &DatabaseArgs,
) -> Result<Vec<u32>, CliError> {
    let applied = migrate(config).await?;
    let password = secret(
        db.db_login_password.as_deref(),
        db.db_login_password_file.as_deref(),
    )?;
    if let (false, Some(password)) = (db.db_login_role.is_empty(), password) {
        let role = &db.db_login_role;
        let client = owner_client(config).await?;
        match warlog_store::set_login_password(&client, role, &password).await {
            Ok(()) => tracing::info!(role, "the login role's password is the one given"),
            Err(error) => tracing::warn!(
                role, %error,
                "cannot set the login role's password (the owner needs CREATEROLE): set it as docs/operations.md says"
            ),
        }
    }
    Ok(applied)
}

async fn rebuild(
    args: &DatabaseArgs,
    serve: &ServeArgs,
    config: &tokio_postgres::Config,
    projector: &str,
) -> Result<(), CliError> {
    migrate(config).await?;
    let pool = connect_pool(config.clone(), &pool_options(args)).await?;
    let Some(name) = ProjectionName::named(projector) else {
        return Err(CliError::Other(format!(
            "unknown projector {projector:?}; known: {}",
            ProjectionName::names().join(", ")
        )));
    };
    let settings = ProjectionSettings {
        league: league(serve),
        outbox: || notices(serve).map(|notices| notices.outbox),
    };
    let replayed = Projector::new(pool, name.build(&settings)?, StoreMetrics::unregistered())
        .rebuild()
        .await?;
    tracing::info!(projector, replayed, "read model rebuilt");
    Ok(())
}

/// The league projection with the configured skill model.
fn league(args: &ServeArgs) -> League {
    League {
        model: SkillModel::with_tau(args.skill_tau),
    }
}

/// `warlog serve`: discovery, migrations, projectors, HTTP; stops cleanly on SIGTERM or
/// Ctrl-C, stopping the private cluster too if it started one.
/// Serves until SIGTERM or Ctrl-C; with `demo`, fills an empty database once listening.
/// The limits on odds: per client, at once, and whose word names the client.
fn rate_limits(args: &ServeArgs) -> Result<warlog_api::rate_limit::RateLimits, CliError> {
    use warlog_api::rate_limit::{ComputeSlots, RateLimit, RateLimits, TrustedProxies};
    Ok(RateLimits {
        odds: RateLimit::per_minute(args.odds_per_minute),
        computing: args
            .odds_at_once
            .map_or_else(ComputeSlots::per_core, ComputeSlots::at_most),
        proxies: TrustedProxies::try_from(args.trusted_proxies.as_slice())
            .map_err(|e| CliError::Other(format!("--trusted-proxies: {e}")))?,
    })
}

/// The dice tables' settings and limits; `mail`: whether the service sends mail.
pub fn dice_tables(
    args: &ServeArgs,
    mail: bool,
) -> Result<warlog_api::dice_tables::DiceTables, CliError> {
    use warlog_api::dice_tables::{DiceSettings, DiceTables, MailDomains, Registration};
    let registration = Registration::try_from(args.dice_registration.as_str())
        .map_err(|e| CliError::Other(format!("--dice-registration: {e}")))?;
    if registration == Registration::On && !mail {
        return Err(CliError::Other(
            "--dice-registration on needs --smtp-url: addresses are confirmed by mail".to_owned(),
        ));
    }
    let mail_domains = MailDomains::try_from(args.dice_mail_domains.as_slice())
        .map_err(|e| CliError::Other(format!("--dice-mail-domains: {e}")))?;
    if mail && mail_domains == MailDomains::None {
        tracing::info!("dice rolls are not mailed: no --dice-mail-domains allows an address");
    }
    if registration == Registration::On && mail_domains == MailDomains::None {
        return Err(CliError::Other(
            "--dice-registration on needs --dice-mail-domains: an address is registered by \
             a link mailed to it, and no domain is mailed"
                .to_owned(),
        ));
    }
    if !mail && mail_domains != MailDomains::None {
        tracing::warn!("--dice-mail-domains without --smtp-url: no dice roll is mailed");
    }
    Ok(DiceTables::new(
        DiceSettings {
            idle_seconds: args.dice_reveal_idle_h.saturating_mul(3600),
            mail,
            mail_domains,
        },
        args.dice_rolls_per_minute,
        args.dice_table_rolls_per_minute,
    )
    .mails_per_address(args.dice_mails_per_address)
    .with_registration(registration))
}

pub async fn serve(db: &DatabaseArgs, args: &ServeArgs, demo: bool) -> Result<(), CliError> {
    let (server, config) = open_database(db).await?;
    let result = serve_on(db, args, &config, demo).await;
    server.shutdown().await;
    result
}

async fn serve_on(
    db: &DatabaseArgs,
    args: &ServeArgs,
    config: &tokio_postgres::Config,
    demo: bool,
) -> Result<(), CliError> {
    let public_url = public_url(args)?;
    let Notices { outbox, mailer } = notices(args)?;
    let applied = prepare_database(config, db).await?;
    if !applied.is_empty() {
        tracing::info!(?applied, "migrations applied");
    }
    let ServiceLogin {
        pool,
        config: login,
    } = service_login(config, db).await?;
    let telemetry = Telemetry::new().map_err(|e| CliError::Other(e.to_string()))?;
    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let notifier = Notifier::spawn(pool.clone(), shutdown_rx.clone());
    let store = EventStore::new(pool.clone(), telemetry.store.clone()).with_notifier(notifier);
    let mut state = AppState::new(store, &telemetry);
    if let Some(url) = &db.read_database_url {
        let (config, _) = warlog_store::tls::parse_database_url(url).map_err(CliError::Other)?;
        state.reads = Some(connect_pool(config, &pool_options(db)).await?);
        tracing::info!("board views may read from the standby");
    }
    state.cors_origins = std::sync::Arc::new(args.cors_origins.clone());
    state.public_url = public_url.clone();
    state.rate_limits = std::sync::Arc::new(rate_limits(args)?);
    state.ladders = std::sync::Arc::new(warlog_api::ladder_cache::LadderCache::new(
        Duration::from_millis(args.ladder_head_max_age_ms),
    ));
    let webhooks = webhook_policy(args)?;
    state.webhooks = std::sync::Arc::new(webhooks.clone());
    state.dice = std::sync::Arc::new(dice_tables(args, outbox.mail)?);
    let mut outbox = outbox;
    let intake = mail_intake(args, mailer.as_ref())?;
    let replies = match &intake {
        Some(intake) => Some(std::sync::Arc::new(warlog_store::webhooks::TurnReplies {
            key: warlog_api::mail_in::reply_key(&pool).await?,
            domain: intake.reply_domain.clone(),
        })),
        None => None,
    };
    outbox.replies = replies.clone();
    state.mail_desk = std::sync::Arc::new(warlog_api::mail_desk::MailDesk {
        reports: mailer.is_some(),
        replies,
        public_url: public_url.clone(),
        authserv_id: args.mail_authserv_id.clone(),
        max_message_bytes: args.mail_max_kb.max(1).saturating_mul(1024),
        ..Default::default()
    });
    if intake.is_some() && args.mail_authserv_id.is_none() {
        tracing::warn!("no --mail-authserv-id: DMARC is not checked, and a turn by mail is taken on its reply address and its sender's address alone (docs/operations.md, \"Turns by mail\")");
    }
    let mail_tasks = match intake {
        Some(intake) => spawn_mail_intake(intake, &state, &telemetry, &shutdown_rx).await?,
        None => Vec::new(),
    };

    let projectors = spawn_projectors(args, &pool, outbox, &telemetry, &login, &shutdown_rx)?;
    reseal_webhook_secrets(&pool, &webhooks.keys).await;
    let sender = warlog_api::webhooks::spawn_sender(
        pool.clone(),
        warlog_api::webhooks::SenderSettings {
            retry_base: Duration::from_millis(args.webhook_retry_base_ms.max(1)),
            retry_max: Duration::from_secs(args.webhook_retry_max_s.max(1)),
            timeout: Duration::from_secs(args.webhook_timeout_s.max(1)),
            max_attempts: i32::try_from(args.webhook_max_attempts.max(1)).unwrap_or(i32::MAX),
            max_age: Duration::from_secs(args.webhook_max_age_h.max(1).saturating_mul(3600)),
            pause_after: i32::try_from(args.webhook_pause_after.max(1)).unwrap_or(i32::MAX),
            policy: webhooks,
            ..Default::default()
        },
        telemetry.webhooks.clone(),
        shutdown_rx.clone(),
    )
    .map_err(|e| CliError::Other(format!("cannot start the webhook sender: {e}")))?;
    let mail_sender = mailer.map(|mailer| {
        tracing::info!(smtp = %mailer.settings().smtp, from = %mailer.settings().from, "\"your move\" mails go out through this server");
        warlog_api::mail::spawn_mailer(pool.clone(), mailer, shutdown_rx.clone())
    });

    let app_telemetry = telemetry.clone();
    // The demo writes through a server of its own on this state, its clock set back.
    let demo_state = demo.then(|| (state.clone(), telemetry.clone()));
    let mut http = HttpServer::new(move || warlog_api::app(state.clone(), &app_telemetry))
        .disable_signals()
        .shutdown_timeout(10);
    if let Some(workers) = args.workers {
        http = http.workers(workers.max(1));
    }
    let http = http
        .bind(&args.bind)
        .map_err(|e| CliError::Other(format!("cannot listen on {}: {e}", args.bind)))?;
    if let Some((state, telemetry)) = demo_state {
        let mut addr = *http
            .addrs()
            .first()
            .ok_or_else(|| CliError::Other("listening nowhere".to_owned()))?;
        if addr.ip().is_unspecified() {
            addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        let owner = config.clone();
        tokio::spawn(async move {
            if let Err(e) = demo::fill(&state, &telemetry, &owner, addr).await {
                tracing::error!("the demo could not fill the database: {e}");
            }
        });
    }
    let http = http.run();
    let handle = http.handle();
    tracing::info!(
        "warlog listening on http://{} (docs at /docs, metrics at /metrics)",
        args.bind
    );
    tokio::spawn(async move {
        wait_for_stop_signal().await;
        tracing::info!("stop signal received; finishing requests in flight");
        handle.stop(true).await;
    });
    let served = http.await;
    let _ = shutdown_tx.send(true);
    for projector in projectors {
        let _ = projector.await;
    }
    let _ = sender.join();
    if let Some(mail_sender) = mail_sender {
        let _ = mail_sender.await;
    }
    for task in mail_tasks {
        let _ = task.await;
    }
    pool.close();
    tracing::info!("warlog stopped");
    Ok(served?)
}

/// Takes turns by mail: the intake that decides what arrives, and the listener and the IMAP
/// reader that bring it in, as `intake` asks; each task stops on `shutdown`.
async fn spawn_mail_intake(
    intake: MailIntake,
    state: &AppState,
    telemetry: &Telemetry,
    shutdown: &watch::Receiver<bool>,
) -> Result<Vec<tokio::task::JoinHandle<()>>, CliError> {
    let pool = state.store.pool();
    let doorbell = std::sync::Arc::new(warlog_api::mail_in::Doorbell::counting(
        telemetry.mail.clone(),
    ));
    let mut mail_tasks = vec![warlog_api::mail_in::spawn_intake(
        state.clone(),
        doorbell.clone(),
        Duration::from_secs(2),
        shutdown.clone(),
    )];
    if let Some(listen) = &intake.listen {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| CliError::Other(format!("--mail-listen {listen}: {e}")))?;
        tracing::info!(
            "taking mail (LMTP and SMTP) on {}",
            listener
                .local_addr()
                .map_or_else(|_| listen.clone(), |a| a.to_string())
        );
        mail_tasks.push(warlog_api::mail_in::listener::spawn_listener(
            listener,
            pool.clone(),
            doorbell.clone(),
            warlog_api::mail_in::listener::ListenerSettings {
                max_message_bytes: state.mail_desk.max_message_bytes,
                ..Default::default()
            },
            shutdown.clone(),
        ));
    }
    if let Some(imap) = intake.imap {
        mail_tasks.push(warlog_api::mail_in::imap::spawn_imap(
            pool.clone(),
            doorbell.clone(),
            imap,
            shutdown.clone(),
        ));
    }
    Ok(mail_tasks)
}

/// Seals the webhook secrets with the key given, so that a key the operator changed is the
/// one in use from this start on; what fails is logged and tried again at the next start.
async fn reseal_webhook_secrets(
    pool: &deadpool_postgres::Pool,
    keys: &warlog_api::webhooks::SecretKeys,
) {
    match warlog_api::webhooks::reseal_secrets(pool, keys).await {
        Ok(done) if done.unreadable > 0 => tracing::warn!(
            resealed = done.resealed,
            unreadable = done.unreadable,
            "some webhook secrets were sealed with a key this service does not have: their deliveries fail until they are registered again"
        ),
        Ok(done) if done.resealed > 0 => {
            tracing::info!(resealed = done.resealed, "webhook secrets sealed with the key")
        }
        Ok(_) => {}
        Err(error) => tracing::warn!(%error, "webhook secrets not resealed; trying at the next start"),
    }
}

/// A projector for every projection (`warlog_store::projections`), each woken by a
/// listener of its own on the service's login and stopping on `shutdown`.
fn spawn_projectors(
    args: &ServeArgs,
    pool: &deadpool_postgres::Pool,
    outbox: WebhookOutbox,
    telemetry: &Telemetry,
    login: &tokio_postgres::Config,
    shutdown: &watch::Receiver<bool>,
) -> Result<Vec<tokio::task::JoinHandle<()>>, CliError> {
    let poll = Duration::from_millis(args.projector_poll_ms.max(10));
    let settings = ProjectionSettings {
        league: league(args),
        outbox: || Ok::<_, CliError>(outbox.clone()),
    };
    let mut projectors = Vec::new();
    for name in ProjectionName::ALL {
        let projection = Projector::new(
            pool.clone(),
            name.build(&settings)?,
            telemetry.store.clone(),
        );
        let wake = spawn_listener(login.clone(), shutdown.clone());
        projectors.push(tokio::spawn(projection.run(wake, shutdown.clone(), poll)));
    }
    Ok(projectors)
}

/// `--public-url`, checked.
fn public_url(args: &ServeArgs) -> Result<Option<warlog_api::public_url::PublicUrl>, CliError> {
    args.public_url
        .as_deref()
        .map(warlog_api::public_url::PublicUrl::try_from)
        .transpose()
        .map_err(|e| CliError::Other(e.to_string()))
}

/// How the service tells people what happens: the outbox projection (its links absolute
/// with the public address; mails made only when they are sent) and the mailer.
#[derive(Debug)]
pub struct Notices {
    pub outbox: WebhookOutbox,
    pub mailer: Option<warlog_api::mail::Mailer>,
}

/// The notices the options configure.
pub fn notices(args: &ServeArgs) -> Result<Notices, CliError> {
    let mailer = mailer(args)?;
    Ok(Notices {
        outbox: WebhookOutbox {
            public_url: public_url(args)?.map(|url| url.to_string()),
            mail: mailer.is_some(),
            replies: None,
        },
        mailer,
    })
}

/// Turns by mail, as the options configure them: where replies come from (IMAP, the
/// listener) and the domain of their address.
#[derive(Debug)]
pub struct MailIntake {
    pub reply_domain: String,
    pub listen: Option<String>,
    pub imap: Option<warlog_api::mail_in::imap::ImapSettings>,
}

/// The intake the options configure: none without `--imap-url` or `--mail-listen`; with
/// either, the service must send mail (the reply address comes with its mails).
pub fn mail_intake(
    args: &ServeArgs,
    mailer: Option<&warlog_api::mail::Mailer>,
) -> Result<Option<MailIntake>, CliError> {
    use warlog_api::mail_in::imap::{ImapSettings, ImapUrl};
    let imap = secret(args.imap_url.as_deref(), args.imap_url_file.as_deref())?;
    if imap.is_none() && args.mail_listen.is_none() {
        return Ok(None);
    }
    let Some(mailer) = mailer else {
        return Err(CliError::Other(
            "--imap-url and --mail-listen need --smtp-url and --mail-from: players reply to \
             the service's mails"
                .to_owned(),
        ));
    };
    let reply_domain = match &args.mail_reply_domain {
        Some(domain) => {
            let domain = domain.trim().trim_start_matches('@').to_ascii_lowercase();
            if domain.is_empty()
                || !domain.contains('.') && domain != "localhost"
                || domain
                    .chars()
                    .any(|c| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
            {
                return Err(CliError::Other(
                    "--mail-reply-domain: a domain name, such as league.example".to_owned(),
                ));
            }
            domain
        }
        None => mailer.settings().from.domain().to_ascii_lowercase(),
    };
    let imap = imap
        .map(|url| -> Result<ImapSettings, CliError> {
            let url = ImapUrl::try_from(url.trim()).map_err(CliError::Other)?;
            let mut settings = ImapSettings::new(url);
            settings.ca_file = args.imap_ca_file.clone();
            settings.poll = Duration::from_secs(args.imap_poll_s.max(1));
            settings.max_message_bytes = args.mail_max_kb.max(1).saturating_mul(1024);
            Ok(settings)
        })
        .transpose()?;
    Ok(Some(MailIntake {
        reply_domain,
        listen: args.mail_listen.clone(),
        imap,
    }))
}

/// The mailer the options configure: none without `--smtp-url` (no mail is sent, and none
/// queued); with it, `--mail-from` is needed.
fn mailer(args: &ServeArgs) -> Result<Option<warlog_api::mail::Mailer>, CliError> {
    use warlog_api::mail::{MailFrom, MailSettings, Mailer, SmtpUrl};
    let Some(url) = secret(args.smtp_url.as_deref(), args.smtp_url_file.as_deref())? else {
        if args.mail_from.is_some() {
            tracing::warn!("--mail-from without --smtp-url: no mail is sent");
        }
        return Ok(None);
    };
    let smtp = SmtpUrl::try_from(url.trim()).map_err(CliError::Other)?;
    let from = args
        .mail_from
        .as_deref()
        .ok_or_else(|| {
            CliError::Other(
                "--smtp-url needs --mail-from (WARLOG_MAIL_FROM), the mails' sender".to_owned(),
            )
        })
        .and_then(|from| MailFrom::try_from(from).map_err(CliError::Other))?;
    let mut settings = MailSettings::new(smtp, from);
    settings.max_attempts = i32::try_from(args.mail_max_attempts.max(1)).unwrap_or(i32::MAX);
    settings.max_age = Duration::from_secs(args.mail_max_age_h.max(1).saturating_mul(3600));
    Mailer::new(settings).map(Some).map_err(CliError::Other)
}

/// Where webhooks may go, the key their secrets are sealed with, and the cap, from the
/// options.
fn webhook_policy(args: &ServeArgs) -> Result<warlog_api::webhooks::WebhookPolicy, CliError> {
    use warlog_api::webhooks::{AllowList, Guard, SecretKeys, WebhookPolicy};
    let allow = AllowList::try_from(args.webhook_allow.as_slice()).map_err(CliError::Other)?;
    if !allow.is_empty() {
        tracing::info!(allowed = %args.webhook_allow.join(","), "webhooks may reach these internal receivers");
    }
    let keys = match secret(
        args.webhook_key.as_deref(),
        args.webhook_key_file.as_deref(),
    )? {
        Some(key) => SecretKeys::from_hex(&key).map_err(CliError::Other)?,
        None => {
            tracing::warn!(
                "no WARLOG_WEBHOOK_KEY: webhook secrets are sealed with the public development key, which keeps them from no one who can read the database; set a key (docs/operations.md)"
            );
            SecretKeys::development()
        }
    };
    Ok(WebhookPolicy {
        guard: Guard::new(allow),
        keys,
        max_per_owner: args.webhook_max_per_owner,
    })
}

async fn wait_for_stop_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(_) => {
                    let _ = ctrl_c.await;
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}

#[cfg(test)]
mod secrets {
    use super::secret;

    #[test]
    fn a_password_file_gives_its_text_without_the_one_trailing_newline() {
        let dir = std::env::temp_dir().join(format!("warlog-secret-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a directory");
        let file = dir.join("password");
        std::fs::write(&file, "s3cret \n\n").expect("written");
        let read = secret(None, Some(&file)).expect("read");
        assert_eq!(read.as_deref(), Some("s3cret \n"));
        std::fs::write(&file, "s3cret\r\n").expect("written");
        assert_eq!(
            secret(None, Some(&file)).expect("read").as_deref(),
            Some("s3cret")
        );
        // A value given in clear is taken as it is, and nothing given is no password.
        assert_eq!(
            secret(Some("clear"), None).expect("read").as_deref(),
            Some("clear")
        );
        assert_eq!(secret(None, None).expect("read"), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_password_file_that_cannot_be_read_is_named_in_the_error() {
        let missing = std::path::Path::new("/nonexistent/warlog/password");
        let error = secret(None, Some(missing)).expect_err("no such file");
        assert!(
            error
                .to_string()
                .starts_with("cannot read /nonexistent/warlog/password"),
            "{error}"
        );
    }
}

#[cfg(test)]
mod notice_options {
    use clap::Parser;

    use super::{mail_intake, notices};
    use crate::cli::Cli;

    fn parse(args: &[&str]) -> Cli {
        Cli::parse_from(std::iter::once("warlog").chain(args.iter().copied()))
    }

    #[test]
    fn turns_by_mail_need_mail_going_out_a_domain_and_imap_over_tls_elsewhere() {
        let intake = |args: &[&str]| {
            let cli = parse(args);
            let mailer = notices(&cli.serve).expect("notices").mailer;
            mail_intake(&cli.serve, mailer.as_ref())
        };
        let out = [
            "--smtp-url",
            "smtp://127.0.0.1:2525",
            "--mail-from",
            "League <warlog@league.example>",
        ];
        assert!(intake(&[]).expect("no intake").is_none());
        let alone = intake(&["--mail-listen", "127.0.0.1:2424"]).expect_err("no mail out");
        assert!(alone.to_string().contains("--smtp-url"), "{alone}");
        let listening = intake(&[&out[..], &["--mail-listen", "127.0.0.1:2424"]].concat())
            .expect("an intake")
            .expect("on");
        assert_eq!(
            listening.reply_domain, "league.example",
            "--mail-from's domain"
        );
        let domain = intake(
            &[
                &out[..],
                &[
                    "--mail-listen",
                    "x:1",
                    "--mail-reply-domain",
                    "not a domain",
                ],
            ]
            .concat(),
        )
        .expect_err("a bad domain");
        assert!(
            domain.to_string().starts_with("--mail-reply-domain"),
            "{domain}"
        );
        let plain = intake(
            &[
                &out[..],
                &["--imap-url", "imap://turn:pw@mail.club.example/INBOX"],
            ]
            .concat(),
        )
        .expect_err("a password in the clear");
        assert!(plain.to_string().contains("imaps://"), "{plain}");
        let imap = intake(
            &[
                &out[..],
                &[
                    "--imap-url",
                    "imaps://turn%40club.example:pw@mail.club.example",
                ],
            ]
            .concat(),
        )
        .expect("an intake")
        .expect("on");
        assert!(imap.imap.is_some() && imap.listen.is_none());
    }

    #[test]
    fn mail_needs_a_server_and_a_sender_and_without_a_server_none_is_queued() {
        let quiet = notices(&parse(&[]).serve).expect("no mail is no error");
        assert!(quiet.mailer.is_none() && !quiet.outbox.mail);
        assert_eq!(quiet.outbox.public_url, None);

        let no_sender = notices(&parse(&["--smtp-url", "smtp://127.0.0.1:2525"]).serve)
            .expect_err("a server without a sender");
        assert!(no_sender.to_string().contains("--mail-from"), "{no_sender}");
        let bad_url = notices(
            &parse(&[
                "--smtp-url",
                "http://mail.club.example",
                "--mail-from",
                "a@b.example",
            ])
            .serve,
        )
        .expect_err("not an SMTP URL");
        assert!(bad_url.to_string().starts_with("--smtp-url"), "{bad_url}");

        let on = notices(
            &parse(&[
                "--smtp-url",
                "smtps://league:s3cret@mail.club.example",
                "--mail-from",
                "League <warlog@club.example>",
                "--public-url",
                "https://league.example/",
            ])
            .serve,
        )
        .expect("configured");
        assert!(on.outbox.mail);
        assert_eq!(
            on.outbox.public_url.as_deref(),
            Some("https://league.example")
        );
        let shown = format!("{:?}", on.mailer.expect("a mailer"));
        assert!(!shown.contains("s3cret"), "{shown}");
    }
}
