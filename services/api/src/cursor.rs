//! The global feed's cursor: opaque to clients (base64url of a versioned `tx:position`
//! pair), so the feed's ordering can change without breaking anyone who stores one.

use std::fmt;
use std::str::FromStr;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use warlog_store::FeedPosition;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeedCursor(pub FeedPosition);

const PREFIX: &str = "f1:";

impl fmt::Display for FeedCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let raw = format!("{PREFIX}{}:{}", self.0.tx_id, self.0.position);
        f.write_str(&URL_SAFE_NO_PAD.encode(raw))
    }
}

impl FromStr for FeedCursor {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || format!("cursor {s:?} is not one this service issued");
        let bytes = URL_SAFE_NO_PAD.decode(s).map_err(|_| bad())?;
        let raw = String::from_utf8(bytes).map_err(|_| bad())?;
        let (tx, position) = raw
            .strip_prefix(PREFIX)
            .and_then(|rest| rest.split_once(':'))
            .ok_or_else(bad)?;
        let position = FeedPosition {
            tx_id: tx.parse().map_err(|_| bad())?,
            position: position.parse().map_err(|_| bad())?,
        };
        if position.position < 0 {
            return Err(bad());
        }
        Ok(FeedCursor(position))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_survives_its_own_round_trip() {
        let cursor = FeedCursor(FeedPosition {
            tx_id: 7_654_321,
            position: 42,
        });
        assert_eq!(cursor.to_string().parse::<FeedCursor>(), Ok(cursor));
    }

    #[test]
    fn garbage_and_foreign_cursors_are_refused() {
        for bad in [
            "",
            "!!",
            "abc",
            &URL_SAFE_NO_PAD.encode("f1:x:1"),
            &URL_SAFE_NO_PAD.encode("f2:1:1"),
            &URL_SAFE_NO_PAD.encode("f1:1:-5"),
        ] {
            assert!(bad.parse::<FeedCursor>().is_err(), "{bad:?}");
        }
    }
}
