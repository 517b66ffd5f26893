//! Colour themes (`--theme`, issue 28): what colour each role of the pretty
//! output is drawn in.
//!
//! A theme gives each [`Role`] a [`Paint`]: a colour and attributes. Four
//! are built in ([`BUILT_IN`]): the standard look, one for light
//! backgrounds, one of high contrast, and one without colour (the same
//! symbols, told apart by bold, dim, italic and underline). A user's theme
//! is a small file (`--theme ~/.config/streamview/dusk.theme`, usually in
//! the configuration file): one `role = paint` a line, over a built-in
//! (`base = light`), read with a size bound, every word checked, an unknown
//! role or colour refused with one line naming the file, the line and the
//! key.
//!
//! Colours are resolved once, for what the terminal can show ([`Depth`]:
//! `COLORTERM=truecolor` or `24bit`, else a `TERM` of 256 colours, else 8),
//! as hl compiles its theme once (`src/theme.rs`): the sinks only look the
//! resolved `ColorSpec`s up. Whether there is colour at all is decided
//! elsewhere (`--color`, `NO_COLOR`), and wins: without it no theme is
//! drawn.

use std::io;
use std::path::Path;

use termcolor::{Color, ColorSpec};

use crate::decode::Decoder;
use crate::file::{describe_io, read_small};
use crate::input::Line;
use crate::render::sanitize::sanitize_line;
use crate::render::{Pretty, PrettyOptions, Sink, Verbosity};
use crate::session::Session;

/// What a piece of the output is, as a theme colours it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A session's header (`● model in dir`).
    Header,
    /// The agent's text.
    Text,
    /// Its thinking (`✻ …`, with `-v`).
    Thinking,
    /// A tool call's mark and name (`▸ Bash`).
    Tool,
    /// A tool call's key argument (the command, the path).
    Key,
    /// A tool's output under its call (`⎿ …`, with `-v`).
    Result,
    /// What went well (`✓ done`).
    Success,
    /// Errors (`✗ …`).
    Error,
    /// Warnings (a long-running tool, a question never answered).
    Warning,
    /// Permission denials (`⊘ permission denied`).
    Denial,
    /// Secondary text: times, counts, notes.
    Dim,
    /// The bars of a sub-agent's lines (`  │ `).
    Gutter,
    /// Costs on the end line.
    Cost,
    /// A diff's added lines.
    Added,
    /// A diff's removed lines.
    Removed,
    /// `--label`'s `[NAME]` (a theme without one colours each name by a
    /// palette).
    Label,
}

impl Role {
    /// Every role, in the order of a theme file's documentation.
    pub const ALL: [Role; 16] = [
        Role::Header,
        Role::Text,
        Role::Thinking,
        Role::Tool,
        Role::Key,
        Role::Result,
        Role::Success,
        Role::Error,
        Role::Warning,
        Role::Denial,
        Role::Dim,
        Role::Gutter,
        Role::Cost,
        Role::Added,
        Role::Removed,
        Role::Label,
    ];

    /// The role's name in a theme file.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Role::Header => "header",
            Role::Text => "text",
            Role::Thinking => "thinking",
            Role::Tool => "tool",
            Role::Key => "key",
            Role::Result => "result",
            Role::Success => "success",
            Role::Error => "error",
            Role::Warning => "warning",
            Role::Denial => "denial",
            Role::Dim => "dim",
            Role::Gutter => "gutter",
            Role::Cost => "cost",
            Role::Added => "added",
            Role::Removed => "removed",
            Role::Label => "label",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// How many colours the terminal shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Depth {
    /// The 8 colours every terminal has (and bold, dim…).
    #[default]
    Basic,
    /// xterm's 256.
    Ansi256,
    /// 24-bit colour.
    TrueColor,
}

impl Depth {
    /// What `COLORTERM` and `TERM` say the terminal shows.
    #[must_use]
    pub fn of(colorterm: Option<&str>, term: Option<&str>) -> Depth {
        let colorterm = colorterm.unwrap_or("");
        if matches!(colorterm, "truecolor" | "24bit") {
            Depth::TrueColor
        } else if !colorterm.is_empty() || term.is_some_and(|t| t.contains("256color")) {
            Depth::Ansi256
        } else {
            Depth::Basic
        }
    }
}

/// A colour as a theme gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// One of the 8 basic colours.
    Basic(Color),
    /// An xterm 256-colour index (shown as its nearest basic colour on a
    /// terminal of 8).
    Indexed(u8),
    /// A 24-bit colour, shown as the nearest of 256 where there are no
    /// more, and as `basic` on a terminal of 8.
    Rgb(u8, u8, u8, Color),
}

impl Tone {
    /// The colour to write on a terminal of `depth`.
    fn at(self, depth: Depth) -> Color {
        match (self, depth) {
            (Tone::Basic(c), _) | (Tone::Rgb(_, _, _, c), Depth::Basic) => c,
            (Tone::Indexed(n), Depth::Basic) => nearest_basic(rgb_of_index(n)),
            (Tone::Indexed(n), _) => Color::Ansi256(n),
            (Tone::Rgb(r, g, b, _), Depth::Ansi256) => Color::Ansi256(nearest_index((r, g, b))),
            (Tone::Rgb(r, g, b, _), Depth::TrueColor) => Color::Rgb(r, g, b),
        }
    }
}

/// A role's look: a colour (or none) and attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Paint {
    /// The foreground colour (`None`: the terminal's).
    pub fg: Option<Tone>,
    /// Bold.
    pub bold: bool,
    /// Dimmed.
    pub dim: bool,
    /// Italic.
    pub italic: bool,
    /// Underlined.
    pub underline: bool,
}

impl Paint {
    const fn new(fg: Option<Tone>, bold: bool, dim: bool) -> Paint {
        Paint {
            fg,
            bold,
            dim,
            italic: false,
            underline: false,
        }
    }

    const fn italic(mut self) -> Paint {
        self.italic = true;
        self
    }

    const fn underline(mut self) -> Paint {
        self.underline = true;
        self
    }

    fn spec(self, depth: Depth) -> ColorSpec {
        let mut s = ColorSpec::new();
        s.set_fg(self.fg.map(|t| t.at(depth)))
            .set_bold(self.bold)
            .set_dimmed(self.dim)
            .set_italic(self.italic)
            .set_underline(self.underline);
        s
    }
}

const fn basic(c: Color, bold: bool) -> Paint {
    Paint::new(Some(Tone::Basic(c)), bold, false)
}

const fn rgb(r: u8, g: u8, b: u8, fallback: Color, bold: bool) -> Paint {
    Paint::new(Some(Tone::Rgb(r, g, b, fallback)), bold, false)
}

const PLAIN: Paint = Paint::new(None, false, false);
const BOLD: Paint = Paint::new(None, true, false);
const DIM: Paint = Paint::new(None, false, true);

/// A theme built in: its name, what it is for, each role's paint (in the
/// order of [`Role::ALL`]; `label`'s unused), and the palette labels are
/// coloured from.
pub struct BuiltIn {
    /// Its `--theme` name.
    pub name: &'static str,
    /// What it is for, in a few words.
    pub about: &'static str,
    paints: [Paint; 16],
    labels: &'static [Tone],
}

/// The built-in themes; the first is the default.
pub const BUILT_IN: [BuiltIn; 4] = [
    BuiltIn {
        name: "default",
        about: "the standard look, for dark and most light backgrounds",
        paints: [
            basic(Color::Cyan, true),    // header
            PLAIN,                       // text
            DIM,                         // thinking
            basic(Color::Blue, true),    // tool
            PLAIN,                       // key
            DIM,                         // result
            basic(Color::Green, true),   // success
            basic(Color::Red, true),     // error
            basic(Color::Yellow, false), // warning
            basic(Color::Magenta, true), // denial
            DIM,                         // dim
            DIM,                         // gutter
            PLAIN,                       // cost
            basic(Color::Green, false),  // added
            basic(Color::Red, false),    // removed
            PLAIN,                       // label
        ],
        labels: &[
            Tone::Basic(Color::Cyan),
            Tone::Basic(Color::Magenta),
            Tone::Basic(Color::Yellow),
            Tone::Basic(Color::Green),
            Tone::Basic(Color::Blue),
            Tone::Indexed(14),
            Tone::Indexed(13),
            Tone::Indexed(11),
            Tone::Indexed(10),
            Tone::Indexed(12),
        ],
    },
    BuiltIn {
        name: "light",
        about: "dark colours for light backgrounds",
        paints: [
            rgb(0x00, 0x5f, 0x87, Color::Blue, true),    // header
            PLAIN,                                       // text
            DIM.italic(),                                // thinking
            rgb(0x87, 0x00, 0xaf, Color::Magenta, true), // tool
            PLAIN,                                       // key
            DIM,                                         // result
            rgb(0x00, 0x5f, 0x00, Color::Green, true),   // success
            rgb(0xaf, 0x00, 0x00, Color::Red, true),     // error
            rgb(0x87, 0x5f, 0x00, Color::Red, false),    // warning
            rgb(0xaf, 0x00, 0x5f, Color::Red, true).underline(), // denial
            DIM,                                         // dim
            DIM,                                         // gutter
            rgb(0x00, 0x5f, 0x87, Color::Blue, false),   // cost
            rgb(0x00, 0x5f, 0x00, Color::Green, false),  // added
            rgb(0xaf, 0x00, 0x00, Color::Red, false),    // removed
            PLAIN,                                       // label
        ],
        labels: &[
            Tone::Rgb(0x00, 0x5f, 0x87, Color::Blue),
            Tone::Rgb(0x87, 0x00, 0xaf, Color::Magenta),
            Tone::Rgb(0x00, 0x5f, 0x00, Color::Green),
            Tone::Rgb(0x87, 0x5f, 0x00, Color::Red),
            Tone::Rgb(0x00, 0x87, 0x87, Color::Cyan),
        ],
    },
    BuiltIn {
        name: "contrast",
        about: "high contrast: bright colours, bold marks, nothing dimmed",
        paints: [
            rgb(0x00, 0xff, 0xff, Color::Cyan, true),   // header
            PLAIN,                                      // text
            Paint::new(None, false, false).italic(),    // thinking
            rgb(0xff, 0xff, 0x00, Color::Yellow, true), // tool
            BOLD,                                       // key
            PLAIN,                                      // result
            rgb(0x00, 0xff, 0x00, Color::Green, true),  // success
            rgb(0xff, 0x50, 0x50, Color::Red, true),    // error
            rgb(0xff, 0xaf, 0x00, Color::Yellow, true), // warning
            rgb(0xff, 0x5f, 0xff, Color::Magenta, true).underline(), // denial
            PLAIN,                                      // dim
            rgb(0x5f, 0xaf, 0xff, Color::Blue, true),   // gutter
            rgb(0xff, 0xff, 0x00, Color::Yellow, false), // cost
            rgb(0x00, 0xff, 0x00, Color::Green, true),  // added
            rgb(0xff, 0x50, 0x50, Color::Red, true),    // removed
            PLAIN,                                      // label
        ],
        labels: &[
            Tone::Rgb(0x00, 0xff, 0xff, Color::Cyan),
            Tone::Rgb(0xff, 0x5f, 0xff, Color::Magenta),
            Tone::Rgb(0xff, 0xff, 0x00, Color::Yellow),
            Tone::Rgb(0x00, 0xff, 0x00, Color::Green),
            Tone::Rgb(0x5f, 0xaf, 0xff, Color::Blue),
        ],
    },
    BuiltIn {
        name: "mono",
        about: "no colour, the same symbols: bold, dim, italic and underline",
        paints: [
            BOLD,             // header
            PLAIN,            // text
            DIM.italic(),     // thinking
            BOLD.underline(), // tool
            PLAIN,            // key
            DIM,              // result
            BOLD,             // success
            BOLD,             // error
            PLAIN.italic(),   // warning
            BOLD.italic(),    // denial
            DIM,              // dim
            DIM,              // gutter
            PLAIN,            // cost
            PLAIN,            // added
            DIM,              // removed
            PLAIN,            // label
        ],
        labels: &[],
    },
];

/// A theme resolved for the terminal: a `ColorSpec` per role, ready.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Theme {
    /// Its name (a built-in's, or the file's path).
    pub name: String,
    specs: Vec<ColorSpec>,
    /// `label`'s, when the theme gives one; else `palette`'s, by name.
    label: Option<ColorSpec>,
    palette: Vec<ColorSpec>,
    depth: Depth,
}

impl Default for Theme {
    fn default() -> Theme {
        Theme::built_in(&BUILT_IN[0], Depth::Basic)
    }
}

impl Theme {
    /// The built-in theme `name`, if there is one.
    #[must_use]
    pub fn named(name: &str, depth: Depth) -> Option<Theme> {
        let b = BUILT_IN.iter().find(|b| b.name == name)?;
        Some(Theme::built_in(b, depth))
    }

    fn built_in(b: &BuiltIn, depth: Depth) -> Theme {
        Theme::of(b.name.to_string(), &b.paints, None, b.labels, depth)
    }

    fn of(
        name: String,
        paints: &[Paint; 16],
        label: Option<Paint>,
        labels: &[Tone],
        depth: Depth,
    ) -> Theme {
        Theme {
            name,
            specs: paints.iter().map(|p| p.spec(depth)).collect(),
            label: label.map(|p| p.spec(depth)),
            palette: labels
                .iter()
                .map(|&t| Paint::new(Some(t), true, false).spec(depth))
                .collect(),
            depth,
        }
    }

    /// The colours it was resolved for.
    #[must_use]
    pub fn depth(&self) -> Depth {
        self.depth
    }

    /// The look of `role`.
    #[must_use]
    pub fn spec(&self, role: Role) -> &ColorSpec {
        &self.specs[role.index()]
    }

    /// The look of the `n`th of several labels shown together (files
    /// followed at once): the theme's `label`, else its palette's colours
    /// in turn, so that sources next to each other differ.
    #[must_use]
    pub fn label_spec_nth(&self, n: usize) -> ColorSpec {
        if let Some(l) = &self.label {
            return l.clone();
        }
        match self.palette.get(n % self.palette.len().max(1)) {
            Some(spec) => spec.clone(),
            None => self.label_spec(""),
        }
    }

    /// The look of the label `name`: the theme's `label`, else a colour of
    /// its palette picked by the name (FNV-1a: one name always has the
    /// same colour, and two usually differ), bold.
    #[must_use]
    pub fn label_spec(&self, name: &str) -> ColorSpec {
        if let Some(l) = &self.label {
            return l.clone();
        }
        let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        let n = self.palette.len() as u64;
        match usize::try_from(hash.checked_rem(n).unwrap_or(0)) {
            Ok(i) if i < self.palette.len() => self.palette[i].clone(),
            _ => Paint::new(None, true, false).spec(Depth::Basic),
        }
    }

    /// The theme of the file at `path`, for a terminal of `depth`.
    ///
    /// # Errors
    /// The file cannot be read, or a line of it is not `role = paint`:
    /// one line naming the file, the line and the key.
    pub fn load(path: &Path, depth: Depth) -> Result<Theme, String> {
        // A theme is a few lines; this is ample.
        const MAX_BYTES: u64 = 64 << 10;
        let shown = sanitize_line(&path.display().to_string()).into_owned();
        let bytes = read_small(path, MAX_BYTES)
            .map_err(|e| format!("cannot read the theme {shown}: {}", describe_io(&e)))?;
        parse(&bytes, depth).map_err(|(line, why)| {
            format!("{shown}:{line}: {why}; fix the line, or choose a built-in theme (--list-themes)")
        })
        .map(|mut t| {
            t.name = shown;
            t
        })
    }
}

/// A theme file's text: `role = paint` lines (`#` starts a comment), an
/// optional `base = NAME` first.
///
/// # Errors
/// The first line that is not one (its number, from 1, and what is wrong).
pub fn parse(text: &[u8], depth: Depth) -> Result<Theme, (usize, String)> {
    let text = text.strip_prefix("\u{feff}".as_bytes()).unwrap_or(text);
    let text = std::str::from_utf8(text).map_err(|e| {
        let line = memchr::memchr_iter(b'\n', &text[..e.valid_up_to()]).count() + 1;
        (line, "not UTF-8 text".to_string())
    })?;
    let mut base = &BUILT_IN[0];
    let mut paints = base.paints;
    let mut label = None;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line = without_comment(line).trim();
        if line.is_empty() {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            return Err((n, format!("`{}` is not `role = colour`", inert(line))));
        };
        let (key, value) = (key.trim(), value.trim());
        if key == "base" {
            base = BUILT_IN.iter().find(|b| b.name == value).ok_or_else(|| {
                (
                    n,
                    format!("base: no built-in theme `{}` ({})", inert(value), names()),
                )
            })?;
            paints = base.paints;
            continue;
        }
        let Some(role) = Role::ALL.iter().find(|r| r.name() == key) else {
            return Err((
                n,
                format!("unknown role `{}` (roles: {})", inert(key), roles()),
            ));
        };
        let paint = paint(value).map_err(|why| (n, format!("{key}: {why}")))?;
        if *role == Role::Label {
            label = Some(paint);
        } else {
            paints[role.index()] = paint;
        }
    }
    Ok(Theme::of(String::new(), &paints, label, base.labels, depth))
}

/// `line` without its comment: from a `#` that starts the line, or that
/// follows a space and is followed by one (`#ff8700` is a colour).
fn without_comment(line: &str) -> &str {
    if line.trim_start().starts_with('#') {
        return "";
    }
    let b = line.as_bytes();
    let at = (1..b.len()).find(|&i| {
        b[i] == b'#'
            && b[i - 1].is_ascii_whitespace()
            && b.get(i + 1).is_none_or(u8::is_ascii_whitespace)
    });
    at.map_or(line, |i| &line[..i])
}

/// A paint's words: at most one colour, and attributes.
fn paint(value: &str) -> Result<Paint, String> {
    let mut p = Paint::default();
    for word in value.split_whitespace() {
        match word {
            "bold" => p.bold = true,
            "dim" => p.dim = true,
            "italic" => p.italic = true,
            "underline" => p.underline = true,
            "plain" | "default" => {}
            w => {
                if p.fg.is_some() {
                    return Err(format!("two colours (`{}`): give one", inert(w)));
                }
                p.fg = Some(tone(w).ok_or_else(|| {
                    format!(
                        "unknown colour `{}` (a name: {}, bright-red…; 0 to 255; #rrggbb; \
                         attributes: bold, dim, italic, underline)",
                        inert(w),
                        BASIC.map(|(n, _)| n).join(", ")
                    )
                })?);
            }
        }
    }
    Ok(p)
}

/// The basic colours' names.
const BASIC: [(&str, Color); 8] = [
    ("black", Color::Black),
    ("red", Color::Red),
    ("green", Color::Green),
    ("yellow", Color::Yellow),
    ("blue", Color::Blue),
    ("magenta", Color::Magenta),
    ("cyan", Color::Cyan),
    ("white", Color::White),
];

/// A colour word: a basic name, `bright-` one, an index, `#rrggbb`.
fn tone(w: &str) -> Option<Tone> {
    let w = w.to_ascii_lowercase();
    if let Some(i) = BASIC.iter().position(|(n, _)| *n == w) {
        return Some(Tone::Basic(BASIC[i].1));
    }
    if let Some(name) = w.strip_prefix("bright-") {
        let i = BASIC.iter().position(|(n, _)| *n == name)?;
        return Some(Tone::Indexed(u8::try_from(i + 8).ok()?));
    }
    if let Some(hex) = w.strip_prefix('#') {
        if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let c = |i: usize| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok();
        let (r, g, b) = (c(0)?, c(2)?, c(4)?);
        return Some(Tone::Rgb(r, g, b, nearest_basic((r, g, b))));
    }
    w.parse::<u8>().ok().map(Tone::Indexed)
}

/// A word of the file as a message quotes it: inert, and short.
fn inert(s: &str) -> String {
    let s = sanitize_line(s);
    match s.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.into_owned(),
    }
}

fn names() -> String {
    BUILT_IN.map(|b| b.name).join(", ")
}

fn roles() -> String {
    Role::ALL.map(Role::name).join(", ")
}

/// The RGB of xterm's colour `n`.
fn rgb_of_index(n: u8) -> (u8, u8, u8) {
    const SYSTEM: [(u8, u8, u8); 16] = [
        (0, 0, 0),
        (205, 0, 0),
        (0, 205, 0),
        (205, 205, 0),
        (0, 0, 238),
        (205, 0, 205),
        (0, 205, 205),
        (229, 229, 229),
        (127, 127, 127),
        (255, 0, 0),
        (0, 255, 0),
        (255, 255, 0),
        (92, 92, 255),
        (255, 0, 255),
        (0, 255, 255),
        (255, 255, 255),
    ];
    let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
    match n {
        0..=15 => SYSTEM[usize::from(n)],
        16..=231 => {
            let i = n - 16;
            (level(i / 36), level(i / 6 % 6), level(i % 6))
        }
        _ => {
            let g = 8 + 10 * (n - 232);
            (g, g, g)
        }
    }
}

fn distance(a: (u8, u8, u8), b: (u8, u8, u8)) -> u32 {
    let d = |x: u8, y: u8| u32::from(x.abs_diff(y)).pow(2);
    d(a.0, b.0) + d(a.1, b.1) + d(a.2, b.2)
}

/// The xterm colour (of the cube and the greys, 16 to 255) nearest `c`.
fn nearest_index(c: (u8, u8, u8)) -> u8 {
    (16..=255)
        .min_by_key(|&n| distance(rgb_of_index(n), c))
        .unwrap_or(16)
}

/// The basic colour nearest `c`; a grey is white, or black when very dark
/// (the nearest by distance would often be yellow).
fn nearest_basic(c: (u8, u8, u8)) -> Color {
    let (lo, hi) = (c.0.min(c.1).min(c.2), c.0.max(c.1).max(c.2));
    if hi - lo < 32 {
        return if hi < 64 { Color::Black } else { Color::White };
    }
    (0..8)
        .min_by_key(|&n| distance(rgb_of_index(n), c))
        .map_or(Color::White, |n| BASIC[usize::from(n)].1)
}

/// The session `--list-themes` draws in each theme: a header, thinking and
/// text, calls with their key arguments and outputs, a sub-agent, an
/// error, a denial and the end line with its cost.
const SAMPLE: &str = concat!(
    r#"{"type":"system","subtype":"init","session_id":"s","model":"claude-sonnet-4-5","cwd":"/home/me/app","tools":["Bash","Read","Edit","Task"]}"#,
    "\n",
    r#"{"type":"assistant","session_id":"s","message":{"id":"m1","content":[{"type":"thinking","thinking":"Tests first."},{"type":"text","text":"Running the tests."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"npm test"}}]}}"#,
    "\n",
    r#"{"type":"user","session_id":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"41 passed, 1 failed"}]}}"#,
    "\n",
    r#"{"type":"assistant","session_id":"s","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"Task","input":{"description":"Find the failing test","prompt":"Find it"}}]}}"#,
    "\n",
    r#"{"type":"assistant","session_id":"s","parent_tool_use_id":"t2","message":{"id":"m3","content":[{"type":"tool_use","id":"t3","name":"Read","input":{"file_path":"/home/me/app/test/sum.test.ts"}}]}}"#,
    "\n",
    r#"{"type":"user","session_id":"s","parent_tool_use_id":"t2","message":{"content":[{"type":"tool_result","tool_use_id":"t3","content":"ENOENT: no such file","is_error":true}]}}"#,
    "\n",
    r#"{"type":"user","session_id":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"It is test/sum.spec.ts."}]}}"#,
    "\n",
    r#"{"type":"assistant","session_id":"s","message":{"id":"m5","content":[{"type":"tool_use","id":"t5","name":"Bash","input":{"command":"rm -rf build"}}]}}"#,
    "\n",
    r#"{"type":"user","session_id":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t5","content":"Permission to use Bash with command rm -rf build has been denied.","is_error":true}]}}"#,
    "\n",
    r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s","num_turns":5,"duration_ms":12300,"total_cost_usd":0.0421,"result":"Fixed.","permission_denials":[{"tool_name":"Bash","tool_use_id":"t5","tool_input":{"command":"rm -rf build"}}]}"#,
    "\n",
);

/// `--list-themes`: each theme's name, what it is for, and `SAMPLE` drawn
/// in it (with colour when `color`).
#[must_use]
pub fn list(themes: &[(Theme, &str)], color: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for (theme, about) in themes {
        let name = sanitize_line(&theme.name);
        out.extend_from_slice(name.as_bytes());
        if !about.is_empty() {
            out.extend_from_slice(" — ".as_bytes());
            out.extend_from_slice(about.as_bytes());
        }
        out.extend_from_slice(b"\n");
        draw_sample(theme, color, &mut out);
        out.push(b'\n');
    }
    out
}

/// `SAMPLE` as the pretty view shows it with `-v`, in `theme`.
fn draw_sample(theme: &Theme, color: bool, out: &mut Vec<u8>) {
    let buf = Shared::default();
    let w: Box<dyn termcolor::WriteColor> = if color {
        Box::new(termcolor::Ansi::new(buf.clone()))
    } else {
        Box::new(termcolor::NoColor::new(buf.clone()))
    };
    let opts = PrettyOptions {
        verbosity: Verbosity::Verbose,
        ..PrettyOptions::default()
    };
    let mut pretty = Pretty::new(w, termcolor::NoColor::new(io::sink()), opts).with_theme(theme);
    let mut decoder = Decoder::new();
    let mut session = Session::new();
    {
        let mut emit = |ev: &crate::event::Event<'_>| {
            session.observe(ev);
            pretty.event(ev, &session)
        };
        for (i, bytes) in (1..).zip(SAMPLE.lines()) {
            let line = Line {
                number: i,
                bytes: bytes.as_bytes(),
                partial: false,
            };
            let _ = decoder.decode(&line, &mut emit);
        }
        let _ = decoder.finish(&mut emit);
    }
    let _ = pretty.finish(&session);
    drop(pretty);
    out.extend_from_slice(&buf.0.borrow());
}

/// A buffer the sample is drawn into and read back from.
#[derive(Clone, Default)]
struct Shared(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl io::Write for Shared {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests;
