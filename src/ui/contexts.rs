//! The contexts the app provides to every component, beside the language,
//! the dispatcher and the view.

use crate::sim::ids::RequestId;
use std::rc::Rc;

/// What the follow highlighting needs everywhere a token is drawn.
#[derive(Clone, PartialEq)]
pub struct FollowContext {
    pub followed: Option<RequestId>,
    /// Follower fetches that released the followed produce from purgatory.
    pub releasers: Rc<Vec<RequestId>>,
}

/// The simulated time drawn, for the few parts that count down: only they
/// are drawn again on every frame of play.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock(pub f64);

