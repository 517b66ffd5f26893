//! `gen_ai.provider.name` from a model's name: the semantic conventions'
//! well-known values, for the model families the agents name; `None`
//! for a model of no family known (no value is better than a guess).

/// The provider of `model` (`claude-sonnet-4-5` → `anthropic`,
/// `openai/gpt-5` → `openai`).
#[must_use]
pub fn of(model: &str) -> Option<&'static str> {
    let m = model.to_ascii_lowercase();
    // A router's prefix (`anthropic/…`) names it outright.
    let family = |name: &str| m.starts_with(name) || m.contains(&format!("/{name}"));
    if family("claude") || m.starts_with("anthropic/") {
        Some("anthropic")
    } else if family("gpt")
        || family("o1")
        || family("o3")
        || family("o4")
        || family("codex")
        || m.starts_with("openai/")
    {
        Some("openai")
    } else if family("gemini") || m.starts_with("google/") {
        Some("gcp.gemini")
    } else if family("grok") || m.starts_with("xai/") || m.starts_with("x-ai/") {
        Some("x_ai")
    } else if family("deepseek") {
        Some("deepseek")
    } else if family("mistral") || family("codestral") || family("devstral") {
        Some("mistral_ai")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn families() {
        assert_eq!(super::of("claude-opus-4-8[1m]"), Some("anthropic"));
        assert_eq!(super::of("anthropic/claude-sonnet-4"), Some("anthropic"));
        assert_eq!(super::of("gpt-5-codex"), Some("openai"));
        assert_eq!(super::of("openrouter/openai/gpt-4o"), Some("openai"));
        assert_eq!(super::of("gemini-2.5-pro"), Some("gcp.gemini"));
        assert_eq!(super::of("grok-4"), Some("x_ai"));
        assert_eq!(super::of("qwen3-coder-plus"), None);
        assert_eq!(super::of(""), None);
    }
}
