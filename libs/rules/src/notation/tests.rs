//! The notation, tested from data (`cases.txt`) and by writing back every order random
//! games give.

use super::*;
use crate::game::autoplay::random_order;
use crate::game::named::NamedOrder;
use crate::game::{apply, decide, Moment};
use crate::ruleset::Ruleset;

const CASES: &str = include_str!("cases.txt");

/// What a case expects of its line.
enum Expected {
    Order(serde_json::Value),
    Step(String),
    Error(String),
    Nothing,
}

fn describe(step: &Step) -> String {
    match step {
        Step::Order(order) => render_order(order),
        Step::Phase(phase) => format!("phase {}", phase.name()),
        Step::EndTurn => "end turn".to_owned(),
    }
}

#[test]
fn every_case_in_the_table_reads_as_written() {
    let mut ruleset = Ruleset::builtin("cutthroat").expect("cutthroat");
    let mut lines = CASES.lines().peekable();
    let mut checked = 0;
    while let Some(line) = lines.next() {
        if let Some(id) = line.strip_prefix("@ ") {
            ruleset = Ruleset::builtin(id.trim()).expect("a built-in ruleset");
            continue;
        }
        let Some(input) = line.strip_prefix("> ") else {
            continue;
        };
        let expected = match lines.peek() {
            Some(next) if next.starts_with("= ") => {
                Expected::Order(serde_json::from_str(&next[2..]).expect("a case's JSON"))
            }
            Some(next) if next.starts_with("~ ") => Expected::Step(next[2..].to_owned()),
            Some(next) if next.starts_with("! ") => Expected::Error(next[2..].to_owned()),
            _ => Expected::Nothing,
        };
        let read = parse_line(input, 1, ruleset);
        match (expected, read) {
            (Expected::Order(json), Ok(Some(Step::Order(order)))) => {
                let wanted: NamedOrder = serde_json::from_value(json).expect("an order");
                assert_eq!(order, wanted, "{input}");
                // What it reads as, written back, reads the same.
                let again = parse_line(&render_order(&order), 1, ruleset);
                assert_eq!(again, Ok(Some(Step::Order(order))), "{input}");
            }
            (Expected::Step(words), Ok(Some(step))) => assert_eq!(describe(&step), words),
            (Expected::Error(words), Err(error)) => {
                assert!(error.to_string().contains(&words), "{input}: {error}")
            }
            (Expected::Nothing, Ok(None)) => {}
            (_, read) => panic!("{input}: read as {read:?}"),
        }
        checked += 1;
    }
    assert!(checked >= 70, "only {checked} cases");
}

#[test]
fn every_order_of_random_games_writes_back_to_the_order_it_was() {
    for id in crate::document::RulesetDocument::BUILTIN {
        let ruleset = Ruleset::builtin(id).expect("a built-in");
        let rules = ruleset.rules();
        let mut state = if id == "war" {
            crate::game::tests::home_cooked::seated()
        } else {
            ruleset.start()
        };
        let mut next = 7u64;
        let mut choose = |n: usize| {
            // A small linear congruential walk: enough variety, no dependency.
            next = next
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (next >> 33) as usize % n.max(1)
        };
        let seed = crate::dice::GameSeed::from_bytes([3; 32]);
        let mut written = 0;
        for step in 0..1500u64 {
            let (by, order) = random_order(rules, &state, &mut choose);
            let named = NamedOrder::of(&order, ruleset);
            if !matches!(named, NamedOrder::SealedStandingOrders { .. }) {
                let line = render_order(&named);
                let read =
                    parse_line(&line, 1, ruleset).unwrap_or_else(|e| panic!("{id}: {line}: {e}"));
                let Some(Step::Order(read)) = read else {
                    panic!("{id}: {line} read as {read:?}");
                };
                let normal = |o: &NamedOrder| o.normalised(ruleset, "x").expect("resolves");
                assert_eq!(normal(&read), normal(&named), "{id}: {line}");
                written += 1;
            }
            let mut dice = seed.dice_for("notation", step);
            if let Ok(events) = decide(rules, &state, by, &order, Moment::default(), &mut dice) {
                for event in &events {
                    apply(rules, &mut state, event);
                }
            }
        }
        assert!(written > 1000, "{id}: {written}");
    }
}

#[test]
fn a_turn_text_skips_comments_and_blank_lines_and_numbers_its_lines() {
    let ruleset = Ruleset::builtin("cutthroat").expect("cutthroat");
    let text = "# Germany\n\nbuy 2 INF\n  # more\nend turn\n";
    let lines = parse(text, ruleset).expect("reads");
    let numbers: Vec<usize> = lines.iter().map(|l| l.number).collect();
    assert_eq!(numbers, [3, 5]);
}

#[test]
fn an_error_names_the_line_and_the_column_in_characters() {
    let ruleset = Ruleset::builtin("cutthroat").expect("cutthroat");
    let text = "buy 2 INF\nmove 1 ARM: Germany → Ukrane\n";
    let error = parse(text, ruleset).expect_err("unknown place");
    assert_eq!((error.line, error.column), (2, 23));
    assert_eq!(error.suggestions, ["Ukraine S.S.R."]);
}

#[test]
fn a_text_of_too_many_lines_is_refused_before_it_is_read() {
    let ruleset = Ruleset::builtin("cutthroat").expect("cutthroat");
    let text = "end phase\n".repeat(MAX_LINES + 1);
    let error = parse(&text, ruleset).expect_err("too long");
    assert!(error.message.contains("at most"), "{error}");
}

fn lines(text: &str) -> Vec<Line> {
    parse(text, Ruleset::builtin("cutthroat").expect("cutthroat")).expect("reads")
}

fn planned(text: &str, phase: Phase) -> Vec<String> {
    plan(&lines(text), phase, true)
        .expect("plans")
        .iter()
        .map(|p| format!("{}: {}", p.line, render_order(&p.order)))
        .collect()
}

#[test]
fn phases_end_by_themselves_before_a_line_of_a_later_phase() {
    let text = "buy 2 INF\nmove 1 ARM: Germany > East Europe\nbattle East Europe\n\
                move 1 ARM: East Europe > Germany\nplace 2 INF in Germany\nend turn\n";
    assert_eq!(
        planned(text, Phase::Repairs),
        [
            "1: end phase",
            "1: end phase",
            "1: buy 2 INF",
            "2: end phase",
            "2: move 1 ARM: Germany > East Europe",
            "3: end phase",
            "3: battle East Europe",
            "4: end phase",
            "4: move 1 ARM: East Europe > Germany",
            "5: end phase",
            "5: place 2 INF in Germany",
            "6: end phase",
            "6: end phase",
        ]
    );
}

#[test]
fn a_heading_moves_the_turn_on_and_a_move_after_it_is_a_non_combat_move() {
    let text = "non-combat move:\nmove 1 ARM: Germany > East Europe\n";
    assert_eq!(
        planned(text, Phase::CombatMove),
        [
            "1: end phase",
            "1: end phase",
            "2: move 1 ARM: Germany > East Europe"
        ]
    );
}

#[test]
fn a_purchase_after_the_purchase_phase_is_left_for_the_engine_to_refuse() {
    // No later phase takes a purchase: the line stays where it is, and the engine's
    // refusal names the phase it belongs to.
    let text = "move 1 ARM: Germany > East Europe\nbuy 1 INF\n";
    assert_eq!(
        planned(text, Phase::CombatMove),
        ["1: move 1 ARM: Germany > East Europe", "2: buy 1 INF"]
    );
}

#[test]
fn a_heading_of_an_earlier_phase_is_refused_naming_its_line() {
    let error =
        plan(&lines("buy 1 INF\npurchase:\n"), Phase::CombatMove, true).expect_err("goes back");
    assert_eq!(error.line, 2);
    assert!(error.message.contains("comes before"), "{error}");
}

#[test]
fn diplomacy_ends_no_phase() {
    assert_eq!(
        planned("offer agreement to Japan: peace\n", Phase::Repairs),
        ["1: offer agreement to Japan: peace"]
    );
}

#[test]
fn in_war_only_the_texts_own_end_phase_lines_end_phases() {
    let text = "end turn\n";
    assert!(plan(&lines(text), Phase::Purchase, false).is_err());
    let planned = plan(&lines("buy 1 INF\nend phase\n"), Phase::Purchase, false).expect("plans");
    assert_eq!(planned.len(), 2);
}

/// `docs/playing.md`, the grammar for people: its examples are boxes opened with
/// ```` ```turn RULESET ````, and every line in them must read as written.
const PLAYING: &str = include_str!("../../../../docs/playing.md");

/// Every kind of order, by the name the record gives it, as serde knows them: its refusal
/// of an unknown kind names every kind, so a new one asks the doc for an example without a
/// change here. The server's own (sealed standing orders) is left out.
fn kinds() -> Vec<String> {
    let refused = serde_json::from_str::<NamedOrder>(r#"{"type":"?"}"#).expect_err("no kind ?");
    let message = refused.to_string();
    let (_, list) = message
        .split_once("expected one of")
        .unwrap_or_else(|| panic!("serde names the kinds: {message}"));
    let kinds: Vec<String> = list
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|k| *k != "sealed_standing_orders")
        .map(str::to_owned)
        .collect();
    assert!(kinds.len() > 25, "{message}");
    kinds
}

fn kind(order: &NamedOrder) -> String {
    let json = serde_json::to_value(order).expect("an order is JSON");
    json["type"]
        .as_str()
        .expect("tagged by its type")
        .to_owned()
}

/// What the doc's examples show: each a name, and the rulesets whose boxes show it.
#[derive(Default)]
struct Shown(std::collections::BTreeMap<String, std::collections::BTreeSet<String>>);

impl Shown {
    fn add(&mut self, what: impl Into<String>, ruleset: &str) {
        self.0
            .entry(what.into())
            .or_default()
            .insert(ruleset.to_owned());
    }

    fn missing<'a>(&self, wanted: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
        wanted
            .into_iter()
            .filter(|w| !self.0.contains_key(*w))
            .collect()
    }
}

/// What one step of an example shows: its kind, and for battles, standing orders and
/// permissions every clause it uses (read from the order written back, whose clauses
/// [`render_order`] always writes the same way).
fn show(step: &Step, ruleset: &str, shown: &mut Shown) {
    let order = match step {
        Step::EndTurn => return shown.add("end turn", ruleset),
        Step::Phase(phase) => return shown.add(format!("heading {}", phase.name()), ruleset),
        Step::Order(order) => order,
    };
    shown.add(kind(order), ruleset);
    let line = render_order(order);
    let clauses: &[&str] = match order {
        NamedOrder::Move { path, .. } | NamedOrder::Rail { path, .. } => {
            if path.len() > 2 {
                shown.add("a path through a place", ruleset);
            }
            &[]
        }
        NamedOrder::FightBattle { combat, .. } => {
            if let Some(code) = combat {
                shown.add(format!("combat {code}"), ruleset);
            }
            &[
                "; loss",
                "; retreat after round",
                "; retreat when down to",
                "; retreat to",
                "; bombing raid",
                "; bombard from",
                "; kamikaze",
                "; blend in",
            ]
        }
        NamedOrder::SetStandingOrders { territory, .. } => {
            let whom = if territory.is_some() {
                "standing orders for a place"
            } else {
                "standing orders everywhere"
            };
            shown.add(whom, ruleset);
            &[
                "; submerge subs",
                "; battleships do not absorb",
                "; retreat subs",
                "; blend in",
            ]
        }
        NamedOrder::GrantPermission { .. } => &["grant enter", "grant rail", "grant ferry"],
        _ => &[],
    };
    for clause in clauses {
        if line.contains(clause) {
            shown.add(clause.trim_start_matches("; "), ruleset);
        }
    }
    if matches!(order, NamedOrder::SetStandingOrders { order_of_loss, .. } if !order_of_loss.is_empty())
    {
        shown.add("standing loss", ruleset);
    }
}

#[test]
fn every_example_line_of_the_players_guide_reads_with_its_ruleset() {
    let mut shown = Shown::default();
    let mut failures = Vec::new();
    let mut block: Option<&'static Ruleset> = None;
    let mut lines_read = 0;
    let mut boxes = std::collections::BTreeSet::new();
    for (i, line) in PLAYING.lines().enumerate() {
        let number = i + 1;
        if let Some(fence) = line.trim_start().strip_prefix("```") {
            block = match (block, fence.trim().strip_prefix("turn")) {
                // A box closes.
                (Some(_), _) => None,
                (None, Some(id)) => {
                    let id = id.trim();
                    let ruleset = Ruleset::builtin(id).unwrap_or_else(|e| {
                        panic!("docs/playing.md:{number}: a turn box names ruleset {id:?}: {e}")
                    });
                    boxes.insert(id);
                    Some(ruleset)
                }
                (None, None) => None,
            };
            continue;
        }
        let Some(ruleset) = block else {
            continue;
        };
        match parse_line(line, number, ruleset) {
            Ok(Some(step)) => {
                show(&step, &ruleset.id, &mut shown);
                lines_read += 1;
            }
            Ok(None) => {}
            Err(error) => failures.push(format!("docs/playing.md:{number}: {line}\n  {error}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(block.is_none(), "docs/playing.md ends inside a box");
    // A renamed marker must not leave the test reading nothing.
    assert_eq!(
        boxes.into_iter().collect::<Vec<_>>(),
        ["aap-historical", "cutthroat", "war"],
        "a box for every built-in ruleset"
    );
    assert!(lines_read > 100, "only {lines_read} example lines");

    // One example at least of every kind of order, every clause of a battle and of
    // standing orders, every combat order, every permission, every phase's heading.
    let mut wanted = kinds();
    wanted.extend(
        crate::battle::CombatOrder::ALL
            .iter()
            .map(|c| format!("combat {}", c.code())),
    );
    wanted.extend(
        [
            "loss",
            "retreat after round",
            "retreat when down to",
            "retreat to",
            "bombing raid",
            "bombard from",
            "kamikaze",
            "standing orders everywhere",
            "standing orders for a place",
            "standing loss",
            "submerge subs",
            "battleships do not absorb",
            "retreat subs",
            "blend in",
            "grant enter",
            "grant rail",
            "grant ferry",
            "end turn",
            "a path through a place",
        ]
        .map(str::to_owned),
    );
    wanted.extend(Phase::ALL.iter().map(|p| format!("heading {}", p.name())));
    let missing = shown.missing(wanted.iter().map(String::as_str));
    assert!(
        missing.is_empty(),
        "docs/playing.md has no example of {missing:?}"
    );

    // War's own orders are shown in War's boxes, the guerrillas, patrols, submarine orders,
    // lending and kamikaze tokens in AAP's, the kamikaze run in Cut-Throat's.
    for (what, ruleset) in [
        ("roll_start_zones", "war"),
        ("roll_initiative", "war"),
        ("roll_reinforcements", "war"),
        ("build_infrastructure", "war"),
        ("drop_atomic_bomb", "war"),
        ("air_raid", "war"),
        ("set_order_of_loss", "war"),
        ("suppress_guerrillas", "aap-historical"),
        ("avoid_combat", "aap-historical"),
        ("kamikaze", "cutthroat"),
        ("blend in", "aap-historical"),
        ("fly_patrol", "aap-historical"),
        ("block_with_submarines", "aap-historical"),
        ("attack_submarines", "aap-historical"),
        ("lend", "aap-historical"),
        ("recall", "aap-historical"),
        ("kamikaze_attack", "aap-historical"),
    ] {
        assert!(
            shown.0.get(what).is_some_and(|r| r.contains(ruleset)),
            "docs/playing.md shows {what} in no {ruleset} box"
        );
    }
}

/// The text of the box in `docs/playing.md` whose first line is `first`.
fn example(first: &str) -> String {
    let text: Vec<&str> = PLAYING
        .lines()
        .skip_while(|l| l.trim() != first)
        .take_while(|l| !l.trim_start().starts_with("```"))
        .collect();
    assert!(
        !text.is_empty(),
        "docs/playing.md has no box beginning {first:?}"
    );
    text.join("\n")
}

/// Plays `text` for the power to play, as the server takes a turn (read, planned, each
/// order resolved, decided and applied): the events it made, or the first refusal and its
/// line (the orders before it stay applied).
fn try_play(
    ruleset: &Ruleset,
    state: &mut crate::game::GameState,
    text: &str,
) -> Result<Vec<crate::game::GameEvent>, (usize, crate::game::RuleViolation)> {
    let rules = ruleset.rules();
    let power = state.power(rules.board);
    let lines = parse(text, ruleset).unwrap_or_else(|e| panic!("{e}"));
    let planned = plan(&lines, state.phase, true).unwrap_or_else(|e| panic!("{e}"));
    let seed = crate::dice::GameSeed::from_bytes([5; 32]);
    let mut events = Vec::new();
    for (step, p) in planned.iter().enumerate() {
        let order = p
            .order
            .resolve(ruleset, "turn")
            .unwrap_or_else(|e| panic!("line {}: {}: {e}", p.line, render_order(&p.order)));
        let mut dice = seed.dice_for("transports", step as u64);
        let made = decide(rules, state, power, &order, Moment::default(), &mut dice)
            .map_err(|v| (p.line, v))?;
        for event in &made {
            apply(rules, state, event);
        }
        events.extend(made);
    }
    Ok(events)
}

/// [`try_play`], every order accepted.
fn play(
    ruleset: &Ruleset,
    state: &mut crate::game::GameState,
    text: &str,
) -> Vec<crate::game::GameEvent> {
    try_play(ruleset, state, text).unwrap_or_else(|(line, v)| panic!("line {line}: {v:?}"))
}

/// A new Cut-Throat game at the United Kingdom's turn of round 2 (round 1 has no combat:
/// every power ends its turn; then Russia and Germany theirs).
fn united_kingdom_in_round_two() -> crate::game::GameState {
    let ruleset = Ruleset::builtin("cutthroat").expect("cutthroat");
    let mut state = ruleset.start();
    for _ in 0..7 {
        play(ruleset, &mut state, "end turn\n");
    }
    assert_eq!(
        (state.round, state.power(ruleset.rules().board)),
        (2, crate::board::Power::UnitedKingdom)
    );
    state
}

#[test]
fn the_guides_transport_example_plays_on_the_cut_throat_board_from_the_standard_setup() {
    use crate::board::Power;
    use crate::game::GameEvent;

    let ruleset = Ruleset::builtin("cutthroat").expect("cutthroat");
    let rules = ruleset.rules();
    let place = |name: &str| rules.board.id(name).expect(name);
    let mut state = united_kingdom_in_round_two();

    let text = example("# United Kingdom, round 2: an amphibious assault on West Europe");
    let events = play(ruleset, &mut state, &text);

    let moves: Vec<(Vec<_>, Option<_>)> = events
        .iter()
        .filter_map(|e| match e {
            GameEvent::UnitsMoved {
                path, contested, ..
            } => Some((path.clone(), *contested)),
            _ => None,
        })
        .collect();
    let (uk, north_sea, west_spain, west_europe) = (
        place("United Kingdom"),
        place("North Sea Zone"),
        place("West Spain Sea Zone"),
        place("West Europe"),
    );
    assert_eq!(
        moves,
        [
            (vec![uk, north_sea], None),
            (vec![north_sea, west_spain], None),
            (vec![west_spain, west_europe], Some(west_europe)),
        ],
        "load, sail, land"
    );
    let fought = events
        .iter()
        .find_map(|e| match e {
            GameEvent::BattleFought(fought) => Some(fought),
            _ => None,
        })
        .expect("the amphibious assault is fought");
    assert_eq!(fought.territory, west_europe);
    assert_eq!(fought.bombarded_from, [(north_sea, 1)]);
    // The turn ended: Japan plays next.
    assert_eq!(state.power(rules.board), Power::Japan);
}

#[test]
fn a_battleship_that_sailed_this_turn_does_not_bombard_as_the_guide_says() {
    let ruleset = Ruleset::builtin("cutthroat").expect("cutthroat");
    let mut state = united_kingdom_in_round_two();
    let text = "move 2 INF, 1 ARM: United Kingdom > North Sea Zone\n\
                move 2 TRN, 2 INF, 1 ARM: North Sea Zone > West Spain Sea Zone\n\
                move 1 BB: North Sea Zone > West Spain Sea Zone\n\
                move 2 INF, 1 ARM: West Spain Sea Zone > West Europe\n\
                battle West Europe; bombard from West Spain Sea Zone\n";
    let (line, refused) = try_play(ruleset, &mut state, text).expect_err("spent");
    assert_eq!(line, 5);
    assert_eq!(refused.code, crate::game::ViolationCode::NoBattleship);
    // Nor from a zone not next to the battle.
    let (line, refused) = try_play(
        ruleset,
        &mut state,
        "battle West Europe; bombard from East Canada Sea Zone\n",
    )
    .expect_err("too far");
    assert_eq!(line, 1);
    assert_eq!(refused.code, crate::game::ViolationCode::BadBombardment);
}

#[test]
fn mediterranean_spelled_right_or_short_reads_as_the_boards_mediteranean() {
    let ruleset = Ruleset::builtin("cutthroat").expect("cutthroat");
    let line = "move 1 BB: Central Mediterranean > East Med";
    let Ok(Some(Step::Order(order))) = parse_line(line, 1, ruleset) else {
        panic!("{line} does not read");
    };
    // The record keeps the board's spelling.
    assert_eq!(
        render_order(&order),
        "move 1 BB: Central Mediteranean Sea Zone > East Mediteranean Sea Zone"
    );
    // The sea alone is three zones: the refusal names them.
    let error =
        parse_line("move 1 BB: Mediterranean > East Med", 1, ruleset).expect_err("which zone?");
    assert_eq!(
        error.suggestions,
        [
            "Central Mediteranean Sea Zone",
            "East Mediteranean Sea Zone",
            "West Mediteranean Sea Zone"
        ]
    );
}
