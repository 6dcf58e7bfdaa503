//! Architecture invariants, checked mechanically (a "tidy" test).
//!
//! **Architecture Invariant:** nothing under `src/sim` uses the UI, the
//! browser, wall-clock time, thread-local randomness or hash-ordered
//! collections. That is what keeps the core pure and every run replayable.

use std::collections::{BTreeMap, BTreeSet};
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

/// The top-level modules of `src/sim` that one file's code names: through
/// `crate::sim::name`, or through as many `super::` as climb out of its own
/// module (a path that stays inside it is not a dependency). `module` is
/// the file's path under `src/sim`, such as `broker/control.rs`. Test code
/// (from the first `#[cfg(test)]` on) and comments are left out.
fn sim_modules_used(module: &str, source: &str) -> BTreeSet<String> {
    let parts: Vec<&str> = module.trim_end_matches(".rs").split('/').filter(|p| *p != "mod").collect();
    let Some(own) = parts.first() else { return BTreeSet::new() };
    let code: String = source.split("#[cfg(test)]").next().unwrap_or("").lines().map(code_of).collect::<Vec<_>>().join("\n");
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    let mut used = BTreeSet::new();
    for (i, _) in code.match_indices("crate::sim::") {
        used.insert(ident(&code[i + "crate::sim::".len()..]));
    }
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == ':';
    for (i, _) in code.match_indices("super::") {
        if code[..i].chars().next_back().is_some_and(is_ident) {
            continue; // the second `super::` of a `super::super::`
        }
        let mut rest = &code[i..];
        let mut climbs = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            rest = r;
            climbs += 1;
        }
        if climbs >= parts.len() {
            used.insert(ident(rest));
        }
    }
    used.remove(*own);
    used.remove("");
    used
}

/// A cycle in a module graph, as the modules along it, if there is one.
fn import_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == m) {
            let mut cycle = path[at..].to_vec();
            cycle.push(m.to_string());
            return Some(cycle);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_string());
        for next in graph.get(m).into_iter().flatten().filter(|n| graph.contains_key(*n)) {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|m| visit(m, graph, &mut Vec::new(), &mut done))
}

/// **Architecture Invariant:** the core's modules import one another
/// without a cycle. The shared vocabulary (node, protocol, trace, view, the
/// error codes) depends on no actor: `Ctx` and `Output` are generic over the
/// node's timer, and each actor's timers live with it. A cycle would tie
/// every module on it into one unit that can only change, build and be
/// understood together.
#[test]
fn the_core_modules_import_one_another_without_a_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/sim");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let module = file.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        if module == "mod.rs" {
            continue;
        }
        let top = module.split('/').next().unwrap().trim_end_matches(".rs").to_string();
        let used = sim_modules_used(&module, &fs::read_to_string(file).unwrap());
        graph.entry(top).or_default().extend(used);
    }
    assert!(graph.len() >= 20 && graph["simulation"].contains("broker"), "the scan read the core: {graph:?}");
    assert_eq!(import_cycle(&graph), None, "an import cycle among src/sim's modules");
}

#[test]
fn the_cycle_check_finds_what_it_must() {
    assert_eq!(
        sim_modules_used("broker/control.rs", "use super::Ctx;\nuse super::super::node::Output;\nuse crate::sim::trace::Stage;"),
        BTreeSet::from(["node".to_string(), "trace".to_string()])
    );
    assert_eq!(sim_modules_used("broker/mod.rs", "use super::view::X; // super::client"), BTreeSet::from(["view".to_string()]));
    assert!(sim_modules_used("view.rs", "fn f() {}\n#[cfg(test)]\nmod tests { use super::broker::B; }").is_empty());
    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    };
    assert_eq!(import_cycle(&graph(&[("a", "b"), ("b", "c")])), None);
    assert_eq!(
        import_cycle(&graph(&[("a", "b"), ("b", "c"), ("c", "a")])),
        Some(vec!["a".to_string(), "b".to_string(), "c".to_string(), "a".to_string()])
    );
}
