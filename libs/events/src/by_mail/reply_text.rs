//! The turn in a reply mail's text: the player's own lines, with the mail they answer
//! (quoted lines, the client's "On ... wrote:" line, Outlook's original-message block) and
//! their signature taken off, and whether they ask for a preview.
//!
//! Mail clients write replies in a few known shapes, and these are undone by shape, not
//! by guessing: a line is cut only where a client's own marker stands. What is left is
//! kept line for line, as the player wrote it, because the turn's parser names lines and
//! the answer quotes the text back.
//!
//! A text sent as `format=flowed` (RFC 3676) is first joined back into its lines with
//! [`unflow`]; the caller knows the part's content type and decides.

/// The signature separator (RFC 3676, 4.3); some clients drop its trailing space.
const SIGNATURE: &str = "-- ";

/// Undoes RFC 3676 `format=flowed`: a line that ends in a space is joined to the next line
/// of the same quote depth (with `delsp`, that space is removed); a space-stuffed line
/// loses its first space; the signature separator is never flowed. Quoted lines keep their
/// `>` marks, written as `> ` before the joined text.
pub fn unflow(body: &str, delsp: bool) -> String {
    let mut out: Vec<String> = Vec::new();
    // The paragraph being joined: its quote depth and its text so far.
    let mut open: Option<(usize, String)> = None;
    let ends_in_newline = body.ends_with('\n');
    let body = body.strip_suffix('\n').unwrap_or(body);
    for raw in body.split('\n') {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let depth = raw.chars().take_while(|c| *c == '>').count();
        let content = &raw[depth..];
        // Space-stuffing: a space the sender put before a line starting with a space, a
        // `>` or "From " (RFC 3676, 4.4).
        let content = content.strip_prefix(' ').unwrap_or(content);
        let signature = content == SIGNATURE;
        let (depth, text) = match open.take() {
            Some((open_depth, text)) if open_depth == depth && !signature => {
                (depth, text + content)
            }
            // A flowed line before a line of another depth (or the signature) ends its
            // paragraph: the sender erred, and the line is taken as fixed (RFC 3676, 4.5).
            Some((open_depth, text)) => {
                out.push(quoted(open_depth, &text));
                (depth, content.to_owned())
            }
            None => (depth, content.to_owned()),
        };
        // Whether this line is flowed is its own ending's to say, not the paragraph's.
        if !signature && content.ends_with(' ') {
            let text = if delsp {
                text[..text.len() - 1].to_owned()
            } else {
                text
            };
            open = Some((depth, text));
        } else {
            out.push(quoted(depth, &text));
        }
    }
    if let Some((depth, text)) = open {
        out.push(quoted(depth, &text));
    }
    let mut text = out.join("\n");
    if ends_in_newline {
        text.push('\n');
    }
    text
}

/// A line at a quote depth, as a reader sees it: `> ` marks before quoted text.
fn quoted(depth: usize, text: &str) -> String {
    if depth == 0 {
        text.to_owned()
    } else {
        format!("{} {text}", ">".repeat(depth))
    }
}

/// The turn a reply holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyText {
    /// The player's own lines, as written (line breaks as `\n`).
    pub text: String,
    /// Whether the player asked for a preview (nothing recorded).
    pub preview: bool,
}

/// The reply prefixes mail clients put before a subject, in the common languages.
const SUBJECT_PREFIXES: [&str; 5] = ["re:", "aw:", "fwd:", "fw:", "wg:"];

/// The turn in a reply: `body` with the quoted mail, the client's attribution line, an
/// Outlook original-message block and the signature removed, trailing blank lines dropped.
/// A subject starting with the word `preview` (after any `Re:`), or a first line that is
/// `preview` alone (that line is then removed), asks for a preview.
pub fn turn_of_reply(subject: &str, body: &str) -> ReplyText {
    let body = body.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<&str> = body.split('\n').collect();
    let lines = &lines[..end_of_own_text(&lines)];
    let attribution = attribution_lines(lines);
    let mut kept: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|(i, line)| !attribution.contains(i) && !is_quoted(line))
        .map(|(_, line)| *line)
        .collect();
    while kept.last().is_some_and(|line| line.trim().is_empty()) {
        kept.pop();
    }
    let first = kept.iter().position(|line| !line.trim().is_empty());
    let first_says_preview = first.is_some_and(|i| kept[i].trim().eq_ignore_ascii_case("preview"));
    if first_says_preview {
        kept.remove(first.expect("a first line"));
    }
    let mut text = kept.join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    ReplyText {
        text,
        preview: first_says_preview || subject_says_preview(subject),
    }
}

/// Whether a subject, its reply prefixes taken off, starts with the word `preview`.
fn subject_says_preview(subject: &str) -> bool {
    let mut rest = subject.trim_start();
    let prefixed = |text: &str, prefix: &str| {
        text.get(..prefix.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(prefix))
    };
    while let Some(prefix) = SUBJECT_PREFIXES.iter().find(|p| prefixed(rest, p)) {
        rest = rest[prefix.len()..].trim_start();
    }
    starts_with_word(rest, "preview")
}

/// Whether `text` starts with `word` (any case), not followed by a letter or a digit.
fn starts_with_word(text: &str, word: &str) -> bool {
    text.get(..word.len())
        .is_some_and(|start| start.eq_ignore_ascii_case(word))
        && !text[word.len()..]
            .chars()
            .next()
            .is_some_and(char::is_alphanumeric)
}

fn is_quoted(line: &str) -> bool {
    line.trim_start().starts_with('>')
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// Where the player's own text ends: at the signature separator, Outlook's
/// "-----Original Message-----" line (in any language), or a line of underscores or a
/// header block (`From:` then `Sent:`/`Date:`) that begins the mail answered.
fn end_of_own_text(lines: &[&str]) -> usize {
    let next_text = |from: usize| lines[from..].iter().copied().find(|l| !is_blank(l));
    lines
        .iter()
        .enumerate()
        .position(|(i, line)| {
            let trimmed = line.trim();
            let signature = line.trim_end() == SIGNATURE.trim_end();
            let original_message = trimmed.len() > 10
                && trimmed.starts_with("-----")
                && trimmed.ends_with("-----")
                && trimmed.trim_matches('-').chars().any(char::is_alphabetic);
            let underscores = trimmed.len() >= 10
                && trimmed.chars().all(|c| c == '_')
                && next_text(i + 1).is_some_and(is_from_header);
            let header_block = is_from_header(line)
                && lines[i + 1..]
                    .iter()
                    .take(2)
                    .any(|l| header_named(l, &["sent", "date", "gesendet", "envoyé", "enviado"]));
            signature || original_message || underscores || header_block
        })
        .unwrap_or(lines.len())
}

/// A `From:` header line as clients copy it into a reply (also `Von:`, `De:`).
fn is_from_header(line: &str) -> bool {
    header_named(line, &["from", "von", "de"])
}

/// Whether `line` is a header line `Name: ...` of one of `names` (any case; French puts a
/// space before the colon).
fn header_named(line: &str, names: &[&str]) -> bool {
    let Some((name, _)) = line.split_once(':') else {
        return false;
    };
    let name = name.trim_start_matches('*').trim();
    let name = name.to_lowercase();
    names.contains(&name.as_str())
}

/// The lines of the client's attribution ("On <date>, <name> wrote:"), on one line or
/// wrapped over two, where the mail answered follows it (quoted) or nothing does: a
/// player's own line that merely looks like one stays.
fn attribution_lines(lines: &[&str]) -> Vec<usize> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let one = lines[i].trim();
        let two = lines
            .get(i + 1)
            .map(|next| format!("{one} {}", next.trim()));
        let width = if is_attribution(one) {
            Some(1)
        } else if two.as_deref().is_some_and(is_attribution) && !is_attribution(lines[i + 1].trim())
        {
            Some(2)
        } else {
            None
        };
        if let Some(width) = width {
            let after = lines[i + width..].iter().find(|l| !is_blank(l));
            if after.is_none_or(|l| is_quoted(l)) {
                found.extend(i..i + width);
                i += width;
                continue;
            }
        }
        i += 1;
    }
    found
}

/// Whether a line is a client's attribution: English, German, French or Spanish.
fn is_attribution(line: &str) -> bool {
    let starts = |word: &str| starts_with_word(line, word);
    let ends = |tail: &str| line.to_lowercase().ends_with(tail);
    (starts("on") && ends("wrote:"))
        || (starts("am") && line.contains("schrieb") && ends(":"))
        || (starts("le") && (ends("a écrit :") || ends("a écrit:")))
        || (starts("el") && ends("escribió:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TURN: &str = "buy 3 INF, 1 ARM\nmove 2 INF: Germany > East Europe\nend turn\n";

    #[test]
    fn given_a_gmail_reply_when_read_then_only_the_turn_is_left() {
        let body = "buy 3 INF, 1 ARM\r\nmove 2 INF: Germany > East Europe\r\nend turn\r\n\r\n\
                    On Tue, Mar 3, 2026 at 10:00 AM Warlog <turn+ab@league.example> wrote:\r\n\
                    \r\n\
                    > Hello ann,\r\n\
                    >\r\n\
                    > It is your move: Germany's turn has begun.\r\n";
        let reply = turn_of_reply("Re: Your move: Germany in Cut-Throat", body);
        assert_eq!(reply.text, TURN);
        assert!(!reply.preview);
    }

    #[test]
    fn given_a_gmail_reply_whose_attribution_is_wrapped_when_read_then_both_lines_go() {
        let body = format!(
            "{TURN}\nOn Tue, Mar 3, 2026 at 10:00 AM Warlog League\n\
             <turn+ab@league.example> wrote:\n\n> Hello ann,\n"
        );
        assert_eq!(turn_of_reply("Re: x", &body).text, TURN);
    }

    #[test]
    fn given_an_apple_mail_reply_with_its_attribution_wrapped_when_read_then_it_goes() {
        let body = format!(
            "{TURN}\nOn 3 Mar 2026, at 10:00, Warlog League <turn+ab@league.example>\n\
             wrote:\n\n> Hello ann,\n> \n> It is your move.\n"
        );
        assert_eq!(turn_of_reply("Re: x", &body).text, TURN);
    }

    #[test]
    fn given_attributions_in_other_languages_when_read_then_they_go() {
        for line in [
            "Am 03.03.2026 um 10:00 schrieb Warlog <turn+ab@league.example>:",
            "Le 3 mars 2026 à 10:00, Warlog <turn+ab@league.example> a écrit :",
            "El 3 mar 2026, a las 10:00, Warlog (<turn+ab@league.example>) escribió:",
        ] {
            let body = format!("{TURN}\n{line}\n> Hello ann,\n");
            assert_eq!(turn_of_reply("AW: x", &body).text, TURN, "{line}");
        }
    }

    #[test]
    fn given_a_line_that_only_looks_like_an_attribution_when_nothing_quoted_follows_then_it_stays()
    {
        let body = "On Monday I wrote:\nbuy 3 INF\n";
        assert_eq!(turn_of_reply("x", body).text, body);
    }

    #[test]
    fn given_an_outlook_reply_when_read_then_the_original_message_is_cut() {
        let body = format!(
            "{TURN}\n-----Original Message-----\nFrom: Warlog <turn+ab@league.example>\n\
             Sent: Tuesday, March 3, 2026 10:00 AM\nTo: ann\nSubject: Your move\n\n\
             Hello ann,\n"
        );
        assert_eq!(turn_of_reply("RE: Your move", &body).text, TURN);
    }

    #[test]
    fn given_an_outlook_web_reply_when_read_then_the_underscores_and_headers_are_cut() {
        let body = format!(
            "{TURN}\n________________________________\n\
             From: Warlog <turn+ab@league.example>\nSent: Tuesday, March 3, 2026 10:00\n\
             To: ann\nSubject: Your move\n\nHello ann,\n"
        );
        assert_eq!(turn_of_reply("RE: Your move", &body).text, TURN);
        let bare =
            format!("{TURN}\nFrom: Warlog <turn+ab@league.example>\nDate: Tue, 3 Mar 2026\n\nHi\n");
        assert_eq!(turn_of_reply("RE: Your move", &bare).text, TURN);
    }

    #[test]
    fn given_a_signature_when_read_then_it_is_cut_with_or_without_its_space() {
        for separator in ["-- ", "--"] {
            let body = format!("{TURN}\n{separator}\nAnn Example\nBerlin\n");
            assert_eq!(turn_of_reply("Re: x", &body).text, TURN, "{separator}");
        }
    }

    #[test]
    fn given_inline_quotes_when_read_then_the_players_lines_stay_in_their_order() {
        let body = "> What do you buy?\nbuy 3 INF\n> And then?\nend turn\n";
        assert_eq!(turn_of_reply("Re: x", body).text, "buy 3 INF\nend turn\n");
    }

    #[test]
    fn given_preview_as_the_subject_when_read_then_a_preview_is_asked() {
        for subject in [
            "preview",
            "Preview: my turn",
            "Re: preview",
            "RE: Aw:  Fwd: PREVIEW Re: Your move",
        ] {
            assert!(turn_of_reply(subject, TURN).preview, "{subject}");
        }
        for subject in ["Re: Your move", "previews", "Re: no preview"] {
            assert!(!turn_of_reply(subject, TURN).preview, "{subject}");
        }
    }

    #[test]
    fn given_preview_as_the_first_line_when_read_then_a_preview_is_asked_and_the_line_goes() {
        let body = format!("\n  Preview  \n{TURN}");
        let reply = turn_of_reply("Re: Your move", &body);
        assert!(reply.preview);
        assert_eq!(reply.text, format!("\n{TURN}"));
        let later = format!("{TURN}preview\n");
        assert!(!turn_of_reply("Re: x", &later).preview);
    }

    #[test]
    fn given_a_flowed_text_when_unflowed_then_soft_breaks_join_and_hard_ones_stay() {
        let body = "move 2 INF, 1 ARM: Germany > \r\nEast Europe > Ukraine\r\n \
                    From here\r\n-- \r\nAnn\r\n";
        assert_eq!(
            unflow(body, false),
            "move 2 INF, 1 ARM: Germany > East Europe > Ukraine\nFrom here\n-- \nAnn\n"
        );
    }

    #[test]
    fn given_a_flowed_text_with_delsp_when_unflowed_then_the_soft_break_space_goes() {
        assert_eq!(unflow("buy 3 IN \nF\n", true), "buy 3 INF\n");
        assert_eq!(unflow("buy 3 IN \nF\n", false), "buy 3 IN F\n");
    }

    #[test]
    fn given_flowed_quotes_when_unflowed_then_lines_of_another_depth_are_not_joined() {
        let body = "> It is your \n> move.\nbuy 3 \n>> older\nend turn\n";
        assert_eq!(
            unflow(body, false),
            "> It is your move.\nbuy 3 \n>> older\nend turn\n"
        );
    }

    #[test]
    fn given_a_flowed_reply_when_unflowed_and_read_then_the_turn_is_left() {
        let body = "buy 3 INF, \r\n1 ARM\r\nmove 2 INF: Germany > East Europe\r\nend turn\r\n\
                    \r\nOn Tue, Mar 3, 2026 at 10:00 AM Warlog <turn+ab@league.example> \r\n\
                    wrote:\r\n\r\n> Hello \r\n> ann,\r\n-- \r\nAnn\r\n";
        let reply = turn_of_reply("Re: x", &unflow(body, false));
        assert_eq!(reply.text, TURN);
    }
}
