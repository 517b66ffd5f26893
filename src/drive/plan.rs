//! What a run reads, in which order: the inputs named, made into steps
//! once from [`Options`].

use std::path::Path;

use crate::cli::Options;
use crate::decode::store_readers;
use crate::input::{Source, library};

use super::sinks;

/// One thing a run reads.
#[derive(Debug, PartialEq)]
pub(crate) enum Step<'a> {
    /// A file, a pipe or standard input, read to its end.
    Read(&'a Source),
    /// A file followed as it grows (`-f`); standard input cannot be.
    Follow(&'a Source),
    /// The sessions below a directory or in a `SQLite` store (a library),
    /// in the order they started
    /// ([`crate::input::library::sessions_below`]).
    Library(&'a Path),
    /// The most recent sessions below these directories (`--latest[=N]`),
    /// read or followed with their sub-agents' files.
    Latest {
        /// The directories searched.
        dirs: Vec<&'a Path>,
        /// How many: the N that changed last.
        count: usize,
        /// `-f`: follow it (one; several are each a run's [`Step::Session`]).
        follow: bool,
    },
    /// One session the run was given (`--latest N -f`: one of the N, in a
    /// run of its own), followed with its sub-agents' files.
    Session(&'a library::Session),
}

/// A run's steps, and how many threads a library's files are read on.
#[derive(Debug, PartialEq)]
pub(crate) struct Plan<'a> {
    /// In the order they are taken.
    pub steps: Vec<Step<'a>>,
    /// Threads for a library's files (`-j`): 1 when the output would not
    /// be the same as on one thread ([`sinks::parallel`]).
    pub threads: usize,
    /// The live status line is drawn (`opts.status`, and no library is
    /// read: a library's sessions flash by; its progress line says more).
    pub status: bool,
    /// A library read shows its progress line (`opts.progress`, and a
    /// library is read).
    pub progress: bool,
}

impl<'a> Plan<'a> {
    /// The plan of the run `opts` describe.
    pub(crate) fn of(opts: &'a Options) -> Plan<'a> {
        let steps = Self::steps(opts);
        let library = steps.iter().any(|s| matches!(s, Step::Library(_)));
        let status = opts.status && !library;
        Plan {
            steps,
            threads: if sinks::parallel(opts, status) {
                opts.jobs
            } else {
                1
            },
            status,
            progress: opts.progress && library,
        }
    }

    /// The steps of the run `opts` describe.
    fn steps(opts: &'a Options) -> Vec<Step<'a>> {
        if let Some(s) = &opts.session {
            return vec![Step::Session(s)];
        }
        if let Some(count) = opts.latest {
            let dirs = opts.sources.iter().filter_map(Source::path).collect();
            let follow = opts.follow;
            return vec![Step::Latest {
                dirs,
                count,
                follow,
            }];
        }
        let step = |src: &'a Source| match src {
            _ if opts.follow => Step::Follow(src),
            Source::Path(dir) if library::is_library(dir, store_readers()) => Step::Library(dir),
            _ => Step::Read(src),
        };
        opts.sources.iter().map(step).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Env, parse_args, resolve};

    fn options(args: &[&str]) -> Options {
        let env = Env::default();
        let args: Vec<std::ffi::OsString> = (args.iter().chain(&["--no-config"]))
            .map(Into::into)
            .collect();
        let cli = parse_args(&args, &env).map_err(|_| "usage").unwrap();
        resolve(&cli, &env).unwrap()
    }

    #[test]
    fn a_directory_is_a_library_a_file_is_read_and_f_follows() {
        let dir = env!("CARGO_MANIFEST_DIR");
        let opts = options(&["streamview", dir, "Cargo.toml", "-"]);
        let plan = Plan::of(&opts);
        let [Step::Library(d), Step::Read(f), Step::Read(Source::Stdin)] = plan.steps.as_slice()
        else {
            panic!("{plan:?}");
        };
        assert_eq!(*d, Path::new(dir));
        assert_eq!(**f, Source::Path("Cargo.toml".into()));

        let opts = options(&["streamview", "-f", dir]);
        assert!(matches!(
            Plan::of(&opts).steps.as_slice(),
            [Step::Follow(_)]
        ));
    }

    #[test]
    fn latest_is_one_step_over_every_directory() {
        let opts = options(&["streamview", "--latest", "a", "b"]);
        let plan = Plan::of(&opts);
        assert_eq!(
            plan.steps,
            [Step::Latest {
                dirs: vec![Path::new("a"), Path::new("b")],
                count: 1,
                follow: false
            }]
        );
    }

    #[test]
    fn threads_only_where_the_output_is_the_same_as_on_one() {
        let dir = env!("CARGO_MANIFEST_DIR");
        let jsonl = options(&["streamview", "-j4", "--format", "jsonl", dir]);
        assert_eq!(Plan::of(&jsonl).threads, 4);
        let html = options(&["streamview", "-j4", "--format", "html", dir]);
        assert_eq!(Plan::of(&html).threads, 1);
    }
}
