//! What a node sees of the world: the current time, the one RNG, and a list
//! to write its outputs to. Nodes never call each other; they only emit.
//!
//! Both types are generic over the node's own timer type `T` (as
//! stateright's `Out<A>` is over its actor), so this vocabulary depends on
//! no actor, and a broker cannot set a client's timer: it does not compile.

use super::ids::NodeId;
use super::protocol::Message;
use super::rng::SimRng;
use super::trace::TraceKind;

/// Something a node wants done; the simulation carries it out. `T` is the
/// node's timer type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output<T> {
    /// Send a message over the link to another node.
    Send { to: NodeId, msg: Message },
    /// Wake this node after `after_ms` (0 means "as the next step at this time").
    Timer { after_ms: u64, timer: T },
    /// Record that something happened.
    Trace(TraceKind),
    /// The node's process exits (a broker whose controlled shutdown is
    /// done); the simulation takes it down after the node's other outputs.
    Stop,
    /// Close the connection with `peer` (a broker closing a client's after
    /// a failed acks=0 produce): the peer learns of it one link latency on.
    CloseConnection { peer: NodeId },
}

/// The context of one handler call of a node whose timers are `T`.
pub struct Ctx<'a, T> {
    pub now_ms: u64,
    pub me: NodeId,
    pub rng: &'a mut SimRng,
    pub out: &'a mut Vec<Output<T>>,
    /// Whether anyone keeps the trace. When not (benchmarks), trace events
    /// are not even built: building them is a good part of a step's cost.
    pub tracing: bool,
}

impl<T> Ctx<'_, T> {
    pub fn send(&mut self, to: NodeId, msg: Message) {
        self.out.push(Output::Send { to, msg });
    }

    pub fn timer(&mut self, after_ms: u64, timer: T) {
        self.out.push(Output::Timer { after_ms, timer });
    }

    /// Ends this node's process once its other outputs are carried out.
    pub fn stop(&mut self) {
        self.out.push(Output::Stop);
    }

    /// Records a trace event, built only if the trace is kept. Building it
    /// has no other effect, so skipping it cannot change the run.
    pub fn trace(&mut self, kind: impl FnOnce() -> TraceKind) {
        if self.tracing {
            self.out.push(Output::Trace(kind()));
        }
    }
}
