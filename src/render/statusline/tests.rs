#![allow(clippy::float_cmp)] // values parsed, compared exactly

use super::*;
use std::path::PathBuf;
use termcolor::NoColor;

fn line(claude: &Claude, figures: Option<&Figures>, width: Option<usize>) -> String {
    let mut out = NoColor::new(Vec::new());
    let now = Timestamp::from_millis(1_800_000_000_000).unwrap();
    write_line(&mut out, claude, figures, (now, width), &Theme::default()).unwrap();
    String::from_utf8(out.into_inner()).unwrap()
}

#[test]
fn every_field_is_read_and_checked() {
    let c = Claude::parse(
        br#"{"session_id":"abc","transcript_path":"/t.jsonl","model":{"id":"claude-x","display_name":"  "},
        "cost":{"total_cost_usd":"1.5"},"context_window":{"context_window_size":200000,
        "current_usage":{"input_tokens":1000,"cache_read_input_tokens":49000}},
        "rate_limits":{"five_hour":{"used_percentage":250,"resets_at":1800003600},
        "seven_day":{"used_percentage":-1}}}"#,
    );
    assert_eq!(c.session_id.as_deref(), Some("abc"));
    assert_eq!(c.transcript, Some(PathBuf::from("/t.jsonl")));
    // A blank display name: the id.
    assert_eq!(c.model.as_deref(), Some("claude-x"));
    assert_eq!(c.cost_usd, Some(1.5));
    assert_eq!(c.context_pct, Some(25.0));
    let five = c.five_hour.unwrap();
    assert_eq!(five.used_pct, 100.0);
    assert_eq!(five.resets_at, Timestamp::from_millis(1_800_003_600_000));
    // Negative: not a percentage.
    assert_eq!(c.seven_day, None);
    for bad in [
        &b"[1]"[..],
        b"null",
        b"",
        b"{\"cost\":{\"total_cost_usd\":\"NaN\"}}",
    ] {
        assert_eq!(Claude::parse(bad), Claude::default(), "{bad:?}");
    }
}

#[test]
fn the_line_keeps_its_order_and_leaves_out_from_the_end() {
    let claude = Claude {
        model: Some("Opus 4.5".into()),
        cost_usd: Some(1.234),
        context_pct: Some(45.0),
        five_hour: Some(Limit {
            used_pct: 62.0,
            resets_at: Timestamp::from_millis(1_800_000_000_000 + 65 * 60_000),
        }),
        ..Claude::default()
    };
    let figures = Figures {
        today: Cost {
            usd: Some(12.4),
            estimated: true,
            partial: false,
        },
        settled: true,
        ..Figures::default()
    };
    let full = line(&claude, Some(&figures), None);
    assert_eq!(
        full,
        "Opus 4.5 · $1.23 session · ~$12.40 today · ctx 45% · 5h 62% ↻1h05m\n"
    );
    let narrow = line(&claude, Some(&figures), Some(40));
    assert_eq!(narrow, "Opus 4.5 · $1.23 session · ~$12.40 today\n");
    // Never empty, however narrow.
    assert_eq!(line(&claude, None, Some(3)), "Opus 4.5\n");
    // Nothing known: the model's place says Claude.
    assert_eq!(line(&Claude::default(), None, None), "Claude\n");
}

#[test]
fn a_window_too_short_shows_no_block() {
    let claude = Claude::default();
    let block = OpenBlock {
        group: "b".into(),
        ends: "e".into(),
        elapsed_ms: 3_600_000,
        left_ms: 4 * 3_600_000 + 5 * 60_000,
        tokens: 1,
        cost_usd: Some(2.0),
        cost_estimated: true,
        burn_usd_per_hour: Some(2.0),
        projected_cost_usd: Some(10.0),
    };
    let mut figures = Figures {
        block: Some(block),
        settled: true,
        ..Figures::default()
    };
    assert_eq!(
        line(&claude, Some(&figures), None),
        "Claude · $0 today · ~$2.00 block, 4h05m left, ~$2.00/h\n"
    );
    figures.settled = false;
    assert_eq!(line(&claude, Some(&figures), None), "Claude · $0 today\n");
}
