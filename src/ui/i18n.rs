//! Every string the page shows, in English and Korean. Accessible names
//! (`aria-label`s) stay in English in both languages, so tests and assistive
//! tools find the same controls whichever language is shown.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Lang {
    #[default]
    En,
    Ko,
}

impl Lang {
    /// The `lang` attribute of the page.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ko => "ko",
        }
    }

    pub fn from_code(code: &str) -> Option<Lang> {
        match code {
            "en" => Some(Lang::En),
            "ko" => Some(Lang::Ko),
            _ => None,
        }
    }

    pub fn other(self) -> Lang {
        match self {
            Lang::En => Lang::Ko,
            Lang::Ko => Lang::En,
        }
    }

    pub fn texts(self) -> &'static Texts {
        match self {
            Lang::En => &EN,
            Lang::Ko => &KO,
        }
    }
}

/// The page's fixed strings.
#[derive(Debug, PartialEq, Eq)]
pub struct Texts {
    pub tagline: &'static str,
    /// The language switch shows the language it switches to.
    pub switch_language: &'static str,
    pub key: &'static str,
    pub value: &'static str,
    pub acks: &'static str,
    pub acks_hint: &'static str,
    pub produce: &'static str,
    pub partition: &'static str,
    pub offset: &'static str,
    pub offset_placeholder: &'static str,
    pub min_bytes: &'static str,
    pub max_wait_ms: &'static str,
    pub fetch: &'static str,
    pub step_back: &'static str,
    pub step: &'static str,
    pub play: &'static str,
    pub pause: &'static str,
    pub speed: &'static str,
    pub per_second: &'static str,
    pub timeline: &'static str,
    pub step_word: &'static str,
    pub what_just_happened: &'static str,
    pub start_hint: &'static str,
    pub partitions: &'static str,
    pub epoch: &'static str,
    pub leader_word: &'static str,
    pub follower_word: &'static str,
    pub out_of_isr: &'static str,
    pub on_the_network: &'static str,
    pub nothing_in_flight: &'static str,
    pub arrives: &'static str,
    pub broker: &'static str,
    pub socket_receive_buffer: &'static str,
    pub network_thread: &'static str,
    pub request_queue: &'static str,
    pub io_thread: &'static str,
    pub log_append: &'static str,
    pub log_read: &'static str,
    pub purgatory: &'static str,
    pub response_queue: &'static str,
    pub socket_send_buffer: &'static str,
    pub segments: &'static str,
    pub replica_fetcher: &'static str,
    pub fetch_in_flight: &'static str,
    pub produced_records: &'static str,
    pub nothing_produced: &'static str,
    pub consumed_records: &'static str,
    pub no_fetch_yet: &'static str,
    pub waiting_for_metadata: &'static str,
    pub in_producer_batch: &'static str,
    pub waiting_for_broker: &'static str,
    pub acks0_no_offset: &'static str,
    pub failed_with: &'static str,
    pub key_word: &'static str,
    pub waiting: &'static str,
    pub records_word: &'static str,
    pub next_offset: &'static str,
    pub not_a_whole_number: &'static str,
    pub legend_produce: &'static str,
    pub legend_fetch: &'static str,
    pub legend_follower_fetch: &'static str,
    pub legend_metadata: &'static str,
    pub legend_response: &'static str,
    pub response_word: &'static str,
    pub follower_fetch_label: &'static str,
    pub segment_inspector: &'static str,
    pub replica: &'static str,
    pub inspector_hint: &'static str,
    pub batches_word: &'static str,
    pub bytes_word: &'static str,
    pub active_segment: &'static str,
    pub offset_index: &'static str,
    pub time_index: &'static str,
    pub index_empty: &'static str,
    pub last_lookup: &'static str,
    pub no_lookup: &'static str,
    pub batch_at: &'static str,
    pub fields: &'static str,
    pub hexdump: &'static str,
    pub crc_ok: &'static str,
    pub crc_bad: &'static str,
    pub no_segments: &'static str,
}

pub static EN: Texts = Texts {
    tagline: "A Kafka cluster running in your browser. Send a record, then step through every hop it makes.",
    switch_language: "한국어",
    key: "Key",
    value: "Value",
    acks: "Acks",
    acks_hint: "acks is a producer setting: each choice uses its own producer",
    produce: "Produce",
    partition: "Partition",
    offset: "Offset",
    offset_placeholder: "next",
    min_bytes: "Min bytes",
    max_wait_ms: "Max wait ms",
    fetch: "Fetch",
    step_back: "◀ Step back",
    step: "Step ▶",
    play: "⏵ Play",
    pause: "⏸ Pause",
    speed: "Speed",
    per_second: "/s",
    timeline: "Timeline",
    step_word: "step",
    what_just_happened: "What just happened",
    start_hint: "Press Step to start the brokers, or Produce to send a record, then Step to move it one hop.",
    partitions: "Partitions",
    epoch: "epoch",
    leader_word: "leader",
    follower_word: "follower",
    out_of_isr: "out of ISR",
    on_the_network: "On the network",
    nothing_in_flight: "Nothing in flight.",
    arrives: "arrives",
    broker: "Broker",
    socket_receive_buffer: "Socket receive buffer",
    network_thread: "Network thread",
    request_queue: "Request queue",
    io_thread: "I/O thread",
    log_append: "Log append",
    log_read: "Log read",
    purgatory: "Purgatory",
    response_queue: "Response queue",
    socket_send_buffer: "Socket send buffer",
    segments: "segment(s)",
    replica_fetcher: "Replica fetcher",
    fetch_in_flight: "fetch in flight",
    produced_records: "Produced records",
    nothing_produced: "Nothing produced yet.",
    consumed_records: "Consumed records",
    no_fetch_yet: "No fetch yet: press Fetch.",
    waiting_for_metadata: "waiting for metadata",
    in_producer_batch: "in the producer's batch",
    waiting_for_broker: "waiting for the broker's answer",
    acks0_no_offset: "sent with acks=0: no offset comes back",
    failed_with: "failed with",
    key_word: "key",
    waiting: "waiting",
    records_word: "record(s)",
    next_offset: "next offset",
    not_a_whole_number: "is not a whole number",
    legend_produce: "a producer's records",
    legend_fetch: "a consumer reading",
    legend_follower_fetch: "a follower copying the leader",
    legend_metadata: "who leads what",
    legend_response: "outlined: a response",
    response_word: "response",
    follower_fetch_label: "Follower Fetch",
    segment_inspector: "Segment inspector",
    replica: "Replica",
    inspector_hint: "A partition's log is a list of segments. Each .log holds record batches back to back; the .index maps some offsets to byte positions (about one entry per index.interval.bytes), and the .timeindex maps timestamps to offsets.",
    batches_word: "batch(es)",
    bytes_word: "bytes",
    active_segment: "active",
    offset_index: "Offset index (.index)",
    time_index: "Time index (.timeindex)",
    index_empty: "no entries yet: the index is sparse, and the first batch of a segment gets none",
    last_lookup: "Last fetch lookup",
    no_lookup: "No fetch has read this replica's log yet.",
    batch_at: "Batch at byte",
    fields: "Fields (record batch v2)",
    hexdump: "Bytes",
    crc_ok: "CRC-32C valid",
    crc_bad: "CRC-32C mismatch",
    no_segments: "This replica's log holds no batches yet.",
};

pub static KO: Texts = Texts {
    tagline: "브라우저 안에서 돌아가는 카프카 클러스터입니다. 레코드를 보내고, 그 레코드가 거치는 모든 단계를 한 단계씩 따라가 보세요.",
    switch_language: "English",
    key: "키",
    value: "값",
    acks: "acks",
    acks_hint: "acks는 프로듀서 설정입니다. 선택마다 다른 프로듀서를 씁니다",
    produce: "프로듀스",
    partition: "파티션",
    offset: "오프셋",
    offset_placeholder: "다음",
    min_bytes: "최소 바이트",
    max_wait_ms: "최대 대기 ms",
    fetch: "페치",
    step_back: "◀ 한 단계 뒤로",
    step: "한 단계 ▶",
    play: "⏵ 재생",
    pause: "⏸ 일시정지",
    speed: "속도",
    per_second: "/초",
    timeline: "타임라인",
    step_word: "단계",
    what_just_happened: "방금 일어난 일",
    start_hint: "한 단계를 눌러 브로커를 시작하거나, 프로듀스로 레코드를 보낸 뒤 한 단계를 눌러 한 홉씩 움직여 보세요.",
    partitions: "파티션",
    epoch: "에포크",
    leader_word: "리더",
    follower_word: "팔로워",
    out_of_isr: "ISR 밖",
    on_the_network: "네트워크 위",
    nothing_in_flight: "전송 중인 메시지가 없습니다.",
    arrives: "도착",
    broker: "브로커",
    socket_receive_buffer: "소켓 수신 버퍼",
    network_thread: "네트워크 스레드",
    request_queue: "요청 큐",
    io_thread: "I/O 스레드",
    log_append: "로그 추가",
    log_read: "로그 읽기",
    purgatory: "퍼거토리(Purgatory)",
    response_queue: "응답 큐",
    socket_send_buffer: "소켓 송신 버퍼",
    segments: "개 세그먼트",
    replica_fetcher: "레플리카 페처",
    fetch_in_flight: "페치 전송 중",
    produced_records: "프로듀스한 레코드",
    nothing_produced: "아직 프로듀스한 레코드가 없습니다.",
    consumed_records: "컨슘한 레코드",
    no_fetch_yet: "아직 페치하지 않았습니다. 페치를 눌러 보세요.",
    waiting_for_metadata: "메타데이터를 기다리는 중",
    in_producer_batch: "프로듀서의 배치 안에 있음",
    waiting_for_broker: "브로커의 응답을 기다리는 중",
    acks0_no_offset: "acks=0으로 보냄: 오프셋이 돌아오지 않습니다",
    failed_with: "실패:",
    key_word: "키",
    waiting: "기다리는 중",
    records_word: "개 레코드",
    next_offset: "다음 오프셋",
    not_a_whole_number: "은(는) 정수가 아닙니다",
    legend_produce: "프로듀서의 레코드",
    legend_fetch: "컨슈머의 읽기",
    legend_follower_fetch: "리더를 복제하는 팔로워",
    legend_metadata: "누가 리더인지 묻기",
    legend_response: "테두리만: 응답",
    response_word: "응답",
    follower_fetch_label: "팔로워 Fetch",
    segment_inspector: "세그먼트 인스펙터",
    replica: "레플리카",
    inspector_hint: "파티션의 로그는 세그먼트의 목록입니다. 각 .log에는 레코드 배치가 차례로 들어 있고, .index는 일부 오프셋을 바이트 위치로 연결하며(대략 index.interval.bytes마다 하나), .timeindex는 타임스탬프를 오프셋으로 연결합니다.",
    batches_word: "개 배치",
    bytes_word: "바이트",
    active_segment: "활성",
    offset_index: "오프셋 인덱스 (.index)",
    time_index: "타임 인덱스 (.timeindex)",
    index_empty: "아직 항목이 없습니다. 인덱스는 희소(sparse)하며 세그먼트의 첫 배치에는 항목이 생기지 않습니다",
    last_lookup: "마지막 페치의 조회 경로",
    no_lookup: "아직 이 레플리카의 로그를 읽은 페치가 없습니다.",
    batch_at: "바이트 위치의 배치",
    fields: "필드 (레코드 배치 v2)",
    hexdump: "바이트",
    crc_ok: "CRC-32C 정상",
    crc_bad: "CRC-32C 불일치",
    no_segments: "이 레플리카의 로그에는 아직 배치가 없습니다.",
};

#[cfg(test)]
mod tests {
    use super::*;

    /// Every Korean string is translated: none is left equal to the English
    /// one, except Kafka's own identifiers.
    #[test]
    fn every_string_has_a_korean_translation() {
        let en = format!("{EN:?}");
        let ko = format!("{KO:?}");
        let pairs: Vec<(&str, &str)> = en
            .split(", ")
            .zip(ko.split(", "))
            .filter_map(|(e, k)| Some((e.split_once(": ")?.1, k.split_once(": ")?.1)))
            .collect();
        assert!(pairs.len() > 50, "the struct was read field by field");
        let identical: Vec<_> = pairs.iter().filter(|(e, k)| e == k && !["\"Acks\"", "\"acks\""].contains(e)).collect();
        assert!(identical.is_empty(), "untranslated: {identical:?}");
        assert!(KO.tagline.chars().any(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c)));
    }

    #[test]
    fn language_codes_round_trip() {
        for lang in [Lang::En, Lang::Ko] {
            assert_eq!(Lang::from_code(lang.code()), Some(lang));
            assert_eq!(lang.other().other(), lang);
        }
        assert_eq!(Lang::from_code("fr"), None);
    }
}
