//! What `--format otlp` is asked to include.

/// `--otlp-content`, `--otlp-anonymous`, `--label`, and the host.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OtlpOptions {
    /// `--otlp-content`: prompts, tool inputs and outputs go in too
    /// (they can hold secrets: left out by default).
    pub content: bool,
    /// `--otlp-anonymous`: no host name, no working directory.
    pub anonymous: bool,
    /// The host's name (`host.name`), when known and not anonymous.
    pub host: Option<String>,
    /// `--label`: `streamview.label`, for the person or machine.
    pub label: Option<String>,
}
