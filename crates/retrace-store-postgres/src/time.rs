//! Times to the nanosecond in two columns: `timestamptz` holds
//! microseconds (what SQL users compare and index), a `smallint` the
//! nanoseconds past them (0–999), so a meta reads back as it was given.

use chrono::{DateTime, Duration, Utc};

/// `t` as (the microsecond it falls in, the nanoseconds past it).
pub(crate) fn split(t: DateTime<Utc>) -> (DateTime<Utc>, i16) {
    let rest = t.timestamp_subsec_nanos() % 1000;
    (t - Duration::nanoseconds(rest.into()), rest as i16)
}

/// The time [`split`] gave.
pub(crate) fn join(micros: DateTime<Utc>, nanos: i16) -> DateTime<Utc> {
    micros + Duration::nanoseconds(nanos.into())
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn nanoseconds_survive_the_split() {
        let t =
            Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap() + Duration::nanoseconds(123_456_789);
        let (micros, nanos) = split(t);
        assert_eq!(micros.timestamp_subsec_nanos(), 123_456_000);
        assert_eq!(nanos, 789);
        assert_eq!(join(micros, nanos), t);
        let before_1970 =
            Utc.with_ymd_and_hms(1969, 7, 20, 20, 17, 40).unwrap() + Duration::nanoseconds(5);
        let (m, n) = split(before_1970);
        assert_eq!((join(m, n), n), (before_1970, 5));
    }
}
