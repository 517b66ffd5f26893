use super::*;

fn args(text: &str) -> Vec<String> {
    parse(text.as_bytes())
        .unwrap()
        .into_iter()
        .map(|a| a.into_string().unwrap())
        .collect()
}

fn error(text: &str) -> LineError {
    parse(text.as_bytes()).unwrap_err()
}

#[test]
fn one_option_per_line_its_value_after_a_space_or_equals() {
    let text = "# my defaults\n\n  --max-lines 20\n--color=always\n-v\n\t# indented comment\n--tool mcp__github__*\n--status-wait   5  \r\n--no-status\n";
    assert_eq!(
        args(text),
        [
            "--max-lines",
            "20",
            "--color=always",
            "-v",
            "--tool",
            "mcp__github__*",
            "--status-wait",
            "5",
            "--no-status"
        ]
    );
    assert!(args("").is_empty());
    assert!(args("# nothing\n\n   \n").is_empty());
    // The rest of the line is the value: no quotes, spaces kept.
    assert_eq!(args("--tool my tool"), ["--tool", "my tool"]);
}

#[test]
fn a_wrong_line_is_named_with_what_is_wrong() {
    let e = error("--max-lines 20\n\n--colour always\n");
    assert_eq!(e.line, 3);
    assert!(
        e.what.starts_with("unexpected argument '--colour' found"),
        "{}",
        e.what
    );
    assert!(e.what.contains("'--color'"), "the tip: {}", e.what);
    assert!(!e.what.contains('\n'), "{}", e.what);
    let e = error("--max-lines lots");
    assert_eq!(e.line, 1);
    assert!(
        e.what.contains("lots") && e.what.contains("--max-lines"),
        "{}",
        e.what
    );
    let e = error("-v\n--max-lines\n");
    assert_eq!(e.line, 2);
    assert!(e.what.contains("value is required"), "{}", e.what);
    // An option that takes no value, given one.
    assert_eq!(error("--summary yes").line, 1);
    // Two options on one line.
    assert_eq!(error("-v -q").line, 1);
}

#[test]
fn only_options_belong_in_it() {
    for line in ["session.jsonl", "-", "--", "--help", "-V", "--generate man"] {
        let e = error(&format!("-v\n{line}\n"));
        assert_eq!(e.line, 2, "{line}");
        assert!(!e.what.contains('\n'), "{line}: {}", e.what);
    }
    assert!(error("notes.jsonl").what.contains("not an option"));
    assert!(error("--help").what.contains("no place"));
    let e = parse(b"-v\n--tool \xff\n").unwrap_err();
    assert_eq!((e.line, e.what.as_str()), (2, "not UTF-8 text"));
}

fn env(config: Option<&str>, xdg: Option<&str>, home: Option<&str>) -> Env {
    Env {
        config: config.map(Into::into),
        xdg_config_home: xdg.map(Into::into),
        home: home.map(Into::into),
        ..Env::default()
    }
}

#[test]
fn where_it_is_read_from() {
    let named = |p: &str| Location::Named(p.into());
    let usual = |p: &str| Location::Usual(p.into());
    assert_eq!(
        location(&env(Some("/etc/sv"), Some("/x"), Some("/h"))),
        named("/etc/sv")
    );
    assert_eq!(
        location(&env(Some(""), Some("/x"), Some("/h"))),
        Location::Nowhere
    );
    assert_eq!(
        location(&env(None, Some("/x"), Some("/h"))),
        usual("/x/streamview/config")
    );
    // A relative XDG_CONFIG_HOME is ignored, as the XDG spec says.
    assert_eq!(
        location(&env(None, Some("rel"), Some("/h"))),
        usual("/h/.config/streamview/config")
    );
    assert_eq!(
        location(&env(None, Some(""), Some("/h"))),
        usual("/h/.config/streamview/config")
    );
    assert_eq!(location(&env(None, None, None)), Location::Nowhere);
}

fn merged(config: &str, command_line: &[&str]) -> Cli {
    let argv: Vec<OsString> = std::iter::once("streamview")
        .chain(command_line.iter().copied())
        .map(OsString::from)
        .collect();
    let cli = Cli::try_parse_from(&argv).unwrap();
    merge(cli, &argv, &parse(config.as_bytes()).unwrap()).unwrap()
}

#[test]
fn the_command_line_wins_over_the_file() {
    let c = merged("--max-lines 20\n--color always\n--format summary\n", &[]);
    assert_eq!(
        (c.max_lines, c.color),
        (20, super::super::ColorWhen::Always)
    );
    let c = merged(
        "--max-lines 20\n--color always\n",
        &["--max-lines", "3", "x.jsonl"],
    );
    assert_eq!((c.max_lines, c.color), (3, super::super::ColorWhen::Always));
    assert_eq!(c.files, ["x.jsonl"]);
    // -v/-q of the file are kept apart: the environment comes between.
    let c = merged("-v\n", &[]);
    assert_eq!(
        (c.verbose, c.quiet, c.config_verbosity),
        (false, false, Some(Verbosity::Verbose))
    );
    let c = merged("-v\n-q\n", &["-v"]);
    assert_eq!(
        (c.verbose, c.quiet, c.config_verbosity),
        (true, false, Some(Verbosity::Quiet))
    );
    // A list option on the command line replaces the file's; otherwise
    // the file's stays.
    let c = merged("--only tools\n--tool Bash\n", &["--only", "errors"]);
    assert_eq!(c.only, [crate::filter::Kind::Errors]);
    assert_eq!(c.tools, ["Bash"]);
    // Files after `--` on the command line stay files.
    let c = merged("--summary\n", &["--", "--summary"]);
    assert!(c.summary);
    assert_eq!(c.files, ["--summary"]);
}

#[test]
fn a_config_error_is_one_line_with_its_file_and_line() {
    let e = ConfigError {
        path: "/home/a/.config/streamview/config".into(),
        line: Some(3),
        what: "unexpected argument '--x\u{1b}[31m' found".into(),
    };
    let shown = e.to_string();
    assert!(
        shown.starts_with("/home/a/.config/streamview/config:3: unexpected argument"),
        "{shown}"
    );
    assert!(!shown.contains('\u{1b}'), "sanitized: {shown}");
}
