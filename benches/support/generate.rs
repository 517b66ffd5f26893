//! A deterministic generator of large, realistic agent event streams, for
//! the benchmarks (issue 5) and anyone who wants to reproduce their numbers.
//!
//! Shared by `examples/generate.rs` (the command line), `benches/throughput.rs`
//! and the tests through `#[path]`, so every user sees the same bytes for the
//! same profile, size and seed. No `rand` crate: a splitmix64 generator keeps
//! the output identical across platforms and dependency updates.
//!
//! Every line copies the shape of a real capture (`tests/fixtures/`,
//! `../shared/corpus/`): the same envelope fields in the same order, the same
//! tool inputs and `tool_use_result` payloads, the same sub-agent and
//! partial-message framing. Sessions are concatenated until the target size
//! is reached; the last one is always complete (it ends with its result), so
//! streamview reads every output with exit status 0 and no skipped line.
//!
//! Profiles:
//! - `claude`: `claude -p … --output-format stream-json --verbose`. Long lines
//!   (median around 1 KB): assistant lines with text, thinking and `tool_use`
//!   blocks (Bash, Read, Edit, Write, Grep, Glob, `WebFetch`, `TodoWrite`, MCP,
//!   Agent sub-agents), user lines with tool results of every size up to about
//!   1 MB (escapes, ANSI colours, unicode, newlines), errors and permission
//!   denials, hooks, retries, rate-limit events, one result per session.
//! - `claude-partial`: the same with `--include-partial-messages`: every
//!   model message also arrives as `stream_event` deltas (text, thinking,
//!   tool input JSON), so most lines are ~250-byte events.
//! - `codex`: `codex exec --json`: one thread per session, reasoning,
//!   messages, commands, file changes, MCP calls, web searches, a plan.
//! - `gemini`: `gemini -p … --output-format stream-json`.

// The generator writes each producer's lines field by field, in the
// order the real CLI writes them: a line's function is as long as the line.
#![allow(clippy::too_many_lines)]
// Each user of this module (example, bench, tests) uses a different part.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::io::{self, Write};

/// splitmix64: tiny, fast, and good enough for synthetic data.
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        // The modulo bias is irrelevant for synthetic data.
        usize::try_from(self.next_u64() % (n.max(1) as u64)).unwrap_or(0)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi.saturating_sub(lo) + 1)
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One element of a non-empty slice.
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }

    /// A size drawn log-uniformly from `lo..=hi` (many small, few large).
    pub fn log_size(&mut self, lo: usize, hi: usize) -> usize {
        #[allow(clippy::cast_precision_loss)] // sizes far below 2^52
        let (lo, hi) = (lo.max(1) as f64, hi.max(lo + 1) as f64);
        #[allow(clippy::cast_precision_loss)]
        let u = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let n = (lo * (hi / lo).powf(u)) as usize;
        n
    }
}

/// Which agent's stream to imitate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// Claude Code stream-json.
    Claude,
    /// Claude Code stream-json with `--include-partial-messages`.
    ClaudePartial,
    /// `codex exec --json`.
    Codex,
    /// Gemini CLI stream-json.
    Gemini,
}

impl Profile {
    /// Every profile.
    pub const ALL: [Profile; 4] = [
        Profile::Claude,
        Profile::ClaudePartial,
        Profile::Codex,
        Profile::Gemini,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Claude => "claude",
            Profile::ClaudePartial => "claude-partial",
            Profile::Codex => "codex",
            Profile::Gemini => "gemini",
        }
    }

    /// The profile named `s`.
    pub fn parse(s: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.name() == s)
    }
}

/// `500M`, `2M`, `64K`, `1G`, `12345`: binary units (M = MiB).
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mult) = match s.char_indices().last()? {
        (i, 'k' | 'K') => (&s[..i], 1u64 << 10),
        (i, 'm' | 'M') => (&s[..i], 1 << 20),
        (i, 'g' | 'G') => (&s[..i], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>().ok()?.checked_mul(mult)
}

/// What was generated: the tests compare it with what streamview rendered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Bytes written.
    pub bytes: u64,
    /// Lines written (every one is a JSON event).
    pub lines: u64,
    /// Sessions (each ends with its result).
    pub sessions: u64,
    /// Tool calls, sub-agents' included.
    pub tool_calls: u64,
    /// Tool results, sub-agents' included (one per call).
    pub tool_results: u64,
    /// Results that are errors (denials included).
    pub tool_errors: u64,
    /// Results that are permission denials.
    pub denials: u64,
    /// Tool calls made by sub-agents.
    pub subagent_calls: u64,
    /// `stream_event` lines (partial messages).
    pub stream_events: u64,
    /// Length of the longest line, without its newline.
    pub longest_line: u64,
}

/// Write about `target` bytes of `profile` (whole sessions: the last one
/// may end past the target) to `out`.
///
/// # Errors
/// Only errors of `out`.
pub fn generate<W: Write>(out: W, profile: Profile, target: u64, seed: u64) -> io::Result<Counts> {
    let mut g = Gen {
        rng: Rng::new(seed ^ 0x5EED_0F5E_55A1_0000),
        out,
        line: String::with_capacity(1 << 16),
        counts: Counts::default(),
        clock_ms: 0,
        partial: profile == Profile::ClaudePartial,
    };
    while g.counts.bytes < target || g.counts.sessions == 0 {
        match profile {
            Profile::Claude | Profile::ClaudePartial => g.claude_session()?,
            Profile::Codex => g.codex_session()?,
            Profile::Gemini => g.gemini_session()?,
        }
        g.counts.sessions += 1;
    }
    g.out.flush()?;
    Ok(g.counts)
}

/// [`generate`] into memory.
pub fn generate_vec(profile: Profile, target: u64, seed: u64) -> (Vec<u8>, Counts) {
    let mut buf = Vec::with_capacity(usize::try_from(target).unwrap_or(0) + (1 << 20));
    let counts = generate(&mut buf, profile, target, seed).unwrap_or_default();
    (buf, counts)
}

/// The lines of generated `data`, without their newlines, numbered from 1,
/// as the library's reader would frame them.
pub fn split_lines(data: &[u8]) -> Vec<streamview::input::Line<'_>> {
    data.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .zip(1..)
        .map(|(bytes, number)| streamview::input::Line {
            number,
            bytes,
            partial: false,
        })
        .collect()
}

/// Append `s` as a JSON string literal (quotes included).
pub fn q(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\t' => "\\t",
            b'\r' => "\\r",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if esc.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(esc);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// The JSON literal of `s`, as a new string.
fn qs(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    q(&mut o, s);
    o
}

const WORDS: &[&str] = &[
    "the",
    "a",
    "to",
    "of",
    "and",
    "in",
    "is",
    "for",
    "that",
    "it",
    "with",
    "on",
    "this",
    "as",
    "file",
    "function",
    "test",
    "tests",
    "build",
    "error",
    "value",
    "module",
    "config",
    "parser",
    "line",
    "lines",
    "input",
    "output",
    "stream",
    "event",
    "session",
    "token",
    "buffer",
    "reader",
    "writer",
    "struct",
    "field",
    "type",
    "call",
    "result",
    "check",
    "update",
    "change",
    "fix",
    "now",
    "then",
    "first",
    "next",
    "before",
    "after",
    "because",
    "so",
    "but",
    "only",
    "all",
    "handler",
    "request",
    "response",
    "cache",
    "index",
    "query",
    "schema",
    "path",
    "directory",
    "Let",
    "I'll",
    "We",
    "should",
    "need",
    "can",
    "will",
    "read",
    "run",
    "look",
    "see",
    "add",
    "remove",
    "rename",
    "compile",
    "passes",
    "fails",
    "missing",
    "unused",
    "import",
    "return",
    "naïve",
    "café",
    "Grüße",
    "façade",
    "日本語",
    "→",
    "✓",
    "—",
    "…",
    "“quoted”",
    "🚀",
    "π",
    "`Cargo.toml`",
    "`src/lib.rs`",
    "`main()`",
    "**important**",
    "`--release`",
    "`None`",
];

const DIRS: &[&str] = &[
    "src",
    "src/decode",
    "src/render",
    "tests",
    "benches",
    "crates/core/src",
    "lib",
    "app/models",
    "web/components",
    "docs",
    "scripts",
    "internal/server",
];

const EXTS: &[&str] = &["rs", "py", "ts", "go", "md", "toml", "json", "tsx", "sh"];

const NAMES: &[&str] = &[
    "lib",
    "main",
    "mod",
    "parser",
    "config",
    "server",
    "client",
    "utils_ünïcode",
    "handler",
    "schema",
    "reader",
    "writer",
    "state",
    "session",
    "events",
    "index",
    "README",
    "api",
];

const CODE: &[&str] = &[
    "pub fn parse(input: &str) -> Result<Value, Error> {",
    "    let mut buf = Vec::with_capacity(4096);",
    "    for (i, line) in input.lines().enumerate() {",
    "        if line.trim().is_empty() { continue; }",
    "        println!(\"{}: {}\", i, line.replace('\\t', \"    \"));",
    "    }",
    "}",
    "def handle(request):",
    "    \"\"\"Return the response for `request` (see RFC 7231 §6).\"\"\"",
    "    path = os.path.join(ROOT, request.path.lstrip(\"/\"))",
    "    if not os.path.exists(path):",
    "        raise NotFound(f\"no such file: {path!r}\")",
    "\treturn json.dumps({\"ok\": True, \"path\": path, \"size\": len(data)})",
    "export async function load(id: string): Promise<Item | undefined> {",
    "  const res = await fetch(`/api/items/${encodeURIComponent(id)}`);",
    "  return res.ok ? ((await res.json()) as Item) : undefined;",
    "func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {",
    "\tlog.Printf(\"%s %s %q\", r.Method, r.URL.Path, r.UserAgent())",
    "// Regex: ^\\s*(\\w+)\\s*=\\s*\"([^\"]*)\"$ matches `key = \"value\"` lines.",
    "const GREETING: &str = \"Grüße, 世界! ✓\";",
    "    assert_eq!(decode(b\"{\\\"a\\\":1}\"), Ok(json!({\"a\": 1})));",
    "#[derive(Debug, Clone, PartialEq, Eq)]",
    "    match kind { Kind::A => 1, Kind::B => 2, _ => unreachable!(\"kind {kind:?}\") }",
    "",
    "# TODO: handle C:\\Users\\dev\\AppData paths on Windows",
];

const LOG: &[&str] = &[
    "   Compiling serde v1.0.229",
    "   Compiling streamview v0.1.0 (/home/dev/work/project)",
    "\u{1b}[1m\u{1b}[32m    Finished\u{1b}[0m `release` profile [optimized + debuginfo] target(s) in 41.27s",
    "test decode::tests::claude_init ... \u{1b}[32mok\u{1b}[0m",
    "test render::pretty::tests::wraps_long_lines ... \u{1b}[31mFAILED\u{1b}[0m",
    "warning: unused variable: `count`",
    "  --> src/session.rs:214:13",
    "error[E0308]: mismatched types: expected `&str`, found `String`",
    "thread 'main' panicked at src/main.rs:12:5:\ncalled `Option::unwrap()` on a `None` value",
    "npm WARN deprecated glob@7.2.3: Glob versions prior to v9 are no longer supported",
    "PASS  web/components/Button.test.tsx (1.204 s)",
    "FAIL  web/components/Table.test.tsx\n  ● Table › renders “empty” state",
    "drwxr-xr-x  4 dev dev  4096 Nov 22 03:52 .",
    "-rw-r--r--  1 dev dev 18231 Nov 22 03:52 Cargo.lock",
    "2026-11-22T03:52:49.308Z INFO  server: listening on 127.0.0.1:8080",
    "2026-11-22T03:52:49.412Z WARN  cache: eviction took 12ms (size=1048576)",
    "\tmodified:   src/decode/claude.rs",
    "commit 3f2a1c9e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39",
    "    Ünïcödé path: /home/dev/データ/レポート.txt",
];

/// Mutable generation state: the RNG, the line being built, the counters.
struct Gen<W: Write> {
    rng: Rng,
    out: W,
    line: String,
    counts: Counts,
    /// A clock that only moves forward, for timestamps.
    clock_ms: u64,
    partial: bool,
}

/// One Claude tool call, as generated: its id, name, input JSON and what
/// its result will be.
struct Call {
    id: String,
    name: &'static str,
    input: String,
}

impl<W: Write> Gen<W> {
    // ---- plumbing -------------------------------------------------------

    /// Write the line built in `self.line` (and clear it).
    fn flush_line(&mut self) -> io::Result<()> {
        self.line.push('\n');
        self.out.write_all(self.line.as_bytes())?;
        let n = self.line.len() as u64;
        self.counts.bytes += n;
        self.counts.lines += 1;
        self.counts.longest_line = self.counts.longest_line.max(n - 1);
        self.line.clear();
        Ok(())
    }

    fn hex(&mut self, n: usize) -> String {
        let mut s = String::with_capacity(n);
        for _ in 0..n {
            s.push(char::from(b"0123456789abcdef"[self.rng.below(16)]));
        }
        s
    }

    fn base62(&mut self, n: usize) -> String {
        const A: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        (0..n)
            .map(|_| char::from(A[self.rng.below(A.len())]))
            .collect()
    }

    fn uuid(&mut self) -> String {
        format!(
            "{}-{}-4{}-{}{}-{}",
            self.hex(8),
            self.hex(4),
            self.hex(3),
            self.rng.pick(&['8', '9', 'a', 'b']),
            self.hex(3),
            self.hex(12)
        )
    }

    fn timestamp(&mut self) -> String {
        self.clock_ms += self.rng.range(5, 4000) as u64;
        let ms = self.clock_ms;
        let day = 1 + (ms / 86_400_000) % 28;
        format!(
            "2026-11-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
            (ms / 3_600_000) % 24,
            (ms / 60_000) % 60,
            (ms / 1000) % 60,
            ms % 1000
        )
    }

    // ---- text -----------------------------------------------------------

    fn words(&mut self, n: usize) -> String {
        let mut s = String::new();
        for i in 0..n {
            if i > 0 {
                s.push(' ');
            }
            s.push_str(self.rng.pick(WORDS));
        }
        s
    }

    fn sentence(&mut self) -> String {
        let n = self.rng.range(4, 18);
        let mut s = self.words(n);
        if let Some(c) = s.get(..1) {
            let up = c.to_uppercase();
            s.replace_range(..1, &up);
        }
        s.push_str(self.rng.pick(&[".", ".", ".", ":", "!", "?"]));
        s
    }

    /// Markdown prose of about `chars` characters: paragraphs, lists, code.
    fn prose(&mut self, chars: usize) -> String {
        let mut s = String::new();
        while s.len() < chars {
            match self.rng.below(10) {
                0 => {
                    s.push_str("\n\n```rust\n");
                    for _ in 0..self.rng.range(1, 6) {
                        s.push_str(self.rng.pick(CODE));
                        s.push('\n');
                    }
                    s.push_str("```\n\n");
                }
                1 | 2 => {
                    s.push_str("\n- ");
                    let t = self.sentence();
                    s.push_str(&t);
                }
                _ => {
                    if !s.is_empty() {
                        s.push(' ');
                    }
                    let t = self.sentence();
                    s.push_str(&t);
                }
            }
        }
        s.trim().to_string()
    }

    /// Prose of a length drawn log-uniformly from `lo..=hi` characters.
    fn prose_between(&mut self, lo: usize, hi: usize) -> String {
        let chars = self.rng.log_size(lo, hi);
        self.prose(chars)
    }

    fn path(&mut self) -> String {
        format!(
            "/home/dev/work/project/{}/{}.{}",
            self.rng.pick(DIRS),
            self.rng.pick(NAMES),
            self.rng.pick(EXTS)
        )
    }

    /// Source code of about `bytes` bytes.
    fn code(&mut self, bytes: usize) -> String {
        let mut s = String::with_capacity(bytes + 100);
        while s.len() < bytes {
            s.push_str(self.rng.pick(CODE));
            s.push('\n');
        }
        s
    }

    /// Terminal output of about `bytes` bytes (colours, paths, unicode).
    fn log(&mut self, bytes: usize) -> String {
        let mut s = String::with_capacity(bytes + 200);
        while s.len() < bytes {
            if self.rng.chance(15) {
                s.push_str(self.rng.pick(CODE));
            } else {
                s.push_str(self.rng.pick(LOG));
            }
            s.push('\n');
        }
        s.pop();
        s
    }

    /// `cat -n` style numbering, as Claude's Read returns it.
    fn numbered(content: &str) -> String {
        let mut s = String::with_capacity(content.len() + content.len() / 8);
        for (i, l) in content.lines().enumerate() {
            let _ = writeln!(s, "{}\t{l}", i + 1);
        }
        s
    }

    /// Size of a tool's output: mostly small, sometimes large, rarely ~1 MB.
    /// Partial-message streams keep results smaller, so that their bytes are
    /// mostly the ~250-byte delta events they are meant to measure.
    fn result_size(&mut self) -> usize {
        let r = self.rng.below(1000);
        let huge = if self.partial { 64 << 10 } else { 1 << 20 };
        match r {
            0..=699 => self.rng.log_size(60, 3_000),
            700..=929 => self.rng.log_size(2_000, 20_000),
            930..=989 => self.rng.log_size(20_000, 200_000.min(huge)),
            _ => self.rng.log_size(200_000.min(huge / 2), huge),
        }
    }

    // ---- Claude ---------------------------------------------------------

    fn claude_session(&mut self) -> io::Result<()> {
        let sid = self.uuid();
        let project = format!("/home/dev/work/{}", self.rng.pick(NAMES));
        let mcp = self.rng.chance(40);
        self.claude_init(&sid, &project, mcp)?;
        if self.rng.chance(15) {
            self.claude_hook(&sid, "SessionStart:startup", "SessionStart")?;
        }
        let turns = self.rng.range(3, 30);
        // (id, tool, input) of each refused call, for the result's list.
        let mut denials: Vec<(String, &'static str, String)> = Vec::new();
        let (mut tin, mut tout) = (0u64, 0u64);
        for turn in 0..turns {
            let last = turn + 1 == turns;
            if self.rng.chance(2) {
                self.claude_api_retry(&sid)?;
            }
            if self.rng.chance(3) {
                self.claude_rate_limit(&sid)?;
            }
            if self.rng.chance(1) {
                self.claude_compaction(&sid)?;
            }
            let input_tokens = 1_600 + turn as u64 * self.rng.range(80, 3000) as u64;
            tin += input_tokens;
            let calls = self.claude_message(&sid, None, last, mcp, input_tokens, &mut tout)?;
            for call in &calls {
                if call.name == "Agent" {
                    self.claude_subagent(&sid, call)?;
                } else if self.claude_tool_result(&sid, None, call)? {
                    denials.push((call.id.clone(), call.name, call.input.clone()));
                }
            }
        }
        self.claude_result(&sid, turns, tin, tout, &denials)
    }

    fn claude_init(&mut self, sid: &str, cwd: &str, mcp: bool) -> io::Result<()> {
        let uuid = self.uuid();
        let l = &mut self.line;
        l.push_str(r#"{"type":"system","subtype":"init","cwd":"#);
        q(l, &format!("{cwd}/project"));
        l.push_str(r#","session_id":"#);
        q(l, sid);
        l.push_str(r#","tools":["Task","Bash","CronCreate","CronDelete","CronList","Edit","EnterWorktree","ExitWorktree","Glob","Grep","NotebookEdit","Read","ReportFindings","ScheduleWakeup","SendMessage","Skill","TaskCreate","TaskGet","TaskList","TaskOutput","TaskStop","TaskUpdate","TodoWrite","WebFetch","WebSearch","Workflow","Write""#);
        if mcp {
            l.push_str(r#","mcp__github__search_issues","mcp__github__get_file_contents"],"mcp_servers":[{"name":"github","status":"connected"}]"#);
        } else {
            l.push_str(r#"],"mcp_servers":[]"#);
        }
        l.push_str(r#","model":"claude-opus-4-8[1m]","permissionMode":"bypassPermissions","slash_commands":["deep-research","update-config","verify","debug","code-review","simplify","batch","fewer-permission-prompts","loop","claude-api","run","run-skill-generator","clear","compact","config","context","heapdump","init","reload-skills","review","security-review","usage","insights","goal","team-onboarding"],"apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.197","output_style":"default","agents":["claude","Explore","general-purpose","Plan","statusline-setup"],"skills":["deep-research","update-config","verify","debug","code-review","simplify","batch","fewer-permission-prompts","loop","claude-api","run","run-skill-generator"],"plugins":[],"analytics_disabled":true,"product_feedback_disabled":true,"uuid":"#);
        q(l, &uuid);
        l.push_str(r#","memory_paths":{"auto":"#);
        q(
            l,
            &format!("{cwd}/home/.claude/projects/-home-dev-work-project/memory/"),
        );
        l.push_str(r#"},"fast_mode_state":"off"}"#);
        self.flush_line()
    }

    fn claude_hook(&mut self, sid: &str, name: &str, event: &str) -> io::Result<()> {
        let (hook, u1, u2) = (self.uuid(), self.uuid(), self.uuid());
        let _ = write!(
            self.line,
            r#"{{"type":"system","subtype":"hook_started","hook_id":"{hook}","hook_name":"{name}","hook_event":"{event}","uuid":"{u1}","session_id":"{sid}"}}"#
        );
        self.flush_line()?;
        let _ = write!(
            self.line,
            r#"{{"type":"system","subtype":"hook_response","hook_id":"{hook}","hook_name":"{name}","hook_event":"{event}","output":"hook ran\n","stdout":"hook ran\n","stderr":"","exit_code":0,"outcome":"success","uuid":"{u2}","session_id":"{sid}"}}"#
        );
        self.flush_line()
    }

    fn claude_api_retry(&mut self, sid: &str) -> io::Result<()> {
        let uuid = self.uuid();
        let (status, err) = self.rng.pick(&[
            (529, "overloaded"),
            (500, "server_error"),
            (429, "rate_limit"),
        ]);
        let delay = self.rng.range(400, 9000);
        let _ = write!(
            self.line,
            r#"{{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":{delay}.318,"error_status":{status},"error":"{err}","session_id":"{sid}","uuid":"{uuid}"}}"#
        );
        self.flush_line()
    }

    fn claude_rate_limit(&mut self, sid: &str) -> io::Result<()> {
        let uuid = self.uuid();
        let status = self.rng.pick(&["allowed", "allowed", "allowed_warning"]);
        let util = self.rng.range(50, 99);
        let _ = write!(
            self.line,
            r#"{{"type":"rate_limit_event","rate_limit_info":{{"status":"{status}","resetsAt":1795330800,"rateLimitType":"five_hour","utilization":0.{util},"isUsingOverage":false}},"uuid":"{uuid}","session_id":"{sid}"}}"#
        );
        self.flush_line()
    }

    fn claude_compaction(&mut self, sid: &str) -> io::Result<()> {
        let (u1, u2) = (self.uuid(), self.uuid());
        let pre = self.rng.range(150_000, 190_000);
        let _ = write!(
            self.line,
            r#"{{"type":"system","subtype":"status","status":"compacting","uuid":"{u1}","session_id":"{sid}"}}"#
        );
        self.flush_line()?;
        let _ = write!(
            self.line,
            r#"{{"type":"system","subtype":"compact_boundary","session_id":"{sid}","uuid":"{u2}","compact_metadata":{{"trigger":"auto","pre_tokens":{pre}}}}}"#
        );
        self.flush_line()
    }

    /// The `"message"` envelope of an assistant line around `block`, and the
    /// rest of the line.
    fn claude_assistant_line(
        &mut self,
        sid: &str,
        parent: Option<(&str, &str)>,
        msg: &str,
        req: &str,
        input_tokens: u64,
        block: &str,
    ) -> io::Result<()> {
        let uuid = self.uuid();
        let l = &mut self.line;
        let _ = write!(
            l,
            r#"{{"type":"assistant","message":{{"id":"{msg}","type":"message","role":"assistant","model":"claude-opus-4-8","content":[{block}],"stop_reason":null,"stop_sequence":null,"usage":{{"input_tokens":{input_tokens},"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}},"context_management":null}},"parent_tool_use_id":"#
        );
        match parent {
            Some((p, _)) => q(l, p),
            None => l.push_str("null"),
        }
        let _ = write!(
            l,
            r#","session_id":"{sid}","uuid":"{uuid}","request_id":"{req}""#
        );
        if let Some((_, desc)) = parent {
            l.push_str(r#","subagent_type":"general-purpose","task_description":"#);
            q(l, desc);
        }
        l.push('}');
        self.flush_line()
    }

    /// One API message: its blocks (thinking, text, tool calls), each on its
    /// own line as the CLI prints them, with the stream events around them
    /// in the partial profile (main agent only: sub-agents are not
    /// streamed). Returns the tool calls made.
    fn claude_message(
        &mut self,
        sid: &str,
        parent: Option<(&str, &str)>,
        last: bool,
        mcp: bool,
        input_tokens: u64,
        out_tokens: &mut u64,
    ) -> io::Result<Vec<Call>> {
        let msg = format!("msg_01{}", self.hex(22));
        let req = format!("req_{}", self.base62(24));
        let streamed = self.partial && parent.is_none();
        let thinking = self.rng.chance(if parent.is_some() { 10 } else { 35 });
        let text = last || self.rng.chance(65);
        let n_calls = if last {
            0
        } else {
            self.rng
                .pick(&[1, 1, 1, 1, 2, 2, 3, if parent.is_some() { 1 } else { 4 }])
        };
        if streamed {
            let (status_uuid, uuid, ttft) = (self.uuid(), self.uuid(), self.rng.range(8, 900));
            let _ = write!(
                self.line,
                r#"{{"type":"system","subtype":"status","status":"requesting","uuid":"{status_uuid}","session_id":"{sid}"}}"#
            );
            self.flush_line()?;
            let _ = write!(
                self.line,
                r#"{{"type":"stream_event","event":{{"type":"message_start","message":{{"id":"{msg}","type":"message","role":"assistant","model":"claude-opus-4-8","content":[],"stop_reason":null,"stop_sequence":null,"usage":{{"input_tokens":{input_tokens},"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}}}}}},"session_id":"{sid}","parent_tool_use_id":null,"uuid":"{uuid}","ttft_ms":{ttft}}}"#
            );
            self.stream_line()?;
        }
        let mut index = 0;
        let mut tokens = 0u64;
        if thinking {
            let chars = self.rng.log_size(60, 4000);
            let t = self.prose(chars);
            let sig = format!("EqMock{}", self.hex(128));
            tokens += t.len() as u64 / 4;
            if streamed {
                self.stream_block_start(
                    sid,
                    index,
                    r#"{"type":"thinking","thinking":"","signature":""}"#,
                )?;
                self.stream_deltas(sid, index, "thinking_delta", "thinking", &t, true)?;
                let uuid = self.uuid();
                let _ = write!(
                    self.line,
                    r#"{{"type":"stream_event","event":{{"type":"content_block_delta","index":{index},"delta":{{"type":"signature_delta","signature":"{sig}"}}}},"session_id":"{sid}","parent_tool_use_id":null,"uuid":"{uuid}"}}"#
                );
                self.stream_line()?;
            }
            let block = format!(
                r#"{{"type":"thinking","thinking":{},"signature":"{sig}"}}"#,
                qs(&t)
            );
            self.claude_assistant_line(sid, parent, &msg, &req, input_tokens, &block)?;
            if streamed {
                self.stream_block_stop(sid, index)?;
            }
            index += 1;
        }
        if text {
            let chars = if last {
                self.rng.log_size(80, 3000)
            } else {
                self.rng.log_size(60, 2000)
            };
            let t = self.prose(chars);
            tokens += t.len() as u64 / 4;
            if streamed {
                self.stream_block_start(sid, index, r#"{"type":"text","text":""}"#)?;
                self.stream_deltas(sid, index, "text_delta", "text", &t, false)?;
            }
            let block = format!(r#"{{"type":"text","text":{}}}"#, qs(&t));
            self.claude_assistant_line(sid, parent, &msg, &req, input_tokens, &block)?;
            if streamed {
                self.stream_block_stop(sid, index)?;
            }
            index += 1;
        }
        let mut calls = Vec::with_capacity(n_calls);
        for _ in 0..n_calls {
            let call = self.claude_call(parent.is_some(), mcp);
            tokens += call.input.len() as u64 / 4;
            if streamed {
                let start = format!(
                    r#"{{"type":"tool_use","id":"{}","name":"{}","input":{{}}}}"#,
                    call.id, call.name
                );
                self.stream_block_start(sid, index, &start)?;
                let input = call.input.clone();
                self.stream_deltas(
                    sid,
                    index,
                    "input_json_delta",
                    "partial_json",
                    &input,
                    false,
                )?;
            }
            let block = format!(
                r#"{{"type":"tool_use","id":"{}","name":"{}","input":{}}}"#,
                call.id, call.name, call.input
            );
            self.claude_assistant_line(sid, parent, &msg, &req, input_tokens, &block)?;
            self.counts.tool_calls += 1;
            if parent.is_some() {
                self.counts.subagent_calls += 1;
            }
            if call.name == "Agent" {
                self.claude_task_started(sid, &call)?;
            }
            if streamed {
                self.stream_block_stop(sid, index)?;
            }
            index += 1;
            calls.push(call);
        }
        *out_tokens += tokens;
        if streamed {
            let stop = if n_calls > 0 { "tool_use" } else { "end_turn" };
            let uuid = self.uuid();
            let _ = write!(
                self.line,
                r#"{{"type":"stream_event","event":{{"type":"message_delta","delta":{{"stop_reason":"{stop}","stop_sequence":null}},"usage":{{"output_tokens":{tokens}}}}},"session_id":"{sid}","parent_tool_use_id":null,"uuid":"{uuid}"}}"#
            );
            self.stream_line()?;
            let uuid = self.uuid();
            let _ = write!(
                self.line,
                r#"{{"type":"stream_event","event":{{"type":"message_stop"}},"session_id":"{sid}","parent_tool_use_id":null,"uuid":"{uuid}"}}"#
            );
            self.stream_line()?;
        }
        Ok(calls)
    }

    fn stream_line(&mut self) -> io::Result<()> {
        self.counts.stream_events += 1;
        self.flush_line()
    }

    fn stream_block_start(&mut self, sid: &str, index: usize, block: &str) -> io::Result<()> {
        let uuid = self.uuid();
        let _ = write!(
            self.line,
            r#"{{"type":"stream_event","event":{{"type":"content_block_start","index":{index},"content_block":{block}}},"session_id":"{sid}","parent_tool_use_id":null,"uuid":"{uuid}"}}"#
        );
        self.stream_line()
    }

    fn stream_block_stop(&mut self, sid: &str, index: usize) -> io::Result<()> {
        let uuid = self.uuid();
        let _ = write!(
            self.line,
            r#"{{"type":"stream_event","event":{{"type":"content_block_stop","index":{index}}},"session_id":"{sid}","parent_tool_use_id":null,"uuid":"{uuid}"}}"#
        );
        self.stream_line()
    }

    /// `text` cut into fragments of a few to a few dozen characters, one
    /// `content_block_delta` each (thinking ones preceded by the CLI's
    /// `thinking_tokens` estimate, as captured).
    fn stream_deltas(
        &mut self,
        sid: &str,
        index: usize,
        kind: &str,
        field: &str,
        text: &str,
        thinking_tokens: bool,
    ) -> io::Result<()> {
        if kind == "input_json_delta" {
            // The CLI sends an empty fragment first.
            self.stream_delta(sid, index, kind, field, "")?;
        }
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let mut i = 0;
        let mut estimate = 0;
        while i < chars.len() {
            let n = self.rng.range(3, 40);
            let end = chars.get(i + n).map_or(text.len(), |c| c.0);
            let frag = &text[chars[i].0..end];
            if thinking_tokens {
                let d = frag.len().div_ceil(4);
                estimate += d;
                let uuid = self.uuid();
                let _ = write!(
                    self.line,
                    r#"{{"type":"system","subtype":"thinking_tokens","estimated_tokens":{estimate},"estimated_tokens_delta":{d},"uuid":"{uuid}","session_id":"{sid}"}}"#
                );
                self.flush_line()?;
            }
            self.stream_delta(sid, index, kind, field, frag)?;
            i += n;
        }
        Ok(())
    }

    fn stream_delta(
        &mut self,
        sid: &str,
        index: usize,
        kind: &str,
        field: &str,
        frag: &str,
    ) -> io::Result<()> {
        let uuid = self.uuid();
        let l = &mut self.line;
        let _ = write!(
            l,
            r#"{{"type":"stream_event","event":{{"type":"content_block_delta","index":{index},"delta":{{"type":"{kind}","{field}":"#
        );
        q(l, frag);
        let _ = write!(
            l,
            r#"}}}},"session_id":"{sid}","parent_tool_use_id":null,"uuid":"{uuid}"}}"#
        );
        self.stream_line()
    }

    /// A tool call: the tool and its input, as the model writes them.
    fn claude_call(&mut self, in_subagent: bool, mcp: bool) -> Call {
        let id = format!("toolu_01{}", self.base62(22));
        let roll = self.rng.below(100);
        let (name, input) = match roll {
            0..=27 => {
                let cmd = self
                    .rng
                    .pick(&[
                        "cargo test --release 2>&1 | tail -50",
                        "ls -la && wc -l src/*.rs",
                        "git status && git diff --stat",
                        "rg -n \"fn decode\" src/ | head -20",
                        "npm test -- --watch=false",
                        "python3 -m pytest -x -q tests/",
                        "cat build.log | grep -i \"error\\|warning\"",
                        "find . -name '*.rs' -newer Cargo.toml -print",
                        "rm -rf build && touch build.marker",
                        "echo \"Grüße → ✓\" && printf 'a\\tb\\n'",
                    ])
                    .to_string();
                let desc = self.words(4);
                (
                    "Bash",
                    format!(r#"{{"command":{},"description":{}}}"#, qs(&cmd), qs(&desc)),
                )
            }
            28..=49 => ("Read", format!(r#"{{"file_path":{}}}"#, qs(&self.path()))),
            50..=59 => {
                // A few lines replaced by a few others.
                let (p, o_len, n_len) = (
                    self.path(),
                    self.rng.log_size(30, 800),
                    self.rng.log_size(30, 1200),
                );
                let (o, n) = (self.code(o_len), self.code(n_len));
                (
                    "Edit",
                    format!(
                        r#"{{"replace_all":false,"file_path":{},"old_string":{},"new_string":{}}}"#,
                        qs(&p),
                        qs(&o),
                        qs(&n)
                    ),
                )
            }
            60..=64 => {
                let p = self.path();
                let size = self.rng.log_size(50, 20_000);
                let c = self.code(size);
                (
                    "Write",
                    format!(r#"{{"file_path":{},"content":{}}}"#, qs(&p), qs(&c)),
                )
            }
            65..=74 => {
                let pat = self
                    .rng
                    .pick(&["fn \\w+\\(", "TODO|FIXME", "impl.*Sink", "\"type\":"]);
                (
                    "Grep",
                    format!(
                        r#"{{"pattern":{},"path":"/home/dev/work/project","output_mode":"content","-n":true}}"#,
                        qs(pat)
                    ),
                )
            }
            75..=81 => {
                let pat = self
                    .rng
                    .pick(&["**/*.rs", "src/**/*.ts", "**/Cargo.toml", "tests/*.py"]);
                ("Glob", format!(r#"{{"pattern":{}}}"#, qs(pat)))
            }
            82..=85 => {
                let url = format!(
                    "https://docs.example.org/{}/{}",
                    self.rng.pick(NAMES),
                    self.hex(6)
                );
                let p = self.words(6);
                (
                    "WebFetch",
                    format!(r#"{{"url":{},"prompt":{}}}"#, qs(&url), qs(&p)),
                )
            }
            86..=89 => {
                let mut s = String::from(r#"{"todos":["#);
                for i in 0..self.rng.range(2, 6) {
                    if i > 0 {
                        s.push(',');
                    }
                    let (c, a) = (self.sentence(), self.words(3));
                    let st = self.rng.pick(&["pending", "in_progress", "completed"]);
                    let _ = write!(
                        s,
                        r#"{{"content":{},"status":"{st}","activeForm":{}}}"#,
                        qs(&c),
                        qs(&a)
                    );
                }
                s.push_str("]}");
                ("TodoWrite", s)
            }
            90..=93 if mcp => {
                let w = self.words(3);
                (
                    "mcp__github__search_issues",
                    format!(r#"{{"query":{},"repo":"dev/project","limit":20}}"#, qs(&w)),
                )
            }
            94..=99 if !in_subagent => {
                let (d, p) = (self.words(3), self.prose(200));
                (
                    "Agent",
                    format!(
                        r#"{{"description":{},"prompt":{},"subagent_type":"general-purpose"}}"#,
                        qs(&d),
                        qs(&p)
                    ),
                )
            }
            _ => ("Glob", r#"{"pattern":"**/*.md"}"#.to_string()),
        };
        Call { id, name, input }
    }

    /// The user line answering `call`. Returns true when the call was
    /// refused (a permission denial).
    fn claude_tool_result(
        &mut self,
        sid: &str,
        parent: Option<(&str, &str)>,
        call: &Call,
    ) -> io::Result<bool> {
        let ts = self.timestamp();
        let uuid = self.uuid();
        let size = self.result_size();
        let roll = self.rng.below(100);
        let denial = matches!(call.name, "Bash" | "Write") && roll < 3;
        let error = !denial && roll < 10;
        // (content as JSON, tool_use_result as JSON)
        let (content, extra) = if denial {
            let msg = if call.name == "Bash" {
                "This Bash command contains multiple operations. The following parts require approval: rm -rf build, touch build.marker".to_string()
            } else {
                format!(
                    "Claude requested permissions to write to {}, but you haven't granted it yet.",
                    self.path()
                )
            };
            (qs(&msg), qs(&format!("Error: {msg}")))
        } else if error {
            let msg = match call.name {
                "Read" => "<tool_use_error>File does not exist. Note: your current working directory is /home/dev/work/project.</tool_use_error>".to_string(),
                "Edit" => "<tool_use_error>String to replace not found in file.\nString: fn main() {</tool_use_error>".to_string(),
                _ => format!("Exit code {}\n{}", self.rng.range(1, 101), self.log(size.min(8000))),
            };
            (qs(&msg), qs(&format!("Error: {msg}")))
        } else {
            self.claude_output(call, size)
        };
        let l = &mut self.line;
        let _ = write!(
            l,
            r#"{{"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"{}","type":"tool_result","content":{content}"#,
            call.id
        );
        if denial || error {
            l.push_str(r#","is_error":true"#);
        } else if call.name == "Bash" {
            l.push_str(r#","is_error":false"#);
        }
        l.push_str(r#"}]},"parent_tool_use_id":"#);
        match parent {
            Some((p, _)) => q(l, p),
            None => l.push_str("null"),
        }
        let _ = write!(
            l,
            r#","session_id":"{sid}","uuid":"{uuid}","timestamp":"{ts}""#
        );
        if !extra.is_empty() {
            l.push_str(r#","tool_use_result":"#);
            l.push_str(&extra);
        }
        if let Some((_, desc)) = parent {
            l.push_str(r#","subagent_type":"general-purpose","task_description":"#);
            q(l, desc);
        }
        l.push('}');
        self.flush_line()?;
        self.counts.tool_results += 1;
        if denial || error {
            self.counts.tool_errors += 1;
        }
        if denial {
            self.counts.denials += 1;
        }
        Ok(denial)
    }

    /// A successful result of `call`: the `content` the model sees and the
    /// CLI's structured `tool_use_result` (often repeating it, as the real
    /// CLI does), both as JSON.
    fn claude_output(&mut self, call: &Call, size: usize) -> (String, String) {
        match call.name {
            "Bash" => {
                let out = self.log(size);
                let q_out = qs(&out);
                let extra = format!(
                    r#"{{"stdout":{q_out},"stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}}"#
                );
                (q_out, extra)
            }
            "Read" => {
                let file = self.code(size);
                let lines = file.lines().count();
                let path = self.path();
                let extra = format!(
                    r#"{{"type":"text","file":{{"filePath":{},"content":{},"numLines":{lines},"startLine":1,"totalLines":{lines}}}}}"#,
                    qs(&path),
                    qs(&file)
                );
                (qs(&Self::numbered(&file)), extra)
            }
            "Edit" => {
                let path = self.path();
                let orig = self.code(size);
                let msg = format!(
                    "The file {path} has been updated successfully. (file state is current in your context — no need to Read it back)"
                );
                let (o, n) = (self.rng.pick(CODE), self.rng.pick(CODE));
                let extra = format!(
                    r#"{{"filePath":{},"oldString":{},"newString":{},"originalFile":{},"structuredPatch":[{{"oldStart":3,"oldLines":3,"newStart":3,"newLines":3,"lines":[" {{",{},{}," }}"]}}],"userModified":false,"replaceAll":false}}"#,
                    qs(&path),
                    qs(o),
                    qs(n),
                    qs(&orig),
                    qs(&format!("-{o}")),
                    qs(&format!("+{n}")),
                );
                (qs(&msg), extra)
            }
            "Write" => {
                let path = self.path();
                let msg = format!(
                    "File created successfully at: {path} (file state is current in your context — no need to Read it back)"
                );
                let extra = format!(
                    r#"{{"type":"create","filePath":{},"content":"","structuredPatch":[],"originalFile":null,"userModified":false}}"#,
                    qs(&path)
                );
                (qs(&msg), extra)
            }
            "Grep" => {
                let mut out = String::new();
                while out.len() < size {
                    let p = self.path();
                    let _ = writeln!(
                        out,
                        "{p}:{}:{}",
                        self.rng.range(1, 900),
                        self.rng.pick(CODE)
                    );
                }
                let lines = out.lines().count();
                let q_out = qs(&out);
                let extra = format!(
                    r#"{{"mode":"content","numFiles":0,"filenames":[],"content":{q_out},"numLines":{lines}}}"#
                );
                (q_out, extra)
            }
            "Glob" => {
                let mut files = Vec::new();
                let mut len = 0;
                while len < size.min(20_000) {
                    let p = self.path();
                    len += p.len() + 1;
                    files.push(p);
                }
                let list: Vec<String> = files.iter().map(|f| qs(f)).collect();
                let extra = format!(
                    r#"{{"filenames":[{}],"durationMs":{},"numFiles":{},"truncated":false}}"#,
                    list.join(","),
                    self.rng.range(3, 200),
                    files.len()
                );
                (qs(&files.join("\n")), extra)
            }
            "WebFetch" => {
                let body = self.prose(size);
                let extra = format!(
                    r#"{{"bytes":{},"code":200,"codeText":"OK","result":{},"durationMs":{},"url":"https://docs.example.org/page"}}"#,
                    body.len() * 3,
                    qs(&body),
                    self.rng.range(200, 4000)
                );
                (qs(&body), extra)
            }
            "TodoWrite" => (
                qs(
                    "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable",
                ),
                String::new(),
            ),
            n if n.starts_with("mcp__") => {
                let body = self.prose(size);
                // MCP results arrive as content blocks.
                (
                    format!(r#"[{{"type":"text","text":{}}}]"#, qs(&body)),
                    String::new(),
                )
            }
            _ => (qs("ok"), String::new()),
        }
    }

    fn claude_task_started(&mut self, sid: &str, call: &Call) -> io::Result<()> {
        let task = self.hex(17);
        let uuid = self.uuid();
        let _ = write!(
            self.line,
            r#"{{"type":"system","subtype":"task_started","task_id":"a{task}","tool_use_id":"{}","description":"sub-agent task","subagent_type":"general-purpose","task_type":"local_agent","uuid":"{uuid}","session_id":"{sid}"}}"#,
            call.id
        );
        self.flush_line()
    }

    /// An `Agent` call's sub-agent: its prompt, its own turns and tool
    /// calls (each line tagged with `parent_tool_use_id`), the task
    /// notices, and the parent's tool result with the sub-agent's answer as
    /// content blocks.
    fn claude_subagent(&mut self, sid: &str, call: &Call) -> io::Result<()> {
        let desc = self.words(3);
        let parent = Some((call.id.as_str(), desc.as_str()));
        let ts = self.timestamp();
        let (uuid, prompt) = (self.uuid(), self.prose(150));
        let _ = write!(
            self.line,
            r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"text","text":{}}}]}},"parent_tool_use_id":"{}","session_id":"{sid}","uuid":"{uuid}","timestamp":"{ts}","subagent_type":"general-purpose","task_description":{}}}"#,
            qs(&prompt),
            call.id,
            qs(&desc)
        );
        self.flush_line()?;
        let task = format!("a{}", self.hex(16));
        let turns = self.rng.range(1, 6);
        let mut uses = 0;
        let mut tokens = 0;
        for t in 0..turns {
            let calls =
                self.claude_message(sid, parent, t + 1 == turns, false, 1200, &mut tokens)?;
            for c in &calls {
                uses += 1;
                let uuid = self.uuid();
                let _ = write!(
                    self.line,
                    r#"{{"type":"system","subtype":"task_progress","task_id":"{task}","tool_use_id":"{}","description":"Running {}","subagent_type":"general-purpose","usage":{{"total_tokens":{},"tool_uses":{uses},"duration_ms":{}}},"last_tool_name":"{}","uuid":"{uuid}","session_id":"{sid}"}}"#,
                    call.id,
                    c.name,
                    1200 + tokens,
                    uses * 97,
                    c.name
                );
                self.flush_line()?;
                self.claude_tool_result(sid, parent, c)?;
            }
        }
        let (u1, u2, u3, ts) = (self.uuid(), self.uuid(), self.uuid(), self.timestamp());
        let _ = write!(
            self.line,
            r#"{{"type":"system","subtype":"task_updated","task_id":"{task}","patch":{{"status":"completed","end_time":1795319581970}},"uuid":"{u1}","session_id":"{sid}"}}"#
        );
        self.flush_line()?;
        let _ = write!(
            self.line,
            r#"{{"type":"system","subtype":"task_notification","task_id":"{task}","tool_use_id":"{}","status":"completed","output_file":"","summary":{},"usage":{{"total_tokens":{},"tool_uses":{uses},"duration_ms":{}}},"uuid":"{u2}","session_id":"{sid}"}}"#,
            call.id,
            qs(&desc),
            1200 + tokens,
            uses * 131
        );
        self.flush_line()?;
        let answer = self.prose(400);
        let trailer = format!(
            "agentId: {task} (use SendMessage with to: '{task}', summary: '<5-10 word recap>' to continue this agent)\n<usage>subagent_tokens: {}\ntool_uses: {uses}\nduration_ms: {}</usage>",
            1200 + tokens,
            uses * 131
        );
        let _ = write!(
            self.line,
            r#"{{"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"{}","type":"tool_result","content":[{{"type":"text","text":{}}},{{"type":"text","text":{}}}]}}]}},"parent_tool_use_id":null,"session_id":"{sid}","uuid":"{u3}","timestamp":"{ts}","tool_use_result":{{"status":"completed","agentId":"{task}","agentType":"general-purpose","content":[{{"type":"text","text":{}}}],"totalDurationMs":{},"totalTokens":{},"totalToolUseCount":{uses}}}}}"#,
            call.id,
            qs(&answer),
            qs(&trailer),
            qs(&answer),
            uses * 131,
            1200 + tokens
        );
        self.flush_line()?;
        self.counts.tool_results += 1;
        Ok(())
    }

    fn claude_result(
        &mut self,
        sid: &str,
        turns: usize,
        tin: u64,
        tout: u64,
        denials: &[(String, &'static str, String)],
    ) -> io::Result<()> {
        let uuid = self.uuid();
        #[allow(clippy::cast_precision_loss)]
        let cost = (tin as f64 * 5.0 + tout as f64 * 25.0) / 1e6;
        let dur = self.rng.range(2_000, 900_000);
        let answer = self.sentence();
        let l = &mut self.line;
        let _ = write!(
            l,
            r#"{{"type":"result","subtype":"success","is_error":false,"api_error_status":null,"duration_ms":{dur},"duration_api_ms":{},"ttft_ms":223,"ttft_stream_ms":217,"time_to_request_ms":189,"num_turns":{turns},"result":{},"stop_reason":"end_turn","session_id":"{sid}","total_cost_usd":{cost:.6},"usage":{{"input_tokens":{tin},"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":{tout},"server_tool_use":{{"web_search_requests":0,"web_fetch_requests":0}},"service_tier":"standard","cache_creation":{{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":0}},"inference_geo":"","iterations":[],"speed":"standard"}},"modelUsage":{{"claude-opus-4-8[1m]":{{"inputTokens":{tin},"outputTokens":{tout},"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"webSearchRequests":0,"costUSD":{cost:.6},"contextWindow":1000000,"maxOutputTokens":64000}}}},"permission_denials":["#,
            dur / 2,
            qs(&answer)
        );
        for (i, (id, name, input)) in denials.iter().enumerate() {
            if i > 0 {
                l.push(',');
            }
            let _ = write!(
                l,
                r#"{{"tool_name":"{name}","tool_use_id":"{id}","tool_input":{input}}}"#
            );
        }
        let _ = write!(
            l,
            r#"],"terminal_reason":"completed","fast_mode_state":"off","uuid":"{uuid}"}}"#
        );
        self.flush_line()
    }

    // ---- Codex ----------------------------------------------------------

    fn codex_session(&mut self) -> io::Result<()> {
        let thread = format!(
            "01a20179-{}-7{}-{}-{}",
            self.hex(4),
            self.hex(3),
            self.hex(4),
            self.hex(12)
        );
        let _ = write!(
            self.line,
            r#"{{"type":"thread.started","thread_id":"{thread}"}}"#
        );
        self.flush_line()?;
        self.line.push_str(r#"{"type":"turn.started"}"#);
        self.flush_line()?;
        let items = self.rng.range(4, 60);
        let mut n = 0usize;
        let plan = self.rng.chance(30);
        let mut todo: Vec<(String, bool)> = Vec::new();
        if plan {
            for _ in 0..self.rng.range(2, 6) {
                todo.push((self.sentence(), false));
            }
            self.codex_todo_at("item.started", n, &todo)?;
            n += 1;
        }
        let plan_id = 0;
        for _ in 0..items {
            let id = n;
            n += 1;
            match self.rng.below(100) {
                0..=14 => {
                    let t = format!("**{}**\n\n{}", self.words(3), self.prose_between(40, 800));
                    self.codex_item(
                        "item.completed",
                        &format!(
                            r#"{{"id":"item_{id}","type":"reasoning","text":{}}}"#,
                            qs(&t)
                        ),
                    )?;
                }
                15..=29 => {
                    let t = self.prose_between(30, 1500);
                    self.codex_item(
                        "item.completed",
                        &format!(
                            r#"{{"id":"item_{id}","type":"agent_message","text":{}}}"#,
                            qs(&t)
                        ),
                    )?;
                }
                30..=69 => {
                    let inner = self.rng.pick(&[
                        "ls -la",
                        "cargo test --release",
                        "rg -n \"TODO\" src",
                        "cat src/main.rs",
                        "git diff",
                        "python3 -m pytest -q",
                        "printf 'Grüße\\t✓\\n'",
                    ]);
                    let cmd = qs(&format!("/bin/bash -lc '{inner}'"));
                    self.codex_item(
                        "item.started",
                        &format!(r#"{{"id":"item_{id}","type":"command_execution","command":{cmd},"aggregated_output":"","exit_code":null,"status":"in_progress"}}"#),
                    )?;
                    let size = self.result_size();
                    let out = self.log(size);
                    let fail = self.rng.chance(12);
                    let (code, status) = if fail {
                        (self.rng.range(1, 2), "failed")
                    } else {
                        (0, "completed")
                    };
                    self.codex_item(
                        "item.completed",
                        &format!(r#"{{"id":"item_{id}","type":"command_execution","command":{cmd},"aggregated_output":{},"exit_code":{code},"status":"{status}"}}"#, qs(&out)),
                    )?;
                    self.codex_tool(fail);
                }
                70..=81 => {
                    let mut changes = String::new();
                    for i in 0..self.rng.range(1, 4) {
                        if i > 0 {
                            changes.push(',');
                        }
                        let kind = self.rng.pick(&["add", "update", "update", "delete"]);
                        let _ = write!(
                            changes,
                            r#"{{"path":{},"kind":"{kind}"}}"#,
                            qs(&self.path())
                        );
                    }
                    let fail = self.rng.chance(5);
                    self.codex_item("item.started", &format!(r#"{{"id":"item_{id}","type":"file_change","changes":[{changes}],"status":"in_progress"}}"#))?;
                    let status = if fail { "failed" } else { "completed" };
                    self.codex_item("item.completed", &format!(r#"{{"id":"item_{id}","type":"file_change","changes":[{changes}],"status":"{status}"}}"#))?;
                    self.codex_tool(fail);
                }
                82..=89 => {
                    let args = format!(r#"{{"text":{}}}"#, qs(&self.words(5)));
                    self.codex_item("item.started", &format!(r#"{{"id":"item_{id}","type":"mcp_tool_call","server":"mockecho","tool":"echo","arguments":{args},"result":null,"error":null,"status":"in_progress"}}"#))?;
                    let fail = self.rng.chance(8);
                    let body = self.prose_between(20, 4000);
                    let status = if fail { "failed" } else { "completed" };
                    self.codex_item("item.completed", &format!(r#"{{"id":"item_{id}","type":"mcp_tool_call","server":"mockecho","tool":"echo","arguments":{args},"result":{{"content":[{{"type":"text","text":{}}}],"structured_content":null}},"error":null,"status":"{status}"}}"#, qs(&body)))?;
                    self.codex_tool(fail);
                }
                90..=95 => {
                    let ws = self.hex(4);
                    let query = qs(&self.words(4));
                    self.codex_item("item.started", &format!(r#"{{"id":"item_{id}","type":"web_search","id":"ws_{ws}","query":"","action":{{"type":"other"}}}}"#))?;
                    self.codex_item("item.completed", &format!(r#"{{"id":"item_{id}","type":"web_search","id":"ws_{ws}","query":{query},"action":{{"type":"search","query":{query}}}}}"#))?;
                    self.codex_tool(false);
                }
                _ if plan => {
                    let k = self.rng.below(todo.len());
                    todo[k].1 = true;
                    self.codex_todo_at("item.updated", plan_id, &todo)?;
                    n -= 1;
                }
                _ => {
                    let t = self.sentence();
                    self.codex_item(
                        "item.completed",
                        &format!(
                            r#"{{"id":"item_{id}","type":"agent_message","text":{}}}"#,
                            qs(&t)
                        ),
                    )?;
                }
            }
        }
        let t = self.prose_between(60, 1500);
        self.codex_item(
            "item.completed",
            &format!(
                r#"{{"id":"item_{n}","type":"agent_message","text":{}}}"#,
                qs(&t)
            ),
        )?;
        if plan {
            self.codex_todo_at("item.completed", plan_id, &todo)?;
            self.codex_tool(false);
        }
        let input = self.rng.range(2_000, 400_000);
        let cached = input * 4 / 5;
        let out = self.rng.range(100, 20_000);
        let _ = write!(
            self.line,
            r#"{{"type":"turn.completed","usage":{{"input_tokens":{input},"cached_input_tokens":{cached},"cache_write_input_tokens":0,"output_tokens":{out},"reasoning_output_tokens":{}}}}}"#,
            out / 5
        );
        self.flush_line()
    }

    fn codex_tool(&mut self, failed: bool) {
        self.counts.tool_calls += 1;
        self.counts.tool_results += 1;
        if failed {
            self.counts.tool_errors += 1;
        }
    }

    fn codex_item(&mut self, ty: &str, item: &str) -> io::Result<()> {
        let _ = write!(self.line, r#"{{"type":"{ty}","item":{item}}}"#);
        self.flush_line()
    }

    fn codex_todo_at(&mut self, ty: &str, id: usize, todo: &[(String, bool)]) -> io::Result<()> {
        let items: Vec<String> = todo
            .iter()
            .map(|(t, done)| format!(r#"{{"text":{},"completed":{done}}}"#, qs(t)))
            .collect();
        let item = format!(
            r#"{{"id":"item_{id}","type":"todo_list","items":[{}]}}"#,
            items.join(",")
        );
        self.codex_item(ty, &item)
    }

    // ---- Gemini ---------------------------------------------------------

    fn gemini_session(&mut self) -> io::Result<()> {
        let sid = self.uuid();
        let ts = self.timestamp();
        let _ = write!(
            self.line,
            r#"{{"type":"init","timestamp":"{ts}","session_id":"{sid}","model":"gemini-2.5-pro"}}"#
        );
        self.flush_line()?;
        let ts = self.timestamp();
        let prompt = self.sentence();
        let _ = write!(
            self.line,
            r#"{{"type":"message","timestamp":"{ts}","role":"user","content":{}}}"#,
            qs(&prompt)
        );
        self.flush_line()?;
        let steps = self.rng.range(2, 40);
        let mut calls = 0;
        for _ in 0..steps {
            if self.rng.chance(60) {
                let t = self.prose_between(20, 1200);
                self.gemini_text(&t)?;
            }
            for _ in 0..self.rng.range(0, 3) {
                self.gemini_tool()?;
                calls += 1;
            }
        }
        let t = self.prose_between(40, 1200);
        self.gemini_text(&t)?;
        let ts = self.timestamp();
        let (input, out) = (self.rng.range(1_000, 300_000), self.rng.range(30, 9_000));
        let dur = self.rng.range(100, 600_000);
        let _ = write!(
            self.line,
            r#"{{"type":"result","timestamp":"{ts}","status":"success","stats":{{"total_tokens":{},"input_tokens":{input},"output_tokens":{out},"cached":0,"input":{input},"duration_ms":{dur},"tool_calls":{calls},"models":{{"gemini-2.5-pro":{{"total_tokens":{},"input_tokens":{input},"output_tokens":{out},"cached":0,"input":{input}}}}}}}}}"#,
            input + out,
            input + out
        );
        self.flush_line()
    }

    /// Answer text as the CLI streams it: fragments marked `delta`.
    fn gemini_text(&mut self, text: &str) -> io::Result<()> {
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let mut i = 0;
        while i < chars.len() {
            let n = self.rng.range(10, 120);
            let end = chars.get(i + n).map_or(text.len(), |c| c.0);
            let ts = self.timestamp();
            let _ = write!(
                self.line,
                r#"{{"type":"message","timestamp":"{ts}","role":"assistant","content":{},"delta":true}}"#,
                qs(&text[chars[i].0..end])
            );
            self.flush_line()?;
            i += n;
        }
        Ok(())
    }

    fn gemini_tool(&mut self) -> io::Result<()> {
        let (name, params) = match self.rng.below(5) {
            0 | 1 => {
                let c = qs(self
                    .rng
                    .pick(&["npm test", "ls -la", "git status", "echo \"✓ done\""]));
                (
                    "run_shell_command",
                    format!(r#"{{"command":{c},"description":{}}}"#, qs(&self.words(4))),
                )
            }
            2 => (
                "read_file",
                format!(r#"{{"file_path":{}}}"#, qs(&self.path())),
            ),
            3 => (
                "replace",
                format!(
                    r#"{{"file_path":{},"instruction":{},"old_string":{},"new_string":{}}}"#,
                    qs(&self.path()),
                    qs(&self.words(3)),
                    qs(self.rng.pick(CODE)),
                    qs(self.rng.pick(CODE))
                ),
            ),
            _ => (
                "grep_search",
                format!(
                    r#"{{"pattern":{}}}"#,
                    qs(self.rng.pick(&["TODO", "fn main", "import"]))
                ),
            ),
        };
        let ms = 1_795_319_700_000 + self.clock_ms;
        let id = format!("{name}__{name}_{ms}_0");
        let ts = self.timestamp();
        let _ = write!(
            self.line,
            r#"{{"type":"tool_use","timestamp":"{ts}","tool_name":"{name}","tool_id":"{id}","parameters":{params}}}"#
        );
        self.flush_line()?;
        let ts = self.timestamp();
        let fail = self.rng.chance(8);
        if fail {
            let p = self.path();
            let _ = write!(
                self.line,
                r#"{{"type":"tool_result","timestamp":"{ts}","tool_id":"{id}","status":"error","output":"File not found.","error":{{"type":"file_not_found","message":{}}}}}"#,
                qs(&format!("File not found: {p}"))
            );
        } else {
            let size = self.result_size();
            let out = if name == "read_file" {
                self.code(size)
            } else {
                self.log(size)
            };
            let _ = write!(
                self.line,
                r#"{{"type":"tool_result","timestamp":"{ts}","tool_id":"{id}","status":"success","output":{}}}"#,
                qs(&out)
            );
        }
        self.flush_line()?;
        self.codex_tool(fail);
        Ok(())
    }
}
