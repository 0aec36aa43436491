//! The battle listing in the notation of Part 13:
//!
//! ```text
//! A1 1*2*3*1*2*5 5 Hits
//!   defender loses 2 INF (default order); 3 hits overkill
//! D1 1*2* 2 Hits
//!   attacker loses 2 ARM (default order)
//! ```
//!
//! A line per side and round: the side (A, D) and round, every die of every column in
//! column order with `*` after each hit, and the hits (overkill included, as the GM lists
//! them; nothing when there are none). Phases before the columns have their own letters:
//! K (kamikaze), AA (anti-aircraft), B (battleship support shot), S (attacking subs).

use std::fmt::Write;

use crate::units::{Catalogue, UnitTypeId};

use super::{BattleLog, Casualty, Effect, LossReason, Outcome, Phase, Side, Volley};

impl BattleLog {
    /// The listing, one line per volley and a line of casualties under each.
    pub fn render(&self, catalogue: &Catalogue) -> String {
        let mut out = String::new();
        for volley in self.volleys() {
            let _ = writeln!(out, "{}", volley_line(&volley, catalogue));
            if let Some(line) = casualty_line(&volley, catalogue) {
                let _ = writeln!(out, "  {line}");
            }
        }
        let _ = writeln!(
            out,
            "{}; attacker left: {}; defender left: {}",
            outcome_text(self.outcome),
            units_text(self.left(Side::Attacker), catalogue),
            units_text(self.left(Side::Defender), catalogue)
        );
        out
    }
}

fn volley_line(volley: &Volley<'_>, catalogue: &Catalogue) -> String {
    let round = volley.round;
    let prefix = match (volley.phase, volley.side) {
        (Phase::Kamikaze, _) => "K",
        (Phase::AntiAircraft, _) => "AA",
        (Phase::SupportShot, _) => "B",
        (Phase::FirstStrike, _) => "S",
        (Phase::Columns, Side::Attacker) => "A",
        (Phase::Columns, Side::Defender) => "D",
    };
    if volley.phase == Phase::Kamikaze {
        let target = volley
            .casualties
            .first()
            .map(|c| catalogue.get(c.unit).code.as_str())
            .unwrap_or("?");
        return format!("{prefix}{round} FTR -> {target}");
    }
    let mut line = format!("{prefix}{round} ");
    for d in volley.dice {
        line.push_str(&d.die.to_string());
        if d.hit {
            line.push('*');
        }
    }
    match volley.hits {
        0 => {}
        1 => line.push_str(" 1 Hit"),
        n => {
            let _ = write!(line, " {n} Hits");
        }
    }
    line
}

fn casualty_line(volley: &Volley<'_>, catalogue: &Catalogue) -> Option<String> {
    if volley.casualties.is_empty() && volley.overkill == 0 {
        return None;
    }
    let loser = match volley.side {
        Side::Attacker => "defender",
        Side::Defender => "attacker",
    };
    // Group by (what happened, unit, why), keeping first-seen order.
    let mut groups: Vec<((Effect, UnitTypeId, LossReason), u32)> = Vec::new();
    for Casualty {
        unit,
        effect,
        reason,
    } in volley.casualties
    {
        let key = (*effect, *unit, *reason);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => *n += 1,
            None => groups.push((key, 1)),
        }
    }
    let mut parts: Vec<String> = groups
        .iter()
        .map(|((effect, unit, reason), n)| {
            let verb = match effect {
                Effect::Damaged => "damaged",
                Effect::ToCasualtyArea | Effect::Removed => "lost",
            };
            format!(
                "{n} {} {verb} ({})",
                catalogue.get(*unit).code,
                reason_text(*reason)
            )
        })
        .collect();
    if volley.overkill > 0 {
        parts.push(format!(
            "{} overkill",
            crate::words::counted(u64::from(volley.overkill), "hit", "hits")
        ));
    }
    Some(format!("{loser}: {}", parts.join("; ")))
}

fn reason_text(reason: LossReason) -> String {
    match reason {
        LossReason::DefaultOrder => "default order".to_owned(),
        LossReason::ExplicitOrder => "player's order of loss".to_owned(),
        LossReason::CombatOrder(order) => format!("{} order", order.code()),
        LossReason::BattleshipAbsorbs => "battleship takes the hit".to_owned(),
        LossReason::AntiAircraft => "anti-aircraft fire".to_owned(),
        LossReason::Kamikaze => "kamikaze".to_owned(),
    }
}

fn outcome_text(outcome: Outcome) -> &'static str {
    outcome.describe()
}

impl Outcome {
    /// In plain words, as the listing and the pages write it.
    pub fn describe(self) -> &'static str {
        match self {
            Outcome::AttackerWins => "Attacker wins",
            Outcome::DefenderWins => "Defender wins",
            Outcome::MutualDestruction => "Both sides destroyed",
            Outcome::AttackerRetreated => "Attacker retreats",
            Outcome::Disengaged => "No further combat possible",
            Outcome::WalkedIn => "Walked in, no battle",
            Outcome::AttackerBlendedIn => "Attacker blends in, both sides stay",
            Outcome::DefenderBlendedIn => "Defender blends in, both sides stay",
        }
    }
}

fn units_text(army: &super::army::Army, catalogue: &Catalogue) -> String {
    super::odds::describe(&super::odds::survivors_of(army), catalogue)
}
