//! The rulesets a game can be created with: a board, the units, the setup and the points
//! table, under one id. Games name their ruleset in `GameCreated`.

use std::sync::OnceLock;

use crate::board::{Board, Power};
use crate::game::{GameState, Rules};
use crate::scoring::PointsTable;
use crate::setup::Setup;
use crate::units::Catalogue;

/// A playable ruleset.
#[derive(Debug)]
pub struct Ruleset {
    pub id: &'static str,
    pub name: &'static str,
    pub board: &'static Board,
    pub catalogue: Catalogue,
    pub setup: &'static Setup,
    pub points: PointsTable,
    /// The seed documents the ruleset comes from.
    pub sources: &'static [&'static str],
}

/// Why a ruleset is not available.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesetError {
    #[error("no ruleset {0:?}; playable rulesets: {1}")]
    Unknown(String, String),
    #[error("ruleset data: {0}")]
    Data(String),
}

impl Ruleset {
    /// The ids of the rulesets games can be created with.
    pub const PLAYABLE: [&'static str; 1] = ["cutthroat"];

    /// A built-in ruleset by id.
    pub fn builtin(id: &str) -> Result<&'static Ruleset, RulesetError> {
        static CUT_THROAT: OnceLock<Result<Ruleset, RulesetError>> = OnceLock::new();
        match id {
            "cutthroat" => CUT_THROAT
                .get_or_init(|| {
                    let data = |e: &dyn std::fmt::Display| RulesetError::Data(e.to_string());
                    Ok(Ruleset {
                        id: "cutthroat",
                        name: "IAAPA Cut-Throat (2000)",
                        board: Board::classic().map_err(|e| data(&e))?,
                        catalogue: Catalogue::builtin("cutthroat").map_err(|e| data(&e))?,
                        setup: Setup::cut_throat().map_err(|e| data(&e))?,
                        points: PointsTable::cut_throat(),
                        sources: &["cutthroat-rules-2000.txt", "battle-resolution-part13.txt"],
                    })
                })
                .as_ref()
                .map_err(Clone::clone),
            other => Err(RulesetError::Unknown(
                other.to_owned(),
                Self::PLAYABLE.join(", "),
            )),
        }
    }

    pub fn rules(&self) -> Rules<'_> {
        Rules {
            board: self.board,
            catalogue: &self.catalogue,
        }
    }

    /// The powers, in turn order: a game seats one player at each.
    pub fn powers(&self) -> &[Power] {
        self.board.turn_order()
    }

    /// The state before the first move.
    pub fn start(&self) -> GameState {
        GameState::start(self.rules(), self.setup)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_playable_ruleset_loads_and_seats_five_powers() {
        for id in Ruleset::PLAYABLE {
            let ruleset = Ruleset::builtin(id).expect(id);
            assert_eq!(ruleset.id, id);
            assert_eq!(ruleset.powers().len(), 5);
            assert_eq!(ruleset.start().round, 1);
        }
    }

    #[test]
    fn an_unknown_ruleset_is_refused_naming_the_playable_ones() {
        let error = Ruleset::builtin("chess").expect_err("unknown");
        assert!(error.to_string().contains("cutthroat"), "{error}");
    }
}
