//! The IMAP reader (`--imap-url`): a mailbox the operator already has (a small association's
//! hosted mailbox), read with `async-imap` over TLS (`imaps://`, or plain `imap://` for a
//! server on the same host). Each message not yet marked is kept in the inbox; once the
//! intake has decided it, the reader marks it (the keyword `$WarlogDecided` and `\Seen`,
//! or `\Seen` alone where the server takes no keywords), so a message is marked only after
//! its decision is on the record. The reader waits with IDLE where the server offers it,
//! else polls, and is woken at once when the intake decides a message.

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_imap::types::Flag;
use futures_util::TryStreamExt;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::sync::watch;
use warlog_store::inbox::{keep_message, keep_oversized, kept_messages, Channel};
use warlog_store::Pool;

use super::incoming::{key_of_id, message_key};
use super::Doorbell;

/// Where the mailbox is: `imaps://user:password@host[:993]/MAILBOX` or
/// `imap://user:password@host[:143]/MAILBOX` (the mailbox `INBOX` when none is named; the
/// user and password percent-encoded). Shown without its password.
#[derive(Clone, PartialEq, Eq)]
pub struct ImapUrl {
    tls: bool,
    host: String,
    port: u16,
    user: String,
    password: String,
    mailbox: String,
}

impl TryFrom<&str> for ImapUrl {
    type Error = String;

    fn try_from(given: &str) -> Result<Self, Self::Error> {
        let url = url::Url::parse(given)
            .map_err(|_| "--imap-url: not a URL (imaps://user:password@host/INBOX)".to_owned())?;
        let tls = match url.scheme() {
            "imaps" => true,
            "imap" => false,
            _ => return Err("--imap-url: the scheme is imaps (or imap)".to_owned()),
        };
        let host = url
            .host_str()
            .filter(|h| !h.is_empty())
            .ok_or("--imap-url: it names no host")?
            .trim_matches(['[', ']'])
            .to_owned();
        let loopback = host == "localhost"
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        if !tls && !loopback {
            return Err(
                "--imap-url: imap:// would send the password in the clear; use imaps:// \
                 (imap:// is for a server on this host)"
                    .to_owned(),
            );
        }
        let decode = |s: &str| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8_lossy()
                .into_owned()
        };
        let user = decode(url.username());
        if user.is_empty() {
            return Err("--imap-url: it names no user (imaps://user:password@host)".to_owned());
        }
        let password = decode(url.password().unwrap_or_default());
        let mailbox = decode(url.path().trim_start_matches('/'));
        Ok(ImapUrl {
            tls,
            port: url.port().unwrap_or(if tls { 993 } else { 143 }),
            host,
            user,
            password,
            mailbox: if mailbox.is_empty() {
                "INBOX".to_owned()
            } else {
                mailbox
            },
        })
    }
}

impl fmt::Display for ImapUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = if self.tls { "imaps" } else { "imap" };
        write!(
            f,
            "{scheme}://{}@{}:{}/{}",
            self.user, self.host, self.port, self.mailbox
        )
    }
}

impl fmt::Debug for ImapUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ImapUrl({self})")
    }
}

/// How the reader works.
#[derive(Debug, Clone)]
pub struct ImapSettings {
    pub url: ImapUrl,
    /// A PEM file of the roots the server's certificate is checked against (a private
    /// server's own); without it, the Mozilla roots.
    pub ca_file: Option<PathBuf>,
    /// How often the mailbox is looked at without IDLE, and how long an IDLE lasts.
    pub poll: Duration,
    /// The largest message taken whole; a larger one keeps its header, to be answered.
    pub max_message_bytes: usize,
    /// How long connecting and each command may take.
    pub timeout: Duration,
}

impl ImapSettings {
    pub fn new(url: ImapUrl) -> Self {
        ImapSettings {
            url,
            ca_file: None,
            poll: Duration::from_secs(60),
            max_message_bytes: 256 * 1024,
            timeout: Duration::from_secs(60),
        }
    }
}

type ImapError = Box<dyn std::error::Error + Send + Sync>;

/// Reads the mailbox until `stop` turns true, connecting again after a failure (waiting
/// longer after each, up to ten minutes).
pub fn spawn_imap(
    pool: Pool,
    doorbell: Arc<Doorbell>,
    settings: ImapSettings,
    mut stop: watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut failures = 0;
        loop {
            if *stop.borrow() {
                break;
            }
            match connect_and_read(&pool, &doorbell, &settings, stop.clone()).await {
                Ok(()) => break,
                Err(error) => {
                    failures += 1;
                    tracing::warn!(url = %settings.url, %error, "the mailbox could not be read; connecting again");
                }
            }
            let wait = crate::retry::backoff(
                Duration::from_secs(2),
                Duration::from_secs(600),
                failures - 1,
            );
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = stop.changed() => {}
            }
        }
    })
}

async fn connect_and_read(
    pool: &Pool,
    doorbell: &Doorbell,
    settings: &ImapSettings,
    stop: watch::Receiver<bool>,
) -> Result<(), ImapError> {
    let url = &settings.url;
    let tcp = tokio::time::timeout(
        settings.timeout,
        TcpStream::connect((url.host.as_str(), url.port)),
    )
    .await??;
    if !url.tls {
        return read_mailbox(tcp, pool, doorbell, settings, stop).await;
    }
    let roots = warlog_store::tls::trust_roots(settings.ca_file.as_deref(), "--imap-ca-file")?;
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()?
    .with_root_certificates(roots)
    .with_no_client_auth();
    let name = rustls::pki_types::ServerName::try_from(url.host.clone())?;
    let tls = tokio::time::timeout(
        settings.timeout,
        tokio_rustls::TlsConnector::from(Arc::new(config)).connect(name, tcp),
    )
    .await??;
    read_mailbox(tls, pool, doorbell, settings, stop).await
}

/// A message found in the mailbox: its size, its key when its Message-ID gives it, and its
/// header.
struct Found {
    size: usize,
    key: Option<[u8; 32]>,
    header: Vec<u8>,
}

/// How decided messages are marked.
struct Marks {
    /// The search for messages not yet marked.
    search: &'static str,
    /// The flags a decided message is given.
    store: &'static str,
}

async fn read_mailbox<T>(
    stream: T,
    pool: &Pool,
    doorbell: &Doorbell,
    settings: &ImapSettings,
    mut stop: watch::Receiver<bool>,
) -> Result<(), ImapError>
where
    T: AsyncRead + AsyncWrite + Unpin + fmt::Debug + Send,
{
    let url = &settings.url;
    let mut client = async_imap::Client::new(stream);
    let timeout = settings.timeout;
    tokio::time::timeout(timeout, client.read_response())
        .await??
        .ok_or("the server closed the connection before its greeting")?;
    let mut session = tokio::time::timeout(timeout, client.login(&url.user, &url.password))
        .await?
        .map_err(|(error, _)| error)?;
    let mailbox = tokio::time::timeout(timeout, session.select(&url.mailbox)).await??;
    let keywords = mailbox
        .permanent_flags
        .iter()
        .any(|f| matches!(f, Flag::MayCreate));
    let marks = if keywords {
        Marks {
            search: "UNKEYWORD $WarlogDecided",
            store: "+FLAGS.SILENT ($WarlogDecided \\Seen)",
        }
    } else {
        Marks {
            search: "UNSEEN",
            store: "+FLAGS.SILENT (\\Seen)",
        }
    };
    let idle = tokio::time::timeout(timeout, session.capabilities())
        .await??
        .has_str("IDLE");
    tracing::info!(url = %url, idle, "reading the mailbox for turns");
    loop {
        tokio::time::timeout(
            timeout * 4,
            one_pass(&mut session, pool, doorbell, settings, &marks),
        )
        .await??;
        if *stop.borrow() {
            let _ = session.logout().await;
            return Ok(());
        }
        if idle {
            let mut handle = session.idle();
            tokio::time::timeout(timeout, handle.init()).await??;
            {
                let (wait, interrupt) = handle.wait_with_timeout(settings.poll);
                tokio::pin!(wait);
                let mut interrupt = Some(interrupt);
                loop {
                    tokio::select! {
                        done = &mut wait => { done?; break; }
                        _ = doorbell.wait_for_decisions(), if interrupt.is_some() => { interrupt.take(); }
                        _ = stop.changed(), if interrupt.is_some() => { interrupt.take(); }
                    }
                }
            }
            session = tokio::time::timeout(timeout, handle.done()).await??;
        } else {
            tokio::select! {
                _ = tokio::time::sleep(settings.poll) => {}
                _ = doorbell.wait_for_decisions() => {}
                _ = stop.changed() => {}
            }
        }
    }
}

/// Keeps every message not marked that the inbox does not hold yet, and marks those the
/// intake has decided.
async fn one_pass<T>(
    session: &mut async_imap::Session<T>,
    pool: &Pool,
    doorbell: &Doorbell,
    settings: &ImapSettings,
    marks: &Marks,
) -> Result<(), ImapError>
where
    T: AsyncRead + AsyncWrite + Unpin + fmt::Debug + Send,
{
    let mut uids: Vec<u32> = session
        .uid_search(marks.search)
        .await?
        .into_iter()
        .collect();
    if uids.is_empty() {
        return Ok(());
    }
    uids.sort_unstable();
    let set = uids
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    // Each message's size and header: its key, and whether it is taken whole.
    let mut found: BTreeMap<u32, Found> = BTreeMap::new();
    {
        let fetches: Vec<_> = session
            .uid_fetch(&set, "(UID RFC822.SIZE RFC822.HEADER)")
            .await?
            .try_collect()
            .await?;
        for fetch in fetches {
            let (Some(uid), Some(header)) = (fetch.uid, fetch.header()) else {
                continue;
            };
            let id = mail_parser::MessageParser::default()
                .parse_headers(header)
                .and_then(|m| m.message_id().map(key_of_id));
            let size = fetch.size.unwrap_or(0) as usize;
            found.insert(
                uid,
                Found {
                    size,
                    key: id,
                    header: header.to_vec(),
                },
            );
        }
    }
    let client = pool.get().await?;
    let known_keys: Vec<[u8; 32]> = found.values().filter_map(|f| f.key).collect();
    let kept = kept_messages(&client, &known_keys).await?;
    let mut decided = Vec::new();
    for (uid, Found { size, key, header }) in found {
        match key.and_then(|k| kept.get(&k)) {
            Some(true) => decided.push(uid),
            Some(false) => {}
            None if size > settings.max_message_bytes => {
                let key = key.unwrap_or_else(|| message_key(&header));
                if keep_oversized(&client, &key, Channel::Imap, &header).await? {
                    doorbell.message_kept(Channel::Imap);
                }
            }
            None => {
                let whole: Vec<_> = session
                    .uid_fetch(uid.to_string(), "(UID BODY.PEEK[])")
                    .await?
                    .try_collect()
                    .await?;
                let Some(raw) = whole.first().and_then(|f| f.body()) else {
                    continue;
                };
                let key = message_key(raw);
                if keep_message(&client, &key, Channel::Imap, &[], raw).await? {
                    doorbell.message_kept(Channel::Imap);
                } else if kept_messages(&client, &[key]).await?.get(&key) == Some(&true) {
                    // A message with no Message-ID is known by its whole text only.
                    decided.push(uid);
                }
            }
        }
    }
    if !decided.is_empty() {
        let set = decided
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let _: Vec<_> = session
            .uid_store(&set, marks.store)
            .await?
            .try_collect()
            .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_imap_url_names_a_host_and_a_user_and_hides_its_password() {
        let url = ImapUrl::try_from("imaps://league%40club.example:s3cret@mail.club.example/Turns")
            .expect("valid");
        assert_eq!(
            url.to_string(),
            "imaps://league@club.example@mail.club.example:993/Turns"
        );
        assert!(!format!("{url:?}").contains("s3cret"));
        let plain = ImapUrl::try_from("imap://turns:pw@127.0.0.1:1143").expect("valid");
        assert_eq!(plain.mailbox, "INBOX");
        assert_eq!(plain.port, 1143);
        for bad in [
            "http://x@host",
            "imaps://host/INBOX",
            "not a url",
            "imap://turns:pw@mail.club.example/INBOX",
        ] {
            assert!(ImapUrl::try_from(bad).is_err(), "{bad}");
        }
    }
}
