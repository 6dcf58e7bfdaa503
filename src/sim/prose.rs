//! English prose helpers shared by the core's Display text and the page's
//! English narration, so that neither depends on the other for a list.

use std::fmt;

/// Items as English prose: "1", "1 and 2", "0, 1 and 2", or "none".
pub fn and_list<T: fmt::Display>(items: &[T]) -> String {
    match items {
        [] => "none".into(),
        [one] => one.to_string(),
        [rest @ .., last] => {
            let rest: Vec<String> = rest.iter().map(ToString::to_string).collect();
            format!("{} and {last}", rest.join(", "))
        }
    }
}

/// Broker ids as English prose: "broker 1", "brokers 0, 1 and 2", or
/// "no broker".
pub fn brokers(ids: &[u32]) -> String {
    match ids {
        [] => "no broker".into(),
        [one] => format!("broker {one}"),
        more => format!("brokers {}", and_list(more)),
    }
}
