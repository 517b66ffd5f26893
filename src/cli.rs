//! The command line: what the user typed ([`Cli`]) and what was decided from
//! it ([`Options`]). The only module that reads the environment or asks
//! whether a stream is a terminal.

mod args;
mod command;
pub mod config;
mod env;
mod help;
pub mod homes;
mod live;
mod man;
mod options;
mod pager;
mod resolve;

pub use args::{Cli, ColorWhen, ErrorsTo, Format, Paging, ProducerArg};
pub use command::{Command, Refusal, command};
pub use config::{ArgsError, parse_args};
pub use env::Env;
pub use help::{ENVIRONMENT, EXAMPLES, Example, Generate, generate, long_help_tail};
pub use options::Options;
pub use pager::Pager;
pub use resolve::{load_prices, resolve};

#[cfg(test)]
mod tests;
