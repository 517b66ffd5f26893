//! `--top`'s board: one row per agent session being written, drawn as
//! lines that fit the screen. What a row says of the session's activity
//! is the live status line's text ([`super::StatusLine::text`]: the call
//! in progress with its key argument, else the last thing it did; the
//! time since its last event, turns, tokens, cost), its place the agent,
//! project and model. The rows are data first ([`Row`]), drawn by
//! [`draw`] into a byte buffer with the theme's colours (or none), every
//! string sanitized: a session's text cannot move the cursor.

use std::io;

use termcolor::{Ansi, ColorSpec, NoColor, WriteColor};

use super::sanitize::sanitize_line;
use super::theme::{Role, Theme};

/// One session on the board.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    /// The agent (`claude`, `codex`, …).
    pub agent: String,
    /// Its project: the last part of its working directory, else its
    /// file's folder.
    pub project: String,
    /// Its model.
    pub model: String,
    /// The time since its file last grew (`12s`, `3m`).
    pub ago: String,
    /// Its cost so far (`~`: estimated).
    pub cost: String,
    /// What it is doing now, with its counters.
    pub doing: String,
    /// How it ended, once it has (`ok`, `error`, `incomplete`).
    pub ended: Option<&'static str>,
    /// Greyed: it ended, or has said nothing for a while.
    pub dim: bool,
}

/// The columns before `doing`: (head, width at most).
const COLUMNS: [(&str, usize); 5] = [
    ("AGENT", 9),
    ("PROJECT", 22),
    ("MODEL", 20),
    ("AGO", 5),
    ("COST", 9),
];

/// The board in `cols` × `rows` cells (a row for the title, one for the
/// heads, then a session per row; those that do not fit are counted in
/// the title), as bytes for the terminal, each line ended by `eol`.
///
/// # Errors
/// Never in practice: it writes into memory.
pub fn draw(
    title: &str,
    board: &[Row],
    (cols, rows): (usize, usize),
    theme: Option<&Theme>,
    eol: &[u8],
) -> io::Result<Vec<u8>> {
    let size = (cols, rows);
    if theme.is_some() {
        let mut out = Ansi::new(Vec::new());
        draw_to(&mut out, title, board, size, theme, eol)?;
        Ok(out.into_inner())
    } else {
        let mut out = NoColor::new(Vec::new());
        draw_to(&mut out, title, board, size, theme, eol)?;
        Ok(out.into_inner())
    }
}

fn draw_to(
    out: &mut dyn WriteColor,
    title: &str,
    board: &[Row],
    (cols, rows): (usize, usize),
    theme: Option<&Theme>,
    eol: &[u8],
) -> io::Result<()> {
    let cols = cols.max(1);
    let shown = rows.saturating_sub(2).min(board.len());
    let mut head = sanitize_line(title).into_owned();
    if shown < board.len() {
        head.push_str(&format!(" · {} more below", board.len() - shown));
    }
    let spec = |r: Role| theme.map_or_else(ColorSpec::new, |t| t.spec(r).clone());
    line(out, &spec(Role::Header), &head, cols, eol)?;
    if rows < 2 {
        return Ok(());
    }
    let widths = widths(board);
    let mut heads: Vec<String> = COLUMNS.iter().map(|(h, _)| (*h).to_string()).collect();
    heads.push("NOW".into());
    line(out, &spec(Role::Dim), &join(&heads, &widths), cols, eol)?;
    for r in &board[..shown] {
        let cells = [
            r.agent.clone(),
            r.project.clone(),
            r.model.clone(),
            r.ago.clone(),
            r.cost.clone(),
            match r.ended {
                Some(how) => format!("{how} · {}", r.doing),
                None => r.doing.clone(),
            },
        ];
        let cells: Vec<String> = cells
            .iter()
            .map(|c| sanitize_line(c).into_owned())
            .collect();
        let role = match r.ended {
            Some("error" | "incomplete") => Role::Error,
            _ if r.dim => Role::Dim,
            _ => Role::Text,
        };
        line(out, &spec(role), &join(&cells, &widths), cols, eol)?;
    }
    Ok(())
}

/// Each column's width: its widest cell, at most its bound.
fn widths(board: &[Row]) -> Vec<usize> {
    COLUMNS
        .iter()
        .enumerate()
        .map(|(i, (head, max))| {
            let cells = board.iter().map(|r| {
                let cell = match i {
                    0 => &r.agent,
                    1 => &r.project,
                    2 => &r.model,
                    3 => &r.ago,
                    _ => &r.cost,
                };
                cell.chars().count()
            });
            cells.chain([head.len()]).max().unwrap_or(0).min(*max)
        })
        .collect()
}

/// The cells, each cut or padded to its column (the last one as long as
/// it is), two spaces apart.
fn join(cells: &[String], widths: &[usize]) -> String {
    let mut s = String::new();
    for (i, c) in cells.iter().enumerate() {
        if i > 0 {
            s.push_str("  ");
        }
        match widths.get(i) {
            Some(&w) => {
                let n = c.chars().count();
                if n > w {
                    s.extend(c.chars().take(w.saturating_sub(1)));
                    s.push('…');
                } else {
                    s.push_str(c);
                    s.extend(std::iter::repeat_n(' ', w - n));
                }
            }
            None => s.push_str(c),
        }
    }
    s
}

/// `text` cut to `cols` characters, in `spec`, then `eol`.
fn line(
    out: &mut dyn WriteColor,
    spec: &ColorSpec,
    text: &str,
    cols: usize,
    eol: &[u8],
) -> io::Result<()> {
    let text: String = text.trim_end().chars().take(cols).collect();
    out.set_color(spec)?;
    out.write_all(text.as_bytes())?;
    out.reset()?;
    out.write_all(eol)
}
