//! A roll as a dice server's client asks it: two numbers and two addresses, each in a
//! form field whose name depends on the client's protocol (`times`, `max`, `email1`,
//! `email2` for TripleA's clients since mid-2026; `numdice`, `numsides`, `roller`, `gm` for
//! the 2.x line). Read here once, whatever the protocol, so that every refusal names the
//! field the client sent.

use super::{canonical_address, shown, DiceAsked, MAX_SIDES, MAX_TIMES, MIN_SIDES};

/// The names a protocol gives the four fields of a roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RollFields {
    pub times: &'static str,
    pub max: &'static str,
    pub first: &'static str,
    pub second: &'static str,
}

/// `POST /api/roll`'s fields.
pub const API_ROLL_FIELDS: RollFields = RollFields {
    times: "times",
    max: "max",
    first: "email1",
    second: "email2",
};

/// `POST /MARTI.php`'s fields (the 2.x clients): the roller is To, the game master Cc.
pub const MARTI_FIELDS: RollFields = RollFields {
    times: "numdice",
    max: "numsides",
    first: "roller",
    second: "gm",
};

/// A roll read from its form: what is asked, and the two addresses in their canonical
/// spelling ([`canonical_address`]), as the client gave them (first, second).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RollRead {
    pub asked: DiceAsked,
    pub addresses: [String; 2],
}

impl RollFields {
    /// The roll these field values ask for, or every reason it cannot be read, each
    /// naming its field.
    pub fn read(
        &self,
        times: Option<&str>,
        max: Option<&str>,
        first: Option<&str>,
        second: Option<&str>,
    ) -> Result<RollRead, Vec<String>> {
        let times = whole_number(self.times, times, "how many dice to roll").and_then(|n| {
            if (1..=MAX_TIMES).contains(&n) {
                Ok(n)
            } else {
                Err(format!(
                    "{} is {n}: a roll is 1 to {MAX_TIMES} dice",
                    self.times
                ))
            }
        });
        let max = whole_number(self.max, max, "how many sides each die has").and_then(|n| {
            if (MIN_SIDES..=MAX_SIDES).contains(&n) {
                Ok(n)
            } else {
                Err(format!(
                    "{} is {n}: a die has {MIN_SIDES} to {MAX_SIDES} sides",
                    self.max
                ))
            }
        });
        let first = canonical_address(first.unwrap_or(""), self.first);
        let second = canonical_address(second.unwrap_or(""), self.second);
        match (times, max, first, second) {
            (Ok(times), Ok(max), Ok(first), Ok(second)) => Ok(RollRead {
                asked: DiceAsked::try_from((times, max)).map_err(|why| vec![why])?,
                addresses: [first, second],
            }),
            (times, max, first, second) => Err(times
                .err()
                .into_iter()
                .chain(max.err())
                .chain(first.err())
                .chain(second.err())
                .collect()),
        }
    }
}

/// A field's whole number, or why not, naming the field and what it is for.
fn whole_number(field: &str, value: Option<&str>, what: &str) -> Result<u32, String> {
    let text = value.map(str::trim).unwrap_or("");
    if text.is_empty() {
        return Err(format!("{field} is missing: {what}"));
    }
    text.parse::<u32>()
        .map_err(|_| format!("{field} is \"{}\": {what}, a whole number", shown(text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_roll_is_read_with_its_addresses_in_their_one_spelling() {
        let read = API_ROLL_FIELDS
            .read(
                Some(" 3 "),
                Some("6"),
                Some("Ann@Club.Example."),
                Some("bob@club.example"),
            )
            .expect("a roll");
        assert_eq!(read.asked, DiceAsked::try_from((3, 6)).expect("asked"));
        assert_eq!(read.addresses, ["ann@club.example", "bob@club.example"]);
    }

    #[test]
    fn every_reason_names_the_field_the_older_clients_sent() {
        let refused = MARTI_FIELDS
            .read(Some("0"), Some("six"), None, Some("gm"))
            .expect_err("refused");
        assert_eq!(
            refused,
            vec![
                "numdice is 0: a roll is 1 to 5000 dice",
                "numsides is \"six\": how many sides each die has, a whole number",
                "roller is missing: give both players' e-mail addresses",
                "gm is not an e-mail address",
            ]
        );
    }

    #[test]
    fn the_bounds_are_the_official_servers_one_to_five_thousand_of_each() {
        assert!(API_ROLL_FIELDS
            .read(
                Some("5000"),
                Some("5000"),
                Some("a@x.example"),
                Some("b@x.example")
            )
            .is_ok());
        assert!(API_ROLL_FIELDS
            .read(
                Some("1"),
                Some("1"),
                Some("a@x.example"),
                Some("b@x.example")
            )
            .is_ok());
        let refused = API_ROLL_FIELDS
            .read(
                Some("5001"),
                Some("0"),
                Some("a@x.example"),
                Some("b@x.example"),
            )
            .expect_err("refused");
        assert_eq!(
            refused,
            vec![
                "times is 5001: a roll is 1 to 5000 dice",
                "max is 0: a die has 1 to 5000 sides",
            ]
        );
    }
}
