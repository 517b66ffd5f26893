use super::*;

/// 2026-11-24T08:52:48.513Z.
const MS: i64 = 1_795_510_368_513;

fn ms(s: &str) -> Option<i64> {
    Timestamp::parse(s).map(Timestamp::millis)
}

fn text(t: Timestamp) -> String {
    t.to_string()
}

#[test]
fn reads_what_producers_write() {
    // Claude Code, its transcripts, Codex rollouts, Gemini CLI.
    assert_eq!(ms("2026-11-24T08:52:48.513Z"), Some(MS));
    assert_eq!(ms("2026-11-24T08:52:48Z"), Some(1_795_510_368_000));
    // Microseconds and nanoseconds: read to the millisecond.
    assert_eq!(ms("2026-11-24T08:52:48.513999999Z"), Some(MS));
    assert_eq!(ms("2026-11-24T08:52:48.5Z"), Some(1_795_510_368_500));
    // Offsets, lower case, a space, no offset (UTC).
    assert_eq!(ms("2026-11-24T10:52:48.513+02:00"), Some(MS));
    assert_eq!(ms("2026-11-24T03:52:48.513-0500"), Some(MS));
    assert_eq!(ms("2026-11-24t08:52:48.513z"), Some(MS));
    assert_eq!(ms("2026-11-24 08:52:48.513"), Some(MS));
    assert_eq!(ms("1970-01-01T00:00:00Z"), Some(0));
    assert_eq!(ms("1969-12-31T23:59:59.999Z"), Some(-1));
}

#[test]
fn what_is_not_a_time_is_none() {
    for s in [
        "",
        "2026",
        "2026-13-01T00:00:00Z",
        "2026-02-29T00:00:00Z",
        "2026-11-31",
        "2026-11-24T24:00:00Z",
        "2026-11-24T08:60:00Z",
        "2026-11-24T08:52:48.Z",
        "2026-11-24T08:52:48Zjunk",
        "2026-11-24T08:52:48+2",
        "2026-11-24T08:52:48+25:00",
        "２０２６-11-24",
        "2026/11/24",
        "-026-11-24",
    ] {
        assert_eq!(ms(s), None, "{s}");
    }
    assert_eq!(ms("2024-02-29T00:00:00Z"), Some(1_709_164_800_000));
}

#[test]
fn writes_rfc3339_in_utc_with_milliseconds() {
    for s in [
        "2026-11-24T08:52:48.513Z",
        "1970-01-01T00:00:00.000Z",
        "1969-12-31T23:59:59.999Z",
        "2000-02-29T12:00:00.001Z",
        "0000-01-01T00:00:00.000Z",
        "9999-12-31T23:59:59.999Z",
    ] {
        assert_eq!(text(Timestamp::parse(s).unwrap()), s);
    }
    let t = Timestamp::parse("2026-11-24T10:52:48+02:00").unwrap();
    assert_eq!(text(t), "2026-11-24T08:52:48.000Z");
}

#[test]
fn epoch_numbers_are_milliseconds() {
    let t = Timestamp::from_epoch_number(1_795_321_391_573.0).unwrap();
    assert_eq!(text(t), "2026-11-22T04:23:11.573Z");
    assert_eq!(Timestamp::from_epoch_number(-1.0), None);
    assert_eq!(Timestamp::from_epoch_number(f64::NAN), None);
    assert_eq!(Timestamp::from_epoch_number(1e300), None);
}

#[test]
fn the_calendar_round_trips() {
    for days in (-800_000..800_000).step_by(997) {
        let (y, m, d) = civil_from_days(days);
        assert_eq!(days_from_civil(y, m, d), days);
    }
    assert_eq!(civil_from_days(0), (1970, 1, 1));
    assert_eq!(days_from_civil(2026, 11, 24), 20_781);
}

#[test]
fn ms_between_needs_both_times() {
    let t = |ms| Timestamp::from_millis(ms);
    assert_eq!(Timestamp::ms_between(t(1_000), t(3_500)), Some(2_500));
    assert_eq!(Timestamp::ms_between(t(3_500), t(1_000)), Some(2_500));
    assert_eq!(Timestamp::ms_between(None, t(1_000)), None);
    assert_eq!(Timestamp::ms_between(t(1_000), None), None);
}
