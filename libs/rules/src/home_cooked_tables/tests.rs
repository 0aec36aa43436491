//! Every table at its boundaries, and every die taken from the source and kept.

use super::*;
use crate::dice::ScriptedDice;
use crate::ruleset::home_cooked::dice_tables;

#[test]
fn the_start_chart_maps_each_3d6_total_and_says_which_rows_cannot_come_up() {
    assert_eq!(start_zone(3), Some("Brazil"));
    assert_eq!(start_zone(4), Some("United Kingdom"));
    assert_eq!(start_zone(6), Some("Germany"));
    assert_eq!(start_zone(12), Some("Russia"));
    assert_eq!(start_zone(17), Some("Japan"));
    assert_eq!(start_zone(18), Some("Western US"));
    // Rows 1 and 2 name zones 3d6 never reaches; 19+ is "pick".
    assert_eq!(start_zone(1), Some("Eastern Canada"));
    assert_eq!(start_zone(2), Some("Eastern US"));
    assert_eq!(start_zone(19), None);
    assert_eq!(start_zone(0), None);
}

#[test]
fn the_reinforcement_table_changes_exactly_at_its_printed_boundaries() {
    use WarUnit::*;
    let units = |t| reinforcements(t).units;
    assert_eq!(units(3), vec![(Soldier, 1)]);
    assert_eq!(units(5), vec![(Soldier, 1)]);
    assert_eq!(units(6), vec![(Soldier, 3)]);
    assert_eq!(units(7), vec![(Tank, 1)]);
    assert_eq!(units(8), vec![(Tank, 1)]);
    assert_eq!(units(9), vec![(Soldier, 1), (Fighter, 1), (Tank, 1)]);
    assert_eq!(units(10), vec![(Soldier, 1), (Fighter, 1), (Tank, 1)]);
    assert_eq!(
        reinforcements(11),
        Reinforcements {
            units: vec![(Soldier, 2)],
            moves_up_to: Some(4)
        }
    );
    assert_eq!(units(12), vec![(Battleship, 1)]);
    assert_eq!(units(13), vec![(Fighter, 1)]);
    assert_eq!(units(14), vec![(Fighter, 1)]);
    assert_eq!(units(15), vec![(Submarine, 1)]);
    assert_eq!(
        reinforcements(16),
        Reinforcements {
            units: vec![(Tank, 2)],
            moves_up_to: Some(4)
        }
    );
    assert_eq!(units(17), vec![(Submarine, 2)]);
    assert_eq!(units(18), vec![(Carrier, 1), (Fighter, 3)]);
    for total in (3..=18).filter(|t| ![11, 16].contains(t)) {
        assert_eq!(reinforcements(total).moves_up_to, None, "{total}");
    }
}

#[test]
fn the_technology_table_changes_exactly_at_its_printed_boundaries() {
    use WarTechnology::*;
    let expected = [
        (3, Paratroopers),
        (4, MashUnits),
        (5, Jets),
        (6, StrategicBombers),
        (7, Metallurgy),
        (10, Metallurgy),
        (11, AdvancedArmor),
        (13, AdvancedArmor),
        (14, Radar),
        (15, Radar),
        (16, ChemicalWarfare),
        (17, Rockets),
        (18, AtomicBomb),
    ];
    for (total, tech) in expected {
        assert_eq!(technology(total), tech, "{total}");
    }
}

#[test]
fn research_succeeds_on_1_or_2_and_only_then_rolls_the_technology() {
    let mut dice = ScriptedDice::new(&[2, 6, 6, 5]);
    let (chance, found) = research(&mut dice);
    assert_eq!(chance.value(), 2);
    let found = found.expect("a 2 succeeds");
    assert_eq!((found.total, found.result), (17, WarTechnology::Rockets));
    assert_eq!(found.dice.len(), 3);
    assert_eq!(dice.remaining(), 0);

    let mut dice = ScriptedDice::new(&[3]);
    let (chance, found) = research(&mut dice);
    assert_eq!((chance.value(), found), (3, None));
    assert_eq!(dice.remaining(), 0, "a failure rolls nothing more");
}

#[test]
fn the_parley_table_gives_each_face_its_outcome_and_a_rising_militia_rolls_again() {
    let faces = [
        Parley::PassThrough,
        Parley::PayTwoToPass,
        Parley::PayOnePerUnit,
        Parley::HeldUp,
        Parley::MustEngage,
        Parley::MilitiaRises,
    ];
    for (face, outcome) in (1u8..=6).zip(faces) {
        assert_eq!(parley(Die::try_from(face).unwrap()), outcome);
    }
    // 1d6 - 2 soldiers: a 1 or 2 adds none, a 6 adds four.
    for (extra, soldiers) in [(1, 0), (2, 0), (3, 1), (6, 4)] {
        let mut dice = ScriptedDice::new(&[6, extra]);
        let (_, outcome, militia) = roll_parley(&mut dice);
        assert_eq!(outcome, Parley::MilitiaRises);
        assert_eq!(militia.map(|(_, n)| n), Some(soldiers));
    }
    let mut dice = ScriptedDice::new(&[5]);
    assert_eq!(roll_parley(&mut dice).2, None);
}

#[test]
fn a_table_roll_keeps_its_dice_and_their_total() {
    let mut dice = ScriptedDice::new(&[1, 1, 1, 6, 6, 6]);
    let low = roll_start_zone(&mut dice);
    assert_eq!((low.total, low.result), (3, Some("Brazil")));
    let high = roll_reinforcements(&mut dice);
    assert_eq!(high.total, 18);
    assert_eq!(
        high.dice.iter().map(|d| d.value()).collect::<Vec<_>>(),
        vec![6, 6, 6]
    );
}

#[test]
fn the_documents_tables_hold_the_seeds_rows_and_agree_with_the_rolls() {
    let tables = dice_tables();
    let rows = |name: &str| {
        tables
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("{name}"))
            .rows
            .clone()
    };
    // The seed prints 19 start rows, 11 reinforcement rows, 10 technology rows, 6 parley rows.
    assert_eq!(rows("start zone").len(), 19);
    assert_eq!(rows("reinforcements").len(), 11);
    assert_eq!(rows("technology").len(), 10);
    assert_eq!(rows("parley").len(), 6);
    let row_of = |name: &str, total: u8| {
        rows(name)
            .into_iter()
            .find(|r| (r.from..=r.to).contains(&total))
            .map(|r| r.result)
            .unwrap_or_else(|| panic!("{name} {total}"))
    };
    for total in 3..=18 {
        assert_eq!(
            row_of("reinforcements", total),
            reinforcements(total).to_string()
        );
        assert_eq!(
            row_of("technology", total),
            format!("{:?}", technology(total))
        );
        assert_eq!(
            row_of("start zone", total),
            start_zone(total).unwrap_or("pick")
        );
    }
    assert_eq!(
        row_of("reinforcements", 11),
        "2 soldiers, then moves up to 4 units and may attack"
    );
    assert_eq!(row_of("start zone", 19), "pick");
    let document = crate::document::RulesetDocument::builtin("war").expect("war");
    assert_eq!(document.validate(), Ok(()));
    assert_eq!(document.dice_tables, tables);
}

#[test]
fn initiative_goes_to_the_highest_die_and_then_to_the_right_and_ties_roll_again() {
    let seats = ["ann", "bob", "cy", "di"];
    // cy rolls 5, the highest: cy, di, then round to ann and bob.
    let rolled = initiative(&seats, &mut ScriptedDice::new(&[2, 3, 5, 1]));
    assert_eq!(rolled.order, ["cy", "di", "ann", "bob"]);
    assert_eq!(rolled.rolls.len(), 1);
    // ann and di tie on 6 and roll again: di wins with 4 against 3.
    let rolled = initiative(&seats, &mut ScriptedDice::new(&[6, 2, 5, 6, 3, 4]));
    assert_eq!(rolled.order, ["di", "ann", "bob", "cy"]);
    assert_eq!(rolled.rolls[1].len(), 2, "only the tied roll again");
}

#[test]
fn the_player_to_the_right_rolls_the_reinforcements() {
    let seats = ["ann", "bob", "cy"];
    assert_eq!(reinforcer(&seats, "ann"), Some("bob"));
    assert_eq!(reinforcer(&seats, "cy"), Some("ann"), "round the table");
    assert_eq!(reinforcer(&seats, "zed"), None);
}

#[test]
fn each_player_rolls_three_bases_and_a_taken_zone_is_rolled_again() {
    // ann: 3+1+1 = 5 West Europe, 6 Germany, 7 Southern Europe; bob: 6 again (Germany,
    // taken: rolled again), then 10 Karelia, 12 Russia, 18 Western US.
    let dice = [
        1, 3, 1, 2, 3, 1, 3, 3, 1, 1, 3, 2, 4, 4, 2, 4, 4, 4, 6, 6, 6,
    ];
    let bases = start_bases(&["ann", "bob"], 3, &mut ScriptedDice::new(&dice));
    assert_eq!(
        bases[0].zones,
        ["Western Europe", "Germany", "Southern Europe"]
    );
    assert_eq!(bases[1].zones, ["Karelia", "Russia", "Western US"]);
    assert_eq!(
        bases[1].rolls.len(),
        4,
        "the taken zone's roll is in the log too"
    );
    // Every chart name is a place on the Classic board.
    let board = crate::board::Board::classic().expect("board");
    for total in 1..=18 {
        let zone = start_zone(total).expect("a zone");
        assert!(board.id(zone).is_ok(), "{zone}");
    }
}

#[test]
fn a_zone_belongs_to_the_one_player_with_ground_units_in_it() {
    assert_eq!(controller(&[("ann", 2), ("bob", 0)]), Some("ann"));
    assert_eq!(controller(&[("ann", 2), ("bob", 1)]), None, "contested");
    assert_eq!(controller::<&str>(&[]), None, "nobody");
}

#[test]
fn the_highest_zone_points_win_and_the_lowest_get_the_dan_quayle_reward() {
    let outcome = result(&[("ann", 12), ("bob", 30), ("cy", 12), ("di", 30)]);
    assert_eq!(outcome.winners, ["bob", "di"]);
    assert_eq!(outcome.dan_quayle, ["ann", "cy"]);
}

#[test]
fn infrastructure_costs_five_returns_one_and_a_factory_takes_one_off_a_unit() {
    assert_eq!((INFRASTRUCTURE_COST, INFRASTRUCTURE_RETURN), (5, 1));
    assert_eq!(unit_price(5, true), 4);
    assert_eq!(unit_price(5, false), 5);
    assert_eq!(unit_price(1, true), 1, "never free");
}
