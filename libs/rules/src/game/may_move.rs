//! Units that may still move, and how far: what a game's moment lists (`moment`), for
//! the Classic engine's moves and the War flow's (`home_cooked`) alike.

use crate::board::TerritoryId;
use crate::units::UnitTypeId;

/// Units of one type in one place that may still move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MayMove {
    pub place: TerritoryId,
    pub unit: UnitTypeId,
    pub count: u32,
    pub reach: Reach,
}

/// How far units may still move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Up to this many spaces.
    Spaces(u8),
    /// Land units aboard transports: they go where the transports go, or ashore next door.
    Aboard,
}
