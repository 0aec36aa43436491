//! Orders written back in the notation: what [`super::parse`] reads, it writes.

use crate::game::named::{NamedOrder, NamedRetreat, UnitList};

/// Orders, one line each.
pub fn render(orders: &[NamedOrder]) -> String {
    let mut text = String::new();
    for order in orders {
        text.push_str(&render_order(order));
        text.push('\n');
    }
    text
}

fn units(list: &UnitList) -> String {
    list.iter()
        .map(|(code, n)| format!("{} {code}", n.get()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn path(places: &[String]) -> String {
    places.join(" > ")
}

/// One order, as one line.
pub fn render_order(order: &NamedOrder) -> String {
    match order {
        NamedOrder::EndPhase => "end phase".to_owned(),
        NamedOrder::Purchase { units: list } => format!("buy {}", units(list)),
        NamedOrder::Place {
            territory,
            units: list,
        } => format!("place {} in {territory}", units(list)),
        NamedOrder::ApplyForWarLoan => "war loan".to_owned(),
        NamedOrder::RepayWarLoan { amount } => format!("repay war loan {amount}"),
        NamedOrder::ExpandComplex { territory } => format!("expand complex in {territory}"),
        NamedOrder::SuppressGuerrillas { territory } => {
            format!("suppress guerrillas in {territory}")
        }
        NamedOrder::AvoidCombat { territory } => format!("avoid combat in {territory}"),
        NamedOrder::DevelopWeapons { dice } => {
            format!(
                "research {dice} {}",
                if *dice == 1 { "die" } else { "dice" }
            )
        }
        NamedOrder::Move {
            units: list,
            path: p,
        } => format!("move {}: {}", units(list), path(p)),
        NamedOrder::Rail {
            units: list,
            path: p,
        } => format!("rail {}: {}", units(list), path(p)),
        NamedOrder::AirRaid {
            units: list,
            path: p,
        } => format!("air raid {}: {}", units(list), path(p)),
        NamedOrder::FireRocket { from, target } => format!("fire rocket from {from} at {target}"),
        NamedOrder::FightBattle { .. } => battle_line(order),
        NamedOrder::RepairBattleship { sea_zone } => format!("repair battleship in {sea_zone}"),
        NamedOrder::KamikazeAttack { strikes } => {
            let strikes: Vec<String> = strikes
                .iter()
                .map(|s| format!("{} on {} in {}", s.tokens, s.unit, s.sea_zone))
                .collect();
            format!("kamikaze {}", strikes.join(", "))
        }
        NamedOrder::AirDrop {
            bombers,
            troops,
            path: p,
        } => format!(
            "air drop {} by {bombers} {}: {}",
            units(troops),
            if *bombers == 1 { "bomber" } else { "bombers" },
            path(p)
        ),
        NamedOrder::GoPassive => "go passive".to_owned(),
        NamedOrder::FlyPatrol {
            units: list,
            from,
            over,
        } => format!("patrol {} from {from} over {over}", units(list)),
        NamedOrder::Lend {
            to,
            territory,
            units: list,
        } => format!("lend {} in {territory} to {to}", units(list)),
        NamedOrder::Recall {
            from,
            territory,
            units: list,
        } => format!("recall {} in {territory} from {from}", units(list)),
        NamedOrder::BlockWithSubmarines { sea_zone, against } => {
            let place = sea_zone
                .as_ref()
                .map(|zone| format!(" in {zone}"))
                .unwrap_or_default();
            let against = if against.is_empty() {
                "nobody".to_owned()
            } else {
                against
                    .iter()
                    .map(|p| p.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            format!("block with submarines{place} against {against}")
        }
        NamedOrder::AttackSubmarines { sea_zone } => format!("attack submarines in {sea_zone}"),
        NamedOrder::OfferAgreement { with, terms } => {
            // One line per order: the terms' own line breaks become spaces.
            let terms = terms.split_whitespace().collect::<Vec<_>>().join(" ");
            format!("offer agreement to {with}: {terms}")
        }
        NamedOrder::AcceptAgreement { from } => format!("accept agreement from {from}"),
        NamedOrder::GrantPermission { to, permission } => format!("grant {permission} to {to}"),
        NamedOrder::RevokePermission { to, permission } => {
            format!("revoke {permission} from {to}")
        }
        NamedOrder::BreakAgreement { with } => format!("break agreement with {with}"),
        NamedOrder::RollStartZones => "roll start zones".to_owned(),
        NamedOrder::RollInitiative => "roll initiative".to_owned(),
        NamedOrder::RollReinforcements => "roll reinforcements".to_owned(),
        NamedOrder::BuildInfrastructure { territory } => {
            format!("build infrastructure in {territory}")
        }
        NamedOrder::DropAtomicBomb { territory } => format!("drop atomic bomb on {territory}"),
        NamedOrder::SetOrderOfLoss { units } => format!("order of loss {}", units.join(", ")),
        NamedOrder::SetBreakOff { after: Some(1) } => "break off after 1 attack".to_owned(),
        NamedOrder::SetBreakOff { after: Some(n) } => format!("break off after {n} attacks"),
        NamedOrder::SetBreakOff { after: None } => "never break off".to_owned(),
        NamedOrder::SetStandingOrders { .. } => standing_orders_line(order),
        // The content is the defender's secret until a battle follows it.
        NamedOrder::SealedStandingOrders { territory, sealed } => {
            let what = if sealed.is_some() {
                "sealed standing orders"
            } else {
                "standing orders (withheld, never decided)"
            };
            match territory {
                Some(place) => format!("{what} for {place}"),
                None => what.to_owned(),
            }
        }
    }
}

/// A battle's line: the place, then each choice made for it.
fn battle_line(order: &NamedOrder) -> String {
    let NamedOrder::FightBattle {
        territory,
        combat,
        order_of_loss,
        retreat,
        retreat_to,
        bombing_raid,
        bombard_from,
        kamikaze_target,
        blend_in,
    } = order
    else {
        unreachable!("only battles come here");
    };
    let mut line = format!("battle {territory}");
    if let Some(combat) = combat {
        line.push_str(&format!("; combat {combat}"));
    }
    if !order_of_loss.is_empty() {
        line.push_str(&format!("; loss {}", order_of_loss.join(", ")));
    }
    if let Some(when) = retreat {
        line.push_str(&format!("; retreat {}", condition(*when, false)));
    }
    if let Some(to) = retreat_to {
        line.push_str(&format!("; retreat to {to}"));
    }
    if *bombing_raid {
        line.push_str("; bombing raid");
    }
    if !bombard_from.is_empty() {
        line.push_str(&format!("; bombard from {}", bombard_from.join(", ")));
    }
    if let Some(target) = kamikaze_target {
        line.push_str(&format!("; kamikaze {target}"));
    }
    if let Some(when) = blend_in {
        line.push_str(&format!("; blend in {}", condition(*when, true)));
    }
    line
}

/// Standing orders' line: the place they are for, then each choice, or "defaults".
fn standing_orders_line(order: &NamedOrder) -> String {
    let NamedOrder::SetStandingOrders {
        territory,
        order_of_loss,
        submerge_subs,
        battleships_absorb,
        retreat_subs,
        retreat_subs_to,
        blend_in,
    } = order
    else {
        unreachable!("only standing orders come here");
    };
    let mut line = match territory {
        Some(place) => format!("standing orders for {place}"),
        None => "standing orders".to_owned(),
    };
    let mut any = false;
    if !order_of_loss.is_empty() {
        line.push_str(&format!("; loss {}", order_of_loss.join(", ")));
        any = true;
    }
    if *retreat_subs {
        line.push_str("; retreat subs");
        if let Some(zone) = retreat_subs_to {
            line.push_str(&format!(" to {zone}"));
        }
        any = true;
    }
    if *submerge_subs {
        line.push_str("; submerge subs");
        any = true;
    }
    if *battleships_absorb == Some(false) {
        line.push_str("; battleships do not absorb");
        any = true;
    }
    if let Some(when) = blend_in {
        line.push_str(&format!("; blend in {}", condition(*when, true)));
        any = true;
    }
    if !any {
        line.push_str("; defaults");
    }
    line
}

/// "after round 2", "when down to 3"; blending in, "before the first die" (after round 0).
fn condition(when: NamedRetreat, blend_in: bool) -> String {
    match when {
        NamedRetreat::AfterRound(0) if blend_in => "before the first die".to_owned(),
        NamedRetreat::AfterRound(n) => format!("after round {n}"),
        NamedRetreat::WhenAtMost(n) => format!("when down to {n}"),
    }
}
