//! Moments as people read them, "24 December 2026, 09:58 UTC", inside
//! `<time datetime="2026-12-24T09:58:51Z">` so a machine still has the exact time.

use maud::{html, Markup};
use time::format_description::well_known::Rfc3339;
use time::{OffsetDateTime, UtcOffset};

/// An RFC 3339 moment in words, in UTC: "24 December 2026, 09:58 UTC". Text that is not
/// a moment is shown as it is.
pub fn in_words(rfc3339: &str) -> String {
    match utc(rfc3339) {
        Some(at) => format!(
            "{}, {:02}:{:02} UTC",
            day_in_words(at),
            at.hour(),
            at.minute()
        ),
        None => rfc3339.to_owned(),
    }
}

/// The day alone: "24 December 2026".
pub fn day(rfc3339: &str) -> String {
    utc(rfc3339).map_or_else(|| rfc3339.to_owned(), day_in_words)
}

/// The moment in words, with the machine's time beside it.
pub fn moment(rfc3339: &str) -> Markup {
    html! { time datetime=(rfc3339) { (in_words(rfc3339)) } }
}

fn utc(rfc3339: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(rfc3339, &Rfc3339)
        .ok()
        .map(|at| at.to_offset(UtcOffset::UTC))
}

fn day_in_words(at: OffsetDateTime) -> String {
    format!("{} {} {}", at.day(), at.month(), at.year())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moment_reads_as_a_day_a_month_a_year_and_a_utc_time() {
        assert_eq!(
            in_words("2026-12-24T09:58:51Z"),
            "24 December 2026, 09:58 UTC"
        );
        assert_eq!(
            in_words("2026-03-01T00:05:00.123456Z"),
            "1 March 2026, 00:05 UTC"
        );
        assert_eq!(day("2026-11-20T07:15:00Z"), "20 November 2026");
    }

    #[test]
    fn a_moment_with_an_offset_is_told_in_utc() {
        assert_eq!(
            in_words("2027-01-01T01:30:00+02:00"),
            "31 December 2026, 23:30 UTC"
        );
    }

    #[test]
    fn text_that_is_no_moment_is_shown_as_it_is() {
        assert_eq!(in_words("soon"), "soon");
        assert_eq!(day(""), "");
    }

    #[test]
    fn the_markup_keeps_the_machine_time_in_the_datetime_attribute() {
        assert_eq!(
            moment("2026-12-24T09:58:51Z").into_string(),
            "<time datetime=\"2026-12-24T09:58:51Z\">24 December 2026, 09:58 UTC</time>"
        );
    }
}
