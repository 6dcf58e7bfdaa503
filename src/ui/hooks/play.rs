use crate::ui::player::MAX_POSITIONS_PER_FRAME;
use crate::ui::state::{Action, Dispatch};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use yew::prelude::*;

/// While `playing`, dispatches one [`Action::Frame`] per animation frame
/// with the real milliseconds since the last one; the reducer decides what
/// that time is worth. The loop stops when playing stops.
///
/// It also keeps the frame cheap on any machine: it times each frame's
/// steps and lets the next frame take fewer positions when they took more
/// than [`STEP_BUDGET_MS`], more again when they took much less. This only
/// changes how fast a quiet stretch is skipped, never what the run does.
#[hook]
pub fn use_play(dispatch: Dispatch, playing: bool) {
    use_effect_with(playing, move |playing| {
        let frames = playing.then(|| {
            let cap = Rc::new(Cell::new(MAX_POSITIONS_PER_FRAME));
            FrameLoop::start(move |elapsed| {
                let started = now_ms();
                dispatch.dispatch(Action::Frame { elapsed_ms: elapsed, max_positions: cap.get() });
                cap.set(next_cap(cap.get(), now_ms() - started));
            })
        });
        move || drop(frames)
    });
}

/// The real time a frame's steps may take: a frame has 16.7 ms at 60 Hz, and
/// drawing the stage needs the rest.
pub const STEP_BUDGET_MS: f64 = 2.0;

/// The positions the next frame may take, from this frame's cap and how long
/// its steps took: a quarter fewer when over budget, an eighth more when
/// well under it.
pub fn next_cap(cap: u32, took_ms: f64) -> u32 {
    if took_ms > STEP_BUDGET_MS {
        (cap - cap / 4).max(MIN_POSITIONS_PER_FRAME)
    } else if took_ms < STEP_BUDGET_MS / 2.0 {
        (cap + cap / 8 + 1).min(MAX_POSITIONS_PER_FRAME)
    } else {
        cap
    }
}

/// However slow the machine, a frame takes at least this many positions, so
/// a quiet stretch is still skipped.
const MIN_POSITIONS_PER_FRAME: u32 = 8;

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_shrinks_when_steps_overrun_and_grows_back_when_cheap() {
        let mut cap = MAX_POSITIONS_PER_FRAME;
        for _ in 0..40 {
            cap = next_cap(cap, 9.0);
        }
        assert_eq!(cap, MIN_POSITIONS_PER_FRAME, "a slow machine ends at the floor");
        assert_eq!(next_cap(100, 2.0), 100, "within budget it stays");
        for _ in 0..80 {
            cap = next_cap(cap, 0.5);
        }
        assert_eq!(cap, MAX_POSITIONS_PER_FRAME, "a fast machine climbs back to the ceiling");
    }
}
