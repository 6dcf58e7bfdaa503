//! What the UI shows of a broker: plain structs copied out of its state.

use super::super::protocol::{Request, Response};
use super::super::trace::{Direction, Stage};
use super::super::view::{
    BrokerView, ConnectionView, DelayedOperationView, FetcherView, FollowerView, IoThreadView, NetworkThreadView,
    PurgatoryView, ReplicaView, Token,
};
use super::{Broker, IoWork, NetworkWork};

fn request_token(request: &Request) -> Token {
    Token {
        request: request.id,
        api: request.api_key(),
        direction: Direction::Request,
        follower_fetch: request.is_follower_fetch(),
    }
}

fn response_token(response: &Response) -> Token {
    Token {
        request: response.id,
        api: response.api_key,
        direction: Direction::Response,
        follower_fetch: matches!(response.id.client, super::super::ids::NodeId::Broker(_)),
    }
}

impl Broker {
    pub fn view(&self) -> BrokerView {
        let socket_receive_buffer =
            self.connections.values().flat_map(|c| c.receive_buffer.iter().map(request_token)).collect();
        let socket_send_buffer = self.connections.values().flat_map(|c| c.send_buffer.iter().map(response_token)).collect();
        let network_threads = self
            .network_threads
            .iter()
            .enumerate()
            .map(|(n, t)| NetworkThreadView {
                id: n as u32,
                work: t.work.as_ref().map(|w| match w {
                    NetworkWork::Reading { request, .. } => request_token(request),
                    NetworkWork::Writing { response, .. } => response_token(response),
                }),
                blocked: t.blocked.as_ref().map(|(_, r)| request_token(r)),
                response_queue: t.response_queue.iter().map(|(_, r)| response_token(r)).collect(),
                connections: t
                    .connections
                    .iter()
                    .map(|c| ConnectionView { client: *c, muted: self.connections[c].muted })
                    .collect(),
            })
            .collect();
        let mut log_append = Vec::new();
        let mut log_read = Vec::new();
        let io_threads = self
            .io_threads
            .iter()
            .enumerate()
            .map(|(n, t)| IoThreadView {
                id: n as u32,
                work: match &t.work {
                    Some(IoWork::Handling { request, .. }) => Some(request_token(request)),
                    Some(IoWork::Done { request, api, stage, client, .. }) => {
                        let token = Token {
                            request: *request,
                            api: *api,
                            direction: Direction::Request,
                            follower_fetch: matches!(client, super::super::ids::NodeId::Broker(_)),
                        };
                        match stage {
                            Stage::LogAppend => {
                                log_append.push(token);
                                None
                            }
                            Stage::LogRead => {
                                log_read.push(token);
                                None
                            }
                            _ => Some(token),
                        }
                    }
                    None => None,
                },
            })
            .collect();
        let purgatory = PurgatoryView {
            produce: self
                .produce_purgatory
                .operations()
                .filter(|(id, _)| self.produce_purgatory.is_pending(*id))
                .map(|(id, op)| DelayedOperationView {
                    operation: id,
                    token: Token {
                        request: op.request,
                        api: super::super::protocol::ApiKey::Produce,
                        direction: Direction::Request,
                        follower_fetch: false,
                    },
                    keys: op.partitions.iter().filter(|s| s.pending).map(|s| s.partition.clone()).collect(),
                    deadline_ms: self.produce_purgatory.deadline_ms(id).unwrap_or(-1),
                    waits: self.produce_wait_reasons_view(id),
                })
                .collect(),
            fetch: self
                .fetch_purgatory
                .operations()
                .filter(|(id, _)| self.fetch_purgatory.is_pending(*id))
                .map(|(id, op)| DelayedOperationView {
                    operation: id,
                    token: Token {
                        request: op.request,
                        api: super::super::protocol::ApiKey::Fetch,
                        direction: Direction::Request,
                        follower_fetch: op.fetch.replica_id.is_some(),
                    },
                    keys: op.fetch.partitions.iter().map(|p| p.partition.clone()).collect(),
                    deadline_ms: self.fetch_purgatory.deadline_ms(id).unwrap_or(-1),
                    waits: vec![super::super::trace::WaitReason::MinBytes {
                        min_bytes: op.fetch.min_bytes,
                        available_bytes: op.bytes_available,
                    }],
                })
                .collect(),
            produce_timer: self.produce_purgatory.timer_view(),
            fetch_timer: self.fetch_purgatory.timer_view(),
        };
        let replicas = self
            .partitions
            .values()
            .map(|p| ReplicaView {
                topic: p.tp.topic.to_string(),
                partition: p.tp.partition,
                broker: self.id,
                is_leader: p.is_leader(self.id),
                leader: p.leader,
                leader_epoch: p.leader_epoch,
                log_start_offset: p.log.log_start_offset(),
                log_end_offset: p.log.log_end_offset(),
                high_watermark: p.high_watermark,
                isr: p.isr.clone(),
                pending_isr: p.pending_isr.clone(),
                replicas: p.replicas.clone(),
                min_insync_replicas: p.min_insync_replicas(),
                followers: p
                    .followers
                    .iter()
                    .map(|(b, s)| FollowerView {
                        broker: *b,
                        log_end_offset: s.log_end_offset,
                        last_caught_up_time_ms: s.last_caught_up_time_ms,
                        in_isr: p.isr.contains(b),
                    })
                    .collect(),
                segments: p.log.segments_view(),
                epochs: p.log.epoch_cache().entries().iter().map(|e| (e.epoch, e.start_offset)).collect(),
            })
            .collect();
        let fetchers = self
            .fetchers
            .iter()
            .map(|(leader, f)| FetcherView {
                leader: *leader,
                partitions: f.partitions.iter().cloned().collect(),
                in_flight: f.in_flight.is_some(),
            })
            .collect();
        BrokerView {
            id: self.id,
            socket_receive_buffer,
            network_threads,
            request_queue: self.request_queue.iter().map(|(_, r)| request_token(r)).collect(),
            request_queue_capacity: self.config.queued_max_requests,
            io_threads,
            log_append,
            log_read,
            purgatory,
            socket_send_buffer,
            replicas,
            fetchers,
            status: super::super::view::BrokerStatus::Running,
            session: None,
            next_isr_expiration_ms: None,
            isr_expiration_interval_ms: self.config.replica_lag_time_max_ms / 2,
            registered: self.control.as_ref().is_none_or(|c| c.broker_epoch.is_some()),
        }
    }
}
