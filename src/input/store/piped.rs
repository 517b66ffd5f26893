//! A store's session read as it is written: its reader writes the lines on
//! a thread of their own, a few chunks ahead of whoever reads them, so that
//! a session of a million rows costs no more memory than one of ten.
//!
//! What the reader says before its first chunk is full (a session not in
//! the store, a file that is no database) is said when the session is
//! opened, as a read of the whole would; what it says later is the error of
//! the read that reaches it. A reader that stops reading ends the writer's
//! work at its next chunk. Where no thread can be had, the lines are
//! written whole first, as they were before.

use std::io::{self, Read, Write};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// The bytes a chunk holds before it is handed on.
const CHUNK: usize = 64 << 10;

/// Chunks written ahead of the reader, at most.
const AHEAD: usize = 2;

/// What `lines` writes (a store reader's lines of one session), read as it
/// is written.
///
/// # Errors
/// What `lines` says before its first chunk (see the module docs).
pub fn open<F>(lines: F) -> io::Result<Box<dyn Read + Send>>
where
    F: Fn(&mut dyn Write) -> io::Result<()> + Send + Sync + 'static,
{
    let (tx, rx) = sync_channel(AHEAD);
    let lines = Arc::new(lines);
    let on_thread = Arc::clone(&lines);
    let spawned = std::thread::Builder::new()
        .name("store".into())
        .spawn(move || write(&*on_thread, tx));
    if spawned.is_err() {
        let mut whole = Vec::new();
        lines(&mut whole)?;
        return Ok(Box::new(io::Cursor::new(whole)));
    }
    let first = match rx.recv() {
        Ok(Ok(chunk)) => chunk,
        Ok(Err(e)) => return Err(e),
        // Written whole within nothing: an empty session.
        Err(_) => Vec::new(),
    };
    Ok(Box::new(Piped {
        rx,
        chunk: first,
        at: 0,
    }))
}

/// The writer's side: the reader's lines in chunks, then its error if it
/// ends with one (alone when no chunk was handed on: the open's error).
fn write(lines: &dyn Fn(&mut dyn Write) -> io::Result<()>, tx: SyncSender<io::Result<Vec<u8>>>) {
    let mut out = Chunks {
        tx,
        buf: Vec::with_capacity(CHUNK),
        handed: false,
    };
    let done = lines(&mut out);
    let done = done.and_then(|()| out.hand_on());
    if let Err(e) = done {
        if out.handed {
            let _ = out.hand_on();
        }
        // The reader may be gone: nobody to tell.
        let _ = out.tx.send(Err(e));
    }
}

/// Bytes gathered into chunks, each handed on when full.
struct Chunks {
    tx: SyncSender<io::Result<Vec<u8>>>,
    buf: Vec<u8>,
    /// A chunk was handed on.
    handed: bool,
}

impl Chunks {
    /// Hand on what is gathered (nothing when it is empty).
    fn hand_on(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let full = std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK));
        self.handed = true;
        self.tx
            .send(Ok(full))
            .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))
    }
}

impl Write for Chunks {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= CHUNK {
            self.hand_on()?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The reader's side.
struct Piped {
    rx: Receiver<io::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    at: usize,
}

impl Read for Piped {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.chunk.len() {
            match self.rx.recv() {
                Ok(Ok(chunk)) => (self.chunk, self.at) = (chunk, 0),
                Ok(Err(e)) => return Err(e),
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.chunk.len() - self.at);
        buf[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests;
