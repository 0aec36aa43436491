//! No dice oracle (issue 39): a refused batch must never tell a player how a battle would
//! have gone. The same batch of orders, decided on the same game under two different seeds,
//! may differ only in what is on the record (an appended die and its consequences), never
//! in a refusal alone: a whole refusal depends on the board, not on the dice.
//!
//! Positions come from sample games played at random up to a moment where dice-bearing
//! orders are possible (Cut-Throat and AAP at a battle, at repairs or weapons development;
//! a War game anywhere); batches mix random orders, played in turn on the state the earlier
//! ones left, with dice-bearing orders and orders that are often illegal after them.

use std::mem::discriminant;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use warlog_events::game::{GameLog, GameStreamEvent};
use warlog_events::orders::{Command, Decided, DiceSupply, OrdersGiven, Refusal};
use warlog_events::sample::{SampleGame, GAME_MASTER};
use warlog_events::sender::{Role, Sender};
use warlog_rules::board::{Power, TerritoryId};
use warlog_rules::dice::GameSeed;
use warlog_rules::game::autoplay::{chooser, random_order};
use warlog_rules::game::combat::BattleOrders;
use warlog_rules::game::named::NamedOrder;
use warlog_rules::game::replay::dice_rolled;
use warlog_rules::game::{Moment, Order, Phase};
use warlog_rules::ruleset::Ruleset;

fn cases() -> u32 {
    std::env::var("WARLOG_PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(64)
}

/// Where the batch is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Cut-Throat, the Battles phase with a battle pending.
    CutThroatBattle,
    /// Cut-Throat, repairs or weapons development (war loans, repairs, research).
    CutThroatDevelopment,
    /// AAP (historical): a battle, guerrillas and all.
    AapBattle,
    /// War: dice on many orders, at any moment.
    War,
}

impl Kind {
    fn ruleset(self) -> &'static Ruleset {
        let id = match self {
            Kind::CutThroatBattle | Kind::CutThroatDevelopment => "cutthroat",
            Kind::AapBattle => "aap-historical",
            Kind::War => "war",
        };
        Ruleset::builtin(id).expect("a built-in ruleset")
    }

    fn fits(self, log: &GameLog) -> bool {
        let state = &log.state;
        match self {
            Kind::CutThroatBattle | Kind::AapBattle => {
                state.phase == Phase::Battles && !state.contested.is_empty()
            }
            Kind::CutThroatDevelopment => {
                matches!(state.phase, Phase::Repairs | Phase::WeaponsDevelopment)
            }
            Kind::War => true,
        }
    }
}

/// One generated case: a position, a batch drawn from `numbers`, two seeds.
#[derive(Debug, Clone)]
struct Case {
    kind: Kind,
    game_seed: [u8; 32],
    /// The sample game's own random player.
    choice: u64,
    /// Which fitting moment of the game (the n-th), or for War the number of orders played.
    moment: usize,
    /// The batch's choices.
    numbers: Vec<u32>,
    a: [u8; 32],
    b: [u8; 32],
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop_oneof![
            3 => Just(Kind::CutThroatBattle),
            2 => Just(Kind::CutThroatDevelopment),
            2 => Just(Kind::AapBattle),
            2 => Just(Kind::War),
        ],
        any::<[u8; 32]>(),
        any::<u64>(),
        0usize..6,
        prop::collection::vec(any::<u32>(), 32..128),
        any::<[u8; 32]>(),
        any::<[u8; 32]>(),
    )
        .prop_filter("two different seeds", |(_, _, _, _, _, a, b)| a != b)
        .prop_map(|(kind, game_seed, choice, moment, numbers, a, b)| Case {
            kind,
            game_seed,
            choice,
            moment,
            numbers,
            a,
            b,
        })
}

/// Random play up to the case's moment: the n-th that fits (the last one seen if the game
/// ends or the tries run out first); for War, after `40 * moment` orders.
fn position(case: &Case) -> Option<GameLog> {
    let mut game = SampleGame::new(
        case.kind.ruleset(),
        "no-dice-oracle",
        GameSeed::from_bytes(case.game_seed),
        case.choice,
    );
    if case.kind == Kind::War {
        for _ in 0..40 * case.moment {
            if game.log.state.ended.is_some() {
                break;
            }
            game.play_random_order();
        }
        return Some(game.log);
    }
    let mut seen = 0;
    let mut last = None;
    for _ in 0..4_000 {
        if game.log.state.ended.is_some() {
            break;
        }
        if case.kind.fits(&game.log) {
            if seen == case.moment {
                return Some(game.log);
            }
            seen += 1;
            last = Some(game.log.clone());
        }
        game.play_random_order();
    }
    last
}

fn sender_for(log: &GameLog, power: Power) -> Sender {
    match log.state.seats.get(&power) {
        Some(seat) => Sender {
            role: Role::Player,
            name: seat.player.clone(),
        },
        None => Sender {
            role: Role::Gm,
            name: GAME_MASTER.into(),
        },
    }
}

fn command(log: &GameLog, power: Power, orders: Vec<NamedOrder>) -> OrdersGiven {
    OrdersGiven::new(
        sender_for(log, power),
        log.version,
        Moment::from_unix_seconds(1_900_000_000),
        Command::Orders { power, orders },
    )
}

/// Orders that roll dice if the state allows it: what a player would send now to roll (a
/// pending battle, a loan, a repair, research; in War the start zones, the initiative, the
/// reinforcements, an attack). `accepted` says whether the state allows an order.
fn dice_orders(
    log: &GameLog,
    power: Power,
    choose: &mut dyn FnMut(usize) -> usize,
    accepted: &dyn Fn(&Order) -> bool,
) -> Option<Vec<Order>> {
    let rules = log.ruleset.rules();
    let board = rules.board;
    let state = &log.state;
    let own_stacks = || -> Vec<(TerritoryId, warlog_rules::units::UnitTypeId, u32, u8)> {
        board
            .territories()
            .flat_map(|(t, _)| {
                state.forces[t.index()]
                    .iter()
                    .filter(|((owner, _, _), n)| *owner == power && **n > 0)
                    .map(move |((_, unit, damage), n)| (t, *unit, *n, *damage))
            })
            .collect()
    };
    if rules.special.war.is_some() {
        // The rolls, research, and attacks (a stack into a neighbour its power does not
        // hold, where a battle or a parley rolls): those the state allows.
        let mut attacks: Vec<Order> = own_stacks()
            .into_iter()
            .flat_map(|(from, unit, n, _)| {
                board
                    .neighbours(from)
                    .iter()
                    .filter(|to| state.holder[to.index()] != Some(power))
                    .map(move |to| Order::Move {
                        units: vec![(unit, n)],
                        path: vec![from, *to],
                    })
            })
            .collect();
        let attacks: Vec<Order> = (0..attacks.len().min(6))
            .map(|_| attacks.swap_remove(choose(attacks.len())))
            .collect();
        let mut allowed: Vec<Order> = [
            Order::RollStartZones,
            Order::RollInitiative,
            Order::RollReinforcements,
            Order::DevelopWeapons(1 + choose(2) as u32),
        ]
        .into_iter()
        .chain(attacks)
        .filter(accepted)
        .collect();
        return (!allowed.is_empty()).then(|| vec![allowed.swap_remove(choose(allowed.len()))]);
    }
    match state.phase {
        Phase::Battles => {
            let pending = state.battles_to_fight(rules, power);
            let place = *pending.get(choose(pending.len().max(1)))?;
            if choose(8) == 0 {
                return Some(vec![Order::SuppressGuerrillas { territory: place }]);
            }
            let mut battle = BattleOrders::at(place);
            battle.bombing_raid = choose(5) == 0;
            Some(vec![Order::FightBattle(battle)])
        }
        Phase::Repairs => {
            // A repair or a loan if either is allowed; else on to research.
            let mut allowed: Vec<Order> = own_stacks()
                .into_iter()
                .filter(|(t, _, _, damage)| *damage > 0 && board.get(*t).sea)
                .map(|(sea_zone, _, _, _)| Order::RepairBattleship { sea_zone })
                .chain([Order::ApplyForWarLoan])
                .filter(accepted)
                .collect();
            Some(if allowed.is_empty() {
                vec![Order::EndPhase, Order::DevelopWeapons(1 + choose(3) as u32)]
            } else {
                vec![allowed.swap_remove(choose(allowed.len()))]
            })
        }
        Phase::WeaponsDevelopment => Some(vec![Order::DevelopWeapons(1 + choose(3) as u32)]),
        _ => None,
    }
}

/// A batch of 2 to 8 orders for one power: random orders played in turn (under seed `a`)
/// on the state the earlier ones left, mixed with dice-bearing orders and orders often
/// illegal after them (a move into the place just fought over, a purchase, a phase's end).
fn batch(log: &GameLog, a: &GameSeed, numbers: &[u32]) -> (Power, Vec<NamedOrder>) {
    let ruleset = log.ruleset;
    let rules = ruleset.rules();
    let board = rules.board;
    let catalogue = rules.catalogue;
    let mut choose = chooser(numbers);
    // War: whoever may order now (the reinforcer, anyone for a roll); else the power to move.
    let (mover, _) = random_order(rules, &log.state, &mut choose);
    let power = if rules.special.war.is_some() {
        mover
    } else {
        log.state.power(board)
    };
    let places: Vec<TerritoryId> = board.territories().map(|(id, _)| id).collect();
    let seas: Vec<TerritoryId> = board
        .territories()
        .filter(|(_, t)| t.sea)
        .map(|(id, _)| id)
        .collect();
    let infantry = catalogue
        .id("INF")
        .unwrap_or_else(|_| catalogue.units().next().expect("a unit").0);
    let mut fought: Vec<TerritoryId> = log.state.contested.keys().copied().collect();
    let alone =
        |sim: &GameLog, order: &Order| command(sim, power, vec![NamedOrder::of(order, ruleset)]);
    let mut sim = log.clone();
    let len = 2 + choose(7);
    let mut orders = Vec::with_capacity(len);
    while orders.len() < len {
        let first = orders.is_empty();
        let state = &sim.state;
        let somewhere = |choose: &mut dyn FnMut(usize) -> usize| places[choose(places.len())];
        // The first order mostly one a player would send (so that many batches roll dice
        // before an illegal order), the others anything.
        let picked = match choose(if first { 14 } else { 20 }) {
            // A player who knows the rules: a random order the state so far allows, if one
            // of a few does (decided alone under seed `a`: under `b` it may not be).
            0..=7 => {
                let mut tried = random_order(rules, state, &mut choose).1;
                for _ in 0..8 {
                    if sim
                        .decide_command(&alone(&sim, &tried), DiceSupply::Seed(a))
                        .is_ok()
                    {
                        break;
                    }
                    tried = random_order(rules, state, &mut choose).1;
                }
                vec![tried]
            }
            8..=13 => {
                let accepted = |order: &Order| {
                    sim.decide_command(&alone(&sim, order), DiceSupply::Seed(a))
                        .is_ok()
                };
                match dice_orders(&sim, power, &mut choose, &accepted) {
                    Some(orders) => orders,
                    None => vec![random_order(rules, state, &mut choose).1],
                }
            }
            // Often illegal, or dice-bearing out of place.
            slot => vec![match slot {
                14 => {
                    let contested: Vec<TerritoryId> = state.contested.keys().copied().collect();
                    let place = if !contested.is_empty() {
                        contested[choose(contested.len())]
                    } else if !fought.is_empty() {
                        fought[choose(fought.len())]
                    } else {
                        somewhere(&mut choose)
                    };
                    let mut battle = BattleOrders::at(place);
                    battle.bombing_raid = choose(5) == 0;
                    Order::FightBattle(battle)
                }
                15 => {
                    let place = fought
                        .last()
                        .copied()
                        .unwrap_or_else(|| somewhere(&mut choose));
                    let stacks: Vec<(TerritoryId, _)> = board
                        .neighbours(place)
                        .iter()
                        .flat_map(|from| {
                            state.forces[from.index()]
                                .keys()
                                .filter(|(owner, _, _)| *owner == power)
                                .map(move |(_, unit, _)| (*from, *unit))
                        })
                        .collect();
                    if stacks.is_empty() {
                        Order::EndPhase
                    } else {
                        let (from, unit) = stacks[choose(stacks.len())];
                        Order::Move {
                            units: vec![(unit, 1)],
                            path: vec![from, place],
                        }
                    }
                }
                16 => Order::Purchase(vec![(infantry, 1)]),
                17 => Order::EndPhase,
                18 if choose(2) == 0 => Order::DevelopWeapons(1 + choose(2) as u32),
                18 => Order::ApplyForWarLoan,
                19 if choose(3) == 0 => Order::RepairBattleship {
                    sea_zone: seas[choose(seas.len())],
                },
                19 if choose(2) == 0 => Order::SuppressGuerrillas {
                    territory: fought
                        .last()
                        .copied()
                        .unwrap_or_else(|| somewhere(&mut choose)),
                },
                19 if choose(2) == 0 => {
                    let from = somewhere(&mut choose);
                    let next = board.neighbours(from);
                    Order::FireRocket {
                        from,
                        target: next[choose(next.len())],
                    }
                }
                _ => Order::Place {
                    territory: board
                        .capital(power)
                        .unwrap_or_else(|| somewhere(&mut choose)),
                    units: vec![(infantry, 1)],
                },
            }],
        };
        for order in picked.into_iter().take(len - orders.len()) {
            if let Order::FightBattle(battle) = &order {
                fought.push(battle.territory);
            }
            if let Ok(decided) = sim.decide_command(&alone(&sim, &order), DiceSupply::Seed(a)) {
                sim = decided.after;
            }
            orders.push(NamedOrder::of(&order, ruleset));
        }
    }
    (power, orders)
}

/// What a case showed, for the tally.
#[derive(Debug, Default, Clone, Copy)]
struct Seen {
    /// The batch holds an order that rolled dice (an appended die, under either seed).
    dice: bool,
    /// Either answer was cut off after a die.
    cut_off: bool,
    /// Refused whole under both seeds.
    refused: bool,
    /// The answers differ (on the record).
    differ: bool,
}

fn has_die(event: &GameStreamEvent) -> bool {
    matches!(event, GameStreamEvent::Played(played) if !dice_rolled(played).is_empty())
}

fn first_die(events: &[GameStreamEvent]) -> Option<usize> {
    events.iter().position(has_die)
}

/// The kind of an event: the stream event's, and the game event's within.
fn same_kind(x: &GameStreamEvent, y: &GameStreamEvent) -> bool {
    match (x, y) {
        (GameStreamEvent::Played(x), GameStreamEvent::Played(y)) => {
            discriminant(x) == discriminant(y)
        }
        _ => discriminant(x) == discriminant(y),
    }
}

/// The record as sent: every order, no cut-off.
fn as_sent(event: &GameStreamEvent) -> Result<OrdersGiven, TestCaseError> {
    let GameStreamEvent::Orders(record) = event else {
        return Err(TestCaseError::fail(format!(
            "the record comes first, not {event:?}"
        )));
    };
    let Command::Orders { power, .. } = &record.command else {
        return Err(TestCaseError::fail("a record of orders"));
    };
    Ok(OrdersGiven {
        command: Command::Orders {
            power: *power,
            orders: record.orders_sent().into_iter().cloned().collect(),
        },
        cut_off: None,
        ..record.clone()
    })
}

/// An answer's own consistency: the record says what was carried out and what was cut off,
/// and a cut-off comes only after a die on the record.
fn check_answer(given: &OrdersGiven, seed: &str, decided: &Decided) -> Result<(), TestCaseError> {
    let sent: Vec<&NamedOrder> = given.orders_sent();
    let GameStreamEvent::Orders(record) = &decided.events[0] else {
        return Err(TestCaseError::fail("the record comes first"));
    };
    prop_assert_eq!(
        &as_sent(&decided.events[0])?,
        given,
        "seed {}: the record",
        seed
    );
    let Command::Orders { orders: kept, .. } = &record.command else {
        return Err(TestCaseError::fail("a record of orders"));
    };
    match &decided.cut_off {
        None => {
            prop_assert!(
                record.cut_off.is_none(),
                "seed {seed}: a cut-off on the record only"
            );
            prop_assert_eq!(kept.len(), sent.len());
        }
        Some(cut) => {
            prop_assert!(
                cut.rolled_by < cut.index,
                "seed {seed}: cut off at orders[{}] but first rolled by orders[{}]",
                cut.index,
                cut.rolled_by
            );
            prop_assert!(
                decided.events[1..].iter().any(has_die),
                "seed {seed}: cut off at orders[{}] ({}) with no die on the record: {:?}",
                cut.index,
                cut.violation.message,
                decided.events
            );
            prop_assert_eq!(cut.not_decided, sent.len() - cut.index - 1);
            prop_assert_eq!(kept.len(), cut.index, "seed {}: the orders kept", seed);
            let on_record = record.cut_off.as_ref();
            prop_assert!(
                on_record.is_some(),
                "seed {seed}: the record lacks the cut-off"
            );
            let on_record = on_record.expect("checked");
            prop_assert_eq!(&on_record.order, sent[cut.index]);
            prop_assert_eq!(on_record.code, cut.violation.code);
        }
    }
    Ok(())
}

/// Whether the prefix `orders[..i]` of `given` appends a die on `log` under `seed`.
fn prefix_rolls(log: &GameLog, given: &OrdersGiven, i: usize, seed: &GameSeed) -> bool {
    let Command::Orders { power, orders } = &given.command else {
        return false;
    };
    if i == 0 {
        return false;
    }
    let prefix = OrdersGiven::new(
        given.sender.clone(),
        given.expected_version,
        given.at,
        Command::Orders {
            power: *power,
            orders: orders[..i].to_vec(),
        },
    );
    log.decide_command(&prefix, DiceSupply::Seed(seed))
        .map(|d| d.events.iter().any(has_die))
        .unwrap_or(false)
}

/// The property, on one case.
fn check(case: &Case) -> Result<Seen, TestCaseError> {
    let Some(log) = position(case) else {
        return Err(TestCaseError::reject("no fitting moment in this game"));
    };
    let (a, b) = (GameSeed::from_bytes(case.a), GameSeed::from_bytes(case.b));
    let (power, orders) = batch(&log, &a, &case.numbers);
    let given = command(&log, power, orders);
    let answer_a = log.decide_command(&given, DiceSupply::Seed(&a));
    let answer_b = log.decide_command(&given, DiceSupply::Seed(&b));
    let mut seen = Seen::default();
    match (&answer_a, &answer_b) {
        (Err(ra), Err(rb)) => {
            prop_assert_eq!(
                ra.to_string(),
                rb.to_string(),
                "the same batch refused differently under two seeds: {:?}",
                given.orders_sent()
            );
            prop_assert_eq!(ra, rb);
            // A whole refusal at orders[i] follows no order that rolled dice: it would be
            // a refusal after a die (equal under these two seeds only by chance).
            if let Refusal::Rule { at, .. } = ra {
                let index = at
                    .strip_prefix("orders[")
                    .and_then(|rest| rest.strip_suffix(']'))
                    .and_then(|i| i.parse::<usize>().ok());
                if let Some(i) = index {
                    prop_assert!(
                        !prefix_rolls(&log, &given, i, &a),
                        "refused whole at orders[{i}] ({ra}) after an order that rolls dice: {:?}",
                        given.orders_sent()
                    );
                }
            }
            seen.refused = true;
        }
        (Ok(_), Err(refusal)) | (Err(refusal), Ok(_)) => {
            return Err(TestCaseError::fail(format!(
                "accepted under one seed, refused whole under the other ({refusal}): {:?}",
                given.orders_sent()
            )));
        }
        (Ok(da), Ok(db)) => {
            check_answer(&given, "a", da)?;
            check_answer(&given, "b", db)?;
            let (ea, eb) = (&da.events, &db.events);
            let ka = first_die(ea);
            let kb = first_die(eb);
            seen.dice = ka.is_some() || kb.is_some();
            seen.cut_off = da.cut_off.is_some() || db.cut_off.is_some();
            seen.differ = ea != eb;
            prop_assert_eq!(as_sent(&ea[0])?, as_sent(&eb[0])?);
            // Which order rolled first depends on the board alone.
            if let (Some(cut_a), Some(cut_b)) = (&da.cut_off, &db.cut_off) {
                prop_assert_eq!(cut_a.rolled_by, cut_b.rolled_by);
            }
            let k = ka.unwrap_or(ea.len()).min(kb.unwrap_or(eb.len()));
            for i in 1..k {
                prop_assert_eq!(
                    &ea[i],
                    &eb[i],
                    "event {} differs before any die: {:?}",
                    i,
                    given.orders_sent()
                );
            }
            if seen.dice {
                prop_assert!(
                    k < ea.len() && k < eb.len(),
                    "a die under one seed at event {k}, no event there under the other"
                );
                prop_assert!(
                    same_kind(&ea[k], &eb[k]),
                    "the first die's event differs in kind: {:?} / {:?}",
                    ea[k],
                    eb[k]
                );
                prop_assert!(
                    has_die(&ea[k]) && has_die(&eb[k]),
                    "a die rolled under one seed only, at event {}: {:?} / {:?}",
                    k,
                    ea[k],
                    eb[k]
                );
            } else {
                prop_assert_eq!(ea, eb, "no die, yet the answers differ");
                prop_assert_eq!(&da.cut_off, &db.cut_off);
                prop_assert!(da.cut_off.is_none(), "cut off with no die");
                prop_assert_eq!(&da.after.state, &db.after.state);
            }
        }
    }
    Ok(seen)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn whatever_two_seeds_change_in_the_answer_to_a_batch_is_on_the_record(case in case()) {
        check(&case)?;
    }
}

#[test]
fn the_generated_batches_roll_dice_and_are_cut_off_and_refused_whole() {
    let mut runner = TestRunner::deterministic();
    let strategy = case();
    // Per kind of position: cases, appended dice, cut-offs, whole refusals, differences.
    let mut tally: std::collections::BTreeMap<String, [usize; 5]> = Default::default();
    for _ in 0..cases().max(96) {
        let case = strategy.new_tree(&mut runner).expect("a case").current();
        let seen = match check(&case) {
            Ok(seen) => seen,
            Err(TestCaseError::Reject(_)) => continue,
            Err(failed) => panic!("{failed}\n{case:?}"),
        };
        let row = tally.entry(format!("{:?}", case.kind)).or_default();
        for (count, yes) in
            row.iter_mut()
                .zip([true, seen.dice, seen.cut_off, seen.refused, seen.differ])
        {
            *count += usize::from(yes);
        }
    }
    let total = |column: usize| tally.values().map(|row| row[column]).sum::<usize>();
    eprintln!("cases, appended dice, cut off, refused whole, differed between the seeds:");
    for (kind, row) in &tally {
        eprintln!("  {kind}: {row:?}");
    }
    let (dice, cut_off, refused, differ) = (total(1), total(2), total(3), total(4));
    assert!(dice > 0, "no case rolled a die");
    assert!(cut_off > 0, "no case was cut off");
    assert!(refused > 0, "no case was refused whole");
    assert!(differ > 0, "no case differed between the seeds");
}

/// A Cut-Throat game played at random until the power to move has a battle to fight: the
/// game and the place.
fn at_a_battle() -> (GameLog, TerritoryId) {
    for choice in 1..40 {
        let mut game = SampleGame::new(
            Kind::CutThroatBattle.ruleset(),
            "no-dice-oracle",
            GameSeed::from_bytes([5; 32]),
            choice,
        );
        for _ in 0..4_000 {
            let log = &game.log;
            if log.state.ended.is_some() {
                break;
            }
            if log.state.phase == Phase::Battles {
                let rules = log.ruleset.rules();
                let power = log.state.power(rules.board);
                if let Some(&place) = log.state.battles_to_fight(rules, power).first() {
                    return (game.log, place);
                }
            }
            game.play_random_order();
        }
    }
    panic!("random play never reached a battle");
}

#[test]
fn a_purchase_after_a_battle_is_cut_off_under_every_seed_and_one_before_it_refuses_the_batch_whole()
{
    let (log, place) = at_a_battle();
    let ruleset = log.ruleset;
    let power = log.state.power(&ruleset.board);
    let fight = NamedOrder::of(&Order::FightBattle(BattleOrders::at(place)), ruleset);
    let infantry = ruleset.catalogue.id("INF").expect("infantry");
    let purchase = NamedOrder::of(&Order::Purchase(vec![(infantry, 1)]), ruleset);
    let seeds: Vec<GameSeed> = (0u8..20)
        .map(|s| GameSeed::from_bytes([s.wrapping_mul(37).wrapping_add(1); 32]))
        .collect();

    let after = command(&log, power, vec![fight.clone(), purchase.clone()]);
    for (s, seed) in seeds.iter().enumerate() {
        let decided = log
            .decide_command(&after, DiceSupply::Seed(seed))
            .unwrap_or_else(|r| panic!("seed {s}: refused whole after the battle: {r}"));
        let cut = decided.cut_off.as_ref().expect("the purchase is cut off");
        assert_eq!(
            (cut.index, cut.rolled_by, cut.not_decided),
            (1, 0, 0),
            "seed {s}"
        );
        let GameStreamEvent::Orders(record) = &decided.events[0] else {
            panic!("the record first")
        };
        assert!(
            matches!(&record.command, Command::Orders { orders, .. } if orders == &vec![fight.clone()]),
            "seed {s}: the battle is carried out"
        );
        assert_eq!(
            record.cut_off.as_ref().map(|c| &c.order),
            Some(&purchase),
            "seed {s}: the record keeps the purchase"
        );
        assert!(
            decided.events[1..].iter().any(|e| matches!(
                e,
                GameStreamEvent::Played(played) if played.is_battle() && !dice_rolled(played).is_empty()
            )),
            "seed {s}: the battle and its dice are on the record: {:?}",
            decided.events
        );
    }

    let before = command(&log, power, vec![purchase, fight]);
    let refusals: Vec<String> = seeds
        .iter()
        .map(|seed| {
            log.decide_command(&before, DiceSupply::Seed(seed))
                .expect_err("refused whole")
                .to_string()
        })
        .collect();
    assert!(refusals[0].starts_with("orders[0]: "), "{}", refusals[0]);
    assert!(refusals.iter().all(|r| r == &refusals[0]), "{refusals:#?}");
}

/// An AAP game played at random until the power to move may roll to suppress the
/// guerrillas in a place it fights for: the game and the place.
fn at_a_suppression() -> (SampleGame, TerritoryId) {
    let ruleset = Kind::AapBattle.ruleset();
    for choice in 1..60 {
        let mut game = SampleGame::new(
            ruleset,
            "no-dice-oracle",
            GameSeed::from_bytes([4; 32]),
            choice,
        );
        for _ in 0..3_000 {
            let log = &game.log;
            if log.state.ended.is_some() {
                break;
            }
            if log.state.phase == Phase::Battles {
                let power = log.state.power(&ruleset.board);
                for place in log.state.battles_to_fight(ruleset.rules(), power) {
                    let suppress = Order::SuppressGuerrillas { territory: place };
                    let given = command(log, power, vec![NamedOrder::of(&suppress, ruleset)]);
                    if log
                        .decide_command(&given, DiceSupply::Seed(&game.seed))
                        .is_ok()
                    {
                        return (game, place);
                    }
                }
            }
            game.play_random_order();
        }
    }
    panic!("random play never reached a guerrilla suppression");
}

#[test]
fn a_batch_cut_off_after_a_guerrilla_suppression_keeps_its_die_where_dice_are_read() {
    // Given a power that may roll to suppress the guerrillas in a place,
    let (game, place) = at_a_suppression();
    let log = &game.log;
    let ruleset = log.ruleset;
    let power = log.state.power(&ruleset.board);
    let infantry = ruleset.catalogue.id("INF").expect("infantry");
    // when it rolls and then buys (not allowed in the Battles phase),
    let given = command(
        log,
        power,
        vec![
            NamedOrder::of(&Order::SuppressGuerrillas { territory: place }, ruleset),
            NamedOrder::of(&Order::Purchase(vec![(infantry, 1)]), ruleset),
        ],
    );
    let decided = log
        .decide_command(&given, DiceSupply::Seed(&game.seed))
        .expect("the roll stands");
    // then the purchase is cut off after the roll,
    let cut = decided.cut_off.as_ref().expect("the purchase is cut off");
    assert_eq!((cut.index, cut.rolled_by), (1, 0));
    // and the die that made the cut count is among the dice the record holds,
    assert!(
        decided.events[1..].iter().any(has_die),
        "no event of the record lists a die (dice_rolled): {:?}",
        &decided.events[1..]
    );
    // so an auditor without the seed, reading the recorded dice, decides it again alike.
    let record = match &decided.events[0] {
        GameStreamEvent::Orders(record) => record.clone(),
        other => panic!("the record first, not {other:?}"),
    };
    let dice_at = |version: u64| match version
        .checked_sub(log.version + 1)
        .and_then(|i| decided.events.get(i as usize))
    {
        Some(GameStreamEvent::Played(played)) => dice_rolled(played),
        _ => Vec::new(),
    };
    let again = log
        .decide_command(
            &record,
            DiceSupply::Recorded {
                dice_at: &dice_at,
                reveal_at: &|_| None,
                revealed: None,
            },
        )
        .expect("decided again from the recorded dice");
    assert_eq!(again.events, decided.events);
}
