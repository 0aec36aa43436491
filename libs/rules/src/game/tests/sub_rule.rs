//! The IAAPA sub rule: "After any round where only aircraft face only subs, the battle ends
//! and surviving subs withdraw to an adjacent friendly or empty sea zone"
//! (reference/rules-facts.md). Cut-Throat revision 4 plays it; earlier revisions ended
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

#[test]
fn a_submarine_facing_only_aircraft_withdraws_to_the_first_zone_free_of_enemies() {
    let special = Special {
        subs_withdraw_from_aircraft: true,
        ..Special::CUT_THROAT
    };
    let rules = Rules {
        special: &special,
        ..rules()
    };
    let (mut state, baltic) = fighters_over_a_submarine();
    let expected = {
        let mut zones: Vec<TerritoryId> = rules
            .board
            .neighbours(baltic)
            .iter()
            .copied()
            .filter(|z| rules.board.get(*z).sea)
            .collect();
        zones.sort();
        zones.into_iter().find(|z| {
            state.forces[z.index()].keys().all(|(owner, _, _)| {
                *owner == Power::UnitedKingdom || !state.at_war(Power::UnitedKingdom, *owner)
            })
        })
    }
    .expect("a zone free of enemies next to the Baltic");
    let subs_there = |state: &GameState| {
        state.count_units(rules, expected, Power::UnitedKingdom, |u, _| {
            u == unit("SUB")
        })
    };
    let before = subs_there(&state);
    order_under(
        rules,
        &mut state,
        Power::Germany,
        Order::FightBattle(BattleOrders::at(baltic)),
        &ALL_MISS,
    )
    .expect("fought");
    assert_eq!(
        state.count_units(rules, baltic, Power::UnitedKingdom, |u, _| u == unit("SUB")),
        0,
        "the submarine left the Baltic"
    );
    assert_eq!(
        subs_there(&state),
        before + 1,
        "and withdrew to {}",
        rules.board.get(expected).name
    );
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
    assert_eq!(
        count(&state, "Baltic Sea Zone", Power::UnitedKingdom, "SUB"),
        1
    );
}
