//! The Classic weapons developments and what each changes.

use crate::dice::Die;

/// The Classic weapons developments, in the order of the chart's die (1 to 6).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Technology {
    /// Fighters defend at 5.
    JetFighters,
    /// AA guns may attack a complex within 3 spaces instead of defending.
    Rockets,
    /// Submarines attack at 3.
    SuperSubmarines,
    /// Fighters and bombers move 2 spaces further.
    LongRangeAircraft,
    /// Every unit costs 1 IPC less.
    IndustrialTechnology,
    /// Bombers roll 3 dice when attacking and bombing.
    HeavyBombers,
}

impl Technology {
    pub const CHART: [Technology; 6] = [
        Technology::JetFighters,
        Technology::Rockets,
        Technology::SuperSubmarines,
        Technology::LongRangeAircraft,
        Technology::IndustrialTechnology,
        Technology::HeavyBombers,
    ];

    /// The weapon a chart die names.
    pub fn on_chart(die: Die) -> Technology {
        Technology::CHART[usize::from(die.value() - 1)]
    }
}
