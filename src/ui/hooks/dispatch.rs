use crate::ui::state::{Action, Dispatch};
use yew::prelude::*;

/// The app's dispatcher, from the context the app provides.
#[hook]
pub fn use_dispatch() -> Dispatch {
    use_context::<Dispatch>().expect("the app provides its dispatcher to every component")
}

/// A click handler that dispatches `action()`. It is made once per
/// component instance, so handing it to a child never makes the child draw
/// again.
#[hook]
pub fn use_action(action: fn() -> Action) -> Callback<MouseEvent> {
    let dispatch = use_dispatch();
    use_callback(dispatch, move |_: MouseEvent, dispatch| dispatch.dispatch(action()))
}
