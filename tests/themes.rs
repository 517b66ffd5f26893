//! `--theme` and `--list-themes` (issue 28): the built-in themes, colours
//! for what the terminal shows, a theme file named in the configuration
//! file, and `NO_COLOR` and `--color never` winning over all of them.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests fail loudly by design

mod common;

use std::path::PathBuf;

use common::{fixture, sv, temp_file};

const THEMES: [&str; 4] = ["default", "light", "contrast", "mono"];

/// Run with `args` on the edit fixture, with `env` set: (status, stdout,
/// stderr).
fn run_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = sv();
    cmd.env_remove("COLORTERM").env("TERM", "xterm");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd
        .args(args)
        .arg(fixture("claude/edit_write.jsonl"))
        .output()
        .unwrap();
    (
        o.status.code().unwrap(),
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

/// The first tool line (`▸ TodoWrite …`) of a run, escapes and all.
fn tool_line(out: &str) -> String {
    out.lines()
        .find(|l| l.contains("▸ "))
        .unwrap_or_else(|| panic!("no tool line: {out}"))
        .to_string()
}

#[test]
fn each_built_in_theme_colours_a_tool_line_differently() {
    for env in [
        &[][..],
        &[("TERM", "xterm-256color")],
        &[("COLORTERM", "truecolor")],
    ] {
        let lines: Vec<String> = THEMES
            .iter()
            .map(|t| tool_line(&run_env(&["--color", "always", "--theme", t], env).1))
            .collect();
        for (i, a) in lines.iter().enumerate() {
            for (j, b) in lines.iter().enumerate().skip(i + 1) {
                assert_ne!(a, b, "{} and {} under {env:?}", THEMES[i], THEMES[j]);
            }
        }
        // The default theme is the standard look; mono has no colour.
        assert!(
            lines[0].starts_with("\x1b[0m\x1b[1m\x1b[34m▸ "),
            "{:?}",
            lines[0]
        );
        assert!(
            !lines[3].contains("\x1b[3") && !lines[3].contains("38;"),
            "{:?}",
            lines[3]
        );
        assert!(lines[3].contains("\x1b[1m\x1b[4m▸ "), "{:?}", lines[3]);
    }
    // Without a theme: the default.
    let (_, plain, _) = run_env(&["--color", "always"], &[]);
    let (_, default, _) = run_env(&["--color", "always", "--theme", "default"], &[]);
    assert_eq!(plain, default);
}

#[test]
fn colours_follow_what_the_terminal_shows() {
    let light = |env: &[(&str, &str)]| {
        tool_line(&run_env(&["--color", "always", "--theme", "light"], env).1)
    };
    assert!(light(&[("COLORTERM", "truecolor")]).contains("\x1b[38;2;135;0;175m▸ "));
    assert!(light(&[("COLORTERM", "24bit")]).contains("\x1b[38;2;135;0;175m▸ "));
    assert!(light(&[("TERM", "xterm-256color")]).contains("\x1b[38;5;91m▸ "));
    assert!(light(&[]).contains("\x1b[35m▸ "));
}

#[test]
fn no_color_and_color_never_win_over_every_theme() {
    for theme in THEMES {
        let (_, out, _) = run_env(&["--theme", theme, "--color", "never"], &[]);
        assert!(!out.contains('\x1b'), "{theme}: {out:?}");
        let (_, out, _) = run_env(
            &["--theme", theme],
            &[("NO_COLOR", "1"), ("COLORTERM", "truecolor")],
        );
        assert!(!out.contains('\x1b'), "{theme}: {out:?}");
        // The same symbols in every theme.
        assert!(out.contains("▸ Write notes/todo.md"), "{out}");
    }
}

#[test]
fn a_label_takes_its_colour_from_the_theme() {
    let (_, out, _) = run_env(
        &["--color", "always", "--theme", "mono", "--label", "api"],
        &[],
    );
    assert!(out.starts_with("\x1b[0m\x1b[1m[api]\x1b[0m "), "{out:?}");
    let (_, out, _) = run_env(&["--color", "always", "--label", "api"], &[]);
    assert!(out.starts_with("\x1b[0m\x1b[1m\x1b[3"), "{out:?}");
}

/// A configuration file holding `line`, and its path.
fn config(name: &str, line: &str) -> PathBuf {
    temp_file(name, format!("# mine\n{line}\n").as_bytes())
}

#[test]
fn a_theme_file_named_in_the_configuration_file() {
    let theme = temp_file(
        "dusk.theme",
        b"# dusk: orange tools\nbase = light\ntool = #ff8700 bold # orange\nkey = italic\n",
    );
    let conf = config("theme.conf", &format!("--theme {}", theme.display()));
    let conf = conf.to_str().unwrap();
    let env = [("STREAMVIEW_CONFIG", conf), ("COLORTERM", "truecolor")];
    let (code, out, err) = run_env(&["--color", "always"], &env);
    assert_eq!(code, 0, "{err}");
    let tool = tool_line(&out);
    assert!(
        tool.contains("\x1b[1m\x1b[38;2;255;135;0m▸ TodoWrite"),
        "{tool:?}"
    );
    // The command line wins over the file.
    let (_, out, _) = run_env(&["--color", "always", "--theme", "default"], &env);
    assert!(tool_line(&out).starts_with("\x1b[0m\x1b[1m\x1b[34m▸ "));
    // On a terminal of 8 colours, the nearest of them.
    let env = [("STREAMVIEW_CONFIG", conf)];
    let (_, out, _) = run_env(&["--color", "always"], &env);
    assert!(tool_line(&out).contains("\x1b[1m\x1b[33m▸ "), "{out:?}");
}

#[test]
fn a_wrong_theme_is_refused_in_one_line_naming_the_file_and_key() {
    let theme = temp_file("bad.theme", b"tool = bold\n\nerror = blu bold\n");
    let (code, out, err) = run_env(&["--theme", theme.to_str().unwrap()], &[]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!(
            "streamview: {}:3: error: unknown colour `blu`",
            theme.display()
        )),
        "{err}"
    );
    // An unknown role, and hostile bytes quoted inert.
    let theme = temp_file("evil.theme", b"tool\x1b]0;pwned\x07 = red\n");
    let (code, _, err) = run_env(&["--theme", theme.to_str().unwrap()], &[]);
    assert_eq!(code, 2);
    assert!(err.contains(":1: unknown role `tool␛]0;pwned␇`"), "{err}");
    assert!(!err.contains('\x1b'), "{err:?}");
    // A missing file, a name that is no theme.
    let (code, _, err) = run_env(&["--theme", "./no-such.theme"], &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot read the theme ./no-such.theme: no such file"),
        "{err}"
    );
    let (code, _, err) = run_env(&["--theme", "solarized"], &[]);
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "no theme `solarized`: the built-in themes are default, light, contrast, mono"
        ),
        "{err}"
    );
}

#[test]
fn list_themes_shows_each_on_a_sample() {
    let o = sv()
        .env("TERM", "xterm-256color")
        .args(["--list-themes", "--color", "always"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    for name in THEMES {
        assert!(out.contains(&format!("{name} — ")), "{name}: {out}");
    }
    // Each sample draws its tool lines in its theme's colours.
    let tools: Vec<&str> = out.lines().filter(|l| l.contains("▸ Bash")).collect();
    assert_eq!(tools.len(), 2 * THEMES.len(), "{out}");
    assert!(tools[0] != tools[2] && tools[2] != tools[4] && tools[4] != tools[6]);
    // Without colour: the same symbols.
    let o = sv().args(["--list-themes"]).output().unwrap();
    let plain = String::from_utf8(o.stdout).unwrap();
    assert!(!plain.contains('\x1b'));
    assert!(plain.contains("▸ Bash npm test") && plain.contains("⊘ permission denied"));
    // The user's theme too.
    let theme = temp_file("list.theme", b"tool = 208\n");
    let o = sv()
        .args(["--list-themes", "--theme", theme.to_str().unwrap()])
        .output()
        .unwrap();
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("list.theme — your theme (--theme)"), "{out}");
    // Not in a configuration file: it would list on every run.
    let conf = config("list.conf", "--list-themes");
    let o = sv()
        .env("STREAMVIEW_CONFIG", &conf)
        .arg("-")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8(o.stderr)
            .unwrap()
            .contains("--list-themes")
    );
}
