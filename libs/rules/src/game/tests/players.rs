//! Heavy armour, paratroopers, passive play, rogue units, seats and the end of the game.

use super::*;
use crate::game::combat::BattleOrders;
use crate::scoring::{Fraction, PointsTable};

fn order_at(
    state: &mut GameState,
    by: Power,
    order: Order,
    at: Moment,
) -> Result<Vec<GameEvent>, RuleViolation> {
    let mut no_dice = crate::dice::ScriptedDice::new(&[]);
    let events = decide(rules(), state, by, &order, at, &mut no_dice)?;
    for event in &events {
        apply(rules(), state, event);
    }
    Ok(events)
}

fn direct(
    state: &mut GameState,
    order: DirectorOrder,
    at: Moment,
) -> Result<Vec<GameEvent>, RuleViolation> {
    let events = decide_director(rules(), state, &order, at)?;
    for event in &events {
        apply(rules(), state, event);
    }
    Ok(events)
}

#[test]
fn heavy_armour_is_bought_at_eight_ipc_within_the_treasury() {
    let mut state = in_phase(1, Power::Germany, Phase::Purchase);
    let err = order(
        &mut state,
        Power::Germany,
        Order::Purchase(vec![(unit("HARM"), 5)]),
    )
    .expect_err("40 IPC");
    assert_eq!(err.code, "insufficient-ipc");
    order(
        &mut state,
        Power::Germany,
        Order::Purchase(vec![(unit("HARM"), 4)]),
    )
    .expect("32 IPC");
    assert_eq!(state.treasury[&Power::Germany], 0);
    assert_eq!(state.pending[&unit("HARM")], 4);
}

fn drop(
    state: &mut GameState,
    bombers: u32,
    troops: &[(&str, u32)],
) -> Result<Vec<GameEvent>, RuleViolation> {
    let troops = units_of(troops);
    let path = path_of(&["Germany", "East Europe", "Karelia"]);
    order(
        state,
        Power::Germany,
        Order::AirDrop {
            bombers,
            troops,
            path,
        },
    )
}

#[test]
fn a_bomber_drops_one_infantry_into_battle_and_does_not_fight_itself() {
    let mut state = in_phase(2, Power::Germany, Phase::CombatMove);
    set(&mut state, "Karelia", &[(Power::Russia, "INF", 1)]);
    drop(&mut state, 1, &[("INF", 1)]).expect("dropped");
    assert!(state.contested.contains_key(&place_id("Karelia")));
    advance_to(&mut state, Phase::Battles);
    let mut raid = BattleOrders::at(place_id("Karelia"));
    raid.bombing_raid = true;
    let err = order(&mut state, Power::Germany, Order::FightBattle(raid)).expect_err("no raid");
    assert_eq!(err.code, "paratroop-bombers");
    // One attacking die only (the infantry's; the defender fires back from the casualty
    // area): the bomber carries, it does not fight.
    ordered_with_dice(
        &mut state,
        Power::Germany,
        Order::FightBattle(BattleOrders::at(place_id("Karelia"))),
        &[1, 6],
    )
    .expect("fought");
    assert_eq!(
        state.holder[place_id("Karelia").index()],
        Some(Power::Germany)
    );
    assert_eq!(count(&state, "Karelia", Power::Germany, "BMB"), 1);
}

#[test]
fn a_bomber_carries_one_infantry_and_a_heavy_bomber_two_or_infantry_and_armour() {
    let mut state = in_phase(1, Power::Germany, Phase::NonCombatMove);
    state.holder[place_id("East Europe").index()] = Some(Power::Germany);
    let path_end = ["Germany", "East Europe"];
    let air_drop = |state: &mut GameState, troops: &[(&str, u32)]| {
        let troops = units_of(troops);
        order(
            state,
            Power::Germany,
            Order::AirDrop {
                bombers: 1,
                troops,
                path: path_of(&path_end),
            },
        )
    };
    for troops in [&[("INF", 2)][..], &[("ARM", 1)], &[("INF", 1), ("ARM", 1)]] {
        let err = air_drop(&mut state.clone(), troops).expect_err("a plain bomber");
        assert_eq!(err.code, "paratroop-capacity", "{troops:?}");
    }
    state
        .technologies
        .entry(Power::Germany)
        .or_default()
        .insert(Technology::HeavyBombers);
    let err = air_drop(&mut state.clone(), &[("HARM", 1)]).expect_err("not heavy armour");
    assert_eq!(err.code, "paratroop-capacity");
    air_drop(&mut state.clone(), &[("INF", 2)]).expect("two infantry");
    let err = order(
        &mut state.clone(),
        Power::Germany,
        Order::AirDrop {
            bombers: 1,
            troops: units_of(&[("INF", 1)]),
            path: path_of(&["Germany", "Baltic Sea Zone"]),
        },
    )
    .expect_err("troops land on land");
    assert_eq!(err.code, "paratroop-land");
    let armour = count(&state, "East Europe", Power::Germany, "ARM");
    air_drop(&mut state, &[("INF", 1), ("ARM", 1)]).expect("infantry and armour");
    assert_eq!(
        count(&state, "East Europe", Power::Germany, "ARM"),
        armour + 1
    );
}

#[test]
fn a_passive_power_turns_its_treasury_into_infantry_on_its_capital_and_never_moves() {
    let mut state = in_phase(2, Power::Russia, Phase::Repairs);
    let before = count(&state, "Russia", Power::Russia, "INF");
    order(&mut state, Power::Russia, Order::GoPassive).expect("passive");
    assert_eq!(count(&state, "Russia", Power::Russia, "INF"), before + 8);
    assert_eq!(state.treasury[&Power::Russia], 0);
    advance_to(&mut state, Phase::NonCombatMove);
    let err = move_units(
        &mut state,
        Power::Russia,
        &[("INF", 1)],
        &["Russia", "Kazakh"],
    )
    .expect_err("no movement");
    assert_eq!(err.code, "passive-power");
    advance_to(&mut state, Phase::Income);
    order(&mut state, Power::Russia, Order::EndPhase).expect("income");
    assert_eq!(
        count(&state, "Russia", Power::Russia, "INF"),
        before + 16,
        "every income becomes infantry too"
    );
}

#[test]
fn a_power_without_its_capital_cannot_go_passive_nor_repair_battleships() {
    let mut state = in_phase(2, Power::UnitedKingdom, Phase::Repairs);
    state.holder[place_id("United Kingdom").index()] = Some(Power::Germany);
    let err = order(&mut state, Power::UnitedKingdom, Order::GoPassive).expect_err("no capital");
    assert_eq!(err.code, "capital-lost");
    let zone = place_id("UK SZ");
    state.forces[zone.index()].clear();
    state.forces[zone.index()].insert((Power::UnitedKingdom, unit("BB"), 1), 1);
    state.treasury.insert(Power::UnitedKingdom, 20);
    let err = order(
        &mut state,
        Power::UnitedKingdom,
        Order::RepairBattleship { sea_zone: zone },
    )
    .expect_err("rogue");
    assert_eq!(err.code, "rogue-no-repairs");
}

const DAY: u64 = 24 * 60 * 60;

fn seated() -> (GameState, Moment) {
    let mut state = start();
    let t0 = Moment::from_unix_seconds(1_790_000_000);
    let seats = Power::CLASSIC
        .iter()
        .map(|p| (*p, format!("player-{}", p.name())))
        .collect();
    direct(&mut state, DirectorOrder::AssignSeats(seats), t0).expect("seated");
    (state, t0)
}

#[test]
fn seats_name_each_power_once_and_a_substitute_by_name() {
    let mut state = start();
    let before = state.clone();
    let at = Moment::from_unix_seconds(1_790_000_000);
    for seats in [
        vec![
            (Power::Russia, "ann".to_owned()),
            (Power::Russia, "bob".to_owned()),
        ],
        vec![(Power::Russia, String::new())],
    ] {
        let err = direct(&mut state, DirectorOrder::AssignSeats(seats), at).expect_err("bad");
        assert_eq!(err.code, "bad-seats");
    }
    let err = direct(
        &mut state,
        DirectorOrder::ReplaceInactivePlayer {
            substitute: String::new(),
        },
        at.plus_seconds(10 * DAY),
    )
    .expect_err("who?");
    assert_eq!(err.code, "bad-seats");
    assert_eq!(state, before);
}

#[test]
fn a_player_inactive_for_more_than_three_days_is_replaced_from_the_waiting_list() {
    let (mut state, t0) = seated();
    let replace = DirectorOrder::ReplaceInactivePlayer {
        substitute: "waiting-1".into(),
    };
    let err = direct(&mut state, replace.clone(), t0.plus_seconds(3 * DAY))
        .expect_err("exactly three days");
    assert_eq!(err.code, "player-active");
    order_at(
        &mut state,
        Power::Russia,
        Order::EndPhase,
        t0.plus_seconds(2 * DAY),
    )
    .expect("Russia acts");
    let err = direct(&mut state, replace.clone(), t0.plus_seconds(4 * DAY))
        .expect_err("the clock runs from the last action");
    assert_eq!(err.code, "player-active");
    let events = direct(&mut state, replace, t0.plus_seconds(5 * DAY + 1)).expect("replaced");
    assert!(matches!(
        events.as_slice(),
        [GameEvent::PlayerReplaced { power: Power::Russia, replaced: Some(old), .. }]
            if old == "player-Russia"
    ));
    assert_eq!(state.seats[&Power::Russia].player, "waiting-1");
}

#[test]
fn a_player_who_holds_a_seat_may_not_take_a_second_one_in_the_same_game() {
    let (mut state, t0) = seated();
    let before = state.clone();
    let twice = [
        DirectorOrder::ReplaceInactivePlayer {
            substitute: "player-Germany".into(),
        },
        DirectorOrder::TakeSeat {
            power: Power::Russia,
            player: "player-Germany".into(),
            reason: "a swap".into(),
        },
        DirectorOrder::AssignSeats(vec![
            (Power::Russia, "ann".to_owned()),
            (Power::Germany, "ann".to_owned()),
        ]),
    ];
    for order in twice {
        let err = direct(&mut state, order, t0.plus_seconds(4 * DAY)).expect_err("seated twice");
        assert_eq!(err.code, "bad-seats");
    }
    assert_eq!(state, before);
    direct(
        &mut state,
        DirectorOrder::TakeSeat {
            power: Power::Russia,
            player: "player-Russia".into(),
            reason: "the same player keeps the seat".into(),
        },
        t0.plus_seconds(DAY),
    )
    .expect("a player may keep the seat they hold");
}

#[test]
fn a_draw_that_names_a_player_twice_or_nobody_is_refused_before_any_die() {
    for players in [
        ["ann", "ann", "cy", "di", "ed"],
        ["ann", "bob", "", "di", "ed"],
    ] {
        let players: Vec<String> = players.map(String::from).to_vec();
        let mut dice = crate::dice::ScriptedDice::new(&[1, 1, 1, 1]);
        let err = draw_seats(&Power::CLASSIC, &players, &mut dice).expect_err("refused");
        assert_eq!(err.code, "bad-seats");
        assert!(
            err.message.contains("one seat per player"),
            "{}",
            err.message
        );
        assert_eq!(dice.remaining(), 4, "no die rolled");
        let bids = [3; 5];
        let mut dice = crate::dice::ScriptedDice::new(&[1, 1, 1, 1]);
        let err = draw_seats_by_bid(&Power::CLASSIC, &players, &bids, Power::Japan, &mut dice)
            .expect_err("refused by bid too");
        assert_eq!(err.code, "bad-seats");
        assert_eq!(dice.remaining(), 4, "no die rolled");
    }
}

#[test]
fn a_substitute_who_plays_two_rounds_becomes_the_permanent_player() {
    let (mut state, t0) = seated();
    direct(
        &mut state,
        DirectorOrder::ReplaceInactivePlayer {
            substitute: "waiting-1".into(),
        },
        t0.plus_seconds(4 * DAY),
    )
    .expect("replaced");
    let mut made_permanent = Vec::new();
    for round in 1..=2 {
        for _ in 0..Power::CLASSIC.len() * Phase::ALL.len() {
            let power = state.power(rules().board);
            let events = order(&mut state, power, Order::EndPhase).expect("ends");
            made_permanent.extend(events.into_iter().filter_map(|e| match e {
                GameEvent::SubstituteMadePermanent { player, .. } => Some((round, player)),
                _ => None,
            }));
        }
        if round == 1 {
            assert_eq!(state.seats[&Power::Russia].substitute_turns, Some(1));
            // Until then the seat's result is the replaced player's, and nobody forfeits.
            assert_eq!(
                state.seats[&Power::Russia].scored_by(),
                ("player-Russia", vec![])
            );
        }
    }
    assert_eq!(made_permanent, vec![(2, "waiting-1".to_owned())]);
    assert_eq!(state.seats[&Power::Russia].substitute_turns, None);
    // After two rounds the seat's result is the substitute's; the replaced player takes
    // last place's for it.
    assert_eq!(
        state.seats[&Power::Russia].scored_by(),
        ("waiting-1", vec!["player-Russia"])
    );
    assert_eq!(
        state.seats[&Power::Germany].scored_by(),
        ("player-Germany", vec![])
    );
}

/// Every power ends its phases for `rounds` rounds.
fn rounds_played(state: &mut GameState, rounds: usize) {
    for _ in 0..rounds * Power::CLASSIC.len() * Phase::ALL.len() {
        let power = state.power(rules().board);
        order(state, power, Order::EndPhase).expect("ends");
    }
}

#[test]
fn a_permanent_substitute_replaced_in_turn_forfeits_the_seat_as_the_first_did() {
    // Given Russia's player replaced by waiting-1, who played two rounds (permanent),
    let (mut state, t0) = seated();
    let replace = |substitute: &str| DirectorOrder::ReplaceInactivePlayer {
        substitute: substitute.into(),
    };
    direct(&mut state, replace("waiting-1"), t0.plus_seconds(4 * DAY)).expect("replaced");
    rounds_played(&mut state, 2);
    assert_eq!(state.seats[&Power::Russia].substitute_turns, None);
    // when waiting-1 goes idle in turn and waiting-2 takes the seat,
    direct(&mut state, replace("waiting-2"), t0.plus_seconds(40 * DAY)).expect("replaced");
    // then the seat's result stays waiting-1's (whose seat it was), not the first
    // player's, who still forfeits it; and neither may take another seat in the game;
    assert_eq!(
        state.seats[&Power::Russia].scored_by(),
        ("waiting-1", vec!["player-Russia"])
    );
    for player in ["player-Russia", "waiting-1"] {
        let twice = DirectorOrder::TakeSeat {
            power: Power::Germany,
            player: player.into(),
            reason: "a swap".into(),
        };
        let err = direct(&mut state, twice, t0.plus_seconds(41 * DAY)).expect_err(player);
        assert_eq!(err.code, "bad-seats");
    }
    // nor come back to Russia's seat, which would score them twice;
    for player in ["player-Russia", "waiting-1"] {
        let back = DirectorOrder::TakeSeat {
            power: Power::Russia,
            player: player.into(),
            reason: "back".into(),
        };
        let err = direct(&mut state, back, t0.plus_seconds(41 * DAY)).expect_err(player);
        assert_eq!(err.code, "bad-seats");
        assert!(
            err.message.contains("was replaced at Russia"),
            "{}",
            err.message
        );
    }
    // when waiting-2 has played two rounds, then the seat is theirs and both forfeit it.
    rounds_played(&mut state, 2);
    assert_eq!(
        state.seats[&Power::Russia].scored_by(),
        ("waiting-2", vec!["player-Russia", "waiting-1"])
    );
}

#[test]
fn a_seat_change_keeps_the_seats_standing_so_an_idle_player_keeps_the_result() {
    // Given Russia's player replaced for inactivity by waiting-1, not yet permanent,
    let (mut state, t0) = seated();
    let replace = DirectorOrder::ReplaceInactivePlayer {
        substitute: "waiting-1".into(),
    };
    direct(&mut state, replace, t0.plus_seconds(4 * DAY)).expect("replaced");
    // when the seat is handed to waiting-2 by a seat change,
    let change = DirectorOrder::TakeSeat {
        power: Power::Russia,
        player: "waiting-2".into(),
        reason: "waiting-1 cannot go on".into(),
    };
    direct(&mut state, change, t0.plus_seconds(5 * DAY)).expect("seat taken");
    // then the result is still the idle player's until the new holder has played two rounds,
    let seat = &state.seats[&Power::Russia];
    assert_eq!(seat.player, "waiting-2");
    assert_eq!(seat.scored_by(), ("player-Russia", Vec::<&str>::new()));
    // and once they have, the seat is theirs and the idle player forfeits it.
    rounds_played(&mut state, 2);
    assert_eq!(
        state.seats[&Power::Russia].scored_by(),
        ("waiting-2", vec!["player-Russia"])
    );
}

#[test]
fn ending_the_game_scores_it_by_percent_gain_and_stops_all_orders() {
    let (mut state, t0) = seated();
    // Britain takes Kazakh (2 IPC) from Russia.
    state.holder[place_id("Kazakh").index()] = Some(Power::UnitedKingdom);
    assert!(state
        .placements(rules(), &PointsTable::cut_throat())
        .is_none());
    direct(&mut state, DirectorOrder::EndGame, t0.plus_seconds(DAY)).expect("ended");
    let placed = state
        .placements(rules(), &PointsTable::cut_throat())
        .expect("ended")
        .expect("scored");
    let summary: Vec<(Power, usize, Fraction)> = placed
        .iter()
        .map(|p| (p.power, p.place, p.points))
        .collect();
    let tied = Fraction::new(3 + 2 - 1, 3).expect("fraction");
    assert_eq!(
        summary,
        vec![
            (Power::UnitedKingdom, 1, Fraction::whole(5)),
            (Power::Germany, 2, tied),
            (Power::Japan, 2, tied),
            (Power::UnitedStates, 2, tied),
            (Power::Russia, 5, Fraction::whole(-2)),
        ]
    );
    let err = order(&mut state, Power::Russia, Order::EndPhase).expect_err("over");
    assert_eq!(err.code, "game-over");
    let err = direct(&mut state, DirectorOrder::EndGame, t0).expect_err("once");
    assert_eq!(err.code, "game-over");
}

#[test]
fn in_round_one_japan_places_its_infantry_at_its_home_complex() {
    // Cut-Throat, IC movement: "Exception to the rule is the capital's home IC, this is a
    // NON-MOBILE IC" - every capital has one, Japan's included (the setup table omits it).
    let mut state = in_phase(1, Power::Japan, Phase::Placement);
    state.pending.insert(unit("INF"), 3);
    place(&mut state, Power::Japan, "Japan", &[("INF", 3)]).expect("placed at home");
    assert_eq!(count(&state, "Japan", Power::Japan, "INF"), 6);
    assert_eq!(count(&state, "Japan", Power::Japan, "AA"), 1);
}

#[test]
fn south_africas_complex_produces_up_to_its_territorys_value() {
    // Cut-Throat, UK setup: "The Industrial Complex in India is considered an original
    // complex (unlimited unit production capability)" - India's, not South Africa's.
    let mut state = in_phase(1, Power::UnitedKingdom, Phase::Placement);
    state.pending.insert(unit("INF"), 3);
    place(
        &mut state,
        Power::UnitedKingdom,
        "South Africa",
        &[("INF", 3)],
    )
    .expect_err("South Africa is worth 2");
    place(
        &mut state,
        Power::UnitedKingdom,
        "South Africa",
        &[("INF", 2)],
    )
    .expect("2 fit");
    place(&mut state, Power::UnitedKingdom, "India", &[("INF", 1)]).expect("India: unlimited");
}

#[test]
fn a_voided_game_is_over_with_no_placements_and_its_reason_on_the_record() {
    // Issue 16: "the director may end a game that should not count (nothing played,
    // abandoned); no placements, no points, the reason in the log."
    let (mut state, t0) = seated();
    // Given a game with no reason given, when it is voided, then it is refused.
    let err = direct(
        &mut state,
        DirectorOrder::VoidGame {
            reason: "  ".into(),
        },
        t0,
    )
    .expect_err("no reason");
    assert_eq!(err.code, "void-without-reason");
    // When the director voids it with a reason...
    let events = direct(
        &mut state,
        DirectorOrder::VoidGame {
            reason: "abandoned".into(),
        },
        t0,
    )
    .expect("voided");
    assert_eq!(
        events,
        vec![GameEvent::GameVoided {
            at: t0,
            reason: "abandoned".into()
        }]
    );
    // ...then it has no placements, takes no order, and cannot be ended or voided again.
    assert!(state
        .placements(rules(), &PointsTable::cut_throat())
        .is_none());
    let err = order(&mut state, Power::Russia, Order::EndPhase).expect_err("over");
    assert_eq!(err.code, "game-over");
    assert!(err.message.contains("voided: abandoned"), "{}", err.message);
    for again in [
        DirectorOrder::EndGame,
        DirectorOrder::VoidGame {
            reason: "twice".into(),
        },
    ] {
        let refused = direct(&mut state, again, t0).expect_err("over");
        assert_eq!(refused.code, "game-over");
        // It cites the record that ended the game, not a rule of play (issue 34).
        assert_eq!(refused.rule, "the game's void, on its record");
    }
}

#[test]
fn a_new_complex_goes_on_land_held_since_the_turn_began_and_produces_from_the_next_turn() {
    let mut state = in_phase(1, Power::Japan, Phase::Placement);
    state.pending.insert(unit("IC"), 1);
    state.pending.insert(unit("INF"), 1);
    for (place_name, code) in [
        ("China", "no-complex-site"),
        ("Japan SZ", "no-complex-site"),
    ] {
        let err = place(&mut state, Power::Japan, place_name, &[("IC", 1)]).expect_err("not here");
        assert_eq!(err.code, code, "{place_name}");
    }
    let err = place(
        &mut state,
        Power::Japan,
        "Manchuria",
        &[("IC", 1), ("INF", 1)],
    )
    .expect_err("alone");
    assert_eq!(err.code, "complex-alone");
    place(&mut state, Power::Japan, "Manchuria", &[("IC", 1)]).expect("built");
    let err = place(&mut state, Power::Japan, "Manchuria", &[("INF", 1)]).expect_err("next turn");
    assert_eq!(err.code, "complex-setting-up");
}

#[test]
fn units_with_nowhere_to_be_placed_are_forfeited_when_placement_ends() {
    let mut state = in_phase(1, Power::Japan, Phase::Placement);
    // Japan's complex gone (taken off the board for the test): nowhere to place.
    state.forces[place_id("Japan").index()].retain(|(_, u, _), _| *u != unit("IC"));
    state.pending.insert(unit("INF"), 2);
    let events = order(&mut state, Power::Japan, Order::EndPhase).expect("ends");
    assert!(matches!(
        events.as_slice(),
        [GameEvent::UnitsForfeited { units, .. }, GameEvent::PhaseEnded { .. }]
            if *units == vec![(unit("INF"), 2)]
    ));
    assert!(state.pending.is_empty());
}

#[test]
fn aircraft_with_nowhere_to_land_at_the_end_of_the_non_combat_move_are_lost() {
    let mut state = in_phase(2, Power::Germany, Phase::NonCombatMove);
    set(&mut state, "Karelia", &[(Power::Germany, "FTR", 1)]);
    let events = order(&mut state, Power::Germany, Order::EndPhase).expect("ends");
    assert!(matches!(
        events.as_slice(),
        [GameEvent::AircraftLost { losses, .. }, GameEvent::PhaseEnded { .. }]
            if *losses == vec![(place_id("Karelia"), unit("FTR"), 1)]
    ));
    assert_eq!(count(&state, "Karelia", Power::Germany, "FTR"), 0);
    assert_eq!(
        count(&state, "Germany", Power::Germany, "FTR"),
        1,
        "a fighter at home stays"
    );
}

#[test]
fn an_empty_placement_is_refused() {
    let mut state = in_phase(1, Power::Russia, Phase::Placement);
    state.pending.insert(unit("INF"), 1);
    let err = place(&mut state, Power::Russia, "Russia", &[]).expect_err("nothing");
    assert_eq!(err.code, "empty-placement");
    let err = place(&mut state, Power::Russia, "Russia", &[("INF", 0)]).expect_err("zero");
    assert_eq!(err.code, "empty-placement");
    place(&mut state, Power::Russia, "Russia", &[("INF", 1)]).expect("one");
}
