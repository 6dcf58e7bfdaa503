//! The metrics charts' model: which series a chart draws from the core's
//! samples, and where its lines, cursor and fault marks go.
//!
//! Plain Rust over [`Sample`]s and the trace, so native tests cover it; the
//! chart component only writes the SVG these numbers describe. Coordinates
//! are whole pixels, and values the integers the core sampled, so drawing
//! needs no float formatting (which would link core's `f64` Display into
//! the page).

use crate::sim::metrics::Sample;
use crate::sim::trace::{TraceEvent, TraceKind};

/// One chart: a Kafka metric, per broker, topic or producer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Metric {
    /// BrokerTopicMetrics MessagesInPerSec, per topic.
    MessagesIn,
    /// BrokerTopicMetrics BytesInPerSec, per topic.
    BytesIn,
    /// The producer's request latency, 50th percentile, per producer (so
    /// per acks setting).
    LatencyP50,
    /// The same, 99th percentile.
    LatencyP99,
    /// RequestChannel RequestQueueSize, per broker.
    RequestQueueSize,
    /// NetworkProcessorAvgIdlePercent, per broker.
    NetworkIdle,
    /// RequestHandlerAvgIdlePercent, per broker.
    RequestHandlerIdle,
    /// PurgatorySize of the Produce purgatory, per broker.
    ProducePurgatory,
    /// PurgatorySize of the Fetch purgatory, per broker.
    FetchPurgatory,
    /// UnderReplicatedPartitions, per broker.
    UnderReplicated,
    /// IsrShrinksPerSec, per broker.
    IsrShrinks,
    /// IsrExpandsPerSec, per broker.
    IsrExpands,
    /// OfflinePartitionsCount, for the cluster.
    OfflinePartitions,
    /// ActiveControllerCount summed over the controllers: 1 is healthy.
    ActiveControllers,
}

impl Metric {
    pub const ALL: [Metric; 14] = [
        Metric::MessagesIn,
        Metric::BytesIn,
        Metric::LatencyP50,
        Metric::LatencyP99,
        Metric::RequestQueueSize,
        Metric::NetworkIdle,
        Metric::RequestHandlerIdle,
        Metric::ProducePurgatory,
        Metric::FetchPurgatory,
        Metric::UnderReplicated,
        Metric::IsrShrinks,
        Metric::IsrExpands,
        Metric::OfflinePartitions,
        Metric::ActiveControllers,
    ];

    /// Kafka's own name for the metric, as JMX (or the producer) shows it.
    pub fn kafka_name(self) -> &'static str {
        match self {
            Metric::MessagesIn => "MessagesInPerSec",
            Metric::BytesIn => "BytesInPerSec",
            Metric::LatencyP50 => "request-latency p50",
            Metric::LatencyP99 => "request-latency p99",
            Metric::RequestQueueSize => "RequestQueueSize",
            Metric::NetworkIdle => "NetworkProcessorAvgIdlePercent",
            Metric::RequestHandlerIdle => "RequestHandlerAvgIdlePercent",
            Metric::ProducePurgatory => "PurgatorySize (Produce)",
            Metric::FetchPurgatory => "PurgatorySize (Fetch)",
            Metric::UnderReplicated => "UnderReplicatedPartitions",
            Metric::IsrShrinks => "IsrShrinksPerSec",
            Metric::IsrExpands => "IsrExpandsPerSec",
            Metric::OfflinePartitions => "OfflinePartitionsCount",
            Metric::ActiveControllers => "ActiveControllerCount",
        }
    }

    /// Idle percentages are sampled in tenths of a percent; the chart's
    /// scale reads them as percent.
    pub fn is_permille(self) -> bool {
        matches!(self, Metric::NetworkIdle | Metric::RequestHandlerIdle)
    }
}

/// Whose line a series is.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Owner {
    Broker(u32),
    Topic(String),
    Producer { client: u32, acks: i16 },
    Cluster,
}

/// One line of a chart: a value per sample, None where there is none (a
/// stopped broker, a second in which no request was answered).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Series {
    pub owner: Owner,
    pub points: Vec<(u64, Option<u64>)>,
}

/// The lines of one metric over the samples, in owner order.
pub fn series(samples: &[Sample], metric: Metric) -> Vec<Series> {
    let mut owners: Vec<Owner> = Vec::new();
    for s in samples {
        for owner in owners_in(s, metric) {
            if !owners.contains(&owner) {
                owners.push(owner);
            }
        }
    }
    owners.sort();
    owners
        .into_iter()
        .map(|owner| {
            let points = samples.iter().map(|s| (s.at_ms, value(s, metric, &owner))).collect();
            Series { owner, points }
        })
        .collect()
}

fn owners_in(s: &Sample, metric: Metric) -> Vec<Owner> {
    match metric {
        Metric::MessagesIn | Metric::BytesIn => s.topics.iter().map(|t| Owner::Topic(t.topic.clone())).collect(),
        Metric::LatencyP50 | Metric::LatencyP99 => {
            s.latency.iter().map(|l| Owner::Producer { client: l.client, acks: l.acks }).collect()
        }
        Metric::OfflinePartitions | Metric::ActiveControllers => vec![Owner::Cluster],
        _ => s.brokers.iter().map(|b| Owner::Broker(b.broker)).collect(),
    }
}

fn value(s: &Sample, metric: Metric, owner: &Owner) -> Option<u64> {
    match (metric, owner) {
        (Metric::MessagesIn, Owner::Topic(t)) => Some(s.topic(t).map_or(0, |t| t.messages_in as u64)),
        (Metric::BytesIn, Owner::Topic(t)) => Some(s.topic(t).map_or(0, |t| t.bytes_in)),
        (Metric::LatencyP50 | Metric::LatencyP99, Owner::Producer { client, .. }) => {
            let l = s.latency.iter().find(|l| l.client == *client)?;
            Some(if metric == Metric::LatencyP50 { l.p50_ms } else { l.p99_ms } as u64)
        }
        (Metric::OfflinePartitions, Owner::Cluster) => Some(s.offline_partitions as u64),
        (Metric::ActiveControllers, Owner::Cluster) => Some(s.active_controllers.len() as u64),
        (_, Owner::Broker(id)) => {
            let b = s.broker(*id).filter(|b| b.up)?;
            Some(match metric {
                Metric::RequestQueueSize => b.request_queue_size as u64,
                Metric::NetworkIdle => b.network_idle_permille as u64,
                Metric::RequestHandlerIdle => b.request_handler_idle_permille as u64,
                Metric::ProducePurgatory => b.produce_purgatory as u64,
                Metric::FetchPurgatory => b.fetch_purgatory as u64,
                Metric::UnderReplicated => b.under_replicated as u64,
                Metric::IsrShrinks => b.isr_shrinks as u64,
                Metric::IsrExpands => b.isr_expands as u64,
                _ => return None,
            })
        }
        _ => None,
    }
}

/// The top of a chart's scale: the smallest 1, 2 or 5 times a power of ten
/// at or above the largest value, so gridlines fall on round numbers. A
/// chart of zeros still gets a scale of 1.
pub fn nice_max(largest: u64) -> u64 {
    let mut step = 1u64;
    loop {
        for m in [1, 2, 5] {
            let top = step.saturating_mul(m);
            if top >= largest {
                return top;
            }
        }
        step = step.saturating_mul(10);
    }
}

/// The plotting area of a chart, in whole pixels, and the stretch of
/// simulated time and values it shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub left: u32,
    pub top: u32,
    pub width: u32,
    pub height: u32,
    pub from_ms: u64,
    pub to_ms: u64,
    pub max: u64,
}

impl Frame {
    /// The x of a simulated time, clamped to the area.
    pub fn x(&self, ms: u64) -> u32 {
        let span = self.to_ms.saturating_sub(self.from_ms).max(1);
        let t = ms.clamp(self.from_ms, self.to_ms) - self.from_ms;
        self.left + (t * self.width as u64 / span) as u32
    }

    /// The y of a value, clamped to the area: 0 at the bottom.
    pub fn y(&self, value: u64) -> u32 {
        let v = value.min(self.max.max(1));
        self.top + self.height - (v * self.height as u64 / self.max.max(1)) as u32
    }
}

/// The SVG path of a series in a frame: one line through its points, broken
/// where a value is missing, so a stopped broker's line stops.
pub fn path(series: &Series, frame: &Frame) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let mut pen_down = false;
    for (ms, v) in &series.points {
        match v {
            Some(v) => {
                let cmd = if pen_down { 'L' } else { 'M' };
                let _ = write!(out, "{cmd}{} {}", frame.x(*ms), frame.y(*v));
                pen_down = true;
            }
            None => pen_down = false,
        }
    }
    out
}

/// A fault or recovery, marked on every chart's time axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    BrokerStopped(u32),
    BrokerStarted(u32),
    ControllerStopped(u32),
    ControllerStarted(u32),
    NetworkCut,
    NetworkHealed,
}

/// The faults and recoveries in a trace, with their simulated times. The
/// boot's first start of every node is not a mark: only a restart is.
pub fn marks(trace: &[TraceEvent]) -> Vec<(u64, Mark)> {
    let mut started_brokers: Vec<u32> = Vec::new();
    let mut started_controllers: Vec<u32> = Vec::new();
    let mut out = Vec::new();
    for e in trace {
        let mark = match &e.kind {
            TraceKind::BrokerStopped { broker, .. } | TraceKind::BrokerShutDown { broker, .. } => Some(Mark::BrokerStopped(*broker)),
            TraceKind::BrokerStarted { broker } => {
                let again = started_brokers.contains(broker);
                if !again {
                    started_brokers.push(*broker);
                }
                again.then_some(Mark::BrokerStarted(*broker))
            }
            TraceKind::ControllerStopped { controller, .. } => Some(Mark::ControllerStopped(*controller)),
            TraceKind::ControllerStarted { controller, .. } => {
                let again = started_controllers.contains(controller);
                if !again {
                    started_controllers.push(*controller);
                }
                again.then_some(Mark::ControllerStarted(*controller))
            }
            TraceKind::NetworkPartitioned { .. } => Some(Mark::NetworkCut),
            TraceKind::NetworkHealed { .. } => Some(Mark::NetworkHealed),
            _ => None,
        };
        if let Some(m) = mark {
            out.push((e.time_ms, m));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::load::KeyPattern;
    use crate::sim::simulation::Command;
    use crate::ui::session::Session;

    fn step_for(s: &mut Session, ms: u64) {
        let until = s.sim().now_ms() + ms;
        while s.sim().now_ms() < until {
            assert!(s.step());
        }
    }

    #[test]
    fn scales_end_on_round_numbers() {
        let tops: Vec<u64> = [0, 1, 2, 3, 6, 10, 11, 49, 51, 999, 1001].into_iter().map(nice_max).collect();
        assert_eq!(tops, [1, 1, 2, 5, 10, 10, 20, 50, 100, 1000, 2000]);
        assert_eq!(nice_max(u64::MAX), u64::MAX, "saturates rather than looping");
    }

    #[test]
    fn a_frame_maps_time_and_value_into_its_area() {
        let f = Frame { left: 10, top: 5, width: 100, height: 50, from_ms: 1000, to_ms: 11_000, max: 10 };
        assert_eq!((f.x(1000), f.x(6000), f.x(11_000), f.x(0), f.x(99_000)), (10, 60, 110, 10, 110));
        assert_eq!((f.y(0), f.y(5), f.y(10), f.y(40)), (55, 30, 5, 5));
    }

    #[test]
    fn a_stopped_brokers_line_breaks_and_a_restart_is_marked() {
        let mut s = Session::default();
        s.command_now(Command::StartLoad { client: 0, topic: "orders".into(), records_per_sec: 20, keys: KeyPattern::None, value_bytes: 100 })
            .unwrap();
        step_for(&mut s, 3_000);
        s.command_now(Command::KillBroker { broker: 1 }).unwrap();
        step_for(&mut s, 3_000);
        s.command_now(Command::RestartBroker { broker: 1 }).unwrap();
        step_for(&mut s, 3_000);
        let samples = s.sim().samples();
        let lines = series(samples, Metric::RequestHandlerIdle);
        assert_eq!(lines.iter().map(|l| l.owner.clone()).collect::<Vec<_>>(), [Owner::Broker(0), Owner::Broker(1), Owner::Broker(2)]);
        let one = &lines[1];
        assert!(one.points.iter().any(|(_, v)| v.is_none()), "broker 1 had no value while stopped");
        let frame = Frame { left: 0, top: 0, width: 300, height: 100, from_ms: 0, to_ms: s.sim().now_ms(), max: 1000 };
        let d = path(one, &frame);
        assert_eq!(d.matches('M').count(), 2, "two stretches of line: {d}");
        let throughput = series(samples, Metric::MessagesIn);
        assert_eq!(throughput.len(), 1);
        assert_eq!(throughput[0].owner, Owner::Topic("orders".into()));
        assert!(throughput[0].points.iter().any(|(_, v)| *v == Some(20)), "{:?}", throughput[0].points);
        let m = marks(s.sim().trace());
        let kinds: Vec<Mark> = m.iter().map(|(_, k)| *k).collect();
        assert_eq!(kinds, [Mark::BrokerStopped(1), Mark::BrokerStarted(1)], "the boot's starts are not marks");
        assert!(m[0].0 < m[1].0);
        let latency = series(samples, Metric::LatencyP99);
        assert_eq!(latency.iter().map(|l| l.owner.clone()).collect::<Vec<_>>(), [Owner::Producer { client: 0, acks: -1 }]);
    }
}
