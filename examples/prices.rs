//! Writes the bundled price table from `LiteLLM`'s price database.
//!
//! ```sh
//! pip download litellm --no-deps -d /tmp/litellm
//! unzip -o -d /tmp/litellm /tmp/litellm/litellm-*.whl 'litellm/model_prices_and_context_window_backup.json'
//! cargo run --example prices -- /tmp/litellm/litellm/model_prices_and_context_window_backup.json \
//!     "LiteLLM 1.110.2" 2026-11-26 > src/session/prices.json
//! ```
//!
//! Arguments: `LiteLLM`'s table (a path, or `-` for standard input), where it
//! comes from, the date it was read. The test `bundled_table_is_generated`
//! (`src/session/price/tests.rs`) checks `prices.json` is what this makes
//! of the copy in `tests/fixtures/prices/`.

use std::io::{Read, Write};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, source, as_of] = args.as_slice() else {
        eprintln!("usage: prices LITELLM_JSON SOURCE AS_OF > src/session/prices.json");
        std::process::exit(2);
    };
    let mut text = String::new();
    let read = if path == "-" {
        std::io::stdin().read_to_string(&mut text).map(|_| ())
    } else {
        std::fs::read_to_string(path).map(|t| text = t)
    };
    if let Err(e) = read {
        eprintln!("prices: cannot read {path}: {e}");
        std::process::exit(1);
    }
    match streamview::session::price::bundle(&text, as_of, source) {
        Ok(table) => {
            let _ = std::io::stdout().write_all(table.as_bytes());
        }
        Err(e) => {
            eprintln!("prices: {path}: {e}");
            std::process::exit(1);
        }
    }
}
