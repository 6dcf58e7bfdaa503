//! The browser glue: the address bar, localStorage, the document's theme and
//! language, the clipboard, scrolling. Only the hooks call these; natively
//! (in `cargo test`) each is a no-op or answers "nothing", so the state and
//! the reducer stay plain Rust.

use super::i18n::Lang;
use super::state::{Opening, Theme};

#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
const THEME_KEY: &str = "kafkascope.theme";
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
const LANGUAGE_KEY: &str = "kafkascope.lang";
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
const HINT_KEY: &str = "kafkascope.hint-used";

/// What the page reads from the browser when it opens.
pub fn opening() -> Opening {
    Opening {
        fragment: current_fragment(),
        language: stored(LANGUAGE_KEY).as_deref().and_then(Lang::from_code),
        theme: stored(THEME_KEY).as_deref().and_then(Theme::from_code),
        system_dark: system_prefers_dark(),
        hint_used: stored(HINT_KEY).is_some(),
    }
}

fn stored(key: &str) -> Option<String> {
    #[cfg(target_arch = "wasm32")]
    {
        web_sys::window()?.local_storage().ok()??.get_item(key).ok()?
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = key;
        None
    }
}

fn store(key: &str, value: &str) {
    #[cfg(target_arch = "wasm32")]
    if let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = storage.set_item(key, value);
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (key, value);
}

fn set_root_attribute(name: &str, value: &str) {
    #[cfg(target_arch = "wasm32")]
    if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
        let _ = root.set_attribute(name, value);
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (name, value);
}

/// Draws the chosen theme and remembers it.
pub fn apply_theme(theme: Theme) {
    set_root_attribute("data-theme", theme.code());
    store(THEME_KEY, theme.code());
}

/// Sets the theme the browser remembers before the app first renders, so
/// the page never flashes the other palette.
pub fn apply_saved_theme() {
    if let Some(theme) = stored(THEME_KEY).as_deref().and_then(Theme::from_code) {
        set_root_attribute("data-theme", theme.code());
    }
}

/// The document's language (for screen readers and Korean line breaking)
/// and the browser's memory of it.
pub fn apply_language(lang: Lang) {
    set_root_attribute("lang", lang.code());
    store(LANGUAGE_KEY, lang.code());
}

pub fn remember_hint_used() {
    store(HINT_KEY, "1");
}

pub fn system_prefers_dark() -> bool {
    #[cfg(target_arch = "wasm32")]
    {
        web_sys::window()
            .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
            .is_some_and(|m| m.matches())
    }
    #[cfg(not(target_arch = "wasm32"))]
    false
}

/// The address bar's fragment, with its `#`.
pub fn current_fragment() -> Option<String> {
    #[cfg(target_arch = "wasm32")]
    {
        web_sys::window()?.location().hash().ok().filter(|h| !h.is_empty())
    }
    #[cfg(not(target_arch = "wasm32"))]
    None
}

/// Makes the address bar's fragment `fragment` (without `#`; empty takes it
/// away), without a reload or a history entry. Does nothing when it already
/// is, so a link the page opened stays byte for byte as it was pasted.
pub fn sync_fragment(fragment: &str) {
    #[cfg(target_arch = "wasm32")]
    if let Some(window) = web_sys::window() {
        let location = window.location();
        let now = location.hash().unwrap_or_default();
        if now.trim_start_matches('#') == fragment {
            return;
        }
        let url = if fragment.is_empty() {
            format!("{}{}", location.pathname().unwrap_or_default(), location.search().unwrap_or_default())
        } else {
            format!("#{fragment}")
        };
        if let Ok(history) = window.history() {
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = fragment;
}

/// Copies the address (which holds the share link) to the clipboard,
/// calling `done` if the browser allowed it. A refusal is quiet: the link is
/// in the address bar anyway.
pub fn copy_address_to_clipboard(done: impl FnOnce() + 'static) {
    #[cfg(target_arch = "wasm32")]
    {
        use wasm_bindgen::JsCast;
        let Some(window) = web_sys::window() else { return };
        let navigator = window.navigator();
        let has_clipboard = js_sys::Reflect::get(&navigator, &"clipboard".into()).is_ok_and(|c| !c.is_undefined());
        let Ok(href) = window.location().href() else { return };
        if !has_clipboard {
            return;
        }
        let ok = wasm_bindgen::closure::Closure::once_into_js(move |_: wasm_bindgen::JsValue| done());
        let refused = wasm_bindgen::closure::Closure::once_into_js(|_: wasm_bindgen::JsValue| {});
        let promise = navigator.clipboard().write_text(&href);
        if let Ok(then) = js_sys::Reflect::get(&promise, &"then".into()).and_then(|f| f.dyn_into::<js_sys::Function>()) {
            let _ = then.call2(&promise, &ok, &refused);
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = done;
}

/// Scrolls the element with this id to the top of the view (the stylesheet's
/// scroll-margin keeps it clear of the fixed bars).
pub fn scroll_into_view(id: &str) {
    #[cfg(target_arch = "wasm32")]
    if let Some(element) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id)) {
        element.scroll_into_view();
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = id;
}
