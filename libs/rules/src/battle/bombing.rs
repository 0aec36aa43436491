//! Strategic bombing raids (Classic rules): the target's AA gun fires once at each bomber,
//! hitting on 1; every bomber that survives rolls one die (three with heavy bombers), and
//! the owner of the complex loses that many IPC from its treasury, never more than it has.

use crate::dice::{DiceSource, Die};
use crate::tech::Technology;

/// Everything about one raid, every die included.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BombingRaid {
    /// The AA gun's dice, one per bomber (none without a gun).
    pub anti_aircraft: Vec<Die>,
    pub shot_down: u32,
    /// The surviving bombers' damage dice.
    pub damage_dice: Vec<Die>,
    /// The damage the dice show.
    pub damage: u32,
    /// What the owner actually loses: the damage, but no more than its treasury.
    pub ipc_lost: u32,
}

/// Flies `bombers` against a complex, defended by an AA gun or not, whose owner holds
/// `treasury` IPC.
pub fn bombing_raid(
    bombers: u32,
    attacker_technologies: &[Technology],
    anti_aircraft: bool,
    treasury: u32,
    dice: &mut dyn DiceSource,
) -> BombingRaid {
    let anti_aircraft: Vec<Die> = if anti_aircraft {
        (0..bombers).map(|_| dice.roll()).collect()
    } else {
        Vec::new()
    };
    let shot_down = anti_aircraft.iter().filter(|d| d.value() == 1).count() as u32;
    let per_bomber = if attacker_technologies.contains(&Technology::HeavyBombers) {
        3
    } else {
        1
    };
    let damage_dice: Vec<Die> = (0..(bombers - shot_down) * per_bomber)
        .map(|_| dice.roll())
        .collect();
    let damage: u32 = damage_dice.iter().map(|d| u32::from(d.value())).sum();
    BombingRaid {
        anti_aircraft,
        shot_down,
        damage_dice,
        damage,
        ipc_lost: damage.min(treasury),
    }
}

impl BombingRaid {
    /// The raid in the listing's notation: `AA 1*4 1 Hit` then `SBR 3 5 = 8 IPC`.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if !self.anti_aircraft.is_empty() {
            out.push_str("AA ");
            for d in &self.anti_aircraft {
                out.push_str(&d.to_string());
                if d.value() == 1 {
                    out.push('*');
                }
            }
            match self.shot_down {
                0 => {}
                1 => out.push_str(" 1 Hit"),
                n => out.push_str(&format!(" {n} Hits")),
            }
            out.push('\n');
        }
        let dice: Vec<String> = self.damage_dice.iter().map(Die::to_string).collect();
        out.push_str(&format!("SBR {} = {} IPC", dice.join(" "), self.damage));
        if self.ipc_lost < self.damage {
            out.push_str(&format!(" ({} lost: all the owner held)", self.ipc_lost));
        }
        out.push('\n');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::ScriptedDice;

    #[test]
    fn the_aa_gun_fires_at_each_bomber_and_the_survivors_roll_the_damage() {
        // AA: 1 (a hit), 4, 3; the two surviving bombers roll 5 and 2.
        let mut dice = ScriptedDice::new(&[1, 4, 3, 5, 2]);
        let raid = bombing_raid(3, &[], true, 30, &mut dice);
        assert_eq!(raid.shot_down, 1);
        assert_eq!((raid.damage, raid.ipc_lost), (7, 7));
        assert_eq!(raid.render(), "AA 1*43 1 Hit\nSBR 5 2 = 7 IPC\n");
        assert_eq!(dice.remaining(), 0);
    }

    #[test]
    fn heavy_bombers_roll_three_damage_dice_each_and_no_gun_means_no_aa_fire() {
        let mut dice = ScriptedDice::new(&[6, 6, 6, 1, 2, 3]);
        let raid = bombing_raid(2, &[Technology::HeavyBombers], false, 100, &mut dice);
        assert!(raid.anti_aircraft.is_empty());
        assert_eq!((raid.damage, raid.ipc_lost), (24, 24));
    }

    #[test]
    fn the_owner_never_loses_more_than_its_treasury() {
        let mut dice = ScriptedDice::new(&[6, 6]);
        let raid = bombing_raid(2, &[], false, 7, &mut dice);
        assert_eq!((raid.damage, raid.ipc_lost), (12, 7));
        assert!(raid.render().contains("7 lost"));
    }
}
