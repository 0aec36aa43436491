//! The listener for operators who run a mail server (`--mail-listen ADDR`): it speaks LMTP
//! (RFC 2033, what Postfix's and Exim's local delivery speak) and SMTP on one port, the
//! client's greeting (`LHLO` or `EHLO`/`HELO`) choosing which. Commands and the message's
//! dot-stuffing are parsed by `smtp-proto`; what is here is the conversation. A message is
//! acknowledged (250) only once it is kept in the inbox; a message over the size limit is
//! refused in words (552), and a database away is a temporary failure (451), which the
//! mail server retries.

use std::sync::Arc;
use std::time::Duration;

use smtp_proto::request::receiver::DataReceiver;
use smtp_proto::{MailFrom, RcptTo, Request};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use warlog_store::inbox::{keep_message, Channel};
use warlog_store::Pool;

use super::incoming::message_key;
use super::Doorbell;

/// How the listener works.
#[derive(Debug, Clone)]
pub struct ListenerSettings {
    /// The largest message taken, in bytes.
    pub max_message_bytes: usize,
    /// Conversations at once; more wait for a place.
    pub max_connections: usize,
    /// Recipients one message may have.
    pub max_recipients: usize,
    /// How long the listener waits for a command, or for the next part of a message.
    pub idle: Duration,
    /// How long one message's DATA may take, however it trickles in.
    pub data_time: Duration,
    /// How long one conversation may last.
    pub conversation_time: Duration,
    /// The name the listener greets with.
    pub hostname: String,
}

impl Default for ListenerSettings {
    fn default() -> Self {
        ListenerSettings {
            max_message_bytes: 256 * 1024,
            max_connections: 32,
            max_recipients: 20,
            idle: Duration::from_secs(120),
            data_time: Duration::from_secs(600),
            conversation_time: Duration::from_secs(1800),
            hostname: "warlog".to_owned(),
        }
    }
}

/// The longest command line taken (RFC 5321 says 512; extensions make it longer).
const MAX_COMMAND: usize = 2048;

/// Serves on `listener` until `stop` turns true.
pub fn spawn_listener(
    listener: TcpListener,
    pool: Pool,
    doorbell: Arc<Doorbell>,
    settings: ListenerSettings,
    mut stop: watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    let places = Arc::new(Semaphore::new(settings.max_connections.max(1)));
    let settings = Arc::new(settings);
    tokio::spawn(async move {
        loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                _ = stop.changed() => break,
            };
            let Ok((socket, _)) = accepted else { continue };
            // Replies are whole lines, each a write of its own: none waits for more.
            let _ = socket.set_nodelay(true);
            let Ok(place) = places.clone().try_acquire_owned() else {
                // Every place taken: the mail server is told to come back, not kept waiting.
                tokio::spawn(async move {
                    let mut socket = socket;
                    let _ = reply(
                        &mut socket,
                        "421 4.3.2 too many conversations; try again later",
                    )
                    .await;
                });
                continue;
            };
            let (pool, doorbell, settings) = (pool.clone(), doorbell.clone(), settings.clone());
            tokio::spawn(async move {
                let _place = place;
                let (read, write) = socket.into_split();
                let conversation = converse(read, write, &pool, &doorbell, &settings);
                match tokio::time::timeout(settings.conversation_time, conversation).await {
                    Ok(Err(error)) => tracing::debug!(%error, "a mail conversation ended early"),
                    Err(_) => tracing::debug!("a mail conversation went on too long; closed"),
                    Ok(Ok(())) => {}
                }
            });
        }
    })
}

/// One message's envelope as the client gives it.
#[derive(Default)]
struct Envelope {
    from: Option<String>,
    recipients: Vec<String>,
}

impl Envelope {
    /// MAIL FROM's reply: the sender kept, once, when the size it announces is within the
    /// limit.
    fn mail_from(&mut self, from: MailFrom<String>, settings: &ListenerSettings) -> String {
        if self.from.is_some() {
            "503 5.5.1 a sender is given already".to_owned()
        } else if from.size > settings.max_message_bytes {
            let limit = settings.max_message_bytes;
            format!("552 5.3.4 the message is over warlog's limit of {limit} bytes: send the turn as plain text")
        } else {
            self.from = Some(from.address);
            "250 2.1.0 sender ok".to_owned()
        }
    }

    /// RCPT TO's reply: a reply address kept, after the sender and up to the most
    /// recipients.
    fn rcpt_to(&mut self, to: RcptTo<String>, settings: &ListenerSettings) -> String {
        if self.from.is_none() {
            "503 5.5.1 MAIL FROM first".to_owned()
        } else if self.recipients.len() >= settings.max_recipients {
            "452 4.5.3 too many recipients".to_owned()
        } else if !is_reply_address(&to.address) {
            "550 5.1.1 no such mailbox: warlog takes replies to its turn mails (turn+...)"
                .to_owned()
        } else {
            self.recipients.push(to.address.to_lowercase());
            "250 2.1.5 recipient ok".to_owned()
        }
    }
}

/// A conversation, from the greeting to QUIT (or the client gone, or idle too long).
async fn converse<R, W>(
    read: R,
    mut write: W,
    pool: &Pool,
    doorbell: &Doorbell,
    settings: &ListenerSettings,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut read = BufReader::new(read);
    let host = &settings.hostname;
    reply(&mut write, &format!("220 {host} warlog ready")).await?;
    let mut channel: Option<Channel> = None;
    let mut envelope = Envelope::default();
    let mut line = Vec::new();
    loop {
        line.clear();
        let got = tokio::time::timeout(
            settings.idle,
            AsyncReadExt::take(&mut read, MAX_COMMAND as u64 + 1).read_until(b'\n', &mut line),
        )
        .await;
        let Ok(got) = got else {
            return reply(&mut write, "421 4.4.2 idle too long; closing").await;
        };
        if got? == 0 {
            return Ok(());
        }
        if !line.ends_with(b"\n") {
            reply(&mut write, "500 5.5.2 the line is too long").await?;
            return Ok(());
        }
        let request = Request::parse(&mut line.iter()).map(|r| r.into_owned());
        match request {
            Ok(request @ (Request::Lhlo { .. } | Request::Ehlo { .. })) => {
                channel = Some(if matches!(request, Request::Lhlo { .. }) {
                    Channel::Lmtp
                } else {
                    Channel::Smtp
                });
                envelope = Envelope::default();
                let size = settings.max_message_bytes;
                reply(
                    &mut write,
                    &format!("250-{host}\r\n250-PIPELINING\r\n250-8BITMIME\r\n250-ENHANCEDSTATUSCODES\r\n250 SIZE {size}"),
                )
                .await?;
            }
            Ok(Request::Helo { .. }) => {
                channel = Some(Channel::Smtp);
                envelope = Envelope::default();
                reply(&mut write, &format!("250 {host}")).await?;
            }
            Ok(Request::Rset) => {
                envelope = Envelope::default();
                reply(&mut write, "250 2.0.0 reset").await?;
            }
            Ok(Request::Noop { .. }) => reply(&mut write, "250 2.0.0 ok").await?,
            Ok(Request::Quit) => return reply(&mut write, "221 2.0.0 bye").await,
            Ok(_) if channel.is_none() => {
                reply(&mut write, "503 5.5.1 say LHLO (or EHLO) first").await?;
            }
            Ok(Request::Mail { from }) => {
                let answer = envelope.mail_from(from, settings);
                reply(&mut write, &answer).await?;
            }
            Ok(Request::Rcpt { to }) => {
                let answer = envelope.rcpt_to(to, settings);
                reply(&mut write, &answer).await?;
            }
            Ok(Request::Data) => {
                if envelope.recipients.is_empty() {
                    reply(&mut write, "503 5.5.1 no valid recipients").await?;
                    continue;
                }
                reply(&mut write, "354 end the message with a dot alone on a line").await?;
                let received = receive(&mut read, settings).await?;
                let return_path = envelope.from.clone().unwrap_or_default();
                let answer = match received {
                    Received::TooLarge => format!(
                        "552 5.3.4 the message is over warlog's limit of {} bytes: send the turn as plain text",
                        settings.max_message_bytes
                    ),
                    Received::Idle => {
                        return reply(&mut write, "421 4.4.2 idle too long; closing").await
                    }
                    Received::Endless => {
                        return reply(&mut write, &format!(
                            "552 5.3.4 the message is far over warlog's limit of {} bytes; closing",
                            settings.max_message_bytes
                        ))
                        .await
                    }
                    Received::Message(message) => {
                        let channel = channel.unwrap_or(Channel::Smtp);
                        let recipients = &envelope.recipients;
                        keep_received(pool, doorbell, channel, recipients, &return_path, &message)
                            .await
                    }
                };
                // LMTP answers once a recipient; SMTP once.
                let times = if channel == Some(Channel::Lmtp) {
                    envelope.recipients.len()
                } else {
                    1
                };
                let answers = vec![answer; times].join("\r\n");
                reply(&mut write, &answers).await?;
                envelope = Envelope::default();
            }
            Ok(Request::Vrfy { .. }) => {
                reply(&mut write, "252 2.1.5 cannot verify; send the mail").await?
            }
            Ok(Request::StartTls) => {
                reply(
                    &mut write,
                    "502 5.5.1 no TLS here: listen on a local address",
                )
                .await?
            }
            Ok(other) => {
                let name = other.name();
                reply(&mut write, &format!("502 5.5.1 {name} is not offered here")).await?
            }
            Err(_) => reply(&mut write, "500 5.5.2 command not understood").await?,
        }
    }
}

/// What DATA brought.
enum Received {
    Message(Vec<u8>),
    /// Over the limit: read to its end and dropped.
    TooLarge,
    /// So far over the limit that reading it to its end is not worth it: the conversation
    /// ends.
    Endless,
    Idle,
}

/// Reads a message up to its ending dot, undoing the dot-stuffing; past the size limit the
/// rest is read and dropped (up to four times the limit), so the conversation can go on.
/// The whole message must come within the DATA time, however slowly it trickles.
async fn receive<R: AsyncRead + Unpin>(
    read: &mut BufReader<R>,
    settings: &ListenerSettings,
) -> std::io::Result<Received> {
    let mut receiver = DataReceiver::new();
    // DATA's reply ended a line: the receiver is told so, so that a first line that is a
    // lone dot (an empty message) ends it and a first line's stuffed dot is undone.
    receiver.ingest(&mut b"\r\n".iter(), &mut Vec::new());
    let deadline = tokio::time::Instant::now() + settings.data_time;
    let mut message = Vec::new();
    let mut dropped = 0usize;
    loop {
        let wait = (tokio::time::Instant::now() + settings.idle).min(deadline);
        let chunk = match tokio::time::timeout_at(wait, read.fill_buf()).await {
            Err(_) => return Ok(Received::Idle),
            Ok(chunk) => chunk?,
        };
        if chunk.is_empty() {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let mut bytes = chunk.iter();
        let done = receiver.ingest(&mut bytes, &mut message);
        let used = chunk.len() - bytes.as_slice().len();
        read.consume(used);
        if message.len() > settings.max_message_bytes {
            dropped += message.len();
            message.clear();
            if dropped > settings.max_message_bytes.saturating_mul(4) {
                return Ok(Received::Endless);
            }
        }
        if done {
            return Ok(if dropped > 0 {
                Received::TooLarge
            } else {
                Received::Message(message)
            });
        }
    }
}

/// Whether `address` is one the service takes: a turn's reply address.
fn is_reply_address(address: &str) -> bool {
    let local = address.split('@').next().unwrap_or_default();
    // A control character (a NUL above all) is in no address the service gave, and the
    // inbox keeps recipients as text, which cannot hold a NUL.
    !address.chars().any(char::is_control)
        && local.len() > 5
        && local
            .get(..5)
            .is_some_and(|p| p.eq_ignore_ascii_case("turn+"))
}

/// The reply to a message received whole: kept in the inbox (and the decider woken), or a
/// temporary failure while the database is away, for the mail server to try again.
async fn keep_received(
    pool: &Pool,
    doorbell: &Doorbell,
    channel: Channel,
    recipients: &[String],
    return_path: &str,
    message: &[u8],
) -> String {
    // Final delivery records the envelope's sender (RFC 5321, 4.4): a bounce's null sender
    // is how it is known for one.
    let mut raw = format!("Return-Path: <{return_path}>\r\n").into_bytes();
    raw.extend_from_slice(message);
    match keep(pool, channel, recipients, &raw).await {
        Ok(()) => {
            doorbell.message_kept(channel);
            "250 2.0.0 kept; the turn is decided next".to_owned()
        }
        Err(error) => {
            tracing::warn!(%error, "a mail could not be kept; the mail server will try again");
            "451 4.3.0 cannot keep the message now; try again later".to_owned()
        }
    }
}

async fn keep(
    pool: &Pool,
    channel: Channel,
    recipients: &[String],
    raw: &[u8],
) -> Result<(), warlog_store::StoreError> {
    let client = pool.get().await?;
    keep_message(&client, &message_key(raw), channel, recipients, raw).await?;
    Ok(())
}

/// Writes one reply whole, in one write: a reply in pieces would wait on the client's
/// delayed acknowledgement.
async fn reply<W: AsyncWrite + Unpin>(write: &mut W, text: &str) -> std::io::Result<()> {
    write.write_all(format!("{text}\r\n").as_bytes()).await?;
    write.flush().await
}
