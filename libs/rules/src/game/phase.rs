//! The phases of a turn, in order.

/// The phases of a power's turn, in order.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Phase {
    Repairs,
    WeaponsDevelopment,
    Purchase,
    CombatMove,
    Battles,
    NonCombatMove,
    Placement,
    Income,
    /// "War": each player rolls for their bases (the game's first step).
    StartZones,
    /// "War": each round starts with a roll for the order of play.
    Initiative,
    /// "War": the player to the right rolls, places and moves the non-player nations'
    /// reinforcements before the active player's spending (`Purchase`) and movement
    /// (`CombatMove`, where every move resolves as it is made).
    Reinforcements,
}

impl Phase {
    pub const ALL: [Phase; 8] = [
        Phase::Repairs,
        Phase::WeaponsDevelopment,
        Phase::Purchase,
        Phase::CombatMove,
        Phase::Battles,
        Phase::NonCombatMove,
        Phase::Placement,
        Phase::Income,
    ];

    /// In plain words, for people: "non-combat move".
    pub fn name(self) -> &'static str {
        match self {
            Phase::Repairs => "repairs",
            Phase::WeaponsDevelopment => "weapons development",
            Phase::Purchase => "purchase",
            Phase::CombatMove => "combat move",
            Phase::Battles => "battles",
            Phase::NonCombatMove => "non-combat move",
            Phase::Placement => "placement",
            Phase::Income => "income",
            Phase::StartZones => "start zones",
            Phase::Initiative => "initiative",
            Phase::Reinforcements => "reinforcements",
        }
    }

    pub(crate) fn next(self) -> Option<Phase> {
        let i = Phase::ALL.iter().position(|p| *p == self)?;
        Phase::ALL.get(i + 1).copied()
    }
}
