//! AAP "Historical" (`seeds/aap-historical-rules.txt`): its players and order of play,
//! the free reinforcement schedule, the IPC changes with the US mainland's growing value,
//! the Chinese factions' recruits, and Heavy Weapons Fire Vulnerability (HWV).
//!
//! Units are named by the seed's abbreviations (`inf`, `art`, `arm`, `ftr`, `bmr`, `trn`,
//! `sub`, `des`, `cv`, `bb`, plus the 3-hit battleships Yamato and Musashi).

pub mod board;

/// The players, in the seed's order of play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AapPower {
    Japan,
    /// The Chinese Communist Party.
    Ccp,
    /// The Kuomintang.
    Kmt,
    UnitedKingdom,
    UnitedStates,
}

impl AapPower {
    /// "The order of play is Japan, CCP, KMT, UK, US."
    pub const ORDER: [AapPower; 5] = [
        AapPower::Japan,
        AapPower::Ccp,
        AapPower::Kmt,
        AapPower::UnitedKingdom,
        AapPower::UnitedStates,
    ];

    /// The engine's power for this player.
    pub fn power(self) -> crate::board::Power {
        use crate::board::Power;
        match self {
            AapPower::Japan => Power::Japan,
            AapPower::Ccp => Power::Ccp,
            AapPower::Kmt => Power::Kmt,
            AapPower::UnitedKingdom => Power::UnitedKingdom,
            AapPower::UnitedStates => Power::UnitedStates,
        }
    }
}

/// Units arriving free at the end of a turn, where the seed places them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reinforcement {
    pub at: &'static str,
    pub units: &'static [(&'static str, u32)],
}

/// The fixed schedule (1.1): Japan, the UK and the US on turns 1 to 3. The Chinese
/// recruit by formula instead ([`chinese_recruits`]).
pub fn reinforcements(power: AapPower, turn: u32) -> Vec<Reinforcement> {
    const JAPAN: [(&str, u32); 4] = [("trn", 1), ("sub", 1), ("des", 1), ("ftr", 1)];
    let plan: &[(&'static str, &'static [(&'static str, u32)])] = match (power, turn) {
        (AapPower::Japan, 1) => &[("SZ 36", &JAPAN)],
        (AapPower::Japan, 2) => &[(
            "SZ 36",
            &[
                ("trn", 1),
                ("sub", 1),
                ("des", 1),
                ("ftr", 1),
                ("Yamato", 1),
            ],
        )],
        (AapPower::Japan, 3) => &[(
            "SZ 36",
            &[
                ("trn", 1),
                ("sub", 1),
                ("des", 1),
                ("ftr", 1),
                ("Musashi", 1),
            ],
        )],
        (AapPower::UnitedKingdom, 3) => &[(
            "SZ 51",
            &[
                ("cv", 2),
                ("bb", 5),
                ("des", 5),
                ("trn", 5),
                ("inf", 7),
                ("art", 3),
                ("ftr", 4),
            ],
        )],
        (AapPower::UnitedStates, 1 | 2) => {
            &[("SZ 3", &[("trn", 1), ("des", 1), ("cv", 1), ("ftr", 2)])]
        }
        (AapPower::UnitedStates, 3) => &[("SZ 3", &[("bb", 1), ("des", 8), ("cv", 1), ("ftr", 2)])],
        _ => &[],
    };
    plan.iter()
        .map(|(at, units)| Reinforcement { at, units })
        .collect()
}

/// Hits a 3-hit battleship takes to sink (Yamato, Musashi).
pub const SUPER_BATTLESHIP_HITS: u8 = 3;

/// The printed values the seed changes (2. IPC Changes); `None` for the others.
pub fn ipc_value(territory: &str) -> Option<u32> {
    match territory {
        // 2f: "US mainland IPC Value = 10 + 10 per turn"; the board prints 55.
        US_MAINLAND => Some(us_mainland_value(0)),
        "Manchuria" => Some(4),
        "Shantung" => Some(6),
        "Tsinghai" | "Sinkiang" | "Shansi" => Some(1),
        _ => None,
    }
}

/// The US mainland's value during `turn` (0 before the first): 10, plus 10 a turn from
/// turn 1. With the rest of the US's holdings (20), the US has $30 at the start and $40
/// at the end of turn 1, then $10 more a turn.
pub fn us_mainland_value(turn: u32) -> u32 {
    10 + 10 * turn
}

/// The starting incomes the seed gives.
pub const STARTING_IPC: [(&str, u32); 4] =
    [("Japan", 24), ("India", 15), ("Australia", 20), ("USA", 30)];

/// The Hawaiian Islands' limited complex: units a turn.
pub const HAWAII_UNITS_PER_TURN: u32 = 2;

/// Where the KMT must place all its units.
pub const KMT_CAPITAL: &str = "Szechwan";

/// Free infantry for a Chinese faction at the start of its turn (1.1):
/// - the CCP: 2 a turn while it has units anywhere (rural recruitment), plus 1 per IPC area
///   it alone holds;
/// - the KMT: 1 per IPC area it alone holds, plus 1 for the Burma Road.
pub fn chinese_recruits(
    faction: AapPower,
    sole_areas: u32,
    has_units: bool,
    holds_burma_road: bool,
) -> u32 {
    match faction {
        AapPower::Ccp => sole_areas + if has_units { 2 } else { 0 },
        AapPower::Kmt => sole_areas + u32::from(holds_burma_road),
        _ => 0,
    }
}

/// The catalogue code of a unit as the seed names it.
pub fn unit_code(unit: &str) -> &'static str {
    match unit {
        "inf" => "INF",
        "art" => "ART",
        "arm" => "ARM",
        "mar" => "MAR",
        "ftr" => "FTR",
        "bmr" => "BMB",
        "trn" => "TRN",
        "sub" => "SUB",
        "des" => "DES",
        "cv" => "AC",
        "bb" => "BB",
        // Yamato and Musashi.
        _ => "BB3",
    }
}

/// AAP Historical's rules beyond the Classic engine, as the ruleset document holds them:
/// the reinforcement schedule, the IPC changes, the US mainland's growth, Hawaii's limited
/// complex, no US complexes, HWV, and the Pacific board's rules the seed leans on (convoys,
/// hidden submarines, patrols, kamikaze tokens, bases).
pub fn special_rules() -> crate::document::SpecialRules {
    use crate::document::{
        ConvoyCentre, GrowingValue, LimitedComplex, PrintedValue, ReinforcementDocument,
        SpecialRules,
    };
    let reinforcements = AapPower::ORDER
        .iter()
        .flat_map(|power| (1..=3).map(move |round| (*power, round)))
        .flat_map(|(power, round)| {
            reinforcements(power, round)
                .into_iter()
                .map(move |arrival| ReinforcementDocument {
                    power: power.power(),
                    round,
                    territory: arrival.at.to_owned(),
                    units: arrival
                        .units
                        .iter()
                        .map(|(unit, n)| format!("{n} {}", unit_code(unit)))
                        .collect::<Vec<_>>()
                        .join(", "),
                })
        })
        .collect();
    SpecialRules {
        combat_from_round: None,
        // The AAP document's battles are its own; Cut-Throat's Part 13 defaults are not
        // switched on here (an upload may).
        saac_from_round: None,
        defender_hits_by_column: false,
        subs_withdraw_from_aircraft: false,
        heavy_weapons: true,
        // 4.1: "Units that don't count towards HWV include: ... CCP" (attacking too).
        heavy_weapons_uncounted: vec![crate::board::Power::Ccp],
        reinforcements,
        printed_values: [
            "Manchuria",
            "Shantung",
            "Tsinghai",
            "Sinkiang",
            "Shansi",
            US_MAINLAND,
        ]
        .iter()
        .filter_map(|t| {
            ipc_value(t).map(|ipc| PrintedValue {
                territory: (*t).to_owned(),
                ipc,
            })
        })
        .collect(),
        convoy_centres: CONVOY_CENTRES
            .iter()
            .map(|(zone, ipc, power)| ConvoyCentre {
                sea_zone: (*zone).to_owned(),
                ipc: *ipc,
                power: *power,
                // 2: "At start: ... India: 15, Aus.: 20": the UK's land, no convoy.
                income_only: *power == crate::board::Power::UnitedKingdom,
            })
            .collect(),
        growing_values: vec![GrowingValue {
            territory: US_MAINLAND.to_owned(),
            base: us_mainland_value(0),
            per_round: us_mainland_value(1) - us_mainland_value(0),
        }],
        limited_complexes: vec![LimitedComplex {
            territory: HAWAII.to_owned(),
            units: HAWAII_UNITS_PER_TURN,
        }],
        no_new_complexes: vec![crate::board::Power::UnitedStates],
        // 1h, 2.4: "only ftrs and subs may move on J1" from SZ 20.
        held_in_round_one: vec![crate::document::HeldInPlace {
            territory: "SZ 20".to_owned(),
            may_move: vec!["FTR".to_owned(), "SUB".to_owned()],
        }],
        // 7.1: "Subs in a sea zone do not block opposing vessels seeking to pass through".
        submarines_do_not_block: true,
        // The seed's income is printed values, collected at the end of the turn.
        scenario_income_at_turn_start: false,
        continents: Vec::new(),
        // The seed's rules have no Swiss Bank, rail, paratroopers or fighter kamikaze run,
        // and its battleships are the Pacific board's: those are Cut-Throat's.
        without: vec![
            crate::document::CutThroatRule::WarLoans,
            crate::document::CutThroatRule::Rail,
            crate::document::CutThroatRule::Paratroopers,
            crate::document::CutThroatRule::KamikazeRuns,
            crate::document::CutThroatRule::BattleshipRepairs,
        ],
        // The Allies stand together against Japan all game ...
        alliances: vec![vec![
            crate::board::Power::Ccp,
            crate::board::Power::Kmt,
            crate::board::Power::UnitedKingdom,
            crate::board::Power::UnitedStates,
        ]],
        // ... but for 3: the KMT and the CCP "can choose to fight each other".
        rivals: vec![[crate::board::Power::Ccp, crate::board::Power::Kmt]],
        // 9: Japan wins or the Allies win; 9.1: the players bid for Japan. Two sides.
        sides: true,
        // The Pacific board's battleship: two hits, whole again at the end of its turn.
        repair_at_turn_end: true,
        // 5.1: only Japan and the US mainland can be "nuked".
        surrender_when_bombed_out: vec!["Japan".to_owned(), US_MAINLAND.to_owned()],
        // 3.1, 3.4: the CCP's guerrillas.
        guerrillas: vec![crate::board::Power::Ccp],
        start_zones: None,
        // 1.1: the Chinese raise infantry instead of collecting money.
        recruits: vec![
            crate::document::RecruitsDocument {
                power: crate::board::Power::Ccp,
                per_turn: 2,
                per_sole_area: 1,
                for_holding: Vec::new(),
                held_by: Vec::new(),
                place_at: None,
                // 1.1a: "to be placed any province that they have a unit in".
                placed_by_player: true,
            },
            crate::document::RecruitsDocument {
                power: crate::board::Power::Kmt,
                per_turn: 0,
                per_sole_area: 1,
                for_holding: BURMA_ROAD.map(str::to_owned).to_vec(),
                held_by: vec![
                    crate::board::Power::Kmt,
                    crate::board::Power::UnitedKingdom,
                    crate::board::Power::UnitedStates,
                ],
                place_at: Some(KMT_CAPITAL.to_owned()),
                placed_by_player: false,
            },
        ],
        // 6, 8.1: convoy centres and routes are captured and liberated.
        convoy_routes: CONVOY_ROUTES
            .iter()
            .map(|(zone, territory)| crate::document::ConvoyRoute {
                sea_zone: (*zone).to_owned(),
                territory: (*territory).to_owned(),
            })
            .collect(),
        convoy_capture: true,
        // 7.1: "Subs cannot be attacked unless ...".
        submarines_hidden: true,
        // 8: "The Combat Air Patrol (CAP) rules from AAP apply".
        combat_air_patrol: true,
        // 3.5: "units are considered lent by US to KMT to use on KMT's turn".
        lending: vec![crate::document::Lending {
            from: crate::board::Power::UnitedStates,
            to: crate::board::Power::Kmt,
        }],
        // 3.2: "CCP (and KMT) must try to keep at least 1 infantry in Shansi at all times
        // unless it is occupied by Japan."
        garrisons: vec![crate::document::Garrison {
            territory: "Shansi".to_owned(),
            powers: vec![crate::board::Power::Ccp, crate::board::Power::Kmt],
        }],
        // 1i: "Japan has 12 kamikazes available in Japan not just 6", as the Pacific
        // board plays them.
        kamikaze_tokens: Some(crate::document::KamikazeTokens {
            power: crate::board::Power::Japan,
            tokens: KAMIKAZE_TOKENS,
            zones: KAMIKAZE_ZONES.map(str::to_owned).to_vec(),
            attack: KAMIKAZE_ATTACK,
            targets: KAMIKAZE_TARGETS.map(str::to_owned).to_vec(),
        }),
        // The Pacific board's bases, with 2.4: "Midway should be an Airbase not a Naval
        // base".
        bases: AIR_BASES
            .iter()
            .map(|t| (t, crate::document::BaseKind::Air))
            .chain(
                NAVAL_BASES
                    .iter()
                    .map(|t| (t, crate::document::BaseKind::Naval)),
            )
            .map(|(territory, kind)| crate::document::Base {
                territory: (*territory).to_owned(),
                kind,
            })
            .collect(),
    }
}

/// 1i: "Japan has 12 kamikazes available in Japan not just 6" (the board gives 6).
pub const KAMIKAZE_TOKENS: u32 = 12;

/// The Pacific board's kamikaze zones, the sea zones around Japan (TripleA's
/// `pacific.xml`, `kamikazeZone`; Japan's at the start).
pub const KAMIKAZE_ZONES: [&str; 6] = ["SZ 23", "SZ 24", "SZ 25", "SZ 35", "SZ 36", "SZ 37"];

/// A token's die hits on 2 or less (`pacific.xml`: `suicideAttackResources`, count 2).
pub const KAMIKAZE_ATTACK: u8 = 2;

/// What a token strikes: surface warships, not transports or submarines.
pub const KAMIKAZE_TARGETS: [&str; 4] = ["DES", "AC", "BB", "BB3"];

/// Where 2.4's change is: "Midway: AH made a mistake – Midway should be an Airbase not a
/// Naval base".
pub const MIDWAY: &str = "Midway";

/// The Pacific board's air bases (TripleA's airfields in `pacific.xml`), and Midway's
/// (2.4).
pub const AIR_BASES: [&str; 12] = [
    "Bonin",
    "Caroline",
    "Formosa",
    HAWAII,
    "Japan",
    "Mariana",
    MIDWAY,
    "New Britain",
    "Philippines",
    "Ryukyu",
    "Solomon",
    US_MAINLAND,
];

/// The Pacific board's naval bases (TripleA's harbours), without Midway's (2.4).
pub const NAVAL_BASES: [&str; 14] = [
    "Caroline",
    HAWAII,
    "India",
    "Japan",
    "Java",
    "Malaya",
    "New Britain",
    "New Hebrides",
    "New South Wales",
    "New Zealand",
    "Papua",
    "Philippines",
    "Samoa",
    US_MAINLAND,
];

/// The Pacific board's convoy routes: a sea zone and the land it supplies (TripleA's
/// `pacific.xml`, `convoyRoute`).
pub const CONVOY_ROUTES: [(&str, &str); 11] = [
    ("SZ 9", HAWAII),
    ("SZ 13", "New Zealand"),
    ("SZ 36", "Korea"),
    ("SZ 37", "Shantung"),
    ("SZ 38", "Philippines"),
    ("SZ 39", "Celebes"),
    ("SZ 43", "Java"),
    ("SZ 44", "Borneo"),
    ("SZ 45", "French Indo China"),
    ("SZ 46", "Malaya"),
    ("SZ 47", "Sumatra"),
];

/// The board names the seed's land-space list gives them ("US", "HAW").
pub const US_MAINLAND: &str = "United States";
pub const HAWAII: &str = "Hawaiian Isl";
/// The Burma Road, from India's supply ports through Burma and Yunnan to Szechwan: the
/// KMT's extra recruit while the Allies hold all of it (the seed does not draw the road;
/// this is the route TripleA's Pacific map checks).
pub const BURMA_ROAD: [&str; 4] = ["India", "Burma", "Yunnan", "Szechwan"];

/// The Pacific board's convoy centres, their values and owners (the Australians' SZ 15
/// goes to the UK, which plays Australia). The seed's "USA: 30" at start is the mainland's
/// 10, Hawaii's 2, the Philippines' 3 and these US centres' 15.
pub const CONVOY_CENTRES: [(&str, u32, crate::board::Power); 5] = [
    ("SZ 3", 10, crate::board::Power::UnitedStates),
    ("SZ 6", 5, crate::board::Power::UnitedStates),
    ("SZ 15", 5, crate::board::Power::UnitedKingdom),
    ("SZ 49", 3, crate::board::Power::UnitedKingdom),
    ("SZ 52", 4, crate::board::Power::UnitedKingdom),
];

/// Heavy Weapons Fire Vulnerability: the battle engine decides it (`battle/hwv.rs`).
pub use crate::battle::hwv;

#[cfg(test)]
mod tests;
