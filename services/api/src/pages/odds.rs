//! The odds calculator page: a plain form (no script) for the attacker, the defender, land
//! or sea, the combat order, the powers fighting (AAP's heavy weapons spare the CCP) and
//! the defender's standing orders; its answer is computed by
//! the same code as `POST /v1/odds`, within the same limits.

use actix_web::{get, web, HttpRequest, HttpResponse};
use maud::{html, Markup, PreEscaped};
use serde::Deserialize;

use super::{layout, render};
use crate::charts::bar_chart;
use crate::error::ApiError;
use crate::query::parse_query;
use crate::reads::odds::odds_for;
use crate::AppState;
use warlog_rules::board::Power;
use warlog_rules::described_battle::{DescribedBattle, DescribedOdds, SurvivorOdds};

/// The form's fields as a browser sends them (a checked box is `on`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct OddsForm {
    attacker: Option<String>,
    defender: Option<String>,
    ruleset: Option<String>,
    sea: Option<String>,
    order: Option<String>,
    defender_order_of_loss: Option<String>,
    submerge: Option<String>,
    /// `yes` (the default), or `no`: the defender's battleships do not take the first hit.
    battleships_absorb: Option<String>,
    /// The powers fighting, by id (`ccp`): AAP's heavy weapons never count the CCP (4.1).
    attacker_power: Option<String>,
    defender_power: Option<String>,
}

/// The powers the form offers: AAP Historical's, whose heavy weapons depend on who fights.
const POWERS: [(Power, &str); 5] = [
    (Power::Japan, "japan"),
    (Power::Ccp, "ccp"),
    (Power::Kmt, "kmt"),
    (Power::UnitedKingdom, "united-kingdom"),
    (Power::UnitedStates, "united-states"),
];

fn power_of(id: &Option<String>) -> Option<Power> {
    POWERS
        .iter()
        .find(|(_, key)| id.as_deref() == Some(*key))
        .map(|(power, _)| *power)
}

impl OddsForm {
    /// The API's request, once both sides are given.
    fn request(&self) -> Option<DescribedBattle> {
        let given = |v: &Option<String>| {
            v.as_deref()
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
        };
        Some(DescribedBattle {
            attacker: given(&self.attacker)?,
            defender: given(&self.defender)?,
            sea: self.sea.is_some(),
            support_shots: 0,
            order: given(&self.order),
            ruleset: given(&self.ruleset),
            defender_order_of_loss: given(&self.defender_order_of_loss),
            submerge: self.submerge.is_some(),
            battleships_absorb: (self.battleships_absorb.as_deref() == Some("no")).then_some(false),
            attacker_power: power_of(&self.attacker_power),
            defender_power: power_of(&self.defender_power),
            attacker_blend_in: None,
            defender_blend_in: None,
        })
    }
}

/// The survivors' outcomes a chart shows, the likeliest first.
const SURVIVORS_SHOWN: usize = 10;

fn percent(p: f64) -> String {
    format!("{:.2}%", p * 100.0)
}

fn form(f: &OddsForm) -> Markup {
    let value = |v: &Option<String>| v.clone().unwrap_or_default();
    html! {
        form.odds method="get" action="/odds" {
            div.row {
                p.field {
                    label for="attacker" { "Attacker" }
                    input #attacker name="attacker" required placeholder="3 inf, 1 arm, 1 ftr" value=(value(&f.attacker));
                }
                p.field {
                    label for="defender" { "Defender" }
                    input #defender name="defender" required placeholder="2 inf, 1 aa" value=(value(&f.defender));
                }
            }
            div.row {
                p.field {
                    label for="ruleset" { "Units of" }
                    select #ruleset name="ruleset" {
                        @for (id, name) in [("cutthroat", "Cut-Throat"), ("classic", "Classic"), ("aap-historical", "AAP Historical")] {
                            option value=(id) selected[f.ruleset.as_deref() == Some(id)] { (name) }
                        }
                    }
                }
                p.field {
                    label for="order" { "Attacker's combat order" }
                    select #order name="order" {
                        option value="" { "the ruleset's default" }
                        @for code in ["SA", "SAAC", "TAAC", "KAAC", "WI"] {
                            option value=(code) selected[f.order.as_deref() == Some(code)] { (code) }
                        }
                    }
                }
            }
            div.row {
                @for (field, label, chosen) in [("attacker_power", "Attacking power (AAP)", &f.attacker_power), ("defender_power", "Defending power (AAP)", &f.defender_power)] {
                    p.field {
                        label for=(field) { (label) }
                        select id=(field) name=(field) {
                            option value="" { "any: every stack counts for heavy weapons" }
                            @for (power, key) in POWERS {
                                option value=(key) selected[chosen.as_deref() == Some(key)] { (power.name()) }
                            }
                        }
                    }
                }
            }
            p.check {
                label { input type="checkbox" name="sea" checked[f.sea.is_some()]; "A sea battle" }
            }
            fieldset {
                legend { "Defender's standing orders" }
                p.field {
                    label for="defender_order_of_loss" { "Order of loss" }
                    input #defender_order_of_loss name="defender_order_of_loss" placeholder="inf, arm, ftr" value=(value(&f.defender_order_of_loss));
                }
                p.check {
                    label { input type="checkbox" name="submerge" checked[f.submerge.is_some()]; "Submarines submerge" }
                }
                p.check {
                    label { input type="checkbox" name="battleships_absorb" value="no" checked[f.battleships_absorb.as_deref() == Some("no")]; "Battleships do not take the first hit" }
                }
            }
            p.buttons { button type="submit" { "Compute the odds" } }
        }
    }
}

fn answer(computed: &DescribedOdds) -> Markup {
    let top = |list: &[SurvivorOdds]| -> Vec<(String, f64)> {
        let mut list: Vec<_> = list.iter().collect();
        list.sort_by(|a, b| b.probability.total_cmp(&a.probability));
        list.iter()
            .take(SURVIVORS_SHOWN)
            .map(|s| {
                let units = if s.units.is_empty() {
                    "none".to_owned()
                } else {
                    s.units.clone()
                };
                (units, (s.probability * 10_000.0).round() / 100.0)
            })
            .collect()
    };
    html! {
        h2 { "Odds" }
        @if computed.method == "estimate" {
            p.note { "Beyond the exact odds' budget: an estimate from " (computed.trials.unwrap_or(0))
                " battles (standard error " (format!("{:.2}", computed.standard_error.unwrap_or(0.0) * 100.0)) " points)." }
        }
        table.odds {
            tbody {
                tr { th { "Attacker wins" } td.num { (percent(computed.attacker_win)) } }
                tr { th { "Defender wins" } td.num { (percent(computed.defender_win)) } }
                tr { th { "Both destroyed" } td.num { (percent(computed.mutual_destruction)) } }
                tr { th { "Attacker withdraws" } td.num { (percent(computed.attacker_retreated)) } }
            }
        }
        h2 { "Expected losses" }
        table {
            thead { tr { th { "Side" } th.num { "Units" } th.num { "IPC" } } }
            tbody {
                tr { th { "Attacker" } td.num { (format!("{:.2}", computed.attacker_expected_losses.units)) } td.num { (format!("{:.2}", computed.attacker_expected_losses.ipc)) } }
                tr { th { "Defender" } td.num { (format!("{:.2}", computed.defender_expected_losses.units)) } td.num { (format!("{:.2}", computed.defender_expected_losses.ipc)) } }
            }
        }
        h2 { "Survivors" }
        p.note { "What is left of each side when the battle ends, the likeliest outcomes first (at most " (SURVIVORS_SHOWN) " of them)." }
        (PreEscaped(bar_chart("The attacker's survivors", "%", &top(&computed.attacker_survivors))))
        (PreEscaped(bar_chart("The defender's survivors", "%", &top(&computed.defender_survivors))))
    }
}

/// The odds calculator.
#[get("/odds")]
pub async fn odds_page(state: web::Data<AppState>, req: HttpRequest) -> HttpResponse {
    render(
        async {
            let f: OddsForm = parse_query(req.query_string())?;
            let computed = match f.request() {
                Some(request) => Some(odds_for(&req, &state, request).await?),
                None => None,
            };
            Ok::<_, ApiError>(layout(
                "Battle odds",
                html! {
                    h1 { "Battle odds" }
                    p.lead { "Exact odds by the rules the league plays (IAAPA Part 13, with the ruleset's defaults). "
                        "Units as counts and codes: " code { "3 inf, 1 arm, 2 ftr" } ". The same as "
                        code { "POST /v1/odds" } "." }
                    (form(&f))
                    @if let Some(computed) = &computed { (answer(computed)) }
                },
            ))
        }
        .await,
    )
}
