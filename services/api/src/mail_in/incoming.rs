//! A message as the intake reads it: parsed whole by `mail-parser` (every charset and
//! transfer encoding mail clients use; an HTML-only message read as text), and reduced to
//! what deciding it needs: who sent it, to which reply address, what it says, and whether
//! it is a machine's (an automatic reply or a bounce, which is never answered).

use mail_parser::{HeaderValue, MessageParser, MimeHeaders};
use sha2::{Digest, Sha256};
use warlog_events::orders::DmarcVerdict;

/// What a message says, for the intake.
#[derive(Clone, Default)]
pub struct Incoming {
    /// The Message-ID, without its angle brackets, when it has one.
    pub message_id: Option<String>,
    /// The From address, trimmed and in lower case; none when it holds a control character
    /// (a NUL above all, which no address on file holds and no query may carry).
    pub from: Option<String>,
    /// Every address the message was sent to, as its headers say (To, Cc, Delivered-To,
    /// X-Original-To).
    pub to: Vec<String>,
    pub subject: String,
    /// The text of the first text part (an HTML part made text when there is none),
    /// decoded; format=flowed undone.
    pub text: Option<String>,
    /// The message carries attachments and no text.
    pub attachments_only: bool,
    /// An automatic message (RFC 3834 `Auto-Submitted` other than `no`, a bounce, a list's
    /// or a bulk mail): never answered, never decided.
    pub automatic: bool,
    /// What the operator's receiving server found of the sender's domain.
    pub dmarc: DmarcVerdict,
}

/// Kept out of logs: a message holds addresses.
impl std::fmt::Debug for Incoming {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Incoming")
            .field("automatic", &self.automatic)
            .field("dmarc", &self.dmarc)
            .finish_non_exhaustive()
    }
}

/// The key a message is kept under: the SHA-256 of its Message-ID, or of the whole message
/// when it has none (a message delivered twice is then still one).
pub fn message_key(raw: &[u8]) -> [u8; 32] {
    let parsed = MessageParser::default().parse_headers(raw);
    match parsed.as_ref().and_then(|m| m.message_id()) {
        Some(id) => key_of_id(id),
        None => Sha256::digest(raw).into(),
    }
}

/// The key of a Message-ID (its brackets and surrounding space ignored).
pub fn key_of_id(message_id: &str) -> [u8; 32] {
    let id = message_id
        .trim()
        .trim_start_matches('<')
        .trim_end_matches('>');
    Sha256::digest(id.as_bytes()).into()
}

/// Reads a message; none when it is not a message at all. `authserv_id` names the
/// receiving server whose DMARC results are trusted.
pub fn read(raw: &[u8], authserv_id: Option<&str>) -> Option<Incoming> {
    let message = MessageParser::default().parse(raw)?;
    let from = message
        .from()
        .and_then(|a| a.first())
        .and_then(|a| a.address())
        .map(|a| a.trim().to_lowercase())
        .filter(|a| !a.chars().any(char::is_control));
    let mut to: Vec<String> = Vec::new();
    for address in message.to().into_iter().chain(message.cc()) {
        to.extend(
            address
                .iter()
                .filter_map(|a| a.address())
                .map(|a| a.trim().to_lowercase()),
        );
    }
    for name in ["Delivered-To", "X-Original-To"] {
        for value in message.header_values(name) {
            if let HeaderValue::Text(text) = value {
                to.push(text.trim().trim_matches(['<', '>']).to_lowercase());
            }
        }
    }
    let text_part = message.text_part(0);
    let flowed = text_part.and_then(|part| {
        let content_type = part.content_type()?;
        let format = content_type.attribute("format")?;
        format.eq_ignore_ascii_case("flowed").then(|| {
            content_type
                .attribute("delsp")
                .is_some_and(|d| d.eq_ignore_ascii_case("yes"))
        })
    });
    let plain = text_part.is_some_and(|part| !part.is_text_html());
    let text = if plain {
        message.body_text(0).map(|text| match flowed {
            Some(delsp) => warlog_events::by_mail::reply_text::unflow(&text, delsp),
            None => text.into_owned(),
        })
    } else {
        // An HTML-only mail: the quoted mail (its blockquotes) left out, the rest as text.
        message.body_html(0).map(|html| {
            let html = with_line_breaks(&without_quotes(&html));
            mail_parser::decoders::html::html_to_text(&html)
        })
    };
    let attachments_only =
        text.as_deref().is_none_or(|t| t.trim().is_empty()) && message.attachment_count() > 0;
    Some(Incoming {
        // Kept as the answer's In-Reply-To: an id holding a control (a NUL, which no text
        // column takes) is no id.
        message_id: message
            .message_id()
            .filter(|id| !id.chars().any(char::is_control))
            .map(str::to_owned),
        automatic: is_automatic(&message, from.as_deref()),
        dmarc: dmarc_of(&message, authserv_id),
        from,
        to,
        // One line, as an answer's subject repeats it: a control (a NUL above all, which
        // the outbox could not keep) reads as a space.
        subject: message
            .subject()
            .unwrap_or_default()
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect(),
        text,
        attachments_only,
    })
}

/// `html` with a line break after each block that ends a line (a `div`, a list item, a
/// table row, a heading), as a mail program shows it: each order on its own line.
fn with_line_breaks(html: &str) -> String {
    const BLOCKS: [&str; 10] = [
        "</div", "</li", "</tr", "</h1", "</h2", "</h3", "</h4", "</h5", "</h6", "</pre",
    ];
    let lower = html.to_ascii_lowercase();
    let mut out = String::with_capacity(html.len() + 64);
    let mut at = 0;
    while let Some(offset) = lower[at..].find("</") {
        let start = at + offset;
        let end = lower[start..]
            .find('>')
            .map_or(html.len(), |e| start + e + 1);
        out.push_str(&html[at..end]);
        if BLOCKS.iter().any(|b| lower[start..].starts_with(b)) {
            out.push_str("<br>");
        }
        at = end;
    }
    out.push_str(&html[at..]);
    out
}

/// `html` without its `<blockquote>` elements, where mail programs put the mail replied to
/// (nested ones included): what remains is what the player wrote.
fn without_quotes(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let mut kept = String::with_capacity(html.len());
    let mut depth = 0usize;
    let mut at = 0;
    while at < html.len() {
        let rest = &lower[at..];
        let open = rest.find("<blockquote");
        let close = rest.find("</blockquote");
        let next = match (open, close) {
            (Some(o), Some(c)) => Some((o.min(c), o < c)),
            (Some(o), None) => Some((o, true)),
            (None, Some(c)) => Some((c, false)),
            (None, None) => None,
        };
        let Some((offset, opening)) = next else {
            if depth == 0 {
                kept.push_str(&html[at..]);
            }
            break;
        };
        if depth == 0 {
            kept.push_str(&html[at..at + offset]);
        }
        let tag_end = lower[at + offset..]
            .find('>')
            .map_or(html.len(), |e| at + offset + e + 1);
        if opening {
            depth += 1;
        } else {
            depth = depth.saturating_sub(1);
        }
        at = tag_end;
    }
    kept
}

/// RFC 3834: a message that is itself automatic gets no automatic answer. Bounces (a
/// delivery report, the mailer daemon's), and lists' and bulk mail, likewise.
fn is_automatic(message: &mail_parser::Message<'_>, from: Option<&str>) -> bool {
    let header = |name: &str| {
        message
            .header_raw(name)
            .map(|v| v.trim().to_ascii_lowercase())
    };
    let auto_submitted = header("Auto-Submitted").is_some_and(|v| !v.starts_with("no"));
    // Autoresponders that predate RFC 3834 say so in headers of their own.
    let responder = ["X-Autoreply", "X-Autorespond", "X-Auto-Response-Suppress"]
        .iter()
        .any(|name| header(name).is_some());
    let precedence = header("Precedence")
        .is_some_and(|v| matches!(v.as_str(), "bulk" | "list" | "junk" | "auto_reply"));
    let listed = header("List-Id").is_some();
    let report = message.content_type().is_some_and(|ct| {
        ct.ctype().eq_ignore_ascii_case("multipart")
            && ct
                .subtype()
                .is_some_and(|s| s.eq_ignore_ascii_case("report"))
    });
    let daemon = from.is_some_and(|f| {
        let local = f.split('@').next().unwrap_or_default();
        matches!(local, "mailer-daemon" | "postmaster")
    });
    let null_sender = header("Return-Path").is_some_and(|v| v == "<>");
    auto_submitted || responder || precedence || listed || report || daemon || null_sender
}

/// DMARC's verdict as the trusted receiving server wrote it (RFC 8601): the first
/// `Authentication-Results` header whose server is `authserv_id`. A header from any other
/// server could have been written by the sender, so it counts for nothing.
fn dmarc_of(message: &mail_parser::Message<'_>, authserv_id: Option<&str>) -> DmarcVerdict {
    let Some(trusted) = authserv_id else {
        return DmarcVerdict::NotChecked;
    };
    for (name, value) in message.headers_raw() {
        if !name.eq_ignore_ascii_case("Authentication-Results") {
            continue;
        }
        let unfolded: String = value.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut parts = unfolded.split(';');
        let server = parts.next().unwrap_or_default().split_whitespace().next();
        if !server.is_some_and(|s| s.eq_ignore_ascii_case(trusted)) {
            continue;
        }
        // The topmost header of the trusted server is its own (RFC 8601, 5): one below it
        // with the same name was written before the mail reached it, by anyone.
        return parts
            .find_map(|part| part.trim().strip_prefix("dmarc="))
            .map_or(DmarcVerdict::NotChecked, |result| {
                let result = result.split_whitespace().next().unwrap_or_default();
                match result.to_ascii_lowercase().as_str() {
                    "pass" => DmarcVerdict::Pass,
                    "fail" => DmarcVerdict::Fail,
                    "none" => DmarcVerdict::None,
                    _ => DmarcVerdict::NotChecked,
                }
            });
    }
    DmarcVerdict::NotChecked
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mail(headers: &str, body: &str) -> Vec<u8> {
        format!("{headers}\r\n\r\n{body}")
            .replace('\n', "\r\n")
            .replace("\r\r", "\r")
            .into_bytes()
    }

    #[test]
    fn a_plain_reply_gives_its_sender_recipients_and_text() {
        let raw = mail(
            "From: Ann <Ann@Club.example>\nTo: turn+abc@league.example\nSubject: Re: Your move\nMessage-ID: <m1@club.example>",
            "buy 3 INF\nend turn\n",
        );
        let read = read(&raw, None).expect("a message");
        assert_eq!(read.from.as_deref(), Some("ann@club.example"));
        assert_eq!(read.to, ["turn+abc@league.example"]);
        assert_eq!(read.message_id.as_deref(), Some("m1@club.example"));
        assert!(read.text.unwrap().contains("buy 3 INF"));
        assert!(!read.automatic);
        assert_eq!(read.dmarc, DmarcVerdict::NotChecked);
        assert_eq!(message_key(&raw), key_of_id("<m1@club.example>"));
    }

    #[test]
    fn a_message_id_holding_a_control_is_no_id_so_no_answer_carries_it() {
        let raw = mail(
            "From: <ann@club.example>\nTo: turn+abc@league.example\nSubject: Re: x\nMessage-ID: <m\u{0}1@club.example>",
            "end turn\n",
        );
        assert_eq!(read(&raw, None).expect("a message").message_id, None);
    }

    #[test]
    fn a_from_address_holding_a_nul_is_no_address() {
        let raw = mail(
            "From: <ann\u{0}@club.example>\nTo: turn+abc@league.example\nSubject: Re: x",
            "end turn\n",
        );
        assert_eq!(read(&raw, None).expect("a message").from, None);
    }

    #[test]
    fn a_subject_holding_a_nul_reads_it_as_a_space() {
        let raw = mail(
            "From: ann@club.example\nSubject: =?utf-8?q?Re:_Your=00move?=",
            "end turn\n",
        );
        assert_eq!(
            read(&raw, None).expect("a message").subject,
            "Re: Your move"
        );
    }

    #[test]
    fn latin1_quoted_printable_is_decoded() {
        let raw = mail(
            "From: a@b.example\nContent-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable",
            "move 1 INF: Germany > Caucasus # caf=E9\n",
        );
        assert!(read(&raw, None).unwrap().text.unwrap().contains("café"));
    }

    #[test]
    fn an_html_only_reply_is_read_without_the_mail_it_quotes() {
        let raw = mail(
            "From: a@b.example\nContent-Type: text/html; charset=utf-8",
            "<div>end turn</div><div class=\"gmail_quote\">On Sat wrote:<blockquote>Your move<blockquote>older</blockquote>still quoted</blockquote></div>",
        );
        let text = read(&raw, None).unwrap().text.unwrap();
        assert!(text.contains("end turn"), "{text}");
        assert!(
            !text.contains("Your move")
                && !text.contains("older")
                && !text.contains("still quoted"),
            "{text}"
        );
    }

    #[test]
    fn automatic_mail_and_bounces_are_known_as_such() {
        for headers in [
            "From: a@b.example\nAuto-Submitted: auto-replied",
            "From: MAILER-DAEMON@b.example",
            "From: a@b.example\nPrecedence: bulk",
            "From: a@b.example\nContent-Type: multipart/report; report-type=delivery-status; boundary=x",
        ] {
            assert!(read(&mail(headers, "x"), None).unwrap().automatic, "{headers}");
        }
        assert!(
            !read(&mail("From: a@b.example\nAuto-Submitted: no", "x"), None)
                .unwrap()
                .automatic
        );
    }

    #[test]
    fn dmarc_is_read_only_from_the_trusted_server() {
        let headers = "From: a@b.example\nAuthentication-Results: mx.evil.example; dmarc=pass\nAuthentication-Results: mx.league.example;\n  spf=pass smtp.mailfrom=b.example;\n  dmarc=fail header.from=b.example";
        let raw = mail(headers, "x");
        assert_eq!(
            read(&raw, Some("mx.league.example")).unwrap().dmarc,
            DmarcVerdict::Fail
        );
        assert_eq!(read(&raw, None).unwrap().dmarc, DmarcVerdict::NotChecked);
        assert_eq!(
            read(&raw, Some("mx.other.example")).unwrap().dmarc,
            DmarcVerdict::NotChecked
        );
        // A header below the trusted server's own, claiming its name, is the sender's.
        let forged = "From: a@b.example\nAuthentication-Results: mx.league.example; spf=pass\nAuthentication-Results: mx.league.example; dmarc=pass";
        assert_eq!(
            read(&mail(forged, "x"), Some("mx.league.example"))
                .unwrap()
                .dmarc,
            DmarcVerdict::NotChecked
        );
    }
}
