use crate::ui::state::Dispatch;
use yew::prelude::*;

/// Listens on the window and the document as long as the app lives:
/// Space plays or pauses, → steps, ← steps back; playing stops by itself
/// when the page is hidden; a link pasted into the address bar opens; the
/// system's colour scheme is followed.
#[hook]
pub fn use_global_listeners(dispatch: Dispatch) {
    use_effect_with((), move |_| {
        let listeners = install(dispatch);
        move || drop(listeners)
    });
}

/// Listeners that live as long as the app; dropping them removes them.
struct Listeners {
    #[cfg(target_arch = "wasm32")]
    keydown: wasm_bindgen::closure::Closure<dyn Fn(web_sys::KeyboardEvent)>,
    #[cfg(target_arch = "wasm32")]
    visibility: wasm_bindgen::closure::Closure<dyn Fn(web_sys::Event)>,
    #[cfg(target_arch = "wasm32")]
    hashchange: wasm_bindgen::closure::Closure<dyn Fn(web_sys::Event)>,
    #[cfg(target_arch = "wasm32")]
    scheme: Option<(web_sys::MediaQueryList, wasm_bindgen::closure::Closure<dyn Fn(web_sys::Event)>)>,
}

impl Drop for Listeners {
    fn drop(&mut self) {
        #[cfg(target_arch = "wasm32")]
        {
            use wasm_bindgen::JsCast;
            if let Some(window) = web_sys::window() {
                let _ = window.remove_event_listener_with_callback("keydown", self.keydown.as_ref().unchecked_ref());
                let _ = window.remove_event_listener_with_callback("hashchange", self.hashchange.as_ref().unchecked_ref());
                if let Some((query, listener)) = &self.scheme {
                    let _ = query.remove_event_listener_with_callback("change", listener.as_ref().unchecked_ref());
                }
                if let Some(document) = window.document() {
                    let _ = document
                        .remove_event_listener_with_callback("visibilitychange", self.visibility.as_ref().unchecked_ref());
                }
            }
        }
    }
}

#[cfg(target_arch = "wasm32")]
fn install(dispatch: Dispatch) -> Listeners {
    use crate::ui::state::Action;
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let keys = dispatch.clone();
    let keydown = Closure::<dyn Fn(web_sys::KeyboardEvent)>::new(move |e: web_sys::KeyboardEvent| {
        // Typing in a field must not drive the simulation, and Space on a
        // focused button already presses that button.
        let tag = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).map(|el| el.tag_name());
        let typing = matches!(tag.as_deref(), Some("INPUT" | "SELECT" | "TEXTAREA"));
        let space_on_button = tag.as_deref() == Some("BUTTON") && e.key() == " ";
        if typing || space_on_button || e.ctrl_key() || e.meta_key() || e.alt_key() {
            return;
        }
        let action = match e.key().as_str() {
            " " => Action::TogglePlay,
            "ArrowRight" => Action::Step,
            "ArrowLeft" => Action::StepBack,
            _ => return,
        };
        e.prevent_default();
        keys.dispatch(action);
    });
    let hidden = dispatch.clone();
    let visibility = Closure::<dyn Fn(web_sys::Event)>::new(move |_| {
        if web_sys::window().and_then(|w| w.document()).is_some_and(|d| d.hidden()) {
            hidden.dispatch(Action::Pause);
        }
    });
    let scheme_dispatch = dispatch.clone();
    let scheme_listener = Closure::<dyn Fn(web_sys::Event)>::new(move |_| {
        scheme_dispatch.dispatch(Action::SchemeChanged(crate::ui::browser::system_prefers_dark()))
    });
    let scheme = web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .map(|query| {
            let _ = query.add_event_listener_with_callback("change", scheme_listener.as_ref().unchecked_ref());
            (query, scheme_listener)
        });
    let hashchange = Closure::<dyn Fn(web_sys::Event)>::new(move |_| {
        if let Some(fragment) = crate::ui::browser::current_fragment() {
            dispatch.dispatch(Action::OpenFragment(fragment));
        }
    });
    if let Some(window) = web_sys::window() {
        let _ = window.add_event_listener_with_callback("keydown", keydown.as_ref().unchecked_ref());
        let _ = window.add_event_listener_with_callback("hashchange", hashchange.as_ref().unchecked_ref());
        if let Some(document) = window.document() {
            let _ = document.add_event_listener_with_callback("visibilitychange", visibility.as_ref().unchecked_ref());
        }
    }
    Listeners { keydown, visibility, hashchange, scheme }
}

#[cfg(not(target_arch = "wasm32"))]
fn install(_dispatch: Dispatch) -> Listeners {
    Listeners {}
}
