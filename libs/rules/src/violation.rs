//! Why an order is refused: a stable code, the rule it breaks and a message for people.
//! The codes are one table, one line each: the enum, its strings and the list of every
//! code come from it, so a new refusal is one line and a misspelt code does not compile.

use std::fmt;

macro_rules! violation_codes {
    ($($variant:ident = $code:literal,)*) => {
        /// A refusal's stable code, as clients match on it. It is written (in the API, in
        /// logs) as its kebab-case string, which never changes.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ViolationCode {
            $($variant,)*
        }

        impl ViolationCode {
            /// Every code, in the table's order.
            pub const ALL: &'static [ViolationCode] = &[$(ViolationCode::$variant,)*];

            /// The code as clients see it (`wrong-phase`).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(ViolationCode::$variant => $code,)*
                }
            }
        }
    };
}

#[rustfmt::skip]
violation_codes! {
    AlreadyAgreed = "already-agreed",
    AlreadyOffered = "already-offered",
    AlreadyResearched = "already-researched",
    AlreadyRevealed = "already-revealed",
    AlreadyRolled = "already-rolled",
    BadArmy = "bad-army",
    BadBids = "bad-bids",
    BadBombardment = "bad-bombardment",
    BadBreakOff = "bad-break-off",
    BadPath = "bad-path",
    BadProxy = "bad-proxy",
    BadRepayment = "bad-repayment",
    BadResearch = "bad-research",
    BadSeats = "bad-seats",
    BattleUnderway = "battle-underway",
    BattlesPending = "battles-pending",
    BeyondCapacity = "beyond-capacity",
    CanalClosed = "canal-closed",
    Cancelled = "cancelled",
    CapitalComplex = "capital-complex",
    CapitalLost = "capital-lost",
    CargoStranded = "cargo-stranded",
    ComplexAlone = "complex-alone",
    ComplexCapturedThisTurn = "complex-captured-this-turn",
    ComplexSettingUp = "complex-setting-up",
    DamagedCannotAttack = "damaged-cannot-attack",
    EmptyPlacement = "empty-placement",
    EmptyPurchase = "empty-purchase",
    EnemyInNonCombat = "enemy-in-non-combat",
    EnemyInTheWay = "enemy-in-the-way",
    ExpansionLimit = "expansion-limit",
    GameBegun = "game-begun",
    GameOver = "game-over",
    GameRunning = "game-running",
    GarrisonLeft = "garrison-left",
    GuerrillasNotAlone = "guerrillas-not-alone",
    GuerrillasSuppressed = "guerrillas-suppressed",
    HeldInPlace = "held-in-place",
    InsufficientFunds = "insufficient-funds",
    InsufficientIpc = "insufficient-ipc",
    KamikazeJapanOnly = "kamikaze-japan-only",
    KamikazeOnceATurn = "kamikaze-once-a-turn",
    KamikazeTarget = "kamikaze-target",
    KamikazeTokens = "kamikaze-tokens",
    KamikazeWithoutFighter = "kamikaze-without-fighter",
    LandUnitAtSea = "land-unit-at-sea",
    NeedsTransport = "needs-transport",
    NeutralTerritory = "neutral-territory",
    NoAgreement = "no-agreement",
    NoAtomicBomb = "no-atomic-bomb",
    NoAttacker = "no-attacker",
    NoBattleHere = "no-battle-here",
    NoBattleship = "no-battleship",
    NoBids = "no-bids",
    NoCombatRoundOne = "no-combat-round-one",
    NoComplex = "no-complex",
    NoComplexSite = "no-complex-site",
    NoFactory = "no-factory",
    NoGroundUnits = "no-ground-units",
    NoGuerrillas = "no-guerrillas",
    NoIndustrialCapacity = "no-industrial-capacity",
    NoLanding = "no-landing",
    NoLoan = "no-loan",
    NoNewComplexes = "no-new-complexes",
    NoOffer = "no-offer",
    NoParatroopers = "no-paratroopers",
    NoPermission = "no-permission",
    NoRaidTarget = "no-raid-target",
    NoRocketGun = "no-rocket-gun",
    NoRocketTarget = "no-rocket-target",
    NoRockets = "no-rockets",
    NoSealift = "no-sealift",
    NoShipyard = "no-shipyard",
    NoTransportSpace = "no-transport-space",
    NoWarLoan = "no-war-loan",
    NotASeaZone = "not-a-sea-zone",
    NotAdjacent = "not-adjacent",
    NotAircraft = "not-aircraft",
    NotByRail = "not-by-rail",
    NotEnoughUnits = "not-enough-units",
    NotGuerrillas = "not-guerrillas",
    NotHeld = "not-held",
    NotInThisRuleset = "not-in-this-ruleset",
    NotLent = "not-lent",
    NotPurchased = "not-purchased",
    NotRecruitSite = "not-recruit-site",
    NotRolled = "not-rolled",
    NotSeated = "not-seated",
    NotTheActivePlayer = "not-the-active-player",
    NotWar = "not-war",
    NotYourTurn = "not-your-turn",
    NothingToRepair = "nothing-to-repair",
    OneComplex = "one-complex",
    OpposingSides = "opposing-sides",
    OrderOfLossRepeats = "order-of-loss-repeats",
    OutOfRange = "out-of-range",
    OutOfTurnLimit = "out-of-turn-limit",
    ParatroopBombers = "paratroop-bombers",
    ParatroopCapacity = "paratroop-capacity",
    ParatroopLand = "paratroop-land",
    PassivePower = "passive-power",
    PatrolPlace = "patrol-place",
    PermissionUnchanged = "permission-unchanged",
    PlayerActive = "player-active",
    PlayerZone = "player-zone",
    ProductionLimit = "production-limit",
    RaidBombersOnly = "raid-bombers-only",
    RailLimit = "rail-limit",
    RailOneKind = "rail-one-kind",
    RailPermission = "rail-permission",
    RailThroughEnemy = "rail-through-enemy",
    ReinforcementsNotRolled = "reinforcements-not-rolled",
    ReinforcementsUnplaced = "reinforcements-unplaced",
    ResearchDice = "research-dice",
    RetreatDestination = "retreat-destination",
    RocketFired = "rocket-fired",
    RocketTarget = "rocket-target",
    RogueNoRail = "rogue-no-rail",
    RogueNoRepairs = "rogue-no-repairs",
    SelfAgreement = "self-agreement",
    ShipOnLand = "ship-on-land",
    StandingAlliance = "standing-alliance",
    StandingOrdersSealed = "standing-orders-sealed",
    StoppedByEnemy = "stopped-by-enemy",
    SubmarinesHidden = "submarines-hidden",
    SupportShotAtSea = "support-shot-at-sea",
    SuppressionRolled = "suppression-rolled",
    TermsTooLong = "terms-too-long",
    TooFar = "too-far",
    TooLarge = "too-large",
    TooManyMoves = "too-many-moves",
    UnitMissing = "unit-missing",
    UnitsMissing = "units-missing",
    UnitsUnplaced = "units-unplaced",
    UnknownPlace = "unknown-place",
    UnknownPower = "unknown-power",
    UnknownUnit = "unknown-unit",
    UnloadEndsMove = "unload-ends-move",
    VoidWithoutReason = "void-without-reason",
    WalkInDefended = "walk-in-defended",
    WarLoanNotNeeded = "war-loan-not-needed",
    WarLoanTiming = "war-loan-timing",
    WarLoanUsed = "war-loan-used",
    WrongPhase = "wrong-phase",
    WrongTerrain = "wrong-terrain",
}

impl fmt::Display for ViolationCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ViolationCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl serde::Serialize for ViolationCode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl TryFrom<&str> for ViolationCode {
    type Error = String;

    fn try_from(code: &str) -> Result<Self, Self::Error> {
        ViolationCode::ALL
            .iter()
            .copied()
            .find(|c| c.as_str() == code)
            .ok_or_else(|| format!("{code:?} is not a refusal code"))
    }
}

/// Read back as written (a refusal kept on the record names its code).
impl<'de> serde::Deserialize<'de> for ViolationCode {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let code = String::deserialize(deserializer)?;
        ViolationCode::try_from(code.as_str()).map_err(serde::de::Error::custom)
    }
}

/// A refused order: a stable code, the rule it breaks, and a message a player understands.
/// The state is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} ({rule})")]
pub struct RuleViolation {
    pub code: ViolationCode,
    pub rule: &'static str,
    pub message: String,
}

pub(crate) fn violation(
    code: ViolationCode,
    rule: &'static str,
    message: impl Into<String>,
) -> RuleViolation {
    RuleViolation {
        code,
        rule,
        message: message.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_kebab_case_and_named_once() {
        let mut seen = std::collections::BTreeSet::new();
        for code in ViolationCode::ALL {
            let text = code.as_str();
            assert!(
                text.split('-').all(|part| !part.is_empty()
                    && part
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())),
                "{text}"
            );
            assert!(seen.insert(text), "{text} twice");
        }
    }
}
