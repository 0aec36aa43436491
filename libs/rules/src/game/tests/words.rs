//! Events in words: a table of events and the sentences people read for them, a battle's
//! losses from the state before it, phase ends run together, sealed orders kept secret,
//! and random games on every kind of board read without a trace of Rust.

use std::collections::BTreeSet;

use super::*;
use crate::battle::{BombingRaid, Outcome};
use crate::dice::{Die, GameSeed};
use crate::game::autoplay::{chooser, random_order};
use crate::game::combat::{BattleFought, BattleOrders, RaidFlown};
use crate::game::home_cooked::{
    AirRaid, ParleyRoll, ResearchTry, Sealift, StartZones, WarBattle, WarBattleOutcome,
    WarBattleRound, WarMove,
};
use crate::game::standing::{AppliedOrders, SealedOrders, StandingOrders};
use crate::game::words::{describe, describe_in, summary};
use crate::game::{AgreementEnd, AgreementEnded, Outbreak, Seizure};
use crate::home_cooked_tables::{Parley, WarTechnology};
use crate::ruleset::Ruleset;

fn die(value: u8) -> Die {
    Die::try_from(value).expect("a die")
}

fn dice(values: &[u8]) -> Vec<Die> {
    values.iter().map(|v| die(*v)).collect()
}

fn at() -> Moment {
    Moment::from_unix_seconds(1_790_000_000)
}

/// A battle with nothing but what a sentence reads.
fn battle(territory: &str, outcome: Outcome) -> BattleFought {
    BattleFought {
        attacker: Power::Germany,
        defender: Some(Power::Russia),
        defenders: vec![Power::Russia],
        territory: place_id(territory),
        outcome,
        dice: dice(&[1, 2, 3]),
        attacker_left: Vec::new(),
        defender_left: Vec::new(),
        retreat_to: None,
        subs_withdrew_to: None,
        subs_retreated: None,
        captured: false,
        liberated_for: None,
        plunder: 0,
        bombarded_from: Vec::new(),
        kamikaze: false,
        orders: BattleOrders::at(place_id(territory)),
        standing_orders: None,
        listing: "A1 1*2*3 2 Hits".into(),
    }
}

fn orders_of_loss(codes: &[&str]) -> StandingOrders {
    StandingOrders {
        order_of_loss: codes.iter().map(|c| unit(c)).collect(),
        ..StandingOrders::default()
    }
}

/// Events of the Classic board (Cut-Throat's units) and their sentences.
fn classic_table() -> Vec<(GameEvent, &'static str)> {
    let captured = BattleFought {
        attacker_left: vec![(unit("INF"), 0, 2), (unit("ARM"), 0, 1)],
        captured: true,
        ..battle("Ukraine", Outcome::AttackerWins)
    };
    let held_at_sea = BattleFought {
        attacker: Power::Japan,
        defender: Some(Power::UnitedKingdom),
        defenders: vec![Power::UnitedKingdom],
        defender_left: vec![(Power::UnitedKingdom, unit("BB"), 1, 1)],
        subs_withdrew_to: Some(place_id("West Africa Sea Zone")),
        ..battle("Angola Sea Zone", Outcome::DefenderWins)
    };
    let withdrew = BattleFought {
        attacker_left: vec![(unit("ARM"), 0, 1)],
        defender_left: vec![(Power::Russia, unit("INF"), 0, 2)],
        retreat_to: Some(place_id("East Europe")),
        standing_orders: Some(AppliedOrders {
            power: Power::Russia,
            territory: None,
            orders: orders_of_loss(&["ARM"]),
            given_round: 1,
            given_during: Power::Russia,
            sealed_at: 3,
        }),
        ..battle("Ukraine", Outcome::AttackerRetreated)
    };
    let subs_retreated = BattleFought {
        attacker_left: vec![(unit("FTR"), 0, 3)],
        defender: Some(Power::UnitedKingdom),
        defenders: vec![Power::UnitedKingdom],
        subs_retreated: Some(crate::game::sub_retreat::SubsRetreated {
            power: Power::UnitedKingdom,
            to: place_id("Baltic Sea Zone"),
            subs: vec![(unit("SUB"), 0, 2)],
        }),
        ..battle("North Sea Zone", Outcome::AttackerWins)
    };
    let blended_in = BattleFought {
        attacker_left: vec![(unit("INF"), 0, 5)],
        defender_left: vec![(Power::Russia, unit("INF"), 0, 3)],
        captured: true,
        ..battle("Karelia", Outcome::DefenderBlendedIn)
    };
    let capital = BattleFought {
        attacker_left: vec![(unit("ARM"), 0, 4)],
        captured: true,
        plunder: 12,
        bombarded_from: vec![(place_id("Baltic Sea Zone"), 1)],
        ..battle("Russia", Outcome::AttackerWins)
    };
    vec![
        (
            GameEvent::PhaseEnded {
                power: Power::Germany,
                phase: Phase::CombatMove,
                at: at(),
            },
            "Germany ended its combat move phase.",
        ),
        (
            GameEvent::PhaseEnded {
                power: Power::UnitedStates,
                phase: Phase::Income,
                at: at(),
            },
            "United States ended its income phase, and with it its turn.",
        ),
        (
            GameEvent::UnitsPurchased {
                power: Power::Germany,
                units: units_of(&[("INF", 3), ("ARM", 1)]),
                cost: 24,
            },
            "Germany bought 3 INF and 1 ARM for 24 IPC.",
        ),
        (
            GameEvent::UnitsPlaced {
                power: Power::Germany,
                territory: place_id("Germany"),
                units: units_of(&[("INF", 3)]),
            },
            "Germany placed 3 INF in Germany.",
        ),
        (
            GameEvent::IncomeCollected {
                power: Power::Germany,
                amount: 40,
            },
            "Germany collected 40 IPC.",
        ),
        (
            GameEvent::AircraftLost {
                power: Power::Germany,
                losses: vec![
                    (place_id("Baltic Sea Zone"), unit("FTR"), 2),
                    (place_id("Libya"), unit("BMB"), 1),
                ],
            },
            "Germany lost 2 FTR in Baltic Sea Zone and 1 BMB in Libya, with nowhere to land.",
        ),
        (
            GameEvent::UnitsForfeited {
                power: Power::Japan,
                units: units_of(&[("INF", 2)]),
            },
            "Japan forfeited 2 INF it had bought, with no complex left to place them at.",
        ),
        (
            GameEvent::ReinforcementsArrived {
                power: Power::UnitedKingdom,
                territory: place_id("India"),
                units: units_of(&[("INF", 2)]),
                lost: false,
            },
            "United Kingdom received 2 INF as reinforcements in India.",
        ),
        (
            GameEvent::ReinforcementsArrived {
                power: Power::UnitedStates,
                territory: place_id("India"),
                units: units_of(&[("INF", 1)]),
                lost: true,
            },
            "United States' reinforcements of 1 INF for India were lost, as United States no \
             longer holds it.",
        ),
        (
            GameEvent::GuerrillaSuppression {
                power: Power::Japan,
                territory: place_id("China"),
                die: die(1),
                suppressed: true,
            },
            "Japan rolled a 1 to suppress the guerrillas in China and pinned them down for \
             this turn.",
        ),
        (
            GameEvent::GuerrillasAvoidedCombat {
                power: Power::Ccp,
                territory: place_id("China"),
                attacker: Power::Japan,
                taken: true,
            },
            "CCP's guerrillas in China refused battle with Japan: the battle is off, and \
             Japan took China.",
        ),
        (
            GameEvent::RecruitsRaised {
                power: Power::Kmt,
                territory: place_id("China"),
                infantry: 2,
            },
            "KMT raised 2 INF in China.",
        ),
        (
            GameEvent::RecruitsDue {
                power: Power::Ccp,
                infantry: 3,
            },
            "CCP raised 3 INF, to place where it has units.",
        ),
        (
            GameEvent::SubmarinesAttacked {
                power: Power::UnitedKingdom,
                sea_zone: place_id("Angola Sea Zone"),
            },
            "United Kingdom attacked the submarines in Angola Sea Zone, where its destroyer stood as its turn began.",
        ),
        (
            GameEvent::ConvoyCaptured {
                power: Power::Japan,
                sea_zone: place_id("Angola Sea Zone"),
                from: Power::UnitedKingdom,
            },
            "Japan captured the convoy in Angola Sea Zone from United Kingdom.",
        ),
        (
            GameEvent::ConvoyLiberated {
                power: Power::UnitedStates,
                sea_zone: place_id("Angola Sea Zone"),
                for_power: Power::UnitedKingdom,
            },
            "United States liberated the convoy in Angola Sea Zone for United Kingdom.",
        ),
        (
            GameEvent::PatrolFlown {
                power: Power::UnitedKingdom,
                units: vec![(unit("FTR"), 2)],
                from: place_id("Angola"),
                over: place_id("Angola Sea Zone"),
            },
            "United Kingdom's 2 FTR patrol over Angola Sea Zone from Angola.",
        ),
        (
            GameEvent::KamikazesStruck {
                power: Power::Japan,
                against: Power::UnitedStates,
                strikes: vec![
                    crate::game::kamikazes::KamikazeHit {
                        sea_zone: place_id("Hawaii Sea Zone"),
                        unit: unit("BB"),
                        damage: 1,
                        dice: dice(&[1, 5]),
                        hits: 1,
                        sunk: true,
                    },
                    crate::game::kamikazes::KamikazeHit {
                        sea_zone: place_id("Hawaii Sea Zone"),
                        unit: unit("AC"),
                        damage: 0,
                        dice: dice(&[4]),
                        hits: 0,
                        sunk: false,
                    },
                ],
            },
            "Japan's kamikazes struck United States' ships: 2 tokens on 1 BB in Hawaii Sea Zone \
             rolled 1 and 5, 1 hit: sunk; 1 token on 1 AC in Hawaii Sea Zone rolled 4, 0 hits: \
             missed.",
        ),
        (
            GameEvent::PatrolsEnded {
                power: Power::UnitedKingdom,
                returned: vec![(place_id("Angola Sea Zone"), place_id("Angola"), unit("FTR"), 1)],
                lost: vec![(place_id("Angola Sea Zone"), unit("BMB"), 1)],
            },
            "United Kingdom's patrols ended: 1 FTR back from Angola Sea Zone to Angola; 1 BMB lost over Angola Sea Zone with nowhere to land.",
        ),
        (
            GameEvent::UnitsLent {
                from: Power::UnitedStates,
                to: Power::Kmt,
                territory: place_id("China"),
                units: vec![(unit("INF"), 2)],
            },
            "United States lent 2 INF in China to KMT.",
        ),
        (
            GameEvent::UnitsRecalled {
                from: Power::Kmt,
                to: Power::UnitedStates,
                territory: place_id("China"),
                units: vec![(unit("INF"), 1)],
            },
            "United States took back 1 INF lent to KMT in China.",
        ),
        (
            GameEvent::SubmarinesBlocking {
                power: Power::Japan,
                sea_zone: Some(place_id("Angola Sea Zone")),
                against: vec![Power::UnitedKingdom, Power::UnitedStates],
            },
            "Japan's submarines in Angola Sea Zone block the ships of United Kingdom, United States.",
        ),
        (
            GameEvent::PowerSurrendered {
                power: Power::Kmt,
                territory: place_id("China"),
            },
            "KMT surrendered: the raid on China took all its money.",
        ),
        (
            GameEvent::ComplexExpanded {
                power: Power::Germany,
                territory: place_id("Germany"),
                cost: 5,
            },
            "Germany expanded its complex in Germany for 5 IPC.",
        ),
        (
            GameEvent::WarLoanApplied {
                power: Power::Russia,
                die: die(4),
                granted: 12,
            },
            "Russia applied for a war loan, rolled a 4 and was granted 12 IPC.",
        ),
        (
            GameEvent::WarLoanApplied {
                power: Power::Russia,
                die: die(1),
                granted: 0,
            },
            "Russia applied for a war loan, rolled a 1 and was refused.",
        ),
        (
            GameEvent::WarLoanRepaid {
                power: Power::Russia,
                principal: 10,
                interest: 2,
            },
            "Russia repaid 10 IPC of its war loan, with 2 IPC interest.",
        ),
        (
            GameEvent::WeaponsResearched {
                power: Power::Germany,
                cost: 15,
                dice: dice(&[3, 6, 2]),
                breakthrough: Some(Breakthrough {
                    chart_dice: dice(&[6]),
                    technology: Technology::HeavyBombers,
                }),
            },
            "Germany spent 15 IPC on 3 research dice: a breakthrough in heavy bombers.",
        ),
        (
            GameEvent::UnitsMoved {
                power: Power::Germany,
                units: units_of(&[("INF", 2), ("ARM", 1)]),
                path: path_of(&["Germany", "East Europe", "Ukraine"]),
                captured: Vec::new(),
                contested: None,
                passengers: Vec::new(),
            },
            "Germany moved 2 INF and 1 ARM from Germany to Ukraine S.S.R. by East Europe.",
        ),
        (
            GameEvent::UnitsMoved {
                power: Power::Germany,
                units: units_of(&[("ARM", 1)]),
                path: path_of(&["East Europe", "Ukraine", "Caucasus"]),
                captured: path_of(&["Ukraine"]),
                contested: Some(place_id("Caucasus")),
                passengers: Vec::new(),
            },
            "Germany moved 1 ARM from East Europe to Caucasus by Ukraine S.S.R., taking \
             Ukraine S.S.R. on the way, into battle.",
        ),
        (
            GameEvent::UnitsMoved {
                power: Power::UnitedKingdom,
                units: units_of(&[("TRN", 1)]),
                path: path_of(&["North Sea Zone", "Baltic Sea Zone"]),
                captured: Vec::new(),
                contested: None,
                passengers: vec![(Power::UnitedStates, unit("INF"), 2)],
            },
            "United Kingdom moved 1 TRN from North Sea Zone to Baltic Sea Zone, carrying \
             United States' 2 INF.",
        ),
        (
            GameEvent::UnitsRailed {
                power: Power::Russia,
                units: units_of(&[("INF", 3)]),
                path: path_of(&["Russia", "Caucasus", "Ukraine"]),
                contested: None,
            },
            "Russia railed 3 INF from Russia to Ukraine S.S.R. by Caucasus.",
        ),
        (
            GameEvent::RocketFired {
                power: Power::Germany,
                from: place_id("West Europe"),
                target: place_id("United Kingdom"),
                victim: Power::UnitedKingdom,
                die: die(4),
                ipc_lost: 4,
            },
            "Germany fired a rocket from West Europe at the complex in United Kingdom: it \
             rolled a 4, and United Kingdom lost 4 IPC.",
        ),
        (
            GameEvent::BattleFought(Box::new(captured)),
            "Germany attacked Ukraine S.S.R.: Germany won and took it, with 2 INF and 1 ARM \
             left.",
        ),
        (
            GameEvent::BattleFought(Box::new(held_at_sea)),
            "Japan attacked Angola Sea Zone: United Kingdom won, with 1 BB (damaged) left; \
             United Kingdom's submarines withdrew to West Africa Sea Zone.",
        ),
        (
            GameEvent::BattleFought(Box::new(withdrew)),
            "Germany attacked Ukraine S.S.R.: Germany withdrew to East Europe with 1 ARM, and \
             Russia kept 2 INF there; the defence followed Russia's standing orders.",
        ),
        (
            GameEvent::BattleFought(Box::new(subs_retreated)),
            "Germany attacked North Sea Zone: Germany won, with 3 FTR left; before the first \
             die, United Kingdom's 2 SUB retreated to Baltic Sea Zone.",
        ),
        (
            GameEvent::BattleFought(Box::new(blended_in)),
            "Germany attacked Karelia S.S.R.: Russia stopped firing and blended in, staying \
             with 3 INF, and Germany took it, with 5 INF left.",
        ),
        (
            GameEvent::BattleFought(Box::new(capital)),
            "Germany attacked Russia, 1 battleship bombarding from Baltic Sea Zone: Germany \
             won and took it and Russia's treasury of 12 IPC, with 4 ARM left.",
        ),
        (
            GameEvent::RaidFlown(Box::new(RaidFlown {
                attacker: Power::Germany,
                victim: Power::Russia,
                territory: place_id("Russia"),
                raid: BombingRaid {
                    anti_aircraft: dice(&[1, 4]),
                    shot_down: 1,
                    damage_dice: dice(&[5]),
                    damage: 5,
                    ipc_lost: 5,
                },
            })),
            "Germany's bombers raided the complex in Russia: the AA gun shot down 1 of 2, and \
             Russia lost 5 IPC.",
        ),
        (
            GameEvent::AgreementOffered {
                from: Power::Germany,
                to: Power::Japan,
                terms: "pact".into(),
            },
            "Germany offered Japan an agreement (terms: \u{201c}pact\u{201d}).",
        ),
        (
            GameEvent::AgreementFormed {
                between: (Power::Germany, Power::Japan),
                terms: "pact".into(),
            },
            "Germany and Japan made an agreement (terms: \u{201c}pact\u{201d}).",
        ),
        (
            GameEvent::PermissionGranted {
                by: Power::Germany,
                to: Power::Japan,
                permission: Permission::Enter,
            },
            "Germany allowed Japan to enter its territories.",
        ),
        (
            GameEvent::PermissionRevoked {
                by: Power::Germany,
                to: Power::Japan,
                permission: Permission::Ferry,
            },
            "Germany no longer allows Japan to use its transports and carriers.",
        ),
        (
            GameEvent::TroopsAirDropped {
                power: Power::Germany,
                bombers: 2,
                troops: units_of(&[("INF", 2)]),
                path: path_of(&["Germany", "East Europe", "Ukraine"]),
                contested: Some(place_id("Ukraine")),
            },
            "Germany's 2 bombers flew 2 INF from Germany to Ukraine S.S.R. by East Europe as \
             paratroopers, into battle.",
        ),
        (
            GameEvent::WentPassive {
                power: Power::Russia,
            },
            "Russia went passive: it makes no more moves and gives no orders but ending its \
             phases.",
        ),
        (
            GameEvent::TreasuryConvertedToInfantry {
                power: Power::Russia,
                infantry: 4,
                spent: 12,
            },
            "Russia, passive, turned 12 IPC of its treasury into 4 INF in Russia.",
        ),
        (
            GameEvent::SeatsAssigned {
                seats: vec![
                    (Power::Germany, "alice".into()),
                    (Power::Russia, "bob".into()),
                    (Power::Japan, "carol".into()),
                ],
                at: at(),
            },
            "Seats were assigned: alice plays Germany, bob plays Russia and carol plays Japan.",
        ),
        (
            GameEvent::PlayerReplaced {
                power: Power::Germany,
                replaced: Some("alice".into()),
                substitute: "dave".into(),
                at: at(),
            },
            "Germany's seat went to dave, a substitute for alice, who was inactive.",
        ),
        (
            GameEvent::SeatTaken {
                power: Power::Japan,
                replaced: Some("carol".into()),
                player: "erin".into(),
                reason: "a swap between two tables".into(),
                at: at(),
            },
            "Before the game began, erin took Japan's seat from carol (a swap between two \
             tables).",
        ),
        (
            GameEvent::SubstituteMadePermanent {
                power: Power::Germany,
                player: "dave".into(),
            },
            "Germany's seat is now dave's for good, after two rounds as its substitute.",
        ),
        (
            GameEvent::GameEnded {
                at: at(),
                final_ipc: vec![(Power::Germany, 40), (Power::Russia, 24)],
            },
            "The game ended with these IPC counts: Germany 40 and Russia 24.",
        ),
        (
            GameEvent::GameVoided {
                at: at(),
                reason: "abandoned before the first turn".into(),
            },
            "The game was voided and does not count: abandoned before the first turn.",
        ),
        (
            GameEvent::StandingOrdersSet {
                power: Power::Russia,
                territory: Some(place_id("Karelia")),
                orders: StandingOrders {
                    battleships_absorb: false,
                    ..orders_of_loss(&["INF", "ARM"])
                },
            },
            "Russia set standing orders for its battles in Karelia S.S.R.: lose INF first, \
             then ARM; battleships do not take the first hits.",
        ),
        (
            GameEvent::StandingOrdersSealed {
                power: Power::Russia,
                territory: None,
                sealed: SealedOrders {
                    commitment: "c0ffee".into(),
                    ciphertext: "5ec7e7".into(),
                    sealed_at: 12,
                },
            },
            "Russia set standing orders for all its battles, sealed until a battle follows \
             them.",
        ),
        (
            GameEvent::StandingOrdersRevealed {
                power: Power::Russia,
                territory: Some(place_id("Karelia")),
                orders: StandingOrders {
                    submerge_subs: true,
                    ..orders_of_loss(&["INF"])
                },
                salt: "5a17".into(),
            },
            "Russia's sealed standing orders for its battles in Karelia S.S.R. were revealed \
             for the battle: lose INF first; submarines submerge.",
        ),
        (
            GameEvent::StandingOrdersRevealed {
                power: Power::UnitedKingdom,
                territory: None,
                orders: StandingOrders {
                    retreat_subs: true,
                    retreat_subs_to: Some(place_id("Baltic Sea Zone")),
                    submerge_subs: true,
                    ..StandingOrders::default()
                },
                salt: "5a17".into(),
            },
            "United Kingdom's sealed standing orders for all its battles were revealed for the \
             battle: submarines retreat to a safe zone (Baltic Sea Zone while it is safe); \
             submarines submerge.",
        ),
        (
            GameEvent::AgreementEnded(Box::new(AgreementEnded {
                between: (Power::Russia, Power::Germany),
                cause: AgreementEnd::BrokenBy(Power::Germany),
                outbreak: Outbreak {
                    seized: vec![Seizure {
                        zone: place_id("Baltic Sea Zone"),
                        from: Power::Russia,
                        to: Power::Germany,
                        unit: unit("TRN"),
                        count: 1,
                    }],
                    fallen: vec![(place_id("Karelia"), Power::Germany)],
                    fronts: path_of(&["East Europe"]),
                },
            })),
            "Germany broke its agreement with Russia: they are at war; Germany seized Russia's \
             1 TRN in Baltic Sea Zone; Karelia S.S.R. fell to Germany; battles are due in East \
             Europe.",
        ),
        (
            GameEvent::AgreementEnded(Box::new(AgreementEnded {
                between: (Power::Russia, Power::UnitedKingdom),
                cause: AgreementEnd::CapitalTaken(Power::Russia),
                outbreak: Outbreak::default(),
            })),
            "The agreement between Russia and United Kingdom is void, as Russia's capital was \
             taken: they are at war.",
        ),
        (
            GameEvent::BattleshipRepaired {
                power: Power::UnitedKingdom,
                sea_zone: place_id("North Sea Zone"),
                die: die(3),
                cost: 8,
            },
            "United Kingdom repaired a battleship in North Sea Zone for 8 IPC (the base cost \
             and a die of 3).",
        ),
    ]
}

fn war() -> &'static Ruleset {
    Ruleset::builtin("war").expect("war is playable")
}

fn war_place(name: &str) -> TerritoryId {
    war().board.id(name).expect(name)
}

fn war_units(units: &[(&str, u32)]) -> Vec<(UnitTypeId, u32)> {
    units
        .iter()
        .map(|(code, n)| (war().catalogue.id(code).expect(code), *n))
        .collect()
}

/// The "War" rules' events (money in dollars) and their sentences.
fn war_table() -> Vec<(GameEvent, &'static str)> {
    let inf = war().catalogue.id("INF").expect("INF");
    let moved = WarMove {
        by: Power::Germany,
        mover: Power::Germany,
        units: war_units(&[("INF", 3)]),
        path: vec![war_place("Germany"), war_place("East Europe")],
        parleys: vec![ParleyRoll {
            territory: war_place("East Europe"),
            die: die(2),
            outcome: Parley::PayTwoToPass,
            militia_die: None,
            paid: 2,
        }],
        risen: 0,
        end: war_place("East Europe"),
        battle: Some(WarBattle {
            territory: war_place("East Europe"),
            attacker: Power::Germany,
            attackers: war_units(&[("INF", 3)]),
            defenders: vec![(Power::Npn, inf, 2)],
            militia: 1,
            rounds: vec![WarBattleRound {
                attack: dice(&[1, 1, 4]),
                attack_hits: 2,
                defender_healing: Vec::new(),
                defence: dice(&[2, 5, 6]),
                defence_hits: 1,
                attacker_healing: Vec::new(),
            }],
            attacker_losses: war_units(&[("INF", 1)]),
            defender_losses: vec![(Power::Npn, inf, 2)],
            healed: Vec::new(),
            outcome: WarBattleOutcome::AttackerWon,
        }),
        taken: true,
        sealift: None,
    };
    let reinforcing = WarMove {
        by: Power::Russia,
        mover: Power::Npn,
        units: war_units(&[("INF", 2)]),
        path: vec![
            war_place("Sweden"),
            war_place("Baltic Sea Zone"),
            war_place("Finland Norway"),
        ],
        parleys: Vec::new(),
        risen: 0,
        end: war_place("Finland Norway"),
        battle: None,
        taken: false,
        sealift: Some(Sealift {
            from: war_place("Baltic Sea Zone"),
            to: war_place("Baltic Sea Zone"),
            transport: war().catalogue.id("TRN").expect("TRN"),
            count: 1,
        }),
    };
    vec![
        (
            GameEvent::StartZonesRolled {
                by: Power::Russia,
                bases: vec![
                    StartZones {
                        power: Power::Russia,
                        rolls: vec![dice(&[3, 4])],
                        zones: vec![war_place("Russia")],
                    },
                    StartZones {
                        power: Power::Germany,
                        rolls: vec![dice(&[1, 1]), dice(&[6, 6])],
                        zones: vec![war_place("Germany"), war_place("South Europe")],
                    },
                ],
            },
            "Bases were rolled: Russia's is Russia; Germany's are Germany and South Europe.",
        ),
        (
            GameEvent::InitiativeRolled {
                by: Power::Russia,
                rolls: vec![vec![(Power::Germany, die(6)), (Power::Russia, die(2))]],
                order: vec![Power::Germany, Power::Russia],
            },
            "Initiative was rolled: the order of play this round is Germany and Russia.",
        ),
        (
            GameEvent::ReinforcementsRolled {
                by: Power::UnitedKingdom,
                active: Power::Germany,
                dice: dice(&[5, 6]),
                units: war_units(&[("INF", 2), ("ARM", 1)]),
                moves: 4,
            },
            "United Kingdom rolled 11 for the reinforcements of Germany's turn: 2 INF and 1 \
             ARM, and may move 4 units.",
        ),
        (
            GameEvent::NeutralForcesPlaced {
                by: Power::UnitedKingdom,
                territory: war_place("Sweden"),
                units: war_units(&[("INF", 2)]),
            },
            "United Kingdom placed 2 INF of the non-player nations in Sweden.",
        ),
        (
            GameEvent::WarUnitsBought {
                power: Power::Germany,
                territory: war_place("Germany"),
                units: war_units(&[("INF", 3)]),
                cost: 6,
            },
            "Germany bought 3 INF in Germany for $6.",
        ),
        (
            GameEvent::InfrastructureBuilt {
                power: Power::Germany,
                territory: war_place("Germany"),
                cost: 5,
            },
            "Germany built infrastructure in Germany for $5.",
        ),
        (
            GameEvent::WarResearched {
                power: Power::Germany,
                tries: vec![
                    ResearchTry {
                        chance: die(5),
                        chart: Vec::new(),
                        technology: None,
                    },
                    ResearchTry {
                        chance: die(1),
                        chart: dice(&[1, 2, 2]),
                        technology: Some(WarTechnology::Jets),
                    },
                ],
                cost: 10,
            },
            "Germany spent $10 on 2 research tries and found jets.",
        ),
        (
            GameEvent::AtomicBombDropped {
                power: Power::UnitedStates,
                territory: war_place("Japan"),
                cost: 50,
            },
            "United States dropped the atomic bomb on Japan for $50: everything there was \
             annihilated.",
        ),
        (
            GameEvent::WarMoveResolved(Box::new(moved)),
            "Germany moved 3 INF from Germany to East Europe; the parley in East Europe rolled \
             a 2: they paid $2 to pass; Germany attacked East Europe with 1 soldier of militia \
             defending: Germany won and took it; Germany lost 1 INF and the non-player \
             nations lost 2 INF.",
        ),
        (
            GameEvent::WarMoveResolved(Box::new(reinforcing)),
            "Russia moved the non-player nations' 2 INF from Sweden to Finland Norway by \
             Baltic Sea Zone, carried by 1 TRN from Baltic Sea Zone to Baltic Sea Zone.",
        ),
        (
            GameEvent::AirRaidFlown(Box::new(AirRaid {
                power: Power::Germany,
                units: war_units(&[("BMB", 2)]),
                path: vec![war_place("Germany"), war_place("Russia")],
                victim: Power::Russia,
                anti_aircraft: dice(&[1, 3]),
                shot_down: war_units(&[("BMB", 1)]),
                damage_dice: dice(&[4]),
                cash_lost: 4,
                strategic: false,
            })),
            "Germany's air raid of 2 BMB hit Russia's cash reserves over Russia: 1 BMB shot \
             down, and Russia lost $4.",
        ),
        (
            GameEvent::OrderOfLossSet {
                power: Power::Germany,
                units: vec![inf, war().catalogue.id("ARM").expect("ARM")],
            },
            "Germany set its order of loss: INF first, then ARM, then the cheapest of the rest.",
        ),
        (
            GameEvent::BreakOffSet {
                power: Power::Germany,
                after: Some(2),
            },
            "Germany will break off its attacks after 2 attacks.",
        ),
        (
            GameEvent::BreakOffSet {
                power: Power::Germany,
                after: None,
            },
            "Germany will press its attacks until one side is gone.",
        ),
        (
            GameEvent::WarRocketFired {
                power: Power::Germany,
                from: war_place("Germany"),
                target: war_place("Russia"),
                die: die(2),
                destroyed: Some((Power::Russia, inf)),
            },
            "Germany fired a rocket from Germany at Russia: it rolled a 2 and destroyed one of \
             Russia's INF.",
        ),
        (
            GameEvent::PhaseEnded {
                power: Power::Germany,
                phase: Phase::Purchase,
                at: at(),
            },
            "Germany ended its purchase phase.",
        ),
        (
            GameEvent::IncomeCollected {
                power: Power::Germany,
                amount: 14,
            },
            "Germany collected $14.",
        ),
    ]
}

/// The variant's name, as serde tags it.
fn kind(event: &GameEvent) -> String {
    match serde_json::to_value(event).expect("serialises") {
        serde_json::Value::Object(map) => map.keys().next().cloned().unwrap_or_default(),
        serde_json::Value::String(name) => name,
        other => panic!("an untagged event: {other}"),
    }
}

/// The variants of `GameEvent`, read from its declaration, so a new one fails the table's
/// coverage until it has a sentence there.
fn every_kind() -> BTreeSet<String> {
    let source = include_str!("../mod.rs");
    let start = source.find("pub enum GameEvent {").expect("the enum");
    let body = &source[start..];
    let end = body.find("\n}\n").expect("its end");
    body[..end]
        .lines()
        .skip(1)
        .filter(|line| line.starts_with("    ") && !line.starts_with("     "))
        .map(str::trim)
        .filter(|line| line.chars().next().is_some_and(|c| c.is_ascii_uppercase()))
        .map(|line| {
            line.split(|c: char| !c.is_alphanumeric())
                .next()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

#[test]
fn each_kind_of_event_reads_as_one_plain_sentence() {
    for (event, expected) in classic_table() {
        assert_eq!(describe(rules(), &event).as_deref(), Some(expected));
    }
    for (event, expected) in war_table() {
        assert_eq!(describe(war().rules(), &event).as_deref(), Some(expected));
    }
}

#[test]
fn the_table_has_a_sentence_for_every_kind_of_event() {
    let covered: BTreeSet<String> = classic_table()
        .iter()
        .chain(war_table().iter())
        .map(|(event, _)| kind(event))
        .collect();
    let every = every_kind();
    assert!(every.len() >= 50, "{every:?}");
    let missing: Vec<&String> = every.difference(&covered).collect();
    assert!(
        missing.is_empty(),
        "no sentence in the table for {missing:?}"
    );
}

#[test]
fn a_battle_read_with_the_state_before_it_names_each_sides_losses() {
    let mut state = in_phase(2, Power::Germany, Phase::CombatMove);
    set(
        &mut state,
        "East Europe",
        &[(Power::Germany, "INF", 2), (Power::Germany, "ARM", 1)],
    );
    set(&mut state, "Ukraine", &[(Power::Russia, "INF", 3)]);
    move_units(
        &mut state,
        Power::Germany,
        &[("INF", 2), ("ARM", 1)],
        &["East Europe", "Ukraine"],
    )
    .expect("moved");
    advance_to(&mut state, Phase::Battles);
    let before = state.clone();
    // Three hits for Germany, none for Russia.
    let events = ordered_with_dice(
        &mut state,
        Power::Germany,
        Order::FightBattle(BattleOrders::at(place_id("Ukraine"))),
        &[1, 1, 1, 6, 6, 6],
    )
    .expect("fought");
    assert_eq!(
        describe_in(rules(), &before, &events[0]).as_deref(),
        Some(
            "Germany attacked Ukraine S.S.R.: Germany won and took it, with 2 INF and 1 ARM \
             left; Russia lost 3 INF."
        )
    );
    assert_eq!(
        describe(rules(), &events[0]).as_deref(),
        Some(
            "Germany attacked Ukraine S.S.R.: Germany won and took it, with 2 INF and 1 ARM left."
        )
    );
}

#[test]
fn cargo_that_sinks_with_its_transport_counts_among_the_losses() {
    let mut state = in_phase(2, Power::Germany, Phase::CombatMove);
    let zone = place_id("North Sea Zone");
    state.forces[zone.index()].clear();
    state.forces[zone.index()].insert((Power::UnitedKingdom, unit("TRN"), 0), 1);
    state.forces[zone.index()].insert((Power::UnitedKingdom, unit("INF"), 0), 2);
    state.forces[zone.index()].insert((Power::Germany, unit("SUB"), 0), 1);
    state.contested.insert(zone, [Power::UnitedKingdom].into());
    state.phase = Phase::Battles;
    let before = state.clone();
    // The submarine strikes first and sinks the transport.
    let events = ordered_with_dice(
        &mut state,
        Power::Germany,
        Order::FightBattle(BattleOrders::at(zone)),
        &[1, 6, 6, 6],
    )
    .expect("fought");
    let sentence = describe_in(rules(), &before, &events[0]).expect("a sentence");
    assert!(
        sentence.ends_with("United Kingdom lost 2 INF and 1 TRN."),
        "{sentence}"
    );
}

#[test]
fn phase_ends_in_a_row_make_one_sentence_and_the_turns_end_is_said() {
    let state = in_phase(1, Power::Germany, Phase::Repairs);
    let ended = |phase| GameEvent::PhaseEnded {
        power: Power::Germany,
        phase,
        at: at(),
    };
    let events = vec![
        ended(Phase::Repairs),
        ended(Phase::WeaponsDevelopment),
        ended(Phase::Purchase),
        GameEvent::IncomeCollected {
            power: Power::Germany,
            amount: 40,
        },
        ended(Phase::Placement),
        ended(Phase::Income),
    ];
    let expected = [
        "Germany ended its repairs, weapons development and purchase phases.",
        "Germany collected 40 IPC.",
        "Germany ended its placement and income phases, and with it its turn.",
    ];
    assert_eq!(summary(rules(), Some(&state), &events), expected);
    assert_eq!(summary(rules(), None, &events), expected);
}

#[test]
fn sealed_standing_orders_never_say_what_they_are_and_the_reveal_does() {
    let orders = StandingOrders {
        submerge_subs: true,
        battleships_absorb: false,
        ..orders_of_loss(&["SUB", "TRN"])
    };
    let sealed = GameEvent::StandingOrdersSealed {
        power: Power::UnitedKingdom,
        territory: Some(place_id("North Sea Zone")),
        sealed: SealedOrders {
            commitment: "aa".repeat(32),
            ciphertext: "bb".repeat(40),
            sealed_at: 7,
        },
    };
    let said = describe(rules(), &sealed).expect("a sentence");
    assert!(said.contains("sealed"), "{said}");
    for secret in [
        "SUB",
        "TRN",
        "submerge",
        "battleships",
        "lose",
        "aaaa",
        "bbbb",
    ] {
        assert!(!said.contains(secret), "{said} tells {secret}");
    }
    let revealed = GameEvent::StandingOrdersRevealed {
        power: Power::UnitedKingdom,
        territory: Some(place_id("North Sea Zone")),
        orders,
        salt: "cc".repeat(16),
    };
    let said = describe(rules(), &revealed).expect("a sentence");
    assert!(
        said.ends_with(
            "lose SUB first, then TRN; submarines submerge; battleships do not take the first \
             hits."
        ),
        "{said}"
    );
    assert!(!said.contains("cccc"), "{said}");
}

#[test]
fn an_event_that_records_nothing_happening_has_no_sentence() {
    let nothing = GameEvent::AircraftLost {
        power: Power::Germany,
        losses: Vec::new(),
    };
    assert_eq!(describe(rules(), &nothing), None);
    assert!(summary(rules(), None, &[nothing]).is_empty());
}

#[test]
fn a_place_off_the_board_is_never_written_as_its_number() {
    let event = GameEvent::UnitsPlaced {
        power: Power::Germany,
        territory: serde_json::from_value(serde_json::json!(250)).expect("an id"),
        units: units_of(&[("INF", 1)]),
    };
    let said = describe(rules(), &event).expect("a sentence");
    assert_eq!(said, "Germany placed 1 INF in a place not on this board.");
}

/// What would give Rust away, or a place by its number, in a sentence.
fn unreadable(sentence: &str) -> Option<String> {
    for trace in ["{", "}", "[", "]", "Some(", "None", "::", "\"", "\n"] {
        if sentence.contains(trace) {
            return Some(format!("it holds {trace:?}"));
        }
    }
    let chars: Vec<char> = sentence.chars().collect();
    if let Some(w) = chars
        .windows(2)
        .find(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
    {
        return Some(format!("a CamelCase name at {}{}", w[0], w[1]));
    }
    // A count is followed by what it counts ("on 1 research die", "lost 3 INF"); a place
    // by its number would stand alone after a preposition or in a list.
    for before in [
        " in ", " to ", " from ", " at ", " by ", " into ", " over ", " on ", " and ", ", ",
    ] {
        for (i, _) in sentence.match_indices(before) {
            let rest = &sentence[i + before.len()..];
            let number: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let after = rest[number.len()..].chars().next();
            if !number.is_empty() && after.is_none_or(|c| ".,;:)".contains(c)) {
                return Some(format!("a place by its number: {before}{number}"));
            }
        }
    }
    if !sentence.ends_with('.') || !sentence.starts_with(|c: char| c.is_uppercase()) {
        return Some("not a sentence".into());
    }
    None
}

/// Plays random orders from `state` (as the property tests do) and reads every event
/// accepted, alone and with the state before it, and every order's summary.
fn read_a_random_game(rules: Rules<'_>, mut state: GameState, seed: u8) -> BTreeSet<String> {
    let mut dice = GameSeed::from_bytes([seed; 32]).dice_for("words", 0);
    // A fixed run of numbers, different for each seed.
    let mut x = u64::from(seed).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let numbers: Vec<u32> = (0..997)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 16) as u32
        })
        .collect();
    let mut choose = chooser(&numbers);
    let mut seen = BTreeSet::new();
    for _ in 0..3000 {
        let (by, order) = random_order(rules, &state, &mut choose);
        let Ok(events) = decide(rules, &state, by, &order, Moment::default(), &mut dice) else {
            continue;
        };
        for sentence in summary(rules, Some(&state), &events) {
            if let Some(problem) = unreadable(&sentence) {
                panic!("{sentence}: {problem}");
            }
        }
        for event in &events {
            seen.insert(kind(event));
            for sentence in [describe(rules, event), describe_in(rules, &state, event)] {
                let sentence = sentence.unwrap_or_else(|| panic!("no sentence for {event:?}"));
                if let Some(problem) = unreadable(&sentence) {
                    panic!("{sentence}: {problem} (for {event:?})");
                }
            }
            apply(rules, &mut state, event);
        }
    }
    seen
}

#[test]
fn every_event_of_random_games_on_every_board_reads_plainly() {
    let mut seen = BTreeSet::new();
    for seed in 1..=3 {
        seen.extend(read_a_random_game(rules(), start(), seed));
        let realism = super::properties::enhanced_realism();
        seen.extend(read_a_random_game(realism.rules(), realism.start(), seed));
        seen.extend(read_a_random_game(
            war().rules(),
            super::home_cooked::seated(),
            seed,
        ));
        let pacific = super::aap::pacific();
        seen.extend(read_a_random_game(pacific.rules(), pacific.start(), seed));
    }
    // The games reach the battles, moves and money of every board.
    for kind in [
        "BattleFought",
        "UnitsMoved",
        "UnitsPurchased",
        "IncomeCollected",
        "WarMoveResolved",
        "PhaseEnded",
    ] {
        assert!(seen.contains(kind), "no {kind} in {seen:?}");
    }
}
