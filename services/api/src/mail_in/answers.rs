//! What the intake writes back to a player: a preview of the turn their mail holds, or why
//! it was not taken (the line, the column and the reason), in the words a game master
//! would use. A recorded turn needs no answer of its own: its report goes to the table.

use crate::error::ApiError;
use crate::turns::{capitalised, TurnPreview};

/// An answer to a player's mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub subject: String,
    pub body: String,
}

/// `Re: ` and the subject answered, once.
fn re(subject: &str) -> String {
    let subject = subject.trim();
    if subject.is_empty() {
        "Re: your mail to warlog".to_owned()
    } else if subject
        .get(..3)
        .is_some_and(|re| re.eq_ignore_ascii_case("re:"))
    {
        subject.to_owned()
    } else {
        format!("Re: {subject}")
    }
}

const NOTHING_RECORDED: &str = "Nothing was recorded and no die was rolled.";

/// A mail that was not taken, and why (a sentence), with the text's line quoted when the
/// reason is on one.
pub fn refused(subject: &str, why: &str, line: Option<(usize, Option<usize>, &str)>) -> Answer {
    let mut body = format!(
        "Your mail was not taken: {}.\n\n",
        why.trim_end_matches('.')
    );
    if let Some((number, column, text)) = line {
        match column {
            Some(column) => body.push_str(&format!("Line {number}, column {column}:\n")),
            None => body.push_str(&format!("Line {number}:\n")),
        }
        body.push_str(&format!("    {}\n", text.trim_end()));
        if let Some(column) = column {
            body.push_str(&format!("    {}^\n", " ".repeat(column.saturating_sub(1))));
        }
        body.push('\n');
    }
    body.push_str(NOTHING_RECORDED);
    body.push_str(
        "\n\nWrite your orders one a line above the quoted mail, as docs/playing.md \
         on the\nleague's site shows, and reply again. Write \"preview\" as the subject \
         to see\nwhat a turn would do before it counts.\n",
    );
    Answer {
        subject: re(subject),
        body,
    }
}

/// An [`ApiError`] refusing a turn, in an answer: its words and, for a turn text, the line
/// and column it names.
pub fn refused_turn(subject: &str, error: &ApiError, text: &str) -> Answer {
    let place = error.text_place.as_ref().map(|place| {
        let quoted = text.lines().nth(place.line.saturating_sub(1)).unwrap_or("");
        (place.line, place.column, quoted)
    });
    let mut why = error.detail.clone();
    if let Some(place) = &error.text_place {
        if !place.suggestions.is_empty() {
            why.push_str(&format!(
                " (did you mean {}?)",
                place.suggestions.join(", ")
            ));
        }
    }
    refused(subject, &why, place)
}

/// A preview's answer: what each line would do, the battles' odds, the line refused if one
/// is, and where the turn would leave the game.
pub fn preview(subject: &str, preview: &TurnPreview, text: &str) -> Answer {
    let mut body = format!(
        "A preview of {}'s turn, as it would be decided now. {NOTHING_RECORDED}\n\n",
        preview.power.name()
    );
    let lines: Vec<&str> = text.lines().collect();
    for line in &preview.lines {
        let written = lines
            .get(line.line.saturating_sub(1))
            .copied()
            .unwrap_or("");
        body.push_str(&format!("Line {}: {}\n", line.line, written.trim()));
        for outcome in &line.outcome {
            body.push_str(&format!("    {outcome}\n"));
        }
        if line.after_dice {
            body.push_str("    (checked as if the battles before it went their even way)\n");
        }
    }
    if let Some(refused) = &preview.refused {
        body.push_str(&format!("\n{}.\n", capitalised(&refused.detail)));
    }
    body.push_str(&format!("\n{}\n", preview.then.detail));
    body.push_str(
        "\nTo play this turn, reply with the same orders without \"preview\" in the\n\
         subject or on the first line.\n",
    );
    Answer {
        subject: re(subject),
        body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_quotes_the_line_and_points_at_the_column() {
        let answer = refused(
            "Re: Your move",
            "no place is called \"Germny\"",
            Some((2, Some(13), "move 2 INF: Germny > East Europe")),
        );
        assert_eq!(answer.subject, "Re: Your move");
        assert!(answer
            .body
            .starts_with("Your mail was not taken: no place is called"));
        assert!(
            answer.body.contains(
                "Line 2, column 13:\n    move 2 INF: Germny > East Europe\n                ^\n"
            ),
            "{}",
            answer.body
        );
        assert!(answer.body.contains(NOTHING_RECORDED));
    }

    #[test]
    fn an_answer_says_re_once() {
        assert_eq!(re("preview"), "Re: preview");
        assert_eq!(re("RE: preview"), "RE: preview");
        assert_eq!(re(""), "Re: your mail to warlog");
        assert_eq!(re("Ход конём"), "Re: Ход конём", "a subject in any script");
        assert_eq!(re("ÉÉ"), "Re: ÉÉ");
    }
}
