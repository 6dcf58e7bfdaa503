//! Architecture invariants checked mechanically on the module's own source:
//! no hash collections (their iteration order differs between runs), no
//! clock or random source of its own, sibling modules reached through
//! `super::` so the tree can be moved into the main crate unchanged, and no
//! panicking shortcuts outside tests.

/// Every module file except `lib.rs`, which becomes `mod.rs` when the tree
/// is copied into the main crate.
const SOURCES: [(&str, &str); 10] = [
    ("config.rs", include_str!("../config.rs")),
    ("connection.rs", include_str!("../connection.rs")),
    ("election.rs", include_str!("../election.rs")),
    ("leader.rs", include_str!("../leader.rs")),
    ("log.rs", include_str!("../log.rs")),
    ("message.rs", include_str!("../message.rs")),
    ("node.rs", include_str!("../node.rs")),
    ("output.rs", include_str!("../output.rs")),
    ("state.rs", include_str!("../state.rs")),
    ("testkit.rs", include_str!("../testkit.rs")),
];

/// The part of a file before its unit-test module.
fn library_part(source: &str) -> &str {
    source
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or(source)
}

#[test]
fn the_source_keeps_the_architecture_invariants() {
    // Spelled in pieces so that this file does not trip its own check.
    let forbidden = [
        ["Hash", "Map"].concat(),
        ["Hash", "Set"].concat(),
        ["std::", "time"].concat(),
        ["Inst", "ant::"].concat(),
        ["System", "Time"].concat(),
        ["thread", "_rng"].concat(),
        ["rand", "::"].concat(),
        ["crate", "::"].concat(),
        [".unw", "rap()"].concat(),
        [".exp", "ect("].concat(),
        ["pan", "ic!("].concat(),
        ["unre", "achable!("].concat(),
        ["f", "64"].concat(),
    ];
    for (name, source) in SOURCES {
        let code = library_part(source);
        for word in &forbidden {
            assert!(!code.contains(word.as_str()), "{name} contains `{word}`");
        }
    }
}
