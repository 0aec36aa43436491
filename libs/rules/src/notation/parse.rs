//! Reading a turn text, line by line.

use super::names::{closest, Names};
use super::text::Text;
use super::{Line, NotationError, Step, MAX_LINES, MAX_LINE_CHARS};
use crate::game::named::{NamedOrder, NamedRetreat};
use crate::game::Phase;
use crate::ruleset::Ruleset;

/// Every line of `text` that asks for something, its names resolved against `ruleset`.
/// Blank lines and comments (from `#` to the end of the line) are skipped. The first line
/// that cannot be read refuses the whole text.
pub fn parse(text: &str, ruleset: &Ruleset) -> Result<Vec<Line>, NotationError> {
    let count = text.lines().count();
    if count > MAX_LINES {
        return Err(NotationError {
            line: MAX_LINES + 1,
            column: 1,
            message: format!("a turn text holds at most {MAX_LINES} lines; this one has {count}"),
            suggestions: Vec::new(),
        });
    }
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(step) = parse_line(line, i + 1, ruleset)? {
            lines.push(Line {
                number: i + 1,
                step,
            });
        }
    }
    Ok(lines)
}

/// One line (numbered `number` for errors): what it asks for, or `None` for a blank line
/// or a comment.
pub fn parse_line(
    line: &str,
    number: usize,
    ruleset: &Ruleset,
) -> Result<Option<Step>, NotationError> {
    let names = Names {
        ruleset,
        line,
        number,
    };
    if line.len() > MAX_LINE_CHARS * 4 || line.chars().count() > MAX_LINE_CHARS {
        return Err(names.error(
            Text::new(line),
            format!("a line holds at most {MAX_LINE_CHARS} characters"),
        ));
    }
    let content = &line[..comment_start(line)];
    let text = Text::new(content).trim();
    if text.is_empty() {
        return Ok(None);
    }
    step(&names, text).map(Some)
}

/// Where a comment begins: a `#` that starts the line, or stands after a space and before
/// a space or the end (so `SZ #5` in an offer's terms is text).
fn comment_start(line: &str) -> usize {
    let bytes = line.as_bytes();
    let starts = |i: usize| {
        let before = line[..i].trim().is_empty() || bytes[i - 1].is_ascii_whitespace();
        let after = bytes.get(i + 1).is_none_or(|b| b.is_ascii_whitespace());
        line[..i].trim().is_empty() || (before && after)
    };
    line.match_indices('#')
        .map(|(i, _)| i)
        .find(|i| starts(*i))
        .unwrap_or(line.len())
}

/// The ways a line may begin, for suggestions when none matches.
const KEYWORDS: &[&str] = &[
    "buy",
    "purchase",
    "place",
    "move",
    "rail",
    "battle",
    "bomb",
    "air drop",
    "air raid",
    "fire rocket",
    "repair battleship",
    "war loan",
    "repay war loan",
    "expand complex",
    "research",
    "develop weapons",
    "suppress guerrillas",
    "avoid combat",
    "patrol",
    "lend",
    "recall",
    "block with submarines",
    "attack submarines",
    "kamikaze",
    "go passive",
    "offer agreement",
    "accept agreement",
    "grant",
    "revoke",
    "break agreement",
    "roll start zones",
    "roll initiative",
    "roll reinforcements",
    "build infrastructure",
    "drop atomic bomb",
    "order of loss",
    "break off",
    "never break off",
    "standing orders",
    "end phase",
    "end turn",
];

fn step(names: &Names<'_>, text: Text<'_>) -> Result<Step, NotationError> {
    if let Some(phase) = heading(text) {
        return Ok(Step::Phase(phase));
    }
    if text
        .after_any(&["end turn", "done"])
        .is_some_and(Text::is_empty)
    {
        return Ok(Step::EndTurn);
    }
    order(names, text).map(Step::Order)
}

/// A phase's heading: its name, then a colon and nothing after it.
fn heading(text: Text<'_>) -> Option<Phase> {
    let name = text.s.strip_suffix(':')?.trim();
    let name = name
        .strip_prefix("phase")
        .or_else(|| name.strip_prefix("Phase"))
        .unwrap_or(name)
        .trim();
    let normal = name.to_ascii_lowercase().replace(['-', '_'], " ");
    let normal = normal.split_whitespace().collect::<Vec<_>>().join(" ");
    Phase::ALL.into_iter().find(|p| {
        p.name().replace('-', " ") == normal
            || (*p == Phase::NonCombatMove && normal == "noncombat move")
            || (*p == Phase::NonCombatMove && normal == "non combat")
            || (*p == Phase::WeaponsDevelopment && normal == "research")
    })
}

/// `text` with `phrase` (and `word` if written after it) taken off the front: `place 3
/// INF in Germany` without "in".
fn in_place<'a>(names: &Names<'_>, text: Text<'a>, how: &str) -> Result<Text<'a>, NotationError> {
    let rest = text
        .after_any(&["in", "on", "at", "for"])
        .unwrap_or(text)
        .trim();
    if rest.is_empty() {
        return Err(names.error(text, format!("{how}: which place?")));
    }
    Ok(rest)
}

fn order(names: &Names<'_>, text: Text<'_>) -> Result<NamedOrder, NotationError> {
    if let Some(rest) = text.after_any(&["end phase", "next phase"]) {
        return nothing_after(names, rest, NamedOrder::EndPhase);
    }
    if let Some(rest) = text.after_phrase("go passive") {
        return nothing_after(names, rest, NamedOrder::GoPassive);
    }
    // Each family tries its own keywords; no two families' keywords begin alike, so their
    // order does not matter.
    let families: [Family; 7] = [
        purchase_order,
        move_or_battle_order,
        money_order,
        pacific_order,
        diplomacy_order,
        war_order,
        standing_orders_order,
    ];
    for family in families {
        if let Some(order) = family(names, text)? {
            return Ok(order);
        }
    }
    Err(unknown_order(names, text))
}

/// Reads the orders of one family: `None` when the line begins with none of its keywords.
type Family = fn(&Names<'_>, Text<'_>) -> Result<Option<NamedOrder>, NotationError>;

/// The place after an order's keyword, a leading `in`, `on`, `at` or `for` skipped; `how`
/// names the order in a refusal.
fn place_after(names: &Names<'_>, rest: Text<'_>, how: &str) -> Result<String, NotationError> {
    names.place(in_place(names, rest, how)?)
}

/// Buying and placing units.
fn purchase_order(names: &Names<'_>, text: Text<'_>) -> Result<Option<NamedOrder>, NotationError> {
    if let Some(rest) = text.after_any(&["buy", "purchase"]) {
        return Ok(Some(NamedOrder::Purchase {
            units: names.units(rest)?,
        }));
    }
    if let Some(rest) = text.after_any(&["place", "mobilize", "mobilise"]) {
        let split = ["in", "on", "at"]
            .iter()
            .find_map(|w| rest.split_last_word(w));
        let Some((units, territory)) = split else {
            return Err(names.error(
                rest,
                "a placement reads \"place 3 INF in Germany\"; \"in\" and the place are missing"
                    .to_owned(),
            ));
        };
        return Ok(Some(NamedOrder::Place {
            territory: names.place(territory)?,
            units: names.units(units)?,
        }));
    }
    Ok(None)
}

/// Moves, battles and rockets.
fn move_or_battle_order(
    names: &Names<'_>,
    text: Text<'_>,
) -> Result<Option<NamedOrder>, NotationError> {
    if let Some(rest) = text.after_phrase("move") {
        let (units, path) = units_and_path(names, rest, "move")?;
        return Ok(Some(NamedOrder::Move { units, path }));
    }
    if let Some(rest) = text.after_phrase("rail") {
        let (units, path) = units_and_path(names, rest, "rail")?;
        return Ok(Some(NamedOrder::Rail { units, path }));
    }
    if let Some(rest) = text.after_any(&["air raid"]) {
        let (units, path) = units_and_path(names, rest, "air raid")?;
        return Ok(Some(NamedOrder::AirRaid { units, path }));
    }
    if let Some(rest) = text.after_any(&["air drop", "airdrop"]) {
        return air_drop(names, rest).map(Some);
    }
    if let Some(rest) = text.after_any(&["battle", "fight battle", "fight"]) {
        return battle(names, rest, false).map(Some);
    }
    if let Some(rest) = text.after_any(&["bombing raid", "bomb"]) {
        return battle(names, rest, true).map(Some);
    }
    if let Some(rest) = text.after_any(&["fire rocket", "rocket"]) {
        let rest = rest.after_phrase("from").unwrap_or(rest);
        let split = ["at", "on", "to"].iter().find_map(|w| rest.split_word(w));
        let Some((from, target)) = split else {
            return Err(names.error(
                rest,
                "a rocket reads \"fire rocket from Germany at United Kingdom\"".to_owned(),
            ));
        };
        return Ok(Some(NamedOrder::FireRocket {
            from: names.place(from)?,
            target: names.place(target)?,
        }));
    }
    Ok(None)
}

/// What a power spends its money on besides units, and its war loans.
fn money_order(names: &Names<'_>, text: Text<'_>) -> Result<Option<NamedOrder>, NotationError> {
    if let Some(rest) = text.after_any(&["repair battleship", "repair"]) {
        return Ok(Some(NamedOrder::RepairBattleship {
            sea_zone: place_after(names, rest, "a repair")?,
        }));
    }
    if let Some(rest) = text.after_any(&["repay war loan", "repay loan", "repay"]) {
        return Ok(Some(NamedOrder::RepayWarLoan {
            amount: names.number(rest.after_phrase("ipc").unwrap_or(rest), "repay")?,
        }));
    }
    if let Some(rest) = text.after_any(&[
        "apply for a war loan",
        "apply for war loan",
        "war loan",
        "loan",
    ]) {
        return nothing_after(names, rest, NamedOrder::ApplyForWarLoan).map(Some);
    }
    if let Some(rest) = text.after_any(&["expand complex", "expand"]) {
        return Ok(Some(NamedOrder::ExpandComplex {
            territory: place_after(names, rest, "an expansion")?,
        }));
    }
    if let Some(rest) = text.after_any(&["develop weapons", "research"]) {
        let rest = rest.after_phrase("with").unwrap_or(rest);
        return Ok(Some(NamedOrder::DevelopWeapons {
            dice: count_of(names, rest, &["dice", "die"], "research", "research 2 dice")?,
        }));
    }
    Ok(None)
}

/// The Pacific board's orders: guerrillas, submarines, kamikazes, patrols, lending.
fn pacific_order(names: &Names<'_>, text: Text<'_>) -> Result<Option<NamedOrder>, NotationError> {
    if let Some(rest) = text.after_any(&["suppress guerrillas", "suppress"]) {
        return Ok(Some(NamedOrder::SuppressGuerrillas {
            territory: place_after(names, rest, "suppressing guerrillas")?,
        }));
    }
    if let Some(rest) = text.after_phrase("avoid combat") {
        return Ok(Some(NamedOrder::AvoidCombat {
            territory: place_after(names, rest, "avoiding combat")?,
        }));
    }
    if let Some(rest) = text.after_any(&["attack submarines", "attack subs"]) {
        return Ok(Some(NamedOrder::AttackSubmarines {
            sea_zone: place_after(names, rest, "attacking submarines")?,
        }));
    }
    if let Some(rest) = text.after_any(&["kamikaze attack", "kamikazes", "kamikaze"]) {
        return kamikaze(names, rest).map(Some);
    }
    if let Some(rest) = text.after_any(&["patrol", "fly patrol", "cap"]) {
        let shape = "a patrol reads \"patrol 2 FTR from Japan over SZ 36\"";
        let Some((units, places)) = rest.split_word("from") else {
            return Err(names.error(rest, shape.to_owned()));
        };
        let Some((from, over)) = places.split_word("over") else {
            return Err(names.error(places, shape.to_owned()));
        };
        return Ok(Some(NamedOrder::FlyPatrol {
            units: names.units(units)?,
            from: names.place(from)?,
            over: names.place(over)?,
        }));
    }
    if let Some(rest) = text.after_phrase("lend") {
        let shape = "a loan reads \"lend 2 INF in Szechwan to KMT\"";
        let Some((units_in, to)) = rest.split_last_word("to") else {
            return Err(names.error(rest, shape.to_owned()));
        };
        let Some((units, territory)) = units_in.split_last_word("in") else {
            return Err(names.error(units_in, shape.to_owned()));
        };
        return Ok(Some(NamedOrder::Lend {
            to: names.power(to)?,
            territory: names.place(territory)?,
            units: names.units(units)?,
        }));
    }
    if let Some(rest) = text.after_any(&["recall", "take back"]) {
        let shape = "taking back reads \"recall 2 INF in Szechwan from KMT\"";
        let Some((units_in, from)) = rest.split_last_word("from") else {
            return Err(names.error(rest, shape.to_owned()));
        };
        let Some((units, territory)) = units_in.split_last_word("in") else {
            return Err(names.error(units_in, shape.to_owned()));
        };
        return Ok(Some(NamedOrder::Recall {
            from: names.power(from)?,
            territory: names.place(territory)?,
            units: names.units(units)?,
        }));
    }
    if let Some(rest) = text.after_any(&["block with submarines", "block with subs", "block"]) {
        let Some((place, against)) = rest.split_last_word("against") else {
            return Err(names.error(
                rest,
                "a blocking order reads \"block with submarines in SZ 36 against UK, US\" \
                 (\"against nobody\" ends it; without \"in\", everywhere)"
                    .to_owned(),
            ));
        };
        let sea_zone = if place.is_empty() {
            None
        } else {
            Some(place_after(names, place, "a blocking order")?)
        };
        let against = if against.after_phrase("nobody").is_some_and(Text::is_empty) {
            Vec::new()
        } else {
            against
                .split(",")
                .into_iter()
                .flat_map(|part| part.split_words("and"))
                .map(|power| names.power(power.trim()))
                .collect::<Result<_, _>>()?
        };
        return Ok(Some(NamedOrder::BlockWithSubmarines { sea_zone, against }));
    }
    Ok(None)
}

/// Agreements and permissions between powers.
fn diplomacy_order(names: &Names<'_>, text: Text<'_>) -> Result<Option<NamedOrder>, NotationError> {
    if let Some(rest) = text.after_any(&["offer agreement", "offer"]) {
        let rest = rest.after_any(&["to", "with"]).unwrap_or(rest);
        let (with, terms) = match rest.s.find(':') {
            Some(i) => (
                Text {
                    s: &rest.s[..i],
                    at: rest.at,
                },
                rest.s[i + 1..].trim(),
            ),
            None => (rest, ""),
        };
        if terms.is_empty() {
            return Err(names.error(
                rest,
                "an offer reads \"offer agreement to Germany: the terms\"; the terms are \
                 missing"
                    .to_owned(),
            ));
        }
        return Ok(Some(NamedOrder::OfferAgreement {
            with: names.power(with)?,
            terms: terms.to_owned(),
        }));
    }
    if let Some(rest) = text.after_any(&["accept agreement", "accept"]) {
        let rest = rest.after_any(&["from", "of", "with"]).unwrap_or(rest);
        return Ok(Some(NamedOrder::AcceptAgreement {
            from: names.power(rest)?,
        }));
    }
    if let Some(rest) = text.after_any(&["grant", "allow"]) {
        let (permission, to) = permission_and_power(names, rest, "to")?;
        return Ok(Some(NamedOrder::GrantPermission {
            to: names.power(to)?,
            permission,
        }));
    }
    if let Some(rest) = text.after_phrase("revoke") {
        let (permission, to) = permission_and_power(names, rest, "from")?;
        return Ok(Some(NamedOrder::RevokePermission {
            to: names.power(to)?,
            permission,
        }));
    }
    if let Some(rest) = text.after_any(&["break agreement", "declare war"]) {
        let rest = rest.after_any(&["with", "on"]).unwrap_or(rest);
        return Ok(Some(NamedOrder::BreakAgreement {
            with: names.power(rest)?,
        }));
    }
    Ok(None)
}

/// The home-cooked "War" game's own orders.
fn war_order(names: &Names<'_>, text: Text<'_>) -> Result<Option<NamedOrder>, NotationError> {
    if let Some(rest) = text.after_phrase("roll start zones") {
        return nothing_after(names, rest, NamedOrder::RollStartZones).map(Some);
    }
    if let Some(rest) = text.after_phrase("roll initiative") {
        return nothing_after(names, rest, NamedOrder::RollInitiative).map(Some);
    }
    if let Some(rest) = text.after_phrase("roll reinforcements") {
        return nothing_after(names, rest, NamedOrder::RollReinforcements).map(Some);
    }
    if let Some(rest) = text.after_any(&["build infrastructure", "infrastructure"]) {
        return Ok(Some(NamedOrder::BuildInfrastructure {
            territory: place_after(names, rest, "infrastructure")?,
        }));
    }
    if let Some(rest) = text.after_any(&[
        "drop the atomic bomb",
        "drop an atomic bomb",
        "drop atomic bomb",
        "atomic bomb",
    ]) {
        return Ok(Some(NamedOrder::DropAtomicBomb {
            territory: place_after(names, rest, "the atomic bomb")?,
        }));
    }
    if let Some(rest) = text.after_phrase("order of loss") {
        let rest = rest
            .s
            .strip_prefix(':')
            .map_or(rest, |s| Text { s, at: rest.at + 1 });
        return Ok(Some(NamedOrder::SetOrderOfLoss {
            units: names.unit_codes(rest)?,
        }));
    }
    if let Some(rest) = text.after_phrase("never break off") {
        return nothing_after(names, rest, NamedOrder::SetBreakOff { after: None }).map(Some);
    }
    if let Some(rest) = text.after_phrase("break off") {
        let usage = "break off after 2 attacks";
        let Some(rest) = rest.after_phrase("after") else {
            return Err(names.error(
                rest,
                format!("break off reads \"{usage}\" (or \"never break off\")"),
            ));
        };
        return Ok(Some(NamedOrder::SetBreakOff {
            after: Some(count_of(
                names,
                rest,
                &["attacks", "attack"],
                "break off",
                usage,
            )?),
        }));
    }
    Ok(None)
}

/// A defender's standing orders (never sealed ones: the server seals them).
fn standing_orders_order(
    names: &Names<'_>,
    text: Text<'_>,
) -> Result<Option<NamedOrder>, NotationError> {
    if text.after_phrase("sealed standing orders").is_some() {
        return Err(names.error(
            text,
            "sealed standing orders are how the record keeps them, written by the server: \
             write \"standing orders\" and the server seals them"
                .to_owned(),
        ));
    }
    if let Some(rest) = text.after_phrase("standing orders") {
        return standing_orders(names, rest).map(Some);
    }
    Ok(None)
}

/// The refusal of a line that begins with no order, with the keywords closest to its
/// first words.
fn unknown_order(names: &Names<'_>, whole: Text<'_>) -> NotationError {
    let first: String = whole
        .words()
        .iter()
        .take(2)
        .map(|w| w.s.to_lowercase())
        .collect::<Vec<_>>()
        .join(" ");
    let first_word = whole.words().first().map(|w| w.s.to_lowercase());
    let mut suggestions = closest(&first, KEYWORDS.iter().map(|k| (*k, *k)));
    if suggestions.is_empty() {
        if let Some(word) = first_word {
            suggestions = closest(&word, KEYWORDS.iter().map(|k| (*k, *k)));
        }
    }
    NotationError {
        suggestions,
        ..names.error(
            whole,
            format!(
                "no order begins \"{}\" (orders begin: buy, move, battle, place, end phase, \
                 end turn, ...; docs/playing.md lists them all)",
                whole.words().first().map_or("", |w| w.s)
            ),
        )
    }
}

/// A count, then nothing or one of `nouns` (the plural first): `2 dice`, `1 attack`.
/// `what` and `usage` name the order in refusals ("research", "research 2 dice").
fn count_of(
    names: &Names<'_>,
    rest: Text<'_>,
    nouns: &[&str],
    what: &str,
    usage: &str,
) -> Result<u32, NotationError> {
    let words = rest.words();
    let Some(first) = words.first() else {
        return Err(names.error(rest, format!("{what}: how many {}?", nouns[0])));
    };
    let after = first.at - rest.at + first.s.len();
    let tail = Text {
        s: &rest.s[after..],
        at: rest.at + after,
    };
    if !(tail.is_empty() || tail.after_any(nouns).is_some_and(Text::is_empty)) {
        return Err(names.error(tail, format!("{what} reads \"{usage}\"")));
    }
    names.number(*first, &format!("{what} {}", nouns[0]))
}

fn nothing_after(
    names: &Names<'_>,
    rest: Text<'_>,
    order: NamedOrder,
) -> Result<NamedOrder, NotationError> {
    if rest.is_empty() {
        Ok(order)
    } else {
        Err(names.error(
            rest,
            format!("nothing follows this order; \"{}\" is left over", rest.s),
        ))
    }
}

/// `2 INF, 1 ARM: Germany > Ukraine`, or `2 INF, 1 ARM from Germany to Ukraine`.
fn units_and_path(
    names: &Names<'_>,
    rest: Text<'_>,
    what: &str,
) -> Result<(crate::game::named::UnitList, Vec<String>), NotationError> {
    if let Some(i) = rest.s.find(':') {
        let units = Text {
            s: &rest.s[..i],
            at: rest.at,
        };
        let path = Text {
            s: &rest.s[i + 1..],
            at: rest.at + i + 1,
        };
        return Ok((names.units(units)?, names.path(path)?));
    }
    if let Some((units, path)) = rest.split_word("from") {
        return Ok((names.units(units)?, names.path_from(path)?));
    }
    Err(names.error(
        rest,
        format!(
            "a {what} reads \"{what} 2 INF: Germany > East Europe\" or \"{what} 2 INF from \
             Germany to East Europe\""
        ),
    ))
}

/// `2 INF by 2 bombers: Germany > Ukraine`.
fn air_drop(names: &Names<'_>, rest: Text<'_>) -> Result<NamedOrder, NotationError> {
    let Some((troops, carried)) = rest.split_word("by") else {
        return Err(names.error(
            rest,
            "an air drop reads \"air drop 2 INF by 2 bombers: Germany > Ukraine\"".to_owned(),
        ));
    };
    let words = carried.words();
    let Some(count) = words.first() else {
        return Err(names.error(carried, "how many bombers?".to_owned()));
    };
    let bombers = names.number(*count, "bombers")?;
    let after_count = count.at - carried.at + count.s.len();
    let tail = Text {
        s: &carried.s[after_count..],
        at: carried.at + after_count,
    }
    .trim();
    let tail = tail
        .after_any(&["bombers", "bomber", "bmb", "bmbs"])
        .unwrap_or(tail);
    let tail = tail
        .s
        .strip_prefix(':')
        .map_or(tail, |s| Text { s, at: tail.at + 1 });
    Ok(NamedOrder::AirDrop {
        bombers,
        troops: names.units(troops)?,
        path: names.path(tail)?,
    })
}

/// `enter to Germany` / `rail from Germany`.
fn permission_and_power<'a>(
    names: &Names<'_>,
    rest: Text<'a>,
    word: &str,
) -> Result<(String, Text<'a>), NotationError> {
    let Some((permission, power)) = rest.split_word(word) else {
        return Err(names.error(
            rest,
            format!("a permission reads \"grant enter to Germany\" (or revoke ... from ...); \"{word}\" and the power are missing"),
        ));
    };
    let p = permission.s.to_ascii_lowercase();
    let p = p.trim_end_matches(" permission");
    match p {
        "enter" | "rail" | "ferry" => Ok((p.to_owned(), power)),
        _ => Err(NotationError {
            suggestions: closest(p, ["enter", "rail", "ferry"].into_iter().map(|k| (k, k))),
            ..names.error(
                permission,
                format!(
                    "no permission \"{}\"; permissions: enter, rail, ferry",
                    permission.s
                ),
            )
        }),
    }
}

/// `2 on BB in SZ 36, 1 on AC in SZ 37`: each strike's tokens, ship and sea zone.
fn kamikaze(names: &Names<'_>, rest: Text<'_>) -> Result<NamedOrder, NotationError> {
    let shape = "a kamikaze attack reads \"kamikaze 2 on BB in SZ 36, 1 on AC in SZ 37\": \
                 tokens, the ship struck and its sea zone, for each strike";
    let rest = rest
        .s
        .strip_prefix(':')
        .map_or(rest, |s| Text { s, at: rest.at + 1 })
        .trim();
    let mut strikes = Vec::new();
    for part in rest.split(",") {
        let Some((what, zone)) = part.split_last_word("in") else {
            return Err(names.error(part, shape.to_owned()));
        };
        let Some((tokens, unit)) = what.split_word("on").or_else(|| what.split_word("at")) else {
            return Err(names.error(what, shape.to_owned()));
        };
        // "2" or "2 tokens".
        let count = tokens.words();
        let token_word = |w: &Text<'_>| ["token", "tokens"].contains(&w.s.to_lowercase().as_str());
        let (Some(first), true) = (
            count.first(),
            count.len() == 1 || count.get(1).is_some_and(token_word) && count.len() == 2,
        ) else {
            return Err(names.error(tokens, shape.to_owned()));
        };
        strikes.push(crate::game::named::NamedStrike {
            sea_zone: names.place(zone)?,
            unit: names.unit(unit)?,
            tokens: names.number(*first, "kamikaze tokens")?,
        });
    }
    Ok(NamedOrder::KamikazeAttack { strikes })
}

/// `Ukraine; combat SAAC; loss INF, ARM; retreat after round 2; retreat to Germany;
/// bombard from SZ 5, SZ 6; kamikaze BB`.
fn battle(names: &Names<'_>, rest: Text<'_>, raid: bool) -> Result<NamedOrder, NotationError> {
    let mut clauses = rest.split(";").into_iter();
    let place = clauses.next().unwrap_or(rest);
    let place = place.after_any(&["in", "at", "on"]).unwrap_or(place);
    let mut order = NamedOrder::FightBattle {
        territory: names.place(place)?,
        combat: None,
        order_of_loss: Vec::new(),
        retreat: None,
        retreat_to: None,
        bombing_raid: raid,
        bombard_from: Vec::new(),
        kamikaze_target: None,
        blend_in: None,
    };
    let NamedOrder::FightBattle {
        combat,
        order_of_loss,
        retreat,
        retreat_to,
        bombing_raid,
        bombard_from,
        kamikaze_target,
        blend_in,
        ..
    } = &mut order
    else {
        unreachable!("built above");
    };
    for clause in clauses {
        if clause.is_empty() {
            continue;
        }
        if let Some(code) = clause.after_any(&["combat order", "combat"]) {
            *combat = Some(combat_order(names, code)?);
        } else if let Some(units) = clause.after_any(&["order of loss", "losses", "loss"]) {
            let units = units.s.strip_prefix(':').map_or(units, |s| Text {
                s,
                at: units.at + 1,
            });
            *order_of_loss = names.unit_codes(units)?;
        } else if let Some(to) = clause.after_phrase("retreat to") {
            *retreat_to = Some(names.place(to)?);
        } else if let Some(when) = clause.after_phrase("retreat") {
            *retreat = Some(condition(names, clause, when, "retreat")?);
        } else if let Some(when) = clause.after_phrase("blend in") {
            *blend_in = Some(condition(names, clause, when, "blend in")?);
        } else if let Some(rest) = clause.after_any(&["bombing raid", "bomb"]) {
            if !rest.is_empty() {
                return Err(names.error(rest, "\"bombing raid\" takes nothing after it".to_owned()));
            }
            *bombing_raid = true;
        } else if let Some(zones) = clause.after_any(&["bombard from", "bombard"]) {
            *bombard_from = names.places(zones)?;
        } else if let Some(unit) = clause.after_any(&["kamikaze at", "kamikaze"]) {
            *kamikaze_target = Some(names.unit(unit)?);
        } else if let Some(code) = combat_code(clause) {
            *combat = Some(code);
        } else {
            return Err(NotationError {
                suggestions: closest(
                    &clause.s.to_lowercase(),
                    [
                        "combat",
                        "loss",
                        "retreat after round",
                        "retreat at",
                        "retreat to",
                        "bombing raid",
                        "bombard from",
                        "kamikaze",
                        "blend in after round",
                        "blend in when down to",
                    ]
                    .into_iter()
                    .map(|k| (k, k)),
                ),
                ..names.error(
                    clause,
                    format!(
                        "a battle takes: combat, loss, retreat after round, retreat at, retreat \
                         to, bombing raid, bombard from, kamikaze, blend in; not \"{}\"",
                        clause.s
                    ),
                )
            });
        }
    }
    Ok(order)
}

/// When to retreat or blend in: `after round 2`, `when down to 3` (`at 3`, `with 3`), and
/// for blending in `before the first die` (after round 0).
fn condition(
    names: &Names<'_>,
    clause: Text<'_>,
    when: Text<'_>,
    what: &str,
) -> Result<NamedRetreat, NotationError> {
    if what == "blend in"
        && when
            .after_any(&["before the first die", "at once"])
            .is_some_and(Text::is_empty)
    {
        return Ok(NamedRetreat::AfterRound(0));
    }
    if let Some(round) = when.after_any(&["after round", "after"]) {
        return Ok(NamedRetreat::AfterRound(names.number(round, what)?));
    }
    if let Some(left) = when.after_any(&["when down to", "at", "with"]) {
        let left = left.words();
        let Some(n) = left.first() else {
            return Err(names.error(clause, format!("{what} at how many units?")));
        };
        return Ok(NamedRetreat::WhenAtMost(names.number(*n, what)?));
    }
    Err(names.error(
        clause,
        format!(
            "{what} takes \"after round N\" or \"when down to N\"{}; not \"{}\"",
            if what == "blend in" {
                " or \"before the first die\""
            } else {
                ""
            },
            clause.s
        ),
    ))
}

fn combat_code(text: Text<'_>) -> Option<String> {
    crate::battle::CombatOrder::from_code(text.s.trim()).map(|c| c.code().to_owned())
}

fn combat_order(names: &Names<'_>, text: Text<'_>) -> Result<String, NotationError> {
    if text.is_empty() {
        return Err(names.error(
            text,
            "a combat order is missing here (SA, SAAC, TAAC, KAAC or WI)".to_owned(),
        ));
    }
    combat_code(text).ok_or_else(|| NotationError {
        suggestions: closest(
            text.s,
            ["SA", "SAAC", "TAAC", "KAAC", "WI"]
                .into_iter()
                .map(|k| (k, k)),
        ),
        ..names.error(
            text,
            format!(
                "no combat order \"{}\"; orders: SA, SAAC, TAAC, KAAC, WI",
                text.s.trim()
            ),
        )
    })
}

/// `[for Germany]; loss INF, ARM; retreat subs [to SZ 5]; submerge subs; battleships do not
/// absorb; blend in after round 1`.
fn standing_orders(names: &Names<'_>, rest: Text<'_>) -> Result<NamedOrder, NotationError> {
    let mut clauses = rest.split(";").into_iter();
    let head = clauses.next().unwrap_or(rest);
    let head = head
        .s
        .strip_suffix(':')
        .map_or(head, |s| Text { s, at: head.at })
        .trim();
    let territory =
        if head.is_empty() || head.after_phrase("everywhere").is_some_and(Text::is_empty) {
            None
        } else {
            Some(names.place(head.after_any(&["for", "in", "at"]).unwrap_or(head))?)
        };
    let mut order_of_loss = Vec::new();
    let mut submerge_subs = false;
    let mut battleships_absorb = None;
    let mut retreat_subs = false;
    let mut retreat_subs_to = None;
    let mut blend_in = None;
    for clause in clauses {
        if clause.is_empty()
            || clause
                .after_any(&["defaults", "default"])
                .is_some_and(Text::is_empty)
        {
            continue;
        }
        if let Some(units) = clause.after_any(&["order of loss", "losses", "loss"]) {
            order_of_loss = names.unit_codes(units)?;
        } else if clause.after_any(&["submerge subs", "submerge"]).is_some() {
            submerge_subs = true;
        } else if let Some(rest) = clause.after_any(&["retreat subs", "retreat submarines"]) {
            retreat_subs = true;
            if let Some(zone) = rest.after_phrase("to") {
                retreat_subs_to = Some(names.place(zone)?);
            } else if !rest.is_empty() {
                return Err(names.error(
                    rest,
                    "\"retreat subs\" takes nothing after it but \"to\" and a sea zone".to_owned(),
                ));
            }
        } else if let Some(when) = clause.after_phrase("blend in") {
            blend_in = Some(condition(names, clause, when, "blend in")?);
        } else if let Some(rest) = clause.after_phrase("battleships") {
            let no = rest
                .after_any(&["do not", "don't", "never", "not"])
                .is_some();
            battleships_absorb = (no).then_some(false);
        } else {
            return Err(names.error(
                clause,
                format!(
                    "standing orders take: loss, retreat subs, submerge subs, battleships do not \
                     absorb, blend in; not \"{}\"",
                    clause.s
                ),
            ));
        }
    }
    Ok(NamedOrder::SetStandingOrders {
        territory,
        order_of_loss,
        submerge_subs,
        battleships_absorb,
        retreat_subs,
        retreat_subs_to,
        blend_in,
    })
}
