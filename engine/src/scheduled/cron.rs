//! Quartz cron schedules, as Hive's `metastore.scheduled.queries.cron.syntax` (QUARTZ) reads
//! them through cron-utils: `second minute hour day-of-month month day-of-week [year]`, each a
//! list of `*`, values, `a-b` ranges and `/` steps, months and days by number or English
//! name; exactly one of day-of-month and day-of-week is `?`; day-of-month may be `L`, the
//! month's last day. The next execution is computed in UTC.

use crate::calendar::{day_of_week, days_in_month, DateTime};

/// The last year Quartz schedules reach.
const YEAR_MAX: u32 = 2099;
/// The first year Quartz schedules reach.
const YEAR_MIN: u32 = 1970;
/// How many steps the search for a next execution takes at most (each skips at least a
/// second, and a whole field where it can: years of days at most).
const SEARCH_STEPS_MAX: u32 = 1_000_000;

const MONTH_NAMES: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];
const DAY_NAMES: [&str; 7] = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

/// The values one field allows.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Field {
    min: u32,
    allowed: Vec<bool>,
}

impl Field {
    fn contains(&self, value: u32) -> bool {
        value >= self.min
            && self
                .allowed
                .get((value - self.min) as usize)
                .copied()
                .unwrap_or(false)
    }
}

/// Which days a schedule runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Days {
    OfMonth(Field),
    LastOfMonth,
    OfWeek(Field),
}

/// A parsed Quartz schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    seconds: Field,
    minutes: Field,
    hours: Field,
    days: Days,
    months: Field,
    years: Field,
}

fn value(text: &str, min: u32, max: u32, names: &[&str]) -> Option<u32> {
    let upper = text.to_ascii_uppercase();
    if let Some(index) = names.iter().position(|name| *name == upper) {
        return Some(min + index as u32);
    }
    let number: u32 = text.parse().ok()?;
    (min..=max).contains(&number).then_some(number)
}

fn parse_field(text: &str, min: u32, max: u32, names: &[&str]) -> Option<Field> {
    let mut allowed = vec![false; (max - min + 1) as usize];
    for part in text.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((range, step)) => (range, step.parse::<u32>().ok().filter(|step| *step > 0)?),
            None => (part, 1),
        };
        let (start, end) = match range {
            "*" => (min, max),
            _ => match range.split_once('-') {
                Some((start, end)) => {
                    (value(start, min, max, names)?, value(end, min, max, names)?)
                }
                None => {
                    let start = value(range, min, max, names)?;
                    (start, if part.contains('/') { max } else { start })
                }
            },
        };
        if start > end {
            return None;
        }
        for number in (start..=end).step_by(step as usize) {
            allowed[(number - min) as usize] = true;
        }
    }
    Some(Field { min, allowed })
}

impl Schedule {
    /// Parses `text`, or `None` when Quartz (as cron-utils reads it) would refuse it, or it
    /// uses `W`, `#` or a day-of-week `L`, which hivestore does not read.
    pub fn parse(text: &str) -> Option<Schedule> {
        let fields: Vec<&str> = text.split_whitespace().collect();
        if !(6..=7).contains(&fields.len()) {
            return None;
        }
        let (day_of_month, day_of_week) = (fields[3], fields[5]);
        let days = match (day_of_month, day_of_week) {
            ("?", "?") => return None,
            ("?", days) => Days::OfWeek(parse_field(days, 1, 7, &DAY_NAMES)?),
            ("L", "?") => Days::LastOfMonth,
            (days, "?") => Days::OfMonth(parse_field(days, 1, 31, &[])?),
            _ => return None,
        };
        let years = match fields.get(6) {
            Some(years) => parse_field(years, YEAR_MIN, YEAR_MAX, &[])?,
            None => parse_field("*", YEAR_MIN, YEAR_MAX, &[])?,
        };
        Some(Schedule {
            seconds: parse_field(fields[0], 0, 59, &[])?,
            minutes: parse_field(fields[1], 0, 59, &[])?,
            hours: parse_field(fields[2], 0, 23, &[])?,
            days,
            months: parse_field(fields[4], 1, 12, &MONTH_NAMES)?,
            years,
        })
    }

    fn day_matches(&self, moment: &DateTime) -> bool {
        match &self.days {
            Days::OfMonth(days) => days.contains(moment.day),
            Days::LastOfMonth => moment.day == days_in_month(moment.year, moment.month),
            Days::OfWeek(days) => days.contains(day_of_week(moment.year, moment.month, moment.day)),
        }
    }

    /// The first time the schedule fires after `after` (seconds since the epoch), if any.
    pub fn next_after(&self, after: i64) -> Option<i64> {
        let mut moment = DateTime::from_epoch_seconds(after + 1);
        for _ in 0..SEARCH_STEPS_MAX {
            let year = u32::try_from(moment.year).ok()?;
            if year > YEAR_MAX {
                return None;
            }
            let start_of_day = DateTime {
                hour: 0,
                minute: 0,
                second: 0,
                ..moment
            };
            if !self.years.contains(year) {
                moment = DateTime {
                    year: moment.year + 1,
                    month: 1,
                    day: 1,
                    ..start_of_day
                };
            } else if !self.months.contains(moment.month) {
                let (year, month) = match moment.month {
                    12 => (moment.year + 1, 1),
                    month => (moment.year, month + 1),
                };
                moment = DateTime {
                    year,
                    month,
                    day: 1,
                    ..start_of_day
                };
            } else if !self.day_matches(&moment) {
                moment = DateTime::from_epoch_seconds(start_of_day.epoch_seconds() + 86_400);
            } else if !self.hours.contains(moment.hour) {
                let start_of_hour = DateTime {
                    minute: 0,
                    second: 0,
                    ..moment
                };
                moment = DateTime::from_epoch_seconds(start_of_hour.epoch_seconds() + 3_600);
            } else if !self.minutes.contains(moment.minute) {
                let start_of_minute = DateTime {
                    second: 0,
                    ..moment
                };
                moment = DateTime::from_epoch_seconds(start_of_minute.epoch_seconds() + 60);
            } else if !self.seconds.contains(moment.second) {
                moment = DateTime::from_epoch_seconds(moment.epoch_seconds() + 1);
            } else {
                return Some(moment.epoch_seconds());
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(year: i64, month: u32, day: u32, hour: u32, minute: u32, second: u32) -> i64 {
        DateTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
        }
        .epoch_seconds()
    }

    fn next(schedule: &str, after: i64) -> Option<i64> {
        Schedule::parse(schedule).unwrap().next_after(after)
    }

    #[test]
    fn next_executions_follow_quartz() {
        let noon = at(2024, 2, 28, 12, 0, 0);
        assert_eq!(
            next("0 */10 * * * ? *", noon),
            Some(at(2024, 2, 28, 12, 10, 0))
        );
        assert_eq!(next("* * * * * ?", noon), Some(noon + 1));
        assert_eq!(next("0 0 0 L * ?", noon), Some(at(2024, 2, 29, 0, 0, 0)));
        assert_eq!(
            next("30 15 10 ? * MON-FRI", noon),
            Some(at(2024, 2, 29, 10, 15, 30))
        );
        assert_eq!(next("0 0 9 ? * SAT", noon), Some(at(2024, 3, 2, 9, 0, 0)));
        assert_eq!(
            next("0 0 0 29 FEB ? *", noon),
            Some(at(2024, 2, 29, 0, 0, 0))
        );
        assert_eq!(
            next("0 0 0 29 2 ? *", at(2024, 3, 1, 0, 0, 0)),
            Some(at(2028, 2, 29, 0, 0, 0))
        );
        assert_eq!(
            next("0 0 0 1 1 ? 2030", noon),
            Some(at(2030, 1, 1, 0, 0, 0))
        );
        assert_eq!(
            next("5/20 0 0 1 1 ? 2030", noon),
            Some(at(2030, 1, 1, 0, 0, 5))
        );
        // A year gone by has no next execution.
        assert_eq!(next("0 0 0 1 1 ? 2020", noon), None);
        assert_eq!(next("0 0 0 31 2 ? *", noon), None);
    }

    #[test]
    fn malformed_schedules_are_refused() {
        for text in [
            "",
            "* * * * *",
            "* * * * * * * *",
            "60 * * * * ?",
            "* * * * * *",
            "* * * ? * ?",
            "* * 24 * * ?",
            "* * * 0 * ?",
            "* * * * 13 ?",
            "* * * ? * 8",
            "*/0 * * * * ?",
            "5-1 * * * * ?",
            "a * * * * ?",
            "* * * 15W * ?",
            "* * * ? * 6#3",
            "* * * ? * 5L",
            "* * * * * ? 1969",
        ] {
            assert_eq!(Schedule::parse(text), None, "{text:?}");
        }
    }
}
