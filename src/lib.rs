//! streamview: a live viewer and normalizer for AI coding-agent event streams.
//!
//! ```text
//! bytes ─▶ input::LineReader ─▶ decode::Decoder ─▶ event::Event ─▶ session::Session ─▶ filter::Filtered ─▶ render::Sink
//!          (memchr, one        (json: simd-json    (normalized     (correlation,       (--only, --hide,    (Pretty, Jsonl,
//!           reused buffer)      in place, long      model)          nesting, totals,    --tool; hidden      ResultText,
//!                               strings spared;                     outcome)            alerts → stderr)    SummarySink)
//!                               one module per
//!                               producer)
//! ```
//!
//! The modules stand on floors (`json` and `input` at the bottom, then
//! `event`, `decode`, `session`, `render`, …): each names only floors
//! below its own (`docs/architecture.md`; `tests/floors.rs` checks it).
//!
//! The session observes every event before the filter looks at it, so
//! totals, summaries and exit statuses do not depend on what is shown.
//!
//! The binary is a thin shell over [`run`](fn@run). Programs that receive a stream in
//! chunks use [`Feeder`]:
//!
//! ```
//! use streamview::{EventKind, Feeder, Outcome};
//!
//! let log = br#"{"type":"system","subtype":"init","session_id":"s","model":"m","tools":["Bash"]}
//! {"type":"assistant","session_id":"s","message":{"id":"m1","content":[{"type":"text","text":"hi"}]}}
//! {"type":"result","subtype":"success","is_error":false,"session_id":"s","num_turns":1}
//! "#;
//! let mut feeder = Feeder::new();
//! let mut texts = Vec::new();
//! feeder.feed(log, &mut |ev, _| {
//!     if let EventKind::Text(t) = &ev.kind {
//!         texts.push(t.text.to_string());
//!     }
//! });
//! let session = feeder.finish(&mut |_, _| {});
//! assert_eq!(texts, ["hi"]);
//! assert_eq!(session.worst_outcome(), Some(Outcome::Success));
//! ```

pub mod cli;
pub mod decode;
pub mod diag;
pub mod drive;
pub mod error;
pub mod event;
pub mod file;
pub mod filter;
pub mod index;
pub mod input;
mod json;
pub mod parallel;
pub mod render;
pub mod run;
pub mod session;
pub mod time;

pub use cli::{Format, Options};
pub use drive::{run, run_sink, run_sink_with};
pub use error::{Error, ExitStatus};
pub use event::{Event, EventKind, Producer};
pub use input::Interrupt;
pub use run::{Feeder, Runner};
pub use session::{Outcome, Session};
