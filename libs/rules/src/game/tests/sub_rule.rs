//! The IAAPA sub rule: "After any round where only aircraft face only subs, the battle ends
//! and surviving subs withdraw to an adjacent friendly or empty sea zone"
//! (docs/rule-facts.md). Cut-Throat revision 4 plays it; earlier revisions ended
//! such a battle with the submarines staying where they were.

use super::*;
use crate::game::combat::BattleOrders;
use crate::game::Special;

/// Round 2, Germany's battles: two German fighters over a British submarine in the Baltic.
fn fighters_over_a_submarine() -> (GameState, TerritoryId) {
    let mut state = start();
    state.round = 2;
    state.turn = 1;
    state.phase = Phase::Battles;
    let baltic = place_id("Baltic Sea Zone");
    state.forces[baltic.index()].clear();
    state.forces[baltic.index()].insert((Power::Germany, unit("FTR"), 0), 2);
    state.forces[baltic.index()].insert((Power::UnitedKingdom, unit("SUB"), 0), 1);
    state.contested.insert(baltic, Default::default());
    (state, baltic)
}

/// Both fighters miss (6, 6), the submarine misses (6): only aircraft face only a sub.
const ALL_MISS: [u8; 3] = [6, 6, 6];

/// The fighters attack, every die missing, under Cut-Throat's rules with the withdrawal
/// switched on (revision 4).
fn fight_with_withdrawal(state: &mut GameState, zone: TerritoryId) {
    let special = Special {
        subs_withdraw_from_aircraft: true,
        ..Special::CUT_THROAT
    };
    let rules = Rules {
        special: &special,
        ..rules()
    };
    order_under(
        rules,
        state,
        Power::Germany,
        Order::FightBattle(BattleOrders::at(zone)),
        &ALL_MISS,
    )
    .expect("fought");
}

fn subs(state: &GameState, place: &str) -> u32 {
    count(state, place, Power::UnitedKingdom, "SUB")
}

#[test]
fn a_submarine_facing_only_aircraft_withdraws_to_a_neighbouring_zone_free_of_enemies() {
    // The Baltic's only sea neighbour is the North Sea, where the British fleet stands.
    let (mut state, baltic) = fighters_over_a_submarine();
    let before = subs(&state, "North Sea Zone");
    fight_with_withdrawal(&mut state, baltic);
    assert_eq!(subs(&state, "Baltic Sea Zone"), 0, "the submarine left");
    assert_eq!(
        subs(&state, "North Sea Zone"),
        before + 1,
        "for the North Sea"
    );
}

#[test]
fn with_no_neighbouring_zone_free_of_enemies_the_submarine_stays() {
    let (mut state, baltic) = fighters_over_a_submarine();
    state.forces[place_id("North Sea Zone").index()].insert((Power::Germany, unit("SUB"), 0), 1);
    fight_with_withdrawal(&mut state, baltic);
    assert_eq!(subs(&state, "Baltic Sea Zone"), 1);
}

#[test]
fn before_revision_four_the_submarine_stays() {
    let (mut state, baltic) = fighters_over_a_submarine();
    ordered_with_dice(
        &mut state,
        Power::Germany,
        Order::FightBattle(BattleOrders::at(baltic)),
        &ALL_MISS,
    )
    .expect("fought");
    assert_eq!(subs(&state, "Baltic Sea Zone"), 1);
}
