//! `warlog odds`: the exact odds of a battle, as text or JSON.

use warlog_rules::battle::{describe, exact_odds, Battle, BattleKind, CombatOrder};
use warlog_rules::units::Catalogue;

use crate::cli::OddsArgs;
use crate::CliError;

fn combat_order(code: &str) -> Result<CombatOrder, CliError> {
    match code.to_ascii_uppercase().as_str() {
        "SA" => Ok(CombatOrder::SaveAir),
        "SAAC" => Ok(CombatOrder::SaveAirAtAllCosts),
        "TAAC" => Ok(CombatOrder::TakeAtAllCosts),
        "KAAC" => Ok(CombatOrder::KillAtAllCosts),
        "WI" => Ok(CombatOrder::WalkIn),
        other => Err(CliError::Other(format!(
            "combat order {other:?} is not one of SA, SAAC, TAAC, KAAC, WI"
        ))),
    }
}

/// The report `warlog odds` prints.
pub fn report(args: &OddsArgs) -> Result<String, CliError> {
    let catalogue =
        Catalogue::builtin(&args.ruleset).map_err(|e| CliError::Other(e.to_string()))?;
    let kind = if args.sea {
        BattleKind::Sea
    } else {
        BattleKind::Land
    };
    let mut battle = Battle::new(&catalogue, kind);
    let invalid = |e: warlog_rules::battle::BattleError| CliError::Other(e.to_string());
    battle.attacker = Battle::army(&catalogue, &args.attacker).map_err(invalid)?;
    battle.defender = Battle::army(&catalogue, &args.defender).map_err(invalid)?;
    battle.support_shots = args.support_shots;
    battle.attacker_orders.combat = args.order.as_deref().map(combat_order).transpose()?;
    let odds = exact_odds(&battle).map_err(invalid)?;
    let survivors = |list: &[(warlog_rules::battle::Survivors, f64)]| {
        list.iter()
            .map(|(s, p)| serde_json::json!({"units": describe(s, &catalogue), "probability": p}))
            .collect::<Vec<_>>()
    };
    if args.json {
        let value = serde_json::json!({
            "ruleset": args.ruleset,
            "kind": if args.sea { "sea" } else { "land" },
            "attacker": args.attacker,
            "defender": args.defender,
            "attacker_win": odds.attacker_win,
            "defender_win": odds.defender_win,
            "mutual_destruction": odds.mutual_destruction,
            "attacker_retreated": odds.attacker_retreated,
            "disengaged": odds.disengaged,
            "attacker_survivors": survivors(&odds.attacker_survivors),
            "defender_survivors": survivors(&odds.defender_survivors),
            "states": odds.states,
        });
        return serde_json::to_string_pretty(&value).map_err(|e| CliError::Other(e.to_string()));
    }
    let mut out = format!(
        "{} attacking {} ({}, {}):\n",
        args.attacker,
        args.defender,
        if args.sea { "sea" } else { "land" },
        catalogue.name()
    );
    for (label, p) in [
        ("attacker wins", odds.attacker_win),
        ("defender wins", odds.defender_win),
        ("both destroyed", odds.mutual_destruction),
        ("attacker retreats", odds.attacker_retreated),
        ("no further combat", odds.disengaged),
    ] {
        if p > 0.0 {
            out.push_str(&format!("  {label:<18} {:>8.4}%\n", p * 100.0));
        }
    }
    out.push_str("most likely attacker survivors:\n");
    for (s, p) in odds.attacker_survivors.iter().take(5) {
        out.push_str(&format!(
            "  {:>8.4}%  {}\n",
            p * 100.0,
            describe(s, &catalogue)
        ));
    }
    Ok(out)
}
