use crate::ui::state::{Action, Dispatch};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use yew::prelude::*;

/// While `playing`, dispatches one [`Action::Frame`] per animation frame
/// with the real milliseconds since the last one; the reducer decides what
/// that time is worth. The loop stops when playing stops.
#[hook]
pub fn use_play(dispatch: Dispatch, playing: bool) {
    use_effect_with(playing, move |playing| {
        let frames = playing.then(|| FrameLoop::start(move |elapsed| dispatch.dispatch(Action::Frame(elapsed))));
        move || drop(frames)
    });
}

type FrameClosure = wasm_bindgen::closure::Closure<dyn FnMut(f64)>;

/// A requestAnimationFrame loop; dropping it cancels the next frame and
/// frees the callback.
struct FrameLoop {
    handle: Rc<Cell<i32>>,
    callback: Rc<RefCell<Option<FrameClosure>>>,
}

impl FrameLoop {
    fn start(on_frame: impl Fn(f64) + 'static) -> Option<Self> {
        use wasm_bindgen::JsCast;
        let window = web_sys::window()?;
        let handle = Rc::new(Cell::new(0));
        let callback: Rc<RefCell<Option<FrameClosure>>> = Rc::new(RefCell::new(None));
        let (next, me) = (handle.clone(), callback.clone());
        let mut last = None::<f64>;
        let frame_window = window.clone();
        *callback.borrow_mut() = Some(wasm_bindgen::closure::Closure::new(move |now: f64| {
            if let Some(l) = last {
                on_frame(now - l);
            }
            last = Some(now);
            if let Some(f) = me.borrow().as_ref() {
                next.set(frame_window.request_animation_frame(f.as_ref().unchecked_ref()).unwrap_or(0));
            }
        }));
        let first = callback.borrow().as_ref().map(|f| window.request_animation_frame(f.as_ref().unchecked_ref()));
        handle.set(first.and_then(Result::ok).unwrap_or(0));
        Some(FrameLoop { handle, callback })
    }
}

impl Drop for FrameLoop {
    fn drop(&mut self) {
        if let Some(w) = web_sys::window() {
            let _ = w.cancel_animation_frame(self.handle.get());
        }
        // Breaks the closure's reference to itself.
        self.callback.borrow_mut().take();
    }
}
