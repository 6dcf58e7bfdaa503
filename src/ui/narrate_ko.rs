//! 한국어 내레이션: 트레이스 이벤트 하나마다 한 문장으로, 무슨 일이 일어났는지와
//! (배울 점이 있는 곳에서는) 왜 그런지를 말합니다. `super::narrate`의 영어 문장과
//! 같은 사실, 같은 숫자를 담습니다.
//!
//! Kafka 자신의 식별자(acks, min.insync.replicas, replica.lag.time.max.ms,
//! linger.ms, batch.size, fetch.min.bytes 같은 설정 이름, NOT_ENOUGH_REPLICAS 같은
//! 오류 이름, Produce·Fetch·Metadata 같은 API 이름, 파일 이름)는 라틴 문자 그대로
//! 둡니다. 학습자가 문서와 로그에서 그대로 찾아볼 수 있어야 하기 때문입니다.

use crate::sim::ids::{NodeId, RequestId};
use crate::sim::protocol::{ApiKey, ErrorCode};
use crate::sim::trace::{Direction, PartitionReason, ReadBound, Stage, TraceEvent, TraceKind, WaitReason};
use std::fmt::Display;

/// 화면에 쓰는 단계 이름.
pub fn stage_name(stage: Stage) -> String {
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
pub fn describe_wait(w: &WaitReason) -> String {
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

pub fn narrate(event: &TraceEvent) -> String {
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
        TraceKind::ProduceRejected { partition, error, detail, .. } => {
            let detail = if detail.is_empty() { String::new() } else { format!("(상세: {detail})") };
            format!("리더가 {partition}의 배치를 {error} 오류로 거부했습니다{detail}. 아무것도 기록되지 않았습니다.")
        }
        TraceKind::DuplicateBatch { partition, producer_id, base_sequence, original_base_offset, .. } => format!(
            "{} 시퀀스 번호 {base_sequence}인 배치를 {partition}에 다시 보냈습니다: 브로커는 재시도임을 알아보고, 두 번 기록하는 대신 원래 오프셋 {} 응답합니다.",
            ga(format!("프로듀서 {producer_id}")),
            ro(original_base_offset)
        ),
        TraceKind::SegmentRolled { partition, replica, base_offset, reason } => format!(
            "{} {partition}의 세그먼트를 롤(roll)해서 새 세그먼트 {base_offset:020}.log를 시작했습니다({}).",
            ga(format!("브로커 {replica}")),
            reason_ko(reason)
        ),
        TraceKind::SegmentDeleted { partition, replica, base_offset, reason, log_start_offset } => format!(
            "브로커 {replica}의 보존 정책(retention)이 {partition}의 세그먼트 {base_offset:020}.log를 통째로 삭제했습니다({}). 이제 로그 시작 오프셋은 {log_start_offset}입니다. 보존 정책은 레코드를 하나씩 지우지 않고, 언제나 세그먼트 단위로 지웁니다.",
            reason_ko(reason)
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
            format!("{} 퍼거토리를 떠납니다: 기다리던 일이 일어났습니다.", ga(request))
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
            "리더인 브로커 {replica}에서 {partition}의 하이 워터마크가 {from}에서 {} 올라갔습니다: ISR {isr:?}에 있는 모든 레플리카가 그 아래의 레코드를 갖고 있으므로, 이 레코드들은 커밋되었습니다.",
            ro(to)
        ),
        TraceKind::IsrShrunk { partition, removed, lag_ms, isr } => format!(
            "{} {partition}의 ISR에서 빠졌습니다: {lag_ms} ms 동안 리더를 따라잡지 못해 replica.lag.time.max.ms를 넘겼기 때문입니다. 뒤처짐은 메시지 개수가 아니라 시간으로 잽니다. ISR은 {isr:?}이 됩니다: 컨트롤러 쿼럼이 있으면 액티브 컨트롤러가 리더의 AlterPartition을 커밋한 뒤이며, 그때까지 이 레플리카는 여전히 하이 워터마크를 붙잡습니다.",
            ga(format!("레플리카 {removed:?}"))
        ),
        TraceKind::IsrExpanded { partition, replica, follower_leo, isr } => format!(
            "{} {partition}의 ISR에 다시 들어왔습니다: 로그 끝 오프셋 {} 하이 워터마크에 도달했기 때문입니다. 이제 ISR은 {isr:?}입니다.",
            ga(format!("팔로워 {replica}")),
            ga(follower_leo)
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
            PartitionReason::Sticky { detail } => format!(
                "{client}의 이 레코드에는 키가 없으므로(null 키), 스티키 파티셔너가 약 batch.size 바이트가 찰 때까지 {} 계속 채웁니다({}). 라운드 로빈(round-robin)이 아닙니다.",
                reul(partition),
                reason_ko(detail)
            ),
            PartitionReason::RoundRobin { counter } => {
                format!("{client}의 RoundRobinPartitioner가 {counter}번 레코드를 {partition}에 보냈습니다.")
            }
            PartitionReason::Explicit => {
                format!("{} 레코드에 지정된 파티션 {} 사용합니다.", neun(client), reul(partition))
            }
        },
        TraceKind::BatchReady { client, partition, records, bytes, reason } => format!(
            "{client}의 {partition} 배치가 전송 준비를 마쳤습니다: 레코드 {records}개, {bytes}바이트({}).",
            reason_ko(reason)
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
        TraceKind::ProduceRetry { client, partition, error, attempt } => format!(
            "{} {error} 오류 때문에 {partition} 배치를 다시 보냅니다({attempt}번째 시도). 멱등성이 켜져 있으면, 첫 시도가 이미 기록된 경우 브로커가 중복본을 버립니다.",
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
                    "컨트롤러 {controller}가 메타데이터 로그(엔트리 {log_end_offset}개)와 quorum-state 파일로 다시 시작해 쿼럼에 돌아옵니다."
                )
            } else {
                format!("컨트롤러 {controller}가 시작했습니다. 액티브 컨트롤러 선출에 참여합니다.")
            }
        }
        TraceKind::ControllerStopped { controller } => {
            format!("컨트롤러 {controller}가 죽었습니다. 메타데이터 로그와 quorum-state는 디스크에 남습니다.")
        }
        TraceKind::RaftSent { rpc, to, arrives_at_ms } => {
            format!("쿼럼 {rpc} 메시지가 {to}로 가고, {arrives_at_ms}ms에 도착합니다.")
        }
        TraceKind::Raft { controller, event } => raft_sentence_ko(*controller, event),
        TraceKind::ControllerActivated { controller, epoch } => format!(
            "컨트롤러 {controller}가 쿼럼의 에포크 {epoch} 리더이므로 액티브 컨트롤러입니다. 브로커들이 여기에 등록하고 하트비트를 보냅니다."
        ),
        TraceKind::MetadataRecordAppended { controller, offset, record } => {
            format!("컨트롤러 {controller}가 메타데이터 로그에 레코드 {offset}를 추가했습니다: {record}.")
        }
        TraceKind::BrokerSessionExpired { broker, last_heartbeat_ms } => format!(
            "브로커 {broker}가 {last_heartbeat_ms}ms 이후로 하트비트를 보내지 않아 broker.session.timeout.ms를 넘겼습니다. 컨트롤러가 이 브로커를 펜싱하고 리더 자리를 옮깁니다."
        ),
        TraceKind::BrokerRegistered { broker, controller, broker_epoch } => format!(
            "브로커 {broker}가 컨트롤러 {controller}에 등록하고 브로커 에포크 {broker_epoch}를 받았습니다. 메타데이터 로그를 따라잡을 때까지 펜싱 상태입니다."
        ),
        TraceKind::MetadataRecordApplied { broker, offset, record } => {
            format!("브로커 {broker}가 커밋된 메타데이터 레코드 {offset}를 적용했습니다: {record}.")
        }
        TraceKind::BrokerStopped { broker } => format!(
            "브로커 {broker}가 죽었습니다. 스레드, 큐, 퍼거토리, 연결, 페처는 사라지고 파티션 로그는 디스크에 남습니다."
        ),
        TraceKind::NetworkPartitioned { a, b } => format!(
            "{}와(과) {} 사이의 네트워크가 끊겼습니다. 끊긴 곳을 지나는 메시지는 사라지고 오류도 돌아오지 않아, 양쪽 모두 타임아웃이 지나야 알아챕니다.",
            node_names_ko(a),
            node_names_ko(b)
        ),
        TraceKind::NetworkHealed { cuts } => format!(
            "네트워크가 다시 이어졌습니다(끊긴 곳 {cuts}개 복구). 메시지가 다시 흐르고, 끊겨 있던 노드는 다음 하트비트나 페치로 따라잡습니다."
        ),
        TraceKind::MessageLost { from, to, what } => {
            format!("{from}에서 {to}로 가던 {what}가 네트워크 분할로 사라졌습니다. 보낸 쪽은 오류를 받지 못하고 타임아웃을 기다립니다.")
        }
        TraceKind::Disconnected { node, peer, refused: true } => format!(
            "{peer}의 프로세스가 내려가 있어 호스트가 연결을 거부했습니다. {node}는 곧바로 알아채고, 그쪽에 보낸 요청을 실패로 처리한 뒤 다른 곳을 찾습니다."
        ),
        TraceKind::Disconnected { node, peer, refused: false } => format!(
            "{peer}가 연결을 연 채로 죽어 호스트가 연결을 리셋했습니다. {node}는 타임아웃을 기다리지 않고 곧바로 알아챕니다."
        ),
        TraceKind::ControlledShutdownRequested { broker } => format!(
            "브로커 {broker}가 제어된 종료(controlled shutdown)를 시작합니다. 이제 하트비트로 액티브 컨트롤러에게 먼저 리더 자리를 옮겨 달라고 요청합니다(wantShutDown)."
        ),
        TraceKind::BrokerInControlledShutdown { broker, controller, partitions } => format!(
            "컨트롤러 {controller}가 브로커 {broker}를 제어된 종료 상태로 둡니다. 파티션 변경 {partitions}건으로 리더 자리를 다른 ISR 복제본에 넘기고 ISR에서 뺀 뒤에야 브로커가 멈춥니다."
        ),
        TraceKind::BrokerShutDown { broker } => format!(
            "컨트롤러가 shouldShutDown으로 답해 브로커 {broker}가 깔끔하게 멈춥니다. 이끄는 파티션이 없고, 타임아웃을 기다린 클라이언트도 없습니다."
        ),
        TraceKind::UncleanLeaderElected { partition, leader, leader_epoch, previous_isr } => format!(
            "{partition}의 ISR {previous_isr:?} 중 살아 있는 레플리카가 없고 unclean.leader.election.enable이 켜져 있어, 컨트롤러가 ISR 밖의 브로커 {leader}를 에포크 {leader_epoch}의 리더로 뽑습니다. 이 브로커에 없는 커밋된 레코드는 사라집니다."
        ),
    }
}

/// 노드 이름을 쉼표로 잇습니다.
fn node_names_ko(nodes: &[crate::sim::ids::NodeId]) -> String {
    nodes.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

/// 컨트롤러 Raft 이벤트 한 문장.
fn raft_sentence_ko(controller: u32, event: &crate::sim::raft::output::RaftEvent) -> String {
    use crate::sim::raft::output::RaftEvent as E;
    match event {
        E::BecameLeader { epoch, .. } => {
            format!("컨트롤러 {controller}가 에포크 {epoch} 선거에서 이겨 액티브 컨트롤러가 되었습니다.")
        }
        E::BecameFollower { epoch, leader } => {
            format!("컨트롤러 {controller}가 에포크 {epoch}의 액티브 컨트롤러인 컨트롤러 {leader}를 따릅니다.")
        }
        E::BecameCandidate { epoch, .. } => {
            format!("컨트롤러 {controller}가 에포크 {epoch} 선거에 나서 자신에게 투표합니다.")
        }
        E::VoteGranted { candidate, epoch, .. } => {
            format!("컨트롤러 {controller}가 에포크 {epoch}에서 컨트롤러 {candidate}에게 투표합니다.")
        }
        E::Resigned { epoch, .. } => format!("컨트롤러 {controller}가 에포크 {epoch}의 액티브 컨트롤러 자리에서 물러납니다."),
        other => format!("컨트롤러 {controller}의 Raft: {other:?}."),
    }
}

/// 시뮬레이션이 영어(대개 Rust의 `Debug` 표기)로 넘겨주는 이유 문자열을 아는 것이면
/// 한국어로 옮기고, 모르는 것이면 그대로 둡니다. 숫자는 언제나 그대로 남깁니다.
pub(crate) fn reason_ko(raw: &str) -> String {
    let s = raw.trim();
    let s = s.strip_prefix("Some(").and_then(|r| r.strip_suffix(')')).unwrap_or(s);
    let known = match s {
        // 세그먼트 롤 (RollReason)
        "SegmentBytes" => Some("이 배치를 쓰면 segment.bytes를 넘음".to_string()),
        "SegmentMs" => Some("세그먼트가 segment.ms보다 오래됨".to_string()),
        "OffsetIndexFull" => Some("오프셋 인덱스(.index)가 가득 참".to_string()),
        "TimeIndexFull" => Some("타임 인덱스(.timeindex)가 가득 참".to_string()),
        "RelativeOffsetOverflow" => Some("배치의 마지막 오프셋이 이 세그먼트의 상대 오프셋 범위를 넘음".to_string()),
        // 보존 정책 (DeletionReason)
        "Time" => Some("시간 기준: retention.ms를 넘김".to_string()),
        "Size" => Some("크기 기준: retention.bytes를 넘김".to_string()),
        // 스티키 파티셔너 (StickyReason)
        "First" => Some("이 토픽의 첫 null 키 레코드라 파티션을 새로 고름".to_string()),
        // 배치 봉인
        "batch.size reached" => Some("batch.size에 도달함".to_string()),
        _ => None,
    };
    if let Some(k) = known {
        return k;
    }
    let field = |prefix: &str, suffix: &str| -> Option<String> {
        let v = s.strip_prefix(prefix)?.strip_suffix(suffix)?.trim();
        (!v.is_empty() && v.chars().all(|c| c.is_ascii_digit() || c == '-')).then(|| v.to_string())
    };
    if let Some(n) = field("Stayed { bytes_so_far:", "}") {
        return format!("이 파티션에 지금까지 {n}바이트를 보냄");
    }
    if let Some(n) = field("Switched { previous:", "}") {
        return format!("이전 파티션 {} batch.size만큼 받아서 새로 고름", ga(n));
    }
    if let Some(n) = field("linger.ms (", " ms) passed") {
        return format!("linger.ms({n} ms)가 지남");
    }
    raw.to_string()
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

/// 조사 (으)로를 붙입니다 (ㄹ 받침 뒤에는 "로").
pub(crate) fn ro(word: impl Display) -> String {
    attach(word, "으로", "로", true)
}

#[cfg(test)]
mod tests {
    use super::*;
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

    const ALL_STAGES: [Stage; 12] = [
        Stage::Client,
        Stage::Wire,
        Stage::SocketReceiveBuffer,
        Stage::NetworkThread(1),
        Stage::RequestQueue,
        Stage::IoThread(3),
        Stage::LogAppend,
        Stage::LogRead,
        Stage::Purgatory,
        Stage::ResponseQueue(2),
        Stage::SocketSendBuffer,
        Stage::ReplicaFetcher(4),
    ];

    /// 새 Stage가 생기면 여기서 컴파일이 멈춰, 테스트에 넣으라고 알려 줍니다.
    fn stage_index(s: Stage) -> usize {
        match s {
            Stage::Client => 0,
            Stage::Wire => 1,
            Stage::SocketReceiveBuffer => 2,
            Stage::NetworkThread(_) => 3,
            Stage::RequestQueue => 4,
            Stage::IoThread(_) => 5,
            Stage::LogAppend => 6,
            Stage::LogRead => 7,
            Stage::Purgatory => 8,
            Stage::ResponseQueue(_) => 9,
            Stage::SocketSendBuffer => 10,
            Stage::ReplicaFetcher(_) => 11,
        }
    }
    const STAGE_COUNT: usize = 12;

    /// 새 TraceKind가 생기면 여기서 컴파일이 멈춰, 테스트에 넣으라고 알려 줍니다.
    fn kind_index(k: &TraceKind) -> usize {
        match k {
            TraceKind::BrokerStarted { .. } => 0,
            TraceKind::Hop { .. } => 1,
            TraceKind::Sent { .. } => 2,
            TraceKind::ConnectionMuted { .. } => 3,
            TraceKind::RequestQueueFull { .. } => 4,
            TraceKind::NoResponse { .. } => 5,
            TraceKind::Appended { .. } => 6,
            TraceKind::ProduceRejected { .. } => 7,
            TraceKind::DuplicateBatch { .. } => 8,
            TraceKind::SegmentRolled { .. } => 9,
            TraceKind::SegmentDeleted { .. } => 10,
            TraceKind::LogRead { .. } => 11,
            TraceKind::Parked { .. } => 12,
            TraceKind::PurgatoryCompleted { .. } => 13,
            TraceKind::HighWatermarkAdvanced { .. } => 14,
            TraceKind::IsrShrunk { .. } => 15,
            TraceKind::IsrExpanded { .. } => 16,
            TraceKind::FollowerTruncated { .. } => 17,
            TraceKind::FollowerHighWatermark { .. } => 18,
            TraceKind::PartitionChosen { .. } => 19,
            TraceKind::BatchReady { .. } => 20,
            TraceKind::MetadataUpdated { .. } => 21,
            TraceKind::ProducerIdAssigned { .. } => 22,
            TraceKind::ProduceCompleted { .. } => 23,
            TraceKind::ProduceRetry { .. } => 24,
            TraceKind::FetchCompleted { .. } => 25,
            TraceKind::ControllerStarted { .. } => 26,
            TraceKind::ControllerStopped { .. } => 27,
            TraceKind::RaftSent { .. } => 28,
            TraceKind::Raft { .. } => 29,
            TraceKind::ControllerActivated { .. } => 30,
            TraceKind::MetadataRecordAppended { .. } => 31,
            TraceKind::BrokerSessionExpired { .. } => 32,
            TraceKind::BrokerRegistered { .. } => 33,
            TraceKind::MetadataRecordApplied { .. } => 34,
            TraceKind::BrokerStopped { .. } => 35,
            TraceKind::NetworkPartitioned { .. } => 36,
            TraceKind::NetworkHealed { .. } => 37,
            TraceKind::MessageLost { .. } => 38,
            TraceKind::Disconnected { .. } => 39,
            TraceKind::ControlledShutdownRequested { .. } => 40,
            TraceKind::BrokerInControlledShutdown { .. } => 41,
            TraceKind::BrokerShutDown { .. } => 42,
            TraceKind::UncleanLeaderElected { .. } => 43,
        }
    }
    const KIND_COUNT: usize = 44;

    fn wait_index(w: &WaitReason) -> usize {
        match w {
            WaitReason::HighWatermark { .. } => 0,
            WaitReason::MinBytes { .. } => 1,
        }
    }
    const WAIT_COUNT: usize = 2;

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
                    record: crate::sim::controller::MetadataRecord::RegisterBroker { broker: 4, epoch: 23 },
                }),
                vec![1, 23],
            ),
            (ev(TraceKind::BrokerSessionExpired { broker: 3, last_heartbeat_ms: 4567 }), vec![3, 4567]),
            (ev(TraceKind::BrokerRegistered { broker: 3, controller: 1, broker_epoch: 42 }), vec![3, 1, 42]),
            (
                ev(TraceKind::MetadataRecordApplied {
                    broker: 2,
                    offset: 31,
                    record: crate::sim::controller::MetadataRecord::BrokerRegistrationChange { broker: 5, fenced: false },
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
                ev(TraceKind::MessageLost { from: NodeId::Broker(4), to: NodeId::Controller(5), what: "BrokerHeartbeat".into() }),
                vec![4, 5],
            ),
            (ev(TraceKind::Disconnected { node: NodeId::Client(3), peer: NodeId::Broker(7), refused: true }), vec![3, 7]),
            (ev(TraceKind::Disconnected { node: NodeId::Broker(2), peer: NodeId::Broker(8), refused: false }), vec![2, 8]),
            (ev(TraceKind::ControlledShutdownRequested { broker: 4 }), vec![4]),
            (ev(TraceKind::BrokerInControlledShutdown { broker: 4, controller: 1, partitions: 12 }), vec![4, 1, 12]),
            (ev(TraceKind::BrokerShutDown { broker: 9 }), vec![9]),
            (
                ev(TraceKind::UncleanLeaderElected { partition: tp(1), leader: 4, leader_epoch: 9, previous_isr: vec![2] }),
                vec![1, 4, 9, 2],
            ),
            (
                ev(TraceKind::RaftSent { rpc: "Vote".into(), to: NodeId::Controller(1), arrives_at_ms: 1234 }),
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
                    detail: "ISR [1] is smaller than min.insync.replicas 2".into(),
                }),
                vec![1, 19, 2],
            ),
            (
                ev(TraceKind::ProduceRejected {
                    request: client_req(26),
                    partition: tp(3),
                    error: ErrorCode::NotLeaderOrFollower,
                    detail: String::new(),
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
                    reason: "Some(SegmentBytes)".into(),
                }),
                vec![1, 2],
            ),
            (
                ev(TraceKind::SegmentRolled {
                    partition: tp(1),
                    replica: 2,
                    base_offset: 301,
                    reason: "something new 77".into(),
                }),
                vec![1, 2, 77],
            ),
            (
                ev(TraceKind::SegmentDeleted {
                    partition: tp(2),
                    replica: 1,
                    base_offset: 100,
                    reason: "Time".into(),
                    log_start_offset: 250,
                }),
                vec![2, 1, 250],
            ),
            (
                ev(TraceKind::SegmentDeleted {
                    partition: tp(2),
                    replica: 1,
                    base_offset: 250,
                    reason: "Size".into(),
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
                ev(TraceKind::IsrShrunk { partition: tp(2), removed: vec![3], lag_ms: 30012, isr: vec![1, 2] }),
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
                    reason: PartitionReason::Sticky { detail: "Stayed { bytes_so_far: 1200 }".into() },
                }),
                vec![1, 1200],
            ),
            (
                ev(TraceKind::PartitionChosen {
                    client: NodeId::Client(1),
                    partition: tp(4),
                    reason: PartitionReason::Sticky { detail: "Switched { previous: 2 }".into() },
                }),
                vec![1, 4, 2],
            ),
            (
                ev(TraceKind::PartitionChosen {
                    client: NodeId::Client(1),
                    partition: tp(0),
                    reason: PartitionReason::Sticky { detail: "First".into() },
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
                    reason: "batch.size reached".into(),
                }),
                vec![0, 1, 12, 16384],
            ),
            (
                ev(TraceKind::BatchReady {
                    client: NodeId::Client(0),
                    partition: tp(2),
                    records: 3,
                    bytes: 210,
                    reason: "linger.ms (5 ms) passed".into(),
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
                    stages.insert(stage_index(*from));
                    stages.insert(stage_index(*to));
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
        for (e, _) in cases() {
            let en = crate::ui::narrate::narrate(&e);
            let ko = narrate(&e);
            assert_eq!(numbers(&en), numbers(&ko), "\nEN: {en}\nKO: {ko}");
        }
    }

    #[test]
    fn every_stage_has_a_korean_name_with_its_number() {
        for s in ALL_STAGES {
            let name = stage_name(s);
            assert!(has_hangul(&name), "{name:?}");
            assert_eq!(numbers(&name), numbers(&crate::ui::narrate::stage_name(s)), "{name:?}");
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
            let en = crate::ui::narrate::describe_wait(w);
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
            reason: PartitionReason::Sticky { detail: "First".into() },
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

        let shrunk = say(TraceKind::IsrShrunk { partition: tp(0), removed: vec![2], lag_ms: 30001, isr: vec![1] });
        assert!(shrunk.contains("replica.lag.time.max.ms") && shrunk.contains("시간으로"), "{shrunk}");

        let deleted = say(TraceKind::SegmentDeleted {
            partition: tp(0),
            replica: 1,
            base_offset: 0,
            reason: "Time".into(),
            log_start_offset: 10,
        });
        assert!(deleted.contains("세그먼트 단위") && deleted.contains("retention.ms"), "{deleted}");

        let expired = say(TraceKind::PurgatoryCompleted { request: client_req(3), operation: 1, expired: true });
        assert!(expired.contains("취소되지 않습니다"), "{expired}");

        let rejected = say(TraceKind::ProduceRejected {
            request: client_req(4),
            partition: tp(0),
            error: ErrorCode::NotEnoughReplicas,
            detail: String::new(),
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
        assert_eq!(ga("레플리카 [2, 3]"), "레플리카 [2, 3]이");
        assert_eq!(ga("Produce 요청 client-0#5에 대한 응답"), "Produce 요청 client-0#5에 대한 응답이");
        assert_eq!(ro(12), "12로");
        assert_eq!(ro(13), "13으로");
        assert_eq!(ga("ISR"), "ISR이");
        assert_eq!(ga("LEO"), "LEO가");
    }

    #[test]
    fn known_reasons_are_translated_and_unknown_ones_kept() {
        assert!(has_hangul(&reason_ko("Some(SegmentBytes)")));
        assert!(reason_ko("Some(SegmentBytes)").contains("segment.bytes"));
        assert!(reason_ko("SegmentMs").contains("segment.ms"));
        assert!(reason_ko("Size").contains("retention.bytes"));
        assert_eq!(reason_ko("Stayed { bytes_so_far: 1200 }"), "이 파티션에 지금까지 1200바이트를 보냄");
        assert_eq!(reason_ko("Switched { previous: 2 }"), "이전 파티션 2가 batch.size만큼 받아서 새로 고름");
        assert_eq!(reason_ko("linger.ms (5 ms) passed"), "linger.ms(5 ms)가 지남");
        assert_eq!(reason_ko("Something Else 3"), "Something Else 3");
    }
}
