//! The Pacific board's own pieces in AAP Historical, given/when/then: Japan's twelve
//! kamikaze tokens (1i), air and naval bases with Midway's an air base (2.4), and marines
//! attacking one higher when they come ashore. Dice are scripted.

use super::aap::{pacific, turn_of};
use super::pacific_rules::{at, give, moving, put, unit_of};
use super::*;
use crate::game::kamikazes::{KamikazeHit, KamikazeStrike};

/// `power`'s turn in `round` at `phase`.
fn turn(round: u32, power: Power, phase: Phase) -> GameState {
    turn_of(pacific(), round, power, phase)
}

/// How many of `power`'s `code` stand in a place, at each damage.
fn damaged(state: &GameState, place: &str, power: Power, code: &str) -> Vec<(u8, u32)> {
    state.forces[at(place).index()]
        .iter()
        .filter(|((owner, unit, _), _)| *owner == power && *unit == unit_of(code))
        .map(|((_, _, damage), n)| (*damage, *n))
        .collect()
}

/// The US's ships of a type in SZ 36, at each damage.
fn us_off_japan(state: &GameState, code: &str) -> Vec<(u8, u32)> {
    damaged(state, "SZ 36", Power::UnitedStates, code)
}

/// Japan's kamikaze order, taken.
fn japan_strikes(
    state: &mut GameState,
    strikes: Vec<KamikazeStrike>,
    dice: &[u8],
) -> Vec<GameEvent> {
    give(state, Power::Japan, kamikaze(strikes), dice).expect("Japan strikes")
}

fn strike(zone: &str, code: &str, tokens: u32) -> KamikazeStrike {
    KamikazeStrike {
        sea_zone: at(zone),
        unit: unit_of(code),
        tokens,
    }
}

fn kamikaze(strikes: Vec<KamikazeStrike>) -> Order {
    Order::KamikazeAttack { strikes }
}

fn die(value: u8) -> crate::dice::Die {
    crate::dice::Die::try_from(value).expect("a die")
}

/// The US's battles phase in round 3 with its fleet in Japan's home waters.
fn us_fleet_off_japan() -> GameState {
    let mut state = turn(3, Power::UnitedStates, Phase::Battles);
    put(
        &mut state,
        "SZ 36",
        &[
            (Power::UnitedStates, "BB", 2),
            (Power::UnitedStates, "AC", 1),
            (Power::UnitedStates, "TRN", 1),
        ],
    );
    state
}

/// The board's facts: `libs/rules/data/pacific-map.json`.
fn map() -> serde_json::Value {
    serde_json::from_str(include_str!("../../../data/pacific-map.json")).expect("the map")
}

#[test]
fn japan_starts_with_twelve_kamikaze_tokens_for_the_boards_six_kamikaze_zones() {
    // Given the Pacific board, whose Japan has 6 tokens ...
    let map = map();
    assert_eq!(map["kamikaze_tokens_start"]["Japanese"], 6);
    // ... when AAP Historical starts, then 1i: "Japan has 12 kamikazes ... not just 6".
    let state = pacific().start();
    assert_eq!(state.kamikaze_tokens.get(&Power::Japan), Some(&12));
    let kamikaze = pacific().special.kamikaze.as_ref().expect("tokens");
    let zones: BTreeSet<TerritoryId> = map["kamikaze_zones"]
        .as_array()
        .expect("zones")
        .iter()
        .map(|z| at(z.as_str().expect("a name")))
        .collect();
    assert_eq!(kamikaze.zones, zones);
    assert_eq!(kamikaze.attack, 2);
}

#[test]
fn each_token_rolls_one_die_at_the_ship_japan_names_hitting_on_two() {
    // Given the US fleet in SZ 36 once its combat move is over,
    let mut state = us_fleet_off_japan();
    // when Japan spends 2 tokens on a battleship and 1 on the carrier, rolling 1 and 5,
    // then 2,
    let events = japan_strikes(
        &mut state,
        vec![strike("SZ 36", "BB", 2), strike("SZ 36", "AC", 1)],
        &[1, 5, 2],
    );
    // then every die is recorded: the battleship takes one hit of its two, the carrier
    // sinks, the transport is no target, and 3 tokens are gone.
    let [GameEvent::KamikazesStruck {
        power,
        against,
        strikes,
    }] = events.as_slice()
    else {
        panic!("one event: {events:?}");
    };
    assert_eq!((*power, *against), (Power::Japan, Power::UnitedStates));
    let hit = |code: &str, dice: &[u8], sunk: bool| KamikazeHit {
        sea_zone: at("SZ 36"),
        unit: unit_of(code),
        damage: 0,
        dice: dice.iter().map(|d| die(*d)).collect(),
        hits: 1,
        sunk,
    };
    assert_eq!(strikes, &[hit("BB", &[1, 5], false), hit("AC", &[2], true)]);
    assert_eq!(us_off_japan(&state, "BB"), [(0, 1), (1, 1)]);
    assert!(us_off_japan(&state, "AC").is_empty());
    assert_eq!(us_off_japan(&state, "TRN"), [(0, 1)]);
    assert_eq!(state.kamikaze_tokens.get(&Power::Japan), Some(&9));
}

#[test]
fn a_token_that_misses_is_spent_and_two_hits_sink_a_battleship() {
    // Given the US fleet in SZ 36,
    let mut state = us_fleet_off_japan();
    // when Japan spends 2 tokens on each battleship, rolling 2 and 1, then 6 and 3,
    japan_strikes(
        &mut state,
        vec![strike("SZ 36", "BB", 2), strike("SZ 36", "BB", 2)],
        &[2, 1, 6, 3],
    );
    // then one battleship sinks, the other is untouched, and all 4 tokens are spent.
    assert_eq!(us_off_japan(&state, "BB"), [(0, 1)]);
    assert_eq!(state.kamikaze_tokens.get(&Power::Japan), Some(&8));
}

#[test]
fn a_strike_goes_to_the_most_damaged_ship_of_its_kind() {
    // Given a damaged US battleship beside a whole one in SZ 36,
    let mut state = us_fleet_off_japan();
    state.forces[at("SZ 36").index()].insert((Power::UnitedStates, unit_of("BB"), 0), 1);
    state.forces[at("SZ 36").index()].insert((Power::UnitedStates, unit_of("BB"), 1), 1);
    // when one token hits,
    japan_strikes(&mut state, vec![strike("SZ 36", "BB", 1)], &[2]);
    // then the damaged one sinks.
    assert_eq!(us_off_japan(&state, "BB"), [(0, 1)]);
}

#[test]
fn kamikazes_strike_only_warships_of_the_power_whose_turn_it_is_in_the_kamikaze_zones() {
    // Given the US fleet in SZ 36, a US submarine with it, a British battleship in SZ 35
    // and a US battleship in SZ 9,
    let mut state = us_fleet_off_japan();
    state.forces[at("SZ 36").index()].insert((Power::UnitedStates, unit_of("SUB"), 0), 1);
    put(&mut state, "SZ 35", &[(Power::UnitedKingdom, "BB", 1)]);
    put(&mut state, "SZ 9", &[(Power::UnitedStates, "BB", 1)]);
    for (strikes, says) in [
        (vec![strike("SZ 36", "TRN", 1)], "not TRN"),
        (vec![strike("SZ 36", "SUB", 1)], "not SUB"),
        (vec![strike("SZ 9", "BB", 1)], "not a kamikaze zone"),
        (vec![strike("SZ 35", "BB", 1)], "United States has no BB"),
        (
            vec![strike("SZ 36", "AC", 1), strike("SZ 36", "AC", 1)],
            "no AC left",
        ),
        (vec![strike("SZ 36", "BB", 0)], "at least one token"),
    ] {
        // when Japan names them, then it is refused, naming why, and nothing is spent.
        let refused =
            give(&mut state, Power::Japan, kamikaze(strikes), &[1, 1]).expect_err("not a target");
        assert_eq!(refused.code, ViolationCode::KamikazeTarget, "{says}");
        assert!(refused.message.contains(says), "{}", refused.message);
    }
    assert_eq!(state.kamikaze_tokens.get(&Power::Japan), Some(&12));
}

#[test]
fn japan_has_twelve_tokens_to_spend_and_spends_them_once_a_turn() {
    // Given the US fleet in SZ 36,
    let mut state = us_fleet_off_japan();
    // when Japan names 13 tokens, then it is refused;
    let refused = give(
        &mut state,
        Power::Japan,
        kamikaze(vec![strike("SZ 36", "BB", 7), strike("SZ 36", "BB", 6)]),
        &[],
    )
    .expect_err("12 tokens");
    assert_eq!(refused.code, ViolationCode::KamikazeTokens);
    // when it strikes once, then a second order in the same turn is refused.
    japan_strikes(&mut state, vec![strike("SZ 36", "BB", 1)], &[6]);
    let again = give(
        &mut state,
        Power::Japan,
        kamikaze(vec![strike("SZ 36", "AC", 1)]),
        &[1],
    )
    .expect_err("once a turn");
    assert_eq!(again.code, ViolationCode::KamikazeOnceATurn);
    assert_eq!(state.kamikaze_tokens.get(&Power::Japan), Some(&11));
}

#[test]
fn kamikazes_strike_only_for_japan_after_an_enemys_combat_move_and_before_its_battles() {
    let strikes = || kamikaze(vec![strike("SZ 36", "BB", 1)]);
    // Given the US fleet in SZ 36: the US has no kamikazes,
    let mut state = us_fleet_off_japan();
    let refused = give(&mut state, Power::UnitedStates, strikes(), &[1]).expect_err("Japan's");
    assert_eq!(refused.code, ViolationCode::KamikazeJapanOnly);
    // nor does Japan strike while the US still moves,
    let mut still_moving = us_fleet_off_japan();
    still_moving.phase = Phase::CombatMove;
    let refused = give(&mut still_moving, Power::Japan, strikes(), &[1]).expect_err("too soon");
    assert_eq!(refused.code, ViolationCode::WrongPhase);
    // or once the US has fought a battle (a destroyer against a transport in SZ 9),
    put(
        &mut state,
        "SZ 9",
        &[(Power::UnitedStates, "DES", 1), (Power::Japan, "TRN", 1)],
    );
    state.contested.insert(at("SZ 9"), [Power::Japan].into());
    give(
        &mut state,
        Power::UnitedStates,
        Order::FightBattle(combat::BattleOrders::at(at("SZ 9"))),
        &[1, 6],
    )
    .expect("fought");
    let refused = give(&mut state, Power::Japan, strikes(), &[1]).expect_err("too late");
    assert_eq!(refused.code, ViolationCode::WrongPhase);
    assert!(refused.message.contains("battles have begun"), "{refused}");
    // or on its own turn.
    let mut own = turn(3, Power::Japan, Phase::Battles);
    put(&mut own, "SZ 36", &[(Power::UnitedStates, "BB", 1)]);
    let refused = give(&mut own, Power::Japan, strikes(), &[1]).expect_err("its own turn");
    assert_eq!(refused.code, ViolationCode::WrongPhase);
}

#[test]
fn ships_in_a_zone_the_kamikazes_struck_bombard_nothing_that_turn() {
    // Given US infantry landed in Japan from SZ 36, with a battleship there,
    let mut state = turn(3, Power::UnitedStates, Phase::CombatMove);
    put(
        &mut state,
        "SZ 36",
        &[
            (Power::UnitedStates, "BB", 1),
            (Power::UnitedStates, "TRN", 1),
            (Power::UnitedStates, "INF", 2),
        ],
    );
    put(&mut state, "Japan", &[(Power::Japan, "INF", 1)]);
    give(
        &mut state,
        Power::UnitedStates,
        moving(&[("INF", 2)], &["SZ 36", "Japan"]),
        &[],
    )
    .expect("an assault");
    give(&mut state, Power::UnitedStates, Order::EndPhase, &[]).expect("battles");
    // when the kamikazes strike the battleship and miss,
    japan_strikes(&mut state, vec![strike("SZ 36", "BB", 1)], &[6]);
    // then it may not bombard the assault.
    let mut orders = combat::BattleOrders::at(at("Japan"));
    orders.bombard_from = vec![at("SZ 36")];
    let refused = give(
        &mut state,
        Power::UnitedStates,
        Order::FightBattle(orders),
        &[],
    )
    .expect_err("no bombardment");
    assert_eq!(refused.code, ViolationCode::BadBombardment);
    assert!(refused.message.contains("kamikazes struck"), "{refused}");
}

#[test]
fn a_sea_battle_whose_attackers_the_kamikazes_sank_is_off() {
    // Given a US destroyer moved into SZ 37 against a Japanese destroyer,
    let mut state = turn(3, Power::UnitedStates, Phase::CombatMove);
    put(&mut state, "SZ 36", &[(Power::UnitedStates, "DES", 1)]);
    put(&mut state, "SZ 37", &[(Power::Japan, "DES", 1)]);
    give(
        &mut state,
        Power::UnitedStates,
        moving(&[("DES", 1)], &["SZ 36", "SZ 37"]),
        &[],
    )
    .expect("an attack");
    give(&mut state, Power::UnitedStates, Order::EndPhase, &[]).expect("battles");
    assert!(state.contested.contains_key(&at("SZ 37")));
    // when a kamikaze sinks it,
    japan_strikes(&mut state, vec![strike("SZ 37", "DES", 1)], &[1]);
    // then there is no battle left to fight there.
    assert!(state.contested.is_empty());
}

#[test]
fn an_auditor_decides_a_kamikaze_attack_again_from_its_event() {
    // Given a kamikaze attack as recorded,
    let before = us_fleet_off_japan();
    let mut state = before.clone();
    let events = japan_strikes(
        &mut state,
        vec![strike("SZ 36", "BB", 2), strike("SZ 36", "AC", 1)],
        &[3, 2, 4],
    );
    // when the auditor recovers its order and decides it on the state before with its dice,
    let (by, order) = crate::game::replay::order_behind(&events[0]).expect("dice-bearing");
    let dice: Vec<u8> = crate::game::replay::dice_rolled(&events[0])
        .iter()
        .map(|d| d.value())
        .collect();
    assert_eq!(dice, [3, 2, 4]);
    let mut again = before;
    // then the events are the same.
    assert_eq!(give(&mut again, by, order, &dice), Ok(events));
}

#[test]
fn the_bases_are_the_boards_with_midways_an_air_base_not_a_naval_base() {
    // Given the board's bases (TripleA's airfields and harbours),
    let map = map();
    let mut air = BTreeSet::new();
    let mut naval = BTreeSet::new();
    for place in map["territories"].as_array().expect("places") {
        let name = place["name"].as_str().expect("a name");
        if place["air_base"] == true {
            air.insert(at(name));
        }
        if place["naval_base"] == true {
            naval.insert(at(name));
        }
    }
    // then AAP's are the same, but 2.4: "Midway should be an Airbase not a Naval base".
    assert!(naval.remove(&at("Midway")));
    assert!(air.insert(at("Midway")));
    let special = &pacific().special;
    assert_eq!((&special.air_bases, &special.naval_bases), (&air, &naval));
}

#[test]
fn a_fighter_leaving_a_friendly_air_base_flies_five_spaces() {
    // Given US fighters at Midway (an air base, 2.4) and at Wake (none), in the non-combat
    // move,
    let mut state = turn(2, Power::UnitedStates, Phase::NonCombatMove);
    put(&mut state, "Midway", &[(Power::UnitedStates, "FTR", 1)]);
    put(&mut state, "Wake", &[(Power::UnitedStates, "FTR", 1)]);
    // when each flies five spaces to friendly land, then Midway's may,
    give(
        &mut state,
        Power::UnitedStates,
        moving(
            &[("FTR", 1)],
            &["Midway", "SZ 20", "SZ 9", "SZ 10", "SZ 3", "Line"],
        ),
        &[],
    )
    .expect("one space more from the air base");
    // and Wake's may not.
    let refused = give(
        &mut state,
        Power::UnitedStates,
        moving(
            &[("FTR", 1)],
            &["Wake", "SZ 19", "SZ 20", "SZ 9", "SZ 10", "Johnston"],
        ),
        &[],
    )
    .expect_err("four spaces");
    assert_eq!(refused.code, ViolationCode::OutOfRange);
}

#[test]
fn a_fighter_that_flew_from_an_air_base_keeps_its_extra_space_to_land() {
    // Given a US fighter at Midway that flies three spaces in the combat move,
    let mut state = turn(2, Power::UnitedStates, Phase::CombatMove);
    put(&mut state, "Midway", &[(Power::UnitedStates, "FTR", 1)]);
    put(&mut state, "SZ 20", &[]);
    put(&mut state, "SZ 9", &[]);
    put(&mut state, "SZ 10", &[]);
    give(
        &mut state,
        Power::UnitedStates,
        moving(&[("FTR", 1)], &["Midway", "SZ 20", "SZ 9", "SZ 10"]),
        &[],
    )
    .expect("flies");
    give(&mut state, Power::UnitedStates, Order::EndPhase, &[]).expect("battles");
    give(&mut state, Power::UnitedStates, Order::EndPhase, &[]).expect("non-combat");
    // when it flies on, then it has two spaces left, not one (and not three).
    let refused = give(
        &mut state,
        Power::UnitedStates,
        moving(&[("FTR", 1)], &["SZ 10", "SZ 9", "SZ 20", "Midway"]),
        &[],
    )
    .expect_err("five in all");
    assert_eq!(refused.code, ViolationCode::OutOfRange);
    give(
        &mut state,
        Power::UnitedStates,
        moving(&[("FTR", 1)], &["SZ 10", "SZ 3", "Line"]),
        &[],
    )
    .expect("lands with its fifth space");
}

#[test]
fn ships_next_to_a_friendly_naval_base_sail_three_spaces_and_midway_gives_none() {
    // Given US destroyers in SZ 9 (beside Hawaii's naval base) and SZ 20 (beside Midway,
    // whose base is an air base), in the non-combat move,
    let mut state = turn(2, Power::UnitedStates, Phase::NonCombatMove);
    put(&mut state, "SZ 9", &[(Power::UnitedStates, "DES", 1)]);
    put(&mut state, "SZ 20", &[(Power::UnitedStates, "DES", 1)]);
    for zone in ["SZ 10", "SZ 11", "SZ 12", "SZ 17"] {
        put(&mut state, zone, &[]);
    }
    // when each sails three spaces, then the one beside Hawaii may,
    give(
        &mut state,
        Power::UnitedStates,
        moving(&[("DES", 1)], &["SZ 9", "SZ 10", "SZ 11", "SZ 12"]),
        &[],
    )
    .expect("one space more from beside the naval base");
    // and the one beside Midway may not.
    let refused = give(
        &mut state,
        Power::UnitedStates,
        moving(&[("DES", 1)], &["SZ 20", "SZ 17", "SZ 10", "SZ 11"]),
        &[],
    )
    .expect_err("two spaces");
    assert_eq!(refused.code, ViolationCode::OutOfRange);
}

#[test]
fn an_enemys_base_gives_nothing() {
    // Given a Japanese destroyer beside Hawaii, the US's naval base, on Japan's turn,
    let mut state = turn(2, Power::Japan, Phase::NonCombatMove);
    put(&mut state, "SZ 9", &[(Power::Japan, "DES", 1)]);
    for zone in ["SZ 10", "SZ 11", "SZ 12"] {
        put(&mut state, zone, &[]);
    }
    // when it sails three spaces, then it may not.
    let refused = give(
        &mut state,
        Power::Japan,
        moving(&[("DES", 1)], &["SZ 9", "SZ 10", "SZ 11", "SZ 12"]),
        &[],
    )
    .expect_err("two spaces");
    assert_eq!(refused.code, ViolationCode::OutOfRange);
}

/// The US attacks French Indo-China, held by 1 Japanese infantry, with 1 marine coming
/// from `from`; the battle's dice.
fn marine_attacks_indochina_from(from: &str, dice: &[u8]) -> combat::BattleFought {
    let mut state = turn(2, Power::UnitedStates, Phase::CombatMove);
    put(&mut state, "French Indo China", &[(Power::Japan, "INF", 1)]);
    put(&mut state, "SZ 45", &[]);
    if from == "SZ 45" {
        put(
            &mut state,
            "SZ 45",
            &[
                (Power::UnitedStates, "TRN", 1),
                (Power::UnitedStates, "MAR", 1),
            ],
        );
    } else {
        put(&mut state, from, &[(Power::UnitedStates, "MAR", 1)]);
    }
    give(
        &mut state,
        Power::UnitedStates,
        moving(&[("MAR", 1)], &[from, "French Indo China"]),
        &[],
    )
    .expect("an attack");
    give(&mut state, Power::UnitedStates, Order::EndPhase, &[]).expect("battles");
    let events = give(
        &mut state,
        Power::UnitedStates,
        Order::FightBattle(combat::BattleOrders::at(at("French Indo China"))),
        dice,
    )
    .expect("fought");
    let Some(GameEvent::BattleFought(fought)) = events.into_iter().next() else {
        panic!("a battle");
    };
    *fought
}

#[test]
fn a_marine_coming_ashore_attacks_at_two() {
    // Given a US marine landing in French Indo-China from a transport in SZ 45, when it
    // rolls a 2 and the Japanese infantry a 6, then it hits: the assault wins in round 1.
    let fought = marine_attacks_indochina_from("SZ 45", &[2, 6]);
    assert_eq!(fought.outcome, crate::battle::Outcome::AttackerWins);
    assert_eq!(fought.dice, [die(2), die(6)]);
    assert!(fought.captured);
}

#[test]
fn a_marine_that_walks_in_attacks_at_one() {
    // Given a US marine walking into French Indo-China from Yunnan, when it rolls a 2,
    // then it misses; a 1 in round 2 wins.
    let fought = marine_attacks_indochina_from("Yunnan", &[2, 6, 1, 6]);
    assert_eq!(fought.outcome, crate::battle::Outcome::AttackerWins);
    assert_eq!(fought.dice.len(), 4);
}

#[test]
fn a_marine_keeps_its_extra_point_in_every_round_of_the_assault() {
    // Given a US marine landing from SZ 45, when it rolls 3 then 2 (the infantry 6 and 6),
    // then it hits in round 2 at 2.
    let fought = marine_attacks_indochina_from("SZ 45", &[3, 6, 2, 6]);
    assert_eq!(fought.outcome, crate::battle::Outcome::AttackerWins);
    assert_eq!(fought.dice.len(), 4);
}

#[test]
fn the_kamikaze_order_reads_and_writes_in_the_notation() {
    // Given the plain-text order, when read, then it is Japan's strikes; written back, the
    // same line.
    let line = "kamikaze 2 on BB in 36 Sea Zone, 1 on AC in 37 Sea Zone";
    let Some(crate::notation::Step::Order(order)) = crate::notation::parse_line(
        "kamikaze 2 tokens on bb in SZ 36, 1 on aircraft carrier in SZ 37",
        1,
        pacific(),
    )
    .expect("reads") else {
        panic!("an order");
    };
    assert_eq!(crate::notation::render_order(&order), line);
    assert_eq!(
        order.resolve(pacific(), "x").expect("resolves"),
        kamikaze(vec![strike("SZ 36", "BB", 2), strike("SZ 37", "AC", 1)])
    );
}
