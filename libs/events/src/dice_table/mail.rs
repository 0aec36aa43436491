//! The e-mail a roll sends to both of its table's addresses: the dice first, as TripleA's
//! players read a dice server's mail, then what lets either of them check the roll alone
//! (the signed statement, the signature and where the public key is) and the link that
//! reveals the table's seed.

use super::{date_of, listed};
use crate::dice_table::DiceTableEvent;

/// Where a roll's mail points: the table's page, the public key, and the reveal link
/// (absolute when the service knows its public address, else paths).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RollLinks {
    pub table_page: String,
    pub public_key: String,
    pub reveal: String,
}

/// Dice a subject line lists at most: a 5,000-die roll's are in the body.
const SUBJECT_DICE: usize = 20;
/// The longest note a mail carries, in characters (the 2.x clients send at most 200).
const NOTE_CHARS: usize = 200;

/// The subject and body of `roll`'s mail, for table `table`; none for an event that is not
/// a roll. `idle` says, in words, after how long anyone may reveal the seed; `note` is what
/// the client said the roll is for (a 2.x client's subject: game and battle), unchecked.
pub fn roll_mail(
    table: &str,
    roll: &DiceTableEvent,
    links: &RollLinks,
    idle: &str,
    note: Option<&str>,
) -> Option<(String, String)> {
    let DiceTableEvent::DiceRolled {
        index,
        times,
        max,
        dice,
        at,
        signature,
        ..
    } = roll
    else {
        return None;
    };
    let listed = listed(dice);
    let date = date_of(*at);
    let in_subject = if dice.len() > SUBJECT_DICE {
        format!("{}, ...", super::listed(&dice[..SUBJECT_DICE]))
    } else {
        listed.clone()
    };
    // A note is the client's words: one line, no control characters, bounded.
    let note: Option<String> = note
        .map(|n| {
            n.chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .take(NOTE_CHARS)
                .collect::<String>()
                .trim()
                .to_owned()
        })
        .filter(|n| !n.is_empty());
    let subject = match &note {
        // After the dice, quoted: the client's words, never the mail's own.
        Some(note) => format!("Dice: {times}d{max} rolled {in_subject}, for \"{note}\""),
        None => format!("Dice: {times}d{max} rolled {in_subject}"),
    };
    let said = match &note {
        Some(note) => format!("The client said the roll is for (its words): {note}\r\n\r\n"),
        None => String::new(),
    };
    let statement = roll.statement(table)?;
    let body = format!(
        "Rolled for the two addresses this mail went to: {times} {dice_word} of {max} sides.\r\n\
         \r\n\
         {said}\
         {listed}\r\n\
         \r\n\
         Roll {index} of dice table {table}, on {date}.\r\n\
         Every roll of the table: {page}\r\n\
         \r\n\
         The service signed this statement (Ed25519):\r\n\
         \r\n\
         {statement}\r\n\
         \r\n\
         Signature: {signature}\r\n\
         Public key: {key}\r\n\
         \r\n\
         To reveal the table's seed now, so that every roll since the last reveal can be\r\n\
         recomputed by anyone, open this link (only the two of you were sent it):\r\n\
         {reveal}\r\n\
         Without it, anyone may reveal the seed once the table has not rolled for {idle}.\r\n\
         The table then rolls on under a new seed.\r\n",
        dice_word = if *times == 1 { "die" } else { "dice" },
        page = links.table_page,
        statement = statement.replace('\n', "\r\n"),
        key = links.public_key,
        reveal = links.reveal,
    );
    Some((subject, body))
}
