//! A new tournament's settings and the rules they must keep: a name, 1 to 20 rounds each
//! with a deadline in the future and after the one before (or a round every so many
//! days, four weeks unless said), points that never reward a
//! worse place, tiebreakers led by total points and ended by the seeded draw, and room for
//! at least a table. What breaks one is refused with the setting named.

use warlog_rules::dice::GameSeed;
use warlog_rules::game::Moment;
use warlog_rules::ruleset::Ruleset;

use crate::seating::ShortTablePolicy;

use crate::tournament::{hex_of, RefusalCode, Tiebreaker, TournamentCreated, TournamentViolation};

/// What a director asks for, read from the request (times already parsed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TournamentSettings {
    pub name: String,
    pub rounds: u32,
    pub schedule: Schedule,
    /// Stated only to check it against the ruleset.
    pub table_size: Option<u32>,
    pub points_per_place: Option<Vec<i64>>,
    pub tiebreakers: Option<Vec<Tiebreaker>>,
    pub short_tables: ShortTablePolicy,
    pub bye_points: Option<i64>,
    pub capacity: Option<u32>,
    pub late_entries_until_round: Option<u32>,
}

/// The most rounds a tournament may have.
pub const MAX_ROUNDS: u32 = 20;

/// A round's time when the director names no deadlines: four weeks, a common pace for a
/// Cut-Throat round played by e-mail.
pub const DEFAULT_DAYS_PER_ROUND: u32 = 28;

/// The longest round a schedule by days may give (a year).
pub const MAX_DAYS_PER_ROUND: u32 = 365;

const SECONDS_PER_DAY: u64 = 24 * 60 * 60;

/// When each round is due.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Schedule {
    /// One deadline a round, as the director gave them.
    Deadlines(Vec<Moment>),
    /// A round every so many days, counted from the tournament's creation.
    EveryDays(u32),
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule::EveryDays(DEFAULT_DAYS_PER_ROUND)
    }
}

impl Schedule {
    /// Each round's deadline for a tournament created at `at`; the schedule's setting is
    /// named when it breaks a rule.
    fn deadlines(&self, rounds: u32, at: Moment) -> Result<Vec<Moment>, TournamentViolation> {
        match self {
            Schedule::EveryDays(days) => {
                if !(1..=MAX_DAYS_PER_ROUND).contains(days) {
                    return Err(refused(
                        "days_per_round",
                        format!("{days} is not 1 to {MAX_DAYS_PER_ROUND}"),
                    ));
                }
                Ok((1..=u64::from(rounds))
                    .map(|round| at.plus_seconds(round * u64::from(*days) * SECONDS_PER_DAY))
                    .collect())
            }
            Schedule::Deadlines(deadlines) => {
                if deadlines.len() != rounds as usize {
                    return Err(refused(
                        "deadlines",
                        format!(
                            "{rounds} rounds need {rounds} deadlines, not {}",
                            deadlines.len()
                        ),
                    ));
                }
                let mut last = at;
                for (i, when) in deadlines.iter().enumerate() {
                    if *when <= last {
                        return Err(refused(
                            &format!("deadlines[{i}]"),
                            "deadlines are in the future and each after the one before".to_owned(),
                        ));
                    }
                    last = *when;
                }
                Ok(deadlines.clone())
            }
        }
    }
}

fn refused(field: &str, why: String) -> TournamentViolation {
    TournamentViolation {
        code: RefusalCode::InvalidSettings,
        message: format!("`{field}`: {why}"),
    }
}

impl TournamentSettings {
    /// The tournament's first event: these settings checked against the ruleset at `at`,
    /// with the seed's commitment and the director; or the first setting that breaks a rule.
    pub fn created(
        &self,
        ruleset: &Ruleset,
        tournament_id: &str,
        director: &str,
        at: Moment,
        seed: &GameSeed,
    ) -> Result<TournamentCreated, TournamentViolation> {
        let name = self.name.trim();
        if name.is_empty() || name.chars().count() > 120 {
            return Err(refused("name", "1 to 120 characters".to_owned()));
        }
        // A name is one line of printable text: no C0 control (a tab or a line break
        // among them), DEL, nor C1 control (U+0080 to U+009F).
        if let Some(c) = name.chars().find(|c| c.is_control()) {
            return Err(refused(
                "name",
                format!(
                    "holds the control character U+{:04X}; a name is one line of printable text",
                    u32::from(c)
                ),
            ));
        }
        let table_size = u32::try_from(ruleset.powers().len()).unwrap_or(u32::MAX);
        if self.table_size.is_some_and(|t| t != table_size) {
            return Err(refused(
                "table_size",
                format!("{} seats {table_size} players at a table", ruleset.id),
            ));
        }
        let deadlines = self.deadlines(at)?;
        let points_per_place = self.points_per_place(ruleset, table_size)?;
        let tiebreakers = self.tiebreakers()?;
        if self.capacity.is_some_and(|c| c < table_size) {
            return Err(refused(
                "capacity",
                format!("fewer than {table_size} players cannot fill a table"),
            ));
        }
        let late = self.late_entries_until_round.unwrap_or(1);
        if !(1..=self.rounds).contains(&late) {
            return Err(refused(
                "late_entries_until_round",
                format!("{late} is not a round of 1 to {}", self.rounds),
            ));
        }
        Ok(TournamentCreated {
            tournament_id: tournament_id.to_owned(),
            name: name.to_owned(),
            ruleset: ruleset.id.to_owned(),
            rounds: self.rounds,
            deadlines,
            table_size,
            points_per_place,
            tiebreakers,
            short_tables: self.short_tables,
            bye_points: self.bye_points.unwrap_or(0),
            capacity: self.capacity,
            late_entries_until_round: late,
            seed_commitment: hex_of(&seed.commitment()),
            tie_break_drawn_at_finish: true,
            director: director.to_owned(),
            at,
        })
    }

    /// 1 to 20 rounds, each with a deadline in the future and after the one before.
    fn deadlines(&self, at: Moment) -> Result<Vec<Moment>, TournamentViolation> {
        if !(1..=MAX_ROUNDS).contains(&self.rounds) {
            return Err(refused(
                "rounds",
                format!("{} is not 1 to {MAX_ROUNDS}", self.rounds),
            ));
        }
        self.schedule.deadlines(self.rounds, at)
    }

    /// The points asked for, one a place and never more for a worse place; else the
    /// ruleset's.
    fn points_per_place(
        &self,
        ruleset: &Ruleset,
        table_size: u32,
    ) -> Result<Vec<i64>, TournamentViolation> {
        match &self.points_per_place {
            Some(points) if points.len() != table_size as usize => Err(refused(
                "points_per_place",
                format!("{table_size} places need {table_size} values"),
            )),
            Some(points) if points.windows(2).any(|w| w[0] < w[1]) => Err(refused(
                "points_per_place",
                "a better place never earns fewer points".to_owned(),
            )),
            Some(points) => Ok(points.clone()),
            None => Ok((1..=ruleset.points.places())
                .map(|p| ruleset.points.for_place(p))
                .collect()),
        }
    }

    /// The tiebreakers asked for (or the default), each at most once, total points first,
    /// the seeded draw last (added when left out).
    fn tiebreakers(&self) -> Result<Vec<Tiebreaker>, TournamentViolation> {
        let mut tiebreakers = self
            .tiebreakers
            .clone()
            .unwrap_or_else(|| Tiebreaker::DEFAULT.to_vec());
        let mut seen = tiebreakers.clone();
        seen.sort();
        seen.dedup();
        if seen.len() != tiebreakers.len() {
            return Err(refused(
                "tiebreakers",
                "each tiebreaker at most once".to_owned(),
            ));
        }
        if tiebreakers.first() != Some(&Tiebreaker::TotalPoints) {
            return Err(refused(
                "tiebreakers",
                "standings are by total points first".to_owned(),
            ));
        }
        if tiebreakers.last() != Some(&Tiebreaker::Draw) {
            tiebreakers.retain(|t| *t != Tiebreaker::Draw);
            tiebreakers.push(Tiebreaker::Draw);
        }
        Ok(tiebreakers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_000_000;

    fn cutthroat() -> &'static Ruleset {
        Ruleset::builtin("cutthroat").expect("built in")
    }

    fn settings() -> TournamentSettings {
        TournamentSettings {
            name: "Autumn".into(),
            rounds: 2,
            schedule: Schedule::Deadlines(vec![
                Moment::from_unix_seconds(NOW + 10),
                Moment::from_unix_seconds(NOW + 20),
            ]),
            table_size: None,
            points_per_place: None,
            tiebreakers: None,
            short_tables: ShortTablePolicy::Byes,
            bye_points: None,
            capacity: None,
            late_entries_until_round: None,
        }
    }

    fn deadlines(seconds: &[u64]) -> Schedule {
        Schedule::Deadlines(
            seconds
                .iter()
                .map(|s| Moment::from_unix_seconds(*s))
                .collect(),
        )
    }

    /// The settings tried at `NOW` by dora, with a fixed seed.
    fn create(settings: &TournamentSettings) -> Result<TournamentCreated, TournamentViolation> {
        settings.created(
            cutthroat(),
            "t",
            "dora",
            Moment::from_unix_seconds(NOW),
            &GameSeed::from_bytes([1; 32]),
        )
    }

    fn refusal(settings: &TournamentSettings) -> String {
        create(settings).expect_err("refused").message
    }

    #[test]
    fn good_settings_take_the_rulesets_points_and_end_the_tiebreakers_with_the_draw() {
        let created = create(&settings()).expect("created");
        assert_eq!(created.table_size, 5);
        assert_eq!(created.points_per_place, vec![5, 3, 2, -1, -2]);
        assert_eq!(created.tiebreakers.last(), Some(&Tiebreaker::Draw));
        assert_eq!(
            created.seed_commitment,
            hex_of(&GameSeed::from_bytes([1; 32]).commitment())
        );
    }

    #[test]
    fn without_deadlines_a_round_is_due_every_four_weeks_from_the_creation() {
        let days = u64::from(DEFAULT_DAYS_PER_ROUND);
        let created = create(&TournamentSettings {
            schedule: Schedule::default(),
            ..settings()
        })
        .expect("created");
        assert_eq!(
            created.deadlines,
            [1, 2].map(|round| Moment::from_unix_seconds(NOW + round * days * 86_400))
        );
    }

    #[test]
    fn a_control_character_in_the_name_is_refused_by_its_code_point() {
        let named = |name: &str| TournamentSettings {
            name: name.into(),
            ..settings()
        };
        assert_eq!(
            refusal(&named("Cup\u{9f}")),
            "`name`: holds the control character U+009F; a name is one line of printable text"
        );
        assert_eq!(
            refusal(&named("Cup\u{0}")),
            "`name`: holds the control character U+0000; a name is one line of printable text"
        );
        assert_eq!(
            create(&named("Coupe d'Été ✓")).expect("created").name,
            "Coupe d'Été ✓"
        );
    }

    #[test]
    fn each_broken_setting_is_refused_by_its_name() {
        type Breaking = Box<dyn Fn(&mut TournamentSettings)>;
        let cases: Vec<(&str, Breaking)> = vec![
            ("name", Box::new(|s| s.name = " ".into())),
            ("name", Box::new(|s| s.name = "Autumn\u{85}Cup".into())),
            ("name", Box::new(|s| s.name = "Autumn\nCup".into())),
            ("name", Box::new(|s| s.name = "Autumn\u{7f}".into())),
            ("rounds", Box::new(|s| s.rounds = 21)),
            (
                "deadlines",
                Box::new(|s| s.schedule = deadlines(&[NOW + 10])),
            ),
            (
                "deadlines[1]",
                Box::new(|s| s.schedule = deadlines(&[NOW + 10, NOW + 5])),
            ),
            (
                "deadlines[0]",
                Box::new(|s| s.schedule = deadlines(&[NOW, NOW + 20])),
            ),
            (
                "days_per_round",
                Box::new(|s| s.schedule = Schedule::EveryDays(0)),
            ),
            ("table_size", Box::new(|s| s.table_size = Some(4))),
            (
                "points_per_place",
                Box::new(|s| s.points_per_place = Some(vec![1, 3, 2, 0, 0])),
            ),
            (
                "tiebreakers",
                Box::new(|s| s.tiebreakers = Some(vec![Tiebreaker::Draw, Tiebreaker::TotalPoints])),
            ),
            ("capacity", Box::new(|s| s.capacity = Some(4))),
            (
                "late_entries_until_round",
                Box::new(|s| s.late_entries_until_round = Some(3)),
            ),
        ];
        for (field, break_it) in cases {
            let mut broken = settings();
            break_it(&mut broken);
            let message = refusal(&broken);
            assert!(
                message.starts_with(&format!("`{field}`: ")),
                "{field}: {message}"
            );
        }
    }
}
