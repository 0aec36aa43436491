//! Numbers in words, the same on every page: a count with its noun ("1 round", "2 rounds"),
//! an ordinal ("3rd"), and a place shared by a tie, written one way everywhere: "2=" (the
//! number, then "=" when others share it).

/// A count with its noun, singular for exactly one: `count(1, "round", "rounds")` is
/// "1 round". A fraction is plural ("0.5 points"), as people say it.
pub fn count(n: impl Into<f64>, one: &str, many: &str) -> String {
    let n = n.into();
    let noun = if n == 1.0 { one } else { many };
    format!("{} {noun}", crate::respond::decimal(n))
}

/// An ordinal as people write it: "1st", "2nd", "3rd", "4th", "11th", "21st".
pub fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A place as every page writes it: "2", or "2=" when others share it.
pub fn place(n: impl std::fmt::Display, shared: bool) -> String {
    if shared {
        format!("{n}=")
    } else {
        format!("{n}")
    }
}

/// For a list in order, each item's place and whether it is shared: items `tied` to the
/// one before share its place (the first of the run's), as in "1, 2=, 2=, 4".
pub fn shared_places<T>(
    items: &[T],
    position: impl Fn(&T) -> u64,
    tied: impl Fn(&T, &T) -> bool,
) -> Vec<(u64, bool)> {
    let mut places: Vec<(u64, bool)> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let with_previous = i > 0 && tied(&items[i - 1], item);
        let with_next = items.get(i + 1).is_some_and(|next| tied(item, next));
        let at = if with_previous {
            places[i - 1].0
        } else {
            position(item)
        };
        places.push((at, with_previous || with_next));
    }
    places
}

/// How often a player finished at each place, labelled: "1st 0 · 2nd 1 · 3rd 2".
pub fn places_labelled(times: &[u32]) -> String {
    times
        .iter()
        .enumerate()
        .map(|(i, n)| format!("{} {n}", ordinal(i + 1)))
        .collect::<Vec<_>>()
        .join(" · ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_of_a_thing_is_singular_and_any_other_count_plural() {
        assert_eq!(count(1u32, "round", "rounds"), "1 round");
        assert_eq!(count(0u32, "round", "rounds"), "0 rounds");
        assert_eq!(
            count(2u32, "earlier round", "earlier rounds"),
            "2 earlier rounds"
        );
        assert_eq!(count(0.5, "point", "points"), "0.5 points");
        assert_eq!(count(-1.0, "point", "points"), "-1 points");
    }

    #[test]
    fn ordinals_take_st_nd_rd_and_th_with_the_teens_th() {
        let written: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111]
            .into_iter()
            .map(ordinal)
            .collect();
        assert_eq!(
            written,
            [
                "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd",
                "101st", "111th"
            ]
        );
    }

    #[test]
    fn tied_items_share_the_first_place_of_their_run_and_are_marked() {
        // (position in the list, points): equal points are a tie.
        let rows = [(1, 9), (2, 5), (3, 5), (4, 5), (5, 2), (6, 1), (7, 1)];
        let written: Vec<String> = shared_places(&rows, |r| r.0, |a, b| a.1 == b.1)
            .iter()
            .map(|(n, shared)| place(n, *shared))
            .collect();
        assert_eq!(written, ["1", "2=", "2=", "2=", "5", "6=", "6="]);
    }

    #[test]
    fn places_are_labelled_with_their_ordinals() {
        assert_eq!(
            places_labelled(&[0, 1, 2, 0, 0]),
            "1st 0 · 2nd 1 · 3rd 2 · 4th 0 · 5th 0"
        );
        assert_eq!(places_labelled(&[]), "");
    }
}
