//! What a win is (docs/architecture.md, "The league"): a sole first place is one win; a first place
//! shared by `k` of the table is `1/k` of a win each; a game where everyone ties (an
//! unplayed game the director ended) is no one's win.

use warlog_rules::scoring::Fraction;

/// The share of a win a seat earns: `place` and `tied_with` (how many share that place,
/// itself included) as the game's placements give them, at a table of `seats`.
pub fn win_share(place: usize, tied_with: usize, seats: usize) -> Fraction {
    let sharing = tied_with.max(1);
    if place != 1 || sharing >= seats {
        return Fraction::whole(0);
    }
    Fraction::new(1, i64::try_from(sharing).unwrap_or(i64::MAX)).unwrap_or(Fraction::whole(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sole_first_place_is_one_win_a_shared_one_a_share_and_an_all_tied_game_none() {
        assert_eq!(win_share(1, 1, 5), Fraction::whole(1));
        assert_eq!(win_share(1, 2, 5), Fraction::new(1, 2).expect("half"));
        assert_eq!(win_share(1, 4, 5), Fraction::new(1, 4).expect("quarter"));
        assert_eq!(win_share(1, 5, 5), Fraction::whole(0), "all five tied");
        assert_eq!(win_share(2, 1, 5), Fraction::whole(0));
    }
}
