//! Tests of the game engine on the Classic board: phases and turns, purchase and placement,
//! income, loans, research, movement, battles, repairs and raids. The files beside this one
//! test the rest, a variant or a rule each.

use super::*;

mod aap;
mod blend_in;
mod diplomacy;
mod enhanced_realism;
pub(crate) mod home_cooked;
mod moment;
mod pacific_board;
mod pacific_rules;
mod players;
mod properties;
mod rail;
mod replay;
mod scripted;
mod standing_orders;
mod sub_retreat;
mod sub_rule;
mod words;

fn rules() -> Rules<'static> {
    static CATALOGUE: std::sync::OnceLock<Catalogue> = std::sync::OnceLock::new();
    Rules {
        board: Board::classic().expect("board"),
        catalogue: CATALOGUE.get_or_init(|| Catalogue::builtin("cutthroat").expect("catalogue")),
        economy: Economy::CLASSIC,
        special: &CUT_THROAT_SPECIAL,
    }
}

fn start() -> GameState {
    GameState::start(rules(), Setup::cut_throat().expect("setup"))
}

fn unit(code: &str) -> UnitTypeId {
    rules().catalogue.id(code).expect(code)
}

fn place_id(name: &str) -> TerritoryId {
    rules().board.id(name).expect(name)
}

/// Decides and, when accepted, applies: the command path in miniature.
fn order(state: &mut GameState, by: Power, order: Order) -> Result<Vec<GameEvent>, RuleViolation> {
    ordered_with_dice(state, by, order, &[])
}

fn ordered_with_dice(
    state: &mut GameState,
    by: Power,
    order: Order,
    dice: &[u8],
) -> Result<Vec<GameEvent>, RuleViolation> {
    order_under(rules(), state, by, order, dice)
}

/// The command path in miniature, under a ruleset's own rules.
fn order_under(
    rules: Rules<'_>,
    state: &mut GameState,
    by: Power,
    order: Order,
    dice: &[u8],
) -> Result<Vec<GameEvent>, RuleViolation> {
    let mut scripted = crate::dice::ScriptedDice::new(dice);
    let events = decide(rules, state, by, &order, Moment::default(), &mut scripted)?;
    for event in &events {
        apply(rules, state, event);
    }
    Ok(events)
}

/// Places bought units, as `by`.
fn place(
    state: &mut GameState,
    by: Power,
    territory: &str,
    units: &[(&str, u32)],
) -> Result<Vec<GameEvent>, RuleViolation> {
    order(
        state,
        by,
        Order::Place {
            territory: place_id(territory),
            units: units_of(units),
        },
    )
}

/// Moves units along the named places, as `by`.
fn move_units(
    state: &mut GameState,
    by: Power,
    units: &[(&str, u32)],
    names: &[&str],
) -> Result<Vec<GameEvent>, RuleViolation> {
    order(
        state,
        by,
        Order::Move {
            units: units_of(units),
            path: path_of(names),
        },
    )
}

/// Units by code, as an order names them.
fn units_of(units: &[(&str, u32)]) -> Vec<(UnitTypeId, u32)> {
    units.iter().map(|(code, n)| (unit(code), *n)).collect()
}

/// A path by the places' names.
fn path_of(names: &[&str]) -> Vec<TerritoryId> {
    names.iter().map(|n| place_id(n)).collect()
}

fn advance_to(state: &mut GameState, phase: Phase) {
    while state.phase != phase {
        let power = state.power(rules().board);
        order(state, power, Order::EndPhase).expect("phase ends");
    }
}

fn in_phase(round: u32, turn: Power, phase: Phase) -> GameState {
    let mut state = start();
    state.round = round;
    state.turn = Power::CLASSIC
        .iter()
        .position(|p| *p == turn)
        .expect("power");
    state.phase = phase;
    state
}

/// Replaces the fighting units in a place (AA guns and complexes stay).
fn set(state: &mut GameState, name: &str, units: &[(Power, &str, u32)]) {
    let forces = &mut state.forces[place_id(name).index()];
    forces.retain(|(_, u, _), _| !rules().catalogue.get(*u).is_combatant());
    for &(power, code, n) in units {
        forces.insert((power, unit(code), 0), n);
    }
}

/// How many units of a type a power has in a place, damaged or not.
fn count(state: &GameState, name: &str, power: Power, code: &str) -> u32 {
    state.count_units(rules(), place_id(name), power, |u, _| u == unit(code))
}

#[test]
fn a_new_game_starts_in_round_one_with_russia_and_treasuries_of_the_starting_ipc() {
    let state = start();
    assert_eq!((state.round, state.phase), (1, Phase::Repairs));
    assert_eq!(state.power(rules().board), Power::Russia);
    assert_eq!(state.treasury[&Power::Germany], 32);
    assert_eq!(state.ipc_count(rules().board, Power::UnitedStates), 36);
}

#[test]
fn phases_run_in_order_the_turn_passes_in_classic_order_and_rounds_advance() {
    let mut state = start();
    let mut seen = Vec::new();
    for _ in 0..Phase::ALL.len() {
        seen.push(state.phase);
        order(&mut state, Power::Russia, Order::EndPhase).expect("ends");
    }
    assert_eq!(seen, Phase::ALL.to_vec());
    assert_eq!(state.power(rules().board), Power::Germany);
    for power in [
        Power::Germany,
        Power::UnitedKingdom,
        Power::Japan,
        Power::UnitedStates,
    ] {
        assert_eq!(state.power(rules().board), power);
        advance_to(&mut state, Phase::Income);
        order(&mut state, power, Order::EndPhase).expect("ends");
    }
    assert_eq!(
        (state.round, state.power(rules().board)),
        (2, Power::Russia)
    );
}

#[test]
fn an_order_out_of_turn_is_refused_and_changes_nothing() {
    let mut state = start();
    let before = state.clone();
    let err = order(&mut state, Power::Germany, Order::EndPhase).expect_err("not Germany's turn");
    assert_eq!(err.code, "not-your-turn");
    assert!(err.message.contains("Russia"), "{err}");
    assert_eq!(state, before);
}

#[test]
fn a_purchase_within_the_treasury_is_paid_and_one_beyond_it_is_refused() {
    let mut state = start();
    advance_to(&mut state, Phase::Purchase);
    order(
        &mut state,
        Power::Russia,
        Order::Purchase(vec![(unit("INF"), 5), (unit("ARM"), 1)]),
    )
    .expect("20 IPC of 24");
    assert_eq!(state.treasury[&Power::Russia], 4);
    let before = state.clone();
    let err = order(
        &mut state,
        Power::Russia,
        Order::Purchase(vec![(unit("ARM"), 1)]),
    )
    .expect_err("5 > 4");
    assert_eq!(err.code, "insufficient-ipc");
    assert_eq!(state, before);
}

#[test]
fn buying_outside_the_purchase_phase_is_refused() {
    let mut state = start();
    let err = order(
        &mut state,
        Power::Russia,
        Order::Purchase(vec![(unit("INF"), 1)]),
    )
    .expect_err("repairs phase");
    assert_eq!(err.code, "wrong-phase");
    advance_to(&mut state, Phase::Purchase);
    let err = order(&mut state, Power::Russia, Order::Purchase(vec![])).expect_err("nothing");
    assert_eq!(err.code, "empty-purchase");
    let err = order(
        &mut state,
        Power::Russia,
        Order::Purchase(vec![(unit("INF"), 0)]),
    )
    .expect_err("zero");
    assert_eq!(err.code, "empty-purchase");
}

#[test]
fn units_are_placed_at_the_powers_own_complexes_and_ships_beside_them() {
    let mut state = start();
    advance_to(&mut state, Phase::Purchase);
    order(
        &mut state,
        Power::Russia,
        Order::Purchase(vec![(unit("INF"), 5), (unit("SUB"), 1)]),
    )
    .expect("23 IPC");
    advance_to(&mut state, Phase::Placement);

    let err = place(&mut state, Power::Russia, "Caucasus", &[("INF", 1)])
        .expect_err("no complex in the Caucasus");
    assert_eq!(err.code, "no-factory");
    let err =
        place(&mut state, Power::Russia, "Russia", &[("SUB", 1)]).expect_err("a ship on land");
    assert_eq!(err.code, "ship-on-land");
    let err = place(&mut state, Power::Russia, "Russia", &[("INF", 6)]).expect_err("only 5 bought");
    assert_eq!(err.code, "not-purchased");

    // An original complex has no limit.
    place(&mut state, Power::Russia, "Russia", &[("INF", 5)]).expect("placed");
    let err =
        order(&mut state, Power::Russia, Order::EndPhase).expect_err("the sub is still to place");
    assert_eq!(err.code, "units-unplaced");
    place(&mut state, Power::Russia, "Karelia Sea Zone", &[("SUB", 1)])
        .expect("beside the Karelia complex");
    order(&mut state, Power::Russia, Order::EndPhase).expect("all placed");
    let russia = &state.forces[place_id("Russia").index()];
    assert_eq!(russia[&(Power::Russia, unit("INF"), 0)], 11);
}

/// Germany holds Karelia (value 3) and its complex, and has bought `infantry` to place:
/// the placement phase of its turn.
fn germany_holds_karelia_with_infantry_to_place(infantry: u32) -> (GameState, TerritoryId) {
    let mut state = start();
    let karelia = place_id("Karelia");
    state.holder[karelia.index()] = Some(Power::Germany);
    state.turn = 1;
    advance_to(&mut state, Phase::Purchase);
    order(
        &mut state,
        Power::Germany,
        Order::Purchase(vec![(unit("INF"), infantry)]),
    )
    .expect("3 IPC each");
    advance_to(&mut state, Phase::Placement);
    (state, karelia)
}

#[test]
fn a_complex_captured_this_turn_takes_no_new_units_until_the_next_turn() {
    let (mut state, karelia) = germany_holds_karelia_with_infantry_to_place(2);
    state.captured_this_turn.insert(karelia);
    let err =
        place(&mut state, Power::Germany, "Karelia", &[("INF", 1)]).expect_err("taken this turn");
    assert_eq!(err.code, "complex-captured-this-turn");
    assert!(err.message.contains("Karelia"), "{}", err.message);
    place(&mut state, Power::Germany, "Germany", &[("INF", 2)]).expect("an original complex");
}

#[test]
fn a_captured_complex_produces_no_more_than_its_territorys_value() {
    let (mut state, karelia) = germany_holds_karelia_with_infantry_to_place(4);
    let err = place(&mut state, Power::Germany, "Karelia", &[("INF", 4)]).expect_err("4 > 3");
    assert_eq!(err.code, "production-limit");
    place(&mut state, Power::Germany, "Karelia", &[("INF", 3)]).expect("3 fit");
    let err = place(&mut state, Power::Germany, "Karelia", &[("INF", 1)])
        .expect_err("the limit is per turn");
    assert_eq!(err.code, "production-limit");
    // Russia lost its own complex's use with the territory.
    assert!(state
        .production_left(rules(), Power::Russia, karelia)
        .is_err());
}

#[test]
fn income_is_the_printed_value_of_the_territories_held() {
    let mut state = start();
    advance_to(&mut state, Phase::Income);
    let events = order(&mut state, Power::Russia, Order::EndPhase).expect("income");
    assert_eq!(
        events[0],
        GameEvent::IncomeCollected {
            power: Power::Russia,
            amount: 24
        }
    );
    assert_eq!(state.treasury[&Power::Russia], 48);
}

#[test]
fn no_combat_is_allowed_in_the_first_round() {
    let mut state = start();
    assert!(!state.combat_allowed(rules()));
    for power in Power::CLASSIC {
        advance_to(&mut state, Phase::Income);
        order(&mut state, power, Order::EndPhase).expect("ends");
    }
    assert_eq!(state.round, 2);
    assert!(state.combat_allowed(rules()));
}

/// The United Kingdom after losing everything but the United Kingdom itself (8 of 30 IPC).
fn beaten_britain() -> GameState {
    let mut state = start();
    for (id, t) in rules().board.territories() {
        if state.holder[id.index()] == Some(Power::UnitedKingdom) && t.name != "United Kingdom" {
            state.holder[id.index()] = Some(Power::Germany);
        }
    }
    state.turn = 2;
    state
}

#[test]
fn a_power_at_half_its_starting_ipc_may_apply_once_and_the_die_sets_the_loan() {
    let mut state = beaten_britain();
    let before = state.treasury[&Power::UnitedKingdom];
    let events = ordered_with_dice(
        &mut state,
        Power::UnitedKingdom,
        Order::ApplyForWarLoan,
        &[4],
    )
    .expect("applies");
    assert_eq!(
        events,
        vec![GameEvent::WarLoanApplied {
            power: Power::UnitedKingdom,
            die: Die::try_from(4).expect("die"),
            granted: 20
        }]
    );
    assert_eq!(state.treasury[&Power::UnitedKingdom], before + 20);
    let err = ordered_with_dice(
        &mut state,
        Power::UnitedKingdom,
        Order::ApplyForWarLoan,
        &[6],
    )
    .expect_err("once");
    assert_eq!(err.code, "war-loan-used");
}

#[test]
fn a_one_or_a_two_refuses_the_loan_and_uses_the_application() {
    let mut state = beaten_britain();
    let before = state.treasury[&Power::UnitedKingdom];
    ordered_with_dice(
        &mut state,
        Power::UnitedKingdom,
        Order::ApplyForWarLoan,
        &[2],
    )
    .expect("applies");
    assert_eq!(state.treasury[&Power::UnitedKingdom], before);
    assert!(state.loans.is_empty());
    assert!(state.loan_applied.contains(&Power::UnitedKingdom));
}

#[test]
fn a_power_above_half_or_past_the_purchase_may_not_apply() {
    let mut state = start();
    let err = ordered_with_dice(&mut state, Power::Russia, Order::ApplyForWarLoan, &[6])
        .expect_err("holds all 24");
    assert_eq!(err.code, "war-loan-not-needed");
    let mut beaten = beaten_britain();
    advance_to(&mut beaten, Phase::Purchase);
    let err = ordered_with_dice(
        &mut beaten,
        Power::UnitedKingdom,
        Order::ApplyForWarLoan,
        &[6],
    )
    .expect_err("too late");
    assert_eq!(err.code, "war-loan-timing");
}

#[test]
fn repayment_starts_next_round_at_three_plus_one_interest_and_extra_may_be_paid() {
    let mut state = beaten_britain();
    ordered_with_dice(
        &mut state,
        Power::UnitedKingdom,
        Order::ApplyForWarLoan,
        &[3],
    )
    .expect("15 IPC");
    // Nothing is due in the round the loan was granted.
    let events = order(&mut state, Power::UnitedKingdom, Order::EndPhase).expect("repairs end");
    assert_eq!(events.len(), 1);
    // Next round, the UK's turn starts with 3 + 1.
    advance_to(&mut state, Phase::Income);
    order(&mut state, Power::UnitedKingdom, Order::EndPhase).expect("turn ends");
    while state.power(rules().board) != Power::UnitedKingdom {
        advance_to(&mut state, Phase::Income);
        let power = state.power(rules().board);
        order(&mut state, power, Order::EndPhase).expect("turn ends");
    }
    let treasury = state.treasury[&Power::UnitedKingdom];
    let events = order(&mut state, Power::UnitedKingdom, Order::EndPhase).expect("repairs end");
    assert_eq!(
        events[0],
        GameEvent::WarLoanRepaid {
            power: Power::UnitedKingdom,
            principal: 3,
            interest: 1
        }
    );
    assert_eq!(state.treasury[&Power::UnitedKingdom], treasury - 4);
    assert_eq!(state.loans[&Power::UnitedKingdom].owed, 12);
    // Paying off early.
    order(&mut state, Power::UnitedKingdom, Order::RepayWarLoan(12)).expect("pays the rest");
    assert!(state.loans.is_empty());
    let err =
        order(&mut state, Power::UnitedKingdom, Order::RepayWarLoan(1)).expect_err("nothing owed");
    assert_eq!(err.code, "no-war-loan");
}

fn die(value: u8) -> Die {
    Die::try_from(value).expect("a die")
}

#[test]
fn research_without_a_six_costs_five_a_die_and_gives_nothing() {
    let mut state = start();
    advance_to(&mut state, Phase::WeaponsDevelopment);
    let events = ordered_with_dice(&mut state, Power::Russia, Order::DevelopWeapons(2), &[3, 5])
        .expect("researched");
    assert_eq!(
        events,
        vec![GameEvent::WeaponsResearched {
            power: Power::Russia,
            cost: 10,
            dice: vec![die(3), die(5)],
            breakthrough: None
        }]
    );
    assert_eq!(state.treasury[&Power::Russia], 14);
    let err = ordered_with_dice(&mut state, Power::Russia, Order::DevelopWeapons(1), &[6, 1])
        .expect_err("once a turn");
    assert_eq!(err.code, "already-researched");
}

#[test]
fn a_six_is_a_breakthrough_and_the_chart_die_picks_the_weapon() {
    let mut state = start();
    advance_to(&mut state, Phase::WeaponsDevelopment);
    ordered_with_dice(
        &mut state,
        Power::Russia,
        Order::DevelopWeapons(2),
        &[6, 6, 5],
    )
    .expect("researched");
    assert!(state.has(Power::Russia, Technology::IndustrialTechnology));
    assert_eq!(
        state.technologies[&Power::Russia].len(),
        1,
        "one breakthrough a turn, whatever the sixes"
    );
    // Industrial technology: an infantry now costs 2.
    assert_eq!(state.unit_cost(rules(), Power::Russia, unit("INF")), 2);
    advance_to(&mut state, Phase::Purchase);
    order(
        &mut state,
        Power::Russia,
        Order::Purchase(vec![(unit("INF"), 7)]),
    )
    .expect("14 IPC of 14");
    assert_eq!(state.treasury[&Power::Russia], 0);
}

#[test]
fn a_chart_die_naming_a_weapon_already_held_is_rolled_again() {
    let mut state = start();
    state
        .technologies
        .entry(Power::Russia)
        .or_default()
        .insert(Technology::JetFighters);
    advance_to(&mut state, Phase::WeaponsDevelopment);
    let events = ordered_with_dice(
        &mut state,
        Power::Russia,
        Order::DevelopWeapons(1),
        &[6, 1, 1, 3],
    )
    .expect("researched");
    let GameEvent::WeaponsResearched {
        breakthrough: Some(b),
        ..
    } = &events[0]
    else {
        panic!("a breakthrough: {events:?}")
    };
    assert_eq!(b.chart_dice, vec![die(1), die(1), die(3)]);
    assert_eq!(b.technology, Technology::SuperSubmarines);
}

#[test]
fn research_beyond_the_treasury_or_outside_its_phase_is_refused() {
    let mut state = start();
    let err = ordered_with_dice(&mut state, Power::Russia, Order::DevelopWeapons(1), &[6])
        .expect_err("repairs phase");
    assert_eq!(err.code, "wrong-phase");
    advance_to(&mut state, Phase::WeaponsDevelopment);
    let before = state.clone();
    let err = ordered_with_dice(&mut state, Power::Russia, Order::DevelopWeapons(5), &[])
        .expect_err("25 > 24");
    assert_eq!(err.code, "research-dice");
    assert_eq!(state, before);
}

mod movement {
    use super::*;

    #[test]
    fn a_unit_moves_within_its_range_once_a_turn() {
        let mut state = in_phase(1, Power::Russia, Phase::NonCombatMove);
        move_units(
            &mut state,
            Power::Russia,
            &[("INF", 2)],
            &["Karelia", "Caucasus"],
        )
        .expect("one space");
        assert_eq!(count(&state, "Caucasus", Power::Russia, "INF"), 7);
        let err = move_units(
            &mut state,
            Power::Russia,
            &[("INF", 6)],
            &["Caucasus", "Russia"],
        )
        .expect_err("two have moved");
        assert_eq!(err.code, "not-enough-units");
        let err = move_units(
            &mut state,
            Power::Russia,
            &[("INF", 1)],
            &["Russia", "Karelia", "Caucasus"],
        )
        .expect_err("two spaces");
        assert_eq!(err.code, "out-of-range");
        move_units(
            &mut state,
            Power::Russia,
            &[("ARM", 1)],
            &["Russia", "Karelia", "Caucasus"],
        )
        .expect("armour moves two");
    }

    #[test]
    fn land_stays_on_land_ships_at_sea_and_nobody_enters_a_neutral() {
        // (units, path, expected code)
        type Refusal<'a> = (&'a [(&'a str, u32)], &'a [&'a str], &'a str);
        let refused: [Refusal; 5] = [
            (
                &[("ARM", 1)],
                &["Karelia", "Baltic Sea Zone", "Eastern Europe"],
                "land-unit-at-sea",
            ),
            (
                &[("INF", 1)],
                &["Karelia", "Baltic Sea Zone"],
                "no-transport-space",
            ),
            (
                &[("TRN", 1)],
                &["Karelia Sea Zone", "Karelia"],
                "ship-on-land",
            ),
            (&[("INF", 1)], &["Caucasus", "Turkey"], "neutral-territory"),
            (&[("INF", 1)], &["Caucasus", "Evenki"], "not-adjacent"),
        ];
        for (units, names, code) in refused {
            let mut state = in_phase(1, Power::Russia, Phase::NonCombatMove);
            let before = state.clone();
            let err = move_units(&mut state, Power::Russia, units, names).expect_err(code);
            assert_eq!(err.code, code, "{names:?}");
            assert_eq!(state, before, "{names:?} changed the state");
        }
    }

    #[test]
    fn entering_the_enemy_is_a_combat_move_and_none_is_allowed_in_round_one() {
        let mut state = in_phase(1, Power::Russia, Phase::NonCombatMove);
        let err = move_units(
            &mut state,
            Power::Russia,
            &[("INF", 1)],
            &["Karelia", "Eastern Europe"],
        )
        .expect_err("non-combat");
        assert_eq!(err.code, "enemy-in-non-combat");
        let mut first_round = in_phase(1, Power::Russia, Phase::CombatMove);
        let before = first_round.clone();
        let err = move_units(
            &mut first_round,
            Power::Russia,
            &[("INF", 1)],
            &["Karelia", "Eastern Europe"],
        )
        .expect_err("round 1");
        assert_eq!(err.code, "no-combat-round-one");
        assert!(err.rule.contains("Cut-Throat"));
        assert_eq!(first_round, before);
        let mut later = in_phase(2, Power::Russia, Phase::CombatMove);
        let events = move_units(
            &mut later,
            Power::Russia,
            &[("INF", 3)],
            &["Karelia", "Eastern Europe"],
        )
        .expect("an attack");
        let GameEvent::UnitsMoved { contested, .. } = &events[0] else {
            panic!("{events:?}")
        };
        assert_eq!(*contested, Some(place_id("Eastern Europe")));
        assert!(later.contested.contains_key(&place_id("Eastern Europe")));
    }

    #[test]
    fn armour_blitzes_through_empty_enemy_land_in_the_combat_move_and_takes_it() {
        let mut state = in_phase(2, Power::Russia, Phase::CombatMove);
        state.forces[place_id("Eastern Europe").index()].clear();
        let mut non_combat = state.clone();
        non_combat.phase = Phase::NonCombatMove;
        let err = move_units(
            &mut non_combat,
            Power::Russia,
            &[("ARM", 1)],
            &["Karelia", "Eastern Europe", "Germany"],
        )
        .expect_err("not in non-combat");
        assert_eq!(err.code, "stopped-by-enemy");
        move_units(
            &mut state,
            Power::Russia,
            &[("ARM", 1)],
            &["Karelia", "Eastern Europe", "Germany"],
        )
        .expect("blitz");
        assert_eq!(
            state.holder[place_id("Eastern Europe").index()],
            Some(Power::Russia)
        );
        assert!(state.contested.contains_key(&place_id("Germany")));
        // Through enemy units, no one passes: Ukraine is defended.
        state.forces[place_id("Caucasus").index()].insert((Power::Russia, unit("ARM"), 0), 1);
        let err = move_units(
            &mut state,
            Power::Russia,
            &[("ARM", 1)],
            &["Caucasus", "Ukraine", "Eastern Europe"],
        )
        .expect_err("Ukraine is defended");
        assert_eq!(err.code, "stopped-by-enemy");
    }

    #[test]
    fn a_canal_is_open_only_to_whoever_holds_its_land() {
        let mut state = in_phase(1, Power::UnitedKingdom, Phase::NonCombatMove);
        let mut closed = state.clone();
        move_units(
            &mut state,
            Power::UnitedKingdom,
            &[("BB", 1)],
            &["India SZ", "Red Sea Zone", "East Mediteranean Sea Zone"],
        )
        .expect("Suez is British");
        closed.holder[place_id("Syria").index()] = Some(Power::Germany);
        let err = move_units(
            &mut closed,
            Power::UnitedKingdom,
            &[("BB", 1)],
            &["India SZ", "Red Sea Zone", "East Mediteranean Sea Zone"],
        )
        .expect_err("Syria lost");
        assert_eq!(err.code, "canal-closed");
    }

    #[test]
    fn aircraft_land_on_friendly_ground_or_a_carrier_and_fly_on_with_what_is_left() {
        let mut state = in_phase(1, Power::UnitedKingdom, Phase::NonCombatMove);
        move_units(
            &mut state,
            Power::UnitedKingdom,
            &[("FTR", 1)],
            &["UK SZ", "United Kingdom"],
        )
        .expect("home");
        let mut russia = in_phase(1, Power::Russia, Phase::NonCombatMove);
        let err = move_units(
            &mut russia,
            Power::Russia,
            &[("FTR", 1)],
            &["Karelia", "Karelia Sea Zone"],
        )
        .expect_err("no carrier");
        assert_eq!(err.code, "no-landing");

        let mut attack = in_phase(2, Power::Russia, Phase::CombatMove);
        move_units(
            &mut attack,
            Power::Russia,
            &[("FTR", 1)],
            &["Karelia", "Eastern Europe"],
        )
        .expect("attacks");
        attack.phase = Phase::NonCombatMove;
        let err = move_units(
            &mut attack,
            Power::Russia,
            &[("FTR", 1)],
            &[
                "Eastern Europe",
                "Karelia",
                "Russia",
                "Kazakh",
                "Novosibirsk",
            ],
        )
        .expect_err("four more spaces after one");
        assert_eq!(err.code, "out-of-range");
        move_units(
            &mut attack,
            Power::Russia,
            &[("FTR", 1)],
            &["Eastern Europe", "Karelia", "Russia"],
        )
        .expect("lands with range to spare");
    }

    #[test]
    fn a_damaged_battleship_may_move_but_not_attack() {
        let mut state = in_phase(2, Power::UnitedKingdom, Phase::CombatMove);
        let india_sz = place_id("India SZ");
        let forces = &mut state.forces[india_sz.index()];
        forces.remove(&(Power::UnitedKingdom, unit("BB"), 0));
        forces.insert((Power::UnitedKingdom, unit("BB"), 1), 1);
        state.forces[place_id("Red Sea Zone").index()].insert((Power::Germany, unit("SUB"), 0), 1);
        let err = move_units(
            &mut state,
            Power::UnitedKingdom,
            &[("BB", 1)],
            &["India SZ", "Red Sea Zone"],
        )
        .expect_err("damaged");
        assert_eq!(err.code, "damaged-cannot-attack");
        state.phase = Phase::NonCombatMove;
        move_units(
            &mut state,
            Power::UnitedKingdom,
            &[("BB", 1)],
            &["India SZ", "East Compass Sea Zone"],
        )
        .expect("it may sail away");
        assert_eq!(
            state.forces[place_id("East Compass Sea Zone").index()]
                [&(Power::UnitedKingdom, unit("BB"), 1)],
            1
        );
    }
}

mod battles {
    use super::*;
    use crate::battle::{CombatOrder, Outcome, RetreatOrder};
    use crate::game::combat::BattleOrders;

    /// Round 2, Russia's combat move, with Eastern Europe held by one German infantry.
    fn eastern_europe_held_by_one_german_infantry() -> GameState {
        let mut state = in_phase(2, Power::Russia, Phase::CombatMove);
        let east = place_id("Eastern Europe").index();
        state.forces[east].clear();
        state.forces[east].insert((Power::Germany, unit("INF"), 0), 1);
        state
    }

    /// Round 2, Russia's combat move, with Eastern Europe held by one German infantry.
    fn russia_attacks_eastern_europe() -> GameState {
        let mut state = eastern_europe_held_by_one_german_infantry();
        order(
            &mut state,
            Power::Russia,
            Order::Move {
                units: vec![(unit("INF"), 2)],
                path: vec![place_id("Karelia"), place_id("Eastern Europe")],
            },
        )
        .expect("attack");
        order(&mut state, Power::Russia, Order::EndPhase).expect("to the battles");
        state
    }

    #[test]
    fn a_won_battle_takes_the_territory_and_records_every_die() {
        let mut state = russia_attacks_eastern_europe();
        let east = place_id("Eastern Europe");
        // Attack: 1 (hit), 6; the German casualty fires back: 6.
        let events = ordered_with_dice(
            &mut state,
            Power::Russia,
            Order::FightBattle(BattleOrders::at(east)),
            &[1, 6, 6],
        )
        .expect("fought");
        let GameEvent::BattleFought(fought) = &events[0] else {
            panic!("{events:?}")
        };
        assert_eq!(fought.outcome, Outcome::AttackerWins);
        assert_eq!(
            fought.dice.iter().map(|d| d.value()).collect::<Vec<_>>(),
            vec![1, 6, 6]
        );
        assert!(fought.captured);
        assert_eq!(state.holder[east.index()], Some(Power::Russia));
        assert_eq!(
            state.forces[east.index()].get(&(Power::Russia, unit("INF"), 0)),
            Some(&2)
        );
        assert!(!state.forces[east.index()]
            .keys()
            .any(|(o, _, _)| *o == Power::Germany));
        assert!(state.contested.is_empty());
        order(&mut state, Power::Russia, Order::EndPhase).expect("no battle left");
    }

    #[test]
    fn the_battles_phase_cannot_end_with_a_battle_unfought_and_there_is_no_battle_elsewhere() {
        let mut state = russia_attacks_eastern_europe();
        let err =
            order(&mut state, Power::Russia, Order::EndPhase).expect_err("a battle is pending");
        assert_eq!(err.code, "battles-pending");
        assert!(err.message.contains("East Europe"), "{err}");
        let err = ordered_with_dice(
            &mut state,
            Power::Russia,
            Order::FightBattle(BattleOrders::at(place_id("Germany"))),
            &[],
        )
        .expect_err("no battle in Germany");
        assert_eq!(err.code, "no-battle-here");
    }

    /// Round 2, Russia's battles: one infantry and one fighter from Karelia against one
    /// German infantry in Eastern Europe.
    fn russia_attacks_eastern_europe_with_a_fighter() -> GameState {
        let mut state = eastern_europe_held_by_one_german_infantry();
        *state.forces[place_id("Karelia").index()]
            .entry((Power::Russia, unit("FTR"), 0))
            .or_default() += 1;
        move_units(
            &mut state,
            Power::Russia,
            &[("INF", 1), ("FTR", 1)],
            &["Karelia", "Eastern Europe"],
        )
        .expect("attack");
        order(&mut state, Power::Russia, Order::EndPhase).expect("to the battles");
        state
    }

    /// The battle fought (its first event), and where the attacker went.
    fn fought(events: &[GameEvent]) -> &crate::game::combat::BattleFought {
        let Some(GameEvent::BattleFought(fought)) = events.first() else {
            panic!("{events:?}")
        };
        fought
    }

    #[test]
    fn a_land_battle_without_retreat_to_that_ends_in_a_withdrawal_goes_to_the_first_place_of_the_attackers_own_next_door(
    ) {
        // Given the attacker names no destination, and the defender takes its infantry in
        // round one (INF 6, FTR 6; the defender's 1), so that from round two (Save Air At
        // All Costs) the fighter would be the next casualty:
        let given = russia_attacks_eastern_europe_with_a_fighter();
        let east = place_id("Eastern Europe");
        let fight = Order::FightBattle(BattleOrders::at(east));

        // When it is fought, then the fighter withdraws to Karelia, Russia's one neighbour
        // of Eastern Europe.
        let mut state = given.clone();
        let events = ordered_with_dice(&mut state, Power::Russia, fight.clone(), &[6, 6, 1])
            .expect("fought");
        assert_eq!(fought(&events).outcome, Outcome::AttackerRetreated);
        assert_eq!(fought(&events).retreat_to, Some(place_id("Karelia")));
        assert_eq!(
            count(&state, "Karelia", Power::Russia, "FTR"),
            count(&given, "Karelia", Power::Russia, "FTR") + 1
        );
        assert_eq!(count(&state, "Eastern Europe", Power::Russia, "FTR"), 0);

        // When Russia holds Ukraine too, then Karelia still comes first in the board's
        // order; and when a battle is pending in Karelia, the fighter goes to Ukraine.
        let mut given = given;
        let ukraine = place_id("Ukraine");
        given.holder[ukraine.index()] = Some(Power::Russia);
        given.forces[ukraine.index()].clear();
        let mut state = given.clone();
        let events = ordered_with_dice(&mut state, Power::Russia, fight.clone(), &[6, 6, 1])
            .expect("fought");
        assert_eq!(fought(&events).retreat_to, Some(place_id("Karelia")));
        let mut state = given.clone();
        state
            .contested
            .insert(place_id("Karelia"), Default::default());
        let events =
            ordered_with_dice(&mut state, Power::Russia, fight, &[6, 6, 1]).expect("fought");
        assert_eq!(fought(&events).retreat_to, Some(place_id("Ukraine")));
        assert_eq!(
            count(&state, "Ukraine", Power::Russia, "FTR"),
            count(&given, "Ukraine", Power::Russia, "FTR") + 1
        );
    }

    #[test]
    fn a_sea_battle_without_retreat_to_withdraws_to_the_first_sea_zone_next_door_free_of_enemies() {
        // Given a German submarine attacks a British one in the Baltic, ordered to withdraw
        // after round one and naming no place; the Baltic's one sea neighbour is the North
        // Sea (Germany, next door, is land: no place for a fleet):
        let mut given = in_phase(2, Power::Germany, Phase::Battles);
        let baltic = place_id("Baltic Sea Zone");
        given.forces[baltic.index()].clear();
        given.forces[baltic.index()].insert((Power::Germany, unit("SUB"), 0), 1);
        given.forces[baltic.index()].insert((Power::UnitedKingdom, unit("SUB"), 0), 1);
        given.contested.insert(baltic, Default::default());
        let mut orders = BattleOrders::at(baltic);
        orders.retreat = Some(RetreatOrder::AfterRound(1));
        let fight = Order::FightBattle(orders);

        // When the British fleet is in the North Sea, then the submarine cannot withdraw
        // and fights on: both miss (6, 6), then it sinks the British one (1).
        let mut state = given.clone();
        let events = ordered_with_dice(&mut state, Power::Germany, fight.clone(), &[6, 6, 1])
            .expect("fought");
        assert_eq!(fought(&events).outcome, Outcome::AttackerWins);
        assert_eq!(fought(&events).retreat_to, None);

        // When the North Sea is empty, then it withdraws there after round one.
        let north_sea = place_id("North Sea Zone");
        given.forces[north_sea.index()].clear();
        let mut state = given;
        let events = ordered_with_dice(&mut state, Power::Germany, fight, &[6, 6]).expect("fought");
        assert_eq!(fought(&events).outcome, Outcome::AttackerRetreated);
        assert_eq!(fought(&events).retreat_to, Some(north_sea));
        assert_eq!(count(&state, "North Sea Zone", Power::Germany, "SUB"), 1);
    }

    #[test]
    fn a_battle_with_nowhere_to_withdraw_to_fights_on_whatever_its_orders_say() {
        // Given a battle is pending in Karelia, Russia's one neighbour of Eastern Europe
        // (Germany holds Ukraine): Russia has nowhere of its own next door to withdraw to.
        let mut state = russia_attacks_eastern_europe_with_a_fighter();
        assert_eq!(
            state.holder[place_id("Ukraine").index()],
            Some(Power::Germany)
        );
        state
            .contested
            .insert(place_id("Karelia"), Default::default());
        let east = place_id("Eastern Europe");
        let mut orders = BattleOrders::at(east);
        orders.retreat = Some(RetreatOrder::AfterRound(1));

        // When it is fought with dice that would have ended it after round one (INF 6,
        // FTR 6, the defender's 1), then it goes on: FTR 3 takes the defender, whose last
        // die misses.
        let events = ordered_with_dice(
            &mut state,
            Power::Russia,
            Order::FightBattle(orders),
            &[6, 6, 1, 3, 6],
        )
        .expect("fought");
        assert_eq!(fought(&events).outcome, Outcome::AttackerWins);
        assert_eq!(fought(&events).retreat_to, None);
        assert_eq!(fought(&events).dice.len(), 5);
        assert_eq!(count(&state, "Eastern Europe", Power::Russia, "FTR"), 1);
    }

    #[test]
    fn a_named_withdrawal_that_is_not_to_a_place_of_the_attackers_own_next_door_is_read_as_none_named(
    ) {
        // Given Russia attacks Eastern Europe from Karelia, and holds Ukraine, where a battle
        // is pending:
        let mut given = russia_attacks_eastern_europe();
        let ukraine = place_id("Ukraine");
        given.holder[ukraine.index()] = Some(Power::Russia);
        given.forces[ukraine.index()].clear();
        given.contested.insert(ukraine, Default::default());
        let east = place_id("Eastern Europe");
        // When the battle names Germany (not Russia's), Russia (not next door) or Ukraine
        // (a battle of its own): then it is fought as if it named none, and the infantry
        // withdraw to the first place of Russia's own next door, Karelia. (Refusing it would
        // refuse battles recorded before the place was checked ahead of the dice.)
        for to in ["Germany", "Russia", "Ukraine"] {
            let mut orders = BattleOrders::at(east);
            orders.retreat = Some(RetreatOrder::AfterRound(1));
            orders.retreat_to = Some(place_id(to));
            let events = ordered_with_dice(
                &mut given.clone(),
                Power::Russia,
                Order::FightBattle(orders),
                &[6, 6, 6],
            )
            .expect(to);
            assert_eq!(
                fought(&events).retreat_to,
                Some(place_id("Karelia")),
                "{to}"
            );
        }

        // When it names Karelia, then the infantry withdraw there after round one.
        let mut orders = BattleOrders::at(east);
        orders.retreat = Some(RetreatOrder::AfterRound(1));
        orders.retreat_to = Some(place_id("Karelia"));
        let events = ordered_with_dice(
            &mut given,
            Power::Russia,
            Order::FightBattle(orders),
            &[6, 6, 6],
        )
        .expect("withdraws");
        assert_eq!(fought(&events).retreat_to, Some(place_id("Karelia")));
        assert_eq!(given.holder[east.index()], Some(Power::Germany));
        assert_eq!(
            given.forces[place_id("Karelia").index()][&(Power::Russia, unit("INF"), 0)],
            3
        );
    }

    #[test]
    fn taking_a_capital_takes_its_guns_its_complex_and_its_treasury() {
        let mut state = start();
        state.round = 2;
        state.phase = Phase::CombatMove;
        state.forces[place_id("Eastern Europe").index()].clear();
        let germany = place_id("Germany");
        state.forces[germany.index()].clear();
        state.forces[germany.index()].insert((Power::Germany, unit("INF"), 0), 1);
        state.forces[germany.index()].insert((Power::Germany, unit("AA"), 0), 1);
        state.forces[germany.index()].insert((Power::Germany, unit("IC"), 0), 1);
        order(
            &mut state,
            Power::Russia,
            Order::Move {
                units: vec![(unit("ARM"), 1)],
                path: vec![place_id("Karelia"), place_id("Eastern Europe"), germany],
            },
        )
        .expect("blitz into Germany");
        order(&mut state, Power::Russia, Order::EndPhase).expect("to the battles");
        let mut orders = BattleOrders::at(germany);
        orders.combat = Some(CombatOrder::KillAtAllCosts);
        // ARM 3 (a hit); the German infantry fires back from the casualty area: 6.
        ordered_with_dice(
            &mut state,
            Power::Russia,
            Order::FightBattle(orders),
            &[3, 6],
        )
        .expect("fought");
        assert_eq!(state.holder[germany.index()], Some(Power::Russia));
        let forces = &state.forces[germany.index()];
        assert_eq!(forces.get(&(Power::Russia, unit("AA"), 0)), Some(&1));
        assert_eq!(forces.get(&(Power::Russia, unit("IC"), 0)), Some(&1));
        assert_eq!(state.treasury[&Power::Germany], 0);
        assert_eq!(state.treasury[&Power::Russia], 24 + 32);
    }
}

mod repairs {
    use super::*;

    fn with_damaged_battleship(zone: &str) -> GameState {
        let mut state = start();
        let forces = &mut state.forces[place_id(zone).index()];
        forces.insert((Power::UnitedKingdom, unit("BB"), 1), 1);
        state.turn = 2;
        state
    }

    #[test]
    fn a_damaged_battleship_beside_an_own_complex_is_repaired_for_five_and_a_die_and_stays_put() {
        let mut state = with_damaged_battleship("UK SZ");
        let treasury = state.treasury[&Power::UnitedKingdom];
        let events = ordered_with_dice(
            &mut state,
            Power::UnitedKingdom,
            Order::RepairBattleship {
                sea_zone: place_id("UK SZ"),
            },
            &[4],
        )
        .expect("repaired");
        assert_eq!(
            events,
            vec![GameEvent::BattleshipRepaired {
                power: Power::UnitedKingdom,
                sea_zone: place_id("UK SZ"),
                die: die(4),
                cost: 9
            }]
        );
        assert_eq!(state.treasury[&Power::UnitedKingdom], treasury - 9);
        let zone = &state.forces[place_id("UK SZ").index()];
        assert_eq!(zone.get(&(Power::UnitedKingdom, unit("BB"), 1)), None);
        assert_eq!(zone[&(Power::UnitedKingdom, unit("BB"), 0)], 2);
        // It must remain in the sea zone this turn: only the other battleship may sail.
        advance_to(&mut state, Phase::NonCombatMove);
        let leave = |state: &mut GameState, n: u32| {
            order(
                state,
                Power::UnitedKingdom,
                Order::Move {
                    units: vec![(unit("BB"), n)],
                    path: vec![place_id("UK SZ"), place_id("Baltic Sea Zone")],
                },
            )
        };
        let err = leave(&mut state, 2).expect_err("one is under repair");
        assert_eq!(err.code, "not-enough-units");
        leave(&mut state, 1).expect("the other may sail");
    }

    #[test]
    fn a_repair_needs_a_damaged_battleship_an_own_complex_next_door_and_the_money() {
        let mut state = with_damaged_battleship("Hawaii SZ");
        let err = ordered_with_dice(
            &mut state,
            Power::UnitedKingdom,
            Order::RepairBattleship {
                sea_zone: place_id("Hawaii SZ"),
            },
            &[1],
        )
        .expect_err("no British complex near Hawaii");
        assert_eq!(err.code, "no-shipyard");
        let err = ordered_with_dice(
            &mut state,
            Power::UnitedKingdom,
            Order::RepairBattleship {
                sea_zone: place_id("India SZ"),
            },
            &[1],
        )
        .expect_err("the Indian battleship is not damaged");
        assert_eq!(err.code, "nothing-to-repair");
        let mut poor = with_damaged_battleship("UK SZ");
        poor.treasury.insert(Power::UnitedKingdom, 10);
        let err = ordered_with_dice(
            &mut poor,
            Power::UnitedKingdom,
            Order::RepairBattleship {
                sea_zone: place_id("UK SZ"),
            },
            &[1],
        )
        .expect_err("10 < 11");
        assert_eq!(err.code, "insufficient-ipc");
    }
}

mod transports {
    use super::*;
    use crate::game::combat::BattleOrders;

    fn uk(phase: Phase, round: u32) -> GameState {
        let mut state = start();
        state.round = round;
        state.turn = 2;
        state.phase = phase;
        state
    }

    #[test]
    fn infantry_load_onto_transports_next_door_within_their_space() {
        let mut state = uk(Phase::NonCombatMove, 1);
        move_units(
            &mut state,
            Power::UnitedKingdom,
            &[("INF", 2), ("ARM", 1)],
            &["United Kingdom", "UK SZ"],
        )
        .expect("4 of 6 spaces");
        assert_eq!(
            state.transport_space(rules(), place_id("UK SZ"), Power::UnitedKingdom),
            (6, 4)
        );
        state.forces[place_id("United Kingdom").index()]
            .insert((Power::UnitedKingdom, unit("ARM"), 0), 2);
        let err = move_units(
            &mut state,
            Power::UnitedKingdom,
            &[("ARM", 2)],
            &["United Kingdom", "UK SZ"],
        )
        .expect_err("4 more spaces, 2 free");
        assert_eq!(err.code, "no-transport-space");
    }

    #[test]
    fn cargo_sails_only_with_its_transports_and_is_never_left_at_sea() {
        let mut state = uk(Phase::NonCombatMove, 1);
        move_units(
            &mut state,
            Power::UnitedKingdom,
            &[("INF", 2)],
            &["United Kingdom", "UK SZ"],
        )
        .expect("loaded");
        let err = move_units(
            &mut state,
            Power::UnitedKingdom,
            &[("INF", 2)],
            &["UK SZ", "Baltic Sea Zone"],
        )
        .expect_err("no transport with them");
        assert_eq!(err.code, "needs-transport");
        let err = move_units(
            &mut state,
            Power::UnitedKingdom,
            &[("TRN", 3)],
            &["UK SZ", "Baltic Sea Zone"],
        )
        .expect_err("the infantry would be stranded");
        assert_eq!(err.code, "cargo-stranded");
        move_units(
            &mut state,
            Power::UnitedKingdom,
            &[("TRN", 1), ("INF", 2)],
            &["UK SZ", "Baltic Sea Zone"],
        )
        .expect("sails with them");
        let baltic = &state.forces[place_id("Baltic Sea Zone").index()];
        assert_eq!(baltic[&(Power::UnitedKingdom, unit("INF"), 0)], 2);
        move_units(
            &mut state,
            Power::UnitedKingdom,
            &[("TRN", 2)],
            &["UK SZ", "Baltic Sea Zone"],
        )
        .expect("empty transports may go");
    }

    #[test]
    fn unloading_into_enemy_land_is_an_amphibious_assault_and_ends_the_move() {
        let mut state = uk(Phase::CombatMove, 2);
        move_units(
            &mut state,
            Power::UnitedKingdom,
            &[("INF", 2)],
            &["United Kingdom", "UK SZ"],
        )
        .expect("loaded");
        let err = move_units(
            &mut state,
            Power::UnitedKingdom,
            &[("INF", 2)],
            &["UK SZ", "Western Europe", "Germany"],
        )
        .expect_err("ashore ends it");
        assert_eq!(err.code, "unload-ends-move");
        let events = move_units(
            &mut state,
            Power::UnitedKingdom,
            &[("INF", 2)],
            &["UK SZ", "Western Europe"],
        )
        .expect("assault");
        let GameEvent::UnitsMoved { contested, .. } = &events[0] else {
            panic!("{events:?}")
        };
        assert_eq!(*contested, Some(place_id("Western Europe")));
        let err = move_units(
            &mut state,
            Power::UnitedKingdom,
            &[("INF", 2)],
            &["Western Europe", "United Kingdom"],
        )
        .expect_err("spent");
        assert_eq!(err.code, "not-enough-units");
    }

    #[test]
    fn cargo_does_not_fight_at_sea_and_goes_down_with_its_transport() {
        let mut state = start();
        state.round = 2;
        state.turn = 1;
        state.phase = Phase::Battles;
        let baltic = place_id("Baltic Sea Zone");
        state.forces[baltic.index()].insert((Power::UnitedKingdom, unit("TRN"), 0), 1);
        state.forces[baltic.index()].insert((Power::UnitedKingdom, unit("INF"), 0), 2);
        state.forces[baltic.index()].insert((Power::Germany, unit("SUB"), 0), 1);
        state.contested.insert(baltic, Default::default());
        // The sub strikes first and sinks the transport; nothing British is left to fight.
        ordered_with_dice(
            &mut state,
            Power::Germany,
            Order::FightBattle(BattleOrders::at(baltic)),
            &[2],
        )
        .expect("fought");
        let left = &state.forces[baltic.index()];
        assert!(
            !left.keys().any(|(o, _, _)| *o == Power::UnitedKingdom),
            "{left:?}"
        );
        assert_eq!(left[&(Power::Germany, unit("SUB"), 0)], 1);
    }
}

mod bombing {
    use super::*;
    use crate::game::combat::BattleOrders;

    /// Round 2, Germany's bomber over the United Kingdom (complex and AA gun there).
    fn raid_over_britain() -> GameState {
        let mut state = start();
        state.round = 2;
        state.turn = 1;
        state.phase = Phase::CombatMove;
        let germany = place_id("Germany");
        let uk = place_id("United Kingdom");
        let path = vec![
            germany,
            place_id("West Europe"),
            place_id("North Sea Zone"),
            uk,
        ];
        // The bomber flies over its own West Europe and the British fleet to the island.
        state.forces[place_id("North Sea Zone").index()].clear();
        order(
            &mut state,
            Power::Germany,
            Order::Move {
                units: vec![(unit("BMB"), 1)],
                path,
            },
        )
        .expect("flies");
        order(&mut state, Power::Germany, Order::EndPhase).expect("to the battles");
        state
    }

    #[test]
    fn a_raid_costs_the_complexs_holder_what_the_surviving_bombers_roll() {
        let mut state = raid_over_britain();
        let uk = place_id("United Kingdom");
        let mut orders = BattleOrders::at(uk);
        orders.bombing_raid = true;
        // The AA gun misses (4); the bomber rolls 5.
        let events = ordered_with_dice(
            &mut state,
            Power::Germany,
            Order::FightBattle(orders),
            &[4, 5],
        )
        .expect("raid");
        let GameEvent::RaidFlown(flown) = &events[0] else {
            panic!("{events:?}")
        };
        assert_eq!(
            (flown.victim, flown.raid.ipc_lost),
            (Power::UnitedKingdom, 5)
        );
        assert_eq!(state.treasury[&Power::UnitedKingdom], 30 - 5);
        assert_eq!(
            state.holder[uk.index()],
            Some(Power::UnitedKingdom),
            "a raid takes nothing"
        );
        assert!(state.contested.is_empty());
        assert_eq!(
            state.forces[uk.index()][&(Power::Germany, unit("BMB"), 0)],
            1
        );
    }

    #[test]
    fn a_raid_is_for_bombers_alone_against_an_enemy_complex() {
        let mut state = raid_over_britain();
        let uk = place_id("United Kingdom");
        state.forces[uk.index()].insert((Power::Germany, unit("FTR"), 0), 1);
        let mut orders = BattleOrders::at(uk);
        orders.bombing_raid = true;
        let err = ordered_with_dice(
            &mut state,
            Power::Germany,
            Order::FightBattle(orders.clone()),
            &[4, 5],
        )
        .expect_err("a fighter along");
        assert_eq!(err.code, "raid-bombers-only");
        state.forces[uk.index()].remove(&(Power::Germany, unit("FTR"), 0));
        state.forces[uk.index()].retain(|(_, u, _), _| rules().catalogue.get(*u).code != "IC");
        let err = ordered_with_dice(
            &mut state,
            Power::Germany,
            Order::FightBattle(orders),
            &[4, 5],
        )
        .expect_err("no complex");
        assert_eq!(err.code, "no-complex");
    }
}

mod support_and_kamikaze {
    use super::*;
    use crate::battle::Outcome;
    use crate::game::combat::BattleOrders;

    #[test]
    fn battleships_next_door_bombard_an_amphibious_assault_once_and_are_spent() {
        let mut state = start();
        state.round = 2;
        state.turn = 2;
        state.phase = Phase::CombatMove;
        let west = place_id("Western Europe");
        state.forces[west.index()].clear();
        state.forces[west.index()].insert((Power::Germany, unit("INF"), 0), 1);
        move_units(
            &mut state,
            Power::UnitedKingdom,
            &[("INF", 2)],
            &["United Kingdom", "UK SZ"],
        )
        .expect("loaded");
        move_units(
            &mut state,
            Power::UnitedKingdom,
            &[("INF", 2)],
            &["UK SZ", "Western Europe"],
        )
        .expect("assault");
        order(&mut state, Power::UnitedKingdom, Order::EndPhase).expect("to the battles");

        let mut far = BattleOrders::at(west);
        far.bombard_from = vec![place_id("India SZ")];
        let err = ordered_with_dice(
            &mut state,
            Power::UnitedKingdom,
            Order::FightBattle(far),
            &[4, 6],
        )
        .expect_err("too far");
        assert_eq!(err.code, "bad-bombardment");

        let mut orders = BattleOrders::at(west);
        orders.bombard_from = vec![place_id("UK SZ")];
        // The battleship's 4 hits the German infantry, which fires back from the casualty
        // area (6); with no defender left the infantry need not roll.
        let events = ordered_with_dice(
            &mut state,
            Power::UnitedKingdom,
            Order::FightBattle(orders),
            &[4, 6],
        )
        .expect("fought");
        let GameEvent::BattleFought(fought) = &events[0] else {
            panic!("{events:?}")
        };
        assert_eq!(fought.outcome, Outcome::AttackerWins);
        assert_eq!(fought.bombarded_from, vec![(place_id("UK SZ"), 1)]);
        assert_eq!(state.holder[west.index()], Some(Power::UnitedKingdom));
        order(&mut state, Power::UnitedKingdom, Order::EndPhase).expect("battles done");
        let err = order(
            &mut state,
            Power::UnitedKingdom,
            Order::Move {
                units: vec![(unit("BB"), 1)],
                path: vec![place_id("UK SZ"), place_id("Baltic Sea Zone")],
            },
        )
        .expect_err("the battleship fired");
        assert_eq!(err.code, "not-enough-units");
    }

    #[test]
    fn only_japan_flies_a_kamikaze_and_only_once_a_turn() {
        let mut state = start();
        state.round = 2;
        state.turn = 3;
        state.phase = Phase::Battles;
        let zone = place_id("Hawaii SZ");
        let other = place_id("W USA SZ");
        for z in [zone, other] {
            state.forces[z.index()].clear();
            state.forces[z.index()].insert((Power::Japan, unit("FTR"), 0), 2);
            state.forces[z.index()].insert((Power::UnitedStates, unit("BB"), 0), 1);
            state.contested.insert(z, Default::default());
        }
        let mut orders = BattleOrders::at(zone);
        orders.kamikaze_target = Some(unit("BB"));
        // The kamikaze damages the battleship; the other fighter's 3 sinks it; it fires
        // back at 3 (damaged) and misses.
        let events = ordered_with_dice(
            &mut state,
            Power::Japan,
            Order::FightBattle(orders),
            &[3, 6],
        )
        .expect("fought");
        let GameEvent::BattleFought(fought) = &events[0] else {
            panic!("{events:?}")
        };
        assert_eq!(fought.outcome, Outcome::AttackerWins);
        assert!(fought.kamikaze);
        assert_eq!(
            state.forces[zone.index()][&(Power::Japan, unit("FTR"), 0)],
            1,
            "the kamikaze fighter is gone"
        );
        let mut again = BattleOrders::at(other);
        again.kamikaze_target = Some(unit("BB"));
        let err = ordered_with_dice(&mut state, Power::Japan, Order::FightBattle(again), &[])
            .expect_err("once a turn");
        assert_eq!(err.code, "kamikaze-once-a-turn");

        let mut german = start();
        german.round = 2;
        german.turn = 1;
        german.phase = Phase::Battles;
        german.contested.insert(zone, Default::default());
        let mut orders = BattleOrders::at(zone);
        orders.kamikaze_target = Some(unit("BB"));
        let err = ordered_with_dice(&mut german, Power::Germany, Order::FightBattle(orders), &[])
            .expect_err("not Japan");
        assert_eq!(err.code, "kamikaze-japan-only");
    }
}
