//! From what was typed to what is done: [`resolve`] turns [`Cli`] and [`Env`]
//! into [`Options`], refusing contradictions in one line each.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::ValueEnum;

use crate::event::Producer;
use crate::filter::Filter;
use crate::filter::grep::{Grep, Listing};
use crate::input::Source;
use crate::render::theme::{BUILT_IN, Depth, Theme};
use crate::render::{Alerts, Verbosity};
use crate::time::Timestamp;
use crate::time::window::{End, Window};
use crate::time::zone::Zone;

use super::{
    Cli, ColorWhen, Env, ErrorsTo, Format, Options, Pager, Paging, Refusal, env::truthy, homes,
    live,
};

/// The bundled price table with the user's file added (see `--prices`).
///
/// # Errors
/// The file cannot be read or is not a price table: one line saying which
/// and what to do.
pub fn load_prices(path: &std::path::Path) -> Result<crate::session::Prices, String> {
    // LiteLLM's whole table is 3.5 MB today.
    const MAX_BYTES: u64 = 64 << 20;
    let shown = path.display();
    let cannot = |why: String| format!("cannot read the prices in {shown}: {why}");
    let bytes = crate::file::read_small(path, MAX_BYTES)
        .map_err(|e| cannot(crate::file::describe_io(&e)))?;
    let text = String::from_utf8(bytes).map_err(|_| cannot("not UTF-8 text".into()))?;
    let user = crate::session::Prices::parse(&text).map_err(|why| {
        format!("{shown} is not a price table ({why}); fix it, or leave out --prices and $STREAMVIEW_PRICES")
    })?;
    Ok(crate::session::Prices::bundled().with(user))
}

/// Decide the options from the command line and the environment.
///
/// # Errors
/// The options cannot be run together or as given ([`Refusal::Usage`]:
/// `--follow` with several files, a `--grep` pattern that is not one,
/// `--by` with a format that shows no summary, an empty `--since` window),
/// or the zone a time needs cannot be read ([`Refusal::Failure`]).
pub fn resolve(cli: &Cli, env: &Env) -> Result<Options, Refusal> {
    let verbosity = verbosity(cli, env);
    let (format, groups_only) = report_format(cli, verbosity)?;
    let (color_stdout, color_stderr) = colors(cli, env);
    let theme = theme(cli, env)?;
    let paging = paging(cli, env, format, verbosity);
    // Read only when a time needs it (the file may be large or not a file).
    let needs_zone =
        cli.since.is_some() || cli.until.is_some() || cli.by.is_some() || cli.statusline;
    let zone = match needs_zone.then(|| zone(cli, env)) {
        Some(z) => z.map_err(Refusal::Failure)?,
        // The tables say when each session began.
        None if has_tables(cli, format) => zone(cli, env).unwrap_or_default(),
        None => Zone::utc(),
    };
    labels(cli)?;
    otlp_options(cli, format)?;
    let opts = Options {
        sources: sources(cli, env)?,
        format,
        verbosity,
        // JSONL is data: never coloured.
        color_stdout: color_stdout && matches!(format, Format::Pretty | Format::Summary),
        color_stderr,
        mirror_errors: match cli.errors {
            // The pager shows them in the stream.
            ErrorsTo::Auto => !paging && !env.stdout_tty && !env.stdout_pipe,
            ErrorsTo::Stderr => true,
            ErrorsTo::Never => false,
        },
        alerts: alerts(cli.errors, verbosity, format),
        // On a terminal; in a pipe or a file, scripts read each.
        count_hidden_errors: cli.errors == ErrorsTo::Auto
            && verbosity != Verbosity::Quiet
            && env.stdout_tty,
        from: cli.from.0.map(|p| {
            if cli.latest.is_some() {
                saved_form(p)
            } else {
                p
            }
        }),
        follow: cli.follow,
        latest: cli.latest.map(usize::from),
        session: None,
        board: None,
        project: cli.project.clone(),
        grep: grep(cli)?,
        listing: listing(cli, format)?,
        window: window(cli, env, &zone)?,
        by: cli.by.map(|b| (b, zone.clone())),
        zone,
        groups_only,
        list: cli.list,
        max_line_bytes: cli.max_line_bytes,
        jobs: jobs(cli.jobs, env.cores),
        cache: (!cli.no_cache)
            .then(|| {
                crate::index::cache_dir(
                    env.cache_dir.as_deref(),
                    env.xdg_cache_home.as_deref(),
                    env.home.as_deref(),
                )
            })
            .flatten(),
        max_lines: cli.max_lines,
        filter: Filter::new(&cli.only, &cli.hide, &cli.tools).with_tool_kinds(&cli.tool_kinds),
        summary: cli.summary,
        sanitize_result: env.stdout_tty,
        status: status_line(cli, env, format, verbosity) && !paging,
        status_wait: Duration::from_secs(cli.status_wait),
        progress: progress_line(cli, env, format, verbosity),
        pager: paging.then(|| Pager::from_env(env)),
        wrap: env.stdout_tty,
        prices_file: (cli.prices.clone())
            .or_else(|| env.prices.clone().filter(|p| !p.is_empty()).map(Into::into)),
        prices: None,
        label: label(cli, format, verbosity, (color_stdout, color_stderr), &theme),
        followed: followed(cli, format, verbosity, (color_stdout, color_stderr), &theme),
        otlp: crate::render::otlp::OtlpOptions {
            content: cli.otlp_content,
            anonymous: cli.otlp_anonymous,
            host: env.host.clone().filter(|_| !cli.otlp_anonymous),
            label: match cli.label.as_slice() {
                [one] => Some(one.clone()),
                _ => None,
            },
        },
        theme,
        statusline: false,
        top: false,
        redraw: false,
    };
    Ok(if cli.statusline {
        live::statusline(cli, env, opts)
    } else if cli.top {
        live::top(cli, env, opts)
    } else if cli.follow && cli.by.is_some() {
        live::redraw(cli, env, opts)
    } else {
        opts
    })
}

/// `--theme`: a built-in theme by its name, or a theme file by its path,
/// for the colours the terminal shows (`COLORTERM`, `TERM`).
fn theme(cli: &Cli, env: &Env) -> Result<Theme, Refusal> {
    let text = |v: &Option<OsString>| v.as_ref().map(|v| v.to_string_lossy().into_owned());
    let depth = Depth::of(text(&env.colorterm).as_deref(), text(&env.term).as_deref());
    let Some(name) = cli.theme.as_deref() else {
        return Ok(Theme::named("default", depth).unwrap_or_default());
    };
    if let Some(t) = Theme::named(name, depth) {
        return Ok(t);
    }
    if !name.contains(['/', std::path::MAIN_SEPARATOR]) {
        let names: Vec<&str> = BUILT_IN.iter().map(|b| b.name).collect();
        return Err(Refusal::usage(
            clap::error::ErrorKind::InvalidValue,
            format!(
                "no theme `{name}`: the built-in themes are {}; a theme file is named by a path \
                 with a `/` (./{name})",
                names.join(", ")
            ),
        ));
    }
    let path = match (name.strip_prefix("~/"), &env.home) {
        (Some(rest), Some(home)) => Path::new(home).join(rest),
        _ => PathBuf::from(name),
    };
    Theme::load(&path, depth).map_err(Refusal::Failure)
}

/// `-f A B …`: a label for each file ([`names_of`](crate::render::label::names_of)),
/// each in a colour of its own; `--latest N -f`: N labels, named when the
/// sessions are found (`drive`).
fn followed(
    cli: &Cli,
    format: Format,
    verbosity: Verbosity,
    colors: (bool, bool),
    theme: &Theme,
) -> Vec<crate::render::label::Label> {
    let names = match cli.latest {
        Some(n) if cli.follow && n > 1 => (1..=n).map(|i| i.to_string()).collect(),
        _ if !cli.follow || cli.files.len() < 2 => return Vec::new(),
        // One per file: each file's own.
        _ if cli.label.len() == cli.files.len() => cli.label.clone(),
        _ => {
            let paths: Vec<&std::path::Path> = cli.files.iter().map(std::path::Path::new).collect();
            let base = cli.label.first().map(String::as_str);
            crate::render::label::names_of(&paths, base)
        }
    };
    (names.into_iter().enumerate())
        .map(|(i, name)| {
            let mut l = labelled(name, cli, format, verbosity, colors, theme);
            l.spec = theme.label_spec_nth(i);
            l
        })
        .collect()
}

/// Several `--label`s name the files followed, one each: refused
/// otherwise.
fn labels(cli: &Cli) -> Result<(), Refusal> {
    let (n, files) = (cli.label.len(), cli.files.len());
    if n < 2 || (cli.follow && cli.latest.is_none() && n == files) {
        return Ok(());
    }
    Err(Refusal::usage(
        clap::error::ErrorKind::ArgumentConflict,
        format!(
            "--label is given {n} times: give one (for every line), or one per file followed with -f ({files} here)"
        ),
    ))
}

/// `--otlp-content` and `--otlp-anonymous` say what `--format otlp`
/// writes: with another format, they are refused.
fn otlp_options(cli: &Cli, format: Format) -> Result<(), Refusal> {
    let given = [
        (cli.otlp_content, "--otlp-content"),
        (cli.otlp_anonymous, "--otlp-anonymous"),
    ];
    match given.iter().find(|(on, _)| *on) {
        Some((_, name)) if format != Format::Otlp => Err(Refusal::usage(
            clap::error::ErrorKind::ArgumentConflict,
            format!("{name} says what --format otlp writes: give --format otlp, or leave it out"),
        )),
        _ => Ok(()),
    }
}

/// `--label`: where its name goes. The formats that print lines for
/// people start each with it; JSONL events carry it as a field, and the
/// reports are documents.
fn label(
    cli: &Cli,
    format: Format,
    verbosity: Verbosity,
    (color_stdout, color_stderr): (bool, bool),
    theme: &Theme,
) -> Option<crate::render::label::Label> {
    // Several: one per followed file (`followed`).
    let [name] = cli.label.as_slice() else {
        return None;
    };
    let name = name.clone();
    Some(labelled(
        name,
        cli,
        format,
        verbosity,
        (color_stdout, color_stderr),
        theme,
    ))
}

/// The label `name`, as `--label` makes it.
fn labelled(
    name: String,
    cli: &Cli,
    format: Format,
    verbosity: Verbosity,
    (color_stdout, color_stderr): (bool, bool),
    theme: &Theme,
) -> crate::render::label::Label {
    let prefixed = verbosity != Verbosity::Quiet
        && (cli.grep.is_some() && format != Format::Jsonl
            || matches!(format, Format::Pretty | Format::Summary | Format::Result));
    crate::render::label::Label {
        prefixed,
        color_stdout: color_stdout && prefixed,
        color_stderr,
        spec: theme.label_spec(&name),
        name,
    }
}

/// The output has a session table: a summary, a report, `--summary`.
fn has_tables(cli: &Cli, format: Format) -> bool {
    cli.summary
        || cli.list
        || matches!(
            format,
            Format::Summary | Format::SummaryJson | Format::Markdown | Format::Html
        )
}

/// `-q`, `-v`, their variables, the configuration file's, in that order.
fn verbosity(cli: &Cli, env: &Env) -> Verbosity {
    if cli.quiet {
        Verbosity::Quiet
    } else if cli.verbose {
        Verbosity::Verbose
    } else if truthy(env.quiet.as_ref()) {
        Verbosity::Quiet
    } else if truthy(env.verbose.as_ref()) {
        Verbosity::Verbose
    } else if let Some(v) = cli.config_verbosity {
        v
    } else if cli.only.iter().any(|k| k.needs_verbose()) {
        // `--only thinking` would otherwise show nothing at all.
        Verbosity::Verbose
    } else {
        Verbosity::Normal
    }
}

/// Colour on stdout and on stderr: `--color`, `NO_COLOR`,
/// `CLICOLOR_FORCE`, the terminals.
fn colors(cli: &Cli, env: &Env) -> (bool, bool) {
    let no_color = env.no_color.as_ref().is_some_and(|v| !v.is_empty());
    let force = truthy(env.clicolor_force.as_ref());
    let auto = |tty: bool| force || (tty && !no_color);
    match cli.color {
        ColorWhen::Always => (true, true),
        ColorWhen::Never => (false, false),
        ColorWhen::Auto => (auto(env.stdout_tty), auto(env.stderr_tty)),
    }
}

/// `--paging`: by default a replay on a terminal, for people to read.
fn paging(cli: &Cli, env: &Env, format: Format, verbosity: Verbosity) -> bool {
    match cli.paging {
        Paging::Always => true,
        Paging::Never => false,
        Paging::Auto => {
            env.stdout_tty
                && env.regular_inputs
                && !cli.follow
                && matches!(format, Format::Pretty | Format::Summary)
                && verbosity != Verbosity::Quiet
        }
    }
}

/// The live status line, unless a pager owns the screen: stdout is a
/// terminal able to erase a line; JSON is data, and quiet means nothing on
/// stdout.
fn status_line(cli: &Cli, env: &Env, format: Format, verbosity: Verbosity) -> bool {
    !cli.no_status
        && env.stdout_tty
        && env.term.as_ref().is_none_or(|t| t != "dumb")
        && matches!(format, Format::Pretty | Format::Summary | Format::Result)
        && verbosity != Verbosity::Quiet
}

/// `-j` threads at most per core: past them a thread adds no speed, only
/// memory (`-j 65535` asked the system for more threads than it gives).
const JOBS_PER_CORE: usize = 8;

/// The threads of `-j` (default: one per core), at most [`JOBS_PER_CORE`]
/// per core (`cores` 0: unknown, one).
fn jobs(asked: Option<u16>, cores: usize) -> usize {
    let cores = cores.max(1);
    asked.map_or(cores, |n| usize::from(n).min(cores * JOBS_PER_CORE))
}

/// The progress line of a long library read: stderr is a terminal able
/// to erase a line, the run writes a report, a list or a search (whose
/// output comes at the end, or in few lines), not a followed file.
fn progress_line(cli: &Cli, env: &Env, format: Format, verbosity: Verbosity) -> bool {
    env.stderr_tty
        && env.term.as_ref().is_none_or(|t| t != "dumb")
        && !cli.follow
        && verbosity != Verbosity::Quiet
        && (cli.grep.is_some()
            || cli.list
            || matches!(
                format,
                Format::Summary | Format::SummaryJson | Format::Markdown | Format::Html
            ))
}

/// Where errors and denials go besides the stream.
fn alerts(errors: ErrorsTo, verbosity: Verbosity, format: Format) -> Alerts {
    match (errors, verbosity, format) {
        (ErrorsTo::Never, ..) => Alerts::Nothing,
        (ErrorsTo::Stderr, ..) | (_, Verbosity::Quiet, _) => Alerts::All,
        (ErrorsTo::Auto, _, Format::Result) => Alerts::Brief,
        (ErrorsTo::Auto, _, Format::Summary | Format::SummaryJson) => Alerts::Counted,
        (ErrorsTo::Auto, ..) => Alerts::All,
    }
}

/// What `--latest --from p` reads the agent's store as: an agent named
/// alone means the form of it that keeps the store (what Codex keeps on
/// disk is a rollout, not the `exec --json` stream `--from codex` names);
/// a form named (`claude-transcript`) is that form.
fn saved_form(p: Producer) -> Producer {
    match p.keeper() {
        Some(keeper) if p.name() == p.agent() => keeper,
        _ => p,
    }
}

/// The inputs: the files named; else with `--latest` the agent's sessions
/// folder; else standard input. `--follow` takes one file.
fn sources(cli: &Cli, env: &Env) -> Result<Vec<Source>, Refusal> {
    if !cli.all_agents && stores_for_a_report(cli, env) {
        let found = homes::found_homes(env);
        if found.is_empty() {
            return Err(Refusal::usage(
                clap::error::ErrorKind::ValueValidation,
                "no input, and no agent's saved sessions in their usual folders: name a log file or a folder, or pipe an agent's stream in",
            ));
        }
        return Ok(found);
    }
    if cli.all_agents {
        let found = homes::found_homes(env);
        if found.is_empty() {
            return Err(Refusal::usage(
                clap::error::ErrorKind::ValueValidation,
                "--all-agents found no agent's saved sessions in their usual folders",
            ));
        }
        return Ok(found);
    }
    Ok(if cli.files.is_empty() && cli.latest.is_some() {
        vec![Source::Path(homes::sessions_home(cli.from.0, env))]
    } else if cli.files.is_empty() {
        vec![Source::Stdin]
    } else {
        cli.files.iter().map(|f| Source::from_arg(f)).collect()
    })
}

/// A report (`--by`, `--list`, the summaries) given no input, with a
/// terminal on standard input: it reads what `--all-agents` reads, as
/// `ccusage daily` does, instead of waiting for events typed there. A pipe
/// on standard input is read as always.
fn stores_for_a_report(cli: &Cli, env: &Env) -> bool {
    env.stdin_tty
        && cli.files.is_empty()
        && cli.latest.is_none()
        && !cli.follow
        && (cli.by.is_some()
            || cli.list
            || matches!(cli.format, Some(Format::Summary | Format::SummaryJson)))
}

/// `--grep`'s pattern: one that cannot be searched for is a usage error.
fn grep(cli: &Cli) -> Result<Option<Grep>, Refusal> {
    let Some(pattern) = cli.grep.as_deref() else {
        return Ok(None);
    };
    Grep::new(pattern, cli.ignore_case)
        .map(Some)
        .map_err(|why| Refusal::usage(clap::error::ErrorKind::ValueValidation, why))
}

/// What `--grep` prints (`-C`, `-l`, `-c`): those options without
/// `--grep`, with `--format jsonl`, or together are refused.
fn listing(cli: &Cli, format: Format) -> Result<Listing, Refusal> {
    let mut given = Vec::new();
    if cli.files_with_matches {
        given.push("-l");
    }
    if cli.count {
        given.push("-c");
    }
    if cli.context.is_some() {
        given.push("-C");
    }
    let Some(first) = given.first() else {
        return Ok(Listing::default());
    };
    let why = if cli.grep.is_none() {
        format!("{first} is an option of --grep: give --grep PATTERN, or leave {first} out")
    } else if format == Format::Jsonl {
        format!(
            "{first} prints matches as lines, and --format jsonl prints events: give one of them"
        )
    } else if let [a, b, ..] = given[..] {
        format!("{a} and {b} print different things: give one of them")
    } else {
        return Ok(if cli.files_with_matches {
            Listing::Files
        } else if cli.count {
            Listing::Counts
        } else {
            Listing::Matches {
                context: cli.context.unwrap_or(0),
            }
        });
    };
    Err(Refusal::usage(
        clap::error::ErrorKind::ArgumentConflict,
        why,
    ))
}

/// The format `cli` asks for: `--by` without `--format` is the summary
/// showing the groups alone (`true`); `--by` with a format that shows no
/// summary is refused, rather than left without effect.
fn report_format(cli: &Cli, verbosity: Verbosity) -> Result<(Format, bool), Refusal> {
    if cli.list {
        return list_format(cli).map(|f| (f, false));
    }
    let Some(by) = cli.by else {
        return Ok((cli.format.unwrap_or(Format::Pretty), false));
    };
    let by = by.name();
    let refused = |why: String| {
        format!(
            "--by {by} adds a table to a summary, and {why}: leave it out, or give --format summary (or no --format: the table alone)"
        )
    };
    let format = cli.format.unwrap_or(Format::Summary);
    let why = if verbosity == Verbosity::Quiet {
        Some("-q prints nothing on stdout".to_string())
    } else if cli.grep.is_some() {
        Some("--grep prints matching events".to_string())
    } else if format == Format::Otlp {
        Some("--format otlp writes no table".to_string())
    } else if matches!(format, Format::Pretty | Format::Jsonl | Format::Result) && !cli.summary {
        let name = format
            .to_possible_value()
            .map_or_else(String::new, |v| v.get_name().to_string());
        Some(format!("--format {name} shows none without --summary"))
    } else {
        None
    };
    match why {
        Some(why) => Err(Refusal::usage(
            clap::error::ErrorKind::ArgumentConflict,
            refused(why),
        )),
        None => Ok((format, cli.format.is_none())),
    }
}

/// `--list`: a table, or JSON lines with `--format jsonl` (or
/// `summary-json`); with an option that prints something else, refused.
fn list_format(cli: &Cli) -> Result<Format, Refusal> {
    let conflict = if cli.by.is_some() {
        Some("--by")
    } else if cli.grep.is_some() {
        Some("--grep")
    } else if cli.follow {
        Some("--follow")
    } else if cli.quiet {
        Some("-q")
    } else {
        None
    };
    if let Some(other) = conflict {
        return Err(Refusal::usage(
            clap::error::ErrorKind::ArgumentConflict,
            format!(
                "--list prints the sessions found, and {other} prints something else: give one of them"
            ),
        ));
    }
    match cli.format {
        None | Some(Format::Summary | Format::Pretty) => Ok(Format::Summary),
        Some(Format::Jsonl | Format::SummaryJson) => Ok(Format::SummaryJson),
        Some(f) => Err(Refusal::usage(
            clap::error::ErrorKind::ArgumentConflict,
            format!(
                "--list prints a table or JSON lines, not --format {}: leave --format out, or give jsonl",
                f.to_possible_value()
                    .map_or_else(String::new, |v| v.get_name().to_string())
            ),
        )),
    }
}

/// The zone of `--tz`, else the one the environment gives.
fn zone(cli: &Cli, env: &Env) -> Result<Zone, String> {
    match &cli.tz {
        Some(z) => Ok(z.clone()),
        None => Zone::from_tz(env.tz.as_deref()),
    }
}

/// The times `--since` and `--until` name, `now` and in `zone`; a window
/// with no time left is a usage error.
fn window(cli: &Cli, env: &Env, zone: &Zone) -> Result<Window, Refusal> {
    if cli.since.is_none() && cli.until.is_none() {
        return Ok(Window::default());
    }
    let now = env
        .now
        .unwrap_or_else(|| Timestamp::of(std::time::SystemTime::now()));
    let window = Window {
        since: cli.since.map(|w| w.at(End::Since, now, zone)),
        until: cli.until.map(|w| w.at(End::Until, now, zone)),
    };
    if window.is_empty() {
        return Err(Refusal::usage(
            clap::error::ErrorKind::ArgumentConflict,
            format!(
                "--since is not before --until ({window}): no time is left; swap them or widen the window"
            ),
        ));
    }
    Ok(window)
}
