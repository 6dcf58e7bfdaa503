//! 한국어 내레이션: 트레이스 이벤트 하나마다 한 문장으로, 무슨 일이 일어났는지와
//! (배울 점이 있는 곳에서는) 왜 그런지를 말합니다. `super::narrate`의 영어 문장과
//! 같은 사실, 같은 숫자를 담습니다.
//!
//! Kafka 자신의 식별자(acks, min.insync.replicas, replica.lag.time.max.ms,
//! linger.ms, batch.size, fetch.min.bytes 같은 설정 이름, NOT_ENOUGH_REPLICAS 같은
//! 오류 이름, Produce·Fetch·Metadata 같은 API 이름, 파일 이름)는 라틴 문자 그대로
//! 둡니다. 학습자가 문서와 로그에서 그대로 찾아볼 수 있어야 하기 때문입니다.

use crate::sim::load::KeyPattern;
use crate::sim::control_plane::ControlRpc;

use crate::sim::metadata::MetadataRecord;
use crate::sim::ids::{NodeId, RequestId};
use crate::sim::log::log::DeletionReason;
use crate::sim::log::segment::RollReason;
use crate::sim::protocol::{ApiKey, ControlPlaneRpc, ErrorCode};
use crate::sim::raft::message::QuorumRpc;
use crate::sim::raft::output::{ElectionCause, RaftEvent, ResignReason, VoteRejectReason};
use crate::sim::record::batch::ValidationError;
use crate::sim::record::partitioner::StickyReason;
use crate::sim::trace::{
    BatchReadyReason, Direction, MessageKind, PartitionReason, ReadBound, RejectReason, Stage, TraceEvent, TraceKind,
    WaitReason,
};
use crate::ui::i18n::Lang;
use crate::ui::why::{passed_over_sentence, trigger_clause};
use std::fmt::Display;

/// 화면에 쓰는 단계 이름.
pub(super) fn stage_name(stage: Stage) -> String {
    match stage {
        Stage::Client => "클라이언트".into(),
        Stage::Wire => "네트워크".into(),
        Stage::SocketReceiveBuffer => "소켓 수신 버퍼".into(),
        Stage::NetworkThread(n) => format!("네트워크 스레드 {n}"),
        Stage::RequestQueue => "요청 큐".into(),
        Stage::IoThread(n) => format!("I/O 스레드 {n}"),
        Stage::LogAppend => "로그 추가(append) 단계".into(),
        Stage::LogRead => "로그 읽기 단계".into(),
        Stage::Purgatory => "퍼거토리(Purgatory)".into(),
        Stage::ResponseQueue(n) => format!("네트워크 스레드 {n}의 응답 큐"),
        Stage::SocketSendBuffer => "소켓 송신 버퍼".into(),
        Stage::ReplicaFetcher(n) => format!("레플리카 페처(리더: 브로커 {n})"),
    }
}

/// 요청(또는 그 응답)을 가리키는 말. 팔로워의 레플리카 페처가 보낸 요청은
/// "팔로워 Fetch"라고 따로 부릅니다.
fn subject(api: &ApiKey, request: &RequestId, direction: &Direction) -> String {
    let follower = matches!(request.client, NodeId::Broker(_));
    let name = if follower { format!("팔로워 {}", api.name()) } else { api.name().to_string() };
    match direction {
        Direction::Request => format!("{name} 요청 {request}"),
        Direction::Response => format!("{name} 요청 {request}에 대한 응답"),
    }
}

/// 지연 작업이 무엇을 기다리는지.
pub(super) fn describe_wait(w: &WaitReason) -> String {
    match w {
        WaitReason::HighWatermark { partition, required_offset, high_watermark, laggards } => {
            let behind: Vec<String> =
                laggards.iter().map(|(b, leo)| format!("팔로워 {b}의 로그 끝 오프셋 {leo}")).collect();
            if behind.is_empty() {
                format!("{partition}: 하이 워터마크가 {required_offset}에 도달하기를 기다립니다(현재 {high_watermark})")
            } else {
                format!(
                    "{partition}: 하이 워터마크가 {required_offset}에 도달하기를 기다립니다(현재 {high_watermark}; {})",
                    behind.join(", ")
                )
            }
        }
        WaitReason::MinBytes { min_bytes, available_bytes } => format!(
            "읽을 수 있는 데이터가 fetch.min.bytes인 {min_bytes}바이트만큼 쌓이기를 기다립니다(현재 {available_bytes}바이트)"
        ),
    }
}

pub(super) fn narrate(event: &TraceEvent) -> String {
    match &event.kind {
        TraceKind::BrokerStarted { broker } => format!(
            "{} 네트워크 스레드, I/O 스레드, 레플리카 페처와 주기 작업을 시작했습니다.",
            ga(format!("브로커 {broker}"))
        ),
        TraceKind::Hop { request, api, direction, from, to } => {
            let what = subject(api, request, direction);
            let why = match (direction, to) {
                (Direction::Request, Stage::SocketReceiveBuffer) => {
                    " 요청의 바이트는 이 연결을 맡은 네트워크 스레드가 읽어 갈 때까지 여기서 기다립니다."
                }
                (Direction::Request, Stage::NetworkThread(_)) => " 네트워크 스레드가 소켓에서 요청 전체를 읽어 들입니다.",
                (Direction::Request, Stage::RequestQueue) => {
                    " 모든 네트워크 스레드가 크기가 제한된 이 요청 큐 하나를 함께 쓰며, 쉬고 있는 I/O 스레드라면 어느 것이든 이 요청을 가져갈 수 있습니다."
                }
                (Direction::Request, Stage::IoThread(_)) => " I/O 스레드가 API 핸들러를 실행합니다.",
                (Direction::Request, Stage::LogAppend) => {
                    " 리더가 배치를 검증하고, 자신의 로그 끝 오프셋(LEO)부터 오프셋을 매긴 뒤 로그에 추가합니다."
                }
                (Direction::Request, Stage::LogRead) => {
                    " 브로커는 희소(sparse) 오프셋 인덱스로 페치 오프셋(fetch offset)의 위치를 찾은 다음, 거기서부터 배치를 앞으로 차례차례 훑습니다."
                }
                (Direction::Request, Stage::Purgatory) => {
                    " 아직 응답할 수 없으므로 지연 작업(delayed operation)이 되어 기다립니다."
                }
                (Direction::Response, Stage::ResponseQueue(_)) => {
                    " 네트워크 스레드마다 응답 큐가 따로 있어서, 응답은 이 연결을 맡은 바로 그 네트워크 스레드를 거쳐 돌아갑니다."
                }
                (Direction::Response, Stage::SocketSendBuffer) => {
                    " 연결의 뮤트(mute)가 풀리므로, 브로커는 이제 이 연결에서 다음 요청을 읽을 수 있습니다."
                }
                (Direction::Response, Stage::Client) => " 이제 클라이언트가 응답을 받았습니다.",
                (Direction::Response, Stage::ReplicaFetcher(_)) => {
                    " 팔로워는 받은 레코드를 자기 로그에 추가하고, 새 로그 끝 오프셋부터 다시 페치합니다."
                }
                _ => "",
            };
            format!("{} {}에서 {} 이동했습니다.{why}", ga(what), stage_name(*from), ro(stage_name(*to)))
        }
        TraceKind::Sent { request, api, direction, to, arrives_at_ms } => format!(
            "{} 네트워크를 통해 {} 보내졌고, {arrives_at_ms} ms에 도착합니다.",
            ga(subject(api, request, direction)),
            ro(to)
        ),
        TraceKind::ConnectionMuted { client, muted: true } => format!(
            "{client}의 연결이 뮤트(mute)되었습니다: 이 요청에 응답할 때까지 브로커는 이 연결에서 요청을 더 읽지 않으며, 그래서 응답이 요청 순서대로 돌아갑니다."
        ),
        TraceKind::ConnectionMuted { client, muted: false } => {
            format!("{client}의 연결 뮤트가 풀렸습니다: 이제 이 연결의 다음 요청을 읽을 수 있습니다.")
        }
        TraceKind::RequestQueueFull { request, thread, capacity } => format!(
            "요청 큐가 가득 찼습니다({capacity}개 중 {capacity}개): {} {} 든 채 멈추고(block), 자신이 맡은 모든 연결의 처리를 중단합니다. Kafka는 이런 방식으로 클라이언트에 배압(backpressure)을 겁니다.",
            neun(format!("네트워크 스레드 {thread}")),
            reul(request)
        ),
        TraceKind::NoResponse { request, client } => format!(
            "{} acks=0 요청이라서, 브로커는 {client}에게 아무 응답도 보내지 않고 연결의 뮤트만 풉니다.",
            neun(request)
        ),
        TraceKind::ConnectionClosed { request, client, error } => format!(
            "{} acks=0 요청인데 {error} 오류로 실패했습니다. 오류를 실어 보낼 응답이 없으니 브로커는 {client}와의 연결을 닫고, 프로듀서는 연결이 끊긴 것을 보고 메타데이터를 새로 받아 다시 연결합니다. 레코드는 잃습니다.",
            neun(request)
        ),
        TraceKind::Appended { partition, replica, base_offset, last_offset, log_end_offset, segment, position, .. } => {
            let range = if base_offset == last_offset {
                format!("오프셋 {base_offset}")
            } else {
                format!("오프셋 {base_offset}부터 {last_offset}까지")
            };
            format!(
                "{} {partition}에 레코드를 추가했습니다: {range}(세그먼트 {segment:020}.log, 바이트 위치 {position}). 이제 로그 끝 오프셋(LEO)은 {log_end_offset}입니다. 오프셋은 토픽 전체가 아니라 파티션마다 따로 매겨집니다.",
                ga(format!("브로커 {replica}"))
            )
        }
        TraceKind::ProduceRejected { partition, error, reason, .. } => format!(
            "브로커가 {partition}의 배치를 {error} 오류로 거부했습니다: {}. 아무것도 기록되지 않았습니다.",
            reject_reason(reason)
        ),
        TraceKind::DuplicateBatch { partition, producer_id, base_sequence, original_base_offset, .. } => format!(
            "{} 시퀀스 번호 {base_sequence}인 배치를 {partition}에 다시 보냈습니다: 브로커는 재시도임을 알아보고, 두 번 기록하는 대신 원래 오프셋 {} 응답합니다.",
            ga(format!("프로듀서 {producer_id}")),
            ro(original_base_offset)
        ),
        TraceKind::SegmentRolled { partition, replica, base_offset, reason } => format!(
            "{} {partition}의 세그먼트를 롤(roll)해서 새 세그먼트 {base_offset:020}.log를 시작했습니다: {}.",
            ga(format!("브로커 {replica}")),
            roll_reason(reason)
        ),
        TraceKind::SegmentDeleted { partition, replica, base_offset, reason, log_start_offset } => format!(
            "브로커 {replica}의 보존 정책(retention)이 {partition}의 세그먼트 {base_offset:020}.log를 통째로 삭제했습니다({}). 이제 로그 시작 오프셋은 {log_start_offset}입니다. 보존 정책은 레코드를 하나씩 지우지 않고, 언제나 세그먼트 단위로 지웁니다.",
            deletion_reason(reason)
        ),
        TraceKind::LogRead { partition, replica, fetch_offset, bytes, upper_bound, error, .. } => {
            let bound = match upper_bound {
                ReadBound::HighWatermark => "컨슈머는 커밋된 레코드만 볼 수 있으므로 하이 워터마크까지만 읽습니다",
                ReadBound::LogEndOffset => "팔로워는 리더의 모든 레코드를 복제하므로 로그 끝 오프셋(LEO)까지 읽습니다",
            };
            let broker = ga(format!("브로커 {replica}"));
            if *error == ErrorCode::None {
                format!("{broker} {partition}의 오프셋 {fetch_offset}부터 {bytes}바이트를 읽었습니다: {bound}.")
            } else {
                format!("{broker} {partition}의 오프셋 {fetch_offset}부터 읽지 못했습니다: {error}.")
            }
        }
        TraceKind::Parked { request, waits, timeout_ms, .. } => {
            let why: Vec<String> = waits.iter().map(describe_wait).collect();
            format!(
                "{} 퍼거토리(Purgatory)에서 최대 {timeout_ms} ms 동안 기다립니다: {}.",
                neun(request),
                why.join("; ")
            )
        }
        TraceKind::PurgatoryCompleted { request, expired: false, .. } => {
            format!("{} 퍼거토리를 떠납니다: 이제 응답할 수 있습니다(기다리던 일이 일어났거나, 이 브로커가 더는 파티션의 리더가 아닙니다).", ga(request))
        }
        TraceKind::PurgatoryCompleted { request, expired: true, .. } => {
            if matches!(request.client, crate::sim::ids::NodeId::Broker(_)) {
                format!(
                    "팔로워 Fetch {} 새 레코드 없이 replica.fetch.wait.max.ms만큼 기다린 뒤, 지금 읽을 수 있는 만큼으로 응답을 받습니다.",
                    neun(request)
                )
            } else {
                format!(
                    "{} 퍼거토리에서 타임아웃에 이르러 지금 시점의 상태 그대로 응답을 받습니다. fetch는 읽을 수 있는 만큼을 받고, produce는 REQUEST_TIMED_OUT을 받지만, 이미 리더의 로그에 기록된 레코드는 취소되지 않습니다.",
                    neun(request)
                )
            }
        }
        TraceKind::HighWatermarkAdvanced { partition, replica, from, to, isr } => format!(
            "리더인 브로커 {replica}에서 {partition}의 하이 워터마크가 {from}에서 {} 올라갔습니다: ISR({})에 있는 모든 레플리카가 그 아래의 레코드를 갖고 있으므로, 이 레코드들은 커밋되었습니다.",
            ro(to),
            brokers(isr)
        ),
        TraceKind::IsrShrunk { partition, removed, lag_ms, isr } => format!(
            "{} {partition}의 ISR에서 빠졌습니다: {lag_ms} ms 동안 리더를 따라잡지 못해 replica.lag.time.max.ms를 넘겼기 때문입니다. 뒤처짐은 메시지 개수가 아니라 시간으로 잽니다. ISR은 {} 됩니다: 컨트롤러 쿼럼이 있으면 액티브 컨트롤러가 리더의 AlterPartition을 커밋한 뒤이며, 그때까지 이 레플리카는 여전히 하이 워터마크를 붙잡습니다.",
            ga(brokers(removed)),
            ga(brokers(isr))
        ),
        TraceKind::IsrExpanded { partition, replica, follower_leo, isr } => format!(
            "{} {partition}의 ISR에 다시 들어왔습니다: 로그 끝 오프셋 {} 하이 워터마크에 도달했기 때문입니다. 이제 ISR은 {}입니다.",
            ga(format!("팔로워 {replica}")),
            ga(follower_leo),
            brokers(isr)
        ),
        TraceKind::FollowerTruncated { partition, replica, to_offset, epoch } => format!(
            "{} {partition}의 로그를 오프셋 {} 잘라 냈습니다(truncate): 리더 에포크 {epoch} 이후로 자기 로그가 리더의 로그와 갈라졌기 때문입니다.",
            ga(format!("팔로워 {replica}")),
            ro(to_offset)
        ),
        TraceKind::FollowerHighWatermark { partition, replica, high_watermark } => format!(
            "{} {partition}의 하이 워터마크를 {} 맞췄습니다: 리더의 하이 워터마크와 자신의 로그 끝 오프셋 중 더 작은 값입니다.",
            ga(format!("팔로워 {replica}")),
            ro(high_watermark)
        ),
        TraceKind::PartitionChosen { client, partition, reason } => match reason {
            PartitionReason::Keyed { murmur2, positive, partitions } => format!(
                "{} 키를 해시했습니다: murmur2 = {murmur2}, & 0x7fffffff = {positive}, mod {partitions} = {} → {partition}. 같은 키는 언제나 같은 파티션으로 갑니다.",
                ga(client),
                partition.partition
            ),
            PartitionReason::Sticky { reason } => format!(
                "{client}의 이 레코드에는 키가 없으므로(null 키), 스티키 파티셔너가 약 batch.size 바이트가 찰 때까지 {} 계속 채웁니다({}). 라운드 로빈(round-robin)이 아닙니다.",
                reul(partition),
                sticky_reason(reason)
            ),
            PartitionReason::RoundRobin { counter } => {
                format!("{client}의 RoundRobinPartitioner가 {counter}번 레코드를 {partition}에 보냈습니다.")
            }
            PartitionReason::Explicit => {
                format!("{} 레코드에 지정된 파티션 {} 사용합니다.", neun(client), reul(partition))
            }
        },
        TraceKind::BatchReady { client, partition, records, bytes, reason } => format!(
            "{client}의 {partition} 배치가 전송 준비를 마쳤습니다: 레코드 {records}개, {bytes}바이트. {}.",
            batch_ready_reason(reason)
        ),
        TraceKind::MetadataUpdated { client, leaders } => {
            let list: Vec<String> = leaders
                .iter()
                .map(|(tp, l)| format!("{tp} → {}", l.map(|l| format!("브로커 {l}")).unwrap_or_else(|| "리더 없음".into())))
                .collect();
            format!("{} 각 파티션의 리더가 누구인지 알게 되었습니다: {}.", ga(client), list.join(", "))
        }
        TraceKind::ProducerIdAssigned { client, producer_id, producer_epoch } => format!(
            "{} 멱등성(idempotent) 프로듀서입니다: 브로커가 producer id {producer_id}, 에포크 {} 할당했습니다. 이제 모든 배치에 시퀀스 번호가 붙습니다.",
            neun(client),
            reul(producer_epoch)
        ),
        TraceKind::ProduceCompleted { request, partition, base_offset, error, records } => {
            if *error == ErrorCode::None {
                format!(
                    "{} 성공했습니다: {partition}의 오프셋 {base_offset}부터 레코드 {records}개가 기록되었습니다.",
                    ga(format!("Produce {request}"))
                )
            } else {
                format!("{} 보낸 {} {error} 오류로 실패했습니다.", ro(partition), ga(format!("Produce {request}")))
            }
        }
        TraceKind::LoadStarted { client, load } => {
            let keys = match load.keys {
                KeyPattern::None => {
                    "키가 없어서 스티키 파티셔너가 한 파티션의 배치를 채운 뒤에야 다음 파티션으로 옮겨 갑니다".to_string()
                }
                KeyPattern::Fixed(n) => format!("키 {n}개를 차례로 쓰고, 같은 키는 언제나 같은 파티션으로 해시됩니다"),
                KeyPattern::Random => "키가 매번 무작위라서 레코드가 모든 파티션에 퍼집니다".to_string(),
            };
            format!(
                "{} 부하 생성기를 시작합니다. {}에 초당 레코드 {}개를 보내고, 값은 {}바이트이며, {keys}. linger.ms와 batch.size가 배치를 채우는 모습을 지켜보세요.",
                ga(client),
                load.topic,
                load.records_per_sec,
                load.value_bytes
            )
        }
        TraceKind::LoadStopped { client, sent } => format!(
            "{} 레코드 {sent}개를 보낸 뒤 부하 생성기를 멈춥니다. 배치에 남은 레코드는 평소처럼 전송됩니다.",
            ga(client)
        ),
        TraceKind::ProduceRetry { client, partition, error, attempt } => format!(
            "{} {error} 오류 때문에 {partition} 배치를 다시 보냅니다({attempt}번째 시도). 멱등성이 켜져 있으면, 첫 시도가 이미 기록된 경우 브로커가 중복본을 버립니다.",
            ga(client)
        ),
        TraceKind::BatchSplit { client, partition, records, bytes, batch_size, batches } => {
            let why = format!(
                "{client}의 {partition} 배치(레코드 {records}개, {bytes}바이트)가 토픽의 max.message.bytes보다 커서 리더가 거절했습니다."
            );
            if *batches > 1 {
                format!("{why} 프로듀서는 이를 batch.size({batch_size}바이트) 이하의 배치 {batches}개로 나누어 새 배치처럼 보냅니다.")
            } else {
                format!("{why} 프로듀서는 max.message.bytes가 아니라 batch.size({batch_size}바이트) 기준으로 나누는데, 이 배치는 이미 batch.size 이내라서 그대로 돌아와 delivery.timeout.ms가 끝날 때까지 계속 거절됩니다.")
            }
        }
        TraceKind::BatchExpired { client, partition, records, delivery_timeout_ms } => format!(
            "{} {partition} 배치(레코드 {records}개)를 포기합니다. 배치를 만든 뒤 delivery.timeout.ms({delivery_timeout_ms}ms)가 지나 레코드들이 타임아웃으로 실패합니다.",
            ga(client)
        ),
        TraceKind::FetchCompleted { partition, records, next_offset, high_watermark, error, .. } => {
            if *error == ErrorCode::None {
                format!(
                    "컨슈머가 {partition}에서 레코드 {records}개를 받았습니다. 다음에 읽을 오프셋은 {next_offset}입니다(하이 워터마크 {high_watermark})."
                )
            } else {
                format!("컨슈머의 {partition} 페치가 {error} 오류로 실패했습니다.")
            }
        }
        TraceKind::ControllerStarted { controller, recovered, log_end_offset } => {
            if *recovered {
                format!(
                    "{} 메타데이터 로그(엔트리 {log_end_offset}개)와 quorum-state 파일로 다시 시작해 쿼럼에 돌아옵니다.",
                    ga(format!("컨트롤러 {controller}"))
                )
            } else {
                format!("{} 시작했습니다. 액티브 컨트롤러 선출에 참여합니다.", ga(format!("컨트롤러 {controller}")))
            }
        }
        TraceKind::ControllerStopped { controller } => {
            format!("{} 죽었습니다. 메타데이터 로그와 quorum-state는 디스크에 남습니다.", ga(format!("컨트롤러 {controller}")))
        }
        TraceKind::RaftSent { rpc: ControlPlaneRpc::Quorum(rpc), to, arrives_at_ms } => format!(
            "컨트롤러 쿼럼의 {} 네트워크를 통해 {} 가고, {arrives_at_ms} ms에 도착합니다.",
            ga(quorum_rpc(*rpc)),
            ro(to)
        ),
        TraceKind::RaftSent { rpc: ControlPlaneRpc::BrokerControl(rpc), to, arrives_at_ms } => format!(
            "브로커와 액티브 컨트롤러 사이의 {} 네트워크를 통해 {} 가고, {arrives_at_ms} ms에 도착합니다.",
            ga(control_rpc(*rpc)),
            ro(to)
        ),
        TraceKind::Raft { controller, event } => raft_sentence_ko(*controller, event),
        TraceKind::ControllerActivated { controller, epoch } => format!(
            "{} 쿼럼의 에포크 {epoch} 리더이므로 액티브 컨트롤러입니다. 브로커들이 여기에 등록하고 하트비트를 보냅니다.",
            ga(format!("컨트롤러 {controller}"))
        ),
        TraceKind::MetadataRecordAppended { controller, offset, record } => {
            format!(
                "{} 메타데이터 로그에 {} 추가했습니다: {}. 컨트롤러 과반이 이 레코드를 가져야 효력이 생깁니다.",
                ga(format!("컨트롤러 {controller}")),
                reul(format!("레코드 {offset}")),
                metadata_record(record)
            )
        }
        TraceKind::BrokerSessionExpired { broker, last_heartbeat_ms } => format!(
            "{} {last_heartbeat_ms} ms 이후로 하트비트를 보내지 않아 broker.session.timeout.ms를 넘겼습니다. 컨트롤러가 이 브로커를 펜싱하고 리더 자리를 옮깁니다.",
            ga(format!("브로커 {broker}"))
        ),
        TraceKind::BrokerRegistrationRefused { broker, controller, session_ends_ms } => format!(
            "{} 브로커 {broker}의 등록을 DUPLICATE_BROKER_REGISTRATION으로 거절했습니다. 앞서 시작했던 브로커 {broker}의 세션이 {session_ends_ms} ms까지 유효하기 때문입니다. 컨트롤러는 재시작과 같은 ID를 쓰는 다른 브로커를 구별할 수 없으므로, 새 프로세스는 그 세션이 만료될 때까지 점점 더 오래 기다리며 다시 시도합니다.",
            ga(format!("컨트롤러 {controller}"))
        ),
        TraceKind::BrokerRegistered { broker, controller, broker_epoch } => format!(
            "{} 컨트롤러 {controller}에 등록하고 {} 받았습니다. 메타데이터 로그를 따라잡을 때까지 펜싱 상태입니다.",
            ga(format!("브로커 {broker}")),
            reul(format!("브로커 에포크 {broker_epoch}"))
        ),
        TraceKind::MetadataRecordApplied { broker, offset, record } => {
            format!(
                "{} 커밋된 {} 적용했습니다: {}.",
                ga(format!("브로커 {broker}")),
                reul(format!("메타데이터 레코드 {offset}")),
                metadata_record(record)
            )
        }
        TraceKind::BrokerStopped { broker } => format!(
            "{} 죽었습니다. 스레드, 큐, 퍼거토리, 연결, 페처는 사라지고 파티션 로그는 디스크에 남습니다.",
            ga(format!("브로커 {broker}"))
        ),
        TraceKind::NetworkPartitioned { a, b } => format!(
            "{} {} 사이의 네트워크가 끊겼습니다. 끊긴 곳을 지나는 메시지는 사라지고 오류도 돌아오지 않아, 양쪽 모두 타임아웃이 지나야 알아챕니다.",
            wa(node_names_ko(a)),
            node_names_ko(b)
        ),
        TraceKind::NetworkHealed { cuts } => format!(
            "네트워크가 다시 이어졌습니다(끊긴 곳 {cuts}개 복구). 메시지가 다시 흐르고, 끊겨 있던 노드는 다음 하트비트나 페치로 따라잡습니다."
        ),
        TraceKind::MessageLost { from, to, what } => {
            format!(
                "{from}에서 {} 가던 {} 네트워크 분할로 사라졌습니다. 보낸 쪽은 오류를 받지 못하고 타임아웃을 기다립니다.",
                ro(to),
                ga(message_kind(what))
            )
        }
        TraceKind::Disconnected { node, peer, refused: true } => format!(
            "{peer}의 프로세스가 내려가 있어 호스트가 연결을 거부했습니다. {} 곧바로 알아채고, 그쪽에 보낸 요청을 실패로 처리한 뒤 다른 곳을 찾습니다.",
            neun(node)
        ),
        TraceKind::Disconnected { node, peer, refused: false } => format!(
            "{} 연결을 연 채로 죽어 호스트가 연결을 리셋했습니다. {} 타임아웃을 기다리지 않고 곧바로 알아챕니다.",
            ga(peer),
            neun(node)
        ),
        TraceKind::ControlledShutdownRequested { broker } => format!(
            "{} 제어된 종료(controlled shutdown)를 시작합니다. 이제 하트비트로 액티브 컨트롤러에게 먼저 리더 자리를 옮겨 달라고 요청합니다(wantShutDown).",
            ga(format!("브로커 {broker}"))
        ),
        TraceKind::BrokerInControlledShutdown { broker, controller, partitions } => format!(
            "{} {} 제어된 종료 상태로 둡니다. 파티션 변경 {partitions}건으로 리더 자리를 다른 ISR 복제본에 넘기고 ISR에서 뺀 뒤에야 브로커가 멈춥니다.",
            ga(format!("컨트롤러 {controller}")),
            reul(format!("브로커 {broker}"))
        ),
        TraceKind::BrokerShutDown { broker } => format!(
            "컨트롤러가 shouldShutDown으로 답해 {} 깔끔하게 멈춥니다. 이끄는 파티션이 없고, 타임아웃을 기다린 클라이언트도 없습니다.",
            ga(format!("브로커 {broker}"))
        ),
        TraceKind::LeaderElected(e) => {
            let (c, p, epoch, why) = (e.controller, &e.partition, e.leader_epoch, trigger_clause(Lang::Ko, e));
            let passed = passed_over_sentence(Lang::Ko, e);
            match e.leader {
                Some(l) if e.unclean => format!(
                    "컨트롤러 {c}: {why}, {p}의 ISR({}) 중 살아 있는 복제본이 없고 unclean.leader.election.enable이 켜져 있어, ISR 밖의 {} 리더 에포크 {epoch}의 리더로 뽑습니다. 이 브로커에 없는 커밋된 레코드는 사라집니다.",
                    brokers(&e.previous_isr),
                    reul(format!("브로커 {l}"))
                ),
                Some(l) => format!(
                    "컨트롤러 {c}: {why}, {p}의 리더 에포크 {epoch} 리더로 {} 뽑습니다. 할당 순서에서 살아 있고 ISR에 있는 첫 복제본입니다.{passed}",
                    reul(format!("브로커 {l}"))
                ),
                None => format!(
                    "컨트롤러 {c}: {why}, {p}의 리더가 될 수 있는 복제본이 없어 파티션이 리더 에포크 {epoch}에서 오프라인이 됩니다.{passed}"
                ),
            }
        }
    }
}

/// 노드 이름을 쉼표로 잇습니다.
fn node_names_ko(nodes: &[NodeId]) -> String {
    nodes.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

/// 브로커 번호 목록: "브로커 1", "브로커 0, 1, 2", 비었으면 "브로커 없음".
fn brokers(ids: &[u32]) -> String {
    if ids.is_empty() {
        return "브로커 없음".into();
    }
    let ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
    format!("브로커 {}", ids.join(", "))
}

/// 컨트롤러 번호 목록: "컨트롤러 1", "컨트롤러 1, 2".
fn controllers(ids: &[u32]) -> String {
    let ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
    format!("컨트롤러 {}", ids.join(", "))
}

/// 쿼럼 RPC: Kafka의 이름 그대로에 한국어 설명을 덧붙입니다.
fn quorum_rpc(rpc: QuorumRpc) -> String {
    let gloss = match rpc {
        QuorumRpc::PreVote => "요청(사전 투표 요청)",
        QuorumRpc::Vote => "요청(투표 요청)",
        QuorumRpc::VoteResponse => "(투표 응답)",
        QuorumRpc::BeginQuorumEpoch => "요청(새 리더의 에포크 알림)",
        QuorumRpc::BeginQuorumEpochResponse => "(에포크 알림에 대한 응답)",
        QuorumRpc::EndQuorumEpoch => "요청(리더 사임 알림)",
        QuorumRpc::EndQuorumEpochResponse => "(사임 알림에 대한 응답)",
        QuorumRpc::Fetch => "요청(메타데이터 로그 복제)",
        QuorumRpc::FetchResponse => "(메타데이터 로그 항목 응답)",
    };
    with_gloss(rpc.name(), gloss)
}

/// 브로커와 액티브 컨트롤러 사이의 RPC.
fn control_rpc(rpc: ControlRpc) -> String {
    let gloss = match rpc {
        ControlRpc::BrokerRegistration => "요청(브로커 등록)",
        ControlRpc::BrokerRegistrationResponse => "(등록 응답)",
        ControlRpc::BrokerHeartbeat => "요청(하트비트)",
        ControlRpc::BrokerHeartbeatResponse => "(하트비트 응답)",
        ControlRpc::MetadataFetch => "요청(메타데이터 로그 페치)",
        ControlRpc::MetadataFetchResponse => "(메타데이터 로그 응답)",
        ControlRpc::AlterPartition => "요청(ISR 변경 요청)",
        ControlRpc::AlterPartitionResponse => "(ISR 변경 응답)",
    };
    with_gloss(rpc.name(), gloss)
}

/// "Vote 요청(투표 요청)"처럼, 괄호로 시작하는 설명은 띄우지 않고 붙입니다.
fn with_gloss(name: &str, gloss: &str) -> String {
    if gloss.starts_with('(') {
        format!("{name}{gloss}")
    } else {
        format!("{name} {gloss}")
    }
}

/// 네트워크 분할로 사라진 메시지의 종류.
fn message_kind(what: &MessageKind) -> String {
    match what {
        MessageKind::Request(api) => format!("{} 요청", api.name()),
        MessageKind::Response(api) => format!("{} 응답", api.name()),
        MessageKind::ControlPlane(ControlPlaneRpc::Quorum(rpc)) => quorum_rpc(*rpc),
        MessageKind::ControlPlane(ControlPlaneRpc::BrokerControl(rpc)) => control_rpc(*rpc),
    }
}

/// 브로커가 프로듀스를 거부한 까닭, 한 문장으로.
fn reject_reason(reason: &RejectReason) -> String {
    match reason {
        RejectReason::NoReplica => "이 브로커에는 이 파티션의 레플리카가 없습니다".into(),
        RejectReason::NotLeader { broker } => format!(
            "{} 이 파티션의 리더가 아니므로, 프로듀서는 메타데이터를 새로 받아 리더에게 보내야 합니다",
            neun(format!("브로커 {broker}"))
        ),
        RejectReason::NotEnoughInSyncReplicas { isr, min_insync_replicas } => format!(
            "acks=all에는 ISR 레플리카가 min.insync.replicas = {min_insync_replicas}개 이상 있어야 하는데, {}",
            if isr.is_empty() { "ISR이 비어 있습니다".to_string() } else { format!("ISR에는 {}뿐입니다", brokers(isr)) }
        ),
        RejectReason::InvalidBatch(e) => validation_error(e),
        RejectReason::UnreadableHeader => "레코드 배치 헤더를 읽을 수 없습니다".into(),
        RejectReason::TimestampOutOfRange { timestamp } => format!(
            "{} 브로커 시계 기준 message.timestamp.before.max.ms와 message.timestamp.after.max.ms의 범위를 벗어납니다",
            ga(format!("CreateTime 타임스탬프 {timestamp}"))
        ),
        RejectReason::OutOfOrderSequence { expected, got } => format!(
            "{} 기대한 {} 아니므로, 그 사이의 배치가 빠졌습니다",
            neun(format!("멱등성 프로듀서의 시퀀스 {got}")),
            ga(expected)
        ),
        RejectReason::ProducerFenced { current, got } => format!(
            "{} 브로커가 아는 {current}보다 오래되었습니다: 같은 프로듀서의 더 새 인스턴스가 이 프로듀서를 펜싱했습니다",
            neun(format!("프로듀서 에포크 {got}"))
        ),
        RejectReason::BatchLargerThanSegment { size_bytes, segment_bytes } => format!(
            "배치가 {size_bytes}바이트로, 세그먼트 하나가 담을 수 있는 크기(segment.bytes = {segment_bytes})보다 큽니다"
        ),
        RejectReason::LogRefused => "로그가 배치를 거부했습니다".into(),
    }
}

/// 리더의 검증이 배치에서 찾아낸 문제.
fn validation_error(e: &ValidationError) -> String {
    match e {
        ValidationError::MessageTooLarge { size, max_message_bytes } => {
            format!("배치가 {size}바이트로, max.message.bytes = {max_message_bytes}보다 큽니다")
        }
        ValidationError::Truncated { size, needed } => {
            format!("배치에 {needed}바이트가 필요한데 {size}바이트만 도착했습니다")
        }
        ValidationError::BatchLengthTooSmall { batch_length } => {
            format!("{} 레코드 없는 배치보다도 작습니다", ga(format!("batchLength {batch_length}")))
        }
        ValidationError::CrcMismatch { stored, computed } => format!(
            "저장된 CRC(0x{stored:08x})와 바이트로 계산한 CRC(0x{computed:08x})가 다르므로, 오는 길에 바이트가 손상되었습니다"
        ),
        ValidationError::TrailingBytes { batch_size, size } => format!(
            "{size}바이트에 한 파티션이 보낼 수 있는 {batch_size}바이트 배치 하나보다 많은 데이터가 들어 있습니다"
        ),
        ValidationError::InvalidMagic { magic } => {
            format!("{} 레코드 배치 v2가 아니며, 브로커는 v2만 받습니다", neun(format!("magic {magic}")))
        }
        ValidationError::OffsetCountMismatch { last_offset_delta, records_count } => format!(
            "{} {} 다릅니다",
            ga(format!("lastOffsetDelta {last_offset_delta} + 1")),
            wa(format!("recordsCount {records_count}"))
        ),
        ValidationError::OffsetDeltaOutOfOrder { index, offset_delta } => {
            format!("레코드 {index}의 offsetDelta가 {} 아니라 {offset_delta}입니다", ga(index))
        }
        ValidationError::MalformedRecords { .. } => "레코드를 디코딩할 수 없습니다".into(),
    }
}

/// 세그먼트를 롤한 까닭.
fn roll_reason(reason: &RollReason) -> &'static str {
    match reason {
        RollReason::SegmentBytes => "다음 배치를 쓰면 활성 세그먼트가 segment.bytes를 넘기 때문입니다",
        RollReason::SegmentMs => "활성 세그먼트가 레코드 타임스탬프로 보아 segment.ms보다 오래되었기 때문입니다",
        RollReason::OffsetIndexFull => "활성 세그먼트의 오프셋 인덱스(.index)가 가득 찼기 때문입니다",
        RollReason::TimeIndexFull => "활성 세그먼트의 타임 인덱스(.timeindex)가 가득 찼기 때문입니다",
        RollReason::RelativeOffsetOverflow => {
            "배치의 오프셋이 활성 세그먼트의 상대 오프셋 범위에 더는 들어가지 않기 때문입니다"
        }
    }
}

/// 보존 정책이 세그먼트를 지운 기준.
fn deletion_reason(reason: &DeletionReason) -> &'static str {
    match reason {
        DeletionReason::Time => "retention.ms 기준: 가장 새 레코드도 한도보다 오래됨",
        DeletionReason::Size => "retention.bytes 기준: 이 세그먼트가 없어도 로그가 크기 한도를 넘음",
    }
}

/// 스티키 파티셔너가 이 파티션을 고른 까닭.
pub(super) fn sticky_reason(reason: &StickyReason) -> String {
    match reason {
        StickyReason::First => "이 토픽의 첫 null 키 레코드라 파티션을 새로 뽑음".into(),
        StickyReason::Stayed { bytes_so_far } => format!("이 파티션에 지금까지 {bytes_so_far}바이트를 보냄"),
        StickyReason::Switched { previous } => {
            format!("{} batch.size만큼 받아서 새로 뽑음", ga(format!("이전 파티션 {previous}")))
        }
    }
}

/// 배치가 전송 준비를 마친 까닭, 한 문장으로.
fn batch_ready_reason(reason: &BatchReadyReason) -> String {
    match reason {
        BatchReadyReason::BatchSizeReached => "batch.size에 도달했기 때문입니다".into(),
        BatchReadyReason::LingerPassed { linger_ms } => {
            format!("배치를 연 뒤 linger.ms({linger_ms} ms)가 지났기 때문입니다")
        }
    }
}

/// 메타데이터 레코드: Kafka의 레코드 이름과, 그 레코드가 말하는 것.
fn metadata_record(record: &MetadataRecord) -> String {
    let leader = |leader: &Option<u32>| match leader {
        Some(b) => format!("리더는 브로커 {b}"),
        None => "리더 없음(오프라인)".to_string(),
    };
    match record {
        MetadataRecord::RegisterBroker { broker, epoch, .. } => format!(
            "RegisterBrokerRecord, {} 브로커 에포크 {} 합류하고 펜싱된 상태로 시작함",
            ga(format!("브로커 {broker}")),
            ro(epoch)
        ),
        MetadataRecord::Topic { name, partitions } => {
            format!("TopicRecord, 파티션 {partitions}개인 토픽 {name} 생성")
        }
        MetadataRecord::Partition(p) => format!(
            "PartitionRecord, {} {}에 두고, {}, ISR은 {}",
            reul(&p.partition),
            brokers(&p.replicas),
            leader(&p.leader),
            brokers(&p.isr)
        ),
        MetadataRecord::PartitionChange { partition, isr, leader: l, leader_epoch, partition_epoch } => format!(
            "PartitionChangeRecord, 이제 {partition}의 {}, 리더 에포크 {leader_epoch}, ISR은 {}, 파티션 에포크 {partition_epoch}",
            leader(l),
            brokers(isr)
        ),
        MetadataRecord::BrokerRegistrationChange { broker, fenced: true } => format!(
            "BrokerRegistrationChangeRecord, {} 펜싱됨: 아무 파티션도 이끌 수 없음",
            neun(format!("브로커 {broker}"))
        ),
        MetadataRecord::BrokerRegistrationChange { broker, fenced: false } => format!(
            "BrokerRegistrationChangeRecord, {} 펜싱이 풀림: 메타데이터를 따라잡았으므로 리더가 될 수 있음",
            neun(format!("브로커 {broker}"))
        ),
        MetadataRecord::BrokerInControlledShutdown { broker } => format!(
            "BrokerRegistrationChangeRecord, {} 제어된 종료 중: 리더가 될 수 없고 ISR에도 들어갈 수 없음",
            neun(format!("브로커 {broker}"))
        ),
    }
}

/// "투표" 또는 "사전 투표(pre-vote)".
fn vote(pre_vote: bool) -> &'static str {
    if pre_vote {
        "사전 투표(pre-vote)"
    } else {
        "투표"
    }
}

/// 컨트롤러가 선거에 나선 까닭. 문장 앞에 "~ 때문에"로 들어갑니다.
fn election_cause(cause: &ElectionCause) -> &'static str {
    match cause {
        ElectionCause::FetchTimeout => "controller.quorum.fetch.timeout.ms 동안 리더에게서 아무 소식도 듣지 못했기 때문에",
        ElectionCause::ElectionTimeout => {
            "리더 없이 선거 타임아웃(controller.quorum.election.timeout.ms)이 지났기 때문에"
        }
        ElectionCause::BackoffComplete => {
            "진 선거 뒤의 백오프(최대 controller.quorum.election.backoff.max.ms)가 끝났기 때문에"
        }
        ElectionCause::ElectionTimeoutAsCandidate => "지난 선거가 승자 없이 타임아웃되었기 때문에",
        ElectionCause::PreVoteWon => "과반이 사전 투표(pre-vote)를 허락했기 때문에",
        ElectionCause::EndQuorumEpoch => "사임하는 리더가 EndQuorumEpoch에서 이 컨트롤러를 첫 후계자로 지목했기 때문에",
        ElectionCause::Restarted => "이 에포크에서 자신에게 투표한 뒤 다시 시작했기 때문에",
    }
}

/// 리더가 물러난 까닭, 한 문장으로.
fn resign_reason(reason: &ResignReason) -> &'static str {
    match reason {
        ResignReason::CheckQuorumFailed => {
            "투표자 과반이 controller.quorum.fetch.timeout.ms의 1.5배 안에 이 컨트롤러에게서 페치하지 않아, 그들과 끊겼을 수 있기 때문입니다"
        }
        ResignReason::Requested => "물러나 달라는 요청을 받았기 때문이며, EndQuorumEpoch로 투표자들에게 알립니다",
        ResignReason::Restarted => {
            "이 에포크를 이끌던 중 다시 시작했기 때문입니다. Kafka는 이런 컨트롤러를 사임(resigned) 상태로 시작해, 그 에포크에서 다시 이끌거나 투표하지 않게 합니다"
        }
    }
}

/// 투표자가 표를 거부한 까닭, 한 문장으로.
fn vote_reject_reason(reason: &VoteRejectReason) -> String {
    match reason {
        VoteRejectReason::StaleEpoch { voter_epoch } => {
            format!("{} 후보의 에포크보다 새롭기 때문입니다", ga(format!("자신의 에포크 {voter_epoch}")))
        }
        VoteRejectReason::InvalidRequest => "요청이 스스로 모순되기 때문입니다(INVALID_REQUEST)".into(),
        VoteRejectReason::AlreadyVoted { voted_for } => format!(
            "이 에포크에서 이미 컨트롤러 {voted_for}에게 투표했고, 투표자는 에포크마다 한 번만 투표하기 때문입니다"
        ),
        VoteRejectReason::LeaderKnown { leader } => {
            format!("이 에포크의 리더로 이미 {} 알고 있기 때문입니다", reul(format!("컨트롤러 {leader}")))
        }
        VoteRejectReason::LeaderAlive { leader } => format!(
            "아직 리더인 컨트롤러 {leader}에게서 페치하고 있어서, 선거는 잘 돌아가는 쿼럼을 흔들 뿐이기 때문입니다"
        ),
        VoteRejectReason::LogNotUpToDate => {
            "후보의 로그가 (마지막 에포크, 그다음 마지막 오프셋으로 보아) 자신의 로그보다 뒤처져 있고, 리더는 커밋된 항목을 모두 가져야 하기 때문입니다"
                .into()
        }
        VoteRejectReason::IsLeader => "자신이 이 에포크의 리더이기 때문입니다".into(),
        VoteRejectReason::IsCandidate => "자신도 이 에포크의 후보로서 자신에게 투표했기 때문입니다".into(),
        VoteRejectReason::Resigned => "이 에포크의 리더 자리에서 물러났기 때문입니다".into(),
    }
}

/// 컨트롤러 Raft 이벤트 한 문장 (KafkaRaftClient, QuorumState).
fn raft_sentence_ko(controller: u32, event: &RaftEvent) -> String {
    let c = format!("컨트롤러 {controller}");
    match event {
        RaftEvent::BecameUnattached { epoch, voted_for, timeout_ms } => {
            let vote = voted_for.map(|v| format!(" 컨트롤러 {v}에게 이미 투표했으며")).unwrap_or_default();
            format!(
                "{} 에포크 {epoch}에서 미소속(unattached) 상태가 되었습니다: 아는 리더가 없고{vote}, {timeout_ms} ms 안에(controller.quorum.election.timeout.ms) 리더가 나타나지 않으면 스스로 선거에 나섭니다.",
                ga(&c)
            )
        }
        RaftEvent::BecameProspective { epoch, timeout_ms, cause } => format!(
            "{} {} 에포크 {epoch}에서 예비 후보(prospective)가 되었습니다: 에포크를 올리지 않은 채 최대 {timeout_ms} ms 동안 다른 투표자들에게 사전 투표(pre-vote, KIP-996)를 요청합니다.",
            election_cause(cause),
            ga(&c)
        ),
        RaftEvent::BecameCandidate { epoch, timeout_ms, retries, cause } => format!(
            "{} {} 에포크 {epoch}의 후보(candidate)가 되었습니다: 자신에게 투표하고 다른 투표자들에게 투표를 요청합니다({retries}번째 시도, 선거는 {timeout_ms} ms 뒤 타임아웃).",
            election_cause(cause),
            ga(&c)
        ),
        RaftEvent::BecameLeader { epoch, epoch_start_offset } => format!(
            "{} 에포크 {epoch} 선거에서 이겼습니다: 과반이 이 컨트롤러에 투표했으므로 쿼럼을 이끌며, 이 에포크는 메타데이터 로그 오프셋 {epoch_start_offset}에서 시작합니다.",
            ga(&c)
        ),
        RaftEvent::BecameFollower { epoch, leader } => format!(
            "{} 에포크 {epoch}의 리더인 {} 따릅니다: 그 컨트롤러에게서 메타데이터 로그를 페치합니다.",
            ga(&c),
            reul(format!("컨트롤러 {leader}"))
        ),
        RaftEvent::Resigned { epoch, reason } => format!(
            "{} 에포크 {epoch}의 리더 자리에서 물러났습니다: {}.",
            ga(&c),
            resign_reason(reason)
        ),
        RaftEvent::VoteRequested { to, epoch, pre_vote } => format!(
            "{} 에포크 {epoch}에서 컨트롤러 {to}에게 {} 요청합니다.",
            ga(&c),
            reul(vote(*pre_vote))
        ),
        RaftEvent::VoteGranted { candidate, epoch, pre_vote } => format!(
            "{} 에포크 {epoch}에서 컨트롤러 {candidate}에게 {} 줍니다: 다른 누구에게도 투표하지 않았고, 아는 리더가 없으며, 후보의 로그가 자신의 로그만큼 최신이기 때문입니다.",
            ga(&c),
            reul(vote(*pre_vote))
        ),
        RaftEvent::VoteRejected { candidate, epoch, pre_vote, reason } => format!(
            "{} 에포크 {epoch}에서 컨트롤러 {candidate}에게 {} 거부합니다: {}.",
            ga(&c),
            reul(vote(*pre_vote)),
            vote_reject_reason(reason)
        ),
        RaftEvent::ElectionLost { epoch, pre_vote, rejected_by } => format!(
            "{} 에포크 {epoch}의 {}에서 졌습니다: {} 거부해서, 과반의 찬성을 더는 얻을 수 없습니다.",
            ga(&c),
            vote(*pre_vote),
            ga(controllers(rejected_by))
        ),
        RaftEvent::ElectionBackoff { epoch, backoff_ms } => format!(
            "{} 에포크 {epoch} 이후 다시 나서기 전에 {backoff_ms} ms 동안 기다립니다: controller.quorum.election.backoff.max.ms까지의 무작위 대기로, 후보들이 표를 계속 나눠 갖지 않게 합니다.",
            ga(&c)
        ),
        RaftEvent::FetchTimeoutOverridden { epoch, leader, timeout_ms } => format!(
            "{} EndQuorumEpoch로 에포크 {epoch}에서 물러났으므로, {} controller.quorum.fetch.timeout.ms를 다 기다리지 않고 {timeout_ms} ms 뒤에 선거에 나섭니다.",
            ga(format!("컨트롤러 {leader}")),
            neun(&c)
        ),
        RaftEvent::HighWatermarkAdvanced { from: Some(from), to } => format!(
            "{c}의 메타데이터 로그 하이 워터마크가 {from}에서 {} 올라갔습니다: 투표자 과반이 {to} 아래의 항목을 가지고 있으므로, 그 항목들은 커밋되었습니다.",
            ro(to)
        ),
        RaftEvent::HighWatermarkAdvanced { from: None, to } => format!(
            "{} 메타데이터 로그 하이 워터마크가 {to}임을 알게 되었습니다: 그 아래의 항목은 커밋되었습니다.",
            ga(&c)
        ),
        RaftEvent::EntriesAppended { epoch, first_offset, last_offset } => {
            let entries = if first_offset == last_offset {
                format!("오프셋 {first_offset}의 항목")
            } else {
                format!("오프셋 {first_offset}부터 {last_offset}까지의 항목")
            };
            format!("{} 에포크 {epoch}에서 메타데이터 로그에 {entries}을 추가했습니다.", ga(&c))
        }
        RaftEvent::Truncated { from, to } => format!(
            "{} 메타데이터 로그를 오프셋 {from}에서 {} 잘라 냈습니다: 거기서 리더의 로그와 갈라졌으며, 그 뒤의 항목은 커밋된 적이 없습니다.",
            ga(&c),
            ro(to)
        ),
    }
}

// ---------------------------------------------------------------------------
// 조사: 값 뒤에 붙는 이/가, 은/는, 을/를, (으)로를 앞말의 받침에 맞춰 고릅니다.
// "브로커 1이", "브로커 2가", "오프셋 3으로", "오프셋 7로"처럼 숫자는 한국어로
// 읽는 소리(일, 이, 삼, ...; 십, 백, 천, 만)를 따릅니다.
// ---------------------------------------------------------------------------

/// 앞말의 끝소리.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Coda {
    /// 받침 없음.
    Open,
    /// ㄹ 받침 ((으)로에서는 "로").
    Rieul,
    /// 그 밖의 받침.
    Closed,
}

fn coda(word: &str) -> Coda {
    let w = word.trim_end();
    // "퍼거토리(Purgatory)"처럼 괄호로 덧붙인 말은 건너뛰고 그 앞말을 읽습니다.
    if let Some(inner) = w.strip_suffix(')') {
        if let Some(open) = inner.rfind('(') {
            let before = inner[..open].trim_end();
            return coda(if before.is_empty() { &inner[open + 1..] } else { before });
        }
        return coda(inner);
    }
    // "[2, 3]"이나 따옴표는 안쪽 끝말을 읽습니다.
    let w = w.trim_end_matches([']', '"', '\'', '.']);
    let Some(last) = w.chars().last() else {
        return Coda::Open;
    };
    if ('\u{AC00}'..='\u{D7A3}').contains(&last) {
        return match (last as u32 - 0xAC00) % 28 {
            0 => Coda::Open,
            8 => Coda::Rieul,
            _ => Coda::Closed,
        };
    }
    if last.is_ascii_digit() {
        let digits: String = w.chars().rev().take_while(|c| c.is_ascii_digit()).collect();
        // digits는 거꾸로 되어 있습니다: 첫 글자가 일의 자리입니다.
        if digits.chars().all(|c| c == '0') {
            return Coda::Closed; // 영
        }
        if !digits.starts_with('0') {
            return match last {
                '1' | '7' | '8' => Coda::Rieul,  // 일, 칠, 팔
                '0' | '3' | '6' => Coda::Closed, // 영, 삼, 육
                _ => Coda::Open,                 // 이, 사, 오, 구
            };
        }
        return Coda::Closed; // 십, 백, 천, 만, 억 ...
    }
    if last.is_ascii_alphabetic() {
        let letters: String =
            w.chars().rev().take_while(|c| c.is_ascii_alphabetic()).collect::<Vec<_>>().into_iter().rev().collect();
        if letters.chars().all(|c| c.is_ascii_uppercase()) {
            // 약어는 글자 이름으로 읽습니다: 엘, 알 / 엠, 엔.
            return match last {
                'L' | 'R' => Coda::Rieul,
                'M' | 'N' => Coda::Closed,
                _ => Coda::Open,
            };
        }
        let l = letters.to_ascii_lowercase();
        if l.ends_with('l') || l.ends_with("le") {
            return Coda::Rieul;
        }
        if l.ends_with('m') || l.ends_with('n') || l.ends_with("ng") || l.ends_with('k') {
            return Coda::Closed;
        }
        return Coda::Open;
    }
    Coda::Open
}

fn attach(word: impl Display, closed: &str, open: &str, rieul_takes_open: bool) -> String {
    let w = word.to_string();
    let particle = match coda(&w) {
        Coda::Open => open,
        Coda::Rieul if rieul_takes_open => open,
        Coda::Rieul | Coda::Closed => closed,
    };
    format!("{w}{particle}")
}

/// 주격 조사 이/가를 붙입니다.
pub(crate) fn ga(word: impl Display) -> String {
    attach(word, "이", "가", false)
}

/// 보조사 은/는을 붙입니다.
pub(crate) fn neun(word: impl Display) -> String {
    attach(word, "은", "는", false)
}

/// 목적격 조사 을/를을 붙입니다.
pub(crate) fn reul(word: impl Display) -> String {
    attach(word, "을", "를", false)
}

/// 조사 와/과를 붙입니다.
pub(crate) fn wa(word: impl Display) -> String {
    attach(word, "과", "와", false)
}

/// 조사 (으)로를 붙입니다 (ㄹ 받침 뒤에는 "로").
pub(crate) fn ro(word: impl Display) -> String {
    attach(word, "으로", "로", true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::narration::{English, Narrator};
    use crate::ui::narrate::samples::{
        kind_index, stage_index, wait_index, ALL_STAGES, KIND_COUNT, STAGE_COUNT, WAIT_COUNT,
    };
    use crate::sim::ids::TopicPartition;
    use crate::sim::collections::BTreeSet;

    fn has_hangul(s: &str) -> bool {
        s.chars().any(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c))
    }

    /// 문장 속 숫자들. 앞에 글자가 없는 '-'는 부호로 봅니다("client-0"의 '-'는 아님).
    fn numbers(s: &str) -> BTreeSet<String> {
        let chars: Vec<char> = s.chars().collect();
        let mut out = BTreeSet::new();
        let mut i = 0;
        while i < chars.len() {
            if chars[i].is_ascii_digit() {
                let start = i;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
                let mut n: String = chars[start..i].iter().collect();
                let signed =
                    start >= 1 && chars[start - 1] == '-' && (start < 2 || !chars[start - 2].is_alphanumeric());
                if signed {
                    n.insert(0, '-');
                }
                out.insert(n);
            } else {
                i += 1;
            }
        }
        out
    }

    fn tp(p: u32) -> TopicPartition {
        TopicPartition::new("orders", p)
    }

    fn client_req(c: i32) -> RequestId {
        RequestId { client: NodeId::Client(0), correlation_id: c }
    }

    fn follower_req(c: i32) -> RequestId {
        RequestId { client: NodeId::Broker(2), correlation_id: c }
    }

    fn ev(kind: TraceKind) -> TraceEvent {
        TraceEvent { step: 1, time_ms: 0, node: NodeId::Broker(1), kind }
    }

    fn hw_wait(laggards: Vec<(u32, i64)>) -> WaitReason {
        WaitReason::HighWatermark { partition: tp(1), required_offset: 42, high_watermark: 37, laggards }
    }

    fn min_bytes_wait() -> WaitReason {
        WaitReason::MinBytes { min_bytes: 1024, available_bytes: 300 }
    }

    /// 모든 변형(과 그 안의 갈래)마다 이벤트 하나와, 한국어 문장에 꼭 들어가야 할 숫자들.
    fn cases() -> Vec<(TraceEvent, Vec<i64>)> {
        let mut v: Vec<(TraceEvent, Vec<i64>)> = vec![
            (ev(TraceKind::BrokerStarted { broker: 3 }), vec![3]),
            (ev(TraceKind::ControllerStarted { controller: 2, recovered: false, log_end_offset: 0 }), vec![2]),
            (ev(TraceKind::ControllerStarted { controller: 2, recovered: true, log_end_offset: 17 }), vec![2, 17]),
            (ev(TraceKind::ControllerStopped { controller: 4 }), vec![4]),
            (ev(TraceKind::ControllerActivated { controller: 2, epoch: 9 }), vec![2, 9]),
            (
                ev(TraceKind::MetadataRecordAppended {
                    controller: 1,
                    offset: 23,
                    record: Box::new(crate::sim::metadata::MetadataRecord::RegisterBroker { broker: 4, epoch: 23, incarnation: 1 }),
                }),
                vec![1, 23],
            ),
            (ev(TraceKind::BrokerSessionExpired { broker: 3, last_heartbeat_ms: 4567 }), vec![3, 4567]),
            (ev(TraceKind::BrokerRegistered { broker: 3, controller: 1, broker_epoch: 42 }), vec![3, 1, 42]),
            (ev(TraceKind::BrokerRegistrationRefused { broker: 3, controller: 1, session_ends_ms: 9876 }), vec![1, 3, 9876]),
            (
                ev(TraceKind::MetadataRecordApplied {
                    broker: 2,
                    offset: 31,
                    record: Box::new(crate::sim::metadata::MetadataRecord::BrokerRegistrationChange { broker: 5, fenced: false }),
                }),
                vec![2, 31],
            ),
            (ev(TraceKind::BrokerStopped { broker: 6 }), vec![6]),
            (
                ev(TraceKind::NetworkPartitioned {
                    a: vec![NodeId::Broker(1)],
                    b: vec![NodeId::Controller(2), NodeId::Controller(3)],
                }),
                vec![1, 2, 3],
            ),
            (ev(TraceKind::NetworkHealed { cuts: 2 }), vec![2]),
            (
                ev(TraceKind::MessageLost { from: NodeId::Broker(4), to: NodeId::Controller(5), what: MessageKind::ControlPlane(ControlPlaneRpc::BrokerControl(ControlRpc::BrokerHeartbeat)) }),
                vec![4, 5],
            ),
            (ev(TraceKind::Disconnected { node: NodeId::Client(3), peer: NodeId::Broker(7), refused: true }), vec![3, 7]),
            (ev(TraceKind::Disconnected { node: NodeId::Broker(2), peer: NodeId::Broker(8), refused: false }), vec![2, 8]),
            (ev(TraceKind::ControlledShutdownRequested { broker: 4 }), vec![4]),
            (ev(TraceKind::BrokerInControlledShutdown { broker: 4, controller: 1, partitions: 12 }), vec![4, 1, 12]),
            (ev(TraceKind::BrokerShutDown { broker: 9 }), vec![9]),
            (
                ev(TraceKind::LeaderElected(Box::new(crate::sim::trace::LeaderElection {
                    controller: 1,
                    partition: tp(1),
                    leader: Some(4),
                    previous: Some(2),
                    leader_epoch: 9,
                    trigger: crate::sim::trace::ElectionTrigger::LeaderFenced,
                    unclean: true,
                    passed_over: vec![(2, crate::sim::trace::Standing::Fenced)],
                    previous_isr: vec![2],
                }))),
                vec![1, 4, 9, 2],
            ),
            (
                ev(TraceKind::RaftSent { rpc: ControlPlaneRpc::Quorum(QuorumRpc::Vote), to: NodeId::Controller(1), arrives_at_ms: 1234 }),
                vec![1, 1234],
            ),
            (
                ev(TraceKind::Raft {
                    controller: 1,
                    event: crate::sim::raft::output::RaftEvent::BecameLeader { epoch: 7, epoch_start_offset: 3 },
                }),
                vec![1, 7],
            ),
            (
                ev(TraceKind::Sent {
                    request: client_req(17),
                    api: ApiKey::Produce,
                    direction: Direction::Request,
                    to: NodeId::Broker(2),
                    arrives_at_ms: 1234,
                }),
                vec![17, 2, 1234],
            ),
            (
                ev(TraceKind::Sent {
                    request: follower_req(18),
                    api: ApiKey::Fetch,
                    direction: Direction::Response,
                    to: NodeId::Broker(2),
                    arrives_at_ms: 987,
                }),
                vec![18, 2, 987],
            ),
            (ev(TraceKind::ConnectionMuted { client: NodeId::Client(5), muted: true }), vec![5]),
            (ev(TraceKind::ConnectionMuted { client: NodeId::Client(6), muted: false }), vec![6]),
            (ev(TraceKind::RequestQueueFull { request: client_req(21), thread: 2, capacity: 500 }), vec![21, 2, 500]),
            (ev(TraceKind::NoResponse { request: client_req(22), client: NodeId::Client(0) }), vec![22, 0]),
            (
                ev(TraceKind::ConnectionClosed { request: client_req(22), client: NodeId::Client(2), error: ErrorCode::NotLeaderOrFollower }),
                vec![22, 2, 6],
            ),
            (
                ev(TraceKind::Appended {
                    request: client_req(23),
                    partition: tp(1),
                    replica: 2,
                    base_offset: 40,
                    last_offset: 44,
                    log_end_offset: 45,
                    segment: 20,
                    position: 4096,
                }),
                vec![1, 2, 40, 44, 45, 4096],
            ),
            (
                ev(TraceKind::Appended {
                    request: client_req(24),
                    partition: tp(2),
                    replica: 3,
                    base_offset: 7,
                    last_offset: 7,
                    log_end_offset: 8,
                    segment: 0,
                    position: 0,
                }),
                vec![2, 3, 7, 8, 0],
            ),
            (
                ev(TraceKind::ProduceRejected {
                    request: client_req(25),
                    partition: tp(1),
                    error: ErrorCode::NotEnoughReplicas,
                    reason: RejectReason::NotEnoughInSyncReplicas { isr: vec![1], min_insync_replicas: 2 },
                }),
                vec![1, 19, 2],
            ),
            (
                ev(TraceKind::ProduceRejected {
                    request: client_req(26),
                    partition: tp(3),
                    error: ErrorCode::NotLeaderOrFollower,
                    reason: RejectReason::NotLeader { broker: 1 },
                }),
                vec![3, 6],
            ),
            (
                ev(TraceKind::DuplicateBatch {
                    request: client_req(27),
                    partition: tp(0),
                    producer_id: 1000,
                    base_sequence: 5,
                    original_base_offset: 12,
                }),
                vec![0, 1000, 5, 12],
            ),
            (
                ev(TraceKind::SegmentRolled {
                    partition: tp(1),
                    replica: 2,
                    base_offset: 300,
                    reason: RollReason::SegmentBytes,
                }),
                vec![1, 2],
            ),
            (
                ev(TraceKind::SegmentRolled {
                    partition: tp(1),
                    replica: 2,
                    base_offset: 301,
                    reason: RollReason::SegmentMs,
                }),
                vec![1, 2],
            ),
            (
                ev(TraceKind::SegmentDeleted {
                    partition: tp(2),
                    replica: 1,
                    base_offset: 100,
                    reason: DeletionReason::Time,
                    log_start_offset: 250,
                }),
                vec![2, 1, 250],
            ),
            (
                ev(TraceKind::SegmentDeleted {
                    partition: tp(2),
                    replica: 1,
                    base_offset: 250,
                    reason: DeletionReason::Size,
                    log_start_offset: 400,
                }),
                vec![2, 1, 400],
            ),
            (
                ev(TraceKind::LogRead {
                    request: client_req(28),
                    partition: tp(1),
                    replica: 2,
                    fetch_offset: 33,
                    bytes: 512,
                    upper_bound: ReadBound::HighWatermark,
                    lookup: None,
                    error: ErrorCode::None,
                }),
                vec![1, 2, 33, 512],
            ),
            (
                ev(TraceKind::LogRead {
                    request: follower_req(29),
                    partition: tp(1),
                    replica: 3,
                    fetch_offset: 34,
                    bytes: 640,
                    upper_bound: ReadBound::LogEndOffset,
                    lookup: None,
                    error: ErrorCode::None,
                }),
                vec![1, 3, 34, 640],
            ),
            (
                ev(TraceKind::LogRead {
                    request: client_req(30),
                    partition: tp(1),
                    replica: 2,
                    fetch_offset: 999,
                    bytes: 0,
                    upper_bound: ReadBound::HighWatermark,
                    lookup: None,
                    error: ErrorCode::OffsetOutOfRange,
                }),
                vec![1, 2, 999],
            ),
            (
                ev(TraceKind::Parked {
                    request: client_req(31),
                    client: NodeId::Client(0),
                    operation: 9,
                    waits: vec![hw_wait(vec![(2, 38), (3, 36)]), min_bytes_wait()],
                    timeout_ms: 30000,
                }),
                vec![31, 30000, 1, 42, 37, 2, 38, 3, 36, 1024, 300],
            ),
            (
                ev(TraceKind::Parked {
                    request: client_req(32),
                    client: NodeId::Client(0),
                    operation: 10,
                    waits: vec![hw_wait(vec![])],
                    timeout_ms: 500,
                }),
                vec![32, 500, 42, 37],
            ),
            (ev(TraceKind::PurgatoryCompleted { request: client_req(33), operation: 9, expired: false }), vec![33]),
            (ev(TraceKind::PurgatoryCompleted { request: client_req(34), operation: 10, expired: true }), vec![34]),
            (
                ev(TraceKind::HighWatermarkAdvanced {
                    partition: tp(1),
                    replica: 1,
                    from: 10,
                    to: 15,
                    isr: vec![1, 2, 3],
                }),
                vec![1, 10, 15, 2, 3],
            ),
            (
                ev(TraceKind::IsrShrunk { partition: tp(2), removed: [3].into(), lag_ms: 30012, isr: vec![1, 2] }),
                vec![2, 3, 30012, 1],
            ),
            (
                ev(TraceKind::IsrExpanded { partition: tp(2), replica: 3, follower_leo: 88, isr: vec![1, 2, 3] }),
                vec![2, 3, 88, 1],
            ),
            (
                ev(TraceKind::FollowerTruncated { partition: tp(0), replica: 1, to_offset: 57, epoch: 4 }),
                vec![0, 1, 57, 4],
            ),
            (ev(TraceKind::FollowerHighWatermark { partition: tp(0), replica: 2, high_watermark: 61 }), vec![0, 2, 61]),
            (
                ev(TraceKind::PartitionChosen {
                    client: NodeId::Client(0),
                    partition: tp(2),
                    reason: PartitionReason::Keyed { murmur2: -790332482, positive: 1357151166, partitions: 3 },
                }),
                vec![0, -790332482, 1357151166, 3, 2],
            ),
            (
                ev(TraceKind::PartitionChosen {
                    client: NodeId::Client(1),
                    partition: tp(1),
                    reason: PartitionReason::Sticky { reason: StickyReason::Stayed { bytes_so_far: 1200 } },
                }),
                vec![1, 1200],
            ),
            (
                ev(TraceKind::PartitionChosen {
                    client: NodeId::Client(1),
                    partition: tp(4),
                    reason: PartitionReason::Sticky { reason: StickyReason::Switched { previous: 2 } },
                }),
                vec![1, 4, 2],
            ),
            (
                ev(TraceKind::PartitionChosen {
                    client: NodeId::Client(1),
                    partition: tp(0),
                    reason: PartitionReason::Sticky { reason: StickyReason::First },
                }),
                vec![1, 0],
            ),
            (
                ev(TraceKind::PartitionChosen {
                    client: NodeId::Client(2),
                    partition: tp(1),
                    reason: PartitionReason::RoundRobin { counter: 14 },
                }),
                vec![2, 14, 1],
            ),
            (
                ev(TraceKind::PartitionChosen {
                    client: NodeId::Client(3),
                    partition: tp(5),
                    reason: PartitionReason::Explicit,
                }),
                vec![3, 5],
            ),
            (
                ev(TraceKind::BatchReady {
                    client: NodeId::Client(0),
                    partition: tp(1),
                    records: 12,
                    bytes: 16384,
                    reason: BatchReadyReason::BatchSizeReached,
                }),
                vec![0, 1, 12, 16384],
            ),
            (
                ev(TraceKind::BatchReady {
                    client: NodeId::Client(0),
                    partition: tp(2),
                    records: 3,
                    bytes: 210,
                    reason: BatchReadyReason::LingerPassed { linger_ms: 5 },
                }),
                vec![0, 2, 3, 210, 5],
            ),
            (
                ev(TraceKind::MetadataUpdated {
                    client: NodeId::Client(0),
                    leaders: vec![(tp(0), Some(1)), (tp(1), Some(2)), (tp(2), None)],
                }),
                vec![0, 1, 2],
            ),
            (
                ev(TraceKind::ProducerIdAssigned { client: NodeId::Client(0), producer_id: 4000, producer_epoch: 0 }),
                vec![0, 4000],
            ),
            (
                ev(TraceKind::ProduceCompleted {
                    request: client_req(35),
                    partition: tp(1),
                    base_offset: 70,
                    error: ErrorCode::None,
                    records: 6,
                }),
                vec![35, 1, 70, 6],
            ),
            (
                ev(TraceKind::ProduceCompleted {
                    request: client_req(36),
                    partition: tp(1),
                    base_offset: -1,
                    error: ErrorCode::RequestTimedOut,
                    records: 6,
                }),
                vec![36, 1, 7],
            ),
            (
                ev(TraceKind::ProduceRetry {
                    client: NodeId::Client(0),
                    partition: tp(2),
                    error: ErrorCode::NotLeaderOrFollower,
                    attempt: 2,
                }),
                vec![0, 2, 6],
            ),
            (
                ev(TraceKind::LoadStarted {
                    client: NodeId::Client(0),
                    load: Box::new(crate::sim::load::Load {
                        topic: "orders".into(),
                        records_per_sec: 50,
                        keys: KeyPattern::Fixed(10),
                        value_bytes: 200,
                    }),
                }),
                vec![0, 50, 10, 200],
            ),
            (ev(TraceKind::LoadStopped { client: NodeId::Client(1), sent: 3001 }), vec![1, 3001]),
            (
                ev(TraceKind::BatchSplit { client: NodeId::Client(0), partition: tp(1), records: 12, bytes: 5000, batch_size: 16384, batches: 1 }),
                vec![0, 1, 12, 5000, 16384],
            ),
            (
                ev(TraceKind::BatchSplit { client: NodeId::Client(0), partition: tp(1), records: 12, bytes: 5000, batch_size: 16384, batches: 3 }),
                vec![0, 1, 12, 5000, 16384, 3],
            ),
            (
                ev(TraceKind::BatchExpired { client: NodeId::Client(1), partition: tp(2), records: 4, delivery_timeout_ms: 120_000 }),
                vec![1, 2, 4, 120_000],
            ),
            (
                ev(TraceKind::FetchCompleted {
                    request: client_req(37),
                    partition: tp(1),
                    records: 9,
                    next_offset: 81,
                    high_watermark: 90,
                    error: ErrorCode::None,
                }),
                vec![1, 9, 81, 90],
            ),
            (
                ev(TraceKind::FetchCompleted {
                    request: client_req(38),
                    partition: tp(1),
                    records: 0,
                    next_offset: 81,
                    high_watermark: 90,
                    error: ErrorCode::OffsetOutOfRange,
                }),
                vec![1],
            ),
        ];
        // Hop: 모든 Stage를 목적지로, 요청과 응답 양쪽으로, 클라이언트와 팔로워의 요청으로.
        for (i, to) in ALL_STAGES.iter().enumerate() {
            for direction in [Direction::Request, Direction::Response] {
                for follower in [false, true] {
                    let correlation = 100 + i as i32;
                    let request = if follower { follower_req(correlation) } else { client_req(correlation) };
                    let api = if follower { ApiKey::Fetch } else { ApiKey::Produce };
                    let from = ALL_STAGES[(i + ALL_STAGES.len() - 1) % ALL_STAGES.len()];
                    v.push((ev(TraceKind::Hop { request, api, direction, from, to: *to }), vec![correlation as i64]));
                }
            }
        }
        // Metadata와 InitProducerId 요청도 한 번씩.
        for api in [ApiKey::Metadata, ApiKey::InitProducerId] {
            v.push((
                ev(TraceKind::Hop {
                    request: client_req(200),
                    api,
                    direction: Direction::Request,
                    from: Stage::Client,
                    to: Stage::Wire,
                }),
                vec![200],
            ));
        }
        v
    }

    #[test]
    fn every_variant_stage_and_wait_is_covered() {
        let cases = cases();
        let kinds: BTreeSet<usize> = cases.iter().map(|(e, _)| kind_index(&e.kind)).collect();
        assert_eq!(kinds, (0..KIND_COUNT).collect::<BTreeSet<_>>(), "a TraceKind variant has no test event");

        let mut stages: BTreeSet<usize> = BTreeSet::new();
        let mut waits: BTreeSet<usize> = BTreeSet::new();
        for (e, _) in &cases {
            match &e.kind {
                TraceKind::Hop { from, to, .. } => {
                    stages.insert(stage_index(from));
                    stages.insert(stage_index(to));
                }
                TraceKind::Parked { waits: w, .. } => waits.extend(w.iter().map(wait_index)),
                _ => {}
            }
        }
        assert_eq!(stages, (0..STAGE_COUNT).collect::<BTreeSet<_>>(), "a Stage has no test event");
        assert_eq!(waits, (0..WAIT_COUNT).collect::<BTreeSet<_>>(), "a WaitReason has no test event");
    }

    #[test]
    fn every_sentence_is_korean_and_keeps_the_key_numbers() {
        for (e, keys) in cases() {
            let ko = narrate(&e);
            assert!(!ko.trim().is_empty(), "empty narration for {:?}", e.kind);
            assert!(has_hangul(&ko), "no Hangul in {ko:?}");
            let found = numbers(&ko);
            for k in keys {
                assert!(found.contains(&k.to_string()), "{ko:?} lacks {k} (event {:?})", e.kind);
            }
        }
    }

    #[test]
    fn english_and_korean_mention_the_same_numbers() {
        let samples = crate::ui::narrate::samples::events();
        for e in cases().into_iter().map(|(e, _)| e).chain(samples) {
            let en = English.event(&e);
            let ko = narrate(&e);
            assert_eq!(numbers(&en), numbers(&ko), "\nEN: {en}\nKO: {ko}");
        }
    }

    #[test]
    fn every_stage_has_a_korean_name_with_its_number() {
        for s in ALL_STAGES {
            let name = stage_name(s);
            assert!(has_hangul(&name), "{name:?}");
            assert_eq!(numbers(&name), numbers(&English.stage(s)), "{name:?}");
        }
        assert_eq!(stage_name(Stage::IoThread(3)), "I/O 스레드 3");
        assert_eq!(stage_name(Stage::NetworkThread(1)), "네트워크 스레드 1");
        assert!(stage_name(Stage::Purgatory).contains("퍼거토리"));
    }

    #[test]
    fn both_waits_are_described_in_korean_with_their_numbers() {
        let waits = [hw_wait(vec![(2, 38)]), hw_wait(vec![]), min_bytes_wait()];
        for w in &waits {
            let ko = describe_wait(w);
            let en = English.wait(w);
            assert!(has_hangul(&ko), "{ko:?}");
            assert_eq!(numbers(&en), numbers(&ko), "\nEN: {en}\nKO: {ko}");
        }
        let hw = describe_wait(&waits[0]);
        assert!(hw.contains("하이 워터마크") && hw.contains("42") && hw.contains("37") && hw.contains("38"), "{hw}");
        let mb = describe_wait(&waits[2]);
        assert!(mb.contains("fetch.min.bytes") && mb.contains("1024") && mb.contains("300"), "{mb}");
    }

    /// 학습자가 흔히 잘못 아는 점을 바로잡는 "왜" 문장이 남아 있는지.
    #[test]
    fn the_teaching_clauses_are_kept() {
        let say = |k: TraceKind| narrate(&ev(k));
        let appended = say(TraceKind::Appended {
            request: client_req(1),
            partition: tp(0),
            replica: 1,
            base_offset: 0,
            last_offset: 2,
            log_end_offset: 3,
            segment: 0,
            position: 0,
        });
        assert!(appended.contains("파티션마다") && appended.contains("00000000000000000000.log"), "{appended}");

        let sticky = say(TraceKind::PartitionChosen {
            client: NodeId::Client(0),
            partition: tp(1),
            reason: PartitionReason::Sticky { reason: StickyReason::First },
        });
        assert!(sticky.contains("스티키") && sticky.contains("라운드 로빈(round-robin)이 아닙니다"), "{sticky}");
        assert!(sticky.contains("batch.size") && sticky.contains("아닙니다"), "{sticky}");

        let read = say(TraceKind::LogRead {
            request: client_req(2),
            partition: tp(0),
            replica: 1,
            fetch_offset: 0,
            bytes: 10,
            upper_bound: ReadBound::HighWatermark,
            lookup: None,
            error: ErrorCode::None,
        });
        assert!(read.contains("하이 워터마크까지만") && read.contains("커밋된"), "{read}");

        let shrunk = say(TraceKind::IsrShrunk { partition: tp(0), removed: [2].into(), lag_ms: 30001, isr: vec![1] });
        assert!(shrunk.contains("replica.lag.time.max.ms") && shrunk.contains("시간으로"), "{shrunk}");

        let deleted = say(TraceKind::SegmentDeleted {
            partition: tp(0),
            replica: 1,
            base_offset: 0,
            reason: DeletionReason::Time,
            log_start_offset: 10,
        });
        assert!(deleted.contains("세그먼트 단위") && deleted.contains("retention.ms"), "{deleted}");

        let expired = say(TraceKind::PurgatoryCompleted { request: client_req(3), operation: 1, expired: true });
        assert!(expired.contains("취소되지 않습니다"), "{expired}");

        let rejected = say(TraceKind::ProduceRejected {
            request: client_req(4),
            partition: tp(0),
            error: ErrorCode::NotEnoughReplicas,
            reason: RejectReason::NotEnoughInSyncReplicas { isr: vec![1], min_insync_replicas: 2 },
        });
        assert!(rejected.contains("NOT_ENOUGH_REPLICAS") && rejected.contains("기록되지 않았습니다"), "{rejected}");

        let no_response = say(TraceKind::NoResponse { request: client_req(5), client: NodeId::Client(0) });
        assert!(no_response.contains("acks=0"), "{no_response}");

        let hop = say(TraceKind::Hop {
            request: client_req(6),
            api: ApiKey::Produce,
            direction: Direction::Request,
            from: Stage::NetworkThread(1),
            to: Stage::RequestQueue,
        });
        assert_eq!(
            hop,
            "Produce 요청 client-0#6이 네트워크 스레드 1에서 요청 큐로 이동했습니다. 모든 네트워크 스레드가 크기가 제한된 이 요청 큐 하나를 함께 쓰며, 쉬고 있는 I/O 스레드라면 어느 것이든 이 요청을 가져갈 수 있습니다."
        );
    }

    #[test]
    fn particles_follow_the_final_sound() {
        assert_eq!(ga("브로커 1"), "브로커 1이");
        assert_eq!(ga("브로커 2"), "브로커 2가");
        assert_eq!(ga("브로커 10"), "브로커 10이");
        assert_eq!(neun("client-0#3"), "client-0#3은");
        assert_eq!(neun("client-0#4"), "client-0#4는");
        assert_eq!(reul("orders-0"), "orders-0을");
        assert_eq!(reul("orders-2"), "orders-2를");
        assert_eq!(ro("3"), "3으로");
        assert_eq!(ro("7"), "7로");
        assert_eq!(ro("8"), "8로");
        assert_eq!(ro("5"), "5로");
        assert_eq!(ro("100"), "100으로");
        assert_eq!(ro("요청 큐"), "요청 큐로");
        assert_eq!(ro("네트워크 스레드 1"), "네트워크 스레드 1로");
        assert_eq!(ro("퍼거토리(Purgatory)"), "퍼거토리(Purgatory)로");
        assert_eq!(ro("로그 추가(append) 단계"), "로그 추가(append) 단계로");
        assert_eq!(ro("소켓 수신 버퍼"), "소켓 수신 버퍼로");
        assert_eq!(ro("클라이언트"), "클라이언트로");
        assert_eq!(ga("브로커 2, 3"), "브로커 2, 3이");
        assert_eq!(wa("broker-1"), "broker-1과");
        assert_eq!(wa("broker-2"), "broker-2와");
        assert_eq!(ga("Produce 요청 client-0#5에 대한 응답"), "Produce 요청 client-0#5에 대한 응답이");
        assert_eq!(ro(12), "12로");
        assert_eq!(ro(13), "13으로");
        assert_eq!(ga("ISR"), "ISR이");
        assert_eq!(ga("LEO"), "LEO가");
    }
}
