//! The files streamview opens besides standard input: only regular files
//! are read whole, and the small ones options and the environment name
//! (the configuration, a zone file, a price table) with a size bound.
//!
//! A device never ends (`--tz /dev/zero` read 7 GB in 5 s), a FIFO without
//! a writer blocks its `open` for ever, a socket cannot be opened at all:
//! [`open_regular`] opens without waiting (`O_NONBLOCK`, which a regular
//! file ignores) and looks at what it opened before reading a byte. The errors are `io::Error`s
//! whose text says what is wrong in a few words, for the caller's one line.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// Open `path` if it is a regular file (a symbolic link to one included).
///
/// # Errors
/// It cannot be opened, or it is not a regular file: a directory
/// (`IsADirectory`), a device, a FIFO or a socket (`InvalidInput`).
pub fn open_regular(path: &Path) -> io::Result<File> {
    open_regular_sized(path).map(|(f, _)| f)
}

/// As [`open_regular`], with the file's length from the same look at it
/// (a library's discovery wants both of each file: one `fstat`, not two).
///
/// # Errors
/// As [`open_regular`].
pub fn open_regular_sized(path: &Path) -> io::Result<(File, u64)> {
    let not_regular = |m: &std::fs::Metadata| -> io::Result<()> {
        if m.is_file() {
            Ok(())
        } else if m.is_dir() {
            Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            ))
        } else {
            Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file (a device, a FIFO or a socket)",
            ))
        }
    };
    // One lookup of the path, not a `stat` of it first (a library's
    // files are opened by the thousand: issue 27).
    #[cfg(unix)]
    let f = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)?
    };
    #[cfg(not(unix))]
    let f = {
        not_regular(&std::fs::metadata(path)?)?;
        File::open(path)?
    };
    let meta = f.metadata()?;
    not_regular(&meta)?;
    Ok((f, meta.len()))
}

/// The bytes of the regular file at `path`, if it holds at most `max`.
///
/// # Errors
/// As [`open_regular`], or it is larger than `max` bytes (`FileTooLarge`:
/// `larger than 1 MiB`), or reading it fails.
pub fn read_small(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let f = open_regular(path)?;
    let mut bytes = Vec::new();
    // `take`: the file may grow while it is read.
    f.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        let why = format!("larger than {}", size(max));
        return Err(io::Error::new(io::ErrorKind::FileTooLarge, why));
    }
    Ok(bytes)
}

/// An I/O error in the words of a one-line message: `no such file`,
/// `No space left on device` (the OS text without its ` (os error 28)`).
#[must_use]
pub fn describe_io(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => {
            let text = e.to_string();
            match (text.rfind(" (os error "), text.ends_with(')')) {
                (Some(at), true) => text[..at].to_string(),
                _ => text,
            }
        }
    }
}

/// `1 MiB`, `64 KiB`, `100 bytes`.
fn size(n: u64) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_of_at_most_the_bound_are_read() {
        let dir = std::env::temp_dir().join(format!("streamview-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let small = dir.join("small");
        std::fs::write(&small, b"0123456789").unwrap();
        assert_eq!(read_small(&small, 10).unwrap(), b"0123456789");
        let big = read_small(&small, 9).unwrap_err();
        assert_eq!(big.to_string(), "larger than 9 bytes");
        assert_eq!(
            read_small(&dir, 10).unwrap_err().to_string(),
            "is a directory"
        );
        #[cfg(unix)]
        {
            let zero = read_small(Path::new("/dev/zero"), 1 << 20).unwrap_err();
            assert!(zero.to_string().starts_with("not a regular file"), "{zero}");
        }
        let missing = read_small(&dir.join("none"), 10).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sizes_are_said_in_round_units() {
        assert_eq!(size(1 << 20), "1 MiB");
        assert_eq!(size(64 << 20), "64 MiB");
        assert_eq!(size(64 << 10), "64 KiB");
        assert_eq!(size(1000), "1000 bytes");
    }
}
