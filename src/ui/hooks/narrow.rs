use yew::prelude::*;

/// The width at and below which the stage draws its narrow (phone) layout.
/// The stylesheet's media queries use the same figure.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub const NARROW_MAX_PX: u32 = 720;

/// Is the window narrow enough for the phone layout? Follows the window as it
/// is resized or turned.
#[hook]
pub fn use_narrow() -> bool {
    let narrow = use_state(is_narrow);
    {
        let narrow = narrow.clone();
        use_effect_with((), move |_| {
            let listener = listen(move |now| narrow.set(now));
            move || drop(listener)
        });
    }
    *narrow
}

fn is_narrow() -> bool {
    #[cfg(target_arch = "wasm32")]
    {
        web_sys::window()
            .and_then(|w| w.match_media(&format!("(max-width: {NARROW_MAX_PX}px)")).ok().flatten())
            .is_some_and(|m| m.matches())
    }
    #[cfg(not(target_arch = "wasm32"))]
    false
}

/// A media-query listener that lives until dropped.
struct Listener {
    #[cfg(target_arch = "wasm32")]
    query: Option<(web_sys::MediaQueryList, wasm_bindgen::closure::Closure<dyn Fn(web_sys::Event)>)>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        #[cfg(target_arch = "wasm32")]
        {
            use wasm_bindgen::JsCast;
            if let Some((query, closure)) = &self.query {
                let _ = query.remove_event_listener_with_callback("change", closure.as_ref().unchecked_ref());
            }
        }
    }
}

#[cfg(target_arch = "wasm32")]
fn listen(on_change: impl Fn(bool) + 'static) -> Listener {
    use wasm_bindgen::JsCast;
    let query = web_sys::window().and_then(|w| w.match_media(&format!("(max-width: {NARROW_MAX_PX}px)")).ok().flatten());
    let query = query.map(|q| {
        let closure = wasm_bindgen::closure::Closure::<dyn Fn(web_sys::Event)>::new(move |_| on_change(is_narrow()));
        let _ = q.add_event_listener_with_callback("change", closure.as_ref().unchecked_ref());
        (q, closure)
    });
    Listener { query }
}

#[cfg(not(target_arch = "wasm32"))]
fn listen(on_change: impl Fn(bool) + 'static) -> Listener {
    let _ = on_change;
    Listener {}
}
