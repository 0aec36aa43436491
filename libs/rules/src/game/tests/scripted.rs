//! A scripted five-round Cut-Throat game, played through `decide` as the GM service would,
//! then replayed from its events alone (through JSON, as stored): the replay must reach
//! exactly the live state.
//!
//! The story: Russia and Britain ally, Britain and Germany sign a treaty (round 1). Russia
//! pulls its armies out of Karelia and Moscow; in round 2 a German panzer blitzes through
//! Karelia and takes Moscow (voiding the Russo-British alliance). Britain breaks its treaty
//! with Germany by a bombing run on Germany's factories, and its battleship attacks the
//! Russian fleet, coming out damaged. Germany takes Kazakh in round 3; Russia, down to half
//! its IPC, gets a war loan in round 4, when Britain repairs its battleship. The director
//! ends the game after round 5.

use super::*;
use crate::game::combat::BattleOrders;
use crate::scoring::PointsTable;

struct Script {
    state: GameState,
    log: Vec<GameEvent>,
    clock: Moment,
}

impl Script {
    fn new() -> Script {
        Script {
            state: start(),
            log: Vec::new(),
            clock: Moment::from_unix_seconds(1_800_000_000),
        }
    }

    fn tick(&mut self) -> Moment {
        self.clock = self.clock.plus_seconds(600);
        self.clock
    }

    fn order(&mut self, by: Power, order: Order, dice: &[u8]) -> Vec<GameEvent> {
        let at = self.tick();
        let mut scripted = crate::dice::ScriptedDice::new(dice);
        let events = decide(rules(), &self.state, by, &order, at, &mut scripted)
            .unwrap_or_else(|e| panic!("{by} {order:?}: {e}"));
        for event in &events {
            apply(rules(), &mut self.state, event);
        }
        self.log.extend(events.iter().cloned());
        events
    }

    fn refused(&mut self, by: Power, order: Order) -> RuleViolation {
        let mut no_dice = crate::dice::ScriptedDice::new(&[]);
        decide(rules(), &self.state, by, &order, self.clock, &mut no_dice).expect_err("refused")
    }

    fn direct(&mut self, order: DirectorOrder) {
        let at = self.tick();
        let events = decide_director(rules(), &self.state, &order, at).expect("director");
        for event in &events {
            apply(rules(), &mut self.state, event);
        }
        self.log.extend(events);
    }

    fn go(&mut self, by: Power, units: &[(&str, u32)], names: &[&str]) -> Vec<GameEvent> {
        let (units, path) = (units_of(units), path_of(names));
        self.order(by, Order::Move { units, path }, &[])
    }

    /// Everyone ends their phases until it is `power`'s `phase` in `round`.
    fn pass_until(&mut self, round: u32, power: Power, phase: Phase) {
        while (
            self.state.round,
            self.state.power(rules().board),
            self.state.phase,
        ) != (round, power, phase)
        {
            let current = self.state.power(rules().board);
            self.order(current, Order::EndPhase, &[]);
        }
    }

    fn fight(&mut self, by: Power, orders: BattleOrders, dice: &[u8]) -> combat::BattleFought {
        let events = self.order(by, Order::FightBattle(orders), dice);
        match &events[0] {
            GameEvent::BattleFought(fought) => (**fought).clone(),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_five_round_game_replays_from_its_events_to_exactly_its_live_state() {
    let mut game = Script::new();
    game.direct(DirectorOrder::AssignSeats(
        Power::CLASSIC
            .iter()
            .map(|p| (*p, format!("{}-player", p.name())))
            .collect(),
    ));

    // Round 1: treaties, and Russia's retreat from Karelia and Moscow.
    for (a, b, terms) in [
        (Power::Russia, Power::UnitedKingdom, "alliance"),
        (Power::UnitedKingdom, Power::Germany, "non-aggression"),
    ] {
        game.order(
            a,
            Order::OfferAgreement {
                with: b,
                terms: terms.into(),
            },
            &[],
        );
        game.order(b, Order::AcceptAgreement { from: a }, &[]);
    }
    game.pass_until(1, Power::Russia, Phase::NonCombatMove);
    for (units, from, to) in [
        (
            &[("INF", 6), ("ARM", 2), ("FTR", 2)][..],
            "Russia",
            "Caucasus",
        ),
        (&[("INF", 3), ("ARM", 1), ("FTR", 1)], "Karelia", "Caucasus"),
        (&[("INF", 1), ("ARM", 1)], "Kazakh", "Novosibirsk"),
    ] {
        game.go(Power::Russia, units, &[from, to]);
    }
    game.pass_until(1, Power::Germany, Phase::Purchase);
    game.order(Power::Germany, Order::Purchase(vec![(unit("INF"), 4)]), &[]);
    game.pass_until(1, Power::Germany, Phase::Placement);
    game.order(
        Power::Germany,
        Order::Place {
            territory: place_id("Germany"),
            units: vec![(unit("INF"), 4)],
        },
        &[],
    );

    // Round 2: Germany takes Moscow.
    game.pass_until(2, Power::Germany, Phase::CombatMove);
    game.go(
        Power::Germany,
        &[("ARM", 1)],
        &["East Europe", "Karelia", "Russia"],
    );
    game.pass_until(2, Power::Germany, Phase::Battles);
    let treasury = game.state.treasury[&Power::Russia];
    let events = game.order(
        Power::Germany,
        Order::FightBattle(BattleOrders::at(place_id("Russia"))),
        &[],
    );
    assert!(matches!(
        events.as_slice(),
        [GameEvent::BattleFought(f), GameEvent::AgreementEnded(e)]
            if f.captured && f.plunder == treasury
                && e.cause == AgreementEnd::CapitalTaken(Power::Russia)
    ));
    assert!(game.state.capital_lost(rules(), Power::Russia));

    // Britain: the treaty with Germany stands in the way of a bombing run, until broken.
    game.pass_until(2, Power::UnitedKingdom, Phase::CombatMove);
    let raid_path = ["United Kingdom", "North Sea Zone", "West Europe", "Germany"];
    let raid_units = vec![(unit("BMB"), 1)];
    let err = game.refused(
        Power::UnitedKingdom,
        Order::Move {
            units: raid_units.clone(),
            path: path_of(&raid_path),
        },
    );
    assert_eq!(err.code, "no-permission");
    game.order(
        Power::UnitedKingdom,
        Order::BreakAgreement {
            with: Power::Germany,
        },
        &[],
    );
    game.go(Power::UnitedKingdom, &[("BMB", 1)], &raid_path);
    game.go(
        Power::UnitedKingdom,
        &[("BB", 1)],
        &["North Sea Zone", "Karelia Sea Zone"],
    );
    game.pass_until(2, Power::UnitedKingdom, Phase::Battles);
    let mut raid = BattleOrders::at(place_id("Germany"));
    raid.bombing_raid = true;
    let germany_before = game.state.treasury[&Power::Germany];
    // The AA gun misses (6); the bomber's die takes 5 IPC.
    game.order(Power::UnitedKingdom, Order::FightBattle(raid), &[6, 5]);
    assert_eq!(game.state.treasury[&Power::Germany], germany_before - 5);
    // The battleship sinks the submarine and the transport, taking one hit.
    let fought = game.fight(
        Power::UnitedKingdom,
        BattleOrders::at(place_id("Karelia Sea Zone")),
        &[1, 1, 6, 1, 6],
    );
    assert_eq!(
        fought.outcome,
        crate::battle::Outcome::AttackerWins,
        "{fought:?}"
    );
    assert_eq!(fought.attacker_left, vec![(unit("BB"), 1, 1)]);
    game.pass_until(2, Power::UnitedKingdom, Phase::NonCombatMove);
    game.go(
        Power::UnitedKingdom,
        &[("BMB", 1)],
        &["Germany", "West Europe", "North Sea Zone", "United Kingdom"],
    );

    // Round 3: the battleship sails home; Germany takes Kazakh.
    game.pass_until(3, Power::Germany, Phase::CombatMove);
    game.go(Power::Germany, &[("ARM", 1)], &["Russia", "Kazakh"]);
    game.pass_until(3, Power::Germany, Phase::Battles);
    game.fight(Power::Germany, BattleOrders::at(place_id("Kazakh")), &[]);
    game.pass_until(3, Power::UnitedKingdom, Phase::NonCombatMove);
    game.go(
        Power::UnitedKingdom,
        &[("BB", 1)],
        &["Karelia Sea Zone", "North Sea Zone"],
    );

    // Round 4: Russia, at 11 of its 24 IPC, gets a war loan; Britain repairs.
    game.pass_until(4, Power::Russia, Phase::Repairs);
    assert_eq!(game.state.ipc_count(rules().board, Power::Russia), 11);
    game.order(Power::Russia, Order::ApplyForWarLoan, &[5]);
    assert_eq!(game.state.loans[&Power::Russia].owed, 25);
    game.pass_until(4, Power::UnitedKingdom, Phase::Repairs);
    game.order(
        Power::UnitedKingdom,
        Order::RepairBattleship {
            sea_zone: place_id("North Sea Zone"),
        },
        &[3],
    );
    let north_sea = &game.state.forces[place_id("North Sea Zone").index()];
    assert_eq!(
        north_sea.get(&(Power::UnitedKingdom, unit("BB"), 0)),
        Some(&1)
    );
    assert_eq!(north_sea.get(&(Power::UnitedKingdom, unit("BB"), 1)), None);

    // Round 5, and the end.
    game.pass_until(5, Power::UnitedStates, Phase::Income);
    game.order(Power::UnitedStates, Order::EndPhase, &[]);
    assert_eq!(
        game.state.loans[&Power::Russia].owed,
        25 - 3,
        "one instalment, in round 5"
    );
    game.direct(DirectorOrder::EndGame);
    let placements = game
        .state
        .placements(rules(), &PointsTable::cut_throat())
        .expect("ended")
        .expect("scored");
    assert_eq!(placements[0].power, Power::Germany);
    assert_eq!(placements[4].power, Power::Russia);

    // Replayed from the log as stored: every event through JSON and back.
    let stored: Vec<String> = game
        .log
        .iter()
        .map(|e| serde_json::to_string(e).expect("encodes"))
        .collect();
    let mut replayed = start();
    for json in &stored {
        let event: GameEvent = serde_json::from_str(json).expect("decodes");
        apply(rules(), &mut replayed, &event);
    }
    assert_eq!(replayed, game.state);
    assert!(game.log.len() > 200, "{} events", game.log.len());
}
