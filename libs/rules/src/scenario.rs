//! Enhanced Realism's scenarios (Section VII, R. D. Baker, 1998;
//! `seeds/enhanced-realism-industrial-capacity.txt`): each power's income multiplier, and
//! income: originally owned territories held, times the multiplier, plus the printed value
//! of captured ones, minus bombing losses.

use crate::board::Power;

/// The seed's scenarios: each power's income multiplier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Scenario {
    IntroductoryHistorical,
    AllDoubled,
    IntermediateHistorical,
    AllTripled,
    AdvancedHistorical,
    StrongRussian,
}

impl Scenario {
    /// The multiplier of `power`: USSR, Germany, UK, Japan, USA as the seed lists them.
    pub fn multiplier(self, power: Power) -> u32 {
        let [ussr, germany, uk, japan, usa] = match self {
            Scenario::IntroductoryHistorical => [2, 2, 1, 1, 2],
            Scenario::AllDoubled => [2, 2, 2, 2, 2],
            // The seed's 11-04-98 correction: the USA's is 3, not 4.
            Scenario::IntermediateHistorical => [3, 3, 2, 2, 3],
            Scenario::AllTripled => [3, 3, 3, 3, 3],
            Scenario::AdvancedHistorical => [4, 3, 2, 2, 4],
            Scenario::StrongRussian => [5, 3, 2, 2, 4],
        };
        match power {
            Power::Russia => ussr,
            Power::Germany => germany,
            Power::UnitedKingdom => uk,
            Power::Japan => japan,
            Power::UnitedStates => usa,
            // Enhanced Realism is a Classic-board option: the Chinese factions are AAP's.
            Power::Ccp | Power::Kmt | Power::Npn => 1,
        }
    }

    /// With the USA phased in, its multiplier is 1 on turn 1 and grows by one a turn up to
    /// the scenario's.
    pub fn multiplier_on_turn(self, power: Power, turn: u32, usa_phased_in: bool) -> u32 {
        let full = self.multiplier(power);
        if usa_phased_in && power == Power::UnitedStates {
            turn.clamp(1, full)
        } else {
            full
        }
    }
}

/// A power's income for the turn.
pub fn income(original_held: u32, captured_held: u32, multiplier: u32, bombing_losses: u32) -> u32 {
    (original_held * multiplier + captured_held).saturating_sub(bombing_losses)
}
