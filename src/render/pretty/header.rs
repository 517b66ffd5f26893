//! A session's header: the agent, its model and folder, and the details
//! `-v` adds (tools, version, permission mode).

use std::io;

use termcolor::WriteColor;

use crate::event::{Producer, SessionStart};
use crate::render::lines::{Lines, Style};
use crate::session::Session;

use super::result::plural;
use super::{Pretty, To};

/// The verbose lines under a session's header: versions, modes, ids and
/// what the session offers.
pub(super) fn session_details(
    l: &mut Lines,
    st: &SessionStart<'_>,
    producer: Producer,
    s: &Session,
) {
    l.push(Style::Dim, "  ");
    if let Some(v) = &st.version {
        l.push(Style::Dim, producer.label());
        l.push(Style::Dim, " ");
        l.sanitized(Style::Dim, v);
        l.push(Style::Dim, " · ");
    }
    if let Some(m) = &st.permission_mode {
        l.push(Style::Dim, "permission mode ");
        l.sanitized(Style::Dim, m);
        l.push(Style::Dim, " · ");
    }
    if let Some(k) = &st.api_key_source {
        l.push(Style::Dim, "API key from ");
        l.sanitized(Style::Dim, k);
        l.push(Style::Dim, " · ");
    }
    l.push(Style::Dim, "session ");
    l.sanitized(
        Style::Dim,
        s.current().and_then(|c| c.id.as_deref()).unwrap_or("?"),
    );
    l.end(0);
    for (label, list) in [
        ("tools", &st.tools),
        ("agents", &st.agents),
        ("skills", &st.skills),
        ("slash commands", &st.slash_commands),
    ] {
        if !list.is_empty() {
            l.fmt(Style::Dim, format_args!("  {label}: "));
            for (i, t) in list.iter().enumerate() {
                if i > 0 {
                    l.push(Style::Dim, ", ");
                }
                l.sanitized(Style::Dim, t);
            }
            l.end(0);
        }
    }
}

impl<W: WriteColor, E: WriteColor> Pretty<W, E> {
    pub(super) fn session_start(
        &mut self,
        st: &SessionStart<'_>,
        producer: Producer,
        s: &Session,
    ) -> io::Result<()> {
        let note = s.note();
        if note.new_session {
            if note.previous_incomplete {
                self.incomplete_previous()?;
            }
            self.shown_texts.clear();
            self.last_error = None;
            self.end.reset();
        } else {
            if note.header_changed {
                let l = self.compose();
                l.push(Style::Header, "● ");
                l.push(Style::Plain, "model ");
                l.sanitized(Style::Plain, st.model.as_deref().unwrap_or("?"));
                l.push(Style::Plain, " · permission mode ");
                l.sanitized(Style::Plain, st.permission_mode.as_deref().unwrap_or("?"));
                l.end(0);
                return self.emit(To::Out);
            }
            if self.verbose() {
                self.compose().push(Style::Dim, "· new turn");
                self.lines.end(0);
                return self.emit(To::Out);
            }
            return Ok(());
        }
        let verbose = self.verbose();
        let l = self.compose();
        l.push(Style::Header, "● ");
        match st.model.as_deref() {
            Some(m) => l.sanitized(Style::Header, m),
            // Some producers (Codex) do not say which model runs.
            None => l.push(Style::Header, producer.label()),
        }
        if let Some(m) = &st.agent_mode {
            l.push(Style::Plain, " (mode ");
            l.sanitized(Style::Plain, m);
            l.push(Style::Plain, ")");
        }
        if let Some(cwd) = &st.cwd {
            l.push(Style::Plain, " in ");
            l.sanitized(Style::Plain, cwd);
        }
        if !st.tools.is_empty() {
            l.push(Style::Dim, " · ");
            plural(l, Style::Dim, st.tools.len() as u64, "tool", "tools");
        }
        if !st.mcp_servers.is_empty() {
            l.push(Style::Dim, " · MCP:");
            for m in &st.mcp_servers {
                let bad = !matches!(m.status.as_ref(), "connected" | "pending");
                let style = if bad { Style::Error } else { Style::Plain };
                l.push(style, " ");
                l.sanitized(style, &m.name);
                if bad {
                    l.push(style, " (");
                    l.sanitized(style, &m.status);
                    l.push(style, ")");
                }
            }
        }
        l.end(0);
        if verbose {
            session_details(l, st, producer, s);
        }
        // A failed MCP server is an error the user must see.
        let failed = st.mcp_servers.iter().any(|m| m.status == "failed");
        self.emit(if failed { To::Alert } else { To::Out })
    }
}
