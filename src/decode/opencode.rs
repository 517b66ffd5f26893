//! `OpenCode` `opencode run --format json`.
//!
//! Not decoded yet: every line is kept as an `unknown` event (see issue 3).

use std::io;

use simd_json::BorrowedValue as Value;

use super::{Ctx, Emit};

/// Per-stream state.
#[derive(Default)]
pub(crate) struct State {}

pub(crate) fn decode<'v>(
    v: &'v Value<'v>,
    ctx: &Ctx<'v>,
    _state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    super::unknown_line(v, ctx, emit)
}

/// End of input.
#[allow(clippy::unnecessary_wraps)] // one signature for every producer
pub(crate) fn finish(_state: &mut State, _emit: &mut Emit<'_>) -> io::Result<()> {
    Ok(())
}
