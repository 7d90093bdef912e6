//! Civil dates in UTC from seconds since the epoch and back, for the names and schedules Hive
//! computes from the clock (`yyyy_MM_dd_HH_mm_ss` plan names, cron schedules). Days are
//! counted with the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`).

/// A moment in UTC, to the second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct DateTime {
    /// The year.
    pub year: i64,
    /// The month, 1 to 12.
    pub month: u32,
    /// The day of the month, 1 to 31.
    pub day: u32,
    /// The hour, 0 to 23.
    pub hour: u32,
    /// The minute, 0 to 59.
    pub minute: u32,
    /// The second, 0 to 59.
    pub second: u32,
}

const SECONDS_PER_DAY: i64 = 86_400;

/// Days since 1970-01-01 of a civil date.
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month = i64::from(month);
    let day_of_year =
        (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The civil date of a day counted since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_index + 2) / 5 + 1) as u32;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// How many days month `month` of `year` has.
pub fn days_in_month(year: i64, month: u32) -> u32 {
    let next = if month == 12 {
        (year + 1, 1)
    } else {
        (year, month + 1)
    };
    (days_from_civil(next.0, next.1, 1) - days_from_civil(year, month, 1)) as u32
}

/// The day of the week of a civil date: 1 Sunday to 7 Saturday (Quartz's numbering).
pub fn day_of_week(year: i64, month: u32, day: u32) -> u32 {
    // 1970-01-01 was a Thursday, day 5.
    ((days_from_civil(year, month, day) + 4).rem_euclid(7) + 1) as u32
}

impl DateTime {
    /// The moment `seconds` after the epoch.
    pub fn from_epoch_seconds(seconds: i64) -> DateTime {
        let days = seconds.div_euclid(SECONDS_PER_DAY);
        let in_day = seconds.rem_euclid(SECONDS_PER_DAY);
        let (year, month, day) = civil_from_days(days);
        DateTime {
            year,
            month,
            day,
            hour: (in_day / 3600) as u32,
            minute: (in_day % 3600 / 60) as u32,
            second: (in_day % 60) as u32,
        }
    }

    /// Seconds since the epoch.
    pub fn epoch_seconds(&self) -> i64 {
        days_from_civil(self.year, self.month, self.day) * SECONDS_PER_DAY
            + i64::from(self.hour) * 3600
            + i64::from(self.minute) * 60
            + i64::from(self.second)
    }

    /// As Java formats `yyyy_MM_dd_HH_mm_ss`.
    pub fn underscored(&self) -> String {
        format!(
            "{:04}_{:02}_{:02}_{:02}_{:02}_{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_round_trip() {
        for days in (-800_000..800_000).step_by(997) {
            let (year, month, day) = civil_from_days(days);
            assert_eq!(days_from_civil(year, month, day), days);
        }
        let moment = DateTime::from_epoch_seconds(1_709_210_096);
        assert_eq!(moment.underscored(), "2024_02_29_12_34_56");
        assert_eq!(moment.epoch_seconds(), 1_709_210_096);
        assert_eq!(days_in_month(2024, 2), 29);
        assert_eq!(days_in_month(2100, 2), 28);
        // 2024-02-29 was a Thursday.
        assert_eq!(day_of_week(2024, 2, 29), 5);
    }
}
