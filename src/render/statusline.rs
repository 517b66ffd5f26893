//! Claude Code's status line (`--statusline`): the one line Claude Code
//! shows under its prompt, made of what it says on standard input
//! ([`Claude`]) and what the saved sessions of every agent say
//! ([`Figures`], gathered by the [`Ledger`] sink over a library):
//!
//! ```text
//! Opus 4.5 · $1.23 session · ~$12.40 today · ~$8.10 block, 2h10m left, ~$3.10/h · ctx 45% · 5h 32% · 7d 12%
//! ```
//!
//! Not to be confused with `status.rs`, the live line under the pretty
//! view. Everything from the input is sanitized: the line is one line of
//! inert text, its colours (the theme's, thresholds green, yellow, red)
//! the only escapes in it.

mod input;
#[cfg(test)]
mod tests;

use std::io;

use termcolor::WriteColor;

pub use input::{Claude, Limit};

use super::rows::{OpenBlock, Summary};
use super::sanitize::sanitize_line;
use super::theme::{Role, Theme};
use super::{Sink, fmt_cost};
use crate::event::Event;
use crate::session::{Cost, Session};
use crate::time::Timestamp;

/// What the saved sessions say for the line.
#[derive(Clone, Debug, Default)]
pub struct Figures {
    /// Today's cost over every agent.
    pub today: Cost,
    /// Claude's open 5-hour block, if one is open.
    pub block: Option<OpenBlock>,
    /// The blocks read are those of the whole history (see
    /// [`crate::session::group::Groups::blocks_settled`]): else the
    /// window read was too short to say which block is open.
    pub settled: bool,
    /// The cost of every session read.
    pub total: Cost,
    /// This session's cost counted from its transcript (read alone, when
    /// Claude Code gives no figure of its own).
    pub session: Option<Cost>,
}

/// The sink that gathers [`Figures`] at the end of a library's run (by
/// block, from `known` on); it writes nothing.
#[derive(Debug)]
pub struct Ledger {
    today: Timestamp,
    known: Option<Timestamp>,
    now: Timestamp,
    figures: Option<Figures>,
}

impl Ledger {
    /// Gather the usage since `today` (its midnight), Claude's block open
    /// at `now`, from a run that read the messages since `known` (`None`:
    /// all of them).
    #[must_use]
    pub fn new(today: Timestamp, known: Option<Timestamp>, now: Timestamp) -> Ledger {
        Ledger {
            today,
            known,
            now,
            figures: None,
        }
    }

    /// What the run gave, once it finished.
    #[must_use]
    pub fn figures(&self) -> Option<&Figures> {
        self.figures.as_ref()
    }
}

impl Sink for Ledger {
    fn event(&mut self, _: &Event<'_>, _: &Session) -> io::Result<()> {
        Ok(())
    }

    fn finish(&mut self, s: &Session) -> io::Result<()> {
        let total = Summary::from_session(s).total;
        let mut figures = Figures {
            total: Cost {
                usd: total.cost_usd,
                estimated: total.cost_estimated || total.models.iter().any(|m| m.cost_estimated),
                partial: total.cost_partial,
            },
            settled: true,
            ..Figures::default()
        };
        if let Some(g) = s.groups() {
            figures.today = g.usage_since(self.today).cost;
            figures.block = (g.open_blocks(self.now).into_iter())
                .find(|b| b.agent == "claude")
                .map(|b| OpenBlock::of(b, g.zone()));
            figures.settled = self
                .known
                .is_none_or(|k| g.blocks_settled("claude", k, self.now));
        }
        self.figures = Some(figures);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A piece of the line: its spans, each in a role's colour (`None`: plain).
type Part = Vec<(Option<Role>, String)>;

/// The separator of the parts.
const SEP: &str = " · ";

/// Draw the line on `out` (with a newline), at most `width` characters
/// wide when it is known: the parts that do not fit are left out from the
/// end (the block's burn rate first).
///
/// # Errors
/// `out` cannot be written.
pub fn write_line(
    out: &mut dyn WriteColor,
    claude: &Claude,
    figures: Option<&Figures>,
    (now, width): (Timestamp, Option<usize>),
    theme: &Theme,
) -> io::Result<()> {
    let mut parts = parts(claude, figures, now, true);
    let wide = |parts: &[Part]| {
        let text: usize = parts.iter().flatten().map(|(_, s)| s.chars().count()).sum();
        text + SEP.chars().count() * parts.len().saturating_sub(1)
    };
    if let Some(w) = width {
        if wide(&parts) > w {
            parts = self::parts(claude, figures, now, false);
        }
        while parts.len() > 1 && wide(&parts) > w {
            parts.pop();
        }
    }
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            span(out, theme, Some(Role::Dim), SEP)?;
        }
        for (role, text) in part {
            span(out, theme, *role, text)?;
        }
    }
    out.write_all(b"\n")?;
    out.flush()
}

fn span(out: &mut dyn WriteColor, theme: &Theme, role: Option<Role>, s: &str) -> io::Result<()> {
    match role {
        Some(r) => {
            out.set_color(theme.spec(r))?;
            out.write_all(s.as_bytes())?;
            out.reset()
        }
        None => out.write_all(s.as_bytes()),
    }
}

/// The parts, in the line's order; `long`: with the block's burn rate.
fn parts(claude: &Claude, figures: Option<&Figures>, now: Timestamp, long: bool) -> Vec<Part> {
    let mut parts: Vec<Part> = Vec::new();
    let model = claude
        .model
        .as_deref()
        .map_or("Claude".into(), sanitize_line);
    parts.push(vec![(Some(Role::Header), cut(&model, 40))]);
    let session = claude.cost_usd.map(|usd| Cost {
        usd: Some(usd),
        ..Cost::default()
    });
    if let Some(c) = session.or_else(|| figures.and_then(|f| f.session)) {
        parts.push(cost_part(&c, "session"));
    }
    if let Some(f) = figures {
        parts.push(cost_part(&f.today, "today"));
        if let Some(b) = f.block.as_ref().filter(|_| f.settled) {
            parts.push(block_part(b, long));
        }
    }
    if let Some(p) = claude.context_pct {
        parts.push(percent_part("ctx", p, None, now));
    }
    if let Some(l) = claude.five_hour {
        parts.push(percent_part("5h", l.used_pct, l.resets_at, now));
    }
    if let Some(l) = claude.seven_day {
        parts.push(percent_part("7d", l.used_pct, None, now));
    }
    parts
}

/// `s` cut to `max` characters, `…` in the place of the rest.
fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `~$1.23` (`~`: estimated; `+`: a lower bound), `$0` for nothing
/// spent, `–` when unknown.
fn money(c: &Cost) -> String {
    let usd = match c.usd {
        Some(usd) => usd,
        None if !c.partial => 0.0,
        None => return "–".into(),
    };
    let mut s = String::new();
    if c.estimated {
        s.push('~');
    }
    fmt_cost(&mut s, usd);
    if c.partial {
        s.push('+');
    }
    s
}

fn cost_part(c: &Cost, what: &str) -> Part {
    vec![
        (Some(Role::Cost), money(c)),
        (Some(Role::Dim), format!(" {what}")),
    ]
}

/// `~$8.10 block, 2h10m left, ~$3.10/h`.
fn block_part(b: &OpenBlock, long: bool) -> Part {
    let cost = Cost {
        usd: b.cost_usd,
        estimated: b.cost_estimated,
        partial: false,
    };
    let left = format!(" block, {} left", hours_minutes(b.left_ms));
    let mut part = vec![(Some(Role::Cost), money(&cost)), (Some(Role::Dim), left)];
    if let Some(burn) = b.burn_usd_per_hour.filter(|_| long) {
        let rate = Cost {
            usd: Some(burn),
            ..cost
        };
        part.push((Some(Role::Dim), ", ".into()));
        part.push((Some(Role::Cost), format!("{}/h", money(&rate))));
    }
    part
}

/// `ctx 45%`, in green below 50%, yellow below 80%, red from there; a
/// limit's reset when it is still to come (`5h 32% ↻1h05m`).
fn percent_part(what: &str, pct: f64, resets: Option<Timestamp>, now: Timestamp) -> Part {
    let role = if pct >= 80.0 {
        Role::Error
    } else if pct >= 50.0 {
        Role::Warning
    } else {
        Role::Success
    };
    let mut part = vec![
        (Some(Role::Dim), format!("{what} ")),
        (Some(role), format!("{pct:.0}%")),
    ];
    let left = resets.map_or(0, |r| r.millis() - now.millis());
    // A reset more than the window away is not this window's.
    if left > 0 && left <= 5 * 3_600_000 {
        part.push((Some(Role::Dim), format!(" ↻{}", hours_minutes(left))));
    }
    part
}

/// `2h10m`, `45m`, `0m`.
fn hours_minutes(ms: i64) -> String {
    let m = ms.max(0) / 60_000;
    if m >= 60 {
        format!("{}h{:02}m", m / 60, m % 60)
    } else {
        format!("{m}m")
    }
}
