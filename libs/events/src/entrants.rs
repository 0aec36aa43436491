//! Who sits down to a new game: the players, and their bids for the survivor where the
//! ruleset is won by survival (AAP Historical, 9.1). Checked here, once, for every way a
//! game is created.

use std::collections::BTreeMap;

/// The most characters (bytes) of a player's handle in a game.
const MAX_HANDLE: usize = 100;

/// The turns a bid may name (AAP Historical, 9.1: the survivor must last that long).
const BIDS: std::ops::RangeInclusive<u32> = 1..=30;

/// Who sits down to a new game, and their bids for the survivor if they bid.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entrants {
    pub players: Vec<String>,
    /// One a player, in the same order.
    pub bids: Option<Vec<u32>>,
}

impl From<Vec<String>> for Entrants {
    fn from(players: Vec<String>) -> Self {
        Entrants {
            players,
            bids: None,
        }
    }
}

impl Entrants {
    /// The players (distinct handles of 1 to 100 printable characters) with their bids,
    /// checked: a bid for each player and for nobody else, each 1 to 30 turns. The refusal
    /// names the field it is about, for people.
    pub fn checked(
        players: Vec<String>,
        bids: Option<&BTreeMap<String, u32>>,
    ) -> Result<Entrants, String> {
        let mut distinct = players.clone();
        distinct.sort();
        distinct.dedup();
        if distinct.len() != players.len()
            || players
                .iter()
                .any(|p| p.is_empty() || p.len() > MAX_HANDLE || p.chars().any(char::is_control))
        {
            return Err("players: distinct handles of 1 to 100 printable characters".to_owned());
        }
        let bids = bids.map(|bids| bids_of(&players, bids)).transpose()?;
        Ok(Entrants { players, bids })
    }

    /// The round the survivor must last to: the lowest bid, which plays it.
    pub fn survival_round(&self) -> Option<u32> {
        self.bids.as_ref().and_then(|b| b.iter().min().copied())
    }

    /// The options a game of these entrants is created with: those asked for, the survival
    /// round set by the lowest bid when the players bid.
    pub fn options(
        &self,
        asked: warlog_rules::document::GameOptions,
    ) -> warlog_rules::document::GameOptions {
        let mut options = asked;
        if let Some(lowest) = self.survival_round() {
            options.survive_to_round = Some(lowest);
        }
        options
    }
}

/// The bids, in the order of `players`, checked: one a player, 1 to 30 turns.
fn bids_of(players: &[String], bids: &BTreeMap<String, u32>) -> Result<Vec<u32>, String> {
    if let Some(stranger) = bids.keys().find(|b| !players.contains(b)) {
        return Err(format!("bids: {stranger} is not a player"));
    }
    players
        .iter()
        .map(|player| match bids.get(player) {
            Some(bid) if BIDS.contains(bid) => Ok(*bid),
            Some(bid) => Err(format!("bids: {player} bid {bid}; a bid is 1 to 30 turns")),
            None => Err(format!("bids: {player} has no bid")),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn players() -> Vec<String> {
        ["ann", "bob", "cy"].map(String::from).to_vec()
    }

    fn bids(of: &[(&str, u32)]) -> BTreeMap<String, u32> {
        of.iter().map(|(p, b)| ((*p).to_owned(), *b)).collect()
    }

    #[test]
    fn players_who_bid_each_once_enter_with_their_bids_in_their_order() {
        // Given three players and a bid from each
        let given = bids(&[("cy", 9), ("ann", 12), ("bob", 7)]);
        // When they are checked
        let entrants = Entrants::checked(players(), Some(&given)).expect("entered");
        // Then the bids follow the players' order, and the lowest sets the survival round
        assert_eq!(entrants.bids, Some(vec![12, 7, 9]));
        assert_eq!(entrants.survival_round(), Some(7));
    }

    #[test]
    fn the_lowest_bid_sets_the_game_options_survival_round() {
        // Given players who bid, and options asking for the alternate turn order
        let entrants = Entrants::checked(
            players(),
            Some(&bids(&[("cy", 9), ("ann", 12), ("bob", 7)])),
        )
        .expect("entered");
        let asked = warlog_rules::document::GameOptions {
            alternate_turn_order: true,
            ..Default::default()
        };
        // When the game's options are made
        let options = entrants.options(asked);
        // Then the lowest bid is the survival round, and the rest is as asked
        assert_eq!(options.survive_to_round, Some(7));
        assert!(options.alternate_turn_order);
        // And without bids the options are as asked
        let unbid = Entrants::checked(players(), None).expect("entered");
        assert_eq!(unbid.options(asked), asked);
    }

    #[test]
    fn players_who_do_not_bid_enter_without_a_survival_round() {
        let entrants = Entrants::checked(players(), None).expect("entered");
        assert_eq!(entrants.bids, None);
        assert_eq!(entrants.survival_round(), None);
    }

    #[test]
    fn a_bid_from_a_stranger_none_from_a_player_or_one_out_of_range_is_refused_by_name() {
        for (given, refusal) in [
            (
                bids(&[("ann", 1), ("bob", 2), ("cy", 3), ("zed", 4)]),
                "bids: zed is not a player",
            ),
            (bids(&[("ann", 1), ("cy", 3)]), "bids: bob has no bid"),
            (
                bids(&[("ann", 1), ("bob", 31), ("cy", 3)]),
                "bids: bob bid 31; a bid is 1 to 30 turns",
            ),
            (
                bids(&[("ann", 0), ("bob", 2), ("cy", 3)]),
                "bids: ann bid 0; a bid is 1 to 30 turns",
            ),
        ] {
            assert_eq!(
                Entrants::checked(players(), Some(&given)),
                Err(refusal.to_owned())
            );
        }
    }

    #[test]
    fn a_player_twice_an_empty_handle_or_a_control_character_is_refused() {
        for players in [
            vec!["ann".to_owned(), "ann".to_owned()],
            vec!["ann".to_owned(), String::new()],
            vec!["ann".to_owned(), "b\nob".to_owned()],
            vec!["x".repeat(101)],
        ] {
            assert_eq!(
                Entrants::checked(players, None),
                Err("players: distinct handles of 1 to 100 printable characters".to_owned())
            );
        }
    }
}
