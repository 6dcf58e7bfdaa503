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
    pub timeline: &'static str,
    pub step_word: &'static str,
    pub what_just_happened: &'static str,
    pub start_hint: &'static str,
    pub partitions: &'static str,
    pub epoch: &'static str,
    pub leader_word: &'static str,
    pub follower_word: &'static str,
    pub out_of_isr: &'static str,
    /// Chooses the brokers drawn inside: all, or one.
    pub show_brokers: &'static str,
    pub all_brokers: &'static str,
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
    pub alarms: &'static str,
    pub no_alarms: &'static str,
    pub jump_to_step: &'static str,
    pub timing_wheel: &'static str,
    pub timers_word: &'static str,
    pub bucket_word: &'static str,
    pub cluster_map: &'static str,
    pub messages_in_flight: &'static str,
    pub headers: &'static str,
    pub headers_hint: &'static str,
    pub steady_load: &'static str,
    pub load_tab: &'static str,
    pub steady_load_hint: &'static str,
    pub records_per_sec: &'static str,
    pub keys: &'static str,
    pub no_keys: &'static str,
    pub fixed_keys: &'static str,
    pub random_keys: &'static str,
    pub value_bytes: &'static str,
    pub start_load: &'static str,
    pub stop_load: &'static str,
    pub load_numbers: &'static str,
    pub status_shutting_down: &'static str,
    pub status_shutting_down_hint: &'static str,
    pub shut_down: &'static str,
    pub isolate: &'static str,
    pub isolated: &'static str,
    pub isolated_hint: &'static str,
    pub network_partitions: &'static str,
    pub no_partitions: &'static str,
    pub heal_network: &'static str,
    pub log_on_disk: &'static str,
    pub next_controller_event: &'static str,
    pub next_controller_event_hint: &'static str,
    pub no_controller_event: &'static str,
    pub controller_quorum: &'static str,
    pub controller: &'static str,
    pub active_controller: &'static str,
    pub none_word: &'static str,
    pub quorum_intro: &'static str,
    pub no_active_controller: &'static str,
    pub metadata_log: &'static str,
    pub voted_for: &'static str,
    pub kill: &'static str,
    pub restart: &'static str,
    pub status_running: &'static str,
    pub status_fenced: &'static str,
    pub status_stopped: &'static str,
    pub status_fenced_hint: &'static str,
    pub status_stopped_hint: &'static str,
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
    pub theme_dark: &'static str,
    pub theme_light: &'static str,
    pub setup: &'static str,
    pub setup_intro: &'static str,
    pub brokers: &'static str,
    pub controllers: &'static str,
    pub controllers_note: &'static str,
    pub consumers: &'static str,
    pub consumers_note: &'static str,
    /// The Fetch form's choice of consumer.
    pub consumer: &'static str,
    pub topics: &'static str,
    pub topic_name: &'static str,
    pub partitions_field: &'static str,
    pub replication_factor: &'static str,
    pub add_topic: &'static str,
    pub remove_topic: &'static str,
    pub setup_acks: &'static str,
    pub setup_acks_hint: &'static str,
    pub min_isr_label: &'static str,
    pub min_isr_hint: &'static str,
    pub unclean_label: &'static str,
    pub unclean_note: &'static str,
    pub pre_vote_label: &'static str,
    pub pre_vote_note: &'static str,
    pub seed: &'static str,
    pub seed_hint: &'static str,
    pub apply_setup: &'static str,
    pub setup_not_applied: &'static str,
    pub copy_share_link: &'static str,
    pub link_copied: &'static str,
    pub link_in_address_bar: &'static str,
    pub link_error_intro: &'static str,
    pub link_error_fallback: &'static str,
    pub topic: &'static str,
    pub following: &'static str,
    pub next_hop: &'static str,
    pub stop_following: &'static str,
    pub no_hops_yet: &'static str,
    pub request_finished: &'static str,
    pub did_not_move: &'static str,
    pub legend_followed: &'static str,
    pub partition_why: &'static str,
    /// Opens a partition's reasons: its leader, its ISR, its HW.
    pub why_partition: &'static str,
    pub link_too_long: &'static str,
    pub one_broker: &'static str,
    pub active_word: &'static str,
    pub role_leader: &'static str,
    pub role_follower: &'static str,
    pub role_candidate: &'static str,
    pub role_prospective: &'static str,
    pub role_unattached: &'static str,
    pub role_resigned: &'static str,
    pub replicas_word: &'static str,
    pub producer_word: &'static str,
    pub consumer_word: &'static str,
    pub auto_pick: &'static str,
    pub auto_pick_hint: &'static str,
    pub replica_fetchers: &'static str,
    pub logs_word: &'static str,
    pub no_fetchers: &'static str,
    pub replica_fetch_word: &'static str,
    pub inside_word: &'static str,
    pub expires_in: &'static str,
    pub operations_word: &'static str,
    pub share: &'static str,
    pub share_intro: &'static str,
    pub first_hint: &'static str,
    pub all_calm: &'static str,
    pub legend_quorum: &'static str,
    pub legend_broker_control: &'static str,
    pub fetcher_idle: &'static str,
    pub purgatory_clock_hint: &'static str,
    pub purgatory_details: &'static str,
    pub quorum_short: &'static str,
    pub segments_short: &'static str,
    pub welcome: &'static str,
    pub speed_hint: &'static str,
    pub focus: &'static str,
    pub focus_hint: &'static str,
    /// The session stopped taking steps at the page's memory budget.
    pub memory_full: &'static str,
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
    play: "▷ Play",
    pause: "❚❚ Pause",
    speed: "Speed",
    timeline: "Timeline",
    step_word: "step",
    what_just_happened: "What just happened",
    start_hint: "Press Step to start the brokers, or Produce to send a record, then Step to move it one hop.",
    partitions: "Partitions",
    epoch: "epoch",
    leader_word: "leader",
    follower_word: "follower",
    out_of_isr: "out of ISR",
    show_brokers: "Inside",
    all_brokers: "every broker",
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
    alarms: "Alarms",
    no_alarms: "No invariant is broken so far. The checker watches every step for Election Safety, one leader per leader epoch, a high watermark that never goes back, lost acknowledged writes, consumers reading above the high watermark, gaps in offsets, and an idempotent producer's batch written twice.",
    jump_to_step: "Jump to step",
    timing_wheel: "timing wheel",
    timers_word: "timeouts waiting",
    bucket_word: "bucket",
    cluster_map: "Cluster map",
    messages_in_flight: "messages in flight",
    headers: "Headers",
    headers_hint: "Record headers as key=value pairs separated by commas; they travel in the record batch after the value.",
    steady_load: "Steady load",
    load_tab: "Load",
    steady_load_hint: "A load generator sends records at a steady rate in simulated time, as kafka-producer-perf-test does: watch linger.ms and batch.size fill batches and the request queues and purgatory fill up.",
    records_per_sec: "Records/s",
    keys: "Keys",
    no_keys: "none",
    fixed_keys: " keys",
    random_keys: "random",
    value_bytes: "Value bytes",
    start_load: "Start load",
    stop_load: "Stop load",
    load_numbers: "Records a second and value bytes must be whole numbers.",
    status_shutting_down: "shutting down",
    status_shutting_down_hint: "Controlled shutdown: the broker asked to stop (wantShutDown in its heartbeat); the active controller moves its leaderships to other ISR replicas and takes it out of every ISR, then lets it stop.",
    shut_down: "Shut down",
    isolate: "Isolate",
    isolated: "isolated",
    isolated_hint: "A network partition: messages across the cut are lost without a reset, so each side notices only through its timeouts (request.timeout.ms, broker.session.timeout.ms, the Raft fetch timeout).",
    network_partitions: "Network partitions",
    no_partitions: "The network is whole. Isolate a broker or a controller to cut it off from every other node.",
    heal_network: "Heal network",
    log_on_disk: "log kept on disk",
    next_controller_event: "Next controller event",
    next_controller_event_hint: "Step until the control plane acts: an election, a new active controller, a metadata record, a fenced or registered broker.",
    no_controller_event: "No controller event in the next 60 s of simulated time: the control plane is quiet (only heartbeats and fetches), so the run stayed where it was.",
    controller_quorum: "Controller quorum",
    controller: "Controller",
    active_controller: "Active controller",
    none_word: "none",
    quorum_intro: "The active controller is the Raft leader of the KRaft quorum. It appends metadata records (registrations, fencing, new leaders); the voters replicate them by fetching, and a record counts once a majority has it.",
    no_active_controller: "No active controller. Without a majority of voters nothing in the metadata can change: no broker is fenced and no partition gets a new leader until enough controllers are back.",
    metadata_log: "metadata log",
    voted_for: "voted for",
    kill: "Kill",
    restart: "Restart",
    status_running: "running",
    status_fenced: "fenced",
    status_stopped: "stopped",
    status_fenced_hint: "Fenced: the active controller does not let it lead or take part yet (not registered, not caught up with the metadata log, or no heartbeat within broker.session.timeout.ms).",
    status_stopped_hint: "Stopped: the process is down. Its log segments survive, as a disk survives a crash; the controller fences it once its session times out.",
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
    theme_dark: "☾ Dark",
    theme_light: "☀ Light",
    setup: "Setup",
    setup_intro: "Choose a cluster, then Apply setup to start a fresh run with it. A setup that is refused leaves the current run as it is.",
    brokers: "Brokers",
    controllers: "Controllers",
    consumers: "Consumers",
    consumers_note: "Consumers that fetch on their own (client-3 on): each keeps its own positions, and their fetches can wait in purgatory side by side.",
    consumer: "Consumer",
    controllers_note: "KRaft controller voters. The active controller is the Raft leader among them; it needs a majority (2 of 3, 3 of 5) to change metadata.",
    topics: "Topics",
    topic_name: "Name",
    partitions_field: "Partitions",
    replication_factor: "Replication factor",
    add_topic: "+ Add topic",
    remove_topic: "Remove",
    setup_acks: "Producer acks (client-0)",
    setup_acks_hint: "client-0 sends with this acks and the Produce form starts with it; the form's other acks choices use client-1 and client-2.",
    min_isr_label: "min.insync.replicas (every topic)",
    min_isr_hint: "With acks=all a produce needs at least this many in-sync replicas, or it fails with NOT_ENOUGH_REPLICAS.",
    unclean_label: "Allow unclean leader election (unclean.leader.election.enable)",
    unclean_note: "Set on every topic. When no ISR replica of a partition is alive, the active controller may then elect a replica from outside the ISR, which can lose acknowledged writes; off (Kafka's default), the partition stays offline until an ISR replica returns.",
    pre_vote_label: "Pre-vote in the controller quorum (KIP-996)",
    pre_vote_note: "On, as in Kafka 4.0: a controller that lost its leader asks for pre-votes before it raises the epoch, so one cut off and back again does not unseat the leader. Off: Kafka 3.x.",
    seed: "Seed",
    seed_hint: "The same seed and the same actions give the same run.",
    apply_setup: "Apply setup",
    setup_not_applied: "Not applied; the current run is unchanged.",
    copy_share_link: "Copy share link",
    link_copied: "Copied. The address bar holds the same link.",
    link_in_address_bar: "The address bar now holds the link: copy it from there.",
    link_error_intro: "This share link could not be opened",
    link_error_fallback: "The default cluster is shown instead.",
    topic: "Topic",
    following: "Following",
    next_hop: "Next hop ▶",
    stop_following: "Stop following",
    no_hops_yet: "At this point of the timeline it has made no hop yet.",
    request_finished: "Its path is complete.",
    did_not_move: "It did not move within the steps tried.",
    legend_followed: "ringed: the request you follow",
    partition_why: "why this partition",
    why_partition: "Why?",
    link_too_long: "This run is too long for a share link (more than 500,000 steps or 20,000 actions).",
    one_broker: "the picked broker",
    active_word: "active",
    role_leader: "leader",
    role_follower: "follower",
    role_candidate: "candidate",
    role_prospective: "prospective",
    role_unattached: "unattached",
    role_resigned: "resigned",
    replicas_word: "replicas",
    producer_word: "producer",
    consumer_word: "consumer",
    auto_pick: "follows your request",
    auto_pick_hint: "Until you pick a node on the map, the stage shows the broker your own request is in.",
    replica_fetchers: "Replica fetchers",
    logs_word: "Logs",
    no_fetchers: "No replica fetcher: this broker follows no leader.",
    replica_fetch_word: "Replica fetch",
    inside_word: "inside",
    expires_in: "expires in",
    operations_word: "operations",
    share: "Share",
    share_intro: "A share link holds the whole run: the setup, the seed, every action and the step shown. Opening it replays the same run, step for step.",
    first_hint: "Produce a record, then Step; or kill a broker and press Play.",
    all_calm: "The cluster is healthy: every partition has a live leader and the controller quorum has an active controller.",
    speed_hint: "Simulated time per real second. Where only background work runs, Play skips ahead faster and says so; it slows again when something you follow happens.",
    focus: "Focus",
    focus_hint: "What Step stops at and the narration tells in full. My requests: your records and fetches, what they wait on, and the changes anyone should see (fencing, elections).",
    quorum_short: "Quorum",
    segments_short: "Segments",
    welcome: "This is a running Kafka 4 cluster: three KRaft controllers on top (the teal one is the active controller), three brokers in the middle, and clients below. Under the map is the inside of one broker, stage by stage. Produce a record and press Step to walk it through, or pick a broker on the map, kill it, and press Play to watch the cluster recover.",
    purgatory_clock_hint: "The soonest deadline in purgatory: a delayed produce gives up after its request's timeout, a delayed fetch answers with what it has after fetch.max.wait.ms (replica.fetch.wait.max.ms for a follower).",
    purgatory_details: "What waits in purgatory, and its timing wheel",
    fetcher_idle: "Waiting out replica.fetch.backoff.ms, or about to send its next fetch.",
    legend_quorum: "the controller quorum",
    legend_broker_control: "a broker and the controller",
    memory_full: "The page has used 3 GiB of the 4 GiB memory a web page may have, and dropping the oldest steps of the timeline no longer frees enough, so the simulation stopped here. Step back and the timeline still work; apply a setup or reload the page to start afresh.",
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
    play: "▷ 재생",
    pause: "❚❚ 일시정지",
    speed: "속도",
    timeline: "타임라인",
    step_word: "단계",
    what_just_happened: "방금 일어난 일",
    start_hint: "한 단계를 눌러 브로커를 시작하거나, 프로듀스로 레코드를 보낸 뒤 한 단계를 눌러 한 홉씩 움직여 보세요.",
    partitions: "파티션",
    epoch: "에포크",
    leader_word: "리더",
    follower_word: "팔로워",
    out_of_isr: "ISR 밖",
    show_brokers: "내부 보기",
    all_brokers: "모든 브로커",
    broker: "브로커",
    socket_receive_buffer: "소켓 수신 버퍼",
    network_thread: "네트워크 스레드",
    request_queue: "요청 큐",
    io_thread: "I/O 스레드",
    log_append: "로그 추가",
    log_read: "로그 읽기",
    purgatory: "퍼거토리",
    response_queue: "응답 큐",
    socket_send_buffer: "소켓 송신 버퍼",
    segments: "개 세그먼트",
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
    alarms: "경보",
    no_alarms: "지금까지 깨진 불변식이 없습니다. 검사기는 모든 단계에서 선거 안전성, 리더 에포크당 하나의 리더, 뒤로 가지 않는 하이 워터마크, 잃어버린 확인 응답 쓰기, 하이 워터마크 위를 읽는 컨슈머, 오프셋의 빈틈, 두 번 기록된 멱등 프로듀서의 배치를 살핍니다.",
    jump_to_step: "해당 단계로 이동:",
    timing_wheel: "타이밍 휠",
    timers_word: "개 타임아웃 대기",
    bucket_word: "버킷",
    cluster_map: "클러스터 지도",
    messages_in_flight: "개 메시지 전송 중",
    headers: "헤더",
    headers_hint: "레코드 헤더를 쉼표로 구분한 key=value 쌍으로 적습니다. 레코드 배치 안에서 값 뒤에 실려 갑니다.",
    steady_load: "꾸준한 부하",
    load_tab: "부하",
    steady_load_hint: "부하 생성기는 kafka-producer-perf-test처럼 시뮬레이션 시간으로 일정한 속도로 레코드를 보냅니다. linger.ms와 batch.size가 배치를 채우고 요청 큐와 퍼거토리가 차오르는 모습을 지켜보세요.",
    records_per_sec: "초당 레코드",
    keys: "키",
    no_keys: "없음",
    fixed_keys: "개 키",
    random_keys: "무작위",
    value_bytes: "값 바이트",
    start_load: "부하 시작",
    stop_load: "부하 멈춤",
    load_numbers: "초당 레코드와 값 바이트는 정수여야 합니다.",
    status_shutting_down: "종료 중",
    status_shutting_down_hint: "제어된 종료: 브로커가 하트비트의 wantShutDown으로 종료를 요청했습니다. 액티브 컨트롤러가 리더십을 다른 ISR 복제본으로 옮기고 모든 ISR에서 뺀 다음 종료를 허락합니다.",
    shut_down: "제어된 종료",
    isolate: "고립",
    isolated: "고립됨",
    isolated_hint: "네트워크 파티션: 끊긴 링크를 건너는 메시지는 리셋 없이 사라지므로, 양쪽 모두 타임아웃(request.timeout.ms, broker.session.timeout.ms, Raft 페치 타임아웃)으로만 알아챕니다.",
    network_partitions: "네트워크 파티션",
    no_partitions: "네트워크가 온전합니다. 브로커나 컨트롤러를 고립시키면 다른 모든 노드와 끊깁니다.",
    heal_network: "네트워크 복구",
    log_on_disk: "디스크에 남은 로그",
    next_controller_event: "다음 컨트롤러 이벤트",
    next_controller_event_hint: "컨트롤 플레인이 움직일 때까지 진행합니다: 선거, 새 액티브 컨트롤러, 메타데이터 레코드, 펜싱되거나 등록된 브로커.",
    no_controller_event: "앞으로 시뮬레이션 시간 60초 안에 컨트롤러 이벤트가 없습니다. 컨트롤 플레인이 조용하므로(하트비트와 페치뿐) 지금 위치에 그대로 있습니다.",
    controller_quorum: "컨트롤러 쿼럼",
    controller: "컨트롤러",
    active_controller: "액티브 컨트롤러",
    none_word: "없음",
    quorum_intro: "액티브 컨트롤러는 KRaft 쿼럼의 Raft 리더입니다. 메타데이터 레코드(등록, 펜싱, 새 리더)를 추가하고, 투표자들이 페치로 복제하며, 과반이 가진 레코드만 확정됩니다.",
    no_active_controller: "액티브 컨트롤러가 없습니다. 투표자 과반이 없으면 메타데이터는 아무것도 바뀌지 않습니다. 컨트롤러가 충분히 돌아올 때까지 어떤 브로커도 펜싱되지 않고 어떤 파티션도 새 리더를 얻지 못합니다.",
    metadata_log: "메타데이터 로그",
    voted_for: "투표한 대상",
    kill: "종료",
    restart: "재시작",
    status_running: "실행 중",
    status_fenced: "펜싱됨",
    status_stopped: "중지됨",
    status_fenced_hint: "펜싱됨: 액티브 컨트롤러가 아직 이 브로커를 리더로 쓰지 않습니다(등록 전이거나, 메타데이터 로그를 따라잡지 못했거나, broker.session.timeout.ms 안에 하트비트가 없었습니다).",
    status_stopped_hint: "중지됨: 프로세스가 내려갔습니다. 디스크가 크래시에도 남듯 로그 세그먼트는 남아 있고, 세션이 만료되면 컨트롤러가 펜싱합니다.",
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
    theme_dark: "☾ 어두운 테마",
    theme_light: "☀ 밝은 테마",
    setup: "설정",
    setup_intro: "클러스터를 고른 뒤 설정 적용을 누르면 그 클러스터로 새 실행을 시작합니다. 거부된 설정은 지금의 실행을 그대로 둡니다.",
    brokers: "브로커 수",
    controllers: "컨트롤러",
    consumers: "컨슈머",
    consumers_note: "각자 따로 페치하는 컨슈머입니다(client-3부터). 저마다 위치를 따로 가지며, 이들의 페치는 퍼거토리에서 나란히 기다릴 수 있습니다.",
    consumer: "컨슈머",
    controllers_note: "KRaft 컨트롤러 투표자입니다. 액티브 컨트롤러는 이들 중 Raft 리더이며, 메타데이터를 바꾸려면 과반(3대 중 2대, 5대 중 3대)이 필요합니다.",
    topics: "토픽",
    topic_name: "이름",
    partitions_field: "파티션 수",
    replication_factor: "복제 계수",
    add_topic: "+ 토픽 추가",
    remove_topic: "삭제",
    setup_acks: "프로듀서 acks (client-0)",
    setup_acks_hint: "client-0이 이 acks로 보내고 프로듀스 양식도 이 값으로 시작합니다. 양식의 다른 acks 선택은 client-1과 client-2가 맡습니다.",
    min_isr_label: "min.insync.replicas (모든 토픽)",
    min_isr_hint: "acks=all 프로듀스는 동기화된 레플리카가 적어도 이만큼 있어야 하며, 모자라면 NOT_ENOUGH_REPLICAS로 실패합니다.",
    unclean_label: "언클린 리더 선출 허용 (unclean.leader.election.enable)",
    unclean_note: "모든 토픽에 설정됩니다. 파티션의 ISR 복제본이 하나도 살아 있지 않으면 액티브 컨트롤러가 ISR 밖의 복제본을 리더로 뽑을 수 있고, 이때 확인 응답한 쓰기를 잃을 수 있습니다. 꺼 두면(Kafka 기본값) ISR 복제본이 돌아올 때까지 파티션이 오프라인으로 남습니다.",
    pre_vote_label: "컨트롤러 쿼럼의 사전 투표 (KIP-996)",
    pre_vote_note: "켜면(Kafka 4.0과 같음) 리더를 잃은 컨트롤러가 에포크를 올리기 전에 사전 투표부터 요청하므로, 끊겼다 돌아온 컨트롤러가 리더를 끌어내리지 않습니다. 끄면 Kafka 3.x 방식입니다.",
    seed: "시드",
    seed_hint: "같은 시드와 같은 동작은 언제나 같은 실행을 만듭니다.",
    apply_setup: "설정 적용",
    setup_not_applied: "적용하지 않았습니다. 지금의 실행은 그대로입니다.",
    copy_share_link: "공유 링크 복사",
    link_copied: "복사했습니다. 주소 표시줄에도 같은 링크가 있습니다.",
    link_in_address_bar: "이제 주소 표시줄에 링크가 있습니다. 거기서 복사하세요.",
    link_error_intro: "이 공유 링크를 열 수 없습니다",
    link_error_fallback: "대신 기본 클러스터를 보여 줍니다.",
    topic: "토픽",
    following: "따라가는 중",
    next_hop: "다음 홉 ▶",
    stop_following: "그만 따라가기",
    no_hops_yet: "타임라인의 이 지점에서는 아직 한 홉도 움직이지 않았습니다.",
    request_finished: "이 요청의 길은 끝났습니다.",
    did_not_move: "시도한 단계 안에서 움직이지 않았습니다.",
    legend_followed: "고리 표시: 따라가는 요청",
    partition_why: "이 파티션인 이유",
    why_partition: "왜?",
    link_too_long: "이 실행은 공유 링크에 담기에 너무 깁니다(500,000단계 또는 동작 20,000개 초과).",
    one_broker: "고른 브로커",
    active_word: "액티브",
    role_leader: "리더",
    role_follower: "팔로워",
    role_candidate: "후보",
    role_prospective: "예비 후보",
    role_unattached: "미소속",
    role_resigned: "사임",
    replicas_word: "복제본",
    producer_word: "프로듀서",
    consumer_word: "컨슈머",
    auto_pick: "내 요청을 따라감",
    auto_pick_hint: "지도에서 노드를 고르기 전까지는, 내 요청이 들어 있는 브로커를 보여 줍니다.",
    replica_fetchers: "레플리카 페처",
    logs_word: "로그",
    no_fetchers: "레플리카 페처 없음: 이 브로커는 따르는 리더가 없습니다.",
    replica_fetch_word: "복제 페치",
    inside_word: "내부",
    expires_in: "만료까지",
    operations_word: "작업",
    share: "공유",
    share_intro: "공유 링크에는 실행 전체가 담깁니다: 설정, 시드, 모든 동작, 보고 있던 단계. 링크를 열면 같은 실행이 단계마다 똑같이 다시 재생됩니다.",
    first_hint: "레코드를 프로듀스한 뒤 한 단계씩 넘겨 보세요. 아니면 브로커를 죽이고 재생을 눌러 보세요.",
    all_calm: "클러스터가 건강합니다: 모든 파티션에 살아 있는 리더가 있고, 컨트롤러 쿼럼에는 액티브 컨트롤러가 있습니다.",
    speed_hint: "실제 1초 동안 흐르는 시뮬레이션 시간입니다. 백그라운드 작업만 있을 때는 재생이 더 빨리 건너뛰며 그렇다고 알려 주고, 따라가는 일이 생기면 다시 느려집니다.",
    focus: "초점",
    focus_hint: "한 단계가 멈추고 설명이 자세히 들려주는 대상입니다. 내 요청: 내가 보낸 레코드와 페치, 그것들이 기다리는 일, 그리고 누구나 봐야 할 변화(펜싱, 선거).",
    quorum_short: "쿼럼",
    segments_short: "세그먼트",
    welcome: "지금 돌아가는 Kafka 4 클러스터입니다. 위에는 KRaft 컨트롤러 셋(청록색이 액티브 컨트롤러), 가운데는 브로커 셋, 아래는 클라이언트가 있습니다. 지도 아래에는 브로커 하나의 내부가 단계별로 보입니다. 레코드를 프로듀스하고 한 단계씩 넘기며 따라가 보거나, 지도에서 브로커를 골라 죽이고 재생을 눌러 클러스터가 회복하는 모습을 지켜보세요.",
    purgatory_clock_hint: "퍼거토리에서 가장 가까운 마감: 지연된 프로듀스는 요청의 타임아웃이 지나면 포기하고, 지연된 페치는 fetch.max.wait.ms(팔로워는 replica.fetch.wait.max.ms)가 지나면 가진 것으로 답합니다.",
    purgatory_details: "퍼거토리에서 기다리는 것과 타이밍 휠",
    fetcher_idle: "replica.fetch.backoff.ms를 기다리거나 다음 페치를 보내려는 참입니다.",
    legend_quorum: "컨트롤러 쿼럼",
    legend_broker_control: "브로커와 컨트롤러",
    memory_full: "웹 페이지가 쓸 수 있는 메모리 4GiB 중 3GiB를 썼고, 타임라인의 가장 오래된 단계를 지워도 더는 충분히 비워지지 않아 시뮬레이션을 여기서 멈췄습니다. 한 단계 뒤로와 타임라인은 그대로 쓸 수 있고, 설정을 적용하거나 페이지를 새로 고치면 처음부터 시작합니다.",
};

// ---------------------------------------------------------------------------
// Sentences with values in them, in both languages.
// ---------------------------------------------------------------------------

use super::follow::Release;
use super::narrate_ko::{ga, neun};
use super::narration::Narrator;
use super::session::{ReplayError, MAX_REPLAY_COMMANDS, MAX_REPLAY_STEPS};
use super::setup::{Field, Setup, SetupError, MAX_BROKERS, MAX_CONSUMERS, MAX_PARTITIONS, MAX_TOPICS};
use super::json::{Expected, JsonError, JsonErrorKind, MAX_DEPTH};
use super::share::{LinkError, MAX_LINK_CHARS, VERSION as LINK_VERSION};
use crate::sim::simulation::{CommandError, ConfigError, ConfigProblem, MAX_BROKERS as MAX_SIM_BROKERS, MAX_REQUEST_SIZE};
use crate::sim::load::{KeyPattern, LoadRun, MAX_FIXED_KEYS, MAX_RECORDS_PER_SEC};
use crate::sim::trace::PartitionReason;

fn acks_name(acks: i16) -> String {
    if acks == -1 {
        "all".into()
    } else {
        acks.to_string()
    }
}

/// One line saying what cluster the run has.
pub fn setup_summary(lang: Lang, s: &Setup) -> String {
    let topics: Vec<String> = s
        .topics
        .iter()
        .map(|t| match lang {
            Lang::En => format!("{} ({} partitions, RF {})", t.name, t.partitions, t.replication_factor),
            Lang::Ko => format!("{} (파티션 {}개, 복제 계수 {})", t.name, t.partitions, t.replication_factor),
        })
        .collect();
    let unclean = match (lang, s.unclean_leader_election_enable) {
        (Lang::En, true) => "unclean election on",
        (Lang::En, false) => "unclean election off",
        (Lang::Ko, true) => "언클린 선출 켬",
        (Lang::Ko, false) => "언클린 선출 끔",
    };
    // One consumer is the usual case and goes unsaid.
    let consumers = match (lang, s.consumers) {
        (_, 0 | 1) => String::new(),
        (Lang::En, n) => format!(" · {n} consumers"),
        (Lang::Ko, n) => format!(" · 컨슈머 {n}개"),
    };
    match lang {
        Lang::En => format!(
            "{} broker{} · {} controller{}{consumers} · {} · acks={} · min.insync.replicas={} · {unclean} · seed {}",
            s.brokers,
            if s.brokers == 1 { "" } else { "s" },
            s.controllers,
            if s.controllers == 1 { "" } else { "s" },
            topics.join(", "),
            acks_name(s.acks),
            s.min_insync_replicas,
            s.seed
        ),
        Lang::Ko => format!(
            "브로커 {}대 · 컨트롤러 {}대{consumers} · {} · acks={} · min.insync.replicas={} · {unclean} · 시드 {}",
            s.brokers,
            s.controllers,
            topics.join(", "),
            acks_name(s.acks),
            s.min_insync_replicas,
            s.seed
        ),
    }
}

fn field_name(lang: Lang, f: &Field) -> String {
    match (lang, f) {
        (Lang::En, Field::Brokers) => "Brokers".into(),
        (Lang::En, Field::Partitions(i)) => format!("Partitions of topic {}", i + 1),
        (Lang::En, Field::ReplicationFactor(i)) => format!("Replication factor of topic {}", i + 1),
        (Lang::En, Field::MinInsyncReplicas) => "min.insync.replicas".into(),
        (Lang::En, Field::Seed) => "Seed".into(),
        (Lang::Ko, Field::Brokers) => "브로커 수".into(),
        (Lang::Ko, Field::Partitions(i)) => format!("{}번 토픽의 파티션 수", i + 1),
        (Lang::Ko, Field::ReplicationFactor(i)) => format!("{}번 토픽의 복제 계수", i + 1),
        (Lang::Ko, Field::MinInsyncReplicas) => "min.insync.replicas".into(),
        (Lang::Ko, Field::Seed) => "시드".into(),
    }
}

/// What the learner typed, in quotation marks. Rust's Debug quoting would
/// also escape it (a backslash before every quote, \u{..} for control
/// characters), which reads as code rather than as their own words.
fn quoted(text: &str) -> String {
    format!("\"{text}\"")
}

/// Why the simulation refused a learner's action, as a sentence. The
/// English is the simulation's own, which the CLI prints too.
pub fn command_error(lang: Lang, e: &CommandError) -> String {
    use CommandError as C;
    let text = match (lang, e) {
        (Lang::En, e) => return super::narrate::capitalized(&format!("{e}.")),
        (_, C::UnknownClient(c)) => format!("{} 없습니다", neun(format!("클라이언트 {c}"))),
        (_, C::NotAProducer(c)) => format!("{} 프로듀서가 아니라 컨슈머입니다", neun(format!("클라이언트 {c}"))),
        (_, C::NotAConsumer(c)) => format!("{} 컨슈머가 아니라 프로듀서입니다", neun(format!("클라이언트 {c}"))),
        (_, C::UnknownTopic(t)) => format!("{} 이름의 토픽은 없습니다(UNKNOWN_TOPIC_OR_PARTITION)", quoted(t)),
        (_, C::UnknownPartition(tp)) => format!("{} 없습니다(UNKNOWN_TOPIC_OR_PARTITION)", neun(format!("파티션 {tp}"))),
        (_, C::RecordTooLarge { bytes }) => {
            format!("레코드가 {bytes}바이트로, 프로듀서의 max.request.size {MAX_REQUEST_SIZE}바이트보다 큽니다")
        }
        (_, C::NegativeOffset(o)) => format!("페치 오프셋은 음수일 수 없습니다({o})"),
        (_, C::UnknownController(c)) => format!("{} 없습니다", neun(format!("컨트롤러 {c}"))),
        (_, C::ControllerAlreadyStopped(c)) => format!("{} 이미 멈춰 있습니다", neun(format!("컨트롤러 {c}"))),
        (_, C::ControllerAlreadyRunning(c)) => format!("{} 이미 돌고 있습니다", neun(format!("컨트롤러 {c}"))),
        (_, C::UnknownBroker(b)) => format!("{} 없습니다", neun(format!("브로커 {b}"))),
        (_, C::BrokerAlreadyStopped(b)) => format!("{} 이미 멈춰 있습니다", neun(format!("브로커 {b}"))),
        (_, C::BrokerAlreadyRunning(b)) => format!("{} 이미 돌고 있습니다", neun(format!("브로커 {b}"))),
        (_, C::NoControlPlane) => "브로커를 멈추거나 네트워크를 끊으려면 컨트롤러 쿼럼(컨트롤러 1, 3, 5대)이 있어야 합니다. 쿼럼이 없으면 리더십을 옮기거나 잃어버린 요청을 타임아웃시킬 주체가 없습니다".into(),
        (_, C::BrokerAlreadyShuttingDown(b)) => format!("{} 이미 종료하는 중입니다", neun(format!("브로커 {b}"))),
        (_, C::UnknownNode(n)) => format!("{} 없습니다", neun(format!("끊어 낼 {n}"))),
        (_, C::NodeOnBothSides(n)) => format!("{} 네트워크 분할의 양쪽에 함께 있을 수 없습니다", neun(format!("{n}"))),
        (_, C::EmptyPartitionSide) => "네트워크 분할에는 양쪽에 노드가 하나 이상 있어야 합니다".into(),
        (_, C::NoPartition) => "복구할 네트워크 분할이 없습니다".into(),
        (_, C::LoadRate(r)) => {
            format!("부하 생성기는 초당 레코드 1~{MAX_RECORDS_PER_SEC}개를 보낼 수 있습니다({r}개는 안 됩니다)")
        }
        (_, C::LoadKeyCount(n)) => format!("고정 키 집합에는 키가 1~{MAX_FIXED_KEYS}개 있어야 합니다({n}개는 안 됩니다)"),
        (_, C::NoLoad(c)) => format!("{} 부하 생성기를 돌리고 있지 않습니다", neun(format!("프로듀서 {c}"))),
    };
    format!("{text}.")
}

/// Why a setup was refused.
pub fn setup_error(lang: Lang, e: &SetupError) -> String {
    match (lang, e) {
        (Lang::En, SetupError::NotANumber { field, text }) => {
            format!("{} must be a whole number of 0 or more, not {}.", field_name(lang, field), quoted(text))
        }
        (Lang::Ko, SetupError::NotANumber { field, text }) => {
            format!("{}는 0 이상의 정수여야 합니다({}는 쓸 수 없습니다).", field_name(lang, field), quoted(text))
        }
        (Lang::En, SetupError::Controllers(n)) => format!("A KRaft quorum here has 1, 3 or 5 controllers, not {n}."),
        (Lang::En, SetupError::Consumers(n)) => format!("A setup has 1 to {MAX_CONSUMERS} consumers, not {n}."),
        (Lang::Ko, SetupError::Consumers(n)) => format!("컨슈머는 1개에서 {MAX_CONSUMERS}개까지 둘 수 있습니다({n}개는 안 됩니다)."),
        (Lang::Ko, SetupError::Controllers(n)) => format!("여기서 KRaft 쿼럼은 컨트롤러 1대, 3대 또는 5대입니다({n}대는 안 됩니다)."),
        (Lang::En, SetupError::Brokers(n)) => format!("The page runs 1 to {MAX_BROKERS} brokers, not {n}."),
        (Lang::Ko, SetupError::Brokers(n)) => format!("이 페이지는 브로커를 1대에서 {MAX_BROKERS}대까지 돌립니다({n}대는 안 됩니다)."),
        (Lang::En, SetupError::Topics(n)) => format!("A setup has 1 to {MAX_TOPICS} topics, not {n}."),
        (Lang::Ko, SetupError::Topics(n)) => format!("토픽은 1개에서 {MAX_TOPICS}개까지 둘 수 있습니다({n}개는 안 됩니다)."),
        (Lang::En, SetupError::TooManyPartitions { topic, partitions }) => format!(
            "Topic {topic} asks for {partitions} partitions; the page shows at most {MAX_PARTITIONS} per topic."
        ),
        (Lang::Ko, SetupError::TooManyPartitions { topic, partitions }) => format!(
            "토픽 {topic}의 파티션 {partitions}개는 너무 많습니다. 이 페이지는 토픽마다 파티션을 {MAX_PARTITIONS}개까지 보여 줍니다."
        ),
        (Lang::En, SetupError::Config(c)) => format!("{c}."),
        (Lang::Ko, SetupError::Config(c)) => config_error_ko(c),
    }
}

fn config_error_ko(c: &ConfigError) -> String {
    let text = match &c.problem {
        ConfigProblem::Brokers(n) => format!("클러스터에는 브로커가 1대에서 {MAX_SIM_BROKERS}대까지 있어야 합니다({n}대는 안 됩니다)"),
        ConfigProblem::Controllers(n) => {
            format!("컨트롤러 쿼럼의 투표자는 1, 3, 5대(없으면 0대)여야 합니다({n}대는 안 됩니다)")
        }
        ConfigProblem::NoThreads => {
            "num.network.threads, num.io.threads, queued.max.requests는 각각 1 이상이어야 합니다".into()
        }
        ConfigProblem::LagOrRetentionCheck => {
            "replica.lag.time.max.ms는 2 이상, log.retention.check.interval.ms는 1 이상이어야 합니다".into()
        }
        ConfigProblem::TopicName(name) => format!(
            "{} 토픽 이름으로 쓸 수 없습니다. a-z, A-Z, 0-9, '.', '_', '-' 가운데 1자에서 249자까지 쓰세요",
            neun(quoted(name))
        ),
        ConfigProblem::TopicTwice(topic) => format!("{} 두 번 정의되었습니다", ga(format!("토픽 {topic}"))),
        ConfigProblem::Partitions { topic, partitions } => {
            format!("토픽 {topic}에는 파티션이 1개에서 1000개까지 있어야 합니다({partitions}개는 안 됩니다)")
        }
        ConfigProblem::ReplicationFactor { topic, replication_factor, brokers } => format!(
            "토픽 {topic}의 복제 계수는 {replication_factor}인데, 클러스터의 브로커는 {brokers}대입니다. 복제 계수는 1 이상, 브로커 수 이하여야 합니다"
        ),
        ConfigProblem::TopicSetting { topic, name, value, minimum } => {
            format!("토픽 {topic}: {name} = {value}은(는) 쓸 수 없습니다. {minimum} 이상이어야 합니다")
        }
        ConfigProblem::MinInsyncReplicas { topic } => format!("토픽 {topic}: min.insync.replicas는 1 이상이어야 합니다"),
    };
    format!("{}: {text}.", c.error().name())
}

/// Why a share link could not be opened (after [`Texts::link_error_intro`]).
pub fn link_error(lang: Lang, e: &LinkError) -> String {
    match (lang, e) {
        (Lang::En, LinkError::NotALink) => "it does not start with #s=".into(),
        (Lang::Ko, LinkError::NotALink) => "#s=로 시작하지 않습니다".into(),
        (Lang::En, LinkError::Base64(d)) => format!("it is not base64url ({d})"),
        (Lang::Ko, LinkError::Base64(d)) => format!("base64url 형식이 아닙니다({d})"),
        (Lang::En, LinkError::NotText) => "its bytes are not UTF-8 text".into(),
        (Lang::Ko, LinkError::NotText) => "내용이 UTF-8 텍스트가 아닙니다".into(),
        (Lang::En, LinkError::Json(e)) => format!("it does not hold a KafkaScope session ({})", json_error(lang, e)),
        (Lang::Ko, LinkError::Json(e)) => format!("KafkaScope 세션이 담겨 있지 않습니다({})", json_error(lang, e)),
        (Lang::En, LinkError::TooLarge(n)) => {
            format!("it is {n} characters long, and this page reads links of up to {MAX_LINK_CHARS}")
        }
        (Lang::Ko, LinkError::TooLarge(n)) => {
            format!("길이가 {n}자로, 이 페이지가 읽는 최대 {MAX_LINK_CHARS}자보다 깁니다")
        }
        (Lang::En, LinkError::Version(v)) if *v < LINK_VERSION => {
            "it was made by an earlier KafkaScope, whose runs this page no longer replays step for step".to_string()
        }
        (Lang::Ko, LinkError::Version(v)) if *v < LINK_VERSION => {
            "이전 버전의 KafkaScope에서 만든 링크라, 이 페이지는 그 실행을 단계 그대로 재현하지 못합니다".to_string()
        }
        (Lang::En, LinkError::Version(v)) => {
            format!("it is version {v} of the link format, and this page reads version {LINK_VERSION}")
        }
        (Lang::Ko, LinkError::Version(v)) => format!("링크 형식 버전 {v}이며, 이 페이지는 버전 {LINK_VERSION}만 읽습니다"),
        (_, LinkError::Setup(e)) => {
            let text = setup_error(lang, e);
            text.trim_end_matches('.').to_string()
        }
        (Lang::En, LinkError::Replay(r)) => match r {
            ReplayError::Config(c) => c.to_string(),
            ReplayError::Command { index, error } => format!("its action {index} was refused: {error}"),
            ReplayError::Unreachable { index, step } => {
                format!("its action {index} is at step {step}, which the run never stops at")
            }
            ReplayError::Ended { steps } => format!("the run had nothing left to do at step {steps}, before the link's end"),
            ReplayError::EndBeforeCommands { end } => format!("it ends at step {end}, before its last action"),
            ReplayError::Position { position, len } => {
                format!("it shows timeline position {position}, but the timeline has only {len}")
            }
            ReplayError::TooLong => {
                format!("it asks for more than {MAX_REPLAY_STEPS} steps or {MAX_REPLAY_COMMANDS} actions")
            }
            ReplayError::MemoryFull { steps } => {
                format!("the page ran out of memory at step {steps}, before the link's end (reload the page and open the link again)")
            }
        },
        (Lang::Ko, LinkError::Replay(r)) => match r {
            ReplayError::Config(c) => config_error_ko(c),
            ReplayError::Command { index, error } => {
                format!("{index}번 동작이 거부되었습니다({})", command_error(lang, error).trim_end_matches('.'))
            }
            ReplayError::Unreachable { index, step } => {
                format!("{index}번 동작은 {step}단계에 있는데, 실행은 그 단계에 멈추지 않습니다")
            }
            ReplayError::Ended { steps } => format!("링크의 끝에 닿기 전, {steps}단계에서 더 할 일이 없었습니다"),
            ReplayError::EndBeforeCommands { end } => format!("마지막 동작보다 앞선 {end}단계에서 끝납니다"),
            ReplayError::Position { position, len } => {
                format!("타임라인 위치 {position}을(를) 가리키지만 타임라인에는 위치가 {len}개뿐입니다")
            }
            ReplayError::TooLong => {
                format!("{MAX_REPLAY_STEPS}단계 또는 {MAX_REPLAY_COMMANDS}개 동작보다 많은 것을 요구합니다")
            }
            ReplayError::MemoryFull { steps } => {
                format!("링크의 끝에 닿기 전, {steps}단계에서 페이지의 메모리가 다 찼습니다(페이지를 새로 고친 뒤 링크를 다시 여세요)")
            }
        },
    }
}

/// What is wrong with a link's JSON: where (the field's path, or the byte
/// for a syntax error) and why.
pub fn json_error(lang: Lang, e: &JsonError) -> String {
    let at = e.at;
    let path = match (e.path_text(), lang) {
        (p, _) if !p.is_empty() => p,
        (_, Lang::En) => "the JSON".into(),
        (_, Lang::Ko) => "JSON".into(),
    };
    // A character is shown as itself, or by its code point when it would
    // not be seen.
    let shown = |c: char| if c.is_control() || c.is_whitespace() { format!("U+{:04X}", c as u32) } else { format!("“{c}”") };
    match (lang, e.kind) {
        (Lang::En, JsonErrorKind::Truncated) => format!("it is cut short at byte {at}"),
        (Lang::Ko, JsonErrorKind::Truncated) => format!("{at}바이트에서 끊겨 있습니다"),
        (Lang::En, JsonErrorKind::Unexpected(c)) => format!("{} cannot stand at byte {at}", shown(c)),
        (Lang::Ko, JsonErrorKind::Unexpected(c)) => format!("{at}바이트에 {} 문자가 올 수 없습니다", shown(c)),
        (Lang::En, JsonErrorKind::Trailing) => format!("more text follows the end of the JSON, at byte {at}"),
        (Lang::Ko, JsonErrorKind::Trailing) => format!("JSON이 끝난 뒤 {at}바이트에 글이 더 있습니다"),
        (Lang::En, JsonErrorKind::BadString) => {
            format!("a string holds a raw control character, an unknown escape or half a surrogate pair at byte {at}")
        }
        (Lang::Ko, JsonErrorKind::BadString) => {
            format!("{at}바이트의 문자열에 제어 문자, 알 수 없는 이스케이프 또는 짝 없는 서로게이트가 있습니다")
        }
        (Lang::En, JsonErrorKind::TooDeep) => format!("it nests more than {MAX_DEPTH} levels deep at byte {at}"),
        (Lang::Ko, JsonErrorKind::TooDeep) => format!("{at}바이트에서 {MAX_DEPTH}단계보다 깊이 중첩됩니다"),
        (Lang::En, JsonErrorKind::Expected(x)) => format!(
            "{path} should be {}",
            match x {
                Expected::Object => "an object",
                Expected::Array => "a list",
                Expected::String => "a string",
                Expected::Integer => "a whole number",
                Expected::Bool => "true or false",
                Expected::Pair => "a [key, value] pair of strings",
            }
        ),
        (Lang::Ko, JsonErrorKind::Expected(x)) => format!(
            "{path}: {}",
            match x {
                Expected::Object => "객체여야 합니다",
                Expected::Array => "목록이어야 합니다",
                Expected::String => "문자열이어야 합니다",
                Expected::Integer => "정수여야 합니다",
                Expected::Bool => "true 또는 false여야 합니다",
                Expected::Pair => "문자열 두 개로 된 [키, 값] 쌍이어야 합니다",
            }
        ),
        (Lang::En, JsonErrorKind::OutOfRange { min, max }) => format!("{path} should be a whole number from {min} to {max}"),
        (Lang::Ko, JsonErrorKind::OutOfRange { min, max }) => format!("{path}: {min}부터 {max}까지의 정수여야 합니다"),
        (Lang::En, JsonErrorKind::Missing) => format!("{path} is missing"),
        (Lang::Ko, JsonErrorKind::Missing) => format!("{path}: 빠져 있습니다"),
        (Lang::En, JsonErrorKind::Unknown) => format!("{path} is not a field it can have"),
        (Lang::Ko, JsonErrorKind::Unknown) => format!("{path}: 있을 수 없는 필드입니다"),
        (Lang::En, JsonErrorKind::Duplicate) => format!("{path} is given twice"),
        (Lang::Ko, JsonErrorKind::Duplicate) => format!("{path}: 두 번 들어 있습니다"),
        (Lang::En, JsonErrorKind::Choice(names)) => format!("{path} should be one of {}", names.join(", ")),
        (Lang::Ko, JsonErrorKind::Choice(names)) => format!("{path}: {} 가운데 하나여야 합니다", names.join(", ")),
        (Lang::En, JsonErrorKind::TooMany(max)) => format!("{path} has more than {max} entries"),
        (Lang::Ko, JsonErrorKind::TooMany(max)) => format!("{path}: 항목이 {max}개보다 많습니다"),
    }
}

/// Why the producer's partitioner sent a record where it did.
pub fn partition_reason(lang: Lang, reason: &PartitionReason, partition: u32) -> String {
    match (lang, reason) {
        (Lang::En, PartitionReason::Keyed { murmur2, positive, partitions }) => {
            format!("key hash: murmur2 = {murmur2}, & 0x7fffffff = {positive}, {positive} mod {partitions} = {partition}")
        }
        (Lang::Ko, PartitionReason::Keyed { murmur2, positive, partitions }) => {
            format!("키 해시: murmur2 = {murmur2}, & 0x7fffffff = {positive}, {positive} mod {partitions} = {partition}")
        }
        (Lang::En, PartitionReason::Sticky { reason }) => format!(
            "no key: the sticky partitioner stays on partition {partition} until about batch.size bytes went there ({})",
            super::narration::English.sticky_reason(reason)
        ),
        (Lang::Ko, PartitionReason::Sticky { reason }) => format!(
            "키 없음: 스티키 파티셔너는 약 batch.size 바이트가 찰 때까지 파티션 {partition}에 머뭅니다({})",
            super::narration::Korean.sticky_reason(reason)
        ),
        (Lang::En, PartitionReason::RoundRobin { counter }) => {
            format!("RoundRobinPartitioner: record number {counter} goes to the next partition in turn, {partition}")
        }
        (Lang::Ko, PartitionReason::RoundRobin { counter }) => {
            format!("RoundRobinPartitioner: {counter}번 레코드는 차례대로 다음 파티션인 {partition}(으)로 갑니다")
        }
        (Lang::En, PartitionReason::Explicit) => format!("the record named partition {partition} itself"),
        (Lang::Ko, PartitionReason::Explicit) => format!("레코드가 파티션 {partition}을(를) 직접 지정했습니다"),
    }
}

/// How a followed produce left purgatory.
pub fn released_by(lang: Lang, r: &Release) -> String {
    let fetches: Vec<String> = r.fetches.iter().map(|f| f.to_string()).collect();
    let moves: Vec<String> = r.high_watermarks.iter().map(|(tp, from, to)| format!("{tp} {from} → {to}")).collect();
    match lang {
        Lang::En => format!(
            "Released from purgatory at step {} on broker {}: follower Fetch {} reported the followers' log end offsets, so the high watermark moved ({}).",
            r.step,
            r.broker,
            fetches.join(", "),
            moves.join(", ")
        ),
        Lang::Ko => format!(
            "{}단계에 브로커 {}의 퍼거토리에서 풀려났습니다. 팔로워 Fetch {}가 팔로워들의 로그 끝 오프셋을 알려서 하이 워터마크가 움직였습니다({}).",
            r.step,
            r.broker,
            fetches.join(", "),
            moves.join(", ")
        ),
    }
}

/// One line of a followed request's path: when, where, what.
pub fn hop_line(lang: Lang, step: u64, time_ms: u64, node: &str, narration: &str) -> String {
    match lang {
        Lang::En => format!("step {step} · {time_ms} ms · {node}: {narration}"),
        Lang::Ko => format!("{step}단계 · {time_ms} ms · {node}: {narration}"),
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::record::partitioner::StickyReason;

    /// The notice of a trimmed timeline says how many steps went and from
    /// when it starts, in each language.
    #[test]
    fn a_trimmed_timeline_says_how_much_went_and_where_it_starts() {
        let en = timeline_trimmed(Lang::En, 12_288, 754_321);
        assert!(en.contains("12288 oldest steps") && en.contains("12 min 34 s"), "{en}");
        let ko = timeline_trimmed(Lang::Ko, 12_288, 754_321);
        assert!(ko.contains("12288개") && ko.contains("12분 34초"), "{ko}");
    }

    #[test]
    fn every_speed_is_written_as_the_transport_bar_shows_it() {
        let labels: Vec<String> = crate::ui::player::SPEEDS.iter().map(|s| speed_label(*s)).collect();
        assert_eq!(labels, ["0.01×", "0.03×", "0.1×", "0.3×", "1×", "3×", "10×", "30×", "100×"]);
        assert_eq!(speed_label(0.5), "0.5×");
        assert_eq!(speed_label(0.25), "0.25×");
    }

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
    fn the_partition_choice_is_explained_in_both_languages() {
        let keyed = PartitionReason::Keyed { murmur2: -790332482, positive: 1357151166, partitions: 3 };
        assert_eq!(
            partition_reason(Lang::En, &keyed, 0),
            "key hash: murmur2 = -790332482, & 0x7fffffff = 1357151166, 1357151166 mod 3 = 0"
        );
        assert!(partition_reason(Lang::Ko, &keyed, 0).contains("1357151166 mod 3 = 0"));
        let sticky = PartitionReason::Sticky { reason: StickyReason::Stayed { bytes_so_far: 1200 } };
        assert!(partition_reason(Lang::En, &sticky, 2).contains("1200 bytes went there so far"));
        assert!(partition_reason(Lang::Ko, &sticky, 2).contains("1200바이트"));
        let first = PartitionReason::Sticky { reason: StickyReason::First };
        assert!(partition_reason(Lang::En, &first, 1).contains("first record without a key"));
        assert!(partition_reason(Lang::En, &PartitionReason::RoundRobin { counter: 4 }, 1).contains("record number 4"));
    }

    #[test]
    fn a_refused_setup_is_explained_in_korean_too() {
        let setup = Setup {
            topics: vec![super::super::setup::TopicSetup { name: "orders".into(), partitions: 3, replication_factor: 4 }],
            ..Setup::default()
        };
        let e = setup.start().err().unwrap();
        let en = setup_error(Lang::En, &e);
        let ko = setup_error(Lang::Ko, &e);
        assert!(en.starts_with("INVALID_REPLICATION_FACTOR: topic orders has replication factor 4"), "{en}");
        assert!(ko.starts_with("INVALID_REPLICATION_FACTOR: 토픽 orders의 복제 계수는 4"), "{ko}");
    }

    #[test]
    fn every_configuration_problem_is_told_in_both_languages_without_rust_syntax() {
        let topic = || "orders".to_string();
        let problems = [
            ConfigProblem::Brokers(0),
            ConfigProblem::Controllers(2),
            ConfigProblem::NoThreads,
            ConfigProblem::LagOrRetentionCheck,
            ConfigProblem::TopicName("a/b".into()),
            ConfigProblem::TopicTwice(topic()),
            ConfigProblem::Partitions { topic: topic(), partitions: 0 },
            ConfigProblem::ReplicationFactor { topic: topic(), replication_factor: 4, brokers: 3 },
            ConfigProblem::TopicSetting { topic: topic(), name: "segment.bytes", value: 10, minimum: 61 },
            ConfigProblem::MinInsyncReplicas { topic: topic() },
        ];
        for problem in problems {
            let config = ConfigError { problem };
            let code = format!("{}: ", config.error().name());
            let e = SetupError::Config(config);
            let (en, ko) = (setup_error(Lang::En, &e), setup_error(Lang::Ko, &e));
            assert!(ko.chars().any(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c)), "{ko}");
            for text in [&en, &ko] {
                assert!(text.starts_with(&code) && text.ends_with('.'), "{text}");
                for rust in ["{", "Some(", "::", "\\\""] {
                    assert!(!text.contains(rust), "{text}");
                }
            }
        }
    }

    #[test]
    fn every_refused_action_is_told_in_both_languages_without_rust_syntax() {
        use crate::sim::ids::{NodeId, TopicPartition};
        use crate::sim::simulation::CommandError as C;
        let errors = [
            C::UnknownClient(1),
            C::NotAProducer(1),
            C::NotAConsumer(1),
            C::UnknownTopic("or\"ders".into()),
            C::UnknownPartition(TopicPartition::new("orders", 7)),
            C::RecordTooLarge { bytes: 2_000_000 },
            C::NegativeOffset(-1),
            C::UnknownController(4),
            C::ControllerAlreadyStopped(1),
            C::ControllerAlreadyRunning(1),
            C::UnknownBroker(9),
            C::BrokerAlreadyStopped(2),
            C::BrokerAlreadyRunning(2),
            C::NoControlPlane,
            C::BrokerAlreadyShuttingDown(2),
            C::UnknownNode(NodeId::Broker(9)),
            C::NodeOnBothSides(NodeId::Client(0)),
            C::EmptyPartitionSide,
            C::NoPartition,
            C::LoadRate(0),
            C::LoadKeyCount(0),
            C::NoLoad(0),
        ];
        for e in errors {
            let (en, ko) = (command_error(Lang::En, &e), command_error(Lang::Ko, &e));
            assert!(en.starts_with(|c: char| c.is_ascii_uppercase()), "{en}");
            assert!(ko.chars().any(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c)), "{ko}");
            for text in [&en, &ko] {
                assert!(text.ends_with('.') && !text.ends_with(".."), "{text}");
                for rust in ["{", "Some(", "::", "\\"] {
                    assert!(!text.contains(rust), "{text}");
                }
            }
        }
        assert_eq!(command_error(Lang::Ko, &C::BrokerAlreadyStopped(1)), "브로커 1은 이미 멈춰 있습니다.");
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

/// A Raft role under KRaft's state names (QuorumState), in the page's language.
pub fn raft_role(lang: Lang, role: &str) -> String {
    let ko = match role {
        "Leader" => "리더",
        "Follower" => "팔로워",
        "Candidate" => "후보",
        "Prospective" => "예비 후보",
        "Unattached" => "미소속",
        "Resigned" => "사임",
        other => other,
    };
    match lang {
        Lang::En => role.to_string(),
        Lang::Ko => format!("{ko} ({role})"),
    }
}

/// "epoch 3 · majority 2 of 3".
pub fn quorum_facts(lang: Lang, epoch: i32, majority: u32, voters: usize) -> String {
    match lang {
        Lang::En => format!("epoch {epoch} · majority {majority} of {voters}"),
        Lang::Ko => format!("에포크 {epoch} · 과반 {voters}대 중 {majority}대"),
    }
}

/// The line under the produced records when the older ones are left out.
pub fn earlier_records(lang: Lang, n: usize) -> String {
    match lang {
        Lang::En => format!("{n} earlier records are not listed."),
        Lang::Ko => format!("이전 레코드 {n}개는 목록에 없습니다."),
    }
}

/// What a producer's running load generator does, for its line under the
/// Steady load form.
pub fn load_running(lang: Lang, producer: u32, acks: i16, run: &LoadRun) -> String {
    let acks = if acks == -1 { "all".to_string() } else { acks.to_string() };
    let l = &run.load;
    match lang {
        Lang::En => {
            let keys = match l.keys {
                KeyPattern::None => "no keys".to_string(),
                KeyPattern::Fixed(n) => format!("{n} keys"),
                KeyPattern::Random => "random keys".to_string(),
            };
            format!(
                "client-{producer} (acks={acks}) sends {} records/s to {}, {keys}, {}-byte values: {} sent so far.",
                l.records_per_sec, l.topic, l.value_bytes, run.sent
            )
        }
        Lang::Ko => {
            let keys = match l.keys {
                KeyPattern::None => "키 없음".to_string(),
                KeyPattern::Fixed(n) => format!("키 {n}개"),
                KeyPattern::Random => "무작위 키".to_string(),
            };
            format!(
                "client-{producer}(acks={acks})가 {}에 초당 레코드 {}개를 보냅니다({keys}, 값 {}바이트). 지금까지 {}개를 보냈습니다.",
                l.topic, l.records_per_sec, l.value_bytes, run.sent
            )
        }
    }
}

/// Why the Produce form's Headers field was refused.
pub fn header_error(lang: Lang, e: &super::forms::HeaderError) -> String {
    use super::forms::HeaderError::*;
    match (lang, e) {
        (Lang::En, NoEquals(x)) => format!("Headers: {} has no '=' between a key and a value (write key=value, key=value).", quoted(x)),
        (Lang::Ko, NoEquals(x)) => format!("헤더: {}에 키와 값을 나누는 '='가 없습니다(key=value, key=value 형식으로 적으세요).", quoted(x)),
        (Lang::En, EmptyKey(x)) => format!("Headers: {} has an empty key; every header needs one.", quoted(x)),
        (Lang::Ko, EmptyKey(x)) => format!("헤더: {}의 키가 비어 있습니다. 모든 헤더에는 키가 있어야 합니다.", quoted(x)),
    }
}

/// A duration a person reads at a glance: "350 ms", "4.2 s", "1 min 5 s".
pub fn duration(lang: Lang, ms: u64) -> String {
    let (s, min) = match lang {
        Lang::En => (" s", " min"),
        Lang::Ko => ("초", "분"),
    };
    if ms < 1_000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{}.{}{s}", ms / 1_000, ms % 1_000 / 100)
    } else {
        format!("{}{min} {}{s}", ms / 60_000, ms % 60_000 / 1_000)
    }
}

/// Why Step back no longer reaches the run's start: the page dropped the
/// oldest part of the timeline to stay within its memory.
pub fn timeline_trimmed(lang: Lang, positions: usize, starts_ms: u64) -> String {
    let at = duration(lang, starts_ms);
    match lang {
        Lang::En => format!(
            "To stay within the page's memory, the {positions} oldest steps of the timeline were dropped: it now starts at {at} of simulated time. The cluster runs on, and a share link still replays the whole run."
        ),
        Lang::Ko => format!(
            "페이지의 메모리 안에 머물려고 타임라인의 가장 오래된 단계 {positions}개를 지웠습니다. 이제 타임라인은 시뮬레이션 시간 {at}부터 시작합니다. 클러스터는 계속 돌고, 공유 링크는 여전히 실행 전체를 재생합니다."
        ),
    }
}

/// The simulated clock: seconds with milliseconds, "12.345 s".
pub fn clock(lang: Lang, ms: u64) -> String {
    let unit = match lang {
        Lang::En => " s",
        Lang::Ko => "초",
    };
    format!("{}.{:03}{unit}", ms / 1_000, ms % 1_000)
}

/// What a broker leads, for the stage's picked-node line.
pub fn leads_summary(lang: Lang, partitions: &[String]) -> String {
    let list = super::story::prose_list(lang, partitions);
    match (lang, partitions.is_empty()) {
        (Lang::En, true) => "leads no partition".into(),
        (Lang::En, false) => format!("leads {list}"),
        (Lang::Ko, true) => "이끄는 파티션 없음".into(),
        (Lang::Ko, false) => format!("{list}의 리더"),
    }
}

/// A stopped controller, for its insides.
pub fn controller_down(lang: Lang, log_end_offset: i64) -> String {
    match lang {
        Lang::En => format!(
            "The process is down. Its metadata log (end offset {log_end_offset}) and its quorum state survive on disk; restarted, it rejoins as a follower or a voter of the newest epoch."
        ),
        Lang::Ko => format!(
            "프로세스가 멈췄습니다. 메타데이터 로그(끝 오프셋 {log_end_offset})와 쿼럼 상태는 디스크에 남아 있어, 다시 시작하면 최신 에포크의 팔로워나 투표자로 돌아옵니다."
        ),
    }
}

/// What a Raft role does in the KRaft quorum, in a sentence.
pub fn raft_role_explained(lang: Lang, role: &crate::sim::raft::state::RaftRole, active: bool) -> String {
    use crate::sim::raft::state::RaftRole as R;
    match (lang, role) {
        (Lang::En, R::Leader { .. }) if active => "The active controller: the Raft leader of the quorum. It appends metadata records (registrations, fencing, new partition leaders); a record is committed once a majority of voters has fetched it.".into(),
        (Lang::Ko, R::Leader { .. }) if active => "액티브 컨트롤러: 쿼럼의 Raft 리더입니다. 메타데이터 레코드(등록, 펜싱, 새 파티션 리더)를 덧붙이며, 과반의 투표자가 가져가면 레코드가 커밋됩니다.".into(),
        (Lang::En, R::Leader { .. }) => "A Raft leader that is not active yet: it first commits a record of its own epoch.".into(),
        (Lang::Ko, R::Leader { .. }) => "아직 액티브가 아닌 Raft 리더입니다. 먼저 자기 에포크의 레코드를 커밋해야 합니다.".into(),
        (Lang::En, R::Follower { leader }) => format!("A follower: it fetches the metadata log from controller {leader}. If no fetch succeeds for controller.quorum.fetch.timeout.ms (2 s), it starts an election."),
        (Lang::Ko, R::Follower { leader }) => format!("팔로워: 컨트롤러 {leader}에게서 메타데이터 로그를 가져옵니다. controller.quorum.fetch.timeout.ms(2초) 동안 가져오기에 성공하지 못하면 선거를 시작합니다."),
        (Lang::En, R::Candidate { .. }) => "A candidate: it voted for itself in a new epoch and asks the other voters for theirs; a majority makes it the leader.".into(),
        (Lang::Ko, R::Candidate { .. }) => "후보: 새 에포크에서 자신에게 투표했고 다른 투표자들에게 표를 청합니다. 과반을 얻으면 리더가 됩니다.".into(),
        (Lang::En, R::Prospective { .. }) => "A prospective candidate (KIP-996's pre-vote): it asks whether the others would vote for it before it bumps the epoch, so a node that was only cut off does not disturb a working leader.".into(),
        (Lang::Ko, R::Prospective { .. }) => "예비 후보(KIP-996의 사전 투표): 에포크를 올리기 전에 다른 투표자들이 자신에게 투표할지 먼저 묻습니다. 잠시 끊겼던 노드가 잘 돌아가는 리더를 흔들지 않게 하려는 것입니다.".into(),
        (Lang::En, R::Unattached { .. }) => "Unattached: it knows no leader of its epoch and waits out its election timeout before it tries to become one.".into(),
        (Lang::Ko, R::Unattached { .. }) => "미소속: 자기 에포크의 리더를 모르며, 스스로 나서기 전에 선거 타임아웃을 기다립니다.".into(),
        (Lang::En, R::Resigned { .. }) => "Resigned: it gave up leadership of its epoch and waits for the next leader.".into(),
        (Lang::Ko, R::Resigned { .. }) => "사임: 자기 에포크의 리더 자리를 내려놓고 다음 리더를 기다립니다.".into(),
    }
}

/// A candidate's votes so far.
pub fn votes_line(lang: Lang, granted: &[u32], rejected: &[u32], majority: u32) -> String {
    let yes = super::story::number_list(granted);
    match lang {
        Lang::En => format!(
            "Votes: {} of the {majority} needed (from {yes}){}.",
            granted.len(),
            if rejected.is_empty() { String::new() } else { format!("; refused by {}", super::story::number_list(rejected)) }
        ),
        Lang::Ko => format!(
            "표: 필요한 {majority}표 중 {}표(투표자 {yes}){}.",
            granted.len(),
            if rejected.is_empty() { String::new() } else { format!(", 거절: {}", super::story::number_list(rejected)) }
        ),
    }
}

/// A speed as the transport bar writes it: "0.01×", "1×", "30×".
pub fn speed_label(speed: f64) -> String {
    // Hundredths by integer arithmetic: the page links no float formatting.
    let hundredths = (speed * 100.0).round().max(0.0) as u64;
    if hundredths >= 100 {
        format!("{}×", (hundredths + 50) / 100)
    } else {
        let text = format!("0.{:02}", hundredths);
        format!("{}×", text.trim_end_matches('0'))
    }
}

/// What a focus follows, for its choice in the transport bar.
pub fn focus_name(lang: Lang, focus: super::focus::Focus) -> &'static str {
    use super::focus::Focus as F;
    match (lang, focus) {
        (Lang::En, F::Mine) => "My requests",
        (Lang::En, F::DataPlane) => "Data plane",
        (Lang::En, F::ControlPlane) => "Control plane",
        (Lang::En, F::Everything) => "Everything",
        (Lang::Ko, F::Mine) => "내 요청",
        (Lang::Ko, F::DataPlane) => "데이터 플레인",
        (Lang::Ko, F::ControlPlane) => "컨트롤 플레인",
        (Lang::Ko, F::Everything) => "모든 일",
    }
}

/// A kind of background work, as "skipping 6.8 s of …" ends.
pub fn background_name(lang: Lang, kind: super::focus::BackgroundKind) -> &'static str {
    use super::focus::BackgroundKind as B;
    match (lang, kind) {
        (Lang::En, B::Heartbeats) => "heartbeats",
        (Lang::En, B::QuorumFetches) => "quorum fetches",
        (Lang::En, B::MetadataFetches) => "metadata fetches",
        (Lang::En, B::IdleReplicaFetches) => "idle replica fetches",
        (Lang::En, B::SteadyLoad) => "load generator traffic",
        (Lang::En, B::Other) => "background work",
        (Lang::Ko, B::Heartbeats) => "하트비트",
        (Lang::Ko, B::QuorumFetches) => "쿼럼 페치",
        (Lang::Ko, B::MetadataFetches) => "메타데이터 페치",
        (Lang::Ko, B::IdleReplicaFetches) => "한가한 복제 페치",
        (Lang::Ko, B::SteadyLoad) => "부하 생성기 트래픽",
        (Lang::Ko, B::Other) => "백그라운드 작업",
    }
}

/// What Play is doing, for the line on the stage: "Skipping 6.8 s of
/// heartbeats (×16)".
pub fn play_status(lang: Lang, showing: &super::player::Showing, rate: f64, speed: f64) -> Option<String> {
    use super::player::Showing;
    match showing {
        Showing::Skipping { skipped_ms, kind } => {
            // A whole number: the page links no float formatting.
            let factor = (rate / speed.max(f64::MIN_POSITIVE)).round().max(0.0) as u64;
            Some(match lang {
                Lang::En => format!("Skipping {} of {} (×{factor})", duration(lang, *skipped_ms), background_name(lang, *kind)),
                Lang::Ko => format!("{} {} 건너뛰는 중(×{factor})", background_name(lang, *kind), duration(lang, *skipped_ms)),
            })
        }
        Showing::Watching | Showing::Holding => None,
    }
}

/// What the last Step passed over on its way, or that nothing in focus came.
pub fn step_report(lang: Lang, report: &super::session::StepReport, focus: super::focus::Focus) -> Option<String> {
    let kinds: Vec<&str> = report.passed.kinds().map(|k| background_name(lang, k)).collect();
    let kinds = super::story::prose_list(lang, &kinds.iter().map(|k| k.to_string()).collect::<Vec<_>>());
    match (lang, report.found) {
        (Lang::En, false) => Some(format!(
            "Nothing in your focus ({}) happens in the next minute of simulated time, so Step took one ordinary step.",
            focus_name(lang, focus)
        )),
        (Lang::Ko, false) => Some(format!(
            "지금 초점({})에서는 앞으로 시뮬레이션 시간 1분 동안 아무 일도 없어서, 보통의 한 단계만 넘겼습니다.",
            focus_name(lang, focus)
        )),
        (_, true) if report.positions <= 1 || kinds.is_empty() => None,
        (Lang::En, true) => Some(format!(
            "On the way, Step passed {} background step(s) ({} of {kinds}).",
            report.positions - 1,
            duration(lang, report.simulated_ms)
        )),
        (Lang::Ko, true) => Some(format!(
            "오는 길에 백그라운드 {}단계를 건너뛰었습니다({} 동안의 {kinds}).",
            report.positions - 1,
            duration(lang, report.simulated_ms)
        )),
    }
}

#[cfg(test)]
mod link_error_tests {
    use super::*;

    /// Each way a link's JSON can be wrong reads as a sentence in both
    /// languages, naming the field or the byte, with no Rust syntax.
    #[test]
    fn every_json_error_of_a_link_is_told_in_both_languages() {
        let kinds = [
            JsonErrorKind::Truncated,
            JsonErrorKind::Unexpected('x'),
            JsonErrorKind::Unexpected('\u{1}'),
            JsonErrorKind::Trailing,
            JsonErrorKind::BadString,
            JsonErrorKind::TooDeep,
            JsonErrorKind::Expected(Expected::Object),
            JsonErrorKind::Expected(Expected::Array),
            JsonErrorKind::Expected(Expected::String),
            JsonErrorKind::Expected(Expected::Integer),
            JsonErrorKind::Expected(Expected::Bool),
            JsonErrorKind::Expected(Expected::Pair),
            JsonErrorKind::OutOfRange { min: 0, max: 4294967295 },
            JsonErrorKind::Missing,
            JsonErrorKind::Unknown,
            JsonErrorKind::Duplicate,
            JsonErrorKind::Choice(&["all", "-1", "1", "0"]),
            JsonErrorKind::TooMany(20_000),
        ];
        let mut seen = Vec::new();
        for kind in kinds {
            let mut e = JsonError::new(17, kind);
            e.path = vec![
                crate::ui::json::PathPart::Key("setup".into()),
                crate::ui::json::PathPart::Key("topics".into()),
                crate::ui::json::PathPart::Index(0),
                crate::ui::json::PathPart::Key("partitions".into()),
            ];
            for lang in [Lang::En, Lang::Ko] {
                let text = link_error(lang, &LinkError::Json(e.clone()));
                let syntax_error = matches!(
                    kind,
                    JsonErrorKind::Truncated
                        | JsonErrorKind::Unexpected(_)
                        | JsonErrorKind::Trailing
                        | JsonErrorKind::BadString
                        | JsonErrorKind::TooDeep
                );
                let names = if syntax_error { text.contains("17") } else { text.contains("setup.topics[0].partitions") };
                assert!(names, "{kind:?} in {lang:?}: {text}");
                assert!(!text.contains("Expected") && !text.contains("'\\u"), "{text}");
                if lang == Lang::Ko {
                    assert!(text.chars().any(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c)), "{text}");
                }
                assert!(!seen.contains(&text), "two errors read the same: {text}");
                seen.push(text);
            }
        }
        assert!(link_error(Lang::En, &LinkError::Json(JsonError::new(0, JsonErrorKind::Missing))).contains("the JSON"));
        assert!(link_error(Lang::En, &LinkError::Json(JsonError::new(0, JsonErrorKind::Unexpected('\u{1}')))).contains("U+0001"));
        for lang in [Lang::En, Lang::Ko] {
            assert!(link_error(lang, &LinkError::TooLarge(9_000_000)).contains("9000000"));
        }
    }
}
