//! Compressed test data, as the `gzip` and `zstd` commands write it. Shared
//! by the integration tests (`common::compress`) and the unit tests of
//! `src/input/compressed` (included by path).

use std::io::Write;

/// `data` gzip-compressed.
pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// `data` zstd-compressed with a checksum, as the `zstd` command writes it
/// (without one, corruption inside a frame cannot be told from data).
pub fn zstd(data: &[u8]) -> Vec<u8> {
    let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    enc.include_checksum(true).unwrap();
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}
