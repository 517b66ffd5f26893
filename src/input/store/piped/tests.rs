use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;

/// `n` lines of 100 bytes, numbered.
fn write_lines(out: &mut dyn Write, n: usize) -> io::Result<()> {
    for i in 0..n {
        writeln!(out, "{i:099}")?;
    }
    Ok(())
}

#[test]
fn what_is_written_is_read_whole_in_order() {
    let mut rdr = open(|out| write_lines(out, 10_000)).unwrap();
    let mut text = String::new();
    rdr.read_to_string(&mut text).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 10_000);
    assert!(lines.iter().enumerate().all(|(i, l)| l.parse() == Ok(i)));
    // Nothing written: nothing read.
    let mut none = Vec::new();
    open(|_| Ok(())).unwrap().read_to_end(&mut none).unwrap();
    assert!(none.is_empty());
}

#[test]
fn an_error_before_the_first_chunk_is_the_opens_and_later_the_reads() {
    let early = open(|out| {
        write_lines(out, 3)?;
        Err(io::Error::other("no such session"))
    });
    assert_eq!(early.err().unwrap().to_string(), "no such session");
    let mut late = open(|out| {
        write_lines(out, 2_000)?;
        Err(io::Error::other("the store went away"))
    })
    .unwrap();
    let mut text = Vec::new();
    let e = late.read_to_end(&mut text).unwrap_err();
    assert_eq!(e.to_string(), "the store went away");
    assert_eq!(text.len(), 2_000 * 100, "every line before the error");
}

#[test]
fn a_reader_that_stops_stops_the_writer() {
    static WRITTEN: AtomicUsize = AtomicUsize::new(0);
    let mut rdr = open(|out| {
        for _ in 0..1_000_000 {
            write_lines(out, 1)?;
            WRITTEN.fetch_add(1, Ordering::SeqCst);
        }
        Ok(())
    })
    .unwrap();
    let mut first = [0; 100];
    rdr.read_exact(&mut first).unwrap();
    drop(rdr);
    std::thread::sleep(std::time::Duration::from_millis(200));
    let written = WRITTEN.load(Ordering::SeqCst);
    // A few chunks ahead at most, not the million lines.
    assert!(written < 5 * CHUNK / 100, "{written}");
}
