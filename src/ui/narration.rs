//! The narration as the page shows it: one sentence per trace event in the
//! learner's language, each marked as what the learner follows or as
//! background the page draws faintly.

use super::focus::{Focus, Tag};
use super::i18n::Lang;
use crate::sim::trace::{TraceEvent, WaitReason};

/// One sentence of "What just happened".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NarrationLine {
    pub text: String,
    /// Work the learner's focus does not follow (heartbeats, idle fetches):
    /// told, but faintly.
    pub background: bool,
}

/// One event in one sentence, in the chosen language.
pub fn sentence(lang: Lang, event: &TraceEvent) -> String {
    match lang {
        Lang::En => super::narrate::narrate(event),
        Lang::Ko => super::narrate_ko::narrate(event),
    }
}

/// What a delayed operation waits for, in the chosen language.
pub fn describe_wait(lang: Lang, wait: &WaitReason) -> String {
    match lang {
        Lang::En => super::narrate::describe_wait(wait),
        Lang::Ko => super::narrate_ko::describe_wait(wait),
    }
}

/// The lines for a position's events, each marked by whether `focus`
/// follows it.
pub fn lines(lang: Lang, events: &[TraceEvent], tags: &[Tag], focus: Focus) -> Vec<NarrationLine> {
    events
        .iter()
        .enumerate()
        .map(|(i, e)| NarrationLine {
            text: sentence(lang, e),
            background: tags.get(i).is_some_and(|t| !focus.wants(t.interest)),
        })
        .collect()
}
