//! `warlog odds`: the exact odds of a battle, as text or JSON (the computation is the
//! rules' `DescribedBattle::odds`, as the API's `POST /v1/odds` is).

use warlog_rules::described_battle::DescribedBattle;

use crate::cli::OddsArgs;
use crate::CliError;

/// The report `warlog odds` prints.
pub fn report(args: &OddsArgs) -> Result<String, CliError> {
    let odds = DescribedBattle {
        attacker: args.attacker.clone(),
        defender: args.defender.clone(),
        sea: args.sea,
        support_shots: args.support_shots,
        order: args.order.clone(),
        ruleset: Some(args.ruleset.clone()),
        defender_order_of_loss: args.defender_order_of_loss.clone(),
        submerge: args.submerge,
        battleships_absorb: args.battleships_do_not_absorb.then_some(false),
        attacker_power: args.attacker_power,
        defender_power: args.defender_power,
        attacker_blend_in: args.attacker_blend_in,
        defender_blend_in: args.defender_blend_in,
    }
    .odds(None)
    .map_err(|e| CliError::Other(e.to_string()))?;
    if args.json {
        return serde_json::to_string_pretty(&odds).map_err(|e| CliError::Other(e.to_string()));
    }
    let mut out = format!(
        "{} attacking {} ({}, {}):\n",
        args.attacker, args.defender, odds.kind, odds.ruleset
    );
    if let (Some(trials), Some(error)) = (odds.trials, odds.standard_error) {
        out.push_str(&format!(
            "  estimated from {trials} battles (the exact odds are beyond the budget): \
             standard error {:.2} percentage points\n",
            error * 100.0
        ));
    }
    for (label, p) in [
        ("attacker wins", odds.attacker_win),
        ("defender wins", odds.defender_win),
        ("both destroyed", odds.mutual_destruction),
        ("attacker retreats", odds.attacker_retreated),
        ("no further combat", odds.disengaged),
        ("blended in", odds.blended_in),
    ] {
        if p > 0.0 {
            out.push_str(&format!("  {label:<18} {:>8.4}%\n", p * 100.0));
        }
    }
    out.push_str("most likely attacker survivors:\n");
    for survivor in odds.attacker_survivors.iter().take(5) {
        out.push_str(&format!(
            "  {:>8.4}%  {}\n",
            survivor.probability * 100.0,
            survivor.units
        ));
    }
    Ok(out)
}
