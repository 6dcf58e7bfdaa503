//! The page's hooks: each effect that reaches outside Yew (the browser, the
//! animation frames, the window's events) lives here, apart from the
//! components that draw and the reducer that decides.

mod app_state;
mod browser_sync;
mod dispatch;
mod listeners;
mod narrow;
mod play;

pub use app_state::use_app_state;
pub use browser_sync::use_browser_sync;
pub use dispatch::{use_action, use_dispatch};
pub use listeners::use_global_listeners;
pub use narrow::use_narrow;
pub use play::use_play;
