use super::*;

fn at(s: &str) -> Timestamp {
    Timestamp::parse(s).unwrap()
}

const NOW: &str = "2026-11-24T10:30:00Z";

fn when(s: &str, end: End, zone: &Zone) -> Timestamp {
    When::parse(s).unwrap().at(end, at(NOW), zone)
}

#[test]
fn spans_go_back_from_now() {
    let utc = Zone::utc();
    assert_eq!(when("2h", End::Since, &utc), at("2026-11-24T08:30:00Z"));
    assert_eq!(when("30m", End::Since, &utc), at("2026-11-24T10:00:00Z"));
    assert_eq!(when("3d", End::Since, &utc), at("2026-11-21T10:30:00Z"));
    assert_eq!(when("1w", End::Until, &utc), at("2026-11-17T10:30:00Z"));
    assert_eq!(when("today", End::Since, &utc), at("2026-11-24T00:00:00Z"));
    assert_eq!(
        when("yesterday", End::Since, &utc),
        at("2026-11-23T00:00:00Z")
    );
    assert_eq!(
        when("yesterday", End::Until, &utc),
        at("2026-11-24T00:00:00Z")
    );
}

#[test]
fn dates_and_times_are_local_unless_they_say() {
    let plus1 = Zone::fixed(3600);
    assert_eq!(
        when("2026-11-24", End::Since, &plus1),
        at("2026-11-23T23:00:00Z")
    );
    // A bare date as --until: the end of that day.
    assert_eq!(
        when("2026-11-24", End::Until, &plus1),
        at("2026-11-24T23:00:00Z")
    );
    assert_eq!(
        when("2026-11-24 18:00", End::Until, &plus1),
        at("2026-11-24T17:00:00Z")
    );
    assert_eq!(
        when("2026-11-24T18:00:30", End::Since, &plus1),
        at("2026-11-24T17:00:30Z")
    );
    assert_eq!(
        when("2026-11-24T18:00:00Z", End::Since, &plus1),
        at("2026-11-24T18:00:00Z")
    );
    assert_eq!(
        when("2026-11-24T18:00:00-05:00", End::Until, &plus1),
        at("2026-11-24T23:00:00Z")
    );
    // Today where the clock is: at 10:30 UTC it is already the 25th at +14.
    let kiritimati = Zone::fixed(14 * 3600);
    assert_eq!(
        when("today", End::Since, &kiritimati),
        at("2026-11-24T10:00:00Z")
    );
}

#[test]
fn what_is_not_a_time_is_refused_with_examples() {
    for s in [
        "",
        "2",
        "h",
        "-2h",
        "2y",
        "2026-11-24T25:00",
        "last week",
        "2026-11-24T18:00:00Zx",
    ] {
        let e = When::parse(s).unwrap_err();
        assert!(e.contains("is not a time") && e.contains("2h"), "{s}: {e}");
    }
}

#[test]
fn a_window_is_since_inclusive_until_exclusive() {
    let w = Window {
        since: Some(at("2026-11-24T00:00:00Z")),
        until: Some(at("2026-11-25T00:00:00Z")),
    };
    assert!(w.contains(at("2026-11-24T00:00:00Z")));
    assert!(w.contains(at("2026-11-24T23:59:59.999Z")));
    assert!(!w.contains(at("2026-11-25T00:00:00Z")));
    assert!(!w.contains(at("2026-11-23T23:59:59.999Z")));
    assert!(w.overlaps(at("2026-11-23T20:00:00Z"), at("2026-11-24T00:00:00Z")));
    assert!(!w.overlaps(at("2026-11-23T20:00:00Z"), at("2026-11-23T23:00:00Z")));
    assert!(!w.overlaps(at("2026-11-25T00:00:00Z"), at("2026-11-26T00:00:00Z")));
    assert!(!w.is_empty() && !w.is_all());
    assert!(Window::default().is_all());
    let backwards = Window {
        since: w.until,
        until: w.since,
    };
    assert!(backwards.is_empty());
}
