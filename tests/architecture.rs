//! Architecture invariants, checked mechanically (a "tidy" test).
//!
//! **Architecture Invariant:** nothing under `src/sim` uses the UI, the
//! browser, wall-clock time, thread-local randomness or hash-ordered
//! collections. That is what keeps the core pure and every run replayable.

use std::fs;
use std::path::{Path, PathBuf};

/// Each forbidden word, and why.
const FORBIDDEN: &[(&str, &str)] = &[
    ("yew", "the core must not depend on the UI framework"),
    ("web_sys", "the core must not touch the browser"),
    ("js_sys", "the core must not touch JavaScript"),
    ("gloo", "the core must not use browser timers"),
    ("wasm_bindgen", "the core must not depend on wasm bindings"),
    ("std::time", "simulated time only"),
    ("Instant", "simulated time only"),
    ("SystemTime", "simulated time only"),
    ("Date", "simulated time only"),
    ("thread_rng", "one seeded RNG only"),
    ("ThreadRng", "one seeded RNG only"),
    ("rand::random", "one seeded RNG only"),
    ("OsRng", "one seeded RNG only"),
    ("HashMap", "iteration order must not depend on hashing"),
    ("HashSet", "iteration order must not depend on hashing"),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a line without its `//` comment, so a comment may name what
/// it avoids.
fn code_of(line: &str) -> &str {
    match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    }
}

/// Whole-word matches only: `Dated` or `yewtree` are not `Date` or `yew`.
fn contains_word(code: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    code.match_indices(word).any(|(i, _)| {
        let before = code[..i].chars().next_back();
        let after = code[i + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

fn violations_in(source: &str) -> Vec<(usize, &'static str, &'static str)> {
    let mut found = Vec::new();
    for (n, line) in source.lines().enumerate() {
        let code = code_of(line);
        for (word, why) in FORBIDDEN {
            if contains_word(code, word) {
                found.push((n + 1, *word, *why));
            }
        }
    }
    found
}

#[test]
fn the_simulation_core_is_pure() {
    let mut files = Vec::new();
    rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src/sim"), &mut files);
    assert!(files.len() >= 5, "the scan found the core's files");
    let mut report = String::new();
    for file in &files {
        let source = fs::read_to_string(file).unwrap();
        for (line, word, why) in violations_in(&source) {
            report.push_str(&format!("{}:{line}: `{word}`: {why}\n", file.display()));
        }
    }
    assert!(report.is_empty(), "architecture invariant broken:\n{report}");
}

#[test]
fn the_checker_catches_what_it_must() {
    assert_eq!(violations_in("use std::collections::HashMap;").len(), 1);
    assert_eq!(violations_in("let t = std::time::Instant::now();").len(), 2);
    assert_eq!(violations_in("use yew::prelude::*;").len(), 1);
    assert_eq!(violations_in("let r = rand::thread_rng();").len(), 1);
    assert_eq!(violations_in("js_sys::Date::now()").len(), 2);
    // Comments and longer identifiers are not violations.
    assert!(violations_in("// we avoid HashMap on purpose").is_empty());
    assert!(violations_in("let updated = 1; let yewtree = 2;").is_empty());
}

/// **Architecture Invariant:** the page's state and its reducer
/// (`src/ui/state.rs`) and its components (`src/ui/components/`) never
/// touch the browser themselves: localStorage, the address bar, history,
/// the clipboard and the document are written by the hooks in
/// `src/ui/hooks/` through `src/ui/browser.rs`. That keeps every action
/// testable natively and every effect in one place. No component imports
/// the app module either: they reach the dispatcher through a context.
#[test]
fn the_reducer_and_the_components_leave_the_browser_to_the_hooks() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ui");
    let mut files = vec![root.join("state.rs")];
    rust_files(&root.join("components"), &mut files);
    assert!(files.len() >= 20, "the scan found the components");
    const BROWSER: &[&str] = &["local_storage", "history", "location", "clipboard", "document_element", "set_attribute", "browser::"];
    let mut report = String::new();
    for file in &files {
        let source = fs::read_to_string(file).unwrap();
        for (n, line) in source.lines().enumerate() {
            let code = code_of(line);
            for word in BROWSER {
                if code.contains(word) {
                    report.push_str(&format!("{}:{}: `{word}`\n", file.display(), n + 1));
                }
            }
            if file.parent().is_some_and(|p| p.ends_with("components")) && (code.contains("components::app") || code.contains("super::app")) {
                report.push_str(&format!("{}:{}: imports the app module\n", file.display(), n + 1));
            }
        }
    }
    assert!(report.is_empty(), "the browser reached outside the hooks:\n{report}");
}
