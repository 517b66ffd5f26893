//! `--by day|week|month` drawn rather than read: each group's bar in the
//! terminal's table (Unicode blocks, in eighths of a cell) and, in the HTML
//! report, an SVG chart of the groups stacked by model.
//!
//! Both measure the same thing ([`Measure::of`]): the cost where any group
//! is priced, else the tokens; both are scaled to the largest group. The
//! chart is plain SVG inside the page: its numbers are `<title>`s shown on
//! hover, no script and no style of its own (colours are presentation
//! attributes, allowed by the page's Content-Security-Policy as it is),
//! and every name in it sanitized for one line and escaped.

use std::fmt::Write as _;

use super::escape::escape_html;
use super::rows::{GroupRow, Groups, ModelRow, TokenCounts};
use super::sanitize::sanitize_line;
use super::{fmt_cost, fmt_count};

/// The last cell of a bar: none, then one to seven eighths of a cell.
const EIGHTHS: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/// The groups that have a bar or a chart: those in time order.
pub(crate) fn charted(key: &str) -> bool {
    matches!(key, "day" | "week" | "month")
}

/// What the bars measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Measure {
    /// Dollars (some group is priced).
    Cost,
    /// Tokens of every kind (nothing is priced).
    Tokens,
}

impl Measure {
    /// The cost where any of `rows` has one, else the tokens.
    pub(crate) fn of(rows: &[GroupRow]) -> Measure {
        if rows.iter().any(|g| g.cost_usd.is_some()) {
            Measure::Cost
        } else {
            Measure::Tokens
        }
    }

    /// A group's value (0 when unknown or not a number).
    pub(crate) fn group(self, g: &GroupRow) -> f64 {
        self.value(g.cost_usd, &g.tokens)
    }

    /// A model's value in a group.
    fn model(self, m: &ModelRow) -> f64 {
        self.value(m.cost_usd, &m.tokens)
    }

    fn value(self, cost: Option<f64>, tokens: &TokenCounts) -> f64 {
        let v = match self {
            Measure::Cost => cost.unwrap_or(0.0),
            #[allow(clippy::cast_precision_loss)] // a length on screen
            Measure::Tokens => all_tokens(tokens) as f64,
        };
        if v.is_finite() && v > 0.0 { v } else { 0.0 }
    }

    /// `v` as the tables write it: `$0.0421`, `71.6k`.
    fn show(self, out: &mut String, v: f64) {
        match self {
            Measure::Cost => fmt_cost(out, v),
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // v ≥ 0, finite
            Measure::Tokens => fmt_count(out, v.round() as u64),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Measure::Cost => "cost",
            Measure::Tokens => "tokens",
        }
    }
}

/// Every token a group or model counted.
fn all_tokens(t: &TokenCounts) -> u64 {
    [t.input, t.output, t.cache_read, t.cache_creation]
        .into_iter()
        .flatten()
        .fold(0, u64::saturating_add)
}

/// The largest of `values` (0 for none).
fn largest(values: impl IntoIterator<Item = f64>) -> f64 {
    values.into_iter().fold(0.0, f64::max)
}

/// A bar of `v` where `max` fills `cells` cells: full blocks, then the
/// eighths left; at least an eighth for any `v` above 0, nothing for 0.
pub(crate) fn bar(v: f64, max: f64, cells: usize) -> String {
    if !(v > 0.0 && max > 0.0 && max.is_finite()) {
        return String::new();
    }
    #[allow(clippy::cast_precision_loss)] // a few hundred cells
    let whole = (cells * 8) as f64;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // in 0..=whole
    let eighths = ((v / max).min(1.0) * whole).round().max(1.0) as usize;
    let mut out: String = std::iter::repeat_n('█', eighths / 8).collect();
    if !eighths.is_multiple_of(8) {
        out.push(EIGHTHS[eighths % 8]);
    }
    out
}

/// The bars of `rows`, `cells` wide for the largest.
pub(crate) fn bars(rows: &[GroupRow], cells: usize) -> Vec<String> {
    let m = Measure::of(rows);
    let max = largest(rows.iter().map(|g| m.group(g)));
    rows.iter().map(|g| bar(m.group(g), max, cells)).collect()
}

/// Colours of the first models, in the order of their share; the rest in
/// [`OTHER`].
const PALETTE: [&str; 8] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
];
/// The colour of the models beyond the palette and of what no model holds.
const OTHER: &str = "#9c9c9c";

/// The chart's size in its own units (it is drawn at the page's width).
const WIDTH: f64 = 720.0;
const PLOT_TOP: f64 = 12.0;
const PLOT_HEIGHT: f64 = 180.0;
const LEFT: f64 = 72.0;
const RIGHT: f64 = 8.0;
/// A legend entry's width and a line of text's height.
const ENTRY: f64 = 236.0;
const LINE: f64 = 18.0;

/// One model's share of the chart: its name and colour.
struct Series {
    name: String,
    colour: &'static str,
}

/// The models in the order of their whole value, the first
/// [`PALETTE`]'s length named, the rest under one name.
fn series(rows: &[GroupRow], m: Measure) -> Vec<(String, f64)> {
    let mut totals: Vec<(String, f64)> = Vec::new();
    for m_row in rows.iter().flat_map(|g| &g.models) {
        let v = m.model(m_row);
        match totals.iter_mut().find(|(n, _)| *n == m_row.model) {
            Some((_, t)) => *t += v,
            None => totals.push((m_row.model.clone(), v)),
        }
    }
    totals.sort_by(|a, b| b.1.total_cmp(&a.1));
    totals
}

/// The SVG chart of `by` (day, week or month groups), stacked by model;
/// `None` for other groups or when there is nothing to draw.
pub(crate) fn svg(by: &Groups) -> Option<String> {
    let rows = &by.rows;
    if !charted(by.key) || rows.is_empty() {
        return None;
    }
    let m = Measure::of(rows);
    let max = largest(rows.iter().map(|g| {
        let models: f64 = g.models.iter().map(|x| m.model(x)).sum();
        m.group(g).max(models)
    }));
    if max <= 0.0 || !max.is_finite() {
        return None;
    }
    let named = series(rows, m);
    let legend: Vec<Series> = named
        .iter()
        .take(PALETTE.len())
        .zip(PALETTE)
        .map(|((name, _), colour)| Series {
            name: name.clone(),
            colour,
        })
        .collect();
    let others = named.len() > legend.len();
    let entries = legend.len() + usize::from(others);
    #[allow(clippy::cast_precision_loss)] // a few lines
    let legend_lines = entries.div_ceil(3) as f64;
    let height = PLOT_TOP + PLOT_HEIGHT + 2.0 * LINE + legend_lines * LINE + 4.0;
    let mut out = String::new();
    let what = format!("{} by {}", m.name(), by.key);
    let _ = write!(
        out,
        "<div class=\"scroll\"><svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" \
         viewBox=\"0 0 {WIDTH} {height}\" width=\"100%\" font-size=\"11\" \
         font-family=\"system-ui, sans-serif\" fill=\"currentColor\"><title>{}</title>",
        escape_html(&what)
    );
    axis(&mut out, m, max);
    columns(&mut out, rows, m, max, &legend);
    key(
        &mut out,
        &legend,
        others,
        PLOT_TOP + PLOT_HEIGHT + 2.0 * LINE,
    );
    out.push_str("</svg></div>\n");
    Some(out)
}

/// The scale: 0, half and the largest value, with their lines.
fn axis(out: &mut String, m: Measure, max: f64) {
    for (i, f) in [0.0, 0.5, 1.0].into_iter().enumerate() {
        let y = PLOT_TOP + PLOT_HEIGHT * (1.0 - f);
        let mut label = String::new();
        m.show(&mut label, max * f);
        let opacity = if i == 0 { "0.6" } else { "0.2" };
        let _ = write!(
            out,
            "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"currentColor\" \
             stroke-opacity=\"{opacity}\"/><text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            WIDTH - RIGHT,
            LEFT - 6.0,
            y + 4.0,
            escape_html(&label)
        );
    }
}

/// One column per group: its models' parts stacked, the largest first
/// at the bottom, what no model holds on top, each with its numbers as a
/// `<title>`; under it the group's name, as many as fit.
fn columns(out: &mut String, rows: &[GroupRow], m: Measure, max: f64, legend: &[Series]) {
    #[allow(clippy::cast_precision_loss)] // a few thousand groups
    let slot = (WIDTH - LEFT - RIGHT) / rows.len() as f64;
    let width = (slot * 0.8).min(48.0);
    // A name is about 70 units wide: every `step`-th is written.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // ≥ 1, small
    let step = (70.0 / slot).ceil().max(1.0) as usize;
    let scale = PLOT_HEIGHT / max;
    for (i, g) in rows.iter().enumerate() {
        #[allow(clippy::cast_precision_loss)]
        let x = LEFT + slot * i as f64 + (slot - width) / 2.0;
        let name = escape_html(&sanitize_line(&g.group));
        let mut whole = String::new();
        if m == Measure::Cost && g.cost_usd.is_none() {
            whole.push('–');
        } else {
            m.show(&mut whole, m.group(g));
        }
        let _ = write!(
            out,
            "<g><title>{name}: {} {} · {} sessions · {} calls</title>",
            escape_html(&cost_mark(g, &whole)),
            m.name(),
            g.sessions,
            g.tool_calls
        );
        let mut y = PLOT_TOP + PLOT_HEIGHT;
        let mut parts: Vec<(&ModelRow, f64)> = g.models.iter().map(|x| (x, m.model(x))).collect();
        parts.sort_by(|a, b| b.1.total_cmp(&a.1));
        let mut drawn = 0.0;
        for (model, v) in parts.into_iter().filter(|(_, v)| *v > 0.0) {
            let colour =
                (legend.iter().find(|s| s.name == model.model)).map_or(OTHER, |s| s.colour);
            let mut shown = String::new();
            m.show(&mut shown, v);
            let label = format!("{}: {} · {shown}", g.group, model.model);
            part(out, (x, width), &mut y, v * scale, colour, &label);
            drawn += v;
        }
        let rest = m.group(g) - drawn;
        if rest > max * 1e-6 {
            let mut shown = String::new();
            m.show(&mut shown, rest);
            let label = format!("{}: no model named · {shown}", g.group);
            part(out, (x, width), &mut y, rest * scale, OTHER, &label);
        }
        out.push_str("</g>");
        if i.is_multiple_of(step) {
            let _ = write!(
                out,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{name}</text>",
                x + width / 2.0,
                PLOT_TOP + PLOT_HEIGHT + LINE
            );
        }
    }
}

/// A group's value as its table cell says it (`~` estimated, `≥` a lower
/// bound).
fn cost_mark(g: &GroupRow, shown: &str) -> String {
    match (g.cost_usd.is_some(), g.cost_partial, g.cost_estimated) {
        (false, ..) => shown.to_string(),
        (true, true, true) => format!("≥ ~{shown}"),
        (true, true, false) => format!("≥ {shown}"),
        (true, false, true) => format!("~{shown}"),
        (true, false, false) => shown.to_string(),
    }
}

/// One part of a column, `h` high, on top of `y` (which it moves up),
/// with `label` (from the input: sanitized and escaped here) on hover.
fn part(out: &mut String, (x, w): (f64, f64), y: &mut f64, h: f64, colour: &str, label: &str) {
    *y -= h;
    let _ = write!(
        out,
        "<rect x=\"{x:.1}\" y=\"{:.2}\" width=\"{w:.1}\" height=\"{h:.2}\" fill=\"{colour}\">\
         <title>{}</title></rect>",
        *y,
        escape_html(&sanitize_line(label))
    );
}

/// The legend: a swatch and a name per model, three to a line.
fn key(out: &mut String, legend: &[Series], others: bool, top: f64) {
    let other = Series {
        name: "other models".to_string(),
        colour: OTHER,
    };
    let entries = legend.iter().chain(others.then_some(&other));
    for (i, s) in entries.enumerate() {
        #[allow(clippy::cast_precision_loss)]
        let (col, line) = ((i % 3) as f64, (i / 3) as f64);
        let (x, y) = (LEFT + col * ENTRY, top + line * LINE);
        let name: String = sanitize_line(&s.name).chars().take(36).collect();
        let _ = write!(
            out,
            "<rect x=\"{x}\" y=\"{:.1}\" width=\"10\" height=\"10\" fill=\"{}\"/>\
             <text x=\"{}\" y=\"{y:.1}\">{}</text>",
            y - 9.0,
            s.colour,
            x + 14.0,
            escape_html(&name)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_is_whole_cells_then_eighths() {
        assert_eq!(bar(1.0, 1.0, 4), "████");
        assert_eq!(bar(0.5, 1.0, 4), "██");
        assert_eq!(bar(1.0 / 32.0 * 3.0, 1.0, 4), "▍");
        assert_eq!(bar(0.3, 1.0, 4), "█▎");
        // Above 0 is never nothing; 0, a negative or NaN is.
        assert_eq!(bar(1e-9, 1.0, 4), "▏");
        assert_eq!(bar(0.0, 1.0, 4), "");
        assert_eq!(bar(f64::NAN, 1.0, 4), "");
        assert_eq!(bar(1.0, f64::INFINITY, 4), "");
        assert_eq!(bar(5.0, 1.0, 2), "██");
    }
}
