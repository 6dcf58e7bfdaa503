use crate::ui::browser;
use crate::ui::state::AppState;
use yew::prelude::*;

/// The app's state, opened from what the browser remembers and the link in
/// the address bar (read once, as the page opens).
#[hook]
pub fn use_app_state() -> UseReducerHandle<AppState> {
    use_reducer(|| AppState::opening(browser::opening()))
}
