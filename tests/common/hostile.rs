//! A Claude Code stream with hostile content in every field a report shows
//! (model, directory, session id, prompt, text, thinking, tool name, key
//! argument, output, error, denial, result): markup that would run script,
//! close our blocks or fences, or load something, and terminal escapes.
//! Shared by the Markdown tests (tests/adversarial.rs) and the browser
//! tests (tests/browser.rs).

use serde_json::json;

/// What an injected script would do if it ran: the browser tests look for
/// this in the rendered page and must not find it.
pub const PWNED: &str = "PWNED";

/// The payload: each piece tries another way out.
pub fn payload(field: &str) -> String {
    format!(
        "{field} </details></summary></code></pre></style></script>\n\
         <script>document.title='{PWNED}';document.body.setAttribute('data-pwned','{field}')</script>\n\
         <img src=x onerror=\"document.body.setAttribute('data-pwned','{field}')\">\n\
         <style>body{{display:none}}</style>\n\
         [click](javascript:document.body.setAttribute('data-pwned','{field}'))\n\
         <a href=\"javascript:alert(1)\">link</a> <iframe src=\"https://example.com/\"></iframe>\n\
         \x1b]0;title\x07\x1b[31mred\x1b[0m | table | cell |\n\
         <!-- open comment\n\
         ```\n````\n~~~ the fences last: the markup above is not code"
    )
}

/// The stream: a session with one of everything, each carrying
/// [`payload`].
pub fn session() -> Vec<u8> {
    let sid = "s1";
    let lines = vec![
        json!({"type":"system","subtype":"init","session_id":sid,"model":payload("model"),"cwd":payload("cwd"),"tools":["Bash"],"claude_code_version":"9.9.9"}),
        json!({"type":"user","session_id":sid,"message":{"role":"user","content":[{"type":"text","text":payload("prompt")}]}}),
        json!({"type":"assistant","session_id":sid,"message":{"id":"m1","model":"m","content":[{"type":"thinking","thinking":payload("thinking")}]}}),
        json!({"type":"assistant","session_id":sid,"message":{"id":"m2","model":"m","content":[{"type":"text","text":payload("text")}]}}),
        json!({"type":"assistant","session_id":sid,"message":{"id":"m3","model":"m","content":[{"type":"tool_use","id":"t1","name":payload("toolname"),"input":{"command":payload("command")}}]}}),
        json!({"type":"user","session_id":sid,"message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":payload("output")}]}}),
        json!({"type":"assistant","session_id":sid,"message":{"id":"m4","model":"m","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":payload("command2")}}]}}),
        json!({"type":"user","session_id":sid,"message":{"content":[{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":payload("error")}]}}),
        json!({"type":"assistant","session_id":sid,"message":{"id":"m5","model":"m","content":[{"type":"tool_use","id":"t3","name":"Write","input":{"file_path":payload("path"),"content":"x"}}]}}),
        json!({"type":"user","session_id":sid,"message":{"content":[{"type":"tool_result","tool_use_id":"t3","is_error":true,"content":payload("denied")}]}}),
        json!({"type":"assistant","session_id":sid,"message":{"id":"m6","model":"m","content":[{"type":"tool_use","id":"t4","name":"Edit","input":{"file_path":"/w/a.txt","old_string":payload("old"),"new_string":payload("new")}}]}}),
        json!({"type":"user","session_id":sid,"message":{"content":[{"type":"tool_result","tool_use_id":"t4","content":"edited"}]}}),
        json!({"type":"result","subtype":"success","is_error":false,"session_id":sid,"num_turns":3,"result":payload("result"),
               "permission_denials":[{"tool_name":payload("denialtool"),"tool_use_id":"t9","tool_input":{"command":payload("denialinput")}}]}),
    ];
    let mut out = Vec::new();
    for l in lines {
        out.extend_from_slice(l.to_string().as_bytes());
        out.push(b'\n');
    }
    out
}
