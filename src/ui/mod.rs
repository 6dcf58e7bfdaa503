//! The front end. It reads the simulation's view model and trace only. The
//! Yew components, hooks and browser bindings are behind the `ui` feature;
//! the rest (sessions, share links, narration, layout) needs no browser.

pub mod alarms;
#[cfg(feature = "ui")]
pub mod browser;
#[cfg(feature = "ui")]
pub mod components;
pub mod contexts;
pub mod charts;
pub mod countdown;
pub mod faults;
pub mod focus;
pub mod follow;
pub mod forms;
#[cfg(feature = "ui")]
pub mod hooks;
pub mod i18n;
pub mod json;
pub mod layout;
pub mod memory;
pub mod narrate;
pub mod narrate_ko;
pub mod narration;
pub mod player;
pub mod session;
pub mod setup;
pub mod share;
#[cfg(feature = "ui")]
pub mod state;
pub mod story;
#[cfg(feature = "ui")]
pub mod svg;
pub mod tokens;
pub mod why;

/// A shared value that compares equal only to itself: as a prop or a
/// context it tells Yew "the same object" at the cost of a pointer compare,
/// where comparing the values would walk them whole.
pub struct Shared<T>(pub std::rc::Rc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &other.0)
    }
}

/// Mounts the app on the page, after making sure a panic is never silent.
#[cfg(all(target_arch = "wasm32", feature = "ui"))]
pub fn start() {
    install_panic_banner();
    browser::apply_saved_theme();
    yew::Renderer::<components::App>::new().render();
}

/// What the banner and the console say of a panic: its message and where
/// it happened, as `file:line:column`. Spelled out rather than left to
/// `PanicHookInfo`'s Display, whose layout ("panicked at …:\n…") is not
/// promised, so the banner reads the same in every build (the release
/// build aborts on a panic, but the hook runs first).
pub fn panic_report(info: &std::panic::PanicHookInfo) -> String {
    let message = info.payload_as_str().unwrap_or("a panic without a message");
    match info.location() {
        Some(at) => format!("{message} (at {}:{}:{})", at.file(), at.line(), at.column()),
        None => message.to_string(),
    }
}

/// A panic shows a visible banner and is logged to the console, both with
/// its message and location, so the page never freezes without telling the
/// learner (and whoever reads the console) why.
#[cfg(all(target_arch = "wasm32", feature = "ui"))]
pub fn install_panic_banner() {
    std::panic::set_hook(Box::new(|info| {
        let report = panic_report(info);
        web_sys::console::error_1(&format!("KafkaScope panicked: {report}").into());
        show_error_banner(&report);
    }));
}

/// The page's allocator found no memory left: say so in the console and in
/// the banner, then let the abort come. Nothing here allocates in Rust (the
/// allocator has just failed): the texts are static and every DOM call
/// takes a `&str` or a handle to a JavaScript object. A second failure while
/// this runs (something here allocated after all) does nothing more.
#[cfg(all(target_arch = "wasm32", feature = "ui"))]
pub fn out_of_memory(_size: usize) {
    use std::sync::atomic::{AtomicBool, Ordering};
    static REPORTED: AtomicBool = AtomicBool::new(false);
    if REPORTED.swap(true, Ordering::Relaxed) {
        return;
    }
    const TEXT: &str = "KafkaScope hit an internal error and stopped: out of memory (the page used all the memory a web page may have). Reload the page to start again.";
    web_sys::console::error_1(&wasm_bindgen::JsValue::from_str(TEXT));
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let (Some(body), Ok(banner)) = (document.body(), document.create_element("div")) else {
        return;
    };
    banner.set_id("panic-banner");
    banner.set_class_name("panic-banner");
    let _ = banner.set_attribute("role", "alert");
    banner.set_text_content(Some(TEXT));
    let _ = body.prepend_with_node_1(&banner);
}
/// Puts a visible alert at the top of the page. It uses the DOM directly, not
/// Yew, because after a panic the app's own rendering cannot be trusted.
#[cfg(all(target_arch = "wasm32", feature = "ui"))]
pub fn show_error_banner(message: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(body) = document.body() else {
        return;
    };
    if let Ok(banner) = document.create_element("div") {
        banner.set_id("panic-banner");
        banner.set_class_name("panic-banner");
        let _ = banner.set_attribute("role", "alert");
        banner.set_text_content(Some(&format!(
            "KafkaScope hit an internal error and stopped: {message}. Reload the page to start again."
        )));
        let _ = body.prepend_with_node_1(&banner);
    }
}
