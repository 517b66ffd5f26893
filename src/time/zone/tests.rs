use std::ffi::OsStr;

use super::*;

fn at(s: &str) -> Timestamp {
    Timestamp::parse(s).unwrap()
}

fn wall(s: &str) -> Civil {
    Civil::parse(s.as_bytes()).unwrap().0
}

#[test]
fn posix_zones_without_a_file() {
    let tz = |s: &str| Zone::from_tz(Some(OsStr::new(s))).unwrap();
    assert_eq!(tz("UTC"), Zone::utc());
    assert_eq!(tz("UTC0"), Zone::utc());
    assert_eq!(tz(":GMT"), Zone::utc());
    // POSIX counts west: CET-1 is one hour ahead.
    assert_eq!(tz("CET-1"), Zone::fixed(3600));
    assert_eq!(tz("EST5EDT,M3.2.0,M11.1.0"), Zone::fixed(-5 * 3600));
    assert_eq!(tz("<+0530>-5:30"), Zone::fixed(5 * 3600 + 1800));
    // Nowhere: UTC, never an error.
    assert_eq!(tz("No/Such_Zone"), Zone::utc());
    assert_eq!(tz("../../etc/passwd"), Zone::utc());
}

#[test]
fn a_fixed_zone_reads_wall_clock_times() {
    let paris_winter = Zone::fixed(3600);
    let t = paris_winter.resolve(wall("2026-11-24 18:00")).unwrap();
    assert_eq!(t, at("2026-11-24T17:00:00Z"));
}

/// A `TZif` version 2 file: one zone at +1 that moves to +2 at `change`.
fn tzif(change: i64) -> Vec<u8> {
    let header = |time: u32, types: u32| {
        let mut h = b"TZif2".to_vec();
        h.extend([0; 15]);
        for n in [0, 0, 0, time, types, 8] {
            h.extend(u32::to_be_bytes(n));
        }
        h
    };
    let types = |b: &mut Vec<u8>| {
        for (off, dst, idx) in [(3600i32, 0u8, 0u8), (7200, 1, 4)] {
            b.extend(off.to_be_bytes());
            b.extend([dst, idx]);
        }
        b.extend(b"CET\0CEST");
    };
    let mut b = header(1, 2);
    b.extend(i32::try_from(change).unwrap().to_be_bytes());
    b.push(1);
    types(&mut b);
    b.extend(header(1, 2));
    b.extend(change.to_be_bytes());
    b.push(1);
    types(&mut b);
    b.extend(b"\nCET-1CEST\n");
    b
}

#[test]
fn zone_files_give_the_offset_of_each_date() {
    let change = at("2026-03-29T01:00:00Z").millis() / 1000;
    let path = std::env::temp_dir().join(format!("streamview-tzif-{}", std::process::id()));
    std::fs::write(&path, tzif(change)).unwrap();
    let zone = Zone::from_tz(Some(path.as_os_str())).unwrap();
    assert_eq!(Zone::named(&path.to_string_lossy()), Ok(zone.clone()));
    std::fs::remove_file(&path).unwrap();
    assert_eq!(zone.offset_at(at("2026-01-01T00:00:00Z")), 3600);
    assert_eq!(zone.offset_at(at("2026-07-01T00:00:00Z")), 7200);
    assert_eq!(
        zone.resolve(wall("2026-01-10 09:00")),
        Some(at("2026-01-10T08:00:00Z"))
    );
    assert_eq!(
        zone.resolve(wall("2026-07-10 09:00")),
        Some(at("2026-07-10T07:00:00Z"))
    );
    // Not a zone file: UTC.
    assert_eq!(
        Zone::from_tz(Some("/nonexistent".as_ref())),
        Ok(Zone::utc())
    );
    assert_eq!(tzif_of(b"TZif2 short"), None);
}

fn tzif_of(b: &[u8]) -> Option<Zone> {
    super::tzif(b)
}

#[test]
fn a_zone_file_that_is_a_device_or_too_large_is_refused_unread() {
    // `/dev/zero` would be read until memory ran out.
    let why = Zone::from_tz(Some("/dev/zero".as_ref())).unwrap_err();
    assert!(
        why.starts_with("the time zone file /dev/zero (of TZ) is not a regular file"),
        "{why}"
    );
    let why = Zone::named("/dev/zero").unwrap_err();
    assert!(
        why.starts_with("the time zone file /dev/zero is not a regular file"),
        "{why}"
    );
    let path = std::env::temp_dir().join(format!("streamview-tzbig-{}", std::process::id()));
    let big = std::fs::File::create(&path).unwrap();
    big.set_len(MAX_BYTES + 1).unwrap();
    let why = Zone::named(&path.to_string_lossy()).unwrap_err();
    let tz = Zone::from_tz(Some(path.as_os_str()));
    std::fs::remove_file(&path).unwrap();
    assert!(
        why.contains("is larger than 1 MiB: give a zone file"),
        "{why}"
    );
    assert!(tz.unwrap_err().contains("is larger than 1 MiB: set TZ"));
    // A directory is no zone, as before: UTC.
    assert_eq!(Zone::from_tz(Some("/tmp".as_ref())), Ok(Zone::utc()));
}
