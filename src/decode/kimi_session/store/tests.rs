use super::*;

#[test]
fn md5_is_the_digest_kimi_names_folders_by() {
    // RFC 1321's test suite.
    assert_eq!(hex_md5(b""), "d41d8cd98f00b204e9800998ecf8427e");
    assert_eq!(hex_md5(b"abc"), "900150983cd24fb0d6963f7d28e17f72");
}
