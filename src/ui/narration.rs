//! The narration as the page shows it: one sentence per trace event in the
//! learner's language, each marked as what the learner follows or as
//! background the page draws faintly.

use super::focus::{Focus, Tag};
use super::i18n::Lang;
use crate::sim::record::partitioner::StickyReason;
use crate::sim::trace::{Stage, TraceEvent, WaitReason};

/// Everything a language says about the trace, in one place per language:
/// `English` in `narrate`, `Korean` in `narrate_ko`. Each method matches
/// its type's every variant with no fallback arm, so a new event or reason
/// without a sentence in some language does not compile, and a new
/// language is one more implementation.
pub trait Narrator {
    /// One event in one sentence.
    fn event(&self, event: &TraceEvent) -> String;
    /// What a delayed operation waits for.
    fn wait(&self, wait: &WaitReason) -> String;
    /// A request's stage, as a place name.
    fn stage(&self, stage: Stage) -> String;
    /// Why the sticky partitioner chose where it did.
    fn sticky_reason(&self, reason: &StickyReason) -> String;
}

/// The English narration.
pub struct English;
/// The Korean narration.
pub struct Korean;

/// Each language's module holds its sentences as plain functions of the
/// same names; the trait is how the rest of the page reaches them.
macro_rules! narrator {
    ($lang:ty, $module:ident) => {
        impl Narrator for $lang {
            fn event(&self, event: &TraceEvent) -> String {
                super::$module::narrate(event)
            }

            fn wait(&self, wait: &WaitReason) -> String {
                super::$module::describe_wait(wait)
            }

            fn stage(&self, stage: Stage) -> String {
                super::$module::stage_name(stage)
            }

            fn sticky_reason(&self, reason: &StickyReason) -> String {
                super::$module::sticky_reason(reason)
            }
        }
    };
}

narrator!(English, narrate);
narrator!(Korean, narrate_ko);

/// The narration of `lang`.
pub fn narrator(lang: Lang) -> &'static dyn Narrator {
    match lang {
        Lang::En => &English,
        Lang::Ko => &Korean,
    }
}

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
    narrator(lang).event(event)
}

/// What a delayed operation waits for, in the chosen language.
pub fn describe_wait(lang: Lang, wait: &WaitReason) -> String {
    narrator(lang).wait(wait)
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
