//! Standard mail clients for the mail tests: Python's smtplib speaking LMTP and SMTP to a
//! listener, and `RawMail`, the raw RFC 5322 replies players' mail programs send (UTF-8,
//! Latin-1 quoted-printable, base64, format=flowed, HTML only, attachment only, bounces).
//!
//! The clients run in a subprocess and are awaited, never waited on in the test's thread:
//! the listener they talk to runs on that thread's runtime. The raw message reaches Python
//! on its standard input and the server byte for byte (smtplib only dot-stuffs it).

use std::process::Stdio;
use std::time::Duration;

use base64::Engine;
use serde_json::Value;
use tokio::io::AsyncWriteExt;

/// How long one client conversation may take before it is called a failure.
const CLIENT_LIMIT: Duration = Duration::from_secs(120);

/// `python3 -c script args...` with `stdin` on its standard input; its standard output, or
/// why it failed (its standard error, or that it took too long).
pub(crate) async fn python(script: &str, args: &[String], stdin: &[u8]) -> Result<String, String> {
    let mut child = tokio::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("python3 does not start: {e}"))?;
    let mut input = child.stdin.take().expect("a piped stdin");
    let stdin = stdin.to_vec();
    let feeding = tokio::spawn(async move {
        let _ = input.write_all(&stdin).await;
        // Dropping `input` closes Python's standard input.
    });
    let out = tokio::time::timeout(CLIENT_LIMIT, child.wait_with_output())
        .await
        .map_err(|_| format!("python3 took over {CLIENT_LIMIT:?}"))?
        .map_err(|e| format!("python3: {e}"))?;
    let _ = feeding.await;
    if !out.status.success() {
        return Err(format!(
            "python3 failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The conversation both clients share; `lmtp` picks the protocol. Prints one JSON object:
/// `{"error": "..."}` when the conversation stops before DATA's end (connection, greeting,
/// MAIL FROM, DATA refused), else `{"replies": [[recipient, code, text], ...]}`: a refused
/// RCPT's reply, or the reply to DATA of that recipient (LMTP gives one per recipient
/// accepted, in RCPT order; SMTP one for all).
const CONVERSATION: &str = r#"
import json, smtplib, sys

lmtp, port, sender, recipients = sys.argv[1] == "lmtp", int(sys.argv[2]), sys.argv[3], json.loads(sys.argv[4])
raw = sys.stdin.buffer.read()

def text(reply):
    return reply.decode("utf-8", "replace") if isinstance(reply, bytes) else str(reply)

def done(answer):
    sys.stdout.write(json.dumps(answer))
    sys.exit(0)

try:
    client = smtplib.LMTP("127.0.0.1", port, timeout=60) if lmtp else smtplib.SMTP("127.0.0.1", port, timeout=60)
    code, reply = client.ehlo()
    if code != 250:
        if lmtp:
            done({"error": f"{code} {text(reply)}"})
        code, reply = client.helo()
        if code != 250:
            done({"error": f"{code} {text(reply)}"})
    options = ["BODY=8BITMIME"] if client.has_extn("8bitmime") and any(b > 127 for b in raw) else []
    code, reply = client.mail(sender, options)
    if code != 250:
        done({"error": f"{code} {text(reply)}"})
    replies, accepted = [], []
    for recipient in recipients:
        code, reply = client.rcpt(recipient)
        if code in (250, 251):
            accepted.append(len(replies))
        replies.append([recipient, code, text(reply)])
    if accepted:
        # The reply to the end of data: LMTP's first recipient's (then one per recipient
        # accepted), SMTP's for all.
        code, reply = client.data(raw)
        for n, index in enumerate(accepted):
            if lmtp and n > 0:
                code, reply = client.getreply()
            replies[index][1:] = [code, text(reply)]
    else:
        client.rset()
    try:
        client.quit()
    except Exception:
        pass
    done({"replies": replies})
except smtplib.SMTPResponseException as e:
    done({"error": f"{e.smtp_code} {text(e.smtp_error)}"})
except (OSError, smtplib.SMTPException) as e:
    done({"error": f"{type(e).__name__}: {e}"})
"#;

async fn converse(
    lmtp: bool,
    port: u16,
    from: &str,
    to: &[&str],
    raw: &[u8],
) -> Result<Vec<(String, u16, String)>, String> {
    let args = [
        if lmtp { "lmtp" } else { "smtp" }.to_owned(),
        port.to_string(),
        from.to_owned(),
        serde_json::to_string(to).expect("recipients as JSON"),
    ];
    let out = python(CONVERSATION, &args, raw).await?;
    let answer: Value =
        serde_json::from_str(&out).map_err(|e| format!("the client said {out:?}: {e}"))?;
    if let Some(error) = answer["error"].as_str() {
        return Err(error.to_owned());
    }
    Ok(answer["replies"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|reply| {
            (
                reply[0].as_str().unwrap_or_default().to_owned(),
                reply[1]
                    .as_u64()
                    .and_then(|c| u16::try_from(c).ok())
                    .unwrap_or(0),
                reply[2].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect())
}

/// `raw` from `from` (empty: the null sender `<>`, as bounces have) to each of `to`, over
/// LMTP to 127.0.0.1:`port` by Python's `smtplib.LMTP`: each recipient's reply (code and
/// text) in the order given, a refused RCPT's or its own reply to DATA. `Err` when the
/// conversation stops before that: no connection, the greeting, LHLO, MAIL FROM or DATA
/// refused (its code and text).
pub(crate) async fn lmtp_send(
    port: u16,
    from: &str,
    to: &[&str],
    raw: &[u8],
) -> Result<Vec<(String, u16, String)>, String> {
    converse(true, port, from, to, raw).await
}

/// `raw` from `from` to `to` over SMTP to 127.0.0.1:`port` by Python's `smtplib.SMTP`.
/// `Err` with the server's first refusal (code and text: greeting, EHLO and HELO, MAIL
/// FROM, any RCPT, DATA or the end of data), or why no conversation took place.
pub(crate) async fn smtp_send(
    port: u16,
    from: &str,
    to: &[&str],
    raw: &[u8],
) -> Result<(), String> {
    let replies = converse(false, port, from, to, raw).await?;
    match replies
        .iter()
        .find(|(_, code, _)| !(200..300).contains(code))
    {
        Some((_, code, text)) => Err(format!("{code} {text}")),
        None => Ok(()),
    }
}

/// How a `RawMail`'s body is written.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// text/plain, UTF-8, 8bit.
    Plain,
    /// text/plain, ISO-8859-1, quoted-printable.
    Latin1QuotedPrintable,
    /// text/plain, UTF-8, base64.
    Base64Utf8,
    /// text/plain, UTF-8, format=flowed (RFC 3676), long lines wrapped.
    Flowed,
    /// text/html only, UTF-8, quoted-printable.
    HtmlOnly,
    /// multipart/mixed holding one PDF attachment and no text.
    AttachmentOnly,
    /// A delivery status notification (RFC 3464).
    Bounce,
}

/// A raw RFC 5322 message as a player's mail program sends it, built for a test.
#[derive(Debug, Clone)]
pub(crate) struct RawMail {
    /// Headers other than the MIME ones, in order.
    headers: Vec<(String, String)>,
    /// Headers taken away, the generated MIME ones included.
    dropped: Vec<String>,
    kind: Kind,
    /// The text (or HTML) the body carries, before its encoding.
    text: String,
    /// The least size of the whole message, padded with filler lines after the text.
    at_least: usize,
}

/// Where format=flowed lines are wrapped: short, so that a turn's longer lines really arrive
/// in pieces a reader must join.
const FLOWED_WIDTH: usize = 40;

const BOUNDARY: &str = "=_warlog-test-boundary-7f3a";

impl RawMail {
    /// A reply as a mail program writes it: text/plain in UTF-8 (8bit), dated now. The
    /// message ids are taken with or without their angle brackets; `In-Reply-To` (and
    /// `References`) only when given. A non-ASCII subject is written as an RFC 2047 word.
    pub fn reply(
        from: &str,
        to: &str,
        subject: &str,
        message_id: &str,
        in_reply_to: Option<&str>,
        body_text: &str,
    ) -> Self {
        let date = time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc2822)
            .expect("a date");
        let mut headers = vec![
            ("From".to_owned(), from.to_owned()),
            ("To".to_owned(), to.to_owned()),
            ("Subject".to_owned(), encoded_word(subject)),
            ("Date".to_owned(), date),
            ("Message-ID".to_owned(), angled(message_id)),
        ];
        if let Some(parent) = in_reply_to {
            headers.push(("In-Reply-To".to_owned(), angled(parent)));
            headers.push(("References".to_owned(), angled(parent)));
        }
        RawMail {
            headers,
            dropped: Vec::new(),
            kind: Kind::Plain,
            text: body_text.to_owned(),
            at_least: 0,
        }
    }

    /// The body `text` in ISO-8859-1, quoted-printable (é is `=E9`). Panics on a character
    /// Latin-1 does not have.
    pub fn latin1_quoted_printable(mut self, text: &str) -> Self {
        assert!(
            text.chars().all(|c| u32::from(c) < 256),
            "not Latin-1: {text:?}"
        );
        self.kind = Kind::Latin1QuotedPrintable;
        self.text = text.to_owned();
        self
    }

    /// The body `text` in UTF-8, base64.
    pub fn base64_utf8(mut self, text: &str) -> Self {
        self.kind = Kind::Base64Utf8;
        self.text = text.to_owned();
        self
    }

    /// The body `text` as format=flowed (RFC 3676, DelSp=no): lines longer than 40 columns
    /// wrapped at spaces with soft breaks (a trailing space), lines starting with a space or
    /// `From ` space-stuffed, `>` lines kept as quotes, `-- ` kept.
    pub fn flowed(mut self, text: &str) -> Self {
        self.kind = Kind::Flowed;
        self.text = text.to_owned();
        self
    }

    /// No text part: the body is `html` only, text/html in UTF-8, quoted-printable.
    pub fn html_only(mut self, html: &str) -> Self {
        self.kind = Kind::HtmlOnly;
        self.text = html.to_owned();
        self
    }

    /// No text at all: multipart/mixed with one part, a PDF attachment (`turn.pdf`).
    pub fn with_attachment_only(mut self) -> Self {
        self.kind = Kind::AttachmentOnly;
        self
    }

    /// `Auto-Submitted: auto-replied`, as a vacation responder writes (RFC 3834).
    pub fn auto_submitted(self) -> Self {
        self.with_header("Auto-Submitted", "auto-replied")
    }

    /// A bounce: from `MAILER-DAEMON`, `Return-Path: <>`, multipart/report;
    /// report-type=delivery-status, saying the message to this mail's `From` failed
    /// (send it with the null sender, `""`). The `To` and threading headers stay.
    pub fn bounce(mut self) -> Self {
        let failed = self.header("From");
        self.kind = Kind::Bounce;
        self.text = failed;
        self.with_header(
            "From",
            "Mail Delivery System <MAILER-DAEMON@mx.players.example>",
        )
        .with_header("Subject", "Undelivered Mail Returned to Sender")
        .with_header("Return-Path", "<>")
    }

    /// Header `name` set to `value` (written as given), in place of any header of that
    /// name, the generated MIME ones included; else added at the end.
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.dropped.retain(|d| !d.eq_ignore_ascii_case(name));
        match self
            .headers
            .iter_mut()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            Some(header) => header.1 = value.to_owned(),
            None => self.headers.push((name.to_owned(), value.to_owned())),
        }
        self
    }

    /// No header `name` (a generated MIME one included).
    pub fn without_header(mut self, name: &str) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.dropped.push(name.to_owned());
        self
    }

    /// The whole message at least `n_bytes` long: filler lines after the text.
    pub fn oversized(mut self, n_bytes: usize) -> Self {
        self.at_least = n_bytes;
        self
    }

    /// A header's value as set (empty when absent).
    pub fn header(&self, name: &str) -> String {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    }

    /// The `Message-ID`, angle brackets included.
    pub fn message_id(&self) -> String {
        self.header("Message-ID")
    }

    /// The message as sent: headers, a blank line, the body; every line ended by CRLF.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut filler = 0;
        loop {
            let bytes = self.render(filler);
            if bytes.len() >= self.at_least {
                return bytes;
            }
            filler += (self.at_least - bytes.len()) / FILLER.len() + 1;
        }
    }

    fn render(&self, filler_lines: usize) -> Vec<u8> {
        let mut text = self.text.replace("\r\n", "\n");
        if filler_lines > 0 {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            for _ in 0..filler_lines {
                text.push_str(FILLER);
                text.push('\n');
            }
        }
        let (mime, body) = self.body(&text);
        let mut out = Vec::new();
        for (name, value) in &self.headers {
            out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
        }
        for (name, value) in mime {
            let overridden = self
                .headers
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case(name));
            let dropped = self.dropped.iter().any(|d| d.eq_ignore_ascii_case(name));
            if !overridden && !dropped {
                out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
            }
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&body);
        out
    }

    /// The MIME headers and the encoded body for `text`.
    fn body(&self, text: &str) -> (Vec<(&'static str, String)>, Vec<u8>) {
        let mime = |kind: &str, encoding: &str| {
            vec![
                ("MIME-Version", "1.0".to_owned()),
                ("Content-Type", kind.to_owned()),
                ("Content-Transfer-Encoding", encoding.to_owned()),
            ]
        };
        match self.kind {
            Kind::Plain => (
                mime("text/plain; charset=utf-8", "8bit"),
                crlf(text).into_bytes(),
            ),
            Kind::Latin1QuotedPrintable => {
                let latin1: Vec<u8> = text
                    .chars()
                    .map(|c| u8::try_from(u32::from(c)).expect("Latin-1"))
                    .collect();
                (
                    mime("text/plain; charset=iso-8859-1", "quoted-printable"),
                    quoted_printable(&latin1),
                )
            }
            Kind::Base64Utf8 => (
                mime("text/plain; charset=utf-8", "base64"),
                base64_lines(crlf(text).as_bytes()),
            ),
            Kind::Flowed => (
                mime("text/plain; charset=utf-8; format=flowed", "8bit"),
                crlf(&flow(text)).into_bytes(),
            ),
            Kind::HtmlOnly => (
                mime("text/html; charset=utf-8", "quoted-printable"),
                quoted_printable(text.as_bytes()),
            ),
            Kind::AttachmentOnly => {
                let pdf = format!(
                    "%PDF-1.4\n%\u{e2}\u{e3}\u{cf}\u{d3}\n1 0 obj << /Type /Catalog >> endobj\n{text}\n%%EOF\n"
                );
                let body = format!(
                    "This is a multi-part message in MIME format.\r\n\r\n--{BOUNDARY}\r\n\
                     Content-Type: application/pdf; name=\"turn.pdf\"\r\n\
                     Content-Disposition: attachment; filename=\"turn.pdf\"\r\n\
                     Content-Transfer-Encoding: base64\r\n\r\n{}--{BOUNDARY}--\r\n",
                    String::from_utf8(base64_lines(pdf.as_bytes())).expect("ASCII"),
                );
                (
                    vec![
                        ("MIME-Version", "1.0".to_owned()),
                        (
                            "Content-Type",
                            format!("multipart/mixed; boundary=\"{BOUNDARY}\""),
                        ),
                    ],
                    body.into_bytes(),
                )
            }
            Kind::Bounce => {
                let failed = address_of(&self.text);
                let original = format!(
                    "From: {to}\r\nTo: {failed}\r\nSubject: Your move\r\nMessage-ID: {id}\r\n",
                    to = self.header("To"),
                    id = if self.header("In-Reply-To").is_empty() {
                        "<original@warlog.test>".to_owned()
                    } else {
                        self.header("In-Reply-To")
                    },
                );
                let explanation = format!(
                    "This is the mail system at host mx.players.example.\r\n\r\n\
                     I'm sorry to have to inform you that your message could not\r\n\
                     be delivered to one or more recipients.\r\n\r\n\
                     <{failed}>: host mx.players.example said: 550 5.1.1 mailbox unavailable\r\n"
                );
                let status = format!(
                    "Reporting-MTA: dns; mx.players.example\r\n\r\n\
                     Final-Recipient: rfc822; {failed}\r\nAction: failed\r\nStatus: 5.1.1\r\n\
                     Diagnostic-Code: smtp; 550 5.1.1 mailbox unavailable\r\n"
                );
                let body = format!(
                    "This is a MIME-encapsulated message.\r\n\r\n\
                     --{BOUNDARY}\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n{explanation}\r\n\
                     --{BOUNDARY}\r\nContent-Type: message/delivery-status\r\n\r\n{status}\r\n\
                     --{BOUNDARY}\r\nContent-Type: text/rfc822-headers\r\n\r\n{original}\r\n\
                     --{BOUNDARY}--\r\n"
                );
                (
                    vec![
                        ("MIME-Version", "1.0".to_owned()),
                        (
                            "Content-Type",
                            format!(
                                "multipart/report; report-type=delivery-status; boundary=\"{BOUNDARY}\""
                            ),
                        ),
                    ],
                    body.into_bytes(),
                )
            }
        }
    }
}

const FILLER: &str = "filler filler filler filler filler filler filler filler filler filler";

/// `<id>`, whether `id` came with its brackets or not.
fn angled(id: &str) -> String {
    let id = id.trim();
    if id.starts_with('<') {
        id.to_owned()
    } else {
        format!("<{id}>")
    }
}

/// The address in `Name <address>`, or the whole of it.
fn address_of(mailbox: &str) -> String {
    match (mailbox.rfind('<'), mailbox.rfind('>')) {
        (Some(open), Some(close)) if open < close => mailbox[open + 1..close].to_owned(),
        _ => mailbox.trim().to_owned(),
    }
}

/// `text` as is when ASCII, else one RFC 2047 encoded word in UTF-8, base64.
fn encoded_word(text: &str) -> String {
    if text.is_ascii() {
        text.to_owned()
    } else {
        format!(
            "=?UTF-8?B?{}?=",
            base64::engine::general_purpose::STANDARD.encode(text)
        )
    }
}

/// Every line ended by CRLF (a last line without an end gets one).
fn crlf(text: &str) -> String {
    let text = text.replace("\r\n", "\n");
    let mut out = String::new();
    for line in text.strip_suffix('\n').unwrap_or(&text).split('\n') {
        out.push_str(line);
        out.push_str("\r\n");
    }
    out
}

/// base64 in lines of 76 characters, each ended by CRLF.
fn base64_lines(bytes: &[u8]) -> Vec<u8> {
    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
    let mut out = Vec::new();
    for chunk in encoded.as_bytes().chunks(76) {
        out.extend_from_slice(chunk);
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// Quoted-printable (RFC 2045) of `bytes` whose lines end in `\n` (or CRLF): hard breaks
/// as CRLF, soft breaks (`=`) keeping lines within 76 characters.
fn quoted_printable(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let text: Vec<u8> = bytes.iter().copied().filter(|b| *b != b'\r').collect();
    let text = text.strip_suffix(b"\n").unwrap_or(&text);
    for line in text.split(|b| *b == b'\n') {
        let mut width = 0;
        for (i, &byte) in line.iter().enumerate() {
            let last = i + 1 == line.len();
            let literal = (byte == b' ' || byte == b'\t') && !last
                || (33..=126).contains(&byte) && byte != b'=';
            let piece = if literal {
                vec![byte]
            } else {
                format!("={byte:02X}").into_bytes()
            };
            if width + piece.len() > 75 {
                out.extend_from_slice(b"=\r\n");
                width = 0;
            }
            width += piece.len();
            out.extend_from_slice(&piece);
        }
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// `text` as format=flowed (RFC 3676) lines, joined by `\n`.
fn flow(text: &str) -> String {
    let mut lines = Vec::new();
    for line in text
        .replace("\r\n", "\n")
        .trim_end_matches('\n')
        .split('\n')
    {
        if line == "-- " {
            lines.push(line.to_owned());
            continue;
        }
        let line = line.trim_end_matches(' ');
        if line.starts_with('>') || line.len() <= FLOWED_WIDTH {
            lines.push(stuffed(line));
            continue;
        }
        let mut current = String::new();
        for (i, word) in line.split(' ').enumerate() {
            if i > 0 && !current.is_empty() && current.len() + 1 + word.len() > FLOWED_WIDTH {
                lines.push(stuffed(&format!("{current} ")));
                current = word.to_owned();
            } else {
                if i > 0 {
                    current.push(' ');
                }
                current.push_str(word);
            }
        }
        lines.push(stuffed(&current));
    }
    lines.join("\n")
}

/// A flowed line space-stuffed when it starts with a space or `From ` (RFC 3676, 4.4).
fn stuffed(line: &str) -> String {
    if line.starts_with(' ') || line.starts_with("From ") {
        format!(" {line}")
    } else {
        line.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(text: &str) -> RawMail {
        RawMail::reply(
            "Ann <ann@players.example>",
            "turn+abc@league.example",
            "Re: Your move",
            "reply-1@players.example",
            Some("<move-1@league.example>"),
            text,
        )
    }

    fn as_text(mail: &RawMail) -> String {
        String::from_utf8_lossy(&mail.to_bytes()).into_owned()
    }

    #[test]
    fn a_reply_is_utf8_text_with_crlf_lines_and_its_thread() {
        let mail = as_text(&reply("Germany: Karelia → Archangel\nend"));
        let (head, body) = mail.split_once("\r\n\r\n").expect("a blank line");
        assert!(
            head.contains("\r\nMessage-ID: <reply-1@players.example>"),
            "{head}"
        );
        assert!(
            head.contains("\r\nIn-Reply-To: <move-1@league.example>"),
            "{head}"
        );
        assert!(
            head.contains("Content-Type: text/plain; charset=utf-8"),
            "{head}"
        );
        assert_eq!(body, "Germany: Karelia → Archangel\r\nend\r\n");
        assert!(
            !mail.replace("\r\n", "").contains('\n'),
            "a bare LF: {mail:?}"
        );
    }

    #[test]
    fn latin1_quoted_printable_writes_e_acute_as_e9() {
        let mail = as_text(&reply("").latin1_quoted_printable("Pénétrer à Paris = oui"));
        assert!(mail.contains("charset=iso-8859-1"), "{mail}");
        assert!(
            mail.contains("Content-Transfer-Encoding: quoted-printable"),
            "{mail}"
        );
        assert!(
            mail.ends_with("\r\n\r\nP=E9n=E9trer =E0 Paris =3D oui\r\n"),
            "{mail}"
        );
    }

    #[test]
    fn base64_flowed_html_and_headers_say_what_they_are() {
        let b64 = as_text(&reply("").base64_utf8("Karelia → Archangel"));
        let body = b64.split_once("\r\n\r\n").expect("a body").1.trim_end();
        assert_eq!(
            base64::engine::general_purpose::STANDARD
                .decode(body)
                .expect("base64"),
            "Karelia → Archangel\r\n".as_bytes()
        );

        let flowed =
            as_text(&reply("").flowed(
                "move 3 infantry and 2 armour from Karelia to Archangel\n> quoted\nFrom here",
            ));
        assert!(flowed.contains("format=flowed"), "{flowed}");
        let body = flowed.split_once("\r\n\r\n").expect("a body").1;
        assert!(body.lines().all(|l| l.len() <= FLOWED_WIDTH + 1), "{body}");
        assert!(body.contains(" \r\n"), "a soft break: {body}");
        assert!(body.contains("\r\n> quoted\r\n From here\r\n"), "{body}");

        let html = as_text(&reply("").html_only("<p>Karelia &rarr; Archangel</p>"));
        assert!(html.contains("Content-Type: text/html"), "{html}");

        let odd = as_text(
            &reply("x")
                .auto_submitted()
                .with_header("From", "bob@players.example")
                .without_header("Message-ID"),
        );
        assert!(
            odd.contains("\r\nAuto-Submitted: auto-replied\r\n"),
            "{odd}"
        );
        assert!(odd.starts_with("From: bob@players.example\r\n"), "{odd}");
        assert!(!odd.contains("Message-ID"), "{odd}");
    }

    #[test]
    fn attachments_bounces_and_oversized_mail() {
        let attached = as_text(&reply("x").with_attachment_only());
        assert!(attached.contains("multipart/mixed"), "{attached}");
        assert!(!attached.contains("text/plain"), "{attached}");

        let bounce = reply("x").bounce();
        let text = as_text(&bounce);
        assert!(
            text.starts_with("From: Mail Delivery System <MAILER-DAEMON@"),
            "{text}"
        );
        assert!(
            text.contains("multipart/report; report-type=delivery-status"),
            "{text}"
        );
        assert!(
            text.contains("Final-Recipient: rfc822; ann@players.example"),
            "{text}"
        );

        assert!(reply("x").oversized(100_000).to_bytes().len() >= 100_000);
        assert!(
            reply("x")
                .base64_utf8("y")
                .oversized(5_000)
                .to_bytes()
                .len()
                >= 5_000
        );
    }

    /// The SMTP client against the notices' mail catcher: the message arrives as built
    /// (dot-stuffing undone), and no server is an error, not a panic.
    #[actix_web::test]
    async fn smtp_send_hands_the_message_over_as_built() {
        let (port, server) = crate::notices::mail_server().await;
        let mail = reply("Karelia → Archangel\n.\n..two dots\nend");
        smtp_send(
            port,
            "ann@players.example",
            &["turn+abc@league.example"],
            &mail.to_bytes(),
        )
        .await
        .expect("accepted");
        let delivered = server.delivered();
        assert_eq!(delivered.len(), 1, "{delivered:?}");
        assert_eq!(delivered[0].to, ["turn+abc@league.example"]);
        assert_eq!(delivered[0].header("Message-ID"), mail.message_id());
        assert_eq!(
            format!("{}\r\n", delivered[0].data).into_bytes(),
            mail.to_bytes()
        );

        let closed = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let refused = smtp_send(closed, "ann@players.example", &["x@y.example"], b"x\r\n").await;
        assert!(
            refused.is_err_and(|e| e.contains("Connection")),
            "nobody listens"
        );
    }
}
