//! Which token is where inside a broker: the view model's stages read as
//! places of the drawn pipeline, in the order the requests arrived.

use super::layout::Place;
use crate::sim::protocol::ApiKey;
use crate::sim::trace::Direction;
use crate::sim::view::{BrokerView, Token};

/// Every request and response inside a broker, with the place it is in.
/// Operations in purgatory carry their deadline.
pub fn of_broker(b: &BrokerView) -> Vec<(Place, Token)> {
    let mut out = Vec::new();
    out.extend(b.socket_receive_buffer.iter().map(|t| (Place::SocketReceiveBuffer, t.clone())));
    for nt in &b.network_threads {
        out.extend(nt.work.iter().chain(nt.blocked.iter()).map(|t| (Place::NetworkThread(nt.id), t.clone())));
    }
    out.extend(b.request_queue.iter().map(|t| (Place::RequestQueue, t.clone())));
    for io in &b.io_threads {
        out.extend(io.work.iter().map(|t| (Place::IoThread(io.id), t.clone())));
    }
    out.extend(b.log_append.iter().map(|t| (Place::LogAppend, t.clone())));
    out.extend(b.log_read.iter().map(|t| (Place::LogRead, t.clone())));
    out.extend(b.purgatory.produce.iter().chain(b.purgatory.fetch.iter()).map(|op| (Place::Purgatory, op.token.clone())));
    for nt in &b.network_threads {
        out.extend(nt.response_queue.iter().map(|t| (Place::ResponseQueue(nt.id), t.clone())));
    }
    out.extend(b.socket_send_buffer.iter().map(|t| (Place::SocketSendBuffer, t.clone())));
    out
}

/// A token's kind, for its colour.
pub fn kind_class(t: &Token) -> &'static str {
    match (t.api, t.follower_fetch) {
        (ApiKey::Fetch, true) => "follower-fetch",
        (ApiKey::Produce, _) => "produce",
        (ApiKey::Fetch, false) => "fetch",
        (ApiKey::Metadata, _) => "metadata",
        (ApiKey::InitProducerId, _) => "init-producer-id",
    }
}

/// The words on a token: its API and request id, short enough for a stage
/// ("Produce #3", "Replica fetch b1#4"); the full id is in its name.
pub fn short_label(t: &Token, follower_word: &str) -> String {
    let n = t.request.correlation_id;
    let head = match (t.api, t.follower_fetch) {
        (ApiKey::Fetch, true) => {
            let from = match t.request.client {
                crate::sim::ids::NodeId::Broker(b) => format!("b{b}"),
                other => other.to_string(),
            };
            return format!("{}{follower_word} {from}#{n}", arrow(t.direction));
        }
        (api, _) => api.name(),
    };
    format!("{}{head} #{n}", arrow(t.direction))
}

fn arrow(d: Direction) -> &'static str {
    match d {
        Direction::Request => "",
        Direction::Response => "↩ ",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::simulation::Command;
    use crate::ui::session::Session;

    #[test]
    fn a_produce_is_found_in_each_place_it_passes_on_the_leader() {
        let mut s = Session::default();
        s.command(Command::Produce {
            client: 0,
            topic: "orders".into(),
            key: Some("k".into()),
            value: Some("v".into()),
            headers: vec![],
            partition: Some(0),
            timestamp_ms: None,
        })
        .unwrap();
        let leader = s.view().partition("orders", 0).unwrap().leader.unwrap();
        let mut places = Vec::new();
        for _ in 0..400 {
            s.step();
            let view = s.view();
            let b = view.brokers.iter().find(|b| b.id == leader).unwrap();
            for (place, t) in of_broker(b) {
                if t.api == ApiKey::Produce && places.last() != Some(&(place, t.direction)) {
                    places.push((place, t.direction));
                }
            }
        }
        let kinds: Vec<&str> = places
            .iter()
            .map(|(p, _)| match p {
                Place::SocketReceiveBuffer => "recv",
                Place::NetworkThread(_) => "net",
                Place::RequestQueue => "queue",
                Place::IoThread(_) => "io",
                Place::LogAppend => "append",
                Place::Purgatory => "purgatory",
                Place::ResponseQueue(_) => "responses",
                Place::SocketSendBuffer => "send",
                Place::LogRead | Place::ReplicaFetchers | Place::Logs => "other",
            })
            .collect();
        assert_eq!(kinds, ["recv", "net", "queue", "io", "append", "purgatory", "responses", "net", "send"], "{places:?}");
    }

    #[test]
    fn labels_are_short_and_say_which_way() {
        let id = crate::sim::ids::RequestId { client: crate::sim::ids::NodeId::Client(0), correlation_id: 3 };
        let t = Token { request: id, api: ApiKey::Produce, direction: Direction::Request, follower_fetch: false };
        assert_eq!(short_label(&t, "Replica fetch"), "Produce #3");
        let r = Token { direction: Direction::Response, ..t.clone() };
        assert_eq!(short_label(&r, "Replica fetch"), "↩ Produce #3");
        let f = Token {
            request: crate::sim::ids::RequestId { client: crate::sim::ids::NodeId::Broker(1), correlation_id: 4 },
            api: ApiKey::Fetch,
            direction: Direction::Request,
            follower_fetch: true,
        };
        assert_eq!(short_label(&f, "Replica fetch"), "Replica fetch b1#4");
    }
}
