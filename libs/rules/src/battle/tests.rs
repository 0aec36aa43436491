//! Tests of battles fought with scripted dice: the seed's examples, AA guns, submarines,
//! the attacker's orders of loss and retreat, battleships and kamikazes.

use super::*;
use crate::dice::ScriptedDice;

fn catalogue(ruleset: &str) -> Catalogue {
    Catalogue::builtin(ruleset).expect("built-in ruleset")
}

fn battle<'c>(cat: &'c Catalogue, kind: BattleKind, attacker: &str, defender: &str) -> Battle<'c> {
    let mut b = Battle::new(cat, kind);
    b.attacker = Battle::army(cat, attacker).expect("attacker");
    b.defender = Battle::army(cat, defender).expect("defender");
    b
}

fn fight(b: &Battle<'_>, dice: &[u8]) -> BattleLog {
    let mut scripted = ScriptedDice::new(dice);
    let log = resolve(b, &mut scripted).expect("battle resolves");
    assert_eq!(scripted.remaining(), 0, "every scripted die is used");
    log
}

fn left(log: &BattleLog, cat: &Catalogue, side: Side) -> Vec<String> {
    let units = match side {
        Side::Attacker => log.attacker_left(),
        Side::Defender => log.defender_left(),
    };
    let mut codes: Vec<String> = units
        .iter()
        .map(|u| {
            let code = cat.get(u.kind).code.clone();
            if u.damage > 0 {
                format!("{code}*")
            } else {
                code
            }
        })
        .collect();
    codes.sort();
    codes
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn seed_example_one_six_armour_against_two_infantry() {
    // Given 6 ARM attacking 2 INF, when the dice fall as in Part 13's example,
    let cat = catalogue("classic");
    let b = battle(&cat, BattleKind::Land, "6 arm", "2 inf");
    let log = fight(&b, &[1, 2, 3, 1, 2, 5, 1, 2]);
    // then the listing is the seed's, the 2 INF are lost and 3 hits are overkill.
    let listing = log.render(&cat);
    let lines: Vec<&str> = listing.lines().collect();
    assert_eq!(lines[0], "A1 1*2*3*1*2*5 5 Hits");
    assert_eq!(
        lines[1],
        "  defender: 2 INF lost (default order); 3 hits overkill"
    );
    assert_eq!(lines[2], "D1 1*2* 2 Hits");
    assert_eq!(log.round(0)[0].overkill, 3);
    assert_eq!(log.outcome, Outcome::AttackerWins);
    assert_eq!(
        left(&log, &cat, Side::Attacker),
        strings(&["ARM", "ARM", "ARM", "ARM"])
    );
}

#[test]
fn seed_example_two_subs_cannot_hit_the_fighters() {
    // Given 2 TRN and 4 FTR attacking 5 SUB,
    let cat = catalogue("classic");
    let b = battle(&cat, BattleKind::Sea, "2 trn, 4 ftr", "5 sub");
    let log = fight(&b, &[6, 6, 6, 6, 1, 1, 1, 1, 1]);
    let listing = log.render(&cat);
    let lines: Vec<&str> = listing.lines().collect();
    // the fighters miss, the subs hit five times, the 2 TRN are lost, 3 hits are overkill,
    assert_eq!(lines[0], "A1 6666");
    assert_eq!(lines[1], "D1 1*1*1*1*1* 5 Hits");
    assert_eq!(
        lines[2],
        "  attacker: 2 TRN lost (default order); 3 hits overkill"
    );
    // and with only aircraft facing only subs, the battle ends.
    assert_eq!(log.outcome, Outcome::Disengaged);
    assert_eq!(
        left(&log, &cat, Side::Attacker),
        strings(&["FTR", "FTR", "FTR", "FTR"])
    );
    assert_eq!(log.defender_left().len(), 5);
}

#[test]
fn aa_guns_fire_once_per_aircraft_in_the_first_round_and_their_victims_leave_at_once() {
    let cat = catalogue("classic");
    let b = battle(&cat, BattleKind::Land, "1 inf, 2 ftr", "1 inf, 1 aa");
    // AA: 1 (hit), 5; attacker: INF 6 (1s), FTR 3 (3s, the surviving fighter); defender INF 6.
    let log = fight(&b, &[1, 5, 6, 3, 6]);
    let round = log.round(0);
    assert_eq!(round[0].phase, Phase::AntiAircraft);
    assert_eq!(round[0].casualties[0].effect, Effect::Removed);
    assert_eq!(round[0].casualties[0].reason, LossReason::AntiAircraft);
    // The lost fighter did not roll: two attacking dice, not three.
    assert_eq!(round[1].dice.len(), 2);
    assert_eq!(log.outcome, Outcome::AttackerWins);
    assert!(log.render(&cat).starts_with("AA1 1*5 1 Hit\n"));
}

#[test]
fn support_shots_are_not_rolled_once_the_aa_gun_has_downed_every_attacker() {
    let cat = catalogue("classic");
    let mut b = battle(&cat, BattleKind::Land, "1 ftr", "1 inf, 1 aa");
    b.support_shots = 2;
    // AA: 1 (hit): nobody is left to land, so no support shot is rolled; the defending
    // infantry still rolls its column (6).
    let log = fight(&b, &[1, 6]);
    let phases: Vec<Phase> = log.round(0).iter().map(|v| v.phase).collect();
    assert_eq!(phases, vec![Phase::AntiAircraft, Phase::Columns]);
    assert_eq!(log.outcome, Outcome::DefenderWins);
    // The exact odds walk the same steps: the fighter falls with probability 1/6.
    let odds = exact_odds(&b).expect("odds");
    assert!((odds.total() - 1.0).abs() < 1e-12);
    assert!(odds.defender_win >= 1.0 / 6.0 - 1e-12);
}

#[test]
fn a_support_shot_casualty_goes_to_the_casualty_area_and_fires_back() {
    let cat = catalogue("classic");
    let mut b = battle(&cat, BattleKind::Land, "2 inf", "2 inf");
    b.support_shots = 1;
    // Support shot 4 (hit); attacker INF 6, 6; defender: INF 6, casualty INF 1 (hit).
    let log = fight(&b, &[4, 6, 6, 6, 1, /* round 2 */ 1, 6]);
    let round = log.round(0);
    assert_eq!(round[0].phase, Phase::SupportShot);
    assert_eq!(round[0].casualties[0].effect, Effect::ToCasualtyArea);
    let defender = &round[2];
    assert_eq!(defender.dice.len(), 2, "the casualty fires back");
    assert_eq!(defender.hits, 1);
    // Round 2: one INF each; the attacker hits.
    assert_eq!(log.outcome, Outcome::AttackerWins);
}

#[test]
fn attacking_subs_fire_first_their_victims_do_not_fire_back_and_aircraft_are_safe() {
    let cat = catalogue("classic");
    let b = battle(&cat, BattleKind::Sea, "1 sub", "1 trn, 1 ftr");
    // Sub 1 (hit: the TRN, not the FTR); defender FTR 5. Then only a sub faces only a
    // fighter: neither can hurt the other, and the battle ends.
    let log = fight(&b, &[1, 5]);
    let first = &log.round(0)[0];
    assert_eq!(first.phase, Phase::FirstStrike);
    assert_eq!(cat.get(first.casualties[0].unit).code, "TRN");
    assert_eq!(first.casualties[0].effect, Effect::Removed);
    assert_eq!(log.round(0)[1].dice.len(), 1, "only the fighter fires back");
    assert_eq!(log.outcome, Outcome::Disengaged);
}

#[test]
fn columns_roll_in_order_ones_first_and_generically() {
    let cat = catalogue("classic");
    let b = battle(
        &cat,
        BattleKind::Land,
        "1 inf, 2 arm, 1 ftr, 1 bmb",
        "6 inf",
    );
    // Round 2: only the BMB hits the last defender, who fires back from the casualty area.
    let log = fight(
        &b,
        &[
            1, 3, 3, 3, 4, 6, 6, 6, 6, 6, 6, /* round 2 */ 6, 6, 6, 6, 1, 6,
        ],
    );
    let attack = &log.round(0)[0];
    let to_hit: Vec<u8> = attack.dice.iter().map(|d| d.to_hit).collect();
    // INF on 1, then ARM, ARM and FTR together on 3, then BMB on 4.
    assert_eq!(to_hit, vec![1, 3, 3, 3, 4]);
    assert_eq!(attack.hits, 5);
    assert_eq!(
        log.round(0)[1].dice.len(),
        6,
        "all six defenders fire from the casualty area"
    );
    assert_eq!(log.outcome, Outcome::AttackerWins);
}

#[test]
fn the_attacker_stops_rolling_columns_once_no_defender_is_left() {
    let cat = catalogue("classic");
    let b = battle(&cat, BattleKind::Land, "1 inf, 1 arm", "1 inf");
    // INF 1 hits the only defender: the ARM's column is not rolled; defender INF 6.
    let log = fight(&b, &[1, 6]);
    assert_eq!(log.round(0)[0].dice.len(), 1);
    assert_eq!(log.outcome, Outcome::AttackerWins);
}

#[test]
fn save_air_retreats_the_aircraft_when_the_last_ground_unit_is_lost() {
    let cat = catalogue("classic");
    let b = battle(&cat, BattleKind::Land, "1 inf, 1 ftr", "3 inf");
    let log = fight(&b, &[6, 6, 1, 6, 6]);
    assert_eq!(log.outcome, Outcome::AttackerRetreated);
    assert_eq!(left(&log, &cat, Side::Attacker), strings(&["FTR"]));
}

#[test]
fn take_at_all_costs_loses_aircraft_before_the_last_ground_unit() {
    let cat = catalogue("classic");
    let mut b = battle(&cat, BattleKind::Land, "2 inf, 1 ftr", "2 inf");
    b.attacker_orders.combat = Some(CombatOrder::TakeAtAllCosts);
    // Attacker misses; defender hits twice: one INF, then the FTR, keeping the last INF.
    // Round 2: the INF hits, both defenders miss; round 3: the INF hits the last one.
    let log = fight(
        &b,
        &[
            6, 6, 6, 1, 1, /* round 2 */ 1, 6, 6, /* round 3 */ 1, 6,
        ],
    );
    let lost: Vec<&str> = log.round(0)[1]
        .casualties
        .iter()
        .map(|c| cat.get(c.unit).code.as_str())
        .collect();
    assert_eq!(lost, vec!["INF", "FTR"]);
    assert_eq!(
        log.round(0)[1].casualties[0].reason,
        LossReason::CombatOrder(CombatOrder::TakeAtAllCosts)
    );
    assert_eq!(log.outcome, Outcome::AttackerWins);
}

#[test]
fn kill_at_all_costs_loses_the_lowest_attack_first_whatever_the_kind() {
    let cat = catalogue("classic");
    let mut b = battle(
        &cat,
        BattleKind::Land,
        "1 arm, 1 ftr, 1 bmb, 1 inf",
        "1 inf",
    );
    b.attacker_orders.combat = Some(CombatOrder::KillAtAllCosts);
    // All miss (INF; ARM and FTR; BMB); the defender hits once: the INF (attack 1) goes.
    // Round 2: the 3s column (ARM, FTR) hits; the BMB's column is not needed; the
    // defender fires back from the casualty area.
    let log = fight(&b, &[6, 6, 6, 6, 1, /* round 2 */ 1, 6, 6]);
    assert_eq!(cat.get(log.round(0)[1].casualties[0].unit).code, "INF");
    assert_eq!(log.outcome, Outcome::AttackerWins);
}

#[test]
fn save_air_at_all_costs_withdraws_when_the_ground_could_not_absorb_the_defence() {
    let cat = catalogue("classic");
    let mut b = battle(&cat, BattleKind::Land, "1 inf, 2 ftr", "3 inf");
    b.attacker_orders.combat = Some(CombatOrder::SaveAirAtAllCosts);
    // All miss; the defender misses too, but 3 defending dice exceed 1 ground unit.
    let log = fight(&b, &[6, 6, 6, 6, 6, 6]);
    assert_eq!(log.outcome, Outcome::AttackerRetreated);
    assert_eq!(log.rounds(), 1);
}

#[test]
fn walk_in_takes_an_undefended_territory_without_dice_and_is_refused_against_defenders() {
    let cat = catalogue("classic");
    let mut b = battle(&cat, BattleKind::Land, "1 inf", "1 aa");
    b.attacker_orders.combat = Some(CombatOrder::WalkIn);
    let log = fight(&b, &[]);
    assert_eq!(log.outcome, Outcome::WalkedIn);
    let mut defended = battle(&cat, BattleKind::Land, "1 inf", "1 inf");
    defended.attacker_orders.combat = Some(CombatOrder::WalkIn);
    let err = resolve(&defended, &mut ScriptedDice::new(&[])).expect_err("defended");
    assert_eq!(err.code, "walk-in-defended");
}

#[test]
fn an_explicit_order_of_loss_is_followed_before_the_default() {
    let cat = catalogue("classic");
    let mut b = battle(&cat, BattleKind::Land, "1 inf, 1 arm", "1 inf");
    b.attacker_orders.order_of_loss = vec![cat.id("ARM").expect("ARM")];
    let log = fight(&b, &[6, 6, 2, /* round 2 */ 1, 6]);
    let casualty = log.round(0)[1].casualties[0];
    assert_eq!(cat.get(casualty.unit).code, "ARM");
    assert_eq!(casualty.reason, LossReason::ExplicitOrder);
}

#[test]
fn retreat_after_round_n_and_retreat_at_n_units_are_obeyed() {
    let cat = catalogue("classic");
    let mut after = battle(&cat, BattleKind::Land, "3 inf", "3 inf");
    after.attacker_orders.retreat = Some(RetreatOrder::AfterRound(2));
    let log = fight(&after, &[6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6]);
    assert_eq!((log.rounds(), log.outcome), (2, Outcome::AttackerRetreated));

    let mut at_most = battle(&cat, BattleKind::Land, "3 inf", "3 inf");
    at_most.attacker_orders.retreat = Some(RetreatOrder::WhenAtMost(1));
    let log = fight(&at_most, &[6, 6, 6, 1, 2, 6]);
    assert_eq!((log.rounds(), log.outcome), (1, Outcome::AttackerRetreated));
    assert_eq!(log.attacker_left().len(), 1);
}

#[test]
fn an_attacker_with_nowhere_to_withdraw_fights_on_whatever_its_orders_say() {
    let cat = catalogue("classic");
    let mut cornered = battle(&cat, BattleKind::Land, "3 inf", "3 inf");
    cornered.attacker_orders.retreat = Some(RetreatOrder::AfterRound(1));
    cornered.attacker_may_withdraw = false;
    // Round 1 misses all round; round 2 the attack takes all three, who fire back a miss.
    let log = fight(&cornered, &[6, 6, 6, 6, 6, 6, 1, 1, 1, 6, 6, 6]);
    assert_eq!((log.rounds(), log.outcome), (2, Outcome::AttackerWins));

    // Save Air's withdrawal of the aircraft is cancelled the same way.
    let mut air = battle(&cat, BattleKind::Land, "1 inf, 1 ftr", "1 inf");
    air.attacker_may_withdraw = false;
    // INF 6, FTR 6; the defender's 1 takes the infantry; then FTR 3 and the defender 6.
    let log = fight(&air, &[6, 6, 1, 3, 6]);
    assert_eq!((log.rounds(), log.outcome), (2, Outcome::AttackerWins));
    assert_eq!(left(&log, &cat, Side::Attacker), strings(&["FTR"]));
}

#[test]
fn a_two_hit_battleship_takes_the_first_hit_as_damage_and_then_defends_at_three() {
    let cat = catalogue("cutthroat");
    let b = battle(&cat, BattleKind::Sea, "2 sub, 1 ftr", "1 bb, 1 trn");
    // Subs strike first: one hit damages the BB (not the TRN), one misses; the FTR misses.
    // Defender, 1s then 3s: TRN 6, BB (now 3) 3 = hit, a SUB is lost.
    // Round 2: SUB 6, FTR 6; TRN 6, BB 4 (a miss at 3).
    // Round 3: SUB 1 sinks the TRN at once; FTR 1 sinks the BB, which fires back 6.
    let log = fight(
        &b,
        &[
            1, 6, 6, 6, 3, /* r2 */ 6, 6, 6, 4, /* r3 */ 1, 1, 6,
        ],
    );
    let strike = &log.round(0)[0];
    assert_eq!(strike.casualties[0].effect, Effect::Damaged);
    assert_eq!(strike.casualties[0].reason, LossReason::BattleshipAbsorbs);
    let defence = &log.round(0)[2];
    let bb_die = defence
        .dice
        .iter()
        .find(|d| cat.get(d.unit).code == "BB")
        .expect("BB fired");
    assert_eq!(bb_die.to_hit, 3, "a damaged battleship defends at 3");
    let bb_round_two = log.round(1)[2]
        .dice
        .iter()
        .find(|d| cat.get(d.unit).code == "BB")
        .expect("BB fired");
    assert!(!bb_round_two.hit, "a 4 misses at 3");
    assert_eq!(log.outcome, Outcome::AttackerWins);
}

#[test]
fn a_three_hit_battleship_absorbs_two_hits() {
    let cat = catalogue("aap-historical");
    let b = battle(&cat, BattleKind::Sea, "3 sub", "1 bb3, 1 trn");
    // Three sub hits: two damage the BB3, the third sinks the TRN (before the BB3's last
    // hit); the BB3 (now 3) misses. Round 2: one sub hit sinks it, without reply.
    let log = fight(&b, &[1, 1, 1, 6, /* r2 */ 1, 6, 6]);
    let strike = &log.round(0)[0];
    let effects: Vec<(String, Effect)> = strike
        .casualties
        .iter()
        .map(|c| (cat.get(c.unit).code.clone(), c.effect))
        .collect();
    assert_eq!(
        effects,
        vec![
            ("BB3".to_owned(), Effect::Damaged),
            ("TRN".to_owned(), Effect::Removed)
        ]
    );
    assert_eq!(log.rounds(), 2);
    assert_eq!(log.outcome, Outcome::AttackerWins);
}

#[test]
fn a_kamikaze_sinks_a_carrier_but_not_its_fighters_and_only_damages_a_battleship() {
    let cat = catalogue("cutthroat");
    let mut carrier = battle(&cat, BattleKind::Sea, "2 ftr", "1 ac, 2 ftr");
    carrier.kamikaze_target = Some(cat.id("AC").expect("AC"));
    // The kamikaze fighter is gone; the other FTR rolls 6; two defending FTRs roll 1, 6.
    let log = fight(&carrier, &[6, 1, 6]);
    let k = &log.round(0)[0];
    assert_eq!(k.phase, Phase::Kamikaze);
    assert_eq!(
        (
            cat.get(k.casualties[0].unit).code.as_str(),
            k.casualties[0].effect
        ),
        ("AC", Effect::Removed)
    );
    assert_eq!(
        log.round(0)[2].dice.len(),
        2,
        "the carrier's fighters still defend"
    );
    assert_eq!(log.outcome, Outcome::DefenderWins);

    let mut bb = battle(&cat, BattleKind::Sea, "1 ftr, 1 sub", "1 bb");
    bb.kamikaze_target = Some(cat.id("BB").expect("BB"));
    // The kamikaze damages the BB; the sub's first strike sinks it.
    let log = fight(&bb, &[1]);
    assert_eq!(log.round(0)[0].casualties[0].effect, Effect::Damaged);
    assert_eq!(log.outcome, Outcome::AttackerWins);
}

#[test]
fn a_kamikaze_needs_a_fighter_and_a_defending_ship() {
    let cat = catalogue("cutthroat");
    let mut no_fighter = battle(&cat, BattleKind::Sea, "1 sub", "1 bb");
    no_fighter.kamikaze_target = Some(cat.id("BB").expect("BB"));
    assert_eq!(
        resolve(&no_fighter, &mut ScriptedDice::new(&[]))
            .expect_err("no fighter")
            .code,
        "kamikaze-without-fighter"
    );
    let mut no_ship = battle(&cat, BattleKind::Sea, "1 ftr", "1 trn");
    no_ship.kamikaze_target = Some(cat.id("BB").expect("BB"));
    assert_eq!(
        resolve(&no_ship, &mut ScriptedDice::new(&[]))
            .expect_err("no BB")
            .code,
        "kamikaze-target"
    );
}

#[test]
fn submerged_subs_sit_out_the_first_round_and_resurface_in_the_second() {
    let cat = catalogue("cutthroat");
    let mut b = battle(&cat, BattleKind::Sea, "1 bb", "2 sub");
    b.defender_orders.submerge_subs = true;
    // Round 1: nobody to shoot at, nobody shoots back. Round 2: BB 1 (hit), subs 6, 6.
    let log = fight(&b, &[1, 6, 6, /* r3 */ 1, 6]);
    assert!(log.round(0).is_empty(), "no dice in the first round");
    assert_eq!(log.round(1).len(), 2);
    assert_eq!(log.outcome, Outcome::AttackerWins);
}

#[test]
fn heavy_weapons_hits_count_double_against_a_group_of_more_than_twenty() {
    let cat = catalogue("aap-historical");
    let mut b = battle(&cat, BattleKind::Land, "1 art, 1 inf", "21 inf");
    b.heavy_weapons = true;
    b.attacker_orders.retreat = Some(RetreatOrder::AfterRound(2));
    // Round 1: INF 1 (a hit), ART 2 (a hit, doubled against 21): three casualties; the
    // defenders all miss. Round 2: 18 defenders, no doubling any more; everyone misses.
    let mut dice = vec![1, 2];
    dice.extend([6; 21]);
    dice.extend([6, 6]);
    dice.extend([6; 18]);
    let log = fight(&b, &dice);
    assert_eq!(log.round(0)[0].hits, 2);
    assert_eq!(log.round(0)[0].casualties.len(), 3);
    assert_eq!(log.defender_left().len(), 18);
    assert_eq!(log.outcome, Outcome::AttackerRetreated);
}

#[test]
fn heavy_weapons_count_each_defending_nations_group_on_its_own_and_never_the_ccps() {
    // AAP Historical, heavy weapons: a nation's group above 20 counted units is vulnerable;
    // allies' groups are not added together, and the CCP's forces never count.
    let cat = catalogue("aap-historical");
    let inf = cat.id("INF").expect("INF");
    let casualties_of_one_artillery_hit = |groups: Vec<DefendingGroup>, defenders: u32| {
        let mut b = battle(&cat, BattleKind::Land, "1 art", &format!("{defenders} inf"));
        b.heavy_weapons = true;
        b.defender_groups = groups;
        b.attacker_orders.retreat = Some(RetreatOrder::AfterRound(1));
        let mut dice = vec![1];
        dice.extend(std::iter::repeat_n(6, defenders as usize));
        fight(&b, &dice).round(0)[0].casualties.len()
    };
    let group = |n: u32, counts: bool| DefendingGroup {
        units: vec![(inf, n)],
        counts,
    };
    // Two allies of 15 each: 30 on the side, but no group above 20.
    assert_eq!(
        casualties_of_one_artillery_hit(vec![group(15, true), group(15, true)], 30),
        1
    );
    // One nation's 21: vulnerable, and the hit counts twice.
    assert_eq!(
        casualties_of_one_artillery_hit(vec![group(9, true), group(21, true)], 30),
        2
    );
    // The CCP's 25 never count.
    assert_eq!(
        casualties_of_one_artillery_hit(vec![group(25, false), group(5, true)], 30),
        1
    );
}

#[test]
fn without_the_heavy_weapons_option_a_hit_is_one_casualty() {
    let cat = catalogue("aap-historical");
    let mut b = battle(&cat, BattleKind::Land, "1 art", "21 inf");
    b.attacker_orders.retreat = Some(RetreatOrder::AfterRound(1));
    let mut dice = vec![1];
    dice.extend([6; 21]);
    let log = fight(&b, &dice);
    assert_eq!(log.round(0)[0].casualties.len(), 1);
}

#[test]
fn defending_subs_go_first_when_only_aircraft_attack_and_they_cannot_retreat() {
    let cat = catalogue("classic");
    let lost_first = |cannot_retreat: bool, dice: &[u8]| {
        let mut b = battle(&cat, BattleKind::Sea, "2 ftr", "1 trn, 1 sub");
        b.attacker_air_cannot_retreat = cannot_retreat;
        let log = fight(&b, dice);
        cat.get(log.round(0)[0].casualties[0].unit).code.clone()
    };
    // FTR 1 (a hit), FTR 6; the TRN and the casualty fire back and miss. Round 2: FTR 1
    // sinks the TRN, which misses.
    assert_eq!(lost_first(true, &[1, 6, 6, 6, 1, 6, 6]), "SUB");
    // Otherwise the TRN goes first, and the fighters face only a sub: the battle ends.
    assert_eq!(lost_first(false, &[1, 6, 6, 6]), "TRN");
}

#[test]
fn jet_fighters_defend_at_five() {
    let cat = catalogue("classic");
    let mut b = battle(&cat, BattleKind::Land, "1 inf", "1 ftr");
    b.defender_technologies = vec![crate::tech::Technology::JetFighters];
    // The attacker misses; the jet's 5 is a hit.
    let log = fight(&b, &[6, 5]);
    assert_eq!(log.round(0)[1].dice[0].to_hit, 5);
    assert_eq!(log.outcome, Outcome::DefenderWins);
}

#[test]
fn super_submarines_attack_at_three() {
    let cat = catalogue("classic");
    let mut b = battle(&cat, BattleKind::Sea, "1 sub", "1 trn");
    b.attacker_technologies = vec![crate::tech::Technology::SuperSubmarines];
    let log = fight(&b, &[3]);
    assert_eq!(log.round(0)[0].dice[0].to_hit, 3);
    assert_eq!(log.outcome, Outcome::AttackerWins);
}

#[test]
fn heavy_bombers_throw_three_dice_each_when_attacking() {
    let cat = catalogue("classic");
    let mut b = battle(&cat, BattleKind::Land, "1 bmb", "3 inf");
    b.attacker_technologies = vec![crate::tech::Technology::HeavyBombers];
    b.attacker_orders.retreat = Some(RetreatOrder::AfterRound(1));
    // Three bomber dice, two hits; the three defenders fire (casualties too) and miss.
    let log = fight(&b, &[1, 4, 6, 6, 6, 6]);
    assert_eq!(log.round(0)[0].dice.len(), 3);
    assert_eq!(log.round(0)[0].hits, 2);
    assert_eq!(log.defender_left().len(), 1);
}

#[test]
fn a_transport_that_cannot_hit_is_fought_until_it_sinks() {
    let cat = catalogue("classic");
    let b = battle(&cat, BattleKind::Sea, "1 trn", "1 trn");
    // Only the defender rolls; it hits on 1 in the third round.
    let log = fight(&b, &[6, 6, 1]);
    assert_eq!((log.rounds(), log.outcome), (3, Outcome::DefenderWins));
}

#[test]
fn army_lists_parse_and_name_unknown_units() {
    let cat = catalogue("classic");
    assert_eq!(Battle::army(&cat, "3 inf, 1 arm").expect("parses").len(), 2);
    let err = Battle::army(&cat, "2 dragons").expect_err("unknown");
    assert_eq!(err.code, "unknown-unit");
    let err = Battle::army(&cat, "x inf").expect_err("bad count");
    assert_eq!(err.code, "bad-army");
}

mod properties {
    use super::*;
    use crate::dice::GameSeed;
    use proptest::prelude::*;

    fn army(cat: &Catalogue, codes: &[&str], counts: &[u32]) -> Vec<(UnitTypeId, u32)> {
        codes
            .iter()
            .zip(counts)
            .filter(|(_, n)| **n > 0)
            .map(|(code, n)| (cat.id(code).expect("known unit"), *n))
            .collect()
    }

    fn arbitrary_battle() -> impl Strategy<Value = (bool, Vec<u32>, Vec<u32>, [u8; 32], bool)> {
        (
            any::<bool>(),
            prop::collection::vec(0u32..6, 6),
            prop::collection::vec(0u32..6, 6),
            any::<[u8; 32]>(),
            any::<bool>(),
        )
    }

    const LAND: [&str; 6] = ["INF", "ARM", "HARM", "FTR", "BMB", "INF"];
    const SEA: [&str; 6] = ["TRN", "SUB", "FTR", "AC", "BB", "BMB"];

    proptest! {
        #[test]
        fn hits_taken_never_exceed_the_units_present_and_every_battle_ends(
            (land, attack, defend, seed, submerge) in arbitrary_battle()
        ) {
            let cat = catalogue("cutthroat");
            let (kind, codes) = if land { (BattleKind::Land, LAND) } else { (BattleKind::Sea, SEA) };
            let mut b = Battle::new(&cat, kind);
            b.attacker = army(&cat, &codes, &attack);
            b.defender = army(&cat, &codes, &defend);
            b.defender_orders.submerge_subs = submerge;
            prop_assume!(!b.attacker.is_empty());
            let first = resolve(&b, &mut GameSeed::from_bytes(seed).dice_for("p", 1)).expect("resolves");
            let again = resolve(&b, &mut GameSeed::from_bytes(seed).dice_for("p", 1)).expect("resolves");
            prop_assert_eq!(&first, &again, "the same seed gives the same log");
            let start_attackers: u32 = attack.iter().sum();
            let start_defenders: u32 = defend.iter().sum();
            let mut lost = [0u32; 2];
            for volley in first.volleys() {
                let target = usize::from(volley.side == Side::Attacker);
                let killed = volley.casualties.iter().filter(|c| c.effect != Effect::Damaged).count() as u32;
                // Each hit damages a unit, sinks one, or is overkill; never more.
                prop_assert!(volley.casualties.len() as u32 + volley.overkill <= volley.hits);
                lost[target] += killed;
            }
            prop_assert!(lost[0] <= start_attackers && lost[1] <= start_defenders);
            prop_assert_eq!(first.attacker_left().len() as u32 + lost[0], start_attackers);
            prop_assert!(first.rounds() < MAX_ROUNDS as usize, "the battle ended on its own");
        }

        #[test]
        fn a_battle_that_does_not_withdraw_is_fought_the_same_whether_or_not_it_could(
            (land, attack, defend, seed, saac) in arbitrary_battle(),
            retreat in prop::option::of((any::<bool>(), 1u32..4)),
        ) {
            // Recorded games were fought before the attacker's destination was settled up
            // front: those that did not withdraw must replay die for die.
            let cat = catalogue("cutthroat");
            let (kind, codes) = if land { (BattleKind::Land, LAND) } else { (BattleKind::Sea, SEA) };
            let mut b = Battle::new(&cat, kind);
            b.attacker = army(&cat, &codes, &attack);
            b.defender = army(&cat, &codes, &defend);
            b.saac_from_round = saac.then_some(2);
            b.attacker_orders.retreat = retreat.map(|(after, n)| {
                if after { RetreatOrder::AfterRound(n) } else { RetreatOrder::WhenAtMost(n) }
            });
            prop_assume!(!b.attacker.is_empty());
            let free = resolve(&b, &mut GameSeed::from_bytes(seed).dice_for("p", 1)).expect("resolves");
            b.attacker_may_withdraw = false;
            let cornered = resolve(&b, &mut GameSeed::from_bytes(seed).dice_for("p", 1)).expect("resolves");
            prop_assert_ne!(cornered.outcome, Outcome::AttackerRetreated);
            if free.outcome != Outcome::AttackerRetreated {
                prop_assert_eq!(free, cornered);
            }
        }

        #[test]
        fn the_exact_odds_of_any_battle_sum_to_one(
            land in any::<bool>(),
            attack in prop::collection::vec(0u32..3, 6),
            defend in prop::collection::vec(0u32..3, 6),
            submerge in any::<bool>(),
        ) {
            let cat = catalogue("cutthroat");
            let (kind, codes) = if land { (BattleKind::Land, LAND) } else { (BattleKind::Sea, SEA) };
            let mut b = Battle::new(&cat, kind);
            b.attacker = army(&cat, &codes, &attack);
            b.defender = army(&cat, &codes, &defend);
            b.defender_orders.submerge_subs = submerge;
            prop_assume!(!b.attacker.is_empty());
            let odds = exact_odds(&b).expect("odds");
            prop_assert!((odds.total() - 1.0).abs() < 1e-9, "total {}", odds.total());
            let survivors: f64 = odds.attacker_survivors.iter().map(|(_, p)| p).sum();
            prop_assert!((survivors - 1.0).abs() < 1e-9);
        }
    }
}

mod exact {
    use super::*;
    use crate::dice::GameSeed;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn one_infantry_against_one_gives_a_quarter_five_eighths_and_an_eighth() {
        let cat = catalogue("classic");
        let odds = exact_odds(&battle(&cat, BattleKind::Land, "1 inf", "1 inf")).expect("odds");
        assert!(close(odds.attacker_win, 1.0 / 4.0), "{odds:?}");
        assert!(close(odds.defender_win, 5.0 / 8.0), "{odds:?}");
        assert!(close(odds.mutual_destruction, 1.0 / 8.0), "{odds:?}");
        assert!(close(odds.total(), 1.0));
    }

    #[test]
    fn one_armour_against_one_infantry_gives_a_half_and_two_quarters() {
        // Per round: attacker hits 1/2, defender 1/3; the round repeats with 1/3.
        let cat = catalogue("classic");
        let odds = exact_odds(&battle(&cat, BattleKind::Land, "1 arm", "1 inf")).expect("odds");
        assert!(close(odds.attacker_win, 0.5), "{odds:?}");
        assert!(close(odds.defender_win, 0.25), "{odds:?}");
        assert!(close(odds.mutual_destruction, 0.25), "{odds:?}");
    }

    #[test]
    fn a_land_attack_without_orders_switches_to_save_air_at_all_costs_from_round_two() {
        // docs/rule-facts.md: SA is "the land default"; SAAC, "aircraft are never taken as
        // casualties; retreat when only air would be lost (default from round 2)".
        let cat = catalogue("cutthroat");
        let plain = battle(&cat, BattleKind::Land, "2 inf, 1 ftr, 1 bmb", "3 inf");
        let sa_throughout = exact_odds(&plain).expect("odds").attacker_win;
        let iaapa = exact_odds(&plain.clone().with_iaapa_defaults())
            .expect("odds")
            .attacker_win;
        assert!((sa_throughout - 0.638).abs() < 0.0005, "{sa_throughout}");
        assert!((iaapa - 0.487).abs() < 0.0005, "{iaapa}");
        // An attacker's own order stands in every round.
        let mut ordered = plain.clone().with_iaapa_defaults();
        ordered.attacker_orders.combat = Some(CombatOrder::SaveAir);
        let ordered = exact_odds(&ordered).expect("odds").attacker_win;
        assert!(close(ordered, sa_throughout), "{ordered} {sa_throughout}");
    }

    #[test]
    fn an_attacker_with_nowhere_to_withdraw_never_withdraws_in_the_odds_either() {
        let cat = catalogue("cutthroat");
        let mut plain =
            battle(&cat, BattleKind::Land, "2 inf, 1 ftr, 1 bmb", "3 inf").with_iaapa_defaults();
        plain.attacker_orders.retreat = Some(RetreatOrder::WhenAtMost(2));
        let free = exact_odds(&plain).expect("odds");
        assert!(free.attacker_retreated > 0.5, "{free:?}");
        plain.attacker_may_withdraw = false;
        let cornered = exact_odds(&plain).expect("odds");
        assert!(close(cornered.attacker_retreated, 0.0), "{cornered:?}");
        assert!(close(cornered.total(), 1.0), "{cornered:?}");
        assert!(
            cornered.attacker_win > free.attacker_win,
            "{cornered:?} {free:?}"
        );
    }

    #[test]
    fn defending_hits_are_taken_column_by_column_and_submarines_hit_no_aircraft() {
        // Part 13, step 5: "roll for the defending units in the order that they appear on
        // the battle board, from '1s' column onward ... and remove the appropriate type
        // and number of attacking units". The submarines' 2s take the transport first;
        // the carrier's 3s then take fighters.
        let cat = catalogue("cutthroat");
        let plain = battle(&cat, BattleKind::Sea, "1 trn, 2 ftr", "2 sub, 1 ac");
        let all_at_once = exact_odds(&plain).expect("odds").attacker_win;
        let by_column = exact_odds(&plain.clone().with_iaapa_defaults())
            .expect("odds")
            .attacker_win;
        assert!((all_at_once - 0.7026).abs() < 0.00005, "{all_at_once}");
        assert!((by_column - 0.5448).abs() < 0.00005, "{by_column}");
    }

    #[test]
    fn a_defenders_orders_change_the_odds_as_they_should() {
        let cat = catalogue("cutthroat");
        // Losing the tanks first leaves infantry, which defend as well: the same odds of
        // winning, but the defender's survivors are infantry.
        let plain = battle(&cat, BattleKind::Land, "3 inf, 2 arm", "2 inf, 2 arm");
        let mut ordered = plain.clone();
        ordered.defender_orders.order_of_loss = vec![cat.id("ARM").expect("ARM")];
        let (a, b) = (
            exact_odds(&plain).expect("odds"),
            exact_odds(&ordered).expect("odds"),
        );
        assert!(close(a.attacker_win, b.attacker_win), "{a:?} {b:?}");
        let armour_left = |odds: &Odds| -> f64 {
            odds.defender_survivors
                .iter()
                .filter(|(s, _)| s.keys().any(|(u, _)| *u == cat.id("ARM").expect("ARM")))
                .map(|(_, p)| p)
                .sum()
        };
        assert!(armour_left(&b) < armour_left(&a), "{a:?} {b:?}");
        // Submarines that submerge sit out round one: fewer attackers are lost to them.
        let mut submerging = battle(&cat, BattleKind::Sea, "2 ftr, 1 ac", "2 sub, 1 trn");
        let staying = exact_odds(&submerging).expect("odds");
        submerging.defender_orders.submerge_subs = true;
        let hidden = exact_odds(&submerging).expect("odds");
        assert!(close(hidden.total(), 1.0));
        assert!(
            (hidden.attacker_win - staying.attacker_win).abs() > 1e-6,
            "{staying:?} {hidden:?}"
        );
        // A battleship that does not absorb the first hit: the transport is kept and the
        // battleship lost sooner, so the defender wins less often.
        let mut absorbing = battle(&cat, BattleKind::Sea, "2 sub, 1 ftr", "1 bb, 1 trn");
        let with_absorb = exact_odds(&absorbing).expect("odds");
        absorbing.defender_orders.battleships_absorb = Some(false);
        let without = exact_odds(&absorbing).expect("odds");
        assert!(
            without.defender_win < with_absorb.defender_win,
            "{with_absorb:?} {without:?}"
        );
    }

    #[test]
    fn the_survivor_distribution_adds_up_to_the_outcomes() {
        let cat = catalogue("classic");
        let odds =
            exact_odds(&battle(&cat, BattleKind::Land, "3 inf, 1 arm", "2 inf")).expect("odds");
        let attacker_total: f64 = odds.attacker_survivors.iter().map(|(_, p)| p).sum();
        assert!(close(attacker_total, 1.0));
        let none: f64 = odds
            .attacker_survivors
            .iter()
            .filter(|(s, _)| s.is_empty())
            .map(|(_, p)| p)
            .sum();
        assert!(close(none, odds.defender_win + odds.mutual_destruction));
    }

    /// The battles the engine and the calculator are compared on, land and sea.
    fn comparison_battles(cat: &Catalogue) -> Vec<(&'static str, Battle<'_>)> {
        let mut list = vec![
            (
                "3 inf, 1 arm vs 2 inf",
                battle(cat, BattleKind::Land, "3 inf, 1 arm", "2 inf"),
            ),
            (
                "2 inf, 2 ftr vs 3 inf, aa",
                battle(cat, BattleKind::Land, "2 inf, 2 ftr", "3 inf, 1 aa"),
            ),
            (
                "4 inf, 1 harm vs 3 inf, 1 arm",
                battle(cat, BattleKind::Land, "4 inf, 1 harm", "3 inf, 1 arm"),
            ),
            (
                "1 sub, 1 bb vs 1 bb, 1 trn",
                battle(cat, BattleKind::Sea, "1 sub, 1 bb", "1 bb, 1 trn"),
            ),
            (
                "2 ftr, 1 sub vs 1 ac, 1 ftr",
                battle(cat, BattleKind::Sea, "2 ftr, 1 sub", "1 ac, 1 ftr"),
            ),
            (
                "2 sub, 1 trn vs 2 sub",
                battle(cat, BattleKind::Sea, "2 sub, 1 trn", "2 sub"),
            ),
        ];
        let mut amphibious = battle(cat, BattleKind::Land, "3 inf", "2 inf");
        amphibious.support_shots = 1;
        list.push(("3 inf + bb support vs 2 inf", amphibious));
        let mut taac = battle(cat, BattleKind::Land, "2 inf, 2 ftr", "3 inf");
        taac.attacker_orders.combat = Some(CombatOrder::TakeAtAllCosts);
        list.push(("TAAC 2 inf, 2 ftr vs 3 inf", taac));
        let mut retreat = battle(cat, BattleKind::Land, "3 inf", "3 inf");
        retreat.attacker_orders.retreat = Some(RetreatOrder::AfterRound(2));
        list.push(("3 inf vs 3 inf, retreat after 2", retreat));
        let mut weapons = battle(cat, BattleKind::Land, "2 inf, 1 bmb", "2 inf, 1 ftr");
        weapons.attacker_technologies = vec![crate::tech::Technology::HeavyBombers];
        weapons.defender_technologies = vec![crate::tech::Technology::JetFighters];
        list.push(("heavy bomber vs jet fighter", weapons));
        let mut lose_armour = battle(cat, BattleKind::Land, "3 inf, 2 arm", "2 inf, 2 arm");
        lose_armour.defender_orders.order_of_loss = vec![cat.id("ARM").expect("ARM")];
        list.push(("defender's order of loss", lose_armour));
        let mut submerging = battle(cat, BattleKind::Sea, "2 ftr, 1 ac", "2 sub, 1 trn");
        submerging.defender_orders.submerge_subs = true;
        list.push(("defending submarines submerge", submerging));
        let mut no_absorb = battle(cat, BattleKind::Sea, "2 sub, 1 ftr", "1 bb, 1 trn");
        no_absorb.defender_orders.battleships_absorb = Some(false);
        list.push(("battleship does not absorb", no_absorb));
        list.push((
            "IAAPA defaults: SAAC from round 2",
            battle(cat, BattleKind::Land, "2 inf, 1 ftr, 1 bmb", "3 inf").with_iaapa_defaults(),
        ));
        list.push((
            "IAAPA defaults: defending columns with submarines",
            battle(
                cat,
                BattleKind::Sea,
                "1 trn, 2 ftr, 1 bb",
                "2 sub, 1 ac, 1 trn",
            )
            .with_iaapa_defaults(),
        ));
        list
    }

    #[test]
    fn the_engines_frequencies_over_100000_battles_agree_with_the_exact_odds() {
        const N: u32 = 100_000;
        let cat = catalogue("cutthroat");
        let seed = GameSeed::from_bytes([42; 32]);
        for (name, b) in comparison_battles(&cat) {
            let odds = exact_odds(&b).expect("odds");
            assert!(close(odds.total(), 1.0), "{name}: total {}", odds.total());
            let mut counts = [0u32; 7];
            for i in 0..N {
                let log = resolve(&b, &mut seed.dice_for(name, u64::from(i))).expect("resolves");
                let slot = match log.outcome {
                    Outcome::AttackerWins => 0,
                    Outcome::DefenderWins => 1,
                    Outcome::MutualDestruction => 2,
                    Outcome::AttackerRetreated => 3,
                    Outcome::Disengaged => 4,
                    Outcome::WalkedIn => 5,
                    Outcome::AttackerBlendedIn | Outcome::DefenderBlendedIn => 6,
                };
                counts[slot] += 1;
            }
            let exact = [
                odds.attacker_win,
                odds.defender_win,
                odds.mutual_destruction,
                odds.attacker_retreated,
                odds.disengaged,
                odds.walked_in,
                odds.blended_in,
            ];
            for (slot, p) in exact.iter().enumerate() {
                let frequency = f64::from(counts[slot]) / f64::from(N);
                let standard_error = (p * (1.0 - p) / f64::from(N)).sqrt().max(1e-9);
                assert!(
                    (frequency - p).abs() <= 4.0 * standard_error,
                    "{name}: outcome {slot}: engine {frequency:.5}, exact {p:.5} (4 SE = {:.5})",
                    4.0 * standard_error
                );
            }
        }
    }
}

#[test]
fn artillery_lifts_one_attacking_infantry_each_to_two() {
    let cat = catalogue("aap-historical");
    let mut b = battle(&cat, BattleKind::Land, "1 art, 2 inf", "3 inf");
    b.attacker_orders.retreat = Some(RetreatOrder::AfterRound(1));
    // Column 1: the unsupported infantry rolls 2, a miss. Column 2: the supported infantry
    // and the artillery roll 2 and 2, two hits. The three defenders miss.
    let log = fight(&b, &[2, 2, 2, 6, 6, 6]);
    let attacker_hits: u32 = log
        .round(0)
        .iter()
        .filter(|v| v.side == Side::Attacker)
        .map(|v| v.hits)
        .sum();
    assert_eq!(attacker_hits, 2, "{:?}", log.round(0));
    assert_eq!(log.defender_left().len(), 1);
    // Without artillery, the same dice hit nothing: infantry attacks at 1.
    let mut plain = battle(&cat, BattleKind::Land, "3 inf", "3 inf");
    plain.attacker_orders.retreat = Some(RetreatOrder::AfterRound(1));
    let log = fight(&plain, &[2, 2, 2, 6, 6, 6]);
    assert_eq!(log.defender_left().len(), 3);
}

#[test]
fn an_aap_submarines_hit_never_falls_on_a_submarine() {
    let cat = catalogue("aap-historical");
    let mut b = battle(&cat, BattleKind::Sea, "1 sub", "1 sub, 1 des");
    b.attacker_orders.retreat = Some(RetreatOrder::AfterRound(1));
    // The attacking sub hits first (1): the destroyer goes, though the sub is first to be
    // lost, and does not fire back; the defending sub misses (6).
    let log = fight(&b, &[1, 6]);
    let lost: Vec<&str> = log.round(0)[0]
        .casualties
        .iter()
        .map(|c| cat.get(c.unit).code.as_str())
        .collect();
    assert_eq!(lost, ["DES"]);
    // In Classic the same hit takes the submarine.
    let classic = catalogue("classic");
    let mut b = battle(&classic, BattleKind::Sea, "1 sub", "1 sub, 1 bb");
    b.attacker_orders.retreat = Some(RetreatOrder::AfterRound(1));
    let log = fight(&b, &[1, 6]);
    assert_eq!(classic.get(log.round(0)[0].casualties[0].unit).code, "SUB");
}
