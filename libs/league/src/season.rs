//! The league's seasons: a game counts in the season of the calendar year (UTC) it ended
//! in. The ladders' read models and the league auditor both count by this rule.

/// The season a game that ended at `unix_seconds` counts in: the calendar year of the end,
/// in UTC. A time beyond the calendar's range counts in 1970, as the epoch does.
pub fn season_of(unix_seconds: i64) -> i32 {
    time::OffsetDateTime::from_unix_timestamp(unix_seconds).map_or(1970, |t| t.year())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_season_is_the_calendar_year_of_the_end_in_utc() {
        // Given ends at the epoch and either side of 2027's first second (UTC),
        // When their seasons are counted, Then each is its year
        assert_eq!(season_of(0), 1970);
        assert_eq!(season_of(1_798_761_599), 2026); // 2026-12-31T23:59:59Z
        assert_eq!(season_of(1_798_761_600), 2027);
    }

    #[test]
    fn a_time_beyond_the_calendar_counts_in_1970() {
        assert_eq!(season_of(i64::MAX), 1970);
    }
}
