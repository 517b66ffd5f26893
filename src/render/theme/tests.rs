use super::*;

#[test]
fn the_default_theme_is_the_standard_look_at_every_depth() {
    for depth in [Depth::Basic, Depth::Ansi256, Depth::TrueColor] {
        let t = Theme::named("default", depth).unwrap();
        let mut tool = ColorSpec::new();
        tool.set_fg(Some(Color::Blue)).set_bold(true);
        assert_eq!(t.spec(Role::Tool), &tool);
        assert!(t.spec(Role::Text).is_none());
        let basic = Theme::named("default", Depth::Basic).unwrap();
        for role in Role::ALL {
            assert_eq!(t.spec(role), basic.spec(role), "{role:?}");
        }
    }
}

#[test]
fn each_built_in_theme_draws_a_tool_differently_at_every_depth() {
    for depth in [Depth::Basic, Depth::Ansi256, Depth::TrueColor] {
        let specs: Vec<ColorSpec> = BUILT_IN
            .iter()
            .map(|b| {
                Theme::named(b.name, depth)
                    .unwrap()
                    .spec(Role::Tool)
                    .clone()
            })
            .collect();
        for (i, a) in specs.iter().enumerate() {
            for b in &specs[i + 1..] {
                assert_ne!(a, b, "{depth:?}");
            }
        }
    }
    // The mono theme has no colour at all.
    let mono = Theme::named("mono", Depth::TrueColor).unwrap();
    for role in Role::ALL {
        assert_eq!(mono.spec(role).fg(), None, "{role:?}");
    }
    assert_eq!(mono.label_spec("api").fg(), None);
}

#[test]
fn colours_follow_what_the_terminal_shows() {
    assert_eq!(
        Depth::of(Some("truecolor"), Some("xterm")),
        Depth::TrueColor
    );
    assert_eq!(Depth::of(Some("24bit"), None), Depth::TrueColor);
    assert_eq!(Depth::of(None, Some("xterm-256color")), Depth::Ansi256);
    assert_eq!(Depth::of(None, Some("xterm")), Depth::Basic);
    assert_eq!(Depth::of(None, None), Depth::Basic);
    let tool = |d| {
        Theme::named("light", d)
            .unwrap()
            .spec(Role::Tool)
            .fg()
            .copied()
    };
    assert_eq!(tool(Depth::TrueColor), Some(Color::Rgb(0x87, 0x00, 0xaf)));
    assert_eq!(tool(Depth::Ansi256), Some(Color::Ansi256(91)));
    assert_eq!(tool(Depth::Basic), Some(Color::Magenta));
}

#[test]
fn a_theme_file_sets_roles_over_a_base() {
    let text = b"# dusk\nbase = light\ntool = #ff8700 bold   # orange\nkey = 244 italic\nlabel = bright-cyan\n\n#no space\nerror=red underline\n";
    let t = parse(text, Depth::TrueColor).unwrap();
    assert_eq!(t.spec(Role::Tool).fg(), Some(&Color::Rgb(0xff, 0x87, 0x00)));
    assert!(t.spec(Role::Tool).bold());
    assert_eq!(t.spec(Role::Key).fg(), Some(&Color::Ansi256(244)));
    assert!(t.spec(Role::Key).italic());
    assert!(t.spec(Role::Error).underline() && !t.spec(Role::Error).bold());
    // The rest is the base's.
    let light = Theme::named("light", Depth::TrueColor).unwrap();
    assert_eq!(t.spec(Role::Header), light.spec(Role::Header));
    // One colour for every label.
    assert_eq!(t.label_spec("a"), t.label_spec("b"));
    assert_eq!(t.label_spec("a").fg(), Some(&Color::Ansi256(14)));
    // On a terminal of 8 colours, the nearest of them.
    let t = parse(text, Depth::Basic).unwrap();
    assert_eq!(t.spec(Role::Tool).fg(), Some(&Color::Yellow));
    assert_eq!(t.spec(Role::Key).fg(), Some(&Color::White));
}

#[test]
fn a_wrong_line_is_refused_with_its_number_and_key() {
    let cases: [(&[u8], usize, &str); 7] = [
        (b"tool = blu", 1, "tool: unknown colour `blu`"),
        (
            b"\n\ntoool = blue",
            3,
            "unknown role `toool` (roles: header, text",
        ),
        (b"tool blue", 1, "`tool blue` is not `role = colour`"),
        (b"tool = red blue", 1, "tool: two colours (`blue`)"),
        (
            b"base = solarized",
            1,
            "base: no built-in theme `solarized` (default, light",
        ),
        (b"tool = #12345g", 1, "tool: unknown colour `#12345g`"),
        (b"tool = \x1b[2J", 1, "tool: unknown colour `\u{241b}[2J`"),
    ];
    for (text, line, want) in cases {
        let (n, why) = parse(text, Depth::Basic).unwrap_err();
        assert_eq!(n, line, "{why}");
        assert!(why.starts_with(want), "{why}");
    }
    let (n, why) = parse(b"tool = red\n\xff\n", Depth::Basic).unwrap_err();
    assert_eq!((n, why.as_str()), (2, "not UTF-8 text"));
}

#[test]
fn a_label_takes_a_colour_of_the_palette_by_its_name() {
    let t = Theme::named("default", Depth::Ansi256).unwrap();
    assert_eq!(t.label_spec("api"), t.label_spec("api"));
    assert_ne!(t.label_spec("api"), t.label_spec("web"));
    assert!(t.label_spec("api").bold());
}
