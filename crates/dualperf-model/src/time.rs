//! Calendar arithmetic on timestamps the caller read: the one place that
//! turns milliseconds since the Unix epoch into UTC dates (run ids, results
//! folders, report headers). Pure: no clock is read here.

/// The UTC calendar date and time of `unix_ms`.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct UtcDateTime {
    /// Year, e.g. 2026.
    pub year: i64,
    /// Month, 1..=12.
    pub month: u32,
    /// Day of the month, 1..=31.
    pub day: u32,
    /// Hour, 0..=23.
    pub hour: u32,
    /// Minute, 0..=59.
    pub minute: u32,
    /// Second, 0..=59.
    pub second: u32,
}

impl UtcDateTime {
    /// The date and time of `unix_ms` milliseconds after 1970-01-01T00:00:00Z.
    pub fn from_unix_ms(unix_ms: u64) -> UtcDateTime {
        let seconds = unix_ms / 1000;
        let (days, rest) = ((seconds / 86_400) as i64, seconds % 86_400);
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let day_of_era = z.rem_euclid(146_097);
        let year_of_era =
            (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
        let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
        let month_index = (5 * day_of_year + 2) / 153;
        let day = day_of_year - (153 * month_index + 2) / 5 + 1;
        let month = if month_index < 10 {
            month_index + 3
        } else {
            month_index - 9
        };
        UtcDateTime {
            year: year_of_era + era * 400 + i64::from(month <= 2),
            month: month as u32,
            day: day as u32,
            hour: (rest / 3600) as u32,
            minute: (rest % 3600 / 60) as u32,
            second: (rest % 60) as u32,
        }
    }

    /// Compact ISO 8601 basic format, `YYYYMMDDTHHMMSSZ`: run ids and folder names.
    pub fn compact(&self) -> String {
        format!(
            "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }

    /// ISO 8601 extended format for people, `YYYY-MM-DD HH:MM:SS UTC`.
    pub fn readable(&self) -> String {
        format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

/// A run id: the UTC start time and a short suffix, e.g.
/// `20261121T235000Z-1a2b`. The same id names the results folder, the JSON,
/// the database row and the report.
pub fn run_id(unix_ms: u64, suffix: &str) -> String {
    format!("{}-{suffix}", UtcDateTime::from_unix_ms(unix_ms).compact())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_instant_has_its_utc_date_and_time() {
        // 2026-11-21 23:50:00 UTC
        let date = UtcDateTime::from_unix_ms(1_795_305_000_000);
        assert_eq!(date.compact(), "20261121T235000Z");
        assert_eq!(date.readable(), "2026-11-21 23:50:00 UTC");
    }

    #[test]
    fn the_epoch_and_a_leap_day_are_right() {
        assert_eq!(UtcDateTime::from_unix_ms(0).compact(), "19700101T000000Z");
        // 2024-02-29 12:00:00 UTC
        assert_eq!(
            UtcDateTime::from_unix_ms(1_709_208_000_000).compact(),
            "20240229T120000Z"
        );
    }

    #[test]
    fn a_run_id_is_the_stamp_and_the_suffix() {
        assert_eq!(run_id(1_795_305_000_000, "ab12"), "20261121T235000Z-ab12");
    }
}
