//! AAP Historical's rules of revision 3 on the Pacific board, given/when/then: submarines
//! attacked only where 7.1 allows, convoys captured and liberated (6, 8.1), combat air
//! patrol (8), the US's loans to the KMT (3.5), Shansi's garrison (3.2) and the CCP's
//! recruits placed by its player (1.1a).

use super::aap::pacific;
use super::*;
use crate::ruleset::Ruleset;

pub(super) fn at(name: &str) -> TerritoryId {
    pacific().board.id(name).expect(name)
}

pub(super) fn unit_of(code: &str) -> UnitTypeId {
    pacific().catalogue.id(code).expect(code)
}

fn units(list: &[(&str, u32)]) -> Vec<(UnitTypeId, u32)> {
    list.iter().map(|(code, n)| (unit_of(code), *n)).collect()
}

/// `power`'s turn in `round` at `phase`, as it begins (destroyers noted).
fn turn(ruleset: &Ruleset, round: u32, power: Power, phase: Phase) -> GameState {
    let mut state = super::aap::turn_of(ruleset, round, power, phase);
    super::super::hidden_subs::turn_began(ruleset.rules(), &mut state);
    state
}

/// Replaces every unit in a place.
pub(super) fn put(state: &mut GameState, name: &str, units: &[(Power, &str, u32)]) {
    let forces = &mut state.forces[at(name).index()];
    forces.clear();
    for &(power, code, n) in units {
        forces.insert((power, unit_of(code), 0), n);
    }
}

pub(super) fn give(
    state: &mut GameState,
    by: Power,
    order: Order,
    dice: &[u8],
) -> Result<Vec<GameEvent>, RuleViolation> {
    order_under(pacific().rules(), state, by, order, dice)
}

pub(super) fn moving(list: &[(&str, u32)], path: &[&str]) -> Order {
    Order::Move {
        units: units(list),
        path: path.iter().map(|n| at(n)).collect(),
    }
}

fn here(state: &GameState, place: &str, power: Power, code: &str) -> u32 {
    state.count_units(pacific().rules(), at(place), power, |u, _| {
        u == unit_of(code)
    })
}

fn contested_by(events: &[GameEvent]) -> Option<TerritoryId> {
    events.iter().find_map(|e| match e {
        GameEvent::UnitsMoved { contested, .. } => *contested,
        _ => None,
    })
}

#[test]
fn a_ship_joining_a_lone_submarine_outside_convoys_is_no_attack_on_it() {
    // 7.1: "Subs cannot be attacked unless ..." none of (i) to (iii) holds in SZ 4.
    let mut state = turn(pacific(), 2, Power::UnitedStates, Phase::CombatMove);
    put(&mut state, "SZ 4", &[(Power::Japan, "SUB", 1)]);
    let events = give(
        &mut state,
        Power::UnitedStates,
        moving(&[("DES", 1)], &["SZ 9", "SZ 4"]),
        &[],
    )
    .expect("a move, not an attack");
    assert_eq!(contested_by(&events), None);
    assert!(state.contested.is_empty());
    // Nor may the US declare one: its destroyer was not there as its turn began.
    let refused = give(
        &mut state,
        Power::UnitedStates,
        Order::AttackSubmarines {
            sea_zone: at("SZ 4"),
        },
        &[],
    )
    .expect_err("not yet");
    assert_eq!(refused.code, ViolationCode::SubmarinesHidden);
}

#[test]
fn a_submarine_in_a_convoy_centre_may_be_attacked() {
    // 7.1 (ii): "they occupy any convoy zones or routes".
    let mut state = turn(pacific(), 2, Power::UnitedStates, Phase::CombatMove);
    put(&mut state, "SZ 3", &[(Power::Japan, "SUB", 1)]);
    let events = give(
        &mut state,
        Power::UnitedStates,
        moving(&[("DES", 1)], &["SZ 9", "SZ 4", "SZ 3"]),
        &[],
    )
    .expect("an attack");
    assert_eq!(contested_by(&events), Some(at("SZ 3")));
}

#[test]
fn a_destroyer_beside_a_submarine_as_its_turn_begins_may_attack_it() {
    // 7.1 (iii): "they are in a sea zone with one or more enemy destroyers at the start of
    // the owner of the destroyer's turn".
    let ruleset = pacific();
    let mut state = ruleset.start();
    put(
        &mut state,
        "SZ 4",
        &[(Power::Japan, "SUB", 1), (Power::UnitedStates, "DES", 1)],
    );
    state.round = 2;
    state.turn = ruleset
        .powers()
        .iter()
        .position(|p| *p == Power::UnitedStates)
        .expect("us");
    super::super::hidden_subs::turn_began(ruleset.rules(), &mut state);
    state.phase = Phase::CombatMove;
    give(
        &mut state,
        Power::UnitedStates,
        Order::AttackSubmarines {
            sea_zone: at("SZ 4"),
        },
        &[],
    )
    .expect("declared");
    assert!(state.contested.contains_key(&at("SZ 4")));
    state.phase = Phase::Battles;
    // The destroyer hits on its 3 (a 1); the sub misses (a 6).
    let events = give(
        &mut state,
        Power::UnitedStates,
        Order::FightBattle(combat::BattleOrders::at(at("SZ 4"))),
        &[1, 6],
    )
    .expect("fought");
    assert!(matches!(&events[0], GameEvent::BattleFought(f) if f.defenders == vec![Power::Japan]));
    assert_eq!(here(&state, "SZ 4", Power::Japan, "SUB"), 0);
}

#[test]
fn submarines_that_may_not_be_attacked_sit_a_battle_out_and_stay() {
    let mut state = turn(pacific(), 2, Power::UnitedStates, Phase::CombatMove);
    put(
        &mut state,
        "SZ 4",
        &[(Power::Japan, "SUB", 1), (Power::Japan, "TRN", 1)],
    );
    let events = give(
        &mut state,
        Power::UnitedStates,
        moving(&[("DES", 1)], &["SZ 9", "SZ 4"]),
        &[],
    )
    .expect("an attack on the transport");
    assert_eq!(contested_by(&events), Some(at("SZ 4")));
    state.phase = Phase::Battles;
    // The destroyer sinks the transport at once (a 1), which fires back and misses (a 6);
    // the sub never fires.
    let events = give(
        &mut state,
        Power::UnitedStates,
        Order::FightBattle(combat::BattleOrders::at(at("SZ 4"))),
        &[1, 6],
    )
    .expect("fought");
    let GameEvent::BattleFought(fought) = &events[0] else {
        panic!("a battle: {events:?}");
    };
    assert_eq!(fought.dice.len(), 2);
    assert_eq!(here(&state, "SZ 4", Power::Japan, "TRN"), 0);
    assert_eq!(here(&state, "SZ 4", Power::Japan, "SUB"), 1);
}

#[test]
fn submarines_ordered_to_block_a_power_stop_its_ships_and_may_be_attacked_by_it_alone() {
    // 7.1 (i) and 7.2: "the sub can be ordered to block UK vessels and dive against US
    // vessels".
    let mut state = turn(pacific(), 2, Power::Japan, Phase::CombatMove);
    put(&mut state, "SZ 4", &[(Power::Japan, "SUB", 1)]);
    give(
        &mut state,
        Power::Japan,
        Order::BlockWithSubmarines {
            sea_zone: Some(at("SZ 4")),
            against: vec![Power::UnitedStates],
        },
        &[],
    )
    .expect("ordered");
    let mut us = state.clone();
    us.turn = pacific()
        .powers()
        .iter()
        .position(|p| *p == Power::UnitedStates)
        .expect("us");
    let stopped = give(
        &mut us,
        Power::UnitedStates,
        moving(&[("DES", 1)], &["SZ 9", "SZ 4", "SZ 3"]),
        &[],
    )
    .expect_err("blocked");
    assert_eq!(stopped.code, ViolationCode::StoppedByEnemy);
    let events = give(
        &mut us,
        Power::UnitedStates,
        moving(&[("DES", 1)], &["SZ 9", "SZ 4"]),
        &[],
    )
    .expect("an attack on the blocking sub");
    assert_eq!(contested_by(&events), Some(at("SZ 4")));
    // The UK's ships pass.
    let mut uk = state.clone();
    uk.turn = pacific()
        .powers()
        .iter()
        .position(|p| *p == Power::UnitedKingdom)
        .expect("uk");
    put(&mut uk, "SZ 9", &[(Power::UnitedKingdom, "DES", 1)]);
    give(
        &mut uk,
        Power::UnitedKingdom,
        moving(&[("DES", 1)], &["SZ 9", "SZ 4", "SZ 3"]),
        &[],
    )
    .expect("the UK passes");
}

#[test]
fn a_submarine_alone_in_a_convoy_centre_captures_it_and_its_income() {
    // 6: "Subs can capture but cannot liberate convoy zones".
    let ruleset = pacific();
    let mut state = turn(ruleset, 2, Power::Japan, Phase::Battles);
    put(&mut state, "SZ 3", &[(Power::Japan, "SUB", 1)]);
    let events = give(&mut state, Power::Japan, Order::EndPhase, &[]).expect("ends");
    assert!(events.contains(&GameEvent::ConvoyCaptured {
        power: Power::Japan,
        sea_zone: at("SZ 3"),
        from: Power::UnitedStates,
    }));
    // The centre's 10 is Japan's while it holds it, not the US's.
    let income =
        |state: &GameState, power| super::super::economy::income(ruleset.rules(), state, power);
    let mut us_turn = state.clone();
    us_turn.round = 2;
    assert_eq!(
        income(&us_turn, Power::UnitedStates),
        10 + 2 + 3 + 5 + 10 * 2
    );
    assert_eq!(
        income(&state, Power::Japan),
        super::super::economy::income(
            ruleset.rules(),
            &turn(ruleset, 2, Power::Japan, Phase::Income),
            Power::Japan
        ) + 10
    );
}

#[test]
fn a_surface_warship_liberates_a_convoy_once_no_enemy_sub_is_left() {
    // 8.1: "the convoy zone or route will not be liberated if enemy sub is still present".
    let mut state = turn(pacific(), 2, Power::UnitedStates, Phase::Battles);
    state.convoys_captured.insert(at("SZ 3"), Power::Japan);
    put(
        &mut state,
        "SZ 3",
        &[(Power::Japan, "SUB", 1), (Power::UnitedStates, "DES", 1)],
    );
    let events = give(
        &mut state.clone(),
        Power::UnitedStates,
        Order::EndPhase,
        &[],
    )
    .expect("ends");
    assert!(!events
        .iter()
        .any(|e| matches!(e, GameEvent::ConvoyLiberated { .. })));
    // A sub of its own does not liberate it either (6).
    put(&mut state, "SZ 3", &[(Power::UnitedStates, "SUB", 1)]);
    let events = give(
        &mut state.clone(),
        Power::UnitedStates,
        Order::EndPhase,
        &[],
    )
    .expect("ends");
    assert!(!events
        .iter()
        .any(|e| matches!(e, GameEvent::ConvoyLiberated { .. })));
    put(&mut state, "SZ 3", &[(Power::UnitedStates, "DES", 1)]);
    let events = give(&mut state, Power::UnitedStates, Order::EndPhase, &[]).expect("ends");
    assert!(events.contains(&GameEvent::ConvoyLiberated {
        power: Power::UnitedStates,
        sea_zone: at("SZ 3"),
        for_power: Power::UnitedStates,
    }));
    assert!(state.convoys_captured.is_empty());
}

#[test]
fn an_enemy_holding_a_convoy_route_cuts_the_lands_income() {
    // SZ 9 carries Hawaii's 2; a Japanese destroyer alone there takes the route.
    let ruleset = pacific();
    let mut state = turn(ruleset, 2, Power::Japan, Phase::Battles);
    put(&mut state, "SZ 9", &[(Power::Japan, "DES", 1)]);
    let events = give(&mut state, Power::Japan, Order::EndPhase, &[]).expect("ends");
    assert!(events.contains(&GameEvent::ConvoyCaptured {
        power: Power::Japan,
        sea_zone: at("SZ 9"),
        from: Power::UnitedStates,
    }));
    let before = super::super::economy::income(
        ruleset.rules(),
        &turn(ruleset, 2, Power::UnitedStates, Phase::Income),
        Power::UnitedStates,
    );
    let after = super::super::economy::income(ruleset.rules(), &state, Power::UnitedStates);
    assert_eq!(before - after, 2);
}

#[test]
fn a_combat_air_patrol_defends_its_zone_until_its_owners_next_turn() {
    // 8: "both adjacent sea zones and adjacent land territories ... can be CAPed".
    let ruleset = pacific();
    let mut state = turn(ruleset, 2, Power::UnitedStates, Phase::NonCombatMove);
    put(&mut state, "SZ 9", &[]);
    put(
        &mut state,
        "Hawaiian Isl",
        &[(Power::UnitedStates, "FTR", 2)],
    );
    give(
        &mut state,
        Power::UnitedStates,
        Order::FlyPatrol {
            units: units(&[("FTR", 2)]),
            from: at("Hawaiian Isl"),
            over: at("SZ 9"),
        },
        &[],
    )
    .expect("patrolling");
    assert_eq!(here(&state, "SZ 9", Power::UnitedStates, "FTR"), 2);
    // Not lost at the end of the non-combat move: they are in the air on patrol.
    let events = give(&mut state, Power::UnitedStates, Order::EndPhase, &[]).expect("ends");
    assert!(!events
        .iter()
        .any(|e| matches!(e, GameEvent::AircraftLost { .. })));
    // Japan's destroyer entering SZ 9 attacks them.
    state.turn = 0;
    state.phase = Phase::CombatMove;
    state.round = 3;
    put(&mut state, "SZ 20", &[(Power::Japan, "DES", 1)]);
    let events = give(
        &mut state,
        Power::Japan,
        moving(&[("DES", 1)], &["SZ 20", "SZ 9"]),
        &[],
    )
    .expect("attack");
    assert_eq!(contested_by(&events), Some(at("SZ 9")));
    state.phase = Phase::Battles;
    // The destroyer misses (6); the fighters hit at 4 (a 1 and a 5): it sinks.
    let events = give(
        &mut state,
        Power::Japan,
        Order::FightBattle(combat::BattleOrders::at(at("SZ 9"))),
        &[6, 1, 5],
    )
    .expect("fought");
    let GameEvent::BattleFought(fought) = &events[0] else {
        panic!("{events:?}");
    };
    assert_eq!(fought.defenders, vec![Power::UnitedStates]);
    assert_eq!(here(&state, "SZ 9", Power::Japan, "DES"), 0);
    // As the US's turn begins, the patrol flies home.
    state.turn = ruleset
        .powers()
        .iter()
        .position(|p| *p == Power::UnitedStates)
        .expect("us");
    state.phase = Phase::Repairs;
    let events = give(&mut state, Power::UnitedStates, Order::EndPhase, &[]).expect("ends");
    assert!(events.contains(&GameEvent::PatrolsEnded {
        power: Power::UnitedStates,
        returned: vec![(at("SZ 9"), at("Hawaiian Isl"), unit_of("FTR"), 2)],
        lost: Vec::new(),
    }));
    assert_eq!(here(&state, "Hawaiian Isl", Power::UnitedStates, "FTR"), 2);
    assert!(state.patrols.is_empty());
}

#[test]
fn a_patrol_in_the_combat_move_flies_only_over_a_convoy() {
    // 8.1: "CAP can be used to capture an enemy convoy zone ... but the CAP must be set
    // during combat phase".
    let mut state = turn(pacific(), 2, Power::UnitedStates, Phase::CombatMove);
    put(
        &mut state,
        "Hawaiian Isl",
        &[(Power::UnitedStates, "FTR", 2)],
    );
    put(&mut state, "SZ 9", &[]);
    let patrol = |over: &str| Order::FlyPatrol {
        units: units(&[("FTR", 1)]),
        from: at("Hawaiian Isl"),
        over: at(over),
    };
    let refused = give(
        &mut state.clone(),
        Power::UnitedStates,
        patrol("Hawaiian Isl"),
        &[],
    )
    .expect_err("not a convoy");
    assert_eq!(refused.code, ViolationCode::WrongPhase);
    give(&mut state, Power::UnitedStates, patrol("SZ 9"), &[]).expect("over Hawaii's convoy route");
    // A patrol never flies into the enemy: that is an attack.
    put(&mut state, "SZ 9", &[(Power::Japan, "DES", 1)]);
    let refused =
        give(&mut state, Power::UnitedStates, patrol("SZ 9"), &[]).expect_err("enemy there");
    assert_eq!(refused.code, ViolationCode::PatrolPlace);
}

#[test]
fn the_us_lends_units_to_the_kmt_and_takes_them_back_at_any_time() {
    // 3.5: "units are considered lent by US to KMT to use on KMT's turn - US can regain
    // possession of units lent at any time but can't move them if units already moved on
    // KMT's turn".
    let ruleset = pacific();
    let mut state = turn(ruleset, 2, Power::Japan, Phase::Purchase);
    put(
        &mut state,
        "Yunnan",
        &[(Power::UnitedStates, "INF", 3), (Power::Kmt, "INF", 1)],
    );
    // On Japan's turn, even.
    give(
        &mut state,
        Power::UnitedStates,
        Order::Lend {
            to: Power::Kmt,
            territory: at("Yunnan"),
            units: units(&[("INF", 3)]),
        },
        &[],
    )
    .expect("lent");
    assert_eq!(here(&state, "Yunnan", Power::Kmt, "INF"), 4);
    // The KMT moves two of them on its turn (lent units go first).
    state.turn = ruleset
        .powers()
        .iter()
        .position(|p| *p == Power::Kmt)
        .expect("kmt");
    state.phase = Phase::NonCombatMove;
    give(
        &mut state,
        Power::Kmt,
        moving(&[("INF", 2)], &["Yunnan", "Szechwan"]),
        &[],
    )
    .expect("moved");
    // Only the CCP and the US may not lend to each other.
    let refused = give(
        &mut state.clone(),
        Power::UnitedStates,
        Order::Lend {
            to: Power::Ccp,
            territory: at("Yunnan"),
            units: units(&[("INF", 1)]),
        },
        &[],
    )
    .expect_err("3.5: the US does not lend to the CCP");
    assert_eq!(refused.code, ViolationCode::NoLoan);
    // Taken back on the US's turn: the two that moved may not move again this round.
    state.turn = ruleset
        .powers()
        .iter()
        .position(|p| *p == Power::UnitedStates)
        .expect("us");
    state.phase = Phase::NonCombatMove;
    give(
        &mut state,
        Power::UnitedStates,
        Order::Recall {
            from: Power::Kmt,
            territory: at("Szechwan"),
            units: units(&[("INF", 2)]),
        },
        &[],
    )
    .expect("taken back");
    assert_eq!(here(&state, "Szechwan", Power::UnitedStates, "INF"), 2);
    let refused = give(
        &mut state,
        Power::UnitedStates,
        moving(&[("INF", 1)], &["Szechwan", "Sikang"]),
        &[],
    )
    .expect_err("they moved on the KMT's turn");
    assert_eq!(refused.code, ViolationCode::NotEnoughUnits);
    // One more than is lent cannot be taken.
    let refused = give(
        &mut state,
        Power::UnitedStates,
        Order::Recall {
            from: Power::Kmt,
            territory: at("Yunnan"),
            units: units(&[("INF", 2)]),
        },
        &[],
    )
    .expect_err("only one is lent there");
    assert_eq!(refused.code, ViolationCode::NotLent);
}

#[test]
fn the_ccp_and_the_kmt_keep_an_infantry_in_shansi_unless_japan_holds_it() {
    // 3.2: "CCP (and KMT) must try to keep at least 1 infantry in Shansi at all times
    // unless it is occupied by Japan."
    let ruleset = pacific();
    let mut state = turn(ruleset, 2, Power::Ccp, Phase::NonCombatMove);
    put(
        &mut state,
        "Shansi",
        &[(Power::Ccp, "INF", 2), (Power::Kmt, "INF", 1)],
    );
    give(
        &mut state,
        Power::Ccp,
        moving(&[("INF", 2)], &["Shansi", "Sikang"]),
        &[],
    )
    .expect("the KMT's infantry stays");
    state.turn = ruleset
        .powers()
        .iter()
        .position(|p| *p == Power::Kmt)
        .expect("kmt");
    let refused = give(
        &mut state.clone(),
        Power::Kmt,
        moving(&[("INF", 1)], &["Shansi", "Szechwan"]),
        &[],
    )
    .expect_err("the last one");
    assert_eq!(refused.code, ViolationCode::GarrisonLeft);
    state.holder[at("Shansi").index()] = Some(Power::Japan);
    put(&mut state, "Szechwan", &[]);
    state.holder[at("Szechwan").index()] = Some(Power::Kmt);
    give(
        &mut state,
        Power::Kmt,
        moving(&[("INF", 1)], &["Shansi", "Szechwan"]),
        &[],
    )
    .expect("Japan holds it");
}

#[test]
fn the_ccps_player_places_its_recruits_where_it_has_units() {
    // 1.1a: "CCP gets +2 inf per turn to be placed any province that they have a unit in".
    let ruleset = pacific();
    let mut state = turn(ruleset, 1, Power::Ccp, Phase::Repairs);
    let events = give(&mut state, Power::Ccp, Order::EndPhase, &[]).expect("ends");
    assert!(events.contains(&GameEvent::RecruitsDue {
        power: Power::Ccp,
        infantry: 2,
    }));
    state.phase = Phase::Placement;
    let refused = give(
        &mut state.clone(),
        Power::Ccp,
        Order::Place {
            territory: at("Szechwan"),
            units: units(&[("INF", 2)]),
        },
        &[],
    )
    .expect_err("no CCP unit there");
    assert_eq!(refused.code, ViolationCode::NotRecruitSite);
    // Left unplaced, they go where it has the most units, as before revision 3.
    let events = give(&mut state.clone(), Power::Ccp, Order::EndPhase, &[]).expect("ends");
    assert!(events.contains(&GameEvent::UnitsPlaced {
        power: Power::Ccp,
        territory: at("Shansi"),
        units: units(&[("INF", 2)]),
    }));
    let before = here(&state, "Kweichow", Power::Ccp, "INF");
    give(
        &mut state,
        Power::Ccp,
        Order::Place {
            territory: at("Kweichow"),
            units: units(&[("INF", 2)]),
        },
        &[],
    )
    .expect("placed beside its infantry there");
    assert_eq!(here(&state, "Kweichow", Power::Ccp, "INF"), before + 2);
}

#[test]
fn bad_patrols_blocks_and_loans_are_refused_by_name_and_change_nothing() {
    let ruleset = pacific();
    let mut state = turn(ruleset, 2, Power::UnitedStates, Phase::NonCombatMove);
    put(
        &mut state,
        "Hawaiian Isl",
        &[
            (Power::UnitedStates, "FTR", 1),
            (Power::UnitedStates, "INF", 2),
        ],
    );
    let before = state.clone();
    let refusals = [
        // Not next door to Hawaii.
        (
            Order::FlyPatrol {
                units: units(&[("FTR", 1)]),
                from: at("Hawaiian Isl"),
                over: at("SZ 4"),
            },
            ViolationCode::PatrolPlace,
        ),
        // Infantry do not fly.
        (
            Order::FlyPatrol {
                units: units(&[("INF", 1)]),
                from: at("Hawaiian Isl"),
                over: at("SZ 9"),
            },
            ViolationCode::NotAircraft,
        ),
        // More fighters than stand there.
        (
            Order::FlyPatrol {
                units: units(&[("FTR", 2)]),
                from: at("Hawaiian Isl"),
                over: at("SZ 9"),
            },
            ViolationCode::NotEnoughUnits,
        ),
        // A power's submarines block others, not itself; and at sea.
        (
            Order::BlockWithSubmarines {
                sea_zone: None,
                against: vec![Power::UnitedStates],
            },
            ViolationCode::UnknownPower,
        ),
        (
            Order::BlockWithSubmarines {
                sea_zone: Some(at("Hawaiian Isl")),
                against: vec![Power::Japan],
            },
            ViolationCode::NotASeaZone,
        ),
        // Nothing is lent to take back, and three infantry are not there to lend.
        (
            Order::Recall {
                from: Power::Kmt,
                territory: at("Hawaiian Isl"),
                units: units(&[("INF", 1)]),
            },
            ViolationCode::NotLent,
        ),
        (
            Order::Lend {
                to: Power::Kmt,
                territory: at("Hawaiian Isl"),
                units: units(&[("INF", 3)]),
            },
            ViolationCode::NotEnoughUnits,
        ),
    ];
    for (order, code) in refusals {
        let refused =
            give(&mut state, Power::UnitedStates, order.clone(), &[]).expect_err("refused");
        assert_eq!(refused.code, code, "{order:?}");
        assert_eq!(state, before, "{order:?} changed nothing");
    }
    // No loan into a place where a battle is to be fought.
    state
        .contested
        .insert(at("Hawaiian Isl"), [Power::Japan].into());
    let refused = give(
        &mut state,
        Power::UnitedStates,
        Order::Lend {
            to: Power::Kmt,
            territory: at("Hawaiian Isl"),
            units: units(&[("INF", 1)]),
        },
        &[],
    )
    .expect_err("a battle is pending there");
    assert_eq!(refused.code, ViolationCode::BattleUnderway);
}
