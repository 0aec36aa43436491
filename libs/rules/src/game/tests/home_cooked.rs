//! The "War" rules' game flow, given/when/then on the Classic board: start zones,
//! initiative, reinforcements by the player to the right, spending, parley, militia,
//! battles, control by ground units and income.

use super::*;
use crate::game::home_cooked::{WarBattleOutcome, WarMove};
use crate::home_cooked_tables::WarTechnology;
use crate::ruleset::Ruleset;

fn war() -> &'static Ruleset {
    Ruleset::builtin("war").expect("war is playable")
}

fn id(name: &str) -> TerritoryId {
    war().board.id(name).expect(name)
}

fn unit_of(code: &str) -> UnitTypeId {
    war().catalogue.id(code).expect(code)
}

pub(crate) fn seated() -> GameState {
    let mut state = war().start();
    let seats = Power::CLASSIC
        .iter()
        .map(|p| (*p, format!("{p:?}").to_lowercase()))
        .collect();
    apply(
        war().rules(),
        &mut state,
        &GameEvent::SeatsAssigned {
            seats,
            at: Moment::default(),
        },
    );
    state
}

fn order(
    state: &mut GameState,
    by: Power,
    order: Order,
    dice: &[u8],
) -> Result<Vec<GameEvent>, RuleViolation> {
    order_under(war().rules(), state, by, order, dice)
}

/// Germany's turn (the UK to its right), in `phase`: Germany holds Germany and Western
/// Europe with `german` units in Germany, and has $30.
fn germany_in(phase: Phase, german: &[(&str, u32)]) -> GameState {
    let mut state = seated();
    state.phase = Phase::Initiative;
    // Germany 6, then the table round to the right from it.
    order(
        &mut state,
        Power::Russia,
        Order::RollInitiative,
        &[1, 6, 2, 3, 4],
    )
    .expect("rolled");
    for zone in ["Germany", "West Europe"] {
        state.holder[id(zone).index()] = Some(Power::Germany);
    }
    state.holder[id("United Kingdom").index()] = Some(Power::UnitedKingdom);
    for (code, n) in german {
        state.forces[id("Germany").index()].insert((Power::Germany, unit_of(code), 0), *n);
    }
    state.treasury.insert(Power::Germany, 30);
    state.phase = phase;
    state
}

/// Germany moves units (by code) along a path (by name), with these dice.
fn germany_moves(
    state: &mut GameState,
    units: &[(&str, u32)],
    path: &[&str],
    dice: &[u8],
) -> Result<Vec<GameEvent>, RuleViolation> {
    let order_given = Order::Move {
        units: units.iter().map(|(code, n)| (unit_of(code), *n)).collect(),
        path: path.iter().map(|name| id(name)).collect(),
    };
    order(state, Power::Germany, order_given, dice)
}

/// `power` has developed `tech`.
fn develop(state: &mut GameState, power: Power, tech: WarTechnology) {
    state
        .war
        .technologies
        .entry(power)
        .or_default()
        .insert(tech);
}

fn moved(events: &[GameEvent]) -> &WarMove {
    match events.first() {
        Some(GameEvent::WarMoveResolved(resolved)) => resolved,
        other => panic!("not a move: {other:?}"),
    }
}

fn units_in(state: &GameState, zone: &str, owner: Power) -> Vec<(String, u32)> {
    state.forces[id(zone).index()]
        .iter()
        .filter(|((o, _, _), _)| *o == owner)
        .map(|((_, u, _), n)| (war().catalogue.get(*u).code.clone(), *n))
        .collect()
}

#[test]
fn the_game_starts_with_every_players_three_bases_rolled_from_the_dice() {
    let mut state = seated();
    assert_eq!(state.phase, Phase::StartZones);
    let mut dice = crate::dice::GameSeed::from_bytes([9; 32]).dice_for("war-test", 2);
    let events = decide(
        war().rules(),
        &state,
        Power::Japan,
        &Order::RollStartZones,
        Moment::default(),
        &mut dice,
    )
    .expect("any seated player rolls them");
    let Some(GameEvent::StartZonesRolled { bases, .. }) = events.first() else {
        panic!("{events:?}");
    };
    let mut all = BTreeSet::new();
    for base in bases {
        assert_eq!(base.zones.len(), 3, "{base:?}");
        // Each zone is the chart's row for one of the recorded rolls.
        for zone in &base.zones {
            assert!(base.rolls.iter().any(|r| {
                let total: u8 = r.iter().map(|d| d.value()).sum();
                crate::home_cooked_tables::start_zone(total).map(id) == Some(*zone)
            }));
            assert!(all.insert(*zone), "two bases share {zone:?}");
        }
    }
    for event in &events {
        apply(war().rules(), &mut state, event);
    }
    assert_eq!(state.phase, Phase::Initiative);
    assert_eq!(
        Power::CLASSIC.map(|p| state.ipc_count(&war().board, p) > 0),
        [true; 5],
        "every player holds their bases"
    );
    let again = order(&mut state, Power::Japan, Order::RollStartZones, &[]);
    assert_eq!(again.expect_err("once").code, "wrong-phase");
}

#[test]
fn initiative_goes_to_the_highest_die_with_ties_rolled_again_and_play_goes_round_to_the_right() {
    let mut state = seated();
    state.phase = Phase::Initiative;
    // Germany and Japan tie on 5; Japan wins the roll-off.
    let events = order(
        &mut state,
        Power::UnitedStates,
        Order::RollInitiative,
        &[3, 5, 2, 5, 1, 2, 6],
    )
    .expect("rolled");
    let Some(GameEvent::InitiativeRolled { rolls, order, .. }) = events.first() else {
        panic!("{events:?}");
    };
    assert_eq!(rolls.len(), 2, "the roll-off is in the log");
    assert_eq!(
        order,
        &[
            Power::Japan,
            Power::UnitedStates,
            Power::Russia,
            Power::Germany,
            Power::UnitedKingdom
        ]
    );
    assert_eq!(state.power(&war().board), Power::Japan);
    assert_eq!(state.phase, Phase::Reinforcements);
    assert_eq!(
        crate::game::home_cooked::reinforcer(war().rules(), &state),
        Power::UnitedStates
    );
}

#[test]
fn the_player_to_the_right_rolls_and_places_the_reinforcements_in_zones_no_player_holds() {
    let mut state = germany_in(Phase::Reinforcements, &[]);
    let not_theirs = order(&mut state, Power::Germany, Order::RollReinforcements, &[1]);
    assert_eq!(not_theirs.expect_err("the UK's").code, "not-your-turn");
    let early = order(&mut state, Power::UnitedKingdom, Order::EndPhase, &[]);
    assert_eq!(
        early.expect_err("roll first").code,
        "reinforcements-not-rolled"
    );

    // 3 + 4 + 4 = 11: two soldiers, then up to four units move.
    let events = order(
        &mut state,
        Power::UnitedKingdom,
        Order::RollReinforcements,
        &[3, 4, 4],
    )
    .expect("the UK rolls");
    assert!(matches!(
        events.first(),
        Some(GameEvent::ReinforcementsRolled {
            moves: 4,
            active: Power::Germany,
            ..
        })
    ));
    let soldiers = vec![(unit_of("INF"), 2)];
    let into_a_player = order(
        &mut state,
        Power::UnitedKingdom,
        Order::Place {
            territory: id("West Europe"),
            units: soldiers.clone(),
        },
        &[],
    );
    assert_eq!(into_a_player.expect_err("held").code, "player-zone");
    let unfinished = order(&mut state, Power::UnitedKingdom, Order::EndPhase, &[]);
    assert_eq!(
        unfinished.expect_err("placed first").code,
        "reinforcements-unplaced"
    );
    let too_many = order(
        &mut state,
        Power::UnitedKingdom,
        Order::Place {
            territory: id("South Europe"),
            units: vec![(unit_of("INF"), 3)],
        },
        &[],
    );
    assert_eq!(too_many.expect_err("two rolled").code, "not-rolled");
    order(
        &mut state,
        Power::UnitedKingdom,
        Order::Place {
            territory: id("South Europe"),
            units: soldiers,
        },
        &[],
    )
    .expect("placed");
    assert_eq!(
        units_in(&state, "South Europe", Power::Npn),
        [("INF".to_owned(), 2)]
    );

    // They may attack the active player (Germany's empty West Europe falls to them),
    // but not another player.
    state.holder[id("East Europe").index()] = Some(Power::Russia);
    let elsewhere = order(
        &mut state,
        Power::UnitedKingdom,
        Order::Move {
            units: vec![(unit_of("INF"), 1)],
            path: vec![id("South Europe"), id("East Europe")],
        },
        &[],
    );
    assert_eq!(
        elsewhere.expect_err("Russia's").code,
        "not-the-active-player"
    );
    let events = order(
        &mut state,
        Power::UnitedKingdom,
        Order::Move {
            units: vec![(unit_of("INF"), 1)],
            path: vec![id("South Europe"), id("West Europe")],
        },
        &[],
    )
    .expect("attacks Germany's position");
    assert!(moved(&events).taken);
    assert_eq!(state.holder[id("West Europe").index()], None);
    order(&mut state, Power::UnitedKingdom, Order::EndPhase, &[]).expect("ends");
    assert_eq!(state.phase, Phase::Purchase);
    assert_eq!(state.power(&war().board), Power::Germany);
}

#[test]
fn units_are_bought_into_held_zones_and_a_factory_takes_a_dollar_off_each() {
    let mut state = germany_in(Phase::Purchase, &[]);
    let elsewhere = order(
        &mut state,
        Power::Germany,
        Order::Place {
            territory: id("South Europe"),
            units: vec![(unit_of("INF"), 1)],
        },
        &[],
    );
    assert_eq!(elsewhere.expect_err("not held").code, "not-held");
    order(
        &mut state,
        Power::Germany,
        Order::BuildInfrastructure {
            territory: id("Germany"),
        },
        &[],
    )
    .expect("$5");
    let events = order(
        &mut state,
        Power::Germany,
        Order::Place {
            territory: id("Germany"),
            units: vec![(unit_of("INF"), 2), (unit_of("ARM"), 1)],
        },
        &[],
    )
    .expect("bought");
    assert!(
        matches!(
            events.first(),
            Some(GameEvent::WarUnitsBought { cost: 6, .. })
        ),
        "(2 - 1) * 2 + (5 - 1): {events:?}"
    );
    assert_eq!(state.treasury[&Power::Germany], 30 - 5 - 6);
    let ships = order(
        &mut state,
        Power::Germany,
        Order::Place {
            territory: id("Germany"),
            units: vec![(unit_of("SUB"), 1)],
        },
        &[],
    );
    assert_eq!(ships.expect_err("at sea").code, "wrong-terrain");
    let too_dear = order(
        &mut state,
        Power::Germany,
        Order::Place {
            territory: id("West Europe"),
            units: vec![(unit_of("BMB"), 2)],
        },
        &[],
    );
    assert_eq!(too_dear.expect_err("$24 of $19").code, "insufficient-funds");
    order(
        &mut state,
        Power::Germany,
        Order::Place {
            territory: id("Baltic Sea Zone"),
            units: vec![(unit_of("SUB"), 1)],
        },
        &[],
    )
    .expect("a ship beside a held zone");
}

#[test]
fn research_costs_five_a_try_and_succeeds_on_a_one_or_two_then_rolls_the_chart() {
    let mut state = germany_in(Phase::Purchase, &[]);
    // A 3 fails; a 2 succeeds and 3 + 2 + 3 = 8 is Metallurgy.
    let events = order(
        &mut state,
        Power::Germany,
        Order::DevelopWeapons(2),
        &[3, 2, 3, 2, 3],
    )
    .expect("researched");
    let Some(GameEvent::WarResearched { tries, cost, .. }) = events.first() else {
        panic!("{events:?}");
    };
    assert_eq!(*cost, 10);
    assert_eq!(tries[0].technology, None);
    assert_eq!(tries[1].technology, Some(WarTechnology::Metallurgy));
    // Metallurgy: every zone held pays $1 more (Germany 10, West Europe 6, + 2).
    assert_eq!(
        crate::game::home_cooked::income(war().rules(), &state, Power::Germany),
        18
    );
    let bomb = order(
        &mut state,
        Power::Germany,
        Order::DropAtomicBomb {
            territory: id("United Kingdom"),
        },
        &[],
    );
    assert_eq!(bomb.expect_err("not developed").code, "no-atomic-bomb");
}

#[test]
fn taking_a_non_player_zone_means_beating_its_two_soldiers_of_militia() {
    let mut state = germany_in(Phase::CombatMove, &[("ARM", 2)]);
    // Tanks hit on 3 or less: 1 and 2 hit both militia.
    let events = germany_moves(
        &mut state,
        &[("ARM", 2)],
        &["Germany", "South Europe"],
        &[1, 2],
    )
    .expect("moved");
    let battle = moved(&events).battle.as_ref().expect("a battle");
    assert_eq!(battle.militia, 2);
    assert_eq!(battle.outcome, WarBattleOutcome::AttackerWon);
    assert_eq!(
        state.holder[id("South Europe").index()],
        Some(Power::Germany)
    );
    assert!(
        units_in(&state, "South Europe", Power::Npn).is_empty(),
        "the militia do not stay"
    );
    let again = germany_moves(&mut state, &[("ARM", 1)], &["South Europe", "Germany"], &[]);
    assert_eq!(again.expect_err("once a turn").code, "units-missing");
}

#[test]
fn the_defender_fires_back_with_what_is_left_and_casualties_go_cheapest_first() {
    let mut state = germany_in(Phase::CombatMove, &[("INF", 1), ("ARM", 1)]);
    // Attack: the tank's 3 hits one militia, the soldier's 4 misses. The other militia
    // (defend 2) rolls 2 and hits: the cheaper soldier goes. Then the tank's 6 misses and
    // the militia's 1 hits: the attack is gone.
    let events = germany_moves(
        &mut state,
        &[("INF", 1), ("ARM", 1)],
        &["Germany", "South Europe"],
        &[3, 4, 2, 6, 1],
    );
    let events = events.expect("moved");
    let battle = moved(&events).battle.as_ref().expect("a battle");
    assert_eq!(battle.rounds.len(), 2);
    assert_eq!(battle.rounds[0].attack_hits, 1);
    assert_eq!(battle.rounds[0].defence_hits, 1);
    assert_eq!(battle.outcome, WarBattleOutcome::DefenderHeld);
    assert_eq!(
        battle.attacker_losses,
        [(unit_of("INF"), 1), (unit_of("ARM"), 1)]
    );
    assert_eq!(state.holder[id("South Europe").index()], None);
    assert!(units_in(&state, "Germany", Power::Germany).is_empty());
}

#[test]
fn passing_through_a_non_player_zone_takes_a_parley_roll() {
    let path = vec![id("Germany"), id("East Europe"), id("Ukraine")];
    let tanks = vec![(unit_of("ARM"), 2)];
    let march = |dice: &[u8]| {
        let mut state = germany_in(Phase::CombatMove, &[("ARM", 2)]);
        let events = order(
            &mut state,
            Power::Germany,
            Order::Move {
                units: tanks.clone(),
                path: path.clone(),
            },
            dice,
        )
        .expect("moved");
        (state, moved(&events).clone())
    };
    // 1: they pass, and fight Ukraine's militia (two hits on 1s).
    let (state, through) = march(&[1, 1, 1]);
    assert_eq!(through.end, id("Ukraine"));
    assert_eq!(state.holder[id("Ukraine").index()], Some(Power::Germany));
    // 3: a dollar a unit passing.
    let (state, paid) = march(&[3, 1, 1]);
    assert_eq!(paid.parleys[0].paid, 2);
    assert_eq!(state.treasury[&Power::Germany], 28);
    // 4: held up in diplomacy, they stay where they were.
    let (state, held) = march(&[4]);
    assert_eq!(held.end, id("Germany"));
    assert_eq!(
        units_in(&state, "Germany", Power::Germany),
        [("ARM".to_owned(), 2)]
    );
    // 6: 1d6 - 2 soldiers rise (a 5: three), and the tanks must fight for the zone.
    // The militia fall first; the risen soldiers fight on over two more rounds.
    let dice = [6, 5, 1, 1, 6, 6, 6, 1, 1, 6, 1, 6];
    let (state, risen) = march(&dice);
    assert_eq!(risen.risen, 3);
    assert_eq!(risen.end, id("East Europe"));
    let battle = risen.battle.as_ref().expect("engaged");
    assert_eq!((battle.militia, battle.rounds.len()), (2, 3));
    assert_eq!(battle.defenders, [(Power::Npn, unit_of("INF"), 3)]);
    assert_eq!(battle.defender_losses, [(Power::Npn, unit_of("INF"), 3)]);
    assert_eq!(
        state.holder[id("East Europe").index()],
        Some(Power::Germany)
    );
    assert!(units_in(&state, "East Europe", Power::Npn).is_empty());
    // Every die of the move is in its event, in the order rolled.
    assert_eq!(
        risen.dice().iter().map(|d| d.value()).collect::<Vec<_>>(),
        dice
    );
}

#[test]
fn an_enemy_zone_in_the_way_stops_the_move_and_land_units_go_to_sea_only_to_be_carried_over_it() {
    let mut state = germany_in(Phase::CombatMove, &[("ARM", 1)]);
    state.holder[id("East Europe").index()] = Some(Power::Russia);
    let through = germany_moves(
        &mut state,
        &[("ARM", 1)],
        &["Germany", "East Europe", "Ukraine"],
        &[],
    );
    assert_eq!(through.expect_err("Russia's").code, "enemy-in-the-way");
    let swim = germany_moves(
        &mut state,
        &[("ARM", 1)],
        &["Germany", "Baltic Sea Zone"],
        &[],
    );
    assert_eq!(swim.expect_err("no landing").code, "no-sealift");
}

#[test]
fn aa_guns_fire_only_at_aircraft() {
    let mut state = germany_in(Phase::CombatMove, &[("ARM", 1), ("FTR", 1)]);
    state.holder[id("East Europe").index()] = Some(Power::Russia);
    state.forces[id("East Europe").index()].insert((Power::Russia, unit_of("AA"), 0), 1);
    // The tank hits the gun (3); the gun is gone before it fires.
    let events = germany_moves(
        &mut state,
        &[("ARM", 1), ("FTR", 1)],
        &["Germany", "East Europe"],
        &[6, 3],
    )
    .expect("moved");
    let battle = moved(&events).battle.as_ref().expect("a battle");
    assert_eq!(battle.outcome, WarBattleOutcome::AttackerWon);
    assert_eq!(
        state.holder[id("East Europe").index()],
        Some(Power::Germany)
    );

    // Against tanks alone, a gun does not fire: the battle cannot be won by either side
    // if the tank always misses, but its dice keep rolling until it hits.
    let mut state = germany_in(Phase::CombatMove, &[("ARM", 1)]);
    state.holder[id("East Europe").index()] = Some(Power::Russia);
    state.forces[id("East Europe").index()].insert((Power::Russia, unit_of("AA"), 0), 1);
    let events = germany_moves(
        &mut state,
        &[("ARM", 1)],
        &["Germany", "East Europe"],
        &[6, 5, 1],
    )
    .expect("moved");
    let battle = moved(&events).battle.as_ref().expect("a battle");
    assert!(battle.rounds.iter().all(|r| r.defence.is_empty()));
    assert_eq!(battle.rounds.len(), 3);
}

#[test]
fn ending_the_move_collects_zone_values_and_infrastructure_then_the_next_player_goes() {
    let mut state = germany_in(Phase::CombatMove, &[]);
    state.war.infrastructure.insert(id("Germany"), 2);
    let events = order(&mut state, Power::Germany, Order::EndPhase, &[]).expect("ends");
    assert!(
        matches!(
            events.first(),
            Some(GameEvent::IncomeCollected { amount: 18, .. })
        ),
        "Germany 10 + West Europe 6 + 2 infrastructure: {events:?}"
    );
    assert_eq!(state.treasury[&Power::Germany], 48);
    assert_eq!(state.phase, Phase::Reinforcements);
    assert_eq!(state.power(&war().board), Power::UnitedKingdom);
    // The last of the round hands over to a new initiative roll.
    state.turn = 4;
    state.phase = Phase::CombatMove;
    let last = state.power(&war().board);
    order(&mut state, last, Order::EndPhase, &[]).expect("ends");
    assert_eq!((state.round, state.phase), (2, Phase::Initiative));
}

#[test]
fn classic_orders_and_war_orders_stay_in_their_own_rulesets() {
    let mut state = germany_in(Phase::Purchase, &[]);
    let loan = order(&mut state, Power::Germany, Order::ApplyForWarLoan, &[]);
    assert_eq!(loan.expect_err("not War").code, "wrong-phase");
    let mut classic = start();
    let roll = order_under(
        rules(),
        &mut classic,
        Power::Russia,
        Order::RollInitiative,
        &[],
    );
    assert_eq!(roll.expect_err("not Classic").code, "not-in-this-ruleset");
}

#[test]
fn transports_carry_four_land_units_each_over_the_sea_onto_the_land_at_the_end() {
    let mut state = germany_in(Phase::CombatMove, &[]);
    state.holder[id("Japan").index()] = Some(Power::Germany);
    state.forces[id("Japan").index()].insert((Power::Germany, unit_of("INF"), 0), 5);
    state.forces[id("Japan Sea Zone").index()].insert((Power::Germany, unit_of("TRN"), 0), 1);
    let by_sea = |soldiers: u32, path: &[&str]| Order::Move {
        units: vec![(unit_of("INF"), soldiers)],
        path: path.iter().map(|p| id(p)).collect(),
    };
    let route = ["Japan", "Japan Sea Zone", "Kwangtung Sea Zone", "Kwangtung"];
    let five = order(&mut state, Power::Germany, by_sea(5, &route), &[]);
    assert_eq!(five.expect_err("one transport").code, "no-sealift");
    let far = [
        "Japan",
        "Japan Sea Zone",
        "Kwangtung Sea Zone",
        "Philippines Sea Zone",
        "Philippines",
    ];
    let too_far = order(&mut state, Power::Germany, by_sea(4, &far), &[]);
    assert_eq!(too_far.expect_err("a transport moves 1").code, "no-sealift");
    // Four soldiers land in Kwangtung and beat its militia (two 1s).
    let events =
        order(&mut state, Power::Germany, by_sea(4, &route), &[1, 1, 6, 6]).expect("carried");
    let lift = moved(&events).sealift.as_ref().expect("a sealift");
    assert_eq!(
        (lift.from, lift.to, lift.count),
        (id("Japan Sea Zone"), id("Kwangtung Sea Zone"), 1)
    );
    assert_eq!(state.holder[id("Kwangtung").index()], Some(Power::Germany));
    assert_eq!(
        units_in(&state, "Kwangtung", Power::Germany),
        [("INF".to_owned(), 4)]
    );
    assert_eq!(
        units_in(&state, "Kwangtung Sea Zone", Power::Germany),
        [("TRN".to_owned(), 1)]
    );
    let again = order(
        &mut state,
        Power::Germany,
        by_sea(1, &["Japan", "Japan Sea Zone", "Manchuria"]),
        &[],
    );
    assert_eq!(
        again.expect_err("the transport has sailed").code,
        "no-sealift"
    );
}

#[test]
fn paratroopers_move_three_without_parley_or_ships_but_land_at_the_end() {
    let mut state = germany_in(Phase::CombatMove, &[("INF", 2)]);
    develop(&mut state, Power::Germany, WarTechnology::Paratroopers);
    let jump = |path: &[&str]| Order::Move {
        units: vec![(unit_of("INF"), 1)],
        path: path.iter().map(|p| id(p)).collect(),
    };
    let adrift = order(
        &mut state,
        Power::Germany,
        jump(&["Germany", "Baltic Sea Zone"]),
        &[],
    );
    assert_eq!(adrift.expect_err("at sea").code, "wrong-terrain");
    // Over the Baltic and through East Europe without a parley: the only dice are the
    // attack on Ukraine's militia (a 1 and then, the militia's 6 and 6 missing, a 1).
    let events = order(
        &mut state,
        Power::Germany,
        jump(&["Germany", "Baltic Sea Zone", "East Europe", "Ukraine"]),
        &[1, 6, 1],
    )
    .expect("dropped");
    let dropped = moved(&events);
    assert!(dropped.parleys.is_empty() && dropped.sealift.is_none());
    assert_eq!(state.holder[id("Ukraine").index()], Some(Power::Germany));
}

#[test]
fn with_mash_units_a_lost_soldier_heals_on_a_one_and_goes_back_to_a_base() {
    let mut state = germany_in(Phase::CombatMove, &[("INF", 2)]);
    state
        .war
        .bases
        .insert(Power::Germany, vec![id("Germany"), id("West Europe")]);
    develop(&mut state, Power::Germany, WarTechnology::MashUnits);
    // Two soldiers attack South Europe's militia and miss (6, 6); the militia hit both
    // (1, 2), and the healing dice give a 1 (healed) and a 4 (lost).
    let events = germany_moves(
        &mut state,
        &[("INF", 2)],
        &["Germany", "South Europe"],
        &[6, 6, 1, 2, 1, 4],
    )
    .expect("moved");
    let resolved = moved(&events);
    let battle = resolved.battle.as_ref().expect("a battle");
    assert_eq!(battle.outcome, WarBattleOutcome::DefenderHeld);
    assert_eq!(battle.rounds[0].attacker_healing.len(), 2);
    assert_eq!(
        battle.healed,
        [(Power::Germany, unit_of("INF"), id("Germany"), 1)]
    );
    assert_eq!(
        resolved
            .dice()
            .iter()
            .map(|d| d.value())
            .collect::<Vec<_>>(),
        [6, 6, 1, 2, 1, 4]
    );
    assert_eq!(
        units_in(&state, "Germany", Power::Germany),
        [("INF".to_owned(), 1)]
    );
    assert!(battle.listing(war().rules()).contains("healed: 1 INF"));
}

#[test]
fn an_air_raid_takes_a_die_a_plane_off_the_zones_cash_after_its_aa_guns_fire() {
    let mut state = germany_in(Phase::CombatMove, &[("FTR", 1), ("BMB", 2)]);
    state.treasury.insert(Power::UnitedKingdom, 9);
    state.forces[id("United Kingdom").index()].insert((Power::UnitedKingdom, unit_of("AA"), 0), 1);
    let raid = |units: Vec<(UnitTypeId, u32)>, path: &[&str]| Order::AirRaid {
        units,
        path: path.iter().map(|p| id(p)).collect(),
    };
    let to_britain = [
        "Germany",
        "Baltic Sea Zone",
        "North Sea Zone",
        "United Kingdom",
    ];
    let own = order(
        &mut state,
        Power::Germany,
        raid(vec![(unit_of("FTR"), 1)], &["Germany", "West Europe"]),
        &[],
    );
    assert_eq!(own.expect_err("Germany's own").code, "no-raid-target");
    let tanks = order(
        &mut state,
        Power::Germany,
        raid(vec![(unit_of("ARM"), 1)], &to_britain),
        &[],
    );
    assert_eq!(tanks.expect_err("aircraft only").code, "not-aircraft");
    // The gun's 1 downs the cheapest aircraft, the fighter; the two bombers roll 4 and 6:
    // $10, of which the UK has 9.
    let events = order(
        &mut state,
        Power::Germany,
        raid(vec![(unit_of("FTR"), 1), (unit_of("BMB"), 2)], &to_britain),
        &[1, 4, 6],
    )
    .expect("flown");
    let Some(GameEvent::AirRaidFlown(flown)) = events.first() else {
        panic!("{events:?}");
    };
    assert_eq!(flown.shot_down, [(unit_of("FTR"), 1)]);
    assert_eq!(flown.cash_lost, 9);
    assert_eq!(state.treasury[&Power::UnitedKingdom], 0);
    assert_eq!(
        units_in(&state, "United Kingdom", Power::Germany),
        [("BMB".to_owned(), 2)]
    );
}

#[test]
fn with_rockets_an_aa_gun_shoots_a_zone_within_two_once_a_turn_hitting_on_two() {
    let mut state = germany_in(Phase::CombatMove, &[("AA", 1)]);
    state.forces[id("Ukraine").index()].insert((Power::Russia, unit_of("INF"), 0), 2);
    let fire = Order::FireRocket {
        from: id("Germany"),
        target: id("Ukraine"),
    };
    let undeveloped = order(&mut state, Power::Germany, fire.clone(), &[2]);
    assert_eq!(undeveloped.expect_err("no rockets").code, "no-rockets");
    develop(&mut state, Power::Germany, WarTechnology::Rockets);
    let events = order(&mut state, Power::Germany, fire.clone(), &[2]).expect("fired");
    assert!(matches!(
        events.first(),
        Some(GameEvent::WarRocketFired {
            destroyed: Some((Power::Russia, _)),
            ..
        })
    ));
    assert_eq!(
        units_in(&state, "Ukraine", Power::Russia),
        [("INF".to_owned(), 1)]
    );
    let twice = order(&mut state, Power::Germany, fire, &[2]);
    assert_eq!(twice.expect_err("one gun, once").code, "no-rocket-gun");
}

#[test]
fn aircraft_fly_over_any_zone_but_ground_units_stop_at_an_enemys() {
    let mut state = germany_in(Phase::CombatMove, &[("FTR", 1), ("ARM", 1)]);
    state.holder[id("East Europe").index()] = Some(Power::Russia);
    let over = ["Germany", "East Europe", "Ukraine"];
    let tank = germany_moves(&mut state, &[("ARM", 1)], &over, &[]);
    assert_eq!(tank.expect_err("Russia's").code, "enemy-in-the-way");
    // The fighter flies over East Europe, needs no parley, and cannot take Ukraine.
    let events = germany_moves(&mut state, &[("FTR", 1)], &over, &[]).expect("flown");
    let flight = moved(&events);
    assert!(flight.parleys.is_empty() && flight.battle.is_none() && !flight.taken);
    assert_eq!(
        units_in(&state, "Ukraine", Power::Germany),
        [("FTR".to_owned(), 1)]
    );
}

#[test]
fn a_player_removes_casualties_in_its_own_order_of_loss_set_any_time() {
    let mut state = germany_in(Phase::CombatMove, &[("INF", 1), ("ARM", 1)]);
    // Out of turn, as Russia: a standing order, not an action.
    let russian = Order::SetOrderOfLoss(vec![unit_of("ARM")]);
    order(&mut state, Power::Russia, russian, &[]).expect("any time");
    let german = Order::SetOrderOfLoss(vec![unit_of("ARM"), unit_of("INF")]);
    order(&mut state, Power::Germany, german, &[]).expect("any time");
    // Both miss (6, 6); the militia's 1 takes the tank first, as Germany wants.
    let events = germany_moves(
        &mut state,
        &[("INF", 1), ("ARM", 1)],
        &["Germany", "South Europe"],
        &[6, 6, 1, 6, 6, 6, 1, 1],
    )
    .expect("moved");
    let battle = moved(&events).battle.as_ref().expect("a battle");
    assert_eq!(battle.attacker_losses[0], (unit_of("ARM"), 1));
}

#[test]
fn every_land_zone_of_the_board_is_on_one_continent() {
    let board = &war().board;
    for (place, territory) in board.territories().filter(|(_, t)| !t.sea) {
        assert!(
            war().special.continent_of.contains_key(&place),
            "{} has no continent",
            territory.name
        );
    }
}

#[test]
fn strategic_bombers_strike_any_zone_on_their_continent_and_fly_home() {
    let mut state = germany_in(Phase::CombatMove, &[("BMB", 2)]);
    state.treasury.insert(Power::UnitedKingdom, 20);
    state.holder[id("East US").index()] = Some(Power::UnitedStates);
    let strike = |to: &str| Order::AirRaid {
        units: vec![(unit_of("BMB"), 2)],
        path: vec![id("Germany"), id(to)],
    };
    let without = order(&mut state, Power::Germany, strike("United Kingdom"), &[]);
    assert_eq!(without.expect_err("no such reach").code, "not-adjacent");
    develop(&mut state, Power::Germany, WarTechnology::StrategicBombers);
    let overseas = order(&mut state, Power::Germany, strike("East US"), &[]);
    assert_eq!(
        overseas.expect_err("another continent").code,
        "not-adjacent"
    );
    // No AA gun in Britain: the two bombers roll 3 and 5.
    let events = order(
        &mut state,
        Power::Germany,
        strike("United Kingdom"),
        &[3, 5],
    )
    .expect("struck");
    assert!(matches!(
        events.first(),
        Some(GameEvent::AirRaidFlown(raid)) if raid.strategic && raid.cash_lost == 8
    ));
    assert_eq!(state.treasury[&Power::UnitedKingdom], 12);
    assert_eq!(
        units_in(&state, "Germany", Power::Germany),
        [("BMB".to_owned(), 2)],
        "home again"
    );
    let again = order(&mut state, Power::Germany, strike("United Kingdom"), &[]);
    assert_eq!(again.expect_err("they have flown").code, "units-missing");
}

#[test]
fn a_war_ruleset_without_a_unit_of_the_reinforcement_table_refuses_every_roll_before_the_dice() {
    // Given a War ruleset whose units leave out the carrier (the table's 18):
    let mut units = crate::units::Catalogue::builtin_units("war").expect("units");
    units.remove("AC");
    let catalogue = crate::units::Catalogue::from_units("war", "War", &units).expect("catalogue");
    let rules = Rules {
        catalogue: &catalogue,
        ..war().rules()
    };
    let state = germany_in(Phase::Reinforcements, &[]);
    // When the UK rolls, then it is refused and no die is drawn (the empty script would
    // panic), whatever the dice would have shown: a roll of 3 gives a soldier.
    let err = decide(
        rules,
        &state,
        Power::UnitedKingdom,
        &Order::RollReinforcements,
        Moment::default(),
        &mut crate::dice::ScriptedDice::new(&[]),
    )
    .expect_err("no carrier");
    assert_eq!(err.code, "unit-missing");
}

// "An attack goes first, but a defender can retaliate": each attack is one exchange, and a
// battle is the attacks its attacker presses ("engage for at least 1 attack").

/// Germany's standing choice of when its attacks break off.
fn germany_breaks_off(state: &mut GameState, after: Option<u32>) -> Vec<GameEvent> {
    order(state, Power::Germany, Order::SetBreakOff(after), &[]).expect("any time")
}

/// Two German tanks, Germany set to break off after `after` attacks, move along `path`
/// with `dice`: the state after, and the move.
fn two_tanks_breaking_off_after(after: u32, path: &[&str], dice: &[u8]) -> (GameState, WarMove) {
    let mut state = germany_to_break_off_after(after, &[("ARM", 2)]);
    let events = germany_moves(&mut state, &[("ARM", 2)], path, dice).expect("moved");
    let resolved = moved(&events).clone();
    (state, resolved)
}

/// Germany in its move with `german` units in Germany, set to break off after `after`
/// attacks.
fn germany_to_break_off_after(after: u32, german: &[(&str, u32)]) -> GameState {
    let mut state = germany_in(Phase::CombatMove, german);
    germany_breaks_off(&mut state, Some(after));
    state
}

#[test]
fn a_player_who_breaks_off_after_one_attack_makes_one_exchange_and_goes_back() {
    // Given Germany set to break off after one attack, a soldier and a tank in Germany,
    let mut state = germany_to_break_off_after(1, &[("INF", 1), ("ARM", 1)]);

    // when they attack South Europe's two soldiers of militia: the tank's 3 hits one, the
    // soldier's 4 misses; the militia left fires back, a 2, and the soldier goes;
    let events = germany_moves(
        &mut state,
        &[("INF", 1), ("ARM", 1)],
        &["Germany", "South Europe"],
        &[3, 4, 2],
    )
    .expect("moved");

    // then that one exchange is the battle: the tank goes back to Germany, South Europe is
    // nobody's, and the tank has made its move.
    let resolved = moved(&events);
    let battle = resolved.battle.as_ref().expect("a battle");
    assert_eq!(battle.rounds.len(), 1);
    assert_eq!(battle.outcome, WarBattleOutcome::BrokeOff);
    assert_eq!(battle.attacker_losses, [(unit_of("INF"), 1)]);
    assert_eq!(resolved.end, id("Germany"));
    assert!(!resolved.taken);
    assert_eq!(
        units_in(&state, "Germany", Power::Germany),
        [("ARM".into(), 1)]
    );
    assert_eq!(state.holder[id("South Europe").index()], None);
    assert!(units_in(&state, "South Europe", Power::Npn).is_empty());
    let again = germany_moves(&mut state, &[("ARM", 1)], &["Germany", "South Europe"], &[]);
    assert_eq!(again.expect_err("once a turn").code, "units-missing");
    // And the record says so.
    let said = crate::game::words::describe(war().rules(), &events[0]).expect("a sentence");
    assert!(said.contains("Germany broke off after 1 attack"), "{said}");
}

#[test]
fn a_battle_ended_before_the_attacks_set_is_won_or_lost_as_ever() {
    // Given Germany set to break off after three attacks, when its two tanks beat South
    // Europe's militia in the first,
    let (state, resolved) = two_tanks_breaking_off_after(3, &["Germany", "South Europe"], &[1, 2]);

    // then they take the zone.
    assert_eq!(
        resolved.battle.as_ref().map(|b| b.outcome),
        Some(WarBattleOutcome::AttackerWon)
    );
    assert_eq!(
        state.holder[id("South Europe").index()],
        Some(Power::Germany)
    );
}

#[test]
fn without_a_break_off_the_attacks_go_on_until_one_side_is_gone() {
    // Given Germany set to break off after one attack, then to never break off,
    let mut state = germany_to_break_off_after(1, &[("INF", 1), ("ARM", 1)]);
    let cleared = germany_breaks_off(&mut state, None);
    assert_eq!(
        cleared,
        [GameEvent::BreakOffSet {
            power: Power::Germany,
            after: None
        }]
    );

    // when the same attack is made with the same dice and one more exchange,
    let events = germany_moves(
        &mut state,
        &[("INF", 1), ("ARM", 1)],
        &["Germany", "South Europe"],
        &[3, 4, 2, 6, 1],
    )
    .expect("moved");

    // then the second attack is made and the tank falls in it, as every recorded game
    // (none of which set a break-off) fought its battles.
    let battle = moved(&events).battle.as_ref().expect("a battle");
    assert_eq!(battle.rounds.len(), 2);
    assert_eq!(battle.outcome, WarBattleOutcome::DefenderHeld);
}

#[test]
fn a_battle_is_at_least_one_attack() {
    // Given a War game, when Germany asks to break off after no attack at all,
    let mut state = germany_in(Phase::Purchase, &[("INF", 1)]);
    let refused = order(&mut state, Power::Germany, Order::SetBreakOff(Some(0)), &[]);

    // then it is refused ("engage for at least 1 attack"), and nothing is set.
    assert_eq!(refused.expect_err("0 attacks").code, "bad-break-off");
    assert!(state.war.break_off.is_empty());
    // Any seated player sets it any time, out of turn too.
    order(&mut state, Power::Russia, Order::SetBreakOff(Some(2)), &[]).expect("any time");
    assert_eq!(state.war.break_off.get(&Power::Russia), Some(&2));
}

#[test]
fn units_made_to_engage_by_a_parley_fight_one_attack_then_may_break_off() {
    // Given Germany set to break off after one attack, when its two tanks march through
    // East Europe to Ukraine, the parley in East Europe rolls a 5 ("Units must engage any
    // unit in zone") and the one attack on its militia misses both ways,
    let (state, resolved) =
        two_tanks_breaking_off_after(1, &["Germany", "East Europe", "Ukraine"], &[5, 6, 6, 6, 6]);

    // then they fought there, once, and are back in Germany.
    let battle = resolved.battle.as_ref().expect("a battle");
    assert_eq!(battle.territory, id("East Europe"));
    assert_eq!(battle.rounds.len(), 1);
    assert_eq!(battle.outcome, WarBattleOutcome::BrokeOff);
    assert_eq!(resolved.end, id("Germany"));
    assert_eq!(
        units_in(&state, "Germany", Power::Germany),
        [("ARM".into(), 2)]
    );
}

#[test]
fn classic_rulesets_refuse_a_break_off() {
    let mut state = start();
    let refused = crate::game::tests::order(&mut state, Power::Russia, Order::SetBreakOff(Some(1)));
    assert_eq!(
        refused.expect_err("War's order").code,
        "not-in-this-ruleset"
    );
}
