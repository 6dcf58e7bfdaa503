//! The panic banner's text: the panic's message and where it happened, as
//! `file:line:column`, whatever the panic's payload is. The page's hook
//! (`ui::install_panic_banner`) puts exactly this in the banner and in the
//! console; here a native hook catches it the same way.

use kafkascope::ui::panic_report;
use std::panic::{catch_unwind, set_hook, take_hook};
use std::sync::Mutex;

static REPORTS: Mutex<Vec<String>> = Mutex::new(Vec::new());

#[test]
fn a_panic_report_names_the_message_and_the_file_line_and_column() {
    set_hook(Box::new(|info| REPORTS.lock().unwrap().push(panic_report(info))));
    // The next line, and the column its `panic!` starts at (1-based).
    let (line, column) = (line!() + 1, 29);
    let _ = catch_unwind(|| panic!("the partition has no leader: {}", 7));
    let _ = catch_unwind(|| std::panic::panic_any(42_u32));
    let _ = catch_unwind(|| {
        let replicas: Vec<u32> = Vec::new();
        replicas[3]
    });
    let _ = take_hook();
    let reports = REPORTS.lock().unwrap().clone();
    assert_eq!(reports[0], format!("the partition has no leader: 7 (at tests/panic_report.rs:{line}:{column})"));
    assert!(reports[1].starts_with("a panic without a message (at tests/panic_report.rs:"), "{}", reports[1]);
    assert!(
        reports[2].starts_with("index out of bounds: the len is 0 but the index is 3 (at tests/panic_report.rs:"),
        "{}",
        reports[2]
    );
}
