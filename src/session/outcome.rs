//! How a session ended ([`Outcome`]), and how many of a run's sessions
//! ended each way ([`Outcomes`]).

/// How a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// The results reported success.
    Success,
    /// A result reported an error (any `error_*` subtype, `is_error`).
    Error,
    /// The input ended without a result (agent crashed, stream cut off), or
    /// the session was still working after its last result.
    Incomplete,
}

impl Outcome {
    /// Name used in messages and summaries.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::Error => "error",
            Outcome::Incomplete => "incomplete",
        }
    }
}

/// How many sessions ended each way (a session without an outcome is
/// incomplete, as its exit status says).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Outcomes {
    /// Sessions that ended with a success result.
    pub success: u64,
    /// Sessions that ended with an error result.
    pub error: u64,
    /// Sessions that ended without a result.
    pub incomplete: u64,
}

impl Outcomes {
    /// Count one session that ended with `o`.
    pub fn add(&mut self, o: Option<Outcome>) {
        match o {
            Some(Outcome::Success) => self.success += 1,
            Some(Outcome::Error) => self.error += 1,
            Some(Outcome::Incomplete) | None => self.incomplete += 1,
        }
    }

    /// Add the counts of `other`.
    pub fn merge(&mut self, other: Outcomes) {
        self.success += other.success;
        self.error += other.error;
        self.incomplete += other.incomplete;
    }
}
