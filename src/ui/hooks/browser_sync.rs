use crate::ui::browser;
use crate::ui::state::{Action, AppState, ShareStatus};
use yew::prelude::*;

/// Writes what the state says into the browser: the language, the theme, the
/// address bar's fragment, the clipboard for a new share link, the memory of
/// the first hint, and the scroll to the details the learner asked for. The
/// reducer only sets fields; each effect here runs when its field changes.
#[hook]
pub fn use_browser_sync(state: &UseReducerHandle<AppState>) {
    use_effect_with(state.lang, |lang| browser::apply_language(*lang));
    use_effect_with(state.theme_choice, |choice| {
        if let Some(theme) = choice {
            browser::apply_theme(*theme);
        }
    });
    use_effect_with(state.fragment.clone(), |fragment| browser::sync_fragment(fragment));
    {
        let dispatcher = state.dispatcher();
        // Keyed by the fragment too, so a second Copy share link after more
        // steps copies the new link.
        use_effect_with((state.share, state.fragment.clone()), move |(share, _)| {
            if *share == ShareStatus::InAddressBar {
                browser::copy_address_to_clipboard(move || dispatcher.dispatch(Action::ShareCopied));
            }
        });
    }
    use_effect_with(state.hint_used, |used| {
        if *used {
            browser::remember_hint_used();
        }
    });
    use_effect_with(state.details_jumps, |jumps| {
        if *jumps > 0 {
            browser::scroll_into_view("details");
        }
    });
}
