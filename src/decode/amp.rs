//! Amp `--execute … --stream-json`.
//!
//! Close to Claude Code's format; read with the Claude decoder until its
//! own differences are handled (see issue 3).

use std::io;

use simd_json::BorrowedValue as Value;

use super::{Ctx, Emit};

/// Per-stream state.
#[derive(Default)]
pub(crate) struct State {
    claude: super::claude::State,
}

pub(crate) fn decode<'v>(
    v: &'v Value<'v>,
    ctx: &Ctx<'v>,
    state: &mut State,
    emit: &mut Emit<'_>,
) -> io::Result<()> {
    super::claude::decode(v, ctx, &mut state.claude, emit)
}

/// End of input.
#[allow(clippy::unnecessary_wraps)] // one signature for every producer
pub(crate) fn finish(_state: &mut State, _emit: &mut Emit<'_>) -> io::Result<()> {
    Ok(())
}
