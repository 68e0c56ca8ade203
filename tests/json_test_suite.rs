//! RFC 8259 conformance over JSONTestSuite's `test_parsing` files (../shared/ext).
//!
//! * `y_`: accepted as JSON (Ok, or only a -32600 policy rejection: a duplicate depth-1 key).
//! * `n_`: rejected with JSON-RPC code -32700.
//! * `i_`: decided per file in [`I_TABLE`], which must also equal serde_json's verdict.
//!
//! Every file is also run through the differential oracle (both scan backends, serde_json,
//! simd-json).

use std::path::PathBuf;

use mcpwire::oracle::envelope::{check_frame, serde_verdict};
use mcpwire::{ErrorKind, parse};

fn suite_dir() -> Option<PathBuf> {
    let base = std::env::var("MCPWIRE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared")));
    let dir = base.join("ext/JSONTestSuite/test_parsing");
    dir.is_dir().then_some(dir)
}

/// Implementation-defined cases: (file, accepted). Accepted exactly where serde_json 1.0.154
/// accepts (underflow to 0.0; integers beyond 64 bits read as floats); everything else is
/// rejected: f64 overflow, lone/broken surrogates, invalid UTF-8, UTF-16, BOM, depth.
const I_TABLE: &[(&str, bool)] = &[
    ("i_number_double_huge_neg_exp.json", true),
    ("i_number_huge_exp.json", false),
    ("i_number_neg_int_huge_exp.json", false),
    ("i_number_pos_double_huge_exp.json", false),
    ("i_number_real_neg_overflow.json", false),
    ("i_number_real_pos_overflow.json", false),
    ("i_number_real_underflow.json", true),
    ("i_number_too_big_neg_int.json", true),
    ("i_number_too_big_pos_int.json", true),
    ("i_number_very_big_negative_int.json", true),
    ("i_object_key_lone_2nd_surrogate.json", false),
    ("i_string_1st_surrogate_but_2nd_missing.json", false),
    ("i_string_1st_valid_surrogate_2nd_invalid.json", false),
    ("i_string_UTF-16LE_with_BOM.json", false),
    ("i_string_UTF-8_invalid_sequence.json", false),
    ("i_string_UTF8_surrogate_U+D800.json", false),
    ("i_string_incomplete_surrogate_and_escape_valid.json", false),
    ("i_string_incomplete_surrogate_pair.json", false),
    ("i_string_incomplete_surrogates_escape_valid.json", false),
    ("i_string_invalid_lonely_surrogate.json", false),
    ("i_string_invalid_surrogate.json", false),
    ("i_string_invalid_utf-8.json", false),
    ("i_string_inverted_surrogates_U+1D11E.json", false),
    ("i_string_iso_latin_1.json", false),
    ("i_string_lone_second_surrogate.json", false),
    ("i_string_lone_utf8_continuation_byte.json", false),
    ("i_string_not_in_unicode_range.json", false),
    ("i_string_overlong_sequence_2_bytes.json", false),
    ("i_string_overlong_sequence_6_bytes.json", false),
    ("i_string_overlong_sequence_6_bytes_null.json", false),
    ("i_string_truncated-utf-8.json", false),
    ("i_string_utf16BE_no_BOM.json", false),
    ("i_string_utf16LE_no_BOM.json", false),
    ("i_structure_500_nested_arrays.json", false),
    ("i_structure_UTF-8_BOM_empty_object.json", false),
];

/// `y_` files our strictness policy rejects (duplicate depth-1 keys), with the kind.
const Y_POLICY: &[(&str, ErrorKind)] = &[
    ("y_object_duplicated_key.json", ErrorKind::DuplicateKey),
    (
        "y_object_duplicated_key_and_value.json",
        ErrorKind::DuplicateKey,
    ),
];

#[test]
fn json_test_suite() {
    let Some(dir) = suite_dir() else {
        println!("skipped: ../shared not found");
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let (mut y, mut n, mut i) = (0, 0, 0);
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        let bytes = std::fs::read(path).unwrap();
        let ours = parse(&bytes);
        if let Err(d) = check_frame(&bytes) {
            failures.push(format!("{name}: differential: {d}"));
        }
        if name.starts_with("y_") {
            y += 1;
            let policy = Y_POLICY.iter().find(|(f, _)| *f == name).map(|(_, k)| *k);
            match (&ours, policy) {
                (Ok(_), None) => {}
                (Err(e), Some(k)) if e.kind() == k => {}
                (r, p) => failures.push(format!("{name}: y_ gave {r:?}, policy {p:?}")),
            }
        } else if name.starts_with("n_") {
            n += 1;
            match &ours {
                Err(e) if e.code() == -32700 => {}
                r => failures.push(format!(
                    "{name}: n_ gave {:?}",
                    r.as_ref().map(|e| e.shape())
                )),
            }
        } else if name.starts_with("i_") {
            i += 1;
            let Some(&(_, want)) = I_TABLE.iter().find(|(f, _)| *f == name) else {
                failures.push(format!(
                    "{name}: not in I_TABLE (ours: {:?})",
                    ours.map(|e| e.shape())
                ));
                continue;
            };
            if ours.is_ok() != want {
                failures.push(format!(
                    "{name}: want accepted={want}, got {:?}",
                    ours.map(|e| e.shape())
                ));
            }
            if serde_verdict(&bytes).is_ok() != want {
                failures.push(format!(
                    "{name}: I_TABLE says {want} but serde_json disagrees"
                ));
            }
            if let Err(e) = ours
                && e.code() != -32700
            {
                failures.push(format!("{name}: rejected with {e} (code {})", e.code()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!((y, n, i), (95, 188, 35), "file counts");
    assert_eq!(I_TABLE.len(), 35);
}
