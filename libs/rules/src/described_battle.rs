//! A battle described in words (each side's units as `3 inf, 1 arm`, a ruleset by id, the
//! orders a player would give) and its odds: the battle is set up as the ruleset's games
//! fight it, then its odds are computed exactly within a budget, or else estimated from a
//! fixed number of battles. `POST /v1/odds`, the odds page and `warlog odds` all ask here.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::battle::{
    describe, estimated_odds, exact_odds_within, Battle, BattleError, BattleKind, CombatOrder,
    Survivors, Work,
};
use crate::board::Power;
use crate::dice::GameSeed;
use crate::document::RulesetDocument;
use crate::game::named::NamedRetreat;
use crate::units::{Catalogue, UnitTypeId};
use crate::violation::ViolationCode;

/// The ruleset whose units a battle is fought with when none is named.
pub const DEFAULT_RULESET: &str = "cutthroat";

/// The most units a side may have: the chain grows with the product of the sides.
pub const MAX_UNITS_PER_SIDE: u32 = 60;

/// The exact odds' budget, in steps (a steady round's transition is one; a round expanded
/// die by die, 200): about half a second on the machine in docs/benchmarks.md. Beyond
/// it, the odds are estimated instead.
pub const EXACT_WORK_BUDGET: u64 = 20_000_000;

/// Battles fought for an estimate: each probability within about one percentage point
/// (a standard error of at most 0.5 / sqrt(2000) = 1.1%).
pub const ESTIMATE_TRIALS: u32 = 2_000;

/// A bound on an estimate's work too (rounds fought), in case every battle runs long.
pub const ESTIMATE_WORK_BUDGET: u64 = 2_000_000;

/// A battle to compute.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = OddsRequest, example = json!({"attacker": "3 inf, 1 arm", "defender": "2 inf"})))]
#[serde(deny_unknown_fields)]
pub struct DescribedBattle {
    /// Attacking units, e.g. `3 inf, 1 arm, 1 ftr`.
    pub attacker: String,
    /// Defending units.
    pub defender: String,
    /// A sea battle (default: land).
    #[serde(default)]
    pub sea: bool,
    /// Battleships bombarding an amphibious assault (at most 60).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(maximum = 60))]
    pub support_shots: u32,
    /// The attacker's combat order: SA, SAAC, TAAC, KAAC or WI. Without one, the ruleset's
    /// defaults: for Cut-Throat and the Classic units, Save Air, then Save Air At All Costs
    /// from round 2 on land, and Kill At All Costs at sea.
    #[serde(default)]
    pub order: Option<String>,
    /// Whose units: classic, cutthroat (default) or aap-historical.
    #[serde(default)]
    pub ruleset: Option<String>,
    /// The defender's standing order of loss: unit codes, first lost first (`"arm, inf"`).
    #[serde(default)]
    pub defender_order_of_loss: Option<String>,
    /// The defender's submarines submerge when attacked (sea battles).
    #[serde(default)]
    pub submerge: bool,
    /// `false`: the defender's battleships do not take the first hits as damage.
    #[serde(default)]
    pub battleships_absorb: Option<bool>,
    /// The attacking power (`ccp`, `japan`...), where the ruleset's heavy weapons care:
    /// an attacking CCP stack never counts in AAP Historical (4.1).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "ccp"))]
    pub attacker_power: Option<Power>,
    /// The defending power: a defending CCP group never counts for heavy weapons.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, example = "japan"))]
    pub defender_power: Option<Power>,
    /// Attacking guerrillas (AAP's CCP, 3.1) stop firing and the battle ends with both
    /// sides in place: `{"after_round": N}` (0: before the first die) or
    /// `{"when_at_most": N}` units left.
    #[serde(default)]
    pub attacker_blend_in: Option<NamedRetreat>,
    /// Defending guerrillas blend in, as a standing order says.
    #[serde(default)]
    pub defender_blend_in: Option<NamedRetreat>,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SurvivorOdds {
    pub units: String,
    pub probability: f64,
}

/// What a side can expect to lose, over every outcome weighed by its probability.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ExpectedLosses {
    pub units: f64,
    pub ipc: f64,
}

impl ExpectedLosses {
    /// The side's army less its expected survivors.
    fn of(
        army: &[(UnitTypeId, u32)],
        survivors: &[(Survivors, f64)],
        catalogue: &Catalogue,
    ) -> Self {
        let cost = |id: UnitTypeId| f64::from(catalogue.get(id).cost);
        let units: f64 = army.iter().map(|(_, n)| f64::from(*n)).sum();
        let ipc: f64 = army.iter().map(|(id, n)| cost(*id) * f64::from(*n)).sum();
        let (mut kept_units, mut kept_ipc) = (0.0, 0.0);
        for (left, p) in survivors {
            for ((id, _damaged), n) in left {
                kept_units += p * f64::from(*n);
                kept_ipc += p * cost(*id) * f64::from(*n);
            }
        }
        ExpectedLosses {
            units: units - kept_units,
            ipc: ipc - kept_ipc,
        }
    }
}

/// Exact probabilities of each outcome, and of the survivors.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = OddsView))]
pub struct DescribedOdds {
    pub ruleset: String,
    pub kind: &'static str,
    pub attacker: String,
    pub defender: String,
    pub attacker_win: f64,
    pub defender_win: f64,
    pub mutual_destruction: f64,
    pub attacker_retreated: f64,
    pub disengaged: f64,
    /// Guerrillas on either side stopped firing (AAP 3.1): both sides stay in place.
    pub blended_in: f64,
    pub attacker_survivors: Vec<SurvivorOdds>,
    pub defender_survivors: Vec<SurvivorOdds>,
    /// The attacker's expected losses: units, and their cost in IPC.
    pub attacker_expected_losses: ExpectedLosses,
    pub defender_expected_losses: ExpectedLosses,
    /// States of the chain expanded (0 for an estimate).
    pub states: usize,
    /// `exact` (a Markov chain over every roll), or `estimate` (the battle fought
    /// `trials` times, when the exact odds are beyond this service's budget).
    pub method: &'static str,
    /// For an estimate: the battles fought.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trials: Option<u32>,
    /// For an estimate: the standard error of `attacker_win` (every probability's is at
    /// most `0.5 / sqrt(trials)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standard_error: Option<f64>,
}

/// Why a described battle's odds are not given; each says what, for people.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OddsRefusal {
    /// No built-in ruleset of that id.
    #[error("{0}")]
    NoRuleset(String),
    /// A unit the ruleset does not have.
    #[error("{0}")]
    UnknownUnit(String),
    /// The description cannot be read, or is beyond the limits.
    #[error("{0}")]
    Malformed(String),
    /// Beyond even an estimate's budget, or stopped before its end.
    #[error("{0}")]
    TooLarge(String),
}

impl DescribedBattle {
    /// The ruleset whose units fight: the one named, or Cut-Throat.
    pub fn ruleset(&self) -> &str {
        self.ruleset.as_deref().unwrap_or(DEFAULT_RULESET)
    }

    /// The battle as the ruleset's games fight it: its battle defaults (Cut-Throat: SAAC
    /// from round 2, the defender's hits column by column; AAP: heavy weapons), or the
    /// IAAPA defaults for the bare Classic units; the armies and orders as described.
    fn battle<'c>(&self, catalogue: &'c Catalogue) -> Result<Battle<'c>, OddsRefusal> {
        let ruleset = self.ruleset();
        let kind = if self.sea {
            BattleKind::Sea
        } else {
            BattleKind::Land
        };
        let mut battle = Battle::new(catalogue, kind);
        let mut uncounted = Vec::new();
        match RulesetDocument::builtin(ruleset) {
            Ok(document) => {
                battle.saac_from_round = document.special_rules.saac_from_round;
                battle.defender_hits_by_column = document.special_rules.defender_hits_by_column;
                // AAP 4: the odds a player plans with are those of the battles the game fights.
                battle.heavy_weapons = document.special_rules.heavy_weapons;
                uncounted = document.special_rules.heavy_weapons_uncounted;
            }
            Err(_) => battle = battle.with_iaapa_defaults(),
        }
        battle.attacker =
            Battle::army(catalogue, &self.attacker).map_err(|e| invalid("attacker", e))?;
        battle.defender =
            Battle::army(catalogue, &self.defender).map_err(|e| invalid("defender", e))?;
        battle.count_heavy_weapons_between(&uncounted, self.attacker_power, self.defender_power);
        for (side, army) in [
            ("attacker", &battle.attacker),
            ("defender", &battle.defender),
        ] {
            let units: u32 = army.iter().map(|(_, n)| n).sum();
            if units > MAX_UNITS_PER_SIDE {
                return Err(OddsRefusal::Malformed(format!(
                    "{side}: at most {MAX_UNITS_PER_SIDE} units a side, not {units}"
                )));
            }
        }
        if self.support_shots > MAX_UNITS_PER_SIDE {
            return Err(OddsRefusal::Malformed(format!(
                "support_shots: at most {MAX_UNITS_PER_SIDE}, not {}",
                self.support_shots
            )));
        }
        battle.support_shots = self.support_shots;
        battle.attacker_orders.combat = self
            .order
            .as_deref()
            .map(|code| {
                CombatOrder::from_code(code).ok_or_else(|| {
                    OddsRefusal::Malformed(format!(
                        "order: {code:?} is not one of SA, SAAC, TAAC, KAAC, WI"
                    ))
                })
            })
            .transpose()?;
        if let Some(codes) = &self.defender_order_of_loss {
            battle.defender_orders.order_of_loss = codes
                .split(',')
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(|code| {
                    catalogue.id(code).map_err(|_| {
                        OddsRefusal::UnknownUnit(format!(
                            "defender_order_of_loss: no unit {code:?} in {ruleset}"
                        ))
                    })
                })
                .collect::<Result<_, _>>()?;
        }
        battle.defender_orders.submerge_subs = self.submerge && self.sea;
        battle.defender_orders.battleships_absorb = self.battleships_absorb;
        battle.attacker_orders.blend_in = self.attacker_blend_in.map(NamedRetreat::resolved);
        battle.defender_orders.blend_in = self.defender_blend_in.map(NamedRetreat::resolved);
        Ok(battle)
    }

    /// The battle's odds: exactly within [`EXACT_WORK_BUDGET`], else estimated from
    /// [`ESTIMATE_TRIALS`] battles; stopping when `cancelled` is set (its asker went away).
    pub fn odds(&self, cancelled: Option<Arc<AtomicBool>>) -> Result<DescribedOdds, OddsRefusal> {
        let ruleset = self.ruleset();
        let catalogue =
            Catalogue::builtin(ruleset).map_err(|e| OddsRefusal::NoRuleset(e.to_string()))?;
        let battle = self.battle(&catalogue)?;
        let exact = exact_odds_within(&battle, &Work::within(EXACT_WORK_BUDGET, cancelled.clone()));
        let (odds, trials) = match exact {
            Ok(odds) => (odds, None),
            Err(e) if e.code == ViolationCode::TooLarge => {
                // The same battle gives the same estimate: the dice come from a fixed seed.
                let mut dice = GameSeed::from_bytes([0; 32]).dice_for("odds-estimate", 1);
                let work = Work::within(ESTIMATE_WORK_BUDGET, cancelled.clone());
                let odds = estimated_odds(&battle, ESTIMATE_TRIALS, &mut dice, &work)
                    .map_err(|e| stopped(e).unwrap_or_else(|e| invalid("battle", e)))?;
                (odds, Some(ESTIMATE_TRIALS))
            }
            Err(e) => return Err(stopped(e).unwrap_or_else(|e| invalid("battle", e))),
        };
        let survivors = |list: &[(Survivors, f64)]| {
            list.iter()
                .map(|(s, p)| SurvivorOdds {
                    units: describe(s, &catalogue),
                    probability: probability(*p),
                })
                .collect()
        };
        Ok(DescribedOdds {
            ruleset: ruleset.to_owned(),
            kind: if self.sea { "sea" } else { "land" },
            attacker: self.attacker.clone(),
            defender: self.defender.clone(),
            attacker_win: probability(odds.attacker_win),
            defender_win: probability(odds.defender_win),
            mutual_destruction: probability(odds.mutual_destruction),
            attacker_retreated: probability(odds.attacker_retreated),
            disengaged: probability(odds.disengaged),
            blended_in: probability(odds.blended_in),
            attacker_survivors: survivors(&odds.attacker_survivors),
            defender_survivors: survivors(&odds.defender_survivors),
            attacker_expected_losses: ExpectedLosses::of(
                &battle.attacker,
                &odds.attacker_survivors,
                &catalogue,
            ),
            defender_expected_losses: ExpectedLosses::of(
                &battle.defender,
                &odds.defender_survivors,
                &catalogue,
            ),
            states: odds.states,
            method: if trials.is_some() {
                "estimate"
            } else {
                "exact"
            },
            trials,
            standard_error: trials
                .map(|n| (odds.attacker_win * (1.0 - odds.attacker_win) / f64::from(n)).sqrt()),
        })
    }
}

/// A side's (or the battle's) problem, named by the side.
fn invalid(side: &str, e: BattleError) -> OddsRefusal {
    let message = format!("{side}: {}", e.message);
    if e.code == ViolationCode::UnknownUnit {
        OddsRefusal::UnknownUnit(message)
    } else {
        OddsRefusal::Malformed(message)
    }
}

/// A probability as a sum of many small ones gives it: rounding may carry it a hair
/// outside 0 to 1, where no probability lies.
fn probability(p: f64) -> f64 {
    p.clamp(0.0, 1.0)
}

/// A computation stopped by its budget or its asker's going away, as a refusal; any
/// other battle error is handed back (it is the description's).
fn stopped(e: BattleError) -> Result<OddsRefusal, BattleError> {
    match e.code {
        ViolationCode::TooLarge => Ok(OddsRefusal::TooLarge(e.message)),
        ViolationCode::Cancelled => Ok(OddsRefusal::TooLarge("the request was dropped".to_owned())),
        _ => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn described(attacker: &str, defender: &str) -> DescribedBattle {
        serde_json::from_value(serde_json::json!({"attacker": attacker, "defender": defender}))
            .expect("a description")
    }

    #[test]
    fn a_battle_named_without_a_ruleset_is_fought_with_cut_throats_units_exactly() {
        // Given three infantry and an armour against two infantry, no ruleset named
        let battle = described("3 inf, 1 arm", "2 inf");
        // When its odds are asked
        let odds = battle.odds(None).expect("odds");
        // Then they are Cut-Throat's, exact, and the outcomes sum to one
        assert_eq!(odds.ruleset, "cutthroat");
        assert_eq!(odds.method, "exact");
        let total = odds.attacker_win
            + odds.defender_win
            + odds.mutual_destruction
            + odds.attacker_retreated
            + odds.disengaged
            + odds.blended_in;
        assert!((total - 1.0).abs() < 1e-9, "{total}");
        assert!(odds.attacker_win > odds.defender_win);
    }

    #[test]
    fn an_order_for_a_round_beyond_the_exact_odds_is_estimated_and_one_within_is_exact() {
        // Given guerrillas that blend in after a round no battle reaches, and one near
        let far = |round: u32| -> DescribedBattle {
            serde_json::from_value(serde_json::json!({
                "attacker": "3 inf, 1 arm", "defender": "2 inf",
                "attacker_power": "ccp", "defender_power": "japan",
                "defender_blend_in": {"after_round": round},
            }))
            .expect("a description")
        };
        // When their odds are asked
        let beyond = far(u32::MAX).odds(None).expect("odds");
        let within = far(crate::battle::MAX_EXACT_ROUNDS - 1)
            .odds(None)
            .expect("odds");
        // Then the far one is estimated (its round alone would exhaust the exact budget),
        // the near one exact
        assert_eq!(beyond.method, "estimate");
        assert_eq!(within.method, "exact");
    }

    #[test]
    fn an_unknown_ruleset_unit_order_or_too_large_a_side_is_refused_by_kind() {
        let mut no_ruleset = described("1 inf", "1 inf");
        no_ruleset.ruleset = Some("chess".into());
        assert!(matches!(
            no_ruleset.odds(None),
            Err(OddsRefusal::NoRuleset(_))
        ));
        assert!(matches!(
            described("1 wizard", "1 inf").odds(None),
            Err(OddsRefusal::UnknownUnit(m)) if m.starts_with("attacker: ")
        ));
        let mut bad_order = described("1 inf", "1 inf");
        bad_order.order = Some("ATTACK".into());
        assert_eq!(
            bad_order.odds(None).map(|o| o.method),
            Err(OddsRefusal::Malformed(
                "order: \"ATTACK\" is not one of SA, SAAC, TAAC, KAAC, WI".into()
            ))
        );
        assert_eq!(
            described("61 inf", "1 inf").odds(None).map(|o| o.method),
            Err(OddsRefusal::Malformed(
                "attacker: at most 60 units a side, not 61".into()
            ))
        );
    }
}
