//! A count with its noun as people write it: "1 round", "2 rounds". The libraries' messages
//! (seatings explained, audits, battle listings) use it; the pages have their own for
//! decimals ("0.5 points").

/// `n` and the noun, singular for exactly one.
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(counted(1, "round", "rounds"), "1 round");
        assert_eq!(counted(0, "round", "rounds"), "0 rounds");
        assert_eq!(counted(2, "hit", "hits"), "2 hits");
    }
}
